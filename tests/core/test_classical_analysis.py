"""Hand analysis under Chinese classical rules (chinese-classical.md §1, §7, §13): shanten,
agari, waits and ukeire with the classical winning forms, checked by hand and against a plain
reference; batch rows equal single hands; bad input is a clear error."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mjcore
from mjcore import InvalidHandError, InvalidRuleError, batch
from mjcore._core.shanten import forms as forms_kernel
from mjcore.analysis import (
    CLASSICAL_FORMS,
    CLASSICAL_SEVEN_PAIRS_FORMS,
    RIICHI_FORMS,
    winning_forms,
)
from mjcore.classical.rules import ClassicalRules

from .hands import random_counts, random_with_melds, tenpai_hands
from .test_analysis import assert_options_advance


def Rules(seven_pairs: bool = False, bonus_tiles: bool = True) -> ClassicalRules:
    """Classical rules with the two options the analysis reads (the game registry finds
    their winning forms from the rules type)."""
    return ClassicalRules.preset("classical").replace(seven_pairs=seven_pairs,
                                                      bonus_tiles=bonus_tiles)


PLAIN = Rules()
PAIRS = Rules(seven_pairs=True)
ORPHANS = [0, 8, 9, 17, 18, 26, *range(27, 34)]


# ---- a plain reference ----------------------------------------------------------------------

def ref_complete_sets(counts: list[int], sets: int, pair: bool) -> bool:
    """Whether counts split into exactly ``sets`` sets and (if ``pair``) one pair."""
    for k in range(34):
        if counts[k]:
            break
    else:
        return sets == 0 and not pair
    c = counts
    if c[k] >= 3 and sets:
        c[k] -= 3
        ok = ref_complete_sets(c, sets - 1, pair)
        c[k] += 3
        if ok:
            return True
    if c[k] >= 2 and pair:
        c[k] -= 2
        ok = ref_complete_sets(c, sets, False)
        c[k] += 2
        if ok:
            return True
    if k < 27 and k % 9 <= 6 and c[k + 1] and c[k + 2] and sets:
        for d in (0, 1, 2):
            c[k + d] -= 1
        ok = ref_complete_sets(c, sets - 1, pair)
        for d in (0, 1, 2):
            c[k + d] += 1
        if ok:
            return True
    return False


def ref_agari(counts: list[int], n_melds: int, seven_pairs: bool) -> bool:
    """Classical §7: four sets and a pair, Thirteen Unique Wonders, any seven pairs if on."""
    if ref_complete_sets(list(counts), 4 - n_melds, True):
        return True
    if n_melds:
        return False
    if all(counts[k] for k in ORPHANS) and sum(counts[k] for k in ORPHANS) == 14:
        return True
    return seven_pairs and sum(counts) == 14 and all(c % 2 == 0 for c in counts)


def ref_shanten(counts: list[int], n_melds: int, seven_pairs: bool) -> int:
    """min(standard, thirteen orphans[, any seven pairs]): the standard form from riichi's
    shanten (the same form; tested against the mahjong library in test_oracle_mahjong), the
    others written out here."""
    best = standard_shanten(counts, n_melds)
    if n_melds == 0:
        held = sum(1 for k in ORPHANS if counts[k])
        paired = any(counts[k] >= 2 for k in ORPHANS)
        best = min(best, 13 - held - paired)
        if seven_pairs:
            best = min(best, 6 - sum(c // 2 for c in counts))
    return best


def standard_shanten(counts: list[int], n_melds: int) -> int:
    st, standard, _pairs, _orphans = forms_kernel(bytes(counts), n_melds)  # riichi's forms
    assert st == 0
    return standard


def hand_of(counts, n_melds: int = 0) -> mjcore.Hand:
    """A Hand of these closed counts with n_melds stand-in pungs (of kinds held at most once,
    so no kind passes four copies)."""
    c = [int(x) for x in counts]
    free = [k for k in range(33, -1, -1) if c[k] <= 1][:n_melds]
    return mjcore.Hand.from_counts(c, melds=[mjcore.Meld.pon(k) for k in free])


def shanten_row(counts, n_melds: int, seven_pairs: bool) -> int:
    return ref_shanten([int(x) for x in counts], n_melds, seven_pairs)


# ---- hand-written cases -------------------------------------------------------------------

@pytest.mark.parametrize("hand, off, on", [
    ("123m456p789s1122z", 0, 0),
    ("11223344556677z", 3, -1),            # seven pairs: a winning hand only with the option
    ("1122m3344p5566s77z", 3, -1),
    ("11112222333344m", -1, -1),
    ("1111m2222p3333s44z", 1, -1),          # any seven pairs: four alike are two pairs
    ("1111m2222p33s4455z", 1, -1),
    ("1111m2222p3333s4z", 2, 0),
    ("1122m3344p5566s7z", 3, 0),
    ("19m19p19s1234567z", 0, 0),            # Thirteen Unique Wonders, thirteen-sided wait
    ("19m19p19s12345677z", -1, -1),
    ("123456789m1234z", 2, 2),
])
def test_known_shanten(hand, off, on):
    assert mjcore.shanten(hand, PLAIN) == off
    assert mjcore.shanten(hand, PAIRS) == on


def test_forms_report_none_for_a_form_the_rules_do_not_have():
    s = mjcore.shanten("11223344556677z", PLAIN)
    assert (s.standard, s.chiitoitsu, s.kokushi) == (3, None, 5)
    assert (s.seven_pairs, s.thirteen_orphans) == (None, 5)
    s = mjcore.shanten("1111m2222p33s4455z", PAIRS)
    assert (s.standard, s.seven_pairs, s.thirteen_orphans) == (1, -1, 9)
    # riichi's chiitoitsu needs distinct pairs: unchanged
    assert mjcore.shanten("1111m2222p33s4455z").chiitoitsu == 3


def test_agari():
    assert not mjcore.is_agari("11223344556677z", PLAIN)
    assert mjcore.is_agari("11223344556677z", PAIRS)
    assert mjcore.is_agari("1111m2222p3333s44z", PAIRS)
    assert not mjcore.is_agari("1111m2222p3333s44z")          # riichi: distinct pairs
    assert mjcore.is_agari("19m19p19s12345677z", PLAIN)
    assert mjcore.is_agari("123m456p789s11z pon:222z<1", PLAIN)
    assert mjcore.is_agari("123m456p789s11z kong:2222z<1", PLAIN)
    assert mjcore.is_agari("123m456p11z ankan:7777s kan:2222z<1", PLAIN)
    s = mjcore.shanten("1133m5577p99s1z kan:2222z<1", PAIRS)   # pairs need a closed hand
    assert (s, s.seven_pairs, s.thirteen_orphans) == (2, None, None)


def test_waits_and_remaining_counts():
    w = mjcore.waits("1111m2222p3333s4z", rules=PAIRS)
    assert [(x.tile, x.remaining) for x in w] == [(30, 3)]
    assert not mjcore.waits("1111m2222p3333s4z", rules=PLAIN).tenpai
    w = mjcore.waits("19m19p19s1234567z 3f", rules=PLAIN)
    assert [x.tile for x in w] == ORPHANS and w.remaining == 13 * 3
    w = mjcore.waits("1122m3344p5566s7z", rules=PAIRS)
    assert [(x.tile, x.remaining) for x in w] == [(33, 3)]
    w = mjcore.waits("1122m3344p5566s7z", visible="7z7z", rules=PAIRS)
    assert w.remaining == 1
    # with melds: kongs are sets, seven pairs is out
    w = mjcore.waits("23m 11p kong:2222z<1 pung:555s<2 chow:123s", rules=PAIRS)
    assert [x.tile for x in w] == [0, 3]


def test_ukeire():
    u = mjcore.ukeire("1111m2222p3333s45z", rules=PAIRS)
    assert u.shanten == 0
    assert {(o.discard, o.shanten) for o in u.options if o.shanten == 0} == {(30, 0), (31, 0)}
    assert [x.tile for x in u.best.tiles] in ([30], [31])
    u = mjcore.ukeire("1111m2222p3333s45z", rules=PLAIN)
    assert u.shanten == 2
    u13 = mjcore.ukeire("1122m3344p5566s7z", rules=PAIRS)
    assert len(u13.options) == 1 and u13.best.discard is None


def test_bonus_tiles_do_not_change_the_shape():
    for rules in (PLAIN, PAIRS):
        assert mjcore.shanten("123m456p789s1122z 1f5f8f", rules) == 0
        assert mjcore.is_agari("123m456p789s11222z 2f6f", rules)
        assert mjcore.waits("123m456p789s1122z 4f", rules=rules).remaining == 4
        assert mjcore.ukeire("123m456p789s11223z 7f", rules=rules).best.discard == 29


def test_riichi_default_is_unchanged():
    for hand in ("11223344556677z", "1111m2222p33s4455z", "123m456p789s1122z"):
        assert repr(mjcore.shanten(hand)) == repr(mjcore.shanten(hand, "riichi"))
    assert winning_forms() == winning_forms("riichi") == winning_forms("tenhou") == RIICHI_FORMS
    assert winning_forms(mjcore.RuleSet.preset("ema")) == RIICHI_FORMS
    assert winning_forms(PLAIN) == CLASSICAL_FORMS
    assert winning_forms(PAIRS) == CLASSICAL_SEVEN_PAIRS_FORMS


# ---- bad input ----------------------------------------------------------------------------

@pytest.mark.parametrize("text, reason, tile", [
    ("11111m456p789s112z", "too_many_copies", "1m"),
    ("1m456p789s112z pung:111m<1 1m", "too_many_copies", "1m"),
    ("123m456p789s11z pung:1f1f1f<1", "bad_melds", "1f"),
    ("123m456p789s11z kong:5f5f5f5f<2", "bad_melds", "5f"),
    ("123m456p789s1122z 3f3f", "duplicate_bonus", "3f"),
    ("123m406p789s1122z", "red_five_not_in_set", "0"),
])
def test_bad_hands_name_the_tile_and_the_reason(text, reason, tile):
    for fn in (mjcore.shanten, mjcore.waits, mjcore.ukeire, mjcore.is_agari):
        with pytest.raises(InvalidHandError) as e:
            fn(text, rules=PLAIN)
        assert e.value.reason == reason
        assert tile in str(e.value)


def test_second_bonus_copy_from_ids():
    with pytest.raises(InvalidHandError, match="second 2f") as e:
        mjcore.Hand.from_counts([1] * 13 + [0] * 21, bonus=[1, 1])
    assert e.value.reason == "duplicate_bonus"


def test_bonus_tiles_with_rules_that_play_without_them():
    with pytest.raises(InvalidHandError) as e:
        mjcore.shanten("123m456p789s1122z 1f", Rules(bonus_tiles=False))
    assert e.value.reason == "bonus_not_in_play" and "1f" in str(e.value)


@pytest.mark.parametrize("rules", ["no-such-rules", 3, 2.5, "Classical"])
def test_unknown_rules_name_them(rules):
    for call in (lambda: mjcore.shanten("123m456p789s1122z", rules),
                 lambda: batch.shanten(np.zeros((1, 34), np.uint8), rules=rules)):
        with pytest.raises(InvalidRuleError) as e:
            call()
        assert repr(rules) in str(e.value)


def test_wrong_tile_counts():
    with pytest.raises(InvalidHandError) as e:
        mjcore.waits("123m456p789s11223z", rules=PLAIN)
    assert e.value.reason == "wrong_tile_count"
    with pytest.raises(InvalidHandError):
        mjcore.shanten("123m456p789s12z 1f2f3f", PLAIN)


# ---- against the reference ----------------------------------------------------------------

def _pairs_rich(n: int, seed: int, size: int) -> np.ndarray:
    """Hands near seven pairs (four alike allowed): pairs of random kinds plus singles."""
    rng = np.random.default_rng(seed)
    out = np.zeros((n, 34), dtype=np.uint8)
    for row in out:
        while row.sum() < size:
            k = rng.integers(0, 34)
            add = 2 if size - row.sum() >= 2 and rng.random() < 0.8 else 1
            if row[k] + add <= 4:
                row[k] += add
    return out


def _orphans_rich(n: int, seed: int, size: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    out = np.zeros((n, 34), dtype=np.uint8)
    for row in out:
        while row.sum() < size:
            k = ORPHANS[rng.integers(0, 13)] if rng.random() < 0.85 else rng.integers(0, 34)
            if row[k] < 4:
                row[k] += 1
    return out


def _corpus(size: int, seed: int) -> np.ndarray:
    return np.concatenate([random_counts(60, size, seed), _pairs_rich(60, seed + 1, size),
                           _orphans_rich(40, seed + 2, size)])


@pytest.mark.parametrize("rules", [PLAIN, PAIRS])
def test_shanten_and_agari_equal_the_reference(rules):
    for size in (13, 14):
        for counts in _corpus(size, seed=size):
            expected = shanten_row(counts, 0, rules.seven_pairs)
            assert mjcore.shanten(hand_of(counts), rules) == expected, counts
            if size == 14:
                assert mjcore.is_agari(hand_of(counts), rules) == (expected == -1)
                assert ref_agari([int(x) for x in counts], 0, rules.seven_pairs) == (expected == -1)


@pytest.mark.parametrize("rules", [PLAIN, PAIRS])
def test_waits_and_advancing_tiles_equal_the_reference(rules):
    corpus = np.concatenate([_corpus(13, seed=7), tenpai_hands(40, seed=8),
                             _pairs_rich(40, 9, 13)])
    for counts in corpus:
        c = [int(x) for x in counts]
        before = ref_shanten(c, 0, rules.seven_pairs)
        advancing = set()
        for t in range(34):
            if c[t] == 4:
                continue
            c[t] += 1
            if ref_shanten(c, 0, rules.seven_pairs) < before:
                advancing.add(t)
                if before == 0:
                    assert ref_agari(c, 0, rules.seven_pairs)
            c[t] -= 1
        u = mjcore.ukeire(hand_of(counts), rules=rules)
        assert u.shanten == before and {x.tile for x in u.best.tiles} == advancing
        w = mjcore.waits(hand_of(counts), rules=rules)
        assert {x.tile for x in w} == (advancing if before == 0 else set())
        for x in w:
            assert x.remaining == 4 - c[x.tile]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans())
def test_fourteen_tile_ukeire_equals_the_reference(seed, seven_pairs):
    make = (random_counts, _pairs_rich, _orphans_rich)[seed % 3]
    counts = make(1, size=14, seed=seed)[0]
    rules = Rules(seven_pairs=seven_pairs)
    c = [int(x) for x in counts]
    u = mjcore.ukeire(hand_of(counts), rules=rules)
    assert u.shanten == ref_shanten(c, 0, seven_pairs)
    assert_options_advance(u.options, c, lambda after: ref_shanten(after, 0, seven_pairs))


def test_hands_with_melds_equal_the_reference():
    for extra in (0, 1):
        counts, melds = random_with_melds(150, seed=20 + extra, extra=extra)
        for row, m in zip(counts, melds, strict=True):
            s = mjcore.shanten(hand_of(row, int(m)), PAIRS)
            assert s == shanten_row(row, int(m), True)
            if int(m):
                assert s.seven_pairs is None and s.thirteen_orphans is None


def test_every_honor_pattern_exhaustively():
    # every honour-only closed hand of 13 and 14 tiles (pungs, pairs, orphans, seven pairs)
    seen = 0
    for code in range(5 ** 7):
        honors = [code // 5 ** i % 5 for i in range(7)]
        if sum(honors) not in (13, 14):
            continue
        seen += 1
        counts = [0] * 27 + honors
        for seven_pairs in (False, True):
            rules = Rules(seven_pairs=seven_pairs)
            expected = ref_shanten(counts, 0, seven_pairs)
            assert mjcore.shanten(hand_of(counts), rules) == expected, honors
            if sum(honors) == 14:
                assert mjcore.is_agari(hand_of(counts), rules) == ref_agari(counts, 0, seven_pairs)
    assert seen == 16010


# ---- batch ---------------------------------------------------------------------------------

@pytest.mark.parametrize("rules", [PLAIN, PAIRS])
def test_batch_rows_equal_single_hands(rules):
    c13 = np.concatenate([_corpus(13, 30), tenpai_hands(100, 31)])
    c14 = _corpus(14, 32)
    m13 = np.zeros(len(c13), np.uint8)
    r = batch.shanten(c13, rules=rules, forms=True).raise_for_errors()
    w = batch.waits(c13, rules=rules).raise_for_errors()
    a = batch.is_agari(c14, rules=rules).raise_for_errors()
    u = batch.ukeire(c14, rules=rules, full=True).raise_for_errors()
    for i, row in enumerate(c13):
        s = mjcore.shanten(hand_of(row), rules)
        assert r.shanten[i] == s
        f = r.forms[i]
        assert (f[0], f[1], f[2]) == (s.standard, 99 if s.seven_pairs is None else s.seven_pairs,
                                      s.thirteen_orphans)
        waits = mjcore.waits(hand_of(row), rules=rules)
        assert batch.mask_to_tiles(w.mask[i]) == [x.tile for x in waits]
    for i, row in enumerate(c14):
        assert a.agari[i] == mjcore.is_agari(hand_of(row), rules)
        single = mjcore.ukeire(hand_of(row), rules=rules)
        best = single.best
        # the batch summary counts the discarded copy as unseen; the single hand as seen
        back = any(x.tile == best.discard for x in best.tiles)
        assert (u.best_shanten[i], u.best_discard[i], u.best_count[i]) == (
            best.shanten, best.discard, best.remaining + back)
        for o in single.options:
            assert u.after[i, o.discard] == o.shanten
            assert batch.mask_to_tiles(u.masks[i, o.discard]) == [x.tile for x in o.tiles]
    assert batch.shanten(c13, m13, rules=rules).shanten.tolist() == r.shanten.tolist()


def test_batch_with_melds_and_text():
    counts, melds = random_with_melds(400, seed=40, extra=0)
    r = batch.shanten(counts, melds, rules=PAIRS).raise_for_errors()
    for row, m, s in zip(counts, melds, r.shanten, strict=True):
        assert s == mjcore.shanten(hand_of(row, int(m)), PAIRS)
    lines = b"11223344556677z\n1111m2222p3333s4z\n19m19p19s1234567z\n"
    assert batch.shanten_text(lines, rules=PLAIN).shanten.tolist() == [3, 2, 0]
    assert batch.shanten_text(lines, rules=PAIRS).shanten.tolist() == [-1, 0, 0]
    assert batch.shanten_text(lines).shanten.tolist() == [-1, 2, 0]


def test_batch_never_reads_out_of_bounds_whatever_the_input():
    # garbage counts and meld numbers: every row gets a status, no crash (debug builds check
    # the bounds)
    rng = np.random.default_rng(50)
    counts = rng.integers(0, 256, size=(3000, 34)).astype(np.uint8)
    counts[:1000] = rng.integers(0, 6, size=(1000, 34))
    counts[1000:2000] = random_counts(1000, rng.integers(0, 20, size=1000), 51)
    melds = rng.integers(0, 256, size=3000).astype(np.uint8)
    melds[::2] = rng.integers(0, 5, size=1500)
    for rules in (PLAIN, PAIRS, None):
        for fn in (batch.shanten, batch.waits, batch.is_agari, batch.ukeire):
            r = fn(counts, melds, rules=rules)
            assert ((r.status == 0) | (r.status < 0)).all()
            for e in r.errors()[:3]:
                assert e.index is not None and e.reason


# ---- the classical rules value and its presets ---------------------------------------------

def test_presets_and_the_classical_rules_value():
    from mjcore.classical.rules import ClassicalRules

    classical = ClassicalRules.preset("classical")
    with_pairs = classical.replace(seven_pairs=True)
    assert winning_forms("classical") == winning_forms("bradfield") == CLASSICAL_FORMS
    assert winning_forms(classical) == CLASSICAL_FORMS
    assert winning_forms(with_pairs) == CLASSICAL_SEVEN_PAIRS_FORMS
    for hand in ("11223344556677z", "1111m2222p3333s4z", "19m19p19s1234567z 2f"):
        assert repr(mjcore.shanten(hand, "classical")) == repr(mjcore.shanten(hand, PLAIN))
        assert repr(mjcore.shanten(hand, with_pairs)) == repr(mjcore.shanten(hand, PAIRS))
    counts = _corpus(13, seed=60)
    assert (batch.shanten(counts, rules="bradfield").shanten.tolist()
            == batch.shanten(counts, rules=PLAIN).shanten.tolist())
    assert (batch.waits(counts, rules=with_pairs).mask.tolist()
            == batch.waits(counts, rules=PAIRS).mask.tolist())


def _one_suit(size: int) -> np.ndarray:
    """Every count pattern of one suit (9 kinds, 0..4 each) with ``size`` tiles, as man."""
    grid = np.stack(np.meshgrid(*[np.arange(5, dtype=np.uint8)] * 9, indexing="ij"), -1)
    grid = grid.reshape(-1, 9)
    grid = grid[grid.sum(1, dtype=np.int64) == size]
    out = np.zeros((len(grid), 34), np.uint8)
    out[:, :9] = grid
    return out


def test_every_one_suit_hand_exhaustively():
    # all 93,600 + 118,800 one-suit hands: classical shanten against min(standard, any seven
    # pairs) with the closed forms written out in numpy, and agari against the plain recursive
    # decomposition above (independent of the tables)
    for size in (13, 14):
        counts = _one_suit(size)
        standard = batch.shanten(counts, forms=True).raise_for_errors().forms[:, 0]
        pairs = (counts // 2).sum(1, dtype=np.int64)
        orphans = 13 - (counts[:, [0, 8]] > 0).sum(1) - (counts[:, [0, 8]] >= 2).any(1)
        plain = np.minimum(standard, orphans)
        with_pairs = np.minimum(plain, 6 - pairs)
        assert (batch.shanten(counts, rules=PLAIN).shanten == plain).all()
        assert (batch.shanten(counts, rules=PAIRS).shanten == with_pairs).all()
        if size == 14:
            complete = np.array([ref_complete_sets([int(x) for x in row], 4, True)
                                 for row in counts])
            assert (batch.is_agari(counts, rules=PLAIN).agari == complete).all()
            assert (batch.is_agari(counts, rules=PAIRS).agari
                    == (complete | (counts % 2 == 0).all(1))).all()
            assert ((plain == -1) == complete).all()
