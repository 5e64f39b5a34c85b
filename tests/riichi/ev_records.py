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


def request_options(q: dict[str, Any], model: str = "compatible") -> tuple[str, dict[str, Any]]:
    """A record's request as our hand text and keyword options (the front's 0/1 flags as
    booleans), in mahjong-cpp's model unless told."""
    text = q["hand"] if q["melds"] == "-" else q["hand"] + " " + q["melds"].replace(",", " ")
    return text, {
        "dora": "" if q["dora"] == "-" else q["dora"], "round_wind": WINDS[q["round"]],
        "seat_wind": WINDS[q["seat"]], "t_max": q["t_max"], "extra": q["extra"],
        "red": bool(q["red"]), "ura": bool(q["ura"]), "shanten_down": bool(q["shanten_down"]),
        "tegawari": bool(q["tegawari"]), "rules": "tenhou", "model": model,
        "max_seconds": 120}     # exactness here, not the bound (a 3-shanten hand on a busy host)


def evaluate(q: dict[str, Any], model: str = "compatible") -> ExpectedValues:
    """The request as our library takes it, in mahjong-cpp's model unless told."""
    text, options = request_options(q, model)
    return mjcore.expected_values(text, **options)


def max_shanten() -> int:
    """3 with MJCORE_EV_FULL=1 (the whole data), else 2 (the 3-shanten hands take minutes), or
    MJCORE_EV_MAX_SHANTEN (the debug build's run takes 1)."""
    if os.environ.get("MJCORE_EV_FULL") == "1":
        return 3
    return int(os.environ.get("MJCORE_EV_MAX_SHANTEN", "2"))


def as_arrays(requests: list[dict[str, Any]]) -> dict[str, Any]:
    """The requests as the batch's arrays (mjcore.riichi.batch_expected), in order."""
    import numpy as np

    from mjcore._core.batch_scoring import MELD_NONE, encode_meld
    from mjcore.hand import as_hand
    from mjcore.melds import MeldKind
    from mjcore.tiles import parse_tiles

    n = len(requests)
    a: dict[str, Any] = {
        "counts": np.zeros((n, 34), np.uint8), "red": np.zeros((n, 3), np.uint8),
        "melds": np.full((n, 4), MELD_NONE, np.uint16), "dora": np.full((n, 2), 255, np.uint8),
        "visible_red": np.zeros((n, 3), np.uint8), "seat_wind": np.zeros(n, np.uint8),
        "round_wind": np.zeros(n, np.uint8)}
    for i, q in enumerate(requests):
        text = q["hand"] if q["melds"] == "-" else q["hand"] + " " + q["melds"].replace(",", " ")
        h = as_hand(text)
        a["counts"][i] = h.counts
        a["red"][i] = h.red
        for j, m in enumerate(h.melds):
            frm = 0 if m.kind == MeldKind.KAN_CLOSED else (m.from_rel or 3)
            a["melds"][i, j] = encode_meld(int(m.kind), min(m.tiles), m.red, frm)
        if q["dora"] != "-":
            ind = parse_tiles(q["dora"])
            for j, (k, is_red) in enumerate(zip(ind.kinds, ind.reds, strict=True)):
                a["dora"][i, j] = k
                if is_red:
                    a["visible_red"][i, k // 9] += 1
        a["seat_wind"][i] = "ESWN".index(WINDS[q["seat"]])
        a["round_wind"][i] = "ESWN".index(WINDS[q["round"]])
    return a
