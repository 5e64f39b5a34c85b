"""The table-driven suit decomposition against a plain search, on every one-suit pattern."""
from __future__ import annotations

import itertools

from mjcore._core.decompose import decompose_raw

from .test_decompose import _reference

WAITS = ("ryanmen", "kanchan", "penchan", "shanpon", "tanki")
PON = 1


def _patterns(n_sets):
    """Every one-suit count vector of n_sets sets and a pair (each kind at most 4 copies)."""
    seen = set()
    for combo in itertools.combinations_with_replacement(range(16), n_sets):
        c = [0] * 9
        for s in combo:
            if s < 9:
                c[s] += 3
            else:
                for k in range(3):
                    c[s - 9 + k] += 1
        for p in range(9):
            d = list(c)
            d[p] += 2
            if max(d) <= 4 and tuple(d) not in seen:
                seen.add(tuple(d))
                yield d


def _check(n_sets, suit):
    n_melds = 4 - n_sets
    melds = [(PON, 27 + k, 0, 2) for k in range(n_melds)]   # honor pons, outside the suit
    checked = 0
    for pattern in _patterns(n_sets):
        counts = [0] * 34
        counts[9 * suit:9 * suit + 9] = pattern
        for win in range(9 * suit, 9 * suit + 9):
            if not counts[win]:
                continue
            status, raw = decompose_raw(counts, melds, win)
            assert status == 0
            got = set()
            for form, pair, sets, wait, _ in raw:
                if form != 0:
                    continue
                closed = tuple(sorted(("pon" if kind == 1 else "chi", tile)
                                      for kind, tile, _, meld in sets if not meld))
                got.add((closed, pair, WAITS[wait]))
            assert got == _reference(counts, n_melds, win), (counts, win)
            checked += 1
    return checked


def test_every_one_suit_pattern_with_melds():
    assert sum(_check(n_sets, suit) for n_sets in (0, 1, 2, 3) for suit in (0, 1, 2)) > 3000


def test_every_one_suit_fourteen_tile_pattern():
    assert _check(4, 1) > 20000
