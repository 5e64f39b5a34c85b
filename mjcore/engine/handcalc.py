"""Thin adapters from the engine's count lists to the compiled shanten kernels.

The engine keeps each hand as a list of 34 counts; these helpers pass it to the kernels of
``mjcore._core.shanten`` (the same ones behind :mod:`mjcore.analysis`) without building Hand
objects, because the hot loop calls them on every discard.
"""
from __future__ import annotations

from collections.abc import Sequence

from mjcore._core import shanten as _k

from ..errors import MjcoreError

YAOCHUU_KINDS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)


def _bad(status: int, what: str, counts: Sequence[int]) -> MjcoreError:
    return MjcoreError(f"shanten kernel rejected a {what} hand (status {status}): "
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


def decompositions(counts: list[int]) -> list[list[tuple[str, int]]]:
    """Every reading of a complete standard-shape closed part as (pair, sets): a list of
    ('pair' | 'pon' | 'chi', kind) entries. Used for the rare riichi closed-kan check."""
    out: list[list[tuple[str, int]]] = []
    c = list(counts)
    if sum(c) % 3 != 2:
        return out

    def sets(start: int, acc: list[tuple[str, int]]) -> None:
        k = start
        while k < 34 and c[k] == 0:
            k += 1
        if k == 34:
            out.append(list(acc))
            return
        if c[k] >= 3:
            c[k] -= 3
            acc.append(("pon", k))
            sets(k, acc)
            acc.pop()
            c[k] += 3
        if k < 27 and k % 9 <= 6 and c[k + 1] and c[k + 2]:
            c[k] -= 1
            c[k + 1] -= 1
            c[k + 2] -= 1
            acc.append(("chi", k))
            sets(k, acc)
            acc.pop()
            c[k] += 1
            c[k + 1] += 1
            c[k + 2] += 1

    for p in range(34):
        if c[p] >= 2:
            c[p] -= 2
            sets(0, [("pair", p)])
            c[p] += 2
    return out
