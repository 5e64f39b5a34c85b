"""Load the Tenhou scoring cases and turn each into scoring-kernel arguments."""
from __future__ import annotations

import gzip
import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

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
