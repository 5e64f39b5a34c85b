"""What one seat may see of a classical hand: its own concealed tiles and everything public.

A :class:`ClassicalView` is a read-only window on the referee for one seat: own tiles, every
seat's declared sets, bonus tiles and discards, the wall's size, the prevailing wind, the
scores. It never exposes another seat's concealed tiles or the wall's order; its events hide
other seats' draws, loose tiles and dealt tiles, and the wall (:data:`MASKING`).
"""
from __future__ import annotations

from operator import add, sub

from ...engine.view import Hidden, Masking, SeatView
from .referee import CalledSet, ClassicalHand

_FOUR = (4,) * 34
MASKING: Masking = {
    "draw": Hidden(actor="seat", field="tile"),          # another seat's draw
    "loose": Hidden(actor="seat", field="tile"),         # another seat's loose tile
    "deal": Hidden(per_seat="hands"),                    # the other seats' dealt tiles
    "start_hand": Hidden(dropped=("wall", "tail")),      # the wall's order
}


class ClassicalView(SeatView[ClassicalHand]):
    """What one seat may see of a hand (see the module text); the game attaches it to each
    hand and sets ``scores``, the seats' scores before it."""

    __slots__ = ("scores",)
    masking = MASKING

    def __init__(self, seat: int) -> None:
        super().__init__(seat)
        self.scores: list[int] = [0, 0, 0, 0]    # by seat of the current hand, before it

    # own hand
    @property
    def counts(self) -> bytearray:
        """Own concealed tiles as 34 counts (a copy)."""
        return bytearray(self._referee().counts[self.seat])

    @property
    def n_sets(self) -> int:
        """Number of sets this seat has declared."""
        return len(self._referee().melds[self.seat])

    @property
    def forms(self) -> int:
        """The rules' winning forms, as the kernels take them (see ``winning_forms``)."""
        return self._referee().forms

    # public state
    def melds(self, seat: int) -> list[CalledSet]:
        """The sets ``seat`` has declared (a copy)."""
        return list(self._referee().melds[seat])

    def bonus(self, seat: int) -> list[int]:
        """The bonus tile codes ``seat`` has declared (a copy)."""
        return list(self._referee().bonus[seat])

    def discards(self, seat: int) -> list[int]:
        """The discards of ``seat`` still on the table (claimed ones left it; a copy)."""
        return list(self._referee().discards[seat])

    @property
    def prevailing(self) -> int:
        """The prevailing wind (0 East .. 3 North)."""
        return self._referee().prevailing

    @property
    def live_remaining(self) -> int:
        """Tiles left to draw in the live wall."""
        return self._referee().wall.live_remaining

    def visible_counts(self) -> list[int]:
        """Counts of the tiles this seat can see: own hand, discards and declared sets."""
        h = self._referee()
        return list(map(add, h.counts[self.seat], h.public))

    def unseen_counts(self) -> list[int]:
        """4 minus :meth:`visible_counts`: the copies of each kind this seat cannot see."""
        h = self._referee()
        return list(map(sub, map(sub, _FOUR, h.public), h.counts[self.seat]))
