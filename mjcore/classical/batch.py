"""Batch Chinese classical scoring: arrays of finished deals in, arrays of scores out, in one
GIL-free loop over the same compiled kernel as :func:`mjcore.classical.scoring.score_deal`.

Inputs, N deals (seats 0 = East .. 3 = North):

| array | shape, dtype | meaning |
| --- | --- | --- |
| counts | (N, 4, 34) uint8 | each seat's concealed tiles (the winner's include the winning tile) |
| melds | (N, 4, 4, 2) uint8 | each seat's declared sets: (``MeldKind``, lowest tile) |
| n_melds | (N, 4) uint8 | how many of ``melds`` are used |
| bonus | (N, 4) uint8 | bonus tiles held, bit b = ``(b+1)f`` |
| info | (N, 8) int16 | the deal's facts, in the order below |
| dead_kinds | (N,) uint64 | kinds whose four copies are all visible (bit k = kind k) |

``info`` columns: prevailing wind, winner, winning tile, claim (0 any, 1 pair, 2 chow, 3 pung),
win flags (``scoring.WIN_FLAGS``), discarder (-1 self-drawn), cannon (-1 none), declared pair
(255 = best reading).

Outputs (a :class:`mjcore.batch.BatchResult`): ``status`` (0 ok, < 0 bad row, reasons from
``mjcore.status`` in ``errors()``), ``score``, ``points``, ``doubles``, ``limit_hand`` and
``net`` (N, 4).
:func:`pack_deals` builds the arrays from :class:`~mjcore.classical.scoring.Deal` values.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._core import classical_scoring as _k
from ..batch import BatchResult, _threads
from ..errors import InvalidHandError
from ..status import BAD_COUNT, BAD_MELDS, reason_of
from .rules import ClassicalRules
from .scoring import CLAIMS, WIN_FLAGS, Deal, classical_rules

_SHAPES = {"counts": ((4, 34), np.uint8), "melds": ((4, 4, 2), np.uint8),
           "n_melds": ((4,), np.uint8), "bonus": ((4,), np.uint8), "info": ((8,), np.int16),
           "dead_kinds": ((), np.uint64)}


def pack_deals(deals: Sequence[Deal]) -> dict[str, np.ndarray]:
    """The input arrays of :func:`score_deals` for a list of deals."""
    n = len(deals)
    counts = np.zeros((n, 4, 34), np.uint8)
    melds = np.zeros((n, 4, 4, 2), np.uint8)
    n_melds = np.zeros((n, 4), np.uint8)
    bonus = np.zeros((n, 4), np.uint8)
    info = np.zeros((n, 8), np.int16)
    dead = np.zeros(n, np.uint64)
    for i, d in enumerate(deals):
        if d.hidden:
            raise InvalidHandError(f"deal {i}: the batch scores only deals with every hand shown",
                                   reason="hidden_hand", index=i)
        for s, h in enumerate(d.hands):
            for k in h.concealed:
                counts[i, s, k] += 1
            if len(h.melds) > 4:
                raise InvalidHandError(f"deal {i}: seat {s} has more than 4 sets",
                                       reason=reason_of(BAD_MELDS), index=i)
            for j, m in enumerate(h.melds):
                melds[i, s, j] = (int(m.kind), m.first)
            n_melds[i, s] = len(h.melds)
            bonus[i, s] = sum(1 << b for b in set(h.bonus))
        flags = sum(WIN_FLAGS[f] for f in d.how)
        info[i] = (d.prevailing, d.winner, d.win_tile, CLAIMS.index(d.claim), flags,
                   -1 if d.discarder is None else d.discarder,
                   -1 if d.cannon is None else d.cannon, 255 if d.pair is None else d.pair)
        dead[i] = sum(1 << k for k in d.dead_kinds)
    return {"counts": counts, "melds": melds, "n_melds": n_melds, "bonus": bonus,
            "info": info, "dead_kinds": dead}


def _array(value: Any, n: int, name: str) -> np.ndarray:
    shape, dtype = _SHAPES[name]
    a = np.asarray(value)
    if a.shape != (n,) + shape:
        raise InvalidHandError(f"classical batch {name}: shape {a.shape}, expected {(n,) + shape}",
                               reason="bad_shape")
    if a.dtype != dtype:
        if a.size and a.dtype.kind not in "iub":
            raise InvalidHandError(f"classical batch {name}: integer array expected, got "
                                   f"{a.dtype}", reason="bad_dtype")
        if a.size and dtype != np.uint64:
            info = np.iinfo(dtype)  # type: ignore[type-var]
            lo, hi = int(a.min()), int(a.max())
            if lo < info.min or hi > info.max:
                raise InvalidHandError(f"classical batch {name}: values {lo}..{hi} do not fit "
                                       f"{np.dtype(dtype)}", reason="bad_value")
    return np.ascontiguousarray(a, dtype=dtype)


def score_deals(counts: Any, melds: Any, n_melds: Any, bonus: Any, info: Any,
                dead_kinds: Any = None, *, rules: ClassicalRules | str = "classical",
                n_threads: int | None = 1) -> BatchResult:
    """Score N finished deals (see the module doc for the arrays). A bad row gets a negative
    status and zeros; the other rows are scored."""
    c = np.asarray(counts)
    if c.ndim != 3:
        raise InvalidHandError(f"classical batch counts: shape {c.shape}, expected (N, 4, 34)",
                               reason="bad_shape")
    n = c.shape[0]
    if dead_kinds is None:
        dead_kinds = np.zeros(n, np.uint64)
    arrays = [_array(v, n, name) for v, name in (
        (c, "counts"), (melds, "melds"), (n_melds, "n_melds"), (bonus, "bonus"),
        (info, "info"), (dead_kinds, "dead_kinds"))]
    rules = classical_rules(rules)
    out = {name: np.zeros((n, 4), np.int32) for name in ("score", "points", "doubles", "net")}
    limit_hand = np.zeros((n, 4), np.uint8)
    status = np.zeros(n, np.int8)
    c8, melds8, n8, bonus8, info16, dead64 = arrays
    _k.score_deals(c8, melds8, n8, bonus8, info16, dead64, rules.scoring_params, out["score"],
                   out["points"], out["doubles"], limit_hand, out["net"], status,
                   n_threads=_threads(n_threads))
    return BatchResult(status=status, values={**out, "limit_hand": limit_hand},
                       row_detail=_copies_detail(c8, melds8, n8, bonus8))


def _copies_detail(counts: np.ndarray, melds: np.ndarray, n_melds: np.ndarray,
                   bonus: np.ndarray) -> Any:
    """``row_detail`` of a deal batch: the kind the four hands hold more than 4 of (sets
    counted), or the bonus tile two seats hold."""
    from ..tiles import TILE_NAMES

    def detail(row: int, code: int) -> str | None:
        if code != BAD_COUNT:
            return None
        total = counts[row].sum(axis=0).astype(np.int64)
        for seat in range(4):
            for kind, first in melds[row, seat, :min(int(n_melds[row, seat]), 4)].tolist():
                tiles = [first, first + 1, first + 2] if kind == 0 else \
                    [first] * (4 if kind >= 2 else 3)
                if kind <= 4 and max(tiles) < 34:
                    np.add.at(total, tiles, 1)      # (a pung's kind three times)
        for kind, n in enumerate(total.tolist()):
            if n > 4:
                what = "a fifth " if n == 5 else f"{n} copies of "
                return f"{what}{TILE_NAMES[kind]} in the four hands (sets counted; at most 4)"
        for b in range(8):
            seats = [s for s in range(4) if int(bonus[row, s]) >> b & 1]
            if len(seats) > 1:
                return (f"bonus tile {b + 1}f held by " + " and ".join("ESWN"[s] for s in seats))
        return None

    return detail


__all__ = ["pack_deals", "score_deals"]
