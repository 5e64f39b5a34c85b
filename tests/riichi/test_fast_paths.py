"""The referee's shortcuts agree with the plain computation they replace."""
from __future__ import annotations

import random

import numpy as np
import pytest

from mjcore._core.engine_turn import (
    discard_choices,
    kind_counts,
    may_claim,
    offered,
    shuffled_wall,
    take_discard,
    take_draw,
)
from mjcore._core.shanten import advance
from mjcore.engine.seeds import hand_seed
from mjcore.riichi.actions import DISCARD, DISCARD_ACTIONS, RIICHI_ACTIONS, TILE_CLASS, Action
from mjcore.riichi.agents import EfficiencyAgent, RandomAgent
from mjcore.riichi.game import play_game
from mjcore.riichi.wall import Wall


def test_seeded_wall_is_the_ring_layout_of_its_shuffle():
    for seed in range(200):
        rng = np.random.Generator(np.random.PCG64(hand_seed(seed, seed % 8, seed % 3)))
        tiles = rng.permutation(136).tolist()
        dice = tuple(rng.integers(1, 7, size=2).tolist())
        want = Wall.from_ring(tiles, dice)
        got = Wall.from_seed(seed, seed % 8, seed % 3)
        for name in Wall.__slots__:
            assert getattr(got, name) == getattr(want, name), (seed, name)


def test_compiled_shuffle_is_numpys():
    rng = random.Random(17)
    seeds = [0, 1, 2**32, 2**127] + [rng.getrandbits(128) for _ in range(3000)]
    for seed in seeds:
        gen = np.random.Generator(np.random.PCG64(seed))
        want = (gen.permutation(136).tolist(), *gen.integers(1, 7, size=2).tolist())
        assert shuffled_wall(seed.to_bytes(16, "little")) == want, seed
    with pytest.raises(ValueError):
        shuffled_wall(b"short")


@pytest.mark.parametrize("agent", [RandomAgent, EfficiencyAgent])
def test_kept_waits_and_shanten_agree_with_the_kernel(agent):
    # waits are exact; shanten is exact up to 1 and a lower bound above (skipped kernel calls)
    checked = 0
    state = {}

    def on_round(rnd):
        state["rnd"] = rnd

    def on_event(ev):
        nonlocal checked
        if ev["type"] != "tsumo":
            return
        rnd = state["rnd"]
        for s in range(4):
            if s == ev["actor"]:
                continue
            st, sh, mask = advance(bytes(rnd.counts[s]), len(rnd.melds[s]))
            assert st == 0
            assert rnd.waits[s] == (mask if sh == 0 else 0)
            if rnd.shanten13[s] <= 1:
                assert rnd.shanten13[s] == sh
            else:
                assert sh >= rnd.shanten13[s]
            checked += 1

    for seed in range(3):
        agents = [agent(seed * 4 + i) if agent is RandomAgent else agent() for i in range(4)]
        play_game(agents, seed=seed, on_event=on_event, on_round=on_round)
    assert checked > 1000


# ---- the compiled helpers of the turn loop against plain Python ------------------------------

def _reference_discards(hand, drawn, plain, tsumogiri, forbidden=0):
    out, prev = [], -1
    for t in hand:
        if (forbidden >> (t >> 2)) & 1:
            continue
        if t == drawn:
            out.append(tsumogiri[t])
            continue
        c = TILE_CLASS[t]
        if c != prev:
            out.append(plain[t])
            prev = c
    return out


def _reference_may_claim(counts, waits, riichi, seat, kind, callable_):
    out = 0
    for d in (1, 2, 3):
        s = (seat + d) % 4
        c = counts[s]
        runs = []
        if d == 1 and kind < 27:
            n = kind % 9
            runs = [(kind - 2, kind - 1)] * (n >= 2) + [(kind - 1, kind + 1)] * (1 <= n <= 7) \
                + [(kind + 1, kind + 2)] * (n <= 6)
        if (waits[s] >> kind) & 1 or (callable_ and not riichi[s] and (
                c[kind] >= 2 or any(c[x] and c[y] for x, y in runs))):
            out |= 1 << s
    return out


