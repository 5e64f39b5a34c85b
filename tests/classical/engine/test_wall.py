from __future__ import annotations

from collections import Counter

import pytest

from mjcore.classical.engine.wall import DEAL_SLOTS, FULL_SET, ClassicalWall
from mjcore.errors import InvalidHandError

PROFILES = ["seed003", "seed001"]
DEAD = ["14_unreplenished", "14_replenished", "16_unreplenished", "none"]


def test_deal_slots_cover_the_first_53_tiles() -> None:
    slots = sorted(p for s in DEAL_SLOTS for p in s)
    assert slots == list(range(53))
    assert len(DEAL_SLOTS[0]) == 14 and all(len(DEAL_SLOTS[s]) == 13 for s in (1, 2, 3))
    assert DEAL_SLOTS[0][:4] == (0, 1, 2, 3) and DEAL_SLOTS[1][:4] == (4, 5, 6, 7)
    assert DEAL_SLOTS[0][-2:] == (48, 52)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("dead", DEAD)
def test_seeded_wall_holds_the_144_tiles(profile: str, dead: str) -> None:
    w = ClassicalWall.from_seed(3, 7, wall_profile=profile, dead_wall=dead)
    assert Counter(w.tiles) == Counter(FULL_SET)
    again = ClassicalWall.from_seed(3, 7, wall_profile=profile, dead_wall=dead)
    assert again.tiles == w.tiles and again.tail == w.tail
    w.deal()
    live = {"14_unreplenished": 130, "14_replenished": 130, "16_unreplenished": 128,
            "none": 144}[dead]
    assert w.live_remaining == live - 53


def test_seed003_break_and_loose_tiles() -> None:
    """Ring tiles are their own positions: stack r holds 2r (top) and 2r+1. Dice (5, 7):
    East's wall (j=0) breaks at T=12, breach stack b=11; the live wall starts at stack 12."""
    tiles, tail = ClassicalWall.layout(range(144), (5, 7), wall_profile="seed003",
                                       dead_wall="14_unreplenished")
    assert tiles[:4] == [24, 25, 26, 27]
    # replacements: b.top, b.bottom, (b-1).top ... (b-6).bottom, then the live wall's end
    first = [tiles[p] for p in tail[:16]]
    assert first[:4] == [22, 23, 20, 21]
    assert first[12:14] == [10, 11]
    last_live_stack = (12 + 64) % 72
    assert first[14:16] == [2 * last_live_stack, 2 * last_live_stack + 1]
    # d1 = 6 breaks South's wall (j = 3): first live stack 18*3 + 6 + 3 = 63
    tiles, _ = ClassicalWall.layout(range(144), (6, 3), wall_profile="seed003",
                                    dead_wall="14_unreplenished")
    assert tiles[:2] == [126, 127]


def test_seed001_loose_pair_and_replenishment() -> None:
    tiles, tail = ClassicalWall.layout(range(144), (5, 7), wall_profile="seed001",
                                       dead_wall="14_replenished")
    # second throw only: the live wall starts at stack 7; the loose pair is stack 0
    assert tiles[:2] == [14, 15]
    assert [tiles[p] for p in tail[:4]] == [0, 1, tiles[128], tiles[129]]
    ring = list(FULL_SET)
    w = ClassicalWall.from_ring(ring, (5, 7), wall_profile="seed001", dead_wall="14_replenished")
    w.deal()
    assert w.live_remaining == 77
    w.draw_loose()
    assert w.live_remaining == 77
    w.draw_loose()                 # the last live stack moves onto the dead wall
    assert w.live_remaining == 75
    last = w.draw_loose()
    assert last == w.tiles[128]


def test_unreplenished_dead_wall_then_the_live_end() -> None:
    w = ClassicalWall.from_seed(1, 0, wall_profile="seed003", dead_wall="14_unreplenished")
    w.deal()
    for _ in range(14):
        w.draw_loose()
    assert w.live_remaining == 77
    w.draw_loose()
    assert w.live_remaining == 76
    assert len(w.unseen()) == 76 + 0
    while w.live_remaining:
        w.draw()
    assert w.loose_remaining == 0 and w.unseen() == []


def test_bad_walls_are_refused() -> None:
    with pytest.raises(InvalidHandError, match="144 tiles"):
        ClassicalWall.from_sequence(list(range(34)) * 4 + [0] * 8, "14_replenished")
    with pytest.raises(InvalidHandError, match="144 tiles"):
        ClassicalWall.from_sequence(list(FULL_SET)[:-1], "14_replenished")
    with pytest.raises(InvalidHandError, match="dead_wall"):
        ClassicalWall.from_sequence(list(FULL_SET), "13")
    with pytest.raises(InvalidHandError, match="two throws"):
        ClassicalWall.from_ring(list(FULL_SET), (1, 7), wall_profile="seed003",
                                dead_wall="none")


def test_without_bonus_tiles_the_wall_is_136() -> None:
    w = ClassicalWall.from_seed(2, 0, wall_profile="seed003", dead_wall="14_unreplenished",
                                bonus_tiles=False)
    assert sorted(w.tiles) == sorted(k for k in range(34) for _ in range(4))
    w.deal()
    assert w.live_remaining == 136 - 14 - 53
    # 17 stacks a side: d1 = 6 breaks South's wall (j = 3), first live stack 17*3 + 6 + 3
    tiles, _ = ClassicalWall.layout(range(136), (6, 3), wall_profile="seed003",
                                    dead_wall="14_unreplenished")
    assert tiles[:2] == [120, 121]
