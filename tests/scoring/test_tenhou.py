"""Every Tenhou scoring case (13,558 real wins) must match tenhou.net's own result exactly:
fu, points, limit, han, the yaku set with each han, and every player's score delta."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from mjcore.riichi.batch_scoring import pack_prepared
from mjcore.riichi.batch_scoring import score as batch_score
from mjcore.riichi.scoring import score

from .tenhou_cases import (
    CASES,
    batch_mismatches,
    case_args,
    compare,
    hand_of,
    load_cases,
    situation,
)

KNOWN = Path(__file__).with_name("known_mismatches.json")

pytestmark = pytest.mark.skipif(not CASES.exists(), reason="Tenhou data set not available")


def test_every_case_matches_tenhou():
    cases = load_cases()
    assert len(cases) == 13558
    bad = batch_mismatches(cases, batch_score(**pack_prepared([case_args(c) for c in cases])))
    known = {k["case_id"]: k["reason"] for k in json.loads(KNOWN.read_text())}
    assert sorted(bad) == sorted(known), {k: bad[k] for k in sorted(set(bad) ^ set(known))
                                          if k in bad}


def test_sample_through_single_api():
    """Every 13th case through mjcore.score with a Hand and absolute seats."""
    for case in load_cases()[::13]:
        res = score(hand_of(case), case["win_tile_136"] // 4, **situation(case))
        assert compare(case, res) == [], case["case_id"]


def test_batch_and_single_agree_on_fu_breakdown():
    cases = load_cases()[:500]
    res = batch_score(**pack_prepared([case_args(c) for c in cases]))
    names = ("base", "chiitoitsu", "menzen ron", "tsumo", "set", "pair", "wait", "open pinfu",
             "rounding")
    for i, c in enumerate(cases):
        single = score(hand_of(c), c["win_tile_136"] // 4, **situation(c))
        items = [(names[a], b, f) for a, b, f in res.fu_items[i, :res.n_fu_items[i]].tolist()]
        assert [(f.item, f.fu) for f in single.fu_items] == [(a, f) for a, _, f in items]
        assert sum(f.fu for f in single.fu_items) == single.fu == c["expected"]["fu"]
        assert int(res.points[i]) == single.points
