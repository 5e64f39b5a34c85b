"""The referee's shortcuts agree with the plain computation they replace."""
from __future__ import annotations

import numpy as np
import pytest

from mjcore._core.shanten import advance
from mjcore.engine.agents import EfficiencyAgent, RandomAgent
from mjcore.engine.game import play_game
from mjcore.engine.wall import Wall, hand_seed


def test_seeded_wall_is_the_ring_layout_of_its_shuffle():
    for seed in range(200):
        rng = np.random.Generator(np.random.PCG64(hand_seed(seed, seed % 8, seed % 3)))
        tiles = rng.permutation(136).tolist()
        dice = tuple(rng.integers(1, 7, size=2).tolist())
        want = Wall.from_ring(tiles, dice)
        got = Wall.from_seed(seed, seed % 8, seed % 3)
        for name in Wall.__slots__:
            assert getattr(got, name) == getattr(want, name), (seed, name)


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
