"""Conformance checks run after every event of a game.

- all 136 tiles (the 108 of three-player riichi) are accounted for (hands, melds, norths set
  aside, rivers, wall and dead wall), each once, and the count lists agree with the hands;
- points plus riichi sticks on the table are conserved.
Records are checked by the harness both games share (:mod:`mjcore.engine.invariants`): the
same seed gives the same record, and a record replays to the same states (:func:`check_game`).
"""
from __future__ import annotations

from ..engine import invariants as harness
from ..errors import InvariantError as InvariantError  # declared there, re-exported
from .agents import Agent
from .events import Event
from .game import GameResult
from .round import RiichiRound
from .rules import RuleSet
from .wall import N_TILES, SANMA_TILES

_ALL = {4: list(range(N_TILES)), 3: list(SANMA_TILES)}


class InvariantChecker:
    """Attach with ``on_round``/``on_event`` (see :func:`mjcore.riichi.game.play_game`)."""

    def __init__(self, rules: RuleSet) -> None:
        self.total = rules.players * rules.start_points
        self.tiles = _ALL[rules.players]
        self.lost_sticks = rules.leftover_sticks != "first_place"
        self.round: RiichiRound | None = None
        self.checked = 0

    def on_round(self, rnd: RiichiRound) -> None:
        """Follow a new hand."""
        self.round = rnd

    def on_event(self, ev: Event) -> None:
        """Check the tile census and the points after ``ev``; raises InvariantError."""
        rnd = self.round
        t = ev["type"]
        if rnd is None or t == "start_game":
            return
        self.checked += 1
        if t == "end_game":
            total = sum(ev["scores"])
            if total != self.total and not (self.lost_sticks and total < self.total
                                            and (self.total - total) % 1000 == 0):
                raise InvariantError(f"final scores {ev['scores']} do not add up to {self.total}")
            return
        census = rnd.tile_census()
        every = self.tiles
        if len(census) != len(every) or sorted(census) != every:
            seen: dict[int, int] = {}
            for x in census:
                seen[x] = seen.get(x, 0) + 1
            dup = sorted(x for x, n in seen.items() if n > 1)
            missing = sorted(set(every) - set(census))
            raise InvariantError(f"after {t}: {len(census)} tiles, duplicated {dup}, "
                                 f"missing {missing}")
        for s in range(len(rnd.hands)):
            c = [0] * 34
            for x in rnd.hands[s]:
                c[x >> 2] += 1
            if c != list(rnd.counts[s]):
                raise InvariantError(f"after {t}: seat {s} counts disagree with its hand")
        points = sum(rnd.scores) + 1000 * rnd.sticks
        if points != self.total:
            raise InvariantError(f"after {t}: points {rnd.scores} + {rnd.sticks} sticks = "
                                 f"{points}, not {self.total}")


def check_game(seed: int, agent_names: list[str], rules: RuleSet,
               names: list[str] | None = None) -> tuple[int, GameResult]:
    """Play one game with every per-event check, then check determinism (the same seed gives
    the same record) and that the record, written as mjai lines and read back, replays to the
    same states (:func:`mjcore.engine.invariants.check_game`). Returns (events checked, the
    game); raises InvariantError."""
    from .agents import make_agent
    from .events import from_mjai_lines, write_mjai
    from .game import play_game
    from .replay import replay_events

    def play(agents: list[Agent], checker: InvariantChecker | None) -> GameResult:
        if checker is None:
            return play_game(agents, seed=seed, rules=rules, names=names)
        return play_game(agents, seed=seed, rules=rules, on_event=checker.on_event,
                         on_round=checker.on_round, names=names)

    def replay(events: list[Event], where: str) -> str | None:
        report = replay_events(events, rules, where=where)
        return None if report.ok else report.message

    return harness.check_game(seed, agent_names, make_agent, play, InvariantChecker(rules),
                              write=write_mjai, read=from_mjai_lines, replay=replay)
