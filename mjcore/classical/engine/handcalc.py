"""Classical hand checks for the referee and the agents, on the shared shanten kernels.

Hands are 34 kind counts (bytes or bytearray) plus the number of declared sets. The winning
forms are four sets and a pair and Thirteen Unique Wonders, plus seven pairs when the rules'
``seven_pairs`` option is on (chinese-classical.md §7): the kernels' ``forms`` argument, from
:func:`mjcore.analysis.winning_forms`.
"""
from __future__ import annotations

from typing import Any

from ..._core import shanten as _kernel
from ...analysis import winning_forms

N_KINDS = 34


def forms_of(rules: Any) -> int:
    """The kernels' winning-form set of the classical ``rules`` (see
    :func:`mjcore.analysis.winning_forms`)."""
    return winning_forms(rules)


_forms = _kernel.forms
_advance = _kernel.advance
_ukeire = _kernel.ukeire


def _min_forms(counts: bytes, n_sets: int, forms: int) -> int:
    _, a, b, c = _forms(counts, n_sets, forms)
    return min(a, b, c)


def shanten(counts: bytes, n_sets: int, forms: int) -> int:
    """Minimum shanten over the classical forms (13-3k or 14-3k tiles)."""
    return _min_forms(counts, n_sets, forms)


def waits_mask(counts: bytes, n_sets: int, forms: int) -> int:
    """The kinds that complete a 13-3k tile hand (0 when it is not fishing)."""
    _, sh, mask = _advance(counts, n_sets, forms)
    return mask if sh == 0 else 0


def ukeire(counts: bytes, n_sets: int, forms: int) -> tuple[int, list[int], list[int]]:
    """For a 14-3k hand: best shanten after a discard, shanten after discarding each kind
    (127 if not held), advancing mask after each discard."""
    _, best, after, masks = _ukeire(counts, n_sets, forms)
    return best, after, masks  # type: ignore[return-value]


def complete(counts: bytes, n_sets: int, forms: int) -> bool:
    """True when the 14-3k tile hand is a winning hand."""
    return _min_forms(counts, n_sets, forms) == -1


def _standard_complete(counts: bytes | bytearray, n_sets: int) -> bool:
    return int(_forms(bytes(counts), n_sets)[1]) == -1


def sets_only(counts: bytearray, n_sets: int) -> bool:
    """True when the 12-3k tiles split into sets with no pair left over."""
    for k in range(27, 34):
        if counts[k] == 0:
            counts[k] = 2
            try:
                return _standard_complete(counts, n_sets)
            finally:
                counts[k] = 0
    return False


# How a claimed tile is used in a Mah-Jong (the form field of a Mah-Jong claim).
CHOW_LOWER, CHOW_MIDDLE, CHOW_UPPER, USE_PUNG, USE_PAIR, USE_SPECIAL = range(6)
USE_NAMES = ("lower", "middle", "upper", "pung", "pair", "special")


def mahjong_uses(counts: bytes | bytearray, n_sets: int, tile: int, forms: int) -> list[int]:
    """The ways a discard ``tile`` completes the 13-3k tile hand ``counts``: the use of the
    tile in the winning arrangement (chow lower/middle/upper, pung, pair, special hand)."""
    c = bytearray(counts)
    uses: list[int] = []
    if c[tile] >= 1:
        c[tile] -= 1
        if sets_only(c, n_sets):
            uses.append(USE_PAIR)
        if c[tile] >= 1:
            c[tile] -= 1
            if _standard_complete(c, n_sets + 1):
                uses.append(USE_PUNG)
            c[tile] += 1
        c[tile] += 1
    if tile < 27:
        r = tile % 9
        for use, lo in ((CHOW_LOWER, tile), (CHOW_MIDDLE, tile - 1), (CHOW_UPPER, tile - 2)):
            if lo < tile - r or lo + 2 > tile - r + 8:
                continue
            others = [k for k in (lo, lo + 1, lo + 2) if k != tile]
            if all(c[k] for k in others):
                for k in others:
                    c[k] -= 1
                if _standard_complete(c, n_sets + 1):
                    uses.append(use)
                for k in others:
                    c[k] += 1
    if n_sets == 0:
        c[tile] += 1
        _, _, pairs, orphans = _forms(bytes(c), 0, forms)
        if orphans == -1 or pairs == -1:       # pairs: 99 unless seven pairs count
            uses.append(USE_SPECIAL)
    uses.sort()
    return uses
