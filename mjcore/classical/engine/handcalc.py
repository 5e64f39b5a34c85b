"""Classical hand checks for the referee and the agents: the shared kernel adapter
(:mod:`mjcore.engine.handcalc`) with the classical forms, and how a claimed tile completes a
hand (``mahjong_uses``).

Hands are 34 kind counts (bytes) plus the number of declared sets. The winning forms are four
sets and a pair and Thirteen Unique Wonders, plus seven pairs when the rules' ``seven_pairs``
option is on (chinese-classical.md §7): the kernels' ``forms`` argument, from
:func:`mjcore.analysis.winning_forms`.
"""
from __future__ import annotations

from typing import Any

from ..._core import decompose as _decompose
from ..._core import shanten as _kernel
from ...analysis import winning_forms
from ...decomposition import FORMS, SET_KINDS
from ...engine.handcalc import is_agari as complete
from ...engine.handcalc import shanten, ukeire, waits_mask
from ...errors import MjcoreError
from ...melds import MeldKind

N_KINDS = 34


def forms_of(rules: Any) -> int:
    """The kernels' winning-form set of the classical ``rules`` (see
    :func:`mjcore.analysis.winning_forms`)."""
    return winning_forms(rules)


_forms = _kernel.forms
_decompose_raw = _decompose.decompose_raw
_STANDARD = FORMS.index("standard")
_TRIPLET = SET_KINDS.index("pon")
_KAN = int(MeldKind.KAN_CLOSED)


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


__all__ = ["CHOW_LOWER", "CHOW_MIDDLE", "CHOW_UPPER", "USE_NAMES", "USE_PAIR", "USE_PUNG",
           "USE_SPECIAL", "complete", "forms_of", "mahjong_uses", "shanten", "ukeire",
           "waits_mask"]
