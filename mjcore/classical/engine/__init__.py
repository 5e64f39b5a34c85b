"""The Chinese classical game engine (chinese-classical.md §2-§10, §12-§13).

- :mod:`.wall` the 144-tile wall (136 without bonus tiles): break, dead wall, loose tiles,
  seeded shuffle;
- :mod:`.referee` one hand: deal, bonus tiles, turns, claims, kongs, robbing, Original Call,
  fishing, minimum doubles, wash-out; it offers sorted legal actions to a decider. Its
  sections, on the hand's state (:mod:`.hand_state`): :mod:`.bonus_tiles`, :mod:`.mahjong`,
  :mod:`.claims`, :mod:`.kongs`; its actions, sets and results: :mod:`.actions`;
- :mod:`.view` what one seat sees; :mod:`.agents` random, efficiency, and a program in
  another process over JSON lines;
- :mod:`.game` a full game: seating, scoring and settlement (:mod:`mjcore.classical.scoring`),
  dealer rotation, rounds, letting off a cannon;
- :mod:`.records` JSON-lines records that replay to the same game; :mod:`.invariants` the
  conformance checks of ``mjcore play --check-invariants``;
- :mod:`.bradfield` replay of Bradfield's ``mj-server`` hand histories through the referee
  and the scorer (the commands, ``mjcore play --rules classical`` and ``mjcore replay``, are
  in :mod:`mjcore.cli`).

    >>> from mjcore.classical.engine.agents import EfficiencyAgent
    >>> from mjcore.classical.engine.game import play_game
    >>> r = play_game([EfficiencyAgent() for _ in range(4)], seed=7)
    >>> sum(r.scores), len(r.hands) >= 16
    (8000, True)
"""
from __future__ import annotations

from .referee import (
    Action,
    ActionType,
    CalledSet,
    ClassicalHand,
    EngineError,
    HandResult,
    WinInfo,
)
from .wall import ClassicalWall

__all__ = ["Action", "ActionType", "CalledSet", "ClassicalHand", "ClassicalWall", "EngineError",
           "HandResult", "WinInfo"]
