"""The conformance harness both games run (:mod:`mjcore.engine.invariants`), on fake games that
can fail: a game that plays differently from the same seed, a record that does not replay, a
check that fails; and both games' ``check_game`` through it."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest

from mjcore.engine.invariants import check_game
from mjcore.errors import InvariantError, RecordMismatch


@dataclass
class FakeResult:
    events: list[dict[str, Any]]


@dataclass
class FakeAgent:
    name: str
    seed: int
    closed: bool = False

    def close(self) -> None:
        self.closed = True


@dataclass
class CountingChecker:
    checked: int = 0
    fail_at: int = -1

    def on_event(self, ev: dict[str, Any]) -> None:
        if ev["n"] == self.fail_at:
            raise InvariantError(f"event {ev['n']} is wrong")
        self.checked += 1


@dataclass
class FakeGame:
    """Three events from the agents' seeds; ``drift`` changes the record on each play."""
    drift: bool = False
    plays: int = 0
    agents: list[FakeAgent] = field(default_factory=list)

    def play(self, agents: list[FakeAgent], checker: CountingChecker | None) -> FakeResult:
        self.agents += agents
        self.plays += 1
        events = [{"type": "step", "n": n, "seeds": [a.seed for a in agents],
                   "play": self.plays if self.drift else 0} for n in range(3)]
        if checker is not None:
            for ev in events:
                checker.on_event(ev)
        return FakeResult(events)


def write(events: list[dict[str, Any]]) -> list[str]:
    return [json.dumps(ev) for ev in events]


def read(lines: list[str], where: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in lines]


def replays(events: list[dict[str, Any]], where: str) -> str | None:
    return None


def test_a_game_that_keeps_its_invariants_passes():
    game = FakeGame()
    checked, result = check_game(5, ["a", "b"], FakeAgent, game.play, CountingChecker(),
                                 write=write, read=read, replay=replays)
    assert checked == 3 and game.plays == 2
    assert result.events[0]["seeds"] == [20, 21]            # make_agent(name, seed * 4 + i)
    assert all(a.closed for a in game.agents) and len(game.agents) == 4


def test_the_same_seed_playing_another_game_is_caught():
    with pytest.raises(InvariantError, match="game seed 5: the same seed gave a different"):
        check_game(5, ["a"], FakeAgent, FakeGame(drift=True).play, CountingChecker(),
                   write=write, read=read, replay=replays)


def test_a_record_that_does_not_replay_is_caught():
    seen: list[tuple[list[dict[str, Any]], str]] = []

    def replay(events: list[dict[str, Any]], where: str) -> str | None:
        seen.append((events, where))
        return "event 2 differs"

    game = FakeGame()
    with pytest.raises(InvariantError,
                       match="game seed 5: the record does not replay: event 2 differs"):
        check_game(5, ["a"], FakeAgent, game.play, CountingChecker(), write=write, read=read,
                   replay=replay)
    (events, where), = seen
    assert where == "game seed 5" and [e["n"] for e in events] == [0, 1, 2]   # read back


def test_a_failed_check_ends_the_run_and_the_agents_are_closed():
    game = FakeGame()
    with pytest.raises(InvariantError, match="event 1 is wrong"):
        check_game(5, ["a", "b"], FakeAgent, game.play, CountingChecker(fail_at=1),
                   write=write, read=read, replay=replays)
    assert game.plays == 1 and all(a.closed for a in game.agents)


def test_riichi_check_game_catches_a_record_that_does_not_replay(monkeypatch):
    import mjcore.riichi.replay
    from mjcore.riichi.invariants import check_game as riichi_check
    from mjcore.riichi.replay import ReplayReport
    from mjcore.riichi.rules import DEFAULT_RULES

    checked, res = riichi_check(1, ["random"] * 4, DEFAULT_RULES)
    assert checked > 0 and res.events[-1]["type"] == "end_game"
    monkeypatch.setattr(mjcore.riichi.replay, "replay_events",
                        lambda events, rules, where: ReplayReport(False, message="broken"))
    with pytest.raises(InvariantError, match="game seed 1: the record does not replay: broken"):
        riichi_check(1, ["random"] * 4, DEFAULT_RULES)


def test_classical_check_game_catches_a_record_that_does_not_replay(monkeypatch):
    import mjcore.classical.engine.invariants as classical
    from mjcore.classical.rules import ClassicalRules

    rules = ClassicalRules.preset("classical").replace(agreed_hands=1)
    checked, res = classical.check_game(1, ["random"] * 4, rules)
    assert checked > 0 and len(res.hands) == 1

    def broken(events: list[dict[str, Any]], where: str) -> int:
        raise RecordMismatch(f"{where} hand 0: broken")

    monkeypatch.setattr(classical, "replay_record", broken)
    with pytest.raises(InvariantError, match="does not replay: game seed 1 hand 0: broken"):
        classical.check_game(1, ["random"] * 4, rules)
