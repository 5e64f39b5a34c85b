"""Actions a player can take, offered by the referee as a sorted list of legal choices.

An :class:`Action` is a small immutable tuple ``(type, tile, consumed, tsumogiri)``. Tiles are
136-ids: ``tile`` is the discarded, called, added or winning tile (-1 when there is none) and
``consumed`` the tiles taken from the hand for a call. Two actions that differ only in which
physical copy of a non-red tile they use are the same choice; the referee offers one of them.
"""
from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

from .events import MJAI_NAMES, tile_class


class ActionType(IntEnum):
    """The kinds of choice the referee offers; legal actions sort by this value."""

    DISCARD = 0
    RIICHI = 1          # riichi declared with this discard
    TSUMO = 2
    ANKAN = 3
    KAKAN = 4
    KYUUSHU = 5         # abortive draw: nine terminal and honor kinds
    RON = 6
    PON = 7
    DAIMINKAN = 8
    CHI = 9
    TENPAI = 10         # show a tenpai hand at an exhaustive draw (tenpai_declaration=optional)
    PASS = 11           # pass, or keep the hand hidden (noten) at an exhaustive draw
    KITA = 12           # three players: set a north aside (nukidora), then a replacement draw


class Action(NamedTuple):
    """One legal action of a seat: ``type``, the ``tile`` it acts on (136-id, -1 for none), the
    tiles ``consumed`` from the hand by a call, and whether a discard is ``tsumogiri``.
    """
    type: ActionType
    tile: int = -1
    consumed: tuple[int, ...] = ()
    tsumogiri: bool = False

    def key(self) -> tuple[int, int, tuple[int, ...], bool]:
        """Identity for the rules: tile copies that are not red are interchangeable."""
        return (self.type, tile_class(self.tile) if self.tile >= 0 else -1,
                tuple(sorted(tile_class(t) for t in self.consumed)), self.tsumogiri)

    def __str__(self) -> str:
        name = self.type.name.lower()
        parts = [name]
        if self.tile >= 0:
            parts.append(MJAI_NAMES[self.tile])
        if self.consumed:
            parts.append("+" + ",".join(MJAI_NAMES[t] for t in self.consumed))
        if self.tsumogiri:
            parts.append("(tsumogiri)")
        return " ".join(parts)


PASS = Action(ActionType.PASS)

# Shared instances of the discard actions (no allocation in the hot loop):
# DISCARD_ACTIONS[tsumogiri][tile], RIICHI_ACTIONS[tsumogiri][tile].
DISCARD_ACTIONS = tuple(tuple(Action(ActionType.DISCARD, t, (), g) for t in range(136))
                        for g in (False, True))
RIICHI_ACTIONS = tuple(tuple(Action(ActionType.RIICHI, t, (), g) for t in range(136))
                       for g in (False, True))
TILE_CLASS = tuple(tile_class(t) for t in range(136))
DISCARD, RIICHI, TSUMO, ANKAN, KAKAN, KYUUSHU, RON, PON, DAIMINKAN, CHI, TENPAI, KITA = (
    ActionType.DISCARD, ActionType.RIICHI, ActionType.TSUMO, ActionType.ANKAN,
    ActionType.KAKAN, ActionType.KYUUSHU, ActionType.RON, ActionType.PON,
    ActionType.DAIMINKAN, ActionType.CHI, ActionType.TENPAI, ActionType.KITA)
