"""Thin adapters from the referees' hands to the compiled kernels, for both games.

A referee keeps each hand as 34 counts (a list, or bytes); these helpers pass it to the kernels
of ``mjcore._core.shanten`` and ``mjcore._core.decompose`` (the same ones behind
:mod:`mjcore.analysis` and :func:`mjcore.decompose`) without building Hand objects, because the
hot loop calls them on every discard. ``forms`` is the game's winning-form set (the kernels'
argument: ``mjcore.games.Game.winning_forms(rules)``); riichi's by default.
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
RIICHI_FORMS: int = _k.RIICHI
_advance, _forms, _ukeire, _agari = _k.advance, _k.forms, _k.ukeire, _k.agari
Counts = Sequence[int] | bytes     # bytes as they are; a list is converted


def _bad(status: int, what: str, counts: Sequence[int], kernel: str = "shanten") -> MjcoreError:
    return MjcoreError(f"{kernel} kernel rejected a {what} hand (status {status}): "
                       f"{list(counts)}")


def advance(counts: Counts, n_melds: int, forms: int = RIICHI_FORMS) -> tuple[int, int]:
    """(shanten, mask) of a 13-3k tile hand; for a tenpai hand the mask holds its winning kinds."""
    st, sh, mask = _advance(counts if type(counts) is bytes else bytes(counts), n_melds, forms)
    if st:
        raise _bad(st, "13-3k", counts)
    return sh, mask


def shanten(counts: Counts, n_melds: int, forms: int = RIICHI_FORMS) -> int:
    """The least shanten over the winning forms (13-3k or 14-3k tiles)."""
    st, a, b, c = _forms(counts if type(counts) is bytes else bytes(counts), n_melds, forms)
    if st:
        raise _bad(st, "13-3k or 14-3k", counts)
    return min(a, b, c)


def waits_mask(counts: Counts, n_melds: int, forms: int = RIICHI_FORMS) -> int:
    """The kinds that complete a 13-3k tile hand (0 when it is not tenpai)."""
    st, sh, mask = _advance(counts if type(counts) is bytes else bytes(counts), n_melds, forms)
    if st:
        raise _bad(st, "13-3k", counts)
    return mask if sh == 0 else 0


def ukeire(counts: Counts, n_melds: int,
           forms: int = RIICHI_FORMS) -> tuple[int, list[int], list[int]]:
    """For a 14-3k hand: (best shanten after a discard, shanten after discarding each kind
    (127 if not held), advancing-kind mask after each discard)."""
    st, best, after, masks = _ukeire(counts if type(counts) is bytes else bytes(counts),
                                     n_melds, forms)
    if st or after is None or masks is None:
        raise _bad(st, "14-3k", counts)
    return best, after, masks


def is_agari(counts: Counts, n_melds: int, forms: int = RIICHI_FORMS) -> bool:
    """Whether a 14-3k tile hand is complete (any of the forms)."""
    return _agari(counts if type(counts) is bytes else bytes(counts), n_melds, forms) == 1


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
