"""Classical hand checks for the referee and the agents, on the shared kernels (shanten and
decomposition).

Hands are 34 kind counts (bytes or bytearray) plus the number of declared sets. The winning
forms are four sets and a pair and Thirteen Unique Wonders, plus seven pairs when the rules'
``seven_pairs`` option is on (chinese-classical.md §7): the kernels' ``forms`` argument, from
:func:`mjcore.analysis.winning_forms`.
"""
from __future__ import annotations

from typing import Any

from ..._core import decompose as _decompose
from ..._core import shanten as _kernel
from ...analysis import winning_forms
from ...decomposition import FORMS, SET_KINDS
from ...errors import MjcoreError
from ...melds import MeldKind

N_KINDS = 34


def forms_of(rules: Any) -> int:
    """The kernels' winning-form set of the classical ``rules`` (see
    :func:`mjcore.analysis.winning_forms`)."""
    return winning_forms(rules)


_forms = _kernel.forms
_advance = _kernel.advance
_ukeire = _kernel.ukeire
_decompose_raw = _decompose.decompose_raw
_STANDARD = FORMS.index("standard")
_TRIPLET = SET_KINDS.index("pon")
_KAN = int(MeldKind.KAN_CLOSED)


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


# How a claimed tile is used in a Mah-Jong (the form field of a Mah-Jong claim).
CHOW_LOWER, CHOW_MIDDLE, CHOW_UPPER, USE_PUNG, USE_PAIR, USE_SPECIAL = range(6)
USE_NAMES = ("lower", "middle", "upper", "pung", "pair", "special")
_CHOW_USE = (CHOW_LOWER, CHOW_MIDDLE, CHOW_UPPER)   # by the tile's place in the chow


def mahjong_uses(counts: bytes | bytearray, n_sets: int, tile: int, forms: int) -> list[int]:
    """The ways a discard ``tile`` completes the 13-3k tile hand ``counts``: the use of the
    tile in the winning arrangement (chow lower/middle/upper, pung, pair, special hand).

    The four-sets-and-a-pair uses are the winning tile's places in the readings of the
    compiled decomposition kernel (the one the classical scorer reads); the special hands come
    from the shanten kernel's forms, which know the classical seven pairs."""
    full = bytearray(counts)
    full[tile] += 1
    # the declared sets stand in as closed kans of kinds the hand does not hold
    declared = [(_KAN, k, 0, 0) for k in range(N_KINDS) if not full[k]][:n_sets]
    status, raw = _decompose_raw(bytes(full), declared, tile, 0)
    if status:
        raise MjcoreError(f"decomposition kernel rejected the hand {list(full)} with "
                          f"{n_sets} declared sets (status {status})")
    found = set()
    for form, _pair, sets, _wait, win_set in raw:
        if form != _STANDARD:
            continue
        if win_set < 0:
            found.add(USE_PAIR)
        else:
            kind, low = sets[win_set][0], sets[win_set][1]
            found.add(USE_PUNG if kind == _TRIPLET else _CHOW_USE[tile - low])
    if n_sets == 0:
        _, _, pairs, orphans = _forms(bytes(full), 0, forms)
        if orphans == -1 or pairs == -1:       # pairs: 99 unless seven pairs count
            found.add(USE_SPECIAL)
    return sorted(found)
