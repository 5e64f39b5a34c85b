"""The riichi game engine: seeded walls, a referee with legal actions, agents that see only
their own view, game records (mjai JSON lines, tenhou.net/6 export) and replay of Tenhou
mjlog records.

Layout (the Chinese classical engine reuses the turn machinery pieces):

- :mod:`.turns` the turn machinery both referees share: asking a seat, claims on a discard
  ranked as data, robbing a kong, the draw/turn/discard/claims cycle, :class:`EngineError`;
- :mod:`.wall` ring wall model and seeded shuffle; :mod:`.events` record events and mjai
  tile names; :mod:`.actions` the sorted legal actions; :mod:`.view` a seat's view;
  :mod:`.agents` built-in agents; :mod:`.mjai` agents in another process;
- :mod:`mjcore.riichi.round` the riichi referee of one hand (ruleset-specific); :mod:`.game` hand
  after hand, end of game, uma/oka; :mod:`.replay` record-driven replay and checks;
  :mod:`.tenhou` mjlog reader and tenhou.net/6 export; :mod:`.invariants` conformance checks.

    >>> from mjcore.engine import play_game, EfficiencyAgent, RandomAgent
    >>> res = play_game([EfficiencyAgent(), RandomAgent(1), RandomAgent(2), RandomAgent(3)],
    ...                 seed=7)
    >>> sum(res.scores)
    100000
"""
from __future__ import annotations

import importlib
from typing import Any

# Names load on first use: the referees import the shared pieces of this package, so an eager
# import here would be circular.
_EXPORTS = {
    "Action": ".actions",
    "ActionType": ".actions",
    "Agent": ".agents",
    "EfficiencyAgent": ".agents",
    "EngineError": ".turns",
    "Game": ".game",
    "GameResult": ".game",
    "InvariantChecker": ".invariants",
    "InvariantError": ".invariants",
    "PlayerView": ".view",
    "RandomAgent": ".agents",
    "ReplayReport": ".replay",
    "RiichiRound": "..riichi.round",
    "RoundResult": "..riichi.round",
    "TsumogiriAgent": ".agents",
    "Wall": ".wall",
    "check_game": ".invariants",
    "final_points": ".game",
    "from_mjai_lines": ".events",
    "make_agent": ".agents",
    "play_game": ".game",
    "ranking": ".game",
    "read_mjlog": ".tenhou",
    "read_mjlog_file": ".tenhou",
    "replay_events": ".replay",
    "replay_source": ".replay",
    "to_mjai": ".events",
    "to_tenhou6": ".tenhou",
    "write_mjai": ".events",
}

__all__ = [
    "Action",
    "ActionType",
    "Agent",
    "EfficiencyAgent",
    "EngineError",
    "Game",
    "GameResult",
    "InvariantChecker",
    "InvariantError",
    "PlayerView",
    "RandomAgent",
    "ReplayReport",
    "RiichiRound",
    "RoundResult",
    "TsumogiriAgent",
    "Wall",
    "check_game",
    "final_points",
    "from_mjai_lines",
    "make_agent",
    "play_game",
    "ranking",
    "read_mjlog",
    "read_mjlog_file",
    "replay_events",
    "replay_source",
    "to_mjai",
    "to_tenhou6",
    "write_mjai",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'mjcore.engine' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
