"""The game machinery both referees use; it imports no game. Each game's engine is its own:
riichi's in :mod:`mjcore.riichi` (``round``, ``game``, ``view``, ``agents``, ``mjai``, the records),
Chinese classical's in :mod:`mjcore.classical.engine`.

- :mod:`.turns` the turn machinery: asking a seat, claims on a discard ranked as data, robbing a
  kong, the draw/turn/discard/claims cycle, :class:`EngineError`;
- :mod:`.table` the table: agents seated with their views, each choice routed to its seat's
  agent, masked events to the observers; the game loop with its ``max_hands`` bound;
- :mod:`.view` the base of a seat's view, and the masking of events driven by each game's
  table of what an event hides;
- :mod:`.agents` the seeded random agent and the machinery of an agent in another process;
- :mod:`.invariants` the conformance harness: a seeded game checked after every event, played
  again for determinism, its record written, read back and replayed;
- :mod:`.handcalc` a hand's 34 counts handed to the compiled shanten and decomposition kernels;
- :mod:`.seeds` the seed of one hand's shuffle;
- :mod:`.sources` the record files under the given paths, with their size limit.
"""
from __future__ import annotations

from .agents import RandomAgent
from .turns import EngineError

__all__ = ["EngineError", "RandomAgent"]
