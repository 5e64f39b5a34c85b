"""One hand per call (issue 28): mjcore.shanten, is_agari and waits are compiled functions
(mjcore._core.single) that take a Hand under known rules straight to the kernel and leave every
other call to mjcore.analysis's general functions. Both paths give the same results (the same
types and values) and the same errors."""
from __future__ import annotations

import gc
import sys

import numpy as np
import pytest

import mjcore
from mjcore import analysis
from mjcore._core import single
from mjcore.classical.rules import ClassicalRules
from mjcore.errors import InvalidHandError
from mjcore.results import Shanten, Waits
from mjcore.riichi.rules import RuleSet

from .hands import complete_hands, random_counts, tenpai_hands

MPSZ = "mpsz"
SANMA_KINDS = [k for k in range(34) if not 1 <= k <= 7]


def text_of(counts) -> str:
    out = []
    for suit in range(4):
        digits = "".join(str(k - 9 * suit + 1) * int(counts[k])
                         for k in range(9 * suit, min(9 * suit + 9, 34)))
        if digits:
            out.append(digits + MPSZ[suit])
    return "".join(out)


def with_melds(rng: np.random.Generator, n_melds: int, closed: int) -> mjcore.Hand:
    """A hand of ``closed`` random closed tiles and ``n_melds`` pons and chis."""
    while True:
        seen = np.zeros(34, np.int64)
        melds = []
        for _ in range(n_melds):
            if rng.random() < 0.5:
                k = int(rng.integers(34))
                if seen[k] + 3 > 4:
                    break
                seen[k] += 3
                melds.append(f"pon:{str(k % 9 + 1) * 3}{MPSZ[k // 9]}")
            else:
                k = int(rng.integers(3)) * 9 + int(rng.integers(7))
                if seen[k:k + 3].max() + 1 > 4:
                    break
                seen[k:k + 3] += 1
                melds.append("chi:" + "".join(str(k % 9 + 1 + i) for i in range(3))
                             + MPSZ[k // 9])
        else:
            wall = [k for k in range(34) for _ in range(4 - seen[k])]
            pick = rng.choice(len(wall), closed, replace=False)
            counts = np.bincount(np.array(wall)[pick], minlength=34)
            return mjcore.Hand.parse(" ".join([text_of(counts)] + melds))


def hands_of(counts: np.ndarray) -> list[mjcore.Hand]:
    return [mjcore.Hand.from_counts(row) for row in counts.tolist()]


def random_hands() -> list[mjcore.Hand]:
    rng = np.random.default_rng(2028)
    out = hands_of(random_counts(3000, 13, 31)) + hands_of(random_counts(3000, 14, 32))
    out += hands_of(tenpai_hands(1500, 33)) + hands_of(complete_hands(1500, 34))
    for n_melds in range(1, 5):
        for extra in (0, 1):
            out += [with_melds(rng, n_melds, 13 + extra - 3 * n_melds) for _ in range(150)]
    # edge shapes: seven pairs, thirteen orphans, quads, honours only
    out += [mjcore.Hand.parse(t) for t in (
        "1199m2288p3377s11z", "1199m2288p3377s1z", "19m19p19s1234567z", "19m19p19s11234567z",
        "1111m2222p3333s1z", "1111m2222p3333s11z", "11122233344455z", "1112223334445z",
        "11112222333344m", "119m19p19s123456z", "5550m123p456s789s1z")]
    return out


HANDS = random_hands()
RULES: list[object] = [None, "riichi", "tenhou", RuleSet.preset("tenhou"), "classical",
                       ClassicalRules(seven_pairs=True)]


def outcome(call, *args):
    """What a call gives: ("ok", type, value) or ("error", type, message, reason)."""
    try:
        value = call(*args)
    except InvalidHandError as err:
        return ("error", type(err), str(err), err.reason)
    if isinstance(value, Shanten):
        return ("ok", type(value), int(value), value.standard, value.chiitoitsu, value.kokushi)
    return ("ok", type(value), value)


def twice(call, *args):
    """The call's outcome, taken twice: the first may resolve the rules on the general path."""
    outcome(call, *args)
    return outcome(call, *args)


@pytest.mark.parametrize("rules", RULES, ids=repr)
def test_shanten_per_call_equals_the_general_path(rules):
    for h in HANDS:
        fast = twice(mjcore.shanten, h, rules)
        assert fast == outcome(analysis._shanten_general, h, rules), str(h)
        if fast[0] == "ok":   # the very object of the shared table
            assert mjcore.shanten(h, rules) is analysis._shanten_general(h, rules)


@pytest.mark.parametrize("rules", RULES, ids=repr)
def test_is_agari_per_call_equals_the_general_path(rules):
    for h in HANDS:
        assert twice(mjcore.is_agari, h, rules) == outcome(analysis._is_agari_general, h,
                                                             rules), str(h)


@pytest.mark.parametrize("rules", RULES, ids=repr)
def test_waits_per_call_equals_the_general_path(rules):
    tenpai = 0
    for h in HANDS:
        fast = twice(mjcore.waits, h, (), rules)
        assert fast == outcome(analysis._waits_general, h, (), rules), str(h)
        if fast[0] == "ok":
            assert type(fast[2].tiles) is tuple
            tenpai += fast[2].tenpai
    assert tenpai > 1000


def test_waits_of_a_melded_hand_count_the_melds_tiles_as_seen():
    h = mjcore.Hand.parse("1234m456p789s pon:111m")   # waits 1m (none unseen) and 4m
    got = mjcore.waits(h)
    assert got == analysis._waits_general(h)
    assert [(w.tile, w.remaining) for w in got] == [(0, 0), (3, 3)]


def test_sanma_hands_per_call_equal_the_general_path():
    rng = np.random.default_rng(7)
    wall = np.repeat(np.array(SANMA_KINDS), 4)
    hands = []
    for size in (13, 14):
        for _ in range(1500):
            hands.append(mjcore.Hand.from_tiles(rng.choice(wall, size, replace=False).tolist()))
    hands += [mjcore.Hand.parse(t) for t in ("25m123p456s11122z", "19m123p456s111z 78m",
                                              "19m123p11z chi:123s pon:222z",
                                              "19m123p456s11z pon:888m")]
    for rules in ("tenhou_sanma", RuleSet.preset("tenhou_sanma")):
        for h in hands:
            assert twice(mjcore.shanten, h, rules) == outcome(analysis._shanten_general, h,
                                                                rules)
            assert twice(mjcore.is_agari, h, rules) == outcome(analysis._is_agari_general, h,
                                                                 rules)
            assert twice(mjcore.waits, h, (), rules) == outcome(analysis._waits_general, h,
                                                                  (), rules)


@pytest.mark.parametrize("text", ["123m", "123m456p789s11z", "123m456p789s1122z",
                                  "123m456p789s11z pon:555z", "19m19p19s1234567z pon:111z",
                                  "1234567m pon:111z chi:123p"])
def test_wrong_sizes_raise_the_same_errors(text):
    h = mjcore.Hand.parse(text)
    for rules in (None, "classical"):
        assert twice(mjcore.shanten, h, rules) == outcome(analysis._shanten_general, h, rules)
        assert twice(mjcore.is_agari, h, rules) == outcome(analysis._is_agari_general, h,
                                                             rules)
        assert twice(mjcore.waits, h, (), rules) == outcome(analysis._waits_general, h, (),
                                                              rules)


def test_strings_visible_tiles_and_keywords_give_what_hands_give():
    text = "123m456p789s1122z"
    h = mjcore.Hand.parse(text)
    assert mjcore.shanten(text) is mjcore.shanten(h) is mjcore.shanten(hand=h, rules=None)
    assert mjcore.is_agari(text + "1z") is mjcore.is_agari(h.add("1z")) is True
    assert mjcore.waits(text, "1z") == mjcore.waits(h, visible=["1z"]) != mjcore.waits(h)
    assert mjcore.waits(h, "") == mjcore.waits(h, []) == mjcore.waits(text)
    with pytest.raises(InvalidHandError) as err:
        mjcore.waits(h, "1z1z1z")
    assert err.value.reason == "too_many_copies"


def test_red_fives_under_classical_rules_are_refused_either_way():
    h = mjcore.Hand.parse("0m123p456s789s111z")
    for _ in range(2):
        with pytest.raises(InvalidHandError) as err:
            mjcore.shanten(h, "classical")
        assert err.value.reason == "red_five_not_in_set"


class _Spy:
    def __init__(self, general):
        self.general, self.calls = general, 0

    def __call__(self, *args):
        self.calls += 1
        return self.general(*args)


@pytest.fixture
def spies():
    found = [_Spy(analysis._shanten_general), _Spy(analysis._is_agari_general),
             _Spy(analysis._waits_general)]
    single.use_general(*found)
    yield found
    single.use_general(analysis._shanten_general, analysis._is_agari_general,
                       analysis._waits_general)


def test_a_hand_under_known_rules_never_takes_the_general_path(spies):
    """Known rules: None, or the riichi rules last resolved (classical rules always check the
    hand in Python first: red fives, bonus tiles)."""
    h13, h14 = mjcore.Hand.parse("123m456p789s1122z"), mjcore.Hand.parse("123m456p789s11122z")
    mjcore.shanten(h13, "tenhou")          # resolves and remembers the rules
    spies[0].calls = 0
    for rules in (None, "tenhou"):
        mjcore.shanten(h13, rules)
        mjcore.is_agari(h14, rules)
        mjcore.waits(h13, (), rules)
    assert [s.calls for s in spies] == [0, 0, 0]
    mjcore.shanten("123m456p789s1122z")
    with pytest.raises(InvalidHandError):     # 13 tiles: the general path raises
        mjcore.is_agari(h13)
    mjcore.waits(h13, "1z")
    assert [s.calls for s in spies] == [1, 1, 1]


def test_no_python_frame_between_the_call_and_the_kernel():
    h13, h14 = mjcore.Hand.parse("123m456p789s1122z"), mjcore.Hand.parse("123m456p789s11122z")
    frames: list[str] = []

    def profile(frame, event, arg):
        if event == "call":
            frames.append(f"{frame.f_code.co_filename}:{frame.f_code.co_name}")

    sys.setprofile(profile)
    try:
        mjcore.shanten(h13)
        mjcore.is_agari(h14)
        mjcore.waits(h13)
    finally:
        sys.setprofile(None)
    assert frames == []


def test_waits_results_are_not_tracked_by_the_garbage_collector():
    got = mjcore.waits(mjcore.Hand.parse("123m456p789s1122z"))
    assert isinstance(got, Waits) and got.tenpai
    assert not gc.is_tracked(got) and not gc.is_tracked(got.tiles)
    assert not gc.is_tracked(mjcore.waits(mjcore.Hand.parse("123m456p789s1234z")))


def test_a_subclass_of_hand_takes_the_general_path(spies):
    class Marked(mjcore.Hand):
        __slots__ = ()

    h = mjcore.Hand.parse("123m456p789s1122z")
    marked = Marked(h.counts)
    assert mjcore.shanten(marked) is mjcore.shanten(h)
    assert mjcore.waits(marked) == mjcore.waits(h)
    assert spies[0].calls == 1 and spies[2].calls == 1
