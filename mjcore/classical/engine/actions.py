"""The actions, declared sets and hand results of the Chinese classical referee
(:mod:`.referee`): what a seat may do, what it declared, and how a hand ended.

Seats are 0 = East .. 3 = North of this hand; tiles are codes (0..33 kinds, 34..41 bonus).
"""
from __future__ import annotations

from collections.abc import Callable
from enum import IntEnum
from functools import lru_cache
from typing import NamedTuple

from ...melds import Meld, MeldKind
from .handcalc import USE_NAMES


class ActionType(IntEnum):
    """The kinds of classical action (see the member comments)."""
    DISCARD = 0
    ORIGINAL_CALL = 1     # discard declaring Original Call (first discard, hand fishing)
    MAHJONG = 2           # Mah-Jong on one's own draw
    CONCEALED_KONG = 3
    ADD_KONG = 4          # add a drawn tile to an exposed pung
    PASS = 5
    CHOW = 6              # claims on a discard (form: which place the discard takes)
    PUNG = 7
    KONG = 8
    MAHJONG_CLAIM = 9     # Mah-Jong on a discard or a robbed kong (form: the tile's use)
    FISHING = 10          # discard announcing "fishing" (the rules' fishing_call option)


class Action(NamedTuple):
    """One legal action of a seat: its ``type``, the tile code it acts on (-1 for none) and
    the ``form`` (a chow's place or how a Mah-Jong claim uses the tile; -1 for none).
    """
    type: ActionType
    tile: int = -1
    form: int = -1        # chow: 0 lower, 1 middle, 2 upper; Mah-Jong claim: USE_* of handcalc

    def __str__(self) -> str:
        from .records import code_name

        parts = [self.type.name.lower()]
        if self.tile >= 0:
            parts.append(code_name(self.tile))
        if self.form >= 0:
            parts.append(USE_NAMES[self.form])
        return " ".join(parts)


PASS = Action(ActionType.PASS)
DISCARD, ORIGINAL_CALL, MAHJONG, CONCEALED_KONG, ADD_KONG = (
    ActionType.DISCARD, ActionType.ORIGINAL_CALL, ActionType.MAHJONG,
    ActionType.CONCEALED_KONG, ActionType.ADD_KONG)
CHOW, PUNG, KONG, MAHJONG_CLAIM = (ActionType.CHOW, ActionType.PUNG, ActionType.KONG,
                                   ActionType.MAHJONG_CLAIM)
FISHING = ActionType.FISHING

Decider = Callable[[int, list[Action]], Action]

_CHI, _KAN_CLOSED = MeldKind.CHI, MeldKind.KAN_CLOSED


class CalledSet(NamedTuple):
    """A set a seat declared: its ``kind`` (a :class:`~mjcore.melds.MeldKind`: CHI a chow, PON
    a pung, KAN_OPEN, KAN_CLOSED or KAN_ADDED a kong: exposed, concealed, or a pung the player
    added a drawn tile to), ``tile`` its lowest tile and ``claimed_from`` the seat whose discard
    it took (-1 for a concealed kong)."""

    kind: MeldKind
    tile: int
    claimed_from: int = -1

    @property
    def tiles(self) -> tuple[int, ...]:
        """The set's tile kinds: three in a row for a chow, else its tile three or four times."""
        t = self.tile
        return (t, t + 1, t + 2) if self.kind == _CHI else (t,) * self.kind.size

    def meld(self, seat: int) -> Meld:
        """The set as the shared :class:`mjcore.melds.Meld` of ``seat`` (who declared it);
        its called tile is the lowest."""
        rel = (self.claimed_from - seat) % 4 if self.claimed_from >= 0 else 3
        return _meld_of(self.kind, self.tile, rel)


@lru_cache(maxsize=1024)
def _meld_of(kind: MeldKind, tile: int, rel: int) -> Meld:
    """The shared Meld of a set of ``kind`` from ``tile`` called from relative seat ``rel``
    (Melds are immutable, so one value serves every hand)."""
    tiles = CalledSet(kind, tile).tiles
    if kind == _KAN_CLOSED:
        return Meld(kind, tiles)
    return Meld(kind, tiles, tile, rel)


class WinInfo(NamedTuple):
    """How a Mah-Jong was made: the winner, the winning tile and its source."""

    seat: int
    tile: int
    discarder: int              # -1 when self-drawn
    use: int                    # how a claimed tile is used (USE_*), -1 when self-drawn
    loose: bool                 # the winning tile was a loose (replacement) tile
    kongs_in_a_row: int         # successive kongs before a loose-tile win (Kong upon Kong: >= 2)
    last_tile: bool             # self-drawn when the live wall is empty (its last tile, or a
                                # loose tile after it)
    last_discard: bool          # a discard made after the live wall ran out
    robbed_kong: bool
    heaven: bool                # East with his dealt hand
    earth: bool                 # on East's first discard
    original_call: bool


class HandResult(NamedTuple):
    """The end of a hand: ``wins`` (empty on a wash-out) and each seat's final tiles."""

    wins: tuple[WinInfo, ...]
    concealed: tuple[tuple[int, ...], ...]     # 34 counts by seat (the winner's 14+ included)
    melds: tuple[tuple[CalledSet, ...], ...]
    bonus: tuple[tuple[int, ...], ...]         # bonus tile codes by seat, in declaration order
    discards: tuple[tuple[int, ...], ...]      # by seat: the discards nobody claimed

    @property
    def washout(self) -> bool:
        """True when nobody went Mah-Jong."""
        return not self.wins