def test_discard_choices_and_may_claim_agree_with_python():
    rng = random.Random(5)
    for _ in range(3000):
        wall = list(range(136))
        rng.shuffle(wall)
        n = rng.choice((1, 4, 7, 10, 13, 14))
        hand = sorted(wall[:n])
        drawn = rng.choice(hand + [-1])
        forbidden = rng.getrandbits(34) if rng.random() < 0.3 else 0
        for plain, tsumogiri in (DISCARD_ACTIONS, RIICHI_ACTIONS):
            assert discard_choices(hand, drawn, plain, tsumogiri, forbidden) == \
                _reference_discards(hand, drawn, plain, tsumogiri, forbidden)
        hands = [sorted(wall[13 * s:13 * s + 13]) for s in range(4)]
        counts = [kind_counts(h) for h in hands]
        assert [list(c) for c in counts] == [[sum(t >> 2 == k for t in h) for k in range(34)]
                                             for h in hands]
        waits = [rng.getrandbits(34) if rng.random() < 0.05 else 0 for _ in range(4)]
        riichi = [rng.random() < 0.2 for _ in range(4)]
        seat, kind, callable_ = rng.randrange(4), rng.randrange(34), rng.random() < 0.9
        assert may_claim(counts, waits, riichi, seat, kind, callable_) == \
            _reference_may_claim(counts, waits, riichi, seat, kind, callable_)


def test_take_draw_and_take_discard_keep_hand_counts_and_waits():
    rng = random.Random(9)
    for _ in range(500):
        wall = list(range(136))
        rng.shuffle(wall)
        hand = sorted(wall[:13])
        counts = kind_counts(hand)
        drawn = wall[13]
        take_draw(hand, counts, drawn)
        assert hand == sorted(wall[:14]) and counts == kind_counts(hand)
        tile = rng.choice(hand)
        before = rng.choice((0, 1, 2, 3, 5))
        river: list[int] = []
        shanten13, waits, disc = [8, 8, before, 8], [0, 0, 5, 0], [0, 0, 0, 0]
        furiten, discarded = [True] * 4, [False] * 4
        assert take_discard(hand, counts, river, tile, drawn, 0, 2, shanten13, waits, disc,
                            furiten, discarded) == 0
        assert tile not in hand and river == [tile] and counts == kind_counts(hand)
        assert disc[2] == 1 << (tile >> 2) and furiten[2] is False and discarded[2] is True
        _, sh, mask = advance(bytes(counts), 0)
        if tile == drawn:               # a tsumogiri keeps what was known
            assert (shanten13[2], waits[2]) == (before, 5)
        elif before >= 3:               # one lower at most: the kernel is skipped
            assert (shanten13[2], waits[2]) == (before - 1, 0)
        else:
            assert (shanten13[2], waits[2]) == (sh, mask if sh == 0 else 0)
    with pytest.raises(ValueError):
        take_discard([1, 2], kind_counts([1, 2]), [], 3, -1, 0, 0, [8] * 4, [0] * 4, [0] * 4,
                     [False] * 4, [False] * 4)
    with pytest.raises(ValueError):
        take_draw([0, 1, 2, 3], kind_counts([0, 1, 2, 3]), 0)


def test_offered_and_uniform_choice():
    acts = list(DISCARD_ACTIONS[0][:5])
    assert offered(acts[3], acts)
    assert offered(Action(DISCARD, 3), acts)              # equal, not identical
    assert not offered(Action(DISCARD, 9), acts)
    a, b = RandomAgent(11), RandomAgent(11)
    # the random agent reads neither the view nor the options: None and ints stand for them
    pick = b.chooser(None)
    for n in range(1, 40):
        options = list(range(n))
        assert a.choose(None, options) == pick(options)
    with pytest.raises(ValueError):
        pick([])
