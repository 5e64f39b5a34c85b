"""engine.handcalc.decompositions (the compiled decomposition kernel) against a plain
recursive reference: every way to split a closed part into sets and a pair."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mjcore.engine.handcalc import decompositions
from mjcore.errors import MjcoreError


def reference(counts: list[int]) -> list[list[tuple[str, int]]]:
    """Pair first, then at the lowest kind left a pon or a chi, recursively (a reading can come
    out twice, its sets in another order: compare with :func:`readings`)."""
    out: list[list[tuple[str, int]]] = []
    c = list(counts)
    if sum(c) % 3 != 2:
        return out

    def sets(acc: list[tuple[str, int]]) -> None:
        k = next((k for k in range(34) if c[k]), 34)
        if k == 34:
            out.append(list(acc))
            return
        if c[k] >= 3:
            c[k] -= 3
            sets(acc + [("pon", k)])
            c[k] += 3
        if k < 27 and k % 9 <= 6 and c[k + 1] and c[k + 2]:
            for j in (k, k + 1, k + 2):
                c[j] -= 1
            sets(acc + [("chi", k)])
            for j in (k, k + 1, k + 2):
                c[j] += 1

    for p in range(34):
        if c[p] >= 2:
            c[p] -= 2
            sets([("pair", p)])
            c[p] += 2
    return out


def readings(found: list[list[tuple[str, int]]]) -> list[tuple[tuple[str, int], ...]]:
    """Each reading once, its sets sorted."""
    return sorted({(r[0], *sorted(r[1:])) for r in found})


@st.composite
def closed_parts(draw):
    """14 - 3k tiles: a complete hand (sets and a pair, some of one suit so readings multiply)
    or, one time in four, any tiles of that size."""
    n_declared = draw(st.integers(0, 4))
    size = 14 - 3 * n_declared
    counts = [0] * 34
    if draw(st.integers(0, 3)) == 0:
        pool = [k for k in range(34) for _ in range(4)]
        for k in draw(st.lists(st.sampled_from(pool), min_size=size, max_size=size)):
            if counts[k] < 4:
                counts[k] += 1
        return counts
    suits = draw(st.sampled_from([[0], [0, 1], [0, 1, 2, 3]]))
    for _ in range(4 - n_declared):
        suit = draw(st.sampled_from(suits))
        if suit < 3 and draw(st.booleans()):
            k = suit * 9 + draw(st.integers(0, 6))
            if all(counts[k + j] < 4 for j in range(3)):
                for j in range(3):
                    counts[k + j] += 1
        else:
            k = suit * 9 + draw(st.integers(0, 8 if suit < 3 else 6))
            if counts[k] <= 1:
                counts[k] += 3
    k = draw(st.integers(0, 33))
    if counts[k] <= 2:
        counts[k] += 2
    return counts


@settings(max_examples=600, deadline=None)
@given(closed_parts())
def test_decompositions_match_the_reference(counts):
    assert readings(decompositions(counts)) == readings(reference(counts))


@pytest.mark.parametrize("text", [
    "11122233344455m", "11123456789999m", "11223344556677m", "22334455667788p",
    "19m19p19s1234567z1m", "111222333m", "11m", "1112345678999m5m", "123456789m123p1z",
])
def test_known_hands(text):
    from mjcore.hand import Hand

    counts = list(Hand.parse(text).counts)
    assert readings(decompositions(counts)) == readings(reference(counts))


def test_every_reading_of_a_many_reading_hand():
    counts = list(map(int, "3333" + "0" * 30))        # 111222333444m11z
    counts[27] = 2
    got = decompositions(counts)
    assert readings(got) == readings(reference(counts)) and len(got) == 3
    assert [("pair", 27), ("pon", 0), ("chi", 1), ("chi", 1), ("chi", 1)] in got


def test_random_complete_hands_from_walls():
    rng = random.Random(17)
    checked = 0
    while checked < 300:
        wall = [k for k in range(9) for _ in range(4)]
        rng.shuffle(wall)
        counts = [0] * 34
        for k in wall[:14]:
            counts[k] += 1
        want = reference(counts)
        assert readings(decompositions(counts)) == readings(want)
        checked += bool(want)


def test_impossible_counts_are_an_error():
    with pytest.raises(MjcoreError):
        decompositions([5, 3, 3, 3] + [0] * 30)
    assert decompositions([1] * 13 + [0] * 21) == []       # 13 tiles: not 14 - 3k
