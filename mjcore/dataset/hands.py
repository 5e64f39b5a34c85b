"""The analysis of a table of hands on numpy arrays: one GIL-free compiled pass per row.

:func:`analyze_hands` is what :func:`mjcore.dataset.analyze` computes, on arrays already in
memory: shanten by form; for a 13-3k tile hand its ukeire and its waits; for a 14-3k tile hand
the shanten and ukeire after every discard, the efficiency-best discards and how the discard
made compares. Ukeire and waits count the copies the player cannot see: 4 minus those in the
closed hand and in ``visible``, never below 0. Needs numpy only.
"""
from __future__ import annotations

import numpy as np

from .. import batch
from .._core import discard_analysis as _k
from ..analysis import winning_forms
from ..errors import InvalidHandError

DISCARD_NOT_HELD = _k.DISCARD_NOT_HELD   # the row status of a made discard the hand lacks
NOT_HELD = _k.NOT_HELD_SHANTEN      # discard_shanten of a kind the hand does not hold


def _per_row(values: object, n: int, what: str, default: int) -> np.ndarray:
    """An (n,) int64 array from None (``default``), a scalar or n integers."""
    if values is None:
        return np.full(n, default, np.int64)
    arr = np.asarray(values)
    if arr.dtype.kind not in "iu":
        raise InvalidHandError(f"{what} must be integers, got dtype {arr.dtype}",
                               reason="not_an_integer")
    if arr.ndim == 0:
        return np.full(n, int(arr), np.int64)
    if arr.shape != (n,):
        raise InvalidHandError(f"{what} must have shape ({n},), got {arr.shape}",
                               reason="bad_shape")
    return arr.astype(np.int64, copy=False)


def analyze_hands(counts: batch.ArrayLike, n_melds: object = None, visible: object = None,
                  made: object = None, *, rules: object = None, forms: object = None,
                  n_threads: int | None = 1) -> batch.BatchResult:
    """Analyse N hands in one pass.

    ``counts`` (N, 34) closed counts; ``n_melds`` called melds (scalar or (N,)); ``visible``
    (N, 34) copies the player sees outside the closed hand (None: none); ``made`` the kind
    discarded per row (-1 or None: no discard). ``rules`` picks the winning forms for every
    row as in :mod:`mjcore.batch`; ``forms`` (N,) gives each row its own
    (``mjcore._core.shanten.RIICHI``, ``CLASSICAL``, ``CLASSICAL_SEVEN_PAIRS``) instead.

    Per row (int8 unless said): ``tiles`` (closed tiles, also on bad rows), ``shanten``,
    ``shanten_standard``, ``shanten_chiitoitsu``, ``shanten_kokushi`` (99: form ruled out);
    13-3k tiles: ``ukeire`` (int16) and ``waits`` (uint64 bit set of the winning kinds when
    tenpai); 14-3k tiles: ``discard_shanten``
    (N, 34; 127 for kinds not held), ``discard_ukeire`` (N, 34 uint8), ``best_discards``
    (uint64 bit set), ``best_shanten``, ``best_ukeire`` (int16), and for rows with a discard
    ``made_shanten``, ``made_ukeire`` (int16), ``made_best`` (1 or 0; -1 without a discard)
    and ``acceptance_lost`` (int16). A made discard the hand does not hold is the row's error
    ``discard_not_held``.
    """
    c = batch._counts(counts)
    n = c.shape[0]
    m = batch._melds(n_melds, n)
    if visible is None:
        seen = np.zeros((n, 34), np.uint8)
    else:
        v = np.asarray(visible)
        if v.shape != (n, 34) or v.dtype.kind not in "iu":
            raise InvalidHandError(f"visible must be ({n}, 34) integers, got {v.shape} "
                                   f"{v.dtype}", reason="bad_shape")
        seen = v if v.dtype == np.uint8 else np.clip(v, 0, 4).astype(np.uint8)
        seen = np.ascontiguousarray(seen)
    discard = _per_row(made, n, "made", -1)
    discard = np.where((discard < -1) | (discard > 33), 34, discard).astype(np.int16)
    if forms is None:
        row_forms = np.full(n, winning_forms(rules), np.uint8)
    else:
        f = _per_row(forms, n, "forms", 0)
        if f.size and (f.min() < 0 or f.max() > 255):
            raise InvalidHandError("forms must be winning-form sets (0..255)",
                                   reason="bad_rules")
        row_forms = f.astype(np.uint8)
    status = np.empty(n, np.int8)
    small = np.empty((len(_k.SMALL_ROWS), n), np.int8)
    wide = np.empty((len(_k.WIDE_ROWS), n), np.int16)
    masks = np.empty((len(_k.MASK_ROWS), n), np.uint64)
    d_shanten = np.empty((n, 34), np.int8)
    d_ukeire = np.empty((n, 34), np.uint8)
    try:
        _k.analyse(c, m, seen, discard, row_forms, status, small, wide, masks, d_shanten,
                   d_ukeire, batch._threads(n_threads))
    except ValueError as exc:            # a forms value no game uses
        raise InvalidHandError(str(exc), reason="bad_rules") from None
    values: dict[str, np.ndarray] = {name: small[j] for name, j in _k.SMALL_ROWS.items()}
    values.update({name: wide[j] for name, j in _k.WIDE_ROWS.items()})
    values.update({name: masks[j] for name, j in _k.MASK_ROWS.items()})
    values["discard_shanten"] = d_shanten
    values["discard_ukeire"] = d_ukeire
    return batch.BatchResult(status, values)


__all__ = ["DISCARD_NOT_HELD", "NOT_HELD", "analyze_hands"]
