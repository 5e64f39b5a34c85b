"""The riichi game engine: seeded walls, a referee with legal actions, agents that see only
their own view, game records (mjai JSON lines, tenhou.net/6 export) and replay of Tenhou
mjlog records.

Layout (the Chinese classical engine reuses the turn machinery pieces):

- :mod:`.wall` ring wall model and seeded shuffle; :mod:`.events` record events and mjai
  tile names; :mod:`.actions` the sorted legal actions; :mod:`.view` a seat's view;
  :mod:`.agents` built-in agents; :mod:`.mjai` agents in another process;
- :mod:`.round` the riichi referee of one hand (ruleset-specific); :mod:`.game` hand after
  hand, end of game, uma/oka; :mod:`.replay` record-driven replay and checks;
  :mod:`.tenhou` mjlog reader and tenhou.net/6 export; :mod:`.invariants` conformance checks.

    >>> from mjcore.engine import play_game, EfficiencyAgent, RandomAgent
    >>> res = play_game([EfficiencyAgent(), RandomAgent(1), RandomAgent(2), RandomAgent(3)],
    ...                 seed=7)
    >>> sum(res.scores)
    100000
"""
from __future__ import annotations

from .actions import Action, ActionType
from .agents import Agent, EfficiencyAgent, RandomAgent, TsumogiriAgent, make_agent
from .events import from_mjai_lines, to_mjai, write_mjai
from .game import Game, GameResult, final_points, play_game, ranking
from .invariants import InvariantChecker, InvariantError, check_game
from .replay import ReplayReport, replay_events, replay_source
from .round import EngineError, RiichiRound, RoundResult
from .tenhou import read_mjlog, read_mjlog_file, to_tenhou6
from .view import PlayerView
from .wall import Wall

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
