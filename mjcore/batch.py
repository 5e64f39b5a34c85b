"""Batch analysis over numpy arrays.

Every function takes ``counts``, an ``(N, 34)`` uint8 array of closed-tile counts (red fives
counted as fives), and ``n_melds``, the number of called melds per row (an ``(N,)`` array, a
scalar, or None for 0). The kernels run in one GIL-free loop over all rows, on ``n_threads``
threads (OpenMP; 1 when the build has no OpenMP).

``rules`` picks the winning forms, as in ``mjcore.analysis``: None (riichi, the default), a
preset name such as ``"classical"`` or ``"bradfield"``, a riichi ``RuleSet`` or a classical
rules value. Classical rows are the 34 kinds too: bonus tiles are not part of the counts.
Under three-player riichi (``"tenhou_sanma"``) a row holding 2m-8m is a bad row (reason
``not_in_sanma``) and those kinds are never waits or advancing tiles.

Bad rows never cost the good ones: every result carries ``status`` (0 = ok, negative = the
reason, see ``mjcore.status``) and ``errors()`` lists the bad rows by index. Call
``raise_for_errors()`` to turn them into a ``BatchError``.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, SupportsInt, Union

import numpy as np

from . import status as st
from ._core import batch as _k
from .analysis import kinds_in_play, winning_forms
from .errors import InvalidHandError
from .results import RowResults, counts_detail, lines_detail

if TYPE_CHECKING:
    from collections.abc import Callable

    from .riichi.batch_expected import BatchExpected
    from .riichi.batch_scoring import BatchScores

# (reason, message) of each error status, from mjcore.status (kept for callers of this name)
STATUS_REASONS = {s.code: (s.reason, s.message) for s in st.STATUSES if s.code < 0}
_TOO_MANY = st.reason_of(st.BAD_COUNT)
BAD_SHANTEN = -128          # the shanten of a bad row

ArrayLike = Union[np.ndarray, "list[list[int]]"]
# a hands file: its path, or its bytes
TextSource = Union[bytes, bytearray, memoryview, str, "os.PathLike[str]"]


def _integers(values: object, what: str) -> np.ndarray:
    """An integer array from numbers; anything else is an InvalidHandError."""
    try:
        arr = np.asarray(values)
    except (ValueError, TypeError) as e:          # ragged nested lists and the like
        raise InvalidHandError(f"{what} must be a rectangular array of integers: {e}",
                               reason="bad_shape") from None
    if arr.dtype.kind in "iub":
        return arr
    if arr.dtype.kind == "O" and all(isinstance(x, (int, np.integer)) and not isinstance(x, bool)
                                     for x in arr.flat):
        try:
            return arr.astype(np.int64)
        except OverflowError:
            raise InvalidHandError(f"{what} hold integers out of range",
                                   reason=_TOO_MANY) from None
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr) | (arr != np.round(arr))
        if bad.any():
            where = np.argwhere(bad)[0]
            raise InvalidHandError(f"{what} must be whole numbers; found {arr[tuple(where)]!r} "
                                   f"at {tuple(int(x) for x in where)}",
                                   reason="not_an_integer", index=int(where[0]))
        return arr
    raise InvalidHandError(f"{what} must be integers, got dtype {arr.dtype}",
                           reason="not_an_integer")


def _counts(counts: ArrayLike) -> np.ndarray:
    arr = _integers(counts, "counts")
    if arr.ndim != 2 or arr.shape[1] != 34:
        raise InvalidHandError(f"counts must have shape (N, 34), got {arr.shape}",
                               reason="bad_shape")
    if arr.dtype != np.uint8:
        if arr.size and (arr.min() < 0 or arr.max() > 255):
            bad = int(np.argwhere((arr < 0) | (arr > 255))[0][0])
            raise InvalidHandError(f"row {bad}: counts must be 0..4", reason=_TOO_MANY,
                                   index=bad)
        arr = arr.astype(np.uint8)
    return np.ascontiguousarray(arr)


def _melds(n_melds: object, n: int) -> np.ndarray:
    if n_melds is None:
        return np.zeros(n, dtype=np.uint8)
    arr = _integers(n_melds, "n_melds")
    if arr.ndim == 0:
        value = int(arr)
        if not 0 <= value <= 4:
            raise InvalidHandError(f"n_melds must be 0..4, got {value}",
                                   reason=st.reason_of(st.BAD_MELDS))
        return np.full(n, value, dtype=np.uint8)
    if arr.shape != (n,):
        raise InvalidHandError(f"n_melds must have shape ({n},), got {arr.shape}",
                               reason="bad_shape")
    if arr.dtype != np.uint8:
        clipped = np.where((arr < 0) | (arr > 255), 255, arr)
        arr = clipped.astype(np.uint8)
    return np.ascontiguousarray(arr)


MAX_THREADS = 4 * (os.cpu_count() or 1)


def _threads(n_threads: int | None) -> int:
    """Threads for a kernel: None or <= 0 means one per core; at most 4 per core. Anything
    but None or an integer (a bool, a float, a string) is a TypeError."""
    cores = os.cpu_count() or 1
    if n_threads is None:
        return cores
    if isinstance(n_threads, (bool, np.bool_)) or not isinstance(n_threads, (int, np.integer)):
        raise TypeError(f"n_threads {n_threads!r}: expected an int or None, "
                        f"got {type(n_threads).__name__}")
    if n_threads <= 0:
        return cores
    return min(int(n_threads), MAX_THREADS)


@dataclass(frozen=True)
class BatchResult(RowResults):
    """Arrays of per-row results plus the per-row ``status`` (0 = ok); ``errors()`` and
    ``raise_for_errors()`` from :class:`mjcore.results.RowResults`."""

    status: np.ndarray
    values: dict[str, np.ndarray] = field(default_factory=dict)
    error_positions: np.ndarray | None = None
    row_detail: Callable[[int, int], str | None] | None = field(default=None, repr=False,
                                                                 compare=False)

    def __getattr__(self, name: str) -> np.ndarray:
        values = object.__getattribute__(self, "values")
        if name in values:
            array: np.ndarray = values[name]
            return array
        raise AttributeError(name)

    def __dir__(self) -> list[str]:
        # the result arrays (.shanten, .forms, ...) are attributes too
        return sorted(set(super().__dir__()) | set(self.values))

    @property
    def ok(self) -> np.ndarray:
        """Boolean array: True for the rows that were analysed (status 0)."""
        ok: np.ndarray = self.status == 0
        return ok

    def __repr__(self) -> str:
        bad = int(np.count_nonzero(self.status))
        return f"BatchResult(rows={len(self)}, errors={bad}, fields={sorted(self.values)})"


def _inputs(counts: ArrayLike, n_melds: object,
            rules: object) -> tuple[int, int, np.ndarray, np.ndarray]:
    """The winning forms and kinds in play of ``rules``, the counts and the meld counts of a
    batch call. The kernels give a row holding a kind out of play (sanma: 2m-8m) the status
    ``not_in_sanma``."""
    c = _counts(counts)
    return winning_forms(rules), kinds_in_play(rules), c, _melds(n_melds, c.shape[0])


def shanten(counts: ArrayLike, n_melds: object = None, *, forms: bool = False,
            rules: object = None, n_threads: int | None = 1) -> BatchResult:
    """Minimum shanten per row (``.shanten``, int8; -128 on bad rows). With ``forms=True``
    also ``.forms`` (N, 3): standard, seven pairs (chiitoitsu), thirteen orphans (kokushi);
    99 when melds or the rules rule a form out, -128 on bad rows."""
    win, in_play, c, m = _inputs(counts, n_melds, rules)
    n = c.shape[0]
    out = np.empty(n, dtype=np.int8)
    status = np.empty(n, dtype=np.int8)
    f = np.zeros((n if forms else 0, 3), dtype=np.int8)
    _k.shanten(c, m, win, out, status, f, _threads(n_threads), in_play)
    values: dict[str, np.ndarray] = {"shanten": out}
    if forms:
        f[status != 0] = BAD_SHANTEN
        values["forms"] = f
    return BatchResult(status, values, row_detail=counts_detail(c, m))


def is_agari(counts: ArrayLike, n_melds: object = None, *, rules: object = None,
             n_threads: int | None = 1) -> BatchResult:
    """Whether each 14-3k tile row is complete in a winning form (``.agari``, bool)."""
    win, in_play, c, m = _inputs(counts, n_melds, rules)
    n = c.shape[0]
    out = np.empty(n, dtype=np.uint8)
    status = np.empty(n, dtype=np.int8)
    _k.is_agari(c, m, win, out, status, _threads(n_threads), in_play)
    return BatchResult(status, {"agari": out.view(np.bool_)}, row_detail=counts_detail(c, m))


def waits(counts: ArrayLike, n_melds: object = None, *, rules: object = None,
          n_threads: int | None = 1) -> BatchResult:
    """For 13-3k tile rows: ``.shanten`` and ``.mask`` (uint64, bit k = kind k). When the
    shanten is 0 the mask holds the winning tiles; ``.tenpai`` is shanten == 0. A wait on a
    kind the hand holds four of is never in the mask."""
    win, in_play, c, m = _inputs(counts, n_melds, rules)
    n = c.shape[0]
    masks = np.empty(n, dtype=np.uint64)
    sh = np.empty(n, dtype=np.int8)
    status = np.empty(n, dtype=np.int8)
    _k.advance(c, m, win, masks, sh, status, _threads(n_threads), in_play)
    tenpai = sh == 0
    wait_masks = np.where(tenpai, masks, np.uint64(0))
    return BatchResult(status, {"shanten": sh, "mask": wait_masks, "advance_mask": masks,
                                "tenpai": tenpai}, row_detail=counts_detail(c, m))


def ukeire(counts: ArrayLike, n_melds: object = None, *, full: bool = False,
           rules: object = None, n_threads: int | None = 1) -> BatchResult:
    """Ukeire summary of 14-3k tile rows: ``.best_shanten`` after the best discard,
    ``.best_discard`` (kind), ``.best_count`` (advancing tiles left, counting only the hand).
    With ``full=True`` also ``.after`` (N, 34) shanten after each discard (127 = not held) and
    ``.masks`` (N, 34) the advancing mask after each discard."""
    win, in_play, c, m = _inputs(counts, n_melds, rules)
    n = c.shape[0]
    rows = n if full else 0
    after = np.full((rows, 34), 127, dtype=np.int8)
    masks = np.zeros((rows, 34), dtype=np.uint64)
    bs = np.empty(n, dtype=np.int8)
    bd = np.empty(n, dtype=np.int8)
    bc = np.empty(n, dtype=np.uint16)
    status = np.empty(n, dtype=np.int8)
    _k.ukeire(c, m, win, after, masks, bs, bd, bc, status, _threads(n_threads), in_play)
    values: dict[str, np.ndarray] = {"best_shanten": bs, "best_discard": bd, "best_count": bc}
    if full:
        values["after"] = after
        values["masks"] = masks
    return BatchResult(status, values, row_detail=counts_detail(c, m))


def read_lines(source: TextSource) -> bytes:
    """The bytes of a hands file (a path), or the bytes themselves."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source)
    if not isinstance(source, (str, os.PathLike)):
        raise InvalidHandError(f"expected bytes or a file path, got {type(source).__name__}",
                               reason="bad_type")
    with open(source, "rb") as fh:
        return fh.read()


