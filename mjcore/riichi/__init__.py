"""Riichi (Japanese) mahjong, its rules and its engine in one room.

- the rules: the options and presets (``rules``), dora (``dora``), scoring of one hand
  (``scoring``) and of many (``batch_scoring``), what to discard (``expected``,
  ``batch_expected``);
- the referee of one hand (``round``, with its ``state``, ``legal`` actions and ``settlement``)
  and the game (``game``: hand after hand, the final ranking), over ``actions``, ``events``,
  ``wall``, a seat's ``view``, the built-in ``agents``, ``mjai`` agents in another process and
  the ``invariants`` checked as a game runs;
- the records: Tenhou's ``mjlog``, ``tenhou6`` JSON, and ``replay``, which plays a record back
  through the referee and checks it.

What both games share lives at the top of ``mjcore`` (tiles, hands, shanten, waits, ukeire,
decomposition, the batch machinery and errors) and in :mod:`mjcore.engine` (the turn machinery,
the agents' plumbing, the record sources).
"""
