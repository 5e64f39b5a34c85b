"""Load the Tenhou scoring cases and turn each into scoring-kernel arguments."""
from __future__ import annotations

import gzip
import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

from mjcore.hand import Hand, Meld
from mjcore.riichi.batch_scoring import tenhou_case_args

CASES = Path(os.environ.get(
    "MJCORE_TENHOU_DATA",
    Path(__file__).resolve().parents[3] / "shared" / "data" / "tenhou")) / "cases.jsonl.gz"


@lru_cache(maxsize=1)
def load_cases() -> tuple[dict[str, Any], ...]:
    with gzip.open(CASES, "rt", encoding="utf-8") as f:
        return tuple(json.loads(line) for line in f)


def case_args(case: dict[str, Any]) -> dict[str, Any]:
    """Arguments of mjcore.riichi.scoring.score_counts for one case (seats relative to the
    winner; meld types read through mjcore.melds.TENHOU_KIND)."""
    return tenhou_case_args(case)


def expected_yaku(case: dict[str, Any]) -> dict[int, int]:
    """Tenhou's yaku as {id: han}; yakuman entries as {id: 13}."""
    exp = case["expected"]
    if exp["yakuman"]:
        return {y["id"]: 13 for y in exp["yakuman"]}
    return {y["id"]: y["han"] for y in exp["yaku"]}


def compare(case: dict[str, Any], res: Any) -> list[str]:
    """Differences between a ScoreResult and Tenhou's record (empty when they agree)."""
    exp = case["expected"]
    diffs = []
    if not res.is_win:
        return [f"status {res.status}"]
    got_yaku = {y.id: y.han for y in res.yaku}
    if got_yaku != expected_yaku(case):
        diffs.append(f"yaku {sorted(got_yaku.items())} != {sorted(expected_yaku(case).items())}")
    if res.fu != exp["fu"]:
        diffs.append(f"fu {res.fu} != {exp['fu']}")
    if res.points != exp["points"]:
        diffs.append(f"points {res.points} != {exp['points']}")
    if res.limit != exp["limit"]:
        diffs.append(f"limit {res.limit} != {exp['limit']}")
    if res.han != exp["han"]:
        diffs.append(f"han {res.han} != {exp['han']}")
    if list(res.deltas) != exp["deltas"]:
        diffs.append(f"deltas {list(res.deltas)} != {exp['deltas']}")
    return diffs


def batch_mismatches(cases: Any, res: Any, players: int = 4) -> dict[str, str]:
    """The cases whose row of a batch score result ``res`` differs from Tenhou's record, each
    with its differences. Deltas are by seat relative to the winner; under three players the
    fourth column must be 0."""
    bad = {}
    for i, c in enumerate(cases):
        exp, w, diffs = c["expected"], c["winner"], []
        if res.status[i] != 0:
            diffs.append(f"status {res.status[i]}")
        got = {y: int(res.yaku_han[i, y]) * (13 if 36 <= y < 52 else 1)
               for y in range(55) if int(res.yaku_mask[i]) >> y & 1}
        if got != expected_yaku(c):
            diffs.append(f"yaku {sorted(got.items())} != {sorted(expected_yaku(c).items())}")
        for name in ("fu", "points", "limit", "han"):
            if int(getattr(res, name)[i]) != exp[name]:
                diffs.append(f"{name} {int(getattr(res, name)[i])} != {exp[name]}")
        deltas = [0, 0, 0, 0]
        for r in range(players):
            deltas[(w + r) % players] = int(res.deltas[i, r])
        if deltas != exp["deltas"] or res.deltas[i, players:].any():
            diffs.append(f"deltas {deltas} != {exp['deltas']}")
        if diffs:
            bad[c["case_id"]] = "; ".join(diffs)
    return bad


def hand_of(case: dict[str, Any]) -> Hand:
    """The winning hand of a case (closed tiles and melds) as a Hand."""
    melds = []
    for m in case["melds"]:
        ids = list(m["tiles_136"])
        if m.get("added_tile_136") is not None and m["added_tile_136"] not in ids:
            ids.append(m["added_tile_136"])
        called = None if m["type"] == "kan-closed" else m["called_tile_136"]
        melds.append(Meld.from_136(m["type"], ids, called, m["from_rel"]))
    return Hand.from_136(case["closed_136"], melds)


def situation(case: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments of mjcore.riichi.scoring.score for a case (absolute seats)."""
    c = case
    return dict(tsumo=c["tsumo"], round_wind=c["round_wind"], winner=c["winner"],
                dealer=c["dealer"], from_who=None if c["tsumo"] else c["from_who"],
                pao_seat=c["pao_who"], dora=[t // 4 for t in c["dora_indicators_136"]],
                ura=[t // 4 for t in c["ura_indicators_136"]], honba=c["honba_paid"],
                riichi_sticks=c["riichi_sticks"], kita=c.get("kita", 0),
                **{k: v for k, v in c["situational"].items() if k != "tiles_left"})
