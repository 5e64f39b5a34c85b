from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from mjcore.classical.engine.referee import ClassicalHand
from mjcore.classical.engine.wall import FULL_SET, ClassicalWall
from mjcore.classical.rules import ClassicalRules


def _conserved(hand: ClassicalHand) -> Counter:
    tiles: Counter = Counter(hand.wall.unseen())
    for s in range(4):
        for k, n in enumerate(hand.counts[s]):
            tiles[k] += n
        tiles.update(hand.bonus[s])
        tiles.update(hand.discards[s])
        for m in hand.melds[s]:
            tiles.update(m.tiles)
    return tiles


@pytest.mark.parametrize("preset", ["classical", "bradfield"])
def test_random_hands_conserve_the_144_tiles(preset: str) -> None:
    rules = ClassicalRules.preset(preset)
    import random
    rng = random.Random(5)
    checks = 0
    for h in range(40):
        wall = ClassicalWall.from_seed(11, h, wall_profile=rules.wall_profile,
                                       dead_wall=rules.dead_wall)
        holder: list[ClassicalHand] = []

        def decide(seat: int, actions: list[Any], holder: list[ClassicalHand] = holder) -> Any:
            nonlocal checks
            assert actions == sorted(actions) and len(set(actions)) == len(actions)
            assert _conserved(holder[0]) == Counter(FULL_SET)
            checks += 1
            return actions[int(rng.random() * len(actions))]

        holder.append(ClassicalHand(rules, wall, decide))
        result = holder[0].play()
        for s in range(4):
            n = sum(result.concealed[s]) + 3 * len(result.melds[s])
            winner = any(w.seat == s for w in result.wins)
            assert n == (14 if winner else 13)
    assert checks > 1000




def test_robbing_a_kong_keeps_every_tile_in_place(bradfield_dir) -> None:
    """Game 118 hand 3 of Bradfield's games ends with a robbed kong: the added tile leaves the
    kong before the robber's Mah-Jong is declared."""
    from mjcore.classical.engine.bradfield import RecordedDecider
    from mjcore.classical.engine.invariants import table_tiles
    from mjcore.classical.history import parse_history

    f = bradfield_dir / "game-118" / "hand-03.mjs"
    h = parse_history(f.read_text(), str(f))
    script = RecordedDecider(h)
    wall = ClassicalWall.from_sequence(h.wall, h.rules.dead_wall)
    holder: list[ClassicalHand] = []
    checked = []

    def emit(ev: dict) -> None:
        script.observe(ev)
        if ev["type"] in ("discard", "pung", "chow", "kong", "add_kong", "mahjong"):
            assert table_tiles(holder[0]) == Counter(FULL_SET), ev
            checked.append(ev["type"])

    holder.append(ClassicalHand(h.rules, wall, script, emit=emit))
    result = holder[0].play()
    assert result.wins[0].robbed_kong and checked[-1] == "mahjong"
    robber = result.wins[0].seat
    assert sum(result.concealed[robber]) + 3 * len(result.melds[robber]) == 14
