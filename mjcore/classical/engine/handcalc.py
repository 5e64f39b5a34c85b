"""Classical hand checks for the referee and the agents, on the shared shanten kernels.

Hands are 34 kind counts (bytes or bytearray) plus the number of declared sets. The winning
forms are four sets and a pair and Thirteen Unique Wonders, plus seven pairs when the rules'
``seven_pairs`` option is on (chinese-classical.md §7); they are the kernels' ``forms`` sets
``FORMS_CLASSICAL`` and ``FORMS_CLASSICAL_PAIRS``.
"""
from __future__ import annotations

from ..._core import shanten as _kernel

FORMS_CLASSICAL = 9          # standard | orphans (mjcore/_core/types.pxd)
FORMS_CLASSICAL_PAIRS = 13   # ... | any seven pairs
N_KINDS = 34


def forms_of(seven_pairs: bool) -> int:
    return FORMS_CLASSICAL_PAIRS if seven_pairs else FORMS_CLASSICAL


def _kernel_takes_forms() -> bool:
    try:
        _kernel.forms(bytes(34), 0, FORMS_CLASSICAL)
    except TypeError:
        return False
    return True


if _kernel_takes_forms():
    _forms = _kernel.forms
    _advance = _kernel.advance
    _ukeire = _kernel.ukeire

    def shanten(counts: bytes, n_sets: int, forms: int) -> int:
        """Minimum shanten over the classical forms (13-3k or 14-3k tiles)."""
        return _min_forms(counts, n_sets, forms)

    def _min_forms(counts: bytes, n_sets: int, forms: int) -> int:
        _, a, b, c = _forms(counts, n_sets, forms)
        return min(a, b, c)

    def waits_mask(counts: bytes, n_sets: int, forms: int) -> int:
        """The kinds that complete a 13-3k tile hand (0 when it is not fishing)."""
        _, sh, mask = _advance(counts, n_sets, forms)
        return mask if sh == 0 else 0

    def ukeire(counts: bytes, n_sets: int, forms: int) -> tuple[int, list[int], list[int]]:
        """For a 14-3k hand: best shanten after a discard, shanten after discarding each kind
        (127 if not held), advancing mask after each discard."""
        _, best, after, masks = _ukeire(counts, n_sets, forms)
        return best, after, masks  # type: ignore[return-value]
else:                        # kernels built before the forms argument existed
    _forms_riichi = _kernel.forms

    def _min_forms(counts: bytes, n_sets: int, forms: int) -> int:
        _, std, _, orphans = _forms_riichi(counts, n_sets)
        best = std
        if n_sets == 0:
            best = min(best, orphans)
            if forms == FORMS_CLASSICAL_PAIRS:
                best = min(best, _any_pairs_shanten(counts))
        return best

    def shanten(counts: bytes, n_sets: int, forms: int) -> int:
        """Minimum shanten over the classical forms (13-3k or 14-3k tiles)."""
        return _min_forms(counts, n_sets, forms)

    def waits_mask(counts: bytes, n_sets: int, forms: int) -> int:
        """The kinds that complete a 13-3k tile hand (0 when it is not fishing)."""
        if _min_forms(counts, n_sets, forms) != 0:
            return 0
        c = bytearray(counts)
        mask = 0
        for k in range(N_KINDS):
            if c[k] >= 4:
                continue
            c[k] += 1
            if _min_forms(bytes(c), n_sets, forms) == -1:
                mask |= 1 << k
            c[k] -= 1
        return mask

    def ukeire(counts: bytes, n_sets: int, forms: int) -> tuple[int, list[int], list[int]]:
        """For a 14-3k hand: best shanten after a discard, shanten after discarding each kind
        (127 if not held), advancing mask after each discard."""
        c = bytearray(counts)
        after = [127] * N_KINDS
        masks = [0] * N_KINDS
        for k in range(N_KINDS):
            if not c[k]:
                continue
            c[k] -= 1
            base = _min_forms(bytes(c), n_sets, forms)
            after[k] = base
            mask = 0
            for j in range(N_KINDS):
                if j != k and c[j] < 4:
                    c[j] += 1
                    if _min_forms(bytes(c), n_sets, forms) < base:
                        mask |= 1 << j
                    c[j] -= 1
            masks[k] = mask
            c[k] += 1
        return min(after), after, masks


def _any_pairs_shanten(counts: bytes) -> int:
    pairs = sum(n // 2 for n in counts)
    return 6 - min(pairs, 7)


def complete(counts: bytes, n_sets: int, forms: int) -> bool:
    """True when the 14-3k tile hand is a winning hand."""
    return _min_forms(counts, n_sets, forms) == -1


def _standard_complete(counts: bytes | bytearray, n_sets: int) -> bool:
    return int(_kernel.forms(bytes(counts), n_sets)[1]) == -1


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
        orphans = _kernel.forms(bytes(c), 0)[3]
        special = orphans == -1
        if not special and forms == FORMS_CLASSICAL_PAIRS:
            special = sum(n // 2 for n in c) == 7 and all(n % 2 == 0 for n in c)
        if special:
            uses.append(USE_SPECIAL)
    uses.sort()
    return uses
