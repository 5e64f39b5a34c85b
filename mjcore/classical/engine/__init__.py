"""The Chinese classical game engine (chinese-classical.md §2-§10, §12-§13).

- :mod:`.wall` the 144-tile wall: break, dead wall, loose tiles, seeded shuffle;
- :mod:`.referee` one hand: deal, bonus tiles, turns, claims, kongs, robbing, wash-out;
- :mod:`.handcalc` the classical winning forms on the shared shanten kernels;
- :mod:`.records` JSON-lines records;
- :mod:`.bradfield` replay of Bradfield's ``mj-server`` hand histories through the referee.
"""
from __future__ import annotations

from .referee import Action, ActionType, ClassicalHand, EngineError, HandResult, Meld, WinInfo
from .wall import ClassicalWall

__all__ = ["Action", "ActionType", "ClassicalHand", "ClassicalWall", "EngineError",
           "HandResult", "Meld", "WinInfo"]
