"""Riichi's built-in agents: they see only their seat's :class:`~.view.PlayerView` and pick one
of the legal actions.

The protocol is one method, ``choose(view, actions) -> Action``; ``actions`` is sorted and
never empty. An agent may also define ``observe(event)`` to receive every event of its view
(other seats' draws hidden), ``close()``, and ``chooser(view)``: a callable ``actions ->
Action`` that does what ``choose(view, actions)`` does, which the turn loop then calls directly.
The random agent and the out-of-process machinery are both games' (:mod:`mjcore.engine.agents`);
``mjai:COMMAND`` agents are :mod:`.mjai`'s.
"""
from __future__ import annotations

from itertools import compress
from typing import Protocol

from ..engine.agents import RandomAgent
from .actions import DISCARD, KITA, PASS, RIICHI, RON, TENPAI, TSUMO, Action
from .view import PlayerView

__all__ = ["Agent", "EfficiencyAgent", "RandomAgent", "TsumogiriAgent", "make_agent"]


class Agent(Protocol):
    """What the referee asks of a player: one of the sorted legal ``actions``, given the seat's
    ``view``. An agent may also offer ``observe(event)`` and ``chooser(view)``."""

    def choose(self, view: PlayerView, actions: list[Action]) -> Action:
        """The chosen action (one of ``actions``)."""
        ...


class TsumogiriAgent:
    """Discards every drawn tile, never calls or wins, and keeps its hand hidden at a draw
    when showing it is optional."""

    name = "tsumogiri"

    def choose(self, view: PlayerView, actions: list[Action]) -> Action:
        """The drawn tile's discard, else a pass, else the first discard."""
        for a in actions:
            if a.type == DISCARD and a.tsumogiri:
                return a
        for a in actions:
            if a.type == PASS.type:
                return a
        for a in actions:
            if a.type == DISCARD:
                return a
        return actions[0]


class EfficiencyAgent:
    """Wins when it can, declares riichi when tenpai, otherwise discards the tile that keeps
    the lowest shanten with the most unseen advancing tiles (ukeire). Never calls; shows its
    tenpai hand at a draw. With three players it sets a north aside (nukidora: a dora and a
    replacement draw) whenever the hand does not need it: in riichi, or when discarding the
    north would not raise its shanten."""

    name = "efficiency"

    def choose(self, view: PlayerView, actions: list[Action]) -> Action:
        """A win, a north set aside, a riichi, or the discard with the best shanten and
        ukeire."""
        discards = []
        riichis = []
        kita = None
        for a in actions:
            t = a.type
            if t in (TSUMO, RON, TENPAI):
                return a
            if t == RIICHI:
                riichis.append(a)
            elif t == DISCARD:
                discards.append(a)
            elif t == KITA:
                kita = a
        if kita is not None:
            if view.in_riichi:
                return kita
            best_shanten, after_discard, _ = view.ukeire()
            if after_discard[kita.tile >> 2] <= best_shanten:
                return kita
        options = riichis or discards
        if not options:
            for a in actions:
                if a.type == PASS.type:
                    return a
            return actions[0]
        if len(options) == 1:
            return options[0]
        _, after, masks = view.ukeire()
        rem = [4 - n for n in view.visible_counts()]
        if view.players == 3:
            rem[1:8] = _NO_TILES          # 2m-8m are not in a three-player wall
        unseen_of: dict[int, int] = {}       # advancing mask -> unseen tiles (masks repeat)
        best = None
        best_key = None
        for a in options:
            k = a.tile >> 2
            mask = masks[k]
            unseen = unseen_of.get(mask)
            if unseen is None:
                # the mask as bytes 0/1 (kind 0 first) selects the kinds to count
                bits = (_BITS9[mask & 511] + _BITS9[(mask >> 9) & 511]
                        + _BITS9[(mask >> 18) & 511] + _BITS9[mask >> 27])
                unseen = unseen_of[mask] = sum(compress(rem, bits))
            # lower shanten, more tiles, then outer tiles (honors, terminals) first
            key = (after[k], -unseen, _OUTER[k], not a.tsumogiri, a.tile)
            if best_key is None or key < best_key:
                best, best_key = a, key
        return best  # type: ignore[return-value]


_BITS9 = tuple(bytes((m >> i) & 1 for i in range(9)) for m in range(512))
_NO_TILES = [0] * 7
# discard order among equals: honors, then terminals, then the rest
_OUTER = tuple(0 if k >= 27 else (1 if k % 9 in (0, 8) else 2) for k in range(34))

AGENTS = {"random": RandomAgent, "tsumogiri": TsumogiriAgent, "efficiency": EfficiencyAgent}


def make_agent(name: str, seed: int = 0) -> Agent:
    """An agent by name: ``random``, ``tsumogiri``, ``efficiency`` or ``mjai:COMMAND``."""
    from ..errors import MjcoreError

    if name.startswith("mjai:"):
        from .mjai import MjaiAgent

        return MjaiAgent(name[5:])
    if name == "random":
        return RandomAgent(seed)
    if name in AGENTS:
        return AGENTS[name]()  # type: ignore[no-any-return]
    raise MjcoreError(f"unknown agent {name!r}; expected one of {', '.join(AGENTS)} "
                      "or mjai:COMMAND")
