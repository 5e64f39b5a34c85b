"""classical.engine.handcalc.mahjong_uses (the compiled decomposition kernel) against a plain
recursive reference: each way the discard completes four sets and a pair."""
from __future__ import annotations

import random

import pytest

from mjcore.classical.engine.handcalc import (
    CHOW_LOWER,
    CHOW_MIDDLE,
    CHOW_UPPER,
    USE_PAIR,
    USE_PUNG,
    USE_SPECIAL,
    forms_of,
    mahjong_uses,
)
from mjcore.classical.rules import ClassicalRules
from mjcore.errors import MjcoreError
from mjcore.hand import Hand

FORMS = forms_of(ClassicalRules())
FORMS_PAIRS = forms_of(ClassicalRules(seven_pairs=True))


def splits(c: list[int], pair: bool) -> bool:
    """Whether the counts split into sets (and one pair when ``pair``)."""
    k = next((k for k in range(34) if c[k]), 34)
    if k == 34:
        return not pair
    ok = False
    if pair and c[k] >= 2:
        c[k] -= 2
        ok = splits(c, False)
        c[k] += 2
    if not ok and c[k] >= 3:
        c[k] -= 3
        ok = splits(c, pair)
        c[k] += 3
    if not ok and k < 27 and k % 9 <= 6 and c[k + 1] and c[k + 2]:
        for j in (k, k + 1, k + 2):
            c[j] -= 1
        ok = splits(c, pair)
        for j in (k, k + 1, k + 2):
            c[j] += 1
    return ok


def reference(counts: list[int], tile: int, special: bool) -> list[int]:
    c = list(counts)
    uses = []
    if c[tile] >= 1:
        c[tile] -= 1
        if splits(c, pair=False):
            uses.append(USE_PAIR)
        c[tile] += 1
    if c[tile] >= 2:
        c[tile] -= 2
        if splits(c, pair=True):
            uses.append(USE_PUNG)
        c[tile] += 2
    for use, low in ((CHOW_LOWER, tile), (CHOW_MIDDLE, tile - 1), (CHOW_UPPER, tile - 2)):
        others = [k for k in (low, low + 1, low + 2) if k != tile]
        if tile < 27 and low // 9 == tile // 9 == (low + 2) // 9 and low >= 0 \
                and all(c[k] for k in others):
            for k in others:
                c[k] -= 1
            if splits(c, pair=True):
                uses.append(use)
            for k in others:
                c[k] += 1
    if special:
        uses.append(USE_SPECIAL)
    return sorted(uses)


def _special(counts: list[int], tile: int, n_sets: int, seven_pairs: bool) -> bool:
    if n_sets:
        return False
    full = list(counts)
    full[tile] += 1
    orphans = all(full[k] for k in (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)) \
        and sum(full[k] for k in (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)) == 14
    pairs = seven_pairs and all(n % 2 == 0 for n in full)
    return orphans or pairs


def _check(counts: list[int], n_sets: int) -> int:
    found = 0
    for seven_pairs, forms in ((False, FORMS), (True, FORMS_PAIRS)):
        for tile in range(34):
            if counts[tile] == 4:
                continue
            got = mahjong_uses(bytes(counts), n_sets, tile, forms)
            want = reference(counts, tile, _special(counts, tile, n_sets, seven_pairs))
            assert got == want, (counts, n_sets, tile, seven_pairs)
            found += bool(got)
    return found


def _complete_hand(rng: random.Random, n_sets: int, suits: list[int]) -> list[int] | None:
    counts = [0] * 34
    for _ in range(4 - n_sets):
        suit = rng.choice(suits)
        if suit < 3 and rng.random() < 0.6:
            k = suit * 9 + rng.randrange(7)
            for j in range(3):
                counts[k + j] += 1
        else:
            counts[suit * 9 + rng.randrange(9 if suit < 3 else 7)] += 3
    counts[rng.randrange(34)] += 2
    return counts if max(counts) <= 4 else None


def test_uses_match_the_reference_on_fishing_hands():
    rng = random.Random(2026)
    checked = found = 0
    while checked < 400:
        n_sets = rng.choice([0, 0, 1, 2, 3, 4])
        full = _complete_hand(rng, n_sets, rng.choice([[0], [0, 1], [0, 1, 2, 3]]))
        if full is None:
            continue
        held = [k for k in range(34) if full[k]]
        full[rng.choice(held)] -= 1
        found += _check(full, n_sets)
        checked += 1
    assert found > 400


def test_uses_match_the_reference_on_random_hands():
    rng = random.Random(7)
    for _ in range(150):
        counts = [0] * 34
        for k in rng.sample([k for k in range(34) for _ in range(4)], 13):
            counts[k] += 1
        _check(counts, 0)


@pytest.mark.parametrize("text, n_sets, tile, want", [
    ("1112345678999m", 0, None, None),                    # nine gates: every 1m-9m wins
    ("19m19p19s1234567z", 0, "1m", [USE_SPECIAL]),
    ("1122334455667m", 0, "7m", [CHOW_UPPER, USE_PAIR]),
    ("1m", 4, "1m", [USE_PAIR]),
])
def test_known_hands(text, n_sets, tile, want):
    counts = list(Hand.parse(text).counts)
    if tile is None:
        _check(counts, n_sets)
        return
    kind = Hand.parse(tile).tiles[0]
    if want is None:
        want = reference(counts, kind, False)
    assert mahjong_uses(bytes(counts), n_sets, kind, FORMS) == want


def test_a_hand_of_the_wrong_size_is_an_error():
    with pytest.raises(MjcoreError):
        mahjong_uses(bytes([1] * 12 + [0] * 22), 0, 0, FORMS)
