"""Load the Tenhou scoring cases and turn each into scoring-kernel arguments."""
from __future__ import annotations

import gzip
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

CASES = Path("/work/shared/data/tenhou/cases.jsonl.gz")
RED_136 = (16, 52, 88)
MELD_KIND = {"chi": 0, "pon": 1, "kan-open": 2, "kan-closed": 3, "kakan": 4}
WIND = {"E": 0, "S": 1, "W": 2, "N": 3}
SITUATION_BITS = (("riichi", 2), ("double_riichi", 4), ("ippatsu", 8), ("rinshan", 16),
                  ("chankan", 32), ("haitei", 64), ("houtei", 128), ("tenhou", 256),
                  ("chiihou", 512))


@lru_cache(maxsize=1)
def load_cases() -> tuple[dict[str, Any], ...]:
    with gzip.open(CASES, "rt", encoding="utf-8") as f:
        return tuple(json.loads(line) for line in f)


def case_args(case: dict[str, Any]) -> dict[str, Any]:
    """Arguments of mjcore.scoring.score_counts for one case (seats relative to the winner)."""
    counts = [0] * 34
    for t in case["closed_136"]:
        counts[t // 4] += 1
    red = sum(1 for t in case["closed_136"] if t in RED_136)
    winner = case["winner"]
    melds = []
    for m in case["melds"]:
        ids = set(m["tiles_136"])
        if m.get("added_tile_136") is not None:
            ids.add(m["added_tile_136"])
        kinds = sorted(t // 4 for t in ids)
        melds.append((MELD_KIND[m["type"]], kinds[0], sum(1 for t in ids if t in RED_136),
                      m["from_rel"]))
    sit = case["situational"]
    flags = (1 if case["tsumo"] else 0) | sum(bit for name, bit in SITUATION_BITS if sit[name])
    return {
        "counts": counts, "win_tile": case["win_tile_136"] // 4, "melds": melds, "red": red, "flags": flags,
        "seat_wind": (winner - case["dealer"]) % 4, "round_wind": WIND[case["round_wind"]],
        "from_rel": (case["from_who"] - winner) % 4,
        "pao_rel": -1 if case["pao_who"] is None else (case["pao_who"] - winner) % 4,
        "dora": [t // 4 for t in case["dora_indicators_136"]],
        "ura": [t // 4 for t in case["ura_indicators_136"]],
        "honba": case["honba_paid"], "riichi_sticks": case["riichi_sticks"], "winner": winner}


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
