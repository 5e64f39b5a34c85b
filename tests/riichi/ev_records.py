"""mahjong-cpp 0.9.8's answers (../shared/data/ev/, its README) read as expected_values calls."""
from __future__ import annotations

import gzip
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mjcore
from mjcore.riichi.expected import ExpectedValues

EV_DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "ev"
FILES = ("14-fixed", "14-low-shanten", "14-mixed", "13-fixed", "13-low-shanten", "13-mixed",
         "open-14", "open-13")
WINDS = {"1z": "E", "2z": "S", "3z": "W", "4z": "N"}


def records(name: str) -> Iterator[dict[str, Any]]:
    with gzip.open(EV_DATA / f"{name}.jsonl.gz", "rt") as f:
        for line in f:
            yield json.loads(line)


def evaluate(q: dict[str, Any]) -> ExpectedValues:
    """The request as our library takes it (the front's 0/1 flags as booleans)."""
    text = q["hand"] if q["melds"] == "-" else q["hand"] + " " + q["melds"].replace(",", " ")
    return mjcore.expected_values(
        text, dora="" if q["dora"] == "-" else q["dora"], round_wind=WINDS[q["round"]],
        seat_wind=WINDS[q["seat"]], t_max=q["t_max"], extra=q["extra"], red=bool(q["red"]),
        ura=bool(q["ura"]), shanten_down=bool(q["shanten_down"]),
        tegawari=bool(q["tegawari"]), rules="tenhou")


def max_shanten() -> int:
    """3 with MJCORE_EV_FULL=1 (the whole data), else 2: the 3-shanten hands take minutes."""
    return 3 if os.environ.get("MJCORE_EV_FULL") == "1" else 2
