"""Every Tenhou scoring case (13,558 real wins) must match tenhou.net's own result exactly:
fu, points, limit, han, the yaku set with each han, and every player's score delta."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from mjcore.hand import Hand, Meld
from mjcore.riichi.batch_scoring import pack_prepared
from mjcore.riichi.batch_scoring import score as batch_score
from mjcore.riichi.scoring import score

from .tenhou_cases import CASES, case_args, compare, expected_yaku, load_cases

KNOWN = Path(__file__).with_name("known_mismatches.json")

pytestmark = pytest.mark.skipif(not CASES.exists(), reason="Tenhou data set not available")


def _batch_mismatches(cases):
    arrays = pack_prepared([case_args(c) for c in cases])
    res = batch_score(**arrays)
    bad = {}
    for i, c in enumerate(cases):
        exp = c["expected"]
        w = c["winner"]
        diffs = []
        if res.status[i] != 0:
            diffs.append(f"status {res.status[i]}")
        got = {}
        for y in range(55):
            if int(res.yaku_mask[i]) >> y & 1:
                got[y] = int(res.yaku_han[i, y]) * (13 if 36 <= y < 52 else 1)
        if got != expected_yaku(c):
            diffs.append(f"yaku {sorted(got.items())} != {sorted(expected_yaku(c).items())}")
        for name in ("fu", "points", "limit", "han"):
            if int(getattr(res, name)[i]) != exp[name]:
                diffs.append(f"{name} {int(getattr(res, name)[i])} != {exp[name]}")
        deltas = [int(res.deltas[i, (s - w) % 4]) for s in range(4)]
        if deltas != exp["deltas"]:
            diffs.append(f"deltas {deltas} != {exp['deltas']}")
        if diffs:
            bad[c["case_id"]] = "; ".join(diffs)
    return bad


def test_every_case_matches_tenhou():
    cases = load_cases()
    assert len(cases) == 13558
    bad = _batch_mismatches(cases)
    known = {k["case_id"]: k["reason"] for k in json.loads(KNOWN.read_text())}
    assert sorted(bad) == sorted(known), {k: bad[k] for k in sorted(set(bad) ^ set(known))
                                          if k in bad}


def _hand_of(case):
    melds = []
    for m in case["melds"]:
        ids = list(m["tiles_136"])
        if m.get("added_tile_136") is not None and m["added_tile_136"] not in ids:
            ids.append(m["added_tile_136"])
        called = None if m["type"] == "kan-closed" else m["called_tile_136"]
        melds.append(Meld.from_136(m["type"], ids, called, m["from_rel"]))
    return Hand.from_136(case["closed_136"], melds)


def test_sample_through_single_api():
    """Every 13th case through mjcore.score with a Hand and absolute seats."""
    for case in load_cases()[::13]:
        res = score(_hand_of(case), case["win_tile_136"] // 4, **_situation(case))
        assert compare(case, res) == [], case["case_id"]


def test_batch_and_single_agree_on_fu_breakdown():
    cases = load_cases()[:500]
    res = batch_score(**pack_prepared([case_args(c) for c in cases]))
    names = ("base", "chiitoitsu", "menzen ron", "tsumo", "set", "pair", "wait", "open pinfu",
             "rounding")
    for i, c in enumerate(cases):
        single = score(_hand_of(c), c["win_tile_136"] // 4, **_situation(c))
        items = [(names[a], b, f) for a, b, f in res.fu_items[i, :res.n_fu_items[i]].tolist()]
        assert [(f.item, f.fu) for f in single.fu_items] == [(a, f) for a, _, f in items]
        assert sum(f.fu for f in single.fu_items) == single.fu == c["expected"]["fu"]
        assert int(res.points[i]) == single.points


def _situation(c):
    sit = c["situational"]
    return dict(tsumo=c["tsumo"], round_wind=c["round_wind"], winner=c["winner"],
                dealer=c["dealer"], from_who=None if c["tsumo"] else c["from_who"],
                pao_seat=c["pao_who"], dora=[t // 4 for t in c["dora_indicators_136"]],
                ura=[t // 4 for t in c["ura_indicators_136"]], honba=c["honba_paid"],
                riichi_sticks=c["riichi_sticks"],
                **{k: v for k, v in sit.items() if k != "tiles_left"})