def shanten_text(source: TextSource, *, keep_counts: bool = False,
                 rules: object = None, n_threads: int | None = 1) -> BatchResult:
    """Shanten of every line of a file (path) or bytes: one closed hand per line, mpsz
    (``123m456p...``) or letter-first (``m123p456...``). Bad lines are reported by line index
    with the character position. ``keep_counts=True`` also returns ``.counts`` (N, 34).
    Red fives (``0``) are read as fives whatever the rules."""
    win = winning_forms(rules)
    in_play = kinds_in_play(rules)
    data = read_lines(source)
    buf = np.frombuffer(data, dtype=np.uint8) if data else np.zeros(0, dtype=np.uint8)
    threads = _threads(n_threads)
    n, plan = _k.line_chunks(buf, threads)
    out = np.empty(n, dtype=np.int8)
    status = np.empty(n, dtype=np.int8)
    pos = np.empty(n, dtype=np.int32)
    counts = np.zeros((n if keep_counts else 0, 34), dtype=np.uint8)
    _k.text_shanten(buf, plan, win, out, status, pos, counts, threads, in_play)
    values: dict[str, np.ndarray] = {"shanten": out}
    if keep_counts:
        values["counts"] = counts
    return BatchResult(status, values, error_positions=pos, row_detail=lines_detail(data))


