"""Batch expected values over numpy arrays (re-exported as ``mjcore.batch.expected_values``):
per row the best discard by expected score and, for the discard a player made, the same
values, in one GIL-free loop (``mjcore/_core/ev.pyx``), the model of
:func:`mjcore.expected_values`.

Inputs, N rows:

| array | shape, dtype | meaning |
| --- | --- | --- |
| counts | (N, 34) uint8 | closed tiles (13-3k or 14-3k with the melds) |
| red | (N, 3) uint8 | red 5m 5p 5s among the closed tiles (0 or 1 each) |
| melds | (N, 4) uint16 | ``encode_meld(kind, tile, red, from_rel)``; 0xFFFF = none |
| visible | (N, 34) uint8 | tiles seen elsewhere (discards, others' melds), not the indicators |
| visible_red | (N, 3) uint8 | red fives seen elsewhere, red dora indicators included |
| dora | (N, K) uint8 | dora indicators, 255 = none (K <= 5) |
| seat_wind, round_wind | (N,) uint8 | 0 E .. 3 N |
| kita | (N,) uint8 | norths set aside (three-player rules) |
| discard | (N,) uint8 | the discard made: kind 0..33, red 5m 5p 5s as 34..36, 255 = none |

Outputs (a :class:`BatchExpected`), at ``turn`` (1 = before the first draw's answer, as
``DiscardValue.at``): ``status`` (0 ok, negative: ``mjcore.status``; ``ev_*`` for a search
past its bounds, ``discard_not_held`` for a discard the row does not hold), ``shanten``,
``nodes``, ``best_tile`` (0..36, 255 none), ``best_ev``, ``best_win``, ``best_tenpai``,
``discard_shanten``, ``discard_ev``, ``discard_win``, ``discard_tenpai`` (NaN where not
evaluated), and with ``per_tile=True`` ``per_tile`` (N, 37, 3): tenpai, win and expected score
of every discard (NaN for tiles not held). A 13-tile row's one answer is its ``discard`` values
when ``discard`` is 255, and its ``best_*``.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .._core.batch_scoring import MELD_NONE
from .._core.ev import evaluate_arrays
from ..batch import _threads
from ..errors import InvalidHandError
from ..results import RowResults
from .batch_scoring import _arr, _indicators
from .expected import DEFAULT_MAX_NODES, MAX_TURNS, _int_option, model_code_of
from .rules import DEFAULT_RULES, RuleSet
from .scoring import _rules

DEFAULT_ROW_SECONDS = 1.0
RED_TILES = ("0m", "0p", "0s")


class BatchExpected(RowResults):
    """Arrays of a batch of expected values; ``bad_rows`` lists rows with a negative status,
    ``errors()`` and ``raise_for_errors()`` (from :class:`mjcore.results.RowResults`) them."""

    status: np.ndarray
    shanten: np.ndarray
    nodes: np.ndarray
    best_tile: np.ndarray
    best_tenpai: np.ndarray
    best_win: np.ndarray
    best_ev: np.ndarray
    discard_shanten: np.ndarray
    discard_tenpai: np.ndarray
    discard_win: np.ndarray
    discard_ev: np.ndarray
    per_tile: np.ndarray
    turn: int

    def __init__(self, arrays: dict[str, np.ndarray], turn: int) -> None:
        self.status = arrays["status"]
        self.shanten = arrays["shanten"]
        self.nodes = arrays["nodes"]
        self.best_tile = arrays["best_tile"]
        self.best_tenpai, self.best_win, self.best_ev = arrays["best"].T
        self.discard_shanten = arrays["discard_shanten"]
        self.discard_tenpai, self.discard_win, self.discard_ev = arrays["discard"].T
        self.per_tile = arrays["per_tile"]
        self.turn = turn

    @property
    def ok(self) -> np.ndarray:
        """Boolean array: True for the rows evaluated (status 0)."""
        ok: np.ndarray = self.status == 0
        return ok

    @property
    def ev_loss(self) -> np.ndarray:
        """Expected score given up by the discard made: best_ev - discard_ev (NaN where
        either is missing)."""
        loss: np.ndarray = self.best_ev - self.discard_ev
        return loss

    def best_tile_names(self) -> list[str | None]:
        """``best_tile`` as mpsz names (``0m`` for a red five; None where there is none)."""
        from ..tiles import tile_name

        return [None if t == 255 else tile_name(int(t)) if t < 34 else RED_TILES[t - 34]
                for t in self.best_tile]

    def __repr__(self) -> str:
        return (f"BatchExpected({len(self)} rows, {int(self.ok.sum())} ok, "
                f"{len(self.bad_rows)} bad, turn {self.turn})")


def expected_values(counts: Any, *, red: Any = None, melds: Any = None, visible: Any = None,
                    visible_red: Any = None, dora: Any = None, seat_wind: Any = None,
                    round_wind: Any = None, kita: Any = None, discard: Any = None,
                    turn: int = 1, rules: RuleSet | str | None = "tenhou",
                    model: str = "consistent", t_max: int = 18,
                    extra: int = 1, use_red: bool = True, ura: bool = True,
                    shanten_down: bool = True, tegawari: bool = True, max_shanten: int = 3,
                    max_nodes: int = DEFAULT_MAX_NODES,
                    max_seconds: float = DEFAULT_ROW_SECONDS, per_tile: bool = False,
                    n_threads: int | None = 1, clock: str = "wall") -> BatchExpected:
    """Expected values of N hands in one GIL-free loop (the module doc lists the arrays).
    The options are :func:`mjcore.expected_values`'s; ``max_nodes`` and ``max_seconds``
    bound each row, ``max_seconds`` on the ``clock`` "wall" or "cpu" (the row's thread CPU
    time: waiting for a core, under load or a pause, does not count). A bad row gets its status;
    the others keep their results."""
    c = np.asarray(counts)
    if c.ndim != 2 or c.shape[1] != 34:
        raise InvalidHandError(f"batch counts: shape {c.shape}, expected (N, 34)",
                               reason="bad_shape")
    n = c.shape[0]
    rs = _rules(rules) if rules is not None else DEFAULT_RULES
    model_code = model_code_of(model)
    t_max = _int_option("t_max", t_max, 1, MAX_TURNS)
    turn = _int_option("turn", turn, 1, t_max)
    extra = _int_option("extra", extra, 0, 4)
    max_shanten = _int_option("max_shanten", max_shanten, -1, 6)
    max_nodes = _int_option("max_nodes", max_nodes, 1, 50_000_000)
    if not isinstance(max_seconds, (int, float)) or isinstance(max_seconds, bool) \
            or not 0 < max_seconds <= 600:
        raise InvalidHandError(f"option max_seconds={max_seconds!r}: expected 0 < s <= 600 "
                               "(per row)", reason="ev_bad_option")
    if clock not in ("wall", "cpu"):
        raise InvalidHandError(f"option clock={clock!r}: expected 'wall' or 'cpu'",
                               reason="ev_bad_option")
    dora_a = _indicators(dora, n, "dora")
    if dora_a.shape[1] > 5:
        raise InvalidHandError(f"batch dora: {dora_a.shape[1]} columns, at most 5",
                               reason="bad_shape")
    seat = _arr(seat_wind, n, (), np.uint8, 0, "seat_wind")
    rnd = _arr(round_wind, n, (), np.uint8, 0, "round_wind")
    limit = rs.players - 1
    for name, a, hi in (("seat_wind", seat, limit), ("round_wind", rnd, 3)):
        if n and int(a.max()) > hi:
            row = int(np.argmax(a > hi))
            raise InvalidHandError(f"batch {name}: row {row} has {int(a[row])}, expected "
                                   f"0..{hi}", reason="bad_seats", index=row)
    use = bool(use_red) and rs.red_fives > 0
    out = evaluate_arrays(
        _arr(c, n, (34,), np.uint8, 0, "counts"), _arr(red, n, (3,), np.uint8, 0, "red"),
        _arr(melds, n, (4,), np.uint16, MELD_NONE, "melds"),
        _arr(visible, n, (34,), np.uint8, 0, "visible"),
        _arr(visible_red, n, (3,), np.uint8, 0, "visible_red"), dora_a, seat, rnd,
        _arr(kita, n, (), np.uint8, 0, "kita"), _arr(discard, n, (), np.uint8, 255, "discard"),
        turn, model_code, t_max, extra, use, bool(ura), bool(shanten_down), bool(tegawari),
        max_shanten, max_nodes, float(max_seconds), rs.scoring_params, _threads(n_threads),
        bool(per_tile), clock == "cpu")
    return BatchExpected(out, turn)


__all__ = ["BatchExpected", "expected_values"]
