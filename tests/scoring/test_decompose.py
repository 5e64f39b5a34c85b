"""Decomposition of complete hands: known cases and a plain Python reference."""
from __future__ import annotations

import random

import pytest

from mjcore.decomposition import decompose
from mjcore.errors import InvalidHandError
from mjcore.hand import Hand

from .random_hands import random_wins


def readings(hand, win):
    return sorted((str(d)) for d in decompose(hand, win))


def test_known_waits():
    assert [d.wait for d in decompose("123m456p789s234s55p", "4s")] == ["ryanmen"]
    assert [d.wait for d in decompose("123m456p789s234s55p", "3s")] == ["kanchan"]
    assert [d.wait for d in decompose("123m456p789s123s55p", "3s")] == ["penchan"]
    assert [d.wait for d in decompose("123m456p789s789s55p", "7s")] == ["penchan"]
    assert sorted(d.wait for d in decompose("123m456p789s789s55p", "5p")) == ["kanchan", "tanki"]
    assert [d.wait for d in decompose("123m555p66p789789s", "5p")] == ["shanpon"]
    assert sorted(d.wait for d in decompose("111222333m456p99s", "3m")) == \
        ["penchan", "shanpon"]
    kokushi = decompose("119m19p19s1234567z", "9s")
    assert [(d.form, d.wait) for d in kokushi] == [("kokushi", "kokushi")]
    assert decompose("119m19p19s1234567z", "1m")[0].wait == "kokushi 13-sided"
    ryanpei = decompose("112233m445566p77s", "7s")
    assert sorted(d.form for d in ryanpei) == ["chiitoitsu", "standard"]


def test_melds_are_kept():
    ds = decompose("123m55p kan:2222p<1 kakan:1111z<3 pon:999m", "3m")
    assert len(ds) == 1
    d = ds[0]
    assert [s.kind for s in d.sets] == ["kan", "kan", "pon", "chi"]
    assert [s.called for s in d.sets] == [True, True, True, False]
    assert d.win_set == 3 and d.wait == "penchan"
    assert "Decomposition(" in repr(d)


def test_incomplete_hand_has_no_decomposition():
    assert decompose("123m456p789s23456s", "5s") == ()


def test_seven_pairs_never_uses_a_quad():
    assert decompose("1111m22p33p44s55s66z", "6z") == ()


@pytest.mark.parametrize("hand,win", [("123m456p789s2345s", "5s"), ("123m456p789s234s55p", "1z"),
                                      ("11111m456p789s234s", "1m")])
def test_bad_input(hand, win):
    with pytest.raises(InvalidHandError):
        decompose(hand, win)


def _reference(counts, n_melds, win):
    """Every (closed sets, pair, wait) reading, by brute force."""
    out = set()

    def sets_of(c, start, acc):
        i = start
        while i < 34 and c[i] == 0:
            i += 1
        if i == 34:
            yield tuple(acc)
            return
        if c[i] >= 3:
            c[i] -= 3
            yield from sets_of(c, i, acc + [("pon", i)])
            c[i] += 3
        if i < 27 and i % 9 <= 6 and c[i + 1] and c[i + 2]:
            for k in range(3):
                c[i + k] -= 1
            yield from sets_of(c, i, acc + [("chi", i)])
            for k in range(3):
                c[i + k] += 1

    for p in range(34):
        if counts[p] < 2:
            continue
        c = list(counts)
        c[p] -= 2
        for sets in sets_of(c, 0, []):
            if len(sets) + n_melds != 4:
                continue
            if p == win:
                out.add((tuple(sorted(sets)), p, "tanki"))
            for kind, t in set(sets):
                if kind == "pon" and t == win:
                    out.add((tuple(sorted(sets)), p, "shanpon"))
                elif kind == "chi" and t <= win <= t + 2:
                    pos = win - t
                    wait = "kanchan" if pos == 1 else (
                        "penchan" if (pos == 0 and t % 9 == 6) or (pos == 2 and t % 9 == 0)
                        else "ryanmen")
                    out.add((tuple(sorted(sets)), p, wait))
    return out


def test_against_reference_on_random_hands():
    for h in random_wins(3000, 99):
        hand = Hand.from_136(h.closed_ids) if not h.melds else None
        if hand is None:
            continue
        win = h.win_id // 4
        got = set()
        for d in decompose(hand, win):
            if d.form != "standard":
                continue
            sets = tuple(sorted((s.kind, s.tile) for s in d.sets))
            got.add((sets, d.pair, d.wait))
        assert got == _reference(list(hand.counts), 0, win), str(hand)


def test_exhaustive_single_suit_complete_hands():
    """Every 14-tile one-suit hand with 4 sets + pair: kernel == reference."""
    rng = random.Random(5)
    seen = 0
    for _ in range(4000):
        counts = [0] * 34
        tiles = []
        for _ in range(4):
            t = rng.randrange(9)
            if rng.random() < 0.5 and t <= 6:
                tiles += [t, t + 1, t + 2]
            else:
                tiles += [t] * 3
        tiles += [rng.randrange(9)] * 2
        for t in tiles:
            counts[t] += 1
        if max(counts) > 4:
            continue
        hand = Hand.from_counts(counts)
        for win in set(tiles):
            got = {(tuple(sorted((s.kind, s.tile) for s in d.sets)), d.pair, d.wait)
                   for d in decompose(hand, win) if d.form == "standard"}
            assert got == _reference(counts, 0, win)
            seen += 1
    assert seen > 1000