def mask_to_tiles(mask: SupportsInt) -> list[int]:
    """The kinds set in a 34-bit mask (an int or a numpy integer, as in ``.mask``)."""
    mask = int(mask)
    return [k for k in range(34) if mask >> k & 1]


def pack(counts: ArrayLike) -> np.ndarray:
    """(N, 34) counts -> (N, 4) uint32 packed words: 3 bits per kind, one word per suit and
    one for the honors (the core's PackedHand). Counts above 4 raise InvalidHandError."""
    c = _counts(counts)
    if c.size and c.max() > 4:
        bad = int(np.argwhere(c > 4)[0][0])
        raise InvalidHandError(f"row {bad}: a kind has more than 4 copies",
                               reason=_TOO_MANY, index=bad)
    out = np.zeros((c.shape[0], 4), dtype=np.uint32)
    for g in range(4):
        for i in range(7 if g == 3 else 9):
            out[:, g] |= c[:, 9 * g + i].astype(np.uint32) << np.uint32(3 * i)
    return out


def unpack(words: ArrayLike) -> np.ndarray:
    """(N, 4) packed words -> (N, 34) uint8 counts. A word outside 0..2**32-1 is an
    InvalidHandError naming its row."""
    w = _integers(words, "packed words")
    if w.ndim != 2 or w.shape[1] != 4:
        raise InvalidHandError(f"packed words must have shape (N, 4), got {w.shape}",
                               reason="bad_shape")
    if w.dtype != np.uint32:
        bad = (w < 0) | (w > 0xFFFFFFFF)
        if bad.any():
            row = int(np.argwhere(bad)[0][0])
            raise InvalidHandError(f"row {row}: packed words must be 0..2**32-1",
                                   reason="bad_value", index=row)
        w = w.astype(np.uint32)
    out = np.zeros((w.shape[0], 34), dtype=np.uint8)
    for g in range(4):
        for i in range(7 if g == 3 else 9):
            out[:, 9 * g + i] = (w[:, g] >> np.uint32(3 * i)) & np.uint32(7)
    return out


