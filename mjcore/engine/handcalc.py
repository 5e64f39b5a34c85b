"""Thin adapters from the engine's count lists to the compiled kernels.

The engine keeps each hand as a list of 34 counts; these helpers pass it to the kernels of
``mjcore._core.shanten`` and ``mjcore._core.decompose`` (the same ones behind
:mod:`mjcore.analysis` and :func:`mjcore.decompose`) without building Hand objects, because the
hot loop calls them on every discard.
"""
from __future__ import annotations

from collections.abc import Sequence

from mjcore._core import decompose as _decompose
from mjcore._core import shanten as _k

from ..decomposition import FORMS, SET_KINDS
from ..errors import MjcoreError
from ..melds import MeldKind
from ..tiles import YAOCHUU

YAOCHUU_KINDS = YAOCHUU
_STANDARD = FORMS.index("standard")
_TRIPLET = SET_KINDS.index("pon")


def _bad(status: int, what: str, counts: Sequence[int], kernel: str = "shanten") -> MjcoreError:
    return MjcoreError(f"{kernel} kernel rejected a {what} hand (status {status}): "
                       f"{list(counts)}")


def advance(counts: Sequence[int], n_melds: int) -> tuple[int, int]:
    """(shanten, mask) of a 13-3k tile hand; for a tenpai hand the mask holds its winning kinds."""
    st, sh, mask = _k.advance(bytes(counts), n_melds)
    if st:
        raise _bad(st, "13-3k", counts)
    return sh, mask


def ukeire(counts: Sequence[int], n_melds: int) -> tuple[int, list[int], list[int]]:
    """For a 14-3k hand: (best shanten after a discard, shanten after discarding each kind
    (127 if not held), advancing-kind mask after each discard)."""
    st, best, after, masks = _k.ukeire(bytes(counts), n_melds)
    if st or after is None or masks is None:
        raise _bad(st, "14-3k", counts)
    return best, after, masks


def is_agari(counts: Sequence[int], n_melds: int) -> bool:
    """Whether a 14-3k tile hand is complete (any form)."""
    return _k.agari(bytes(counts), n_melds) == 1


def mask_kinds(mask: int) -> list[int]:
    """The tile kinds (0-33) whose bits are set in ``mask``."""
    out = []
    k = 0
    while mask:
        if mask & 1:
            out.append(k)
        mask >>= 1
        k += 1
    return out


def decompositions(counts: Sequence[int]) -> list[list[tuple[str, int]]]:
    """Every reading of a complete closed part (14 - 3k tiles, k declared sets) as four sets
    and a pair: ``[('pair', kind), ('pon' | 'chi', lowest kind), ...]``, sets in kind order;
    empty when there is none. Read by the compiled decomposition kernel behind
    :func:`mjcore.decompose`; used for the rare riichi closed-kan check."""
    total = sum(counts)
    if total % 3 != 2 or total > 14:
        return []
    n_declared = (14 - total) // 3
    # the declared sets stand in as closed kans of kinds the closed part does not hold
    free = [k for k in range(34) if not counts[k]][:n_declared]
    melds = [(int(MeldKind.KAN_CLOSED), k, 0, 0) for k in free]
    win = next(k for k in range(34) if counts[k])
    status, raw = _decompose.decompose_raw(list(counts), melds, win, 0)
    if status:
        raise _bad(status, "14-3k", counts, "decomposition")
    readings: set[tuple[int, tuple[tuple[int, int], ...]]] = set()
    for form, pair, sets, _wait, _win_set in raw:
        if form == _STANDARD:
            readings.add((pair, tuple(sorted(
                (tile, kind != _TRIPLET) for kind, tile, _concealed, declared in sets
                if not declared))))
    return [[("pair", pair)] + [("chi" if is_seq else "pon", tile) for tile, is_seq in sets]
            for pair, sets in sorted(readings)]
