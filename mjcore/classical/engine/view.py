"""What one seat may see of a classical hand: its own concealed tiles and everything public.

A :class:`ClassicalView` is a read-only window on the referee for one seat: own tiles, every
seat's declared sets, bonus tiles and discards, the wall's size, the prevailing wind, the
scores. It never exposes another seat's concealed tiles or the wall's order.
"""
from __future__ import annotations

from operator import add, sub
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .referee import CalledSet, ClassicalHand

Event = dict[str, Any]
_FOUR = (4,) * 34


class ClassicalView:
    """What one seat may see of a hand (see the module text); ``attach`` binds it to one."""
    __slots__ = ("_hand", "scores", "seat")

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self._hand: ClassicalHand | None = None
        self.scores: list[int] = [0, 0, 0, 0]    # by seat of the current hand, before it

    def attach(self, hand: ClassicalHand, scores: list[int] | None = None) -> None:
        """Look at ``hand`` (the referee) from now on; ``scores``: the seats' scores before it."""
        self._hand = hand
        if scores is not None:
            self.scores = list(scores)

    def _h(self) -> ClassicalHand:
        if self._hand is None:
            raise RuntimeError("the view is not attached to a hand yet")
        return self._hand

    # own hand
    @property
    def counts(self) -> bytearray:
        """Own concealed tiles as 34 counts (a copy)."""
        return bytearray(self._h().counts[self.seat])

    @property
    def n_sets(self) -> int:
        """Number of sets this seat has declared."""
        return len(self._h().melds[self.seat])

    @property
    def forms(self) -> int:
        """The rules' winning forms, as the kernels take them (see ``winning_forms``)."""
        return self._h().forms

    # public state
    def melds(self, seat: int) -> list[CalledSet]:
        """The sets ``seat`` has declared (a copy)."""
        return list(self._h().melds[seat])

    def bonus(self, seat: int) -> list[int]:
        """The bonus tile codes ``seat`` has declared (a copy)."""
        return list(self._h().bonus[seat])

    def discards(self, seat: int) -> list[int]:
        """The discards of ``seat`` still on the table (claimed ones left it; a copy)."""
        return list(self._h().discards[seat])

    @property
    def prevailing(self) -> int:
        """The prevailing wind (0 East .. 3 North)."""
        return self._h().prevailing

    @property
    def live_remaining(self) -> int:
        """Tiles left to draw in the live wall."""
        return self._h().wall.live_remaining

    def visible_counts(self) -> list[int]:
        """Counts of the tiles this seat can see: own hand, discards and declared sets."""
        h = self._h()
        return list(map(add, h.counts[self.seat], h.public))

    def unseen_counts(self) -> list[int]:
        """4 minus :meth:`visible_counts`: the copies of each kind this seat cannot see."""
        h = self._h()
        return list(map(sub, map(sub, _FOUR, h.public), h.counts[self.seat]))


def mask_event(ev: Event, seat: int) -> Event:
    """The event as ``seat`` sees it: other seats' draws, loose tiles and dealt tiles hidden."""
    t = ev["type"]
    if (t == "draw" or t == "loose") and ev["seat"] != seat:
        out = dict(ev)
        out["tile"] = -1
        return out
    if t == "deal":
        out = dict(ev)
        out["hands"] = [h if s == seat else [-1] * len(h) for s, h in enumerate(ev["hands"])]
        return out
    if t == "start_hand":
        out = dict(ev)
        out.pop("wall", None)
        out.pop("tail", None)
        return out
    return ev