def score(*args: Any, rules: Any = None, **kwargs: Any) -> BatchScores:
    """Batch scoring of winning hands under the game of ``rules`` (its ``batch_score`` entry in
    the registry, ``mjcore.games``; riichi's, the default, is
    ``mjcore.riichi.batch_scoring.score``, which says what arrays it takes)."""
    found: BatchScores = _game_entry(rules, "batch_score")(*args, rules=rules, **kwargs)
    return found


def expected_values(*args: Any, rules: Any = "tenhou", **kwargs: Any) -> BatchExpected:
    """Batch expected values of discards under the game of ``rules`` (its
    ``batch_expected_value`` entry; riichi's is ``mjcore.riichi.batch_expected``, which says
    what arrays it takes)."""
    found: BatchExpected = _game_entry(rules, "batch_expected_value")(*args, rules=rules,
                                                                      **kwargs)
    return found


def _game_entry(rules: object, face: str) -> Any:
    """The entry point ``face`` of the game of ``rules`` (a preset name, a rules value, or None
    for the default game); rules the registry does not know go to the default game, whose
    call names them."""
    from contextlib import suppress

    from .errors import InvalidRuleError
    from .games import default_game, game_of, game_of_rules

    game = None
    if isinstance(rules, str):
        with suppress(InvalidRuleError):
            game = game_of(rules)
    elif rules is not None:
        game = game_of_rules(rules)
    return (game or default_game()).entry(face)
