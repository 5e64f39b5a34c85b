"""What one seat may see: its own hand and the public state of the table.

A :class:`PlayerView` is a read-only window on the referee for one seat. It exposes the seat's
own closed tiles and everything public (melds, rivers, riichi, scores, dora indicators, wall
size); it never exposes another seat's closed tiles or the wall's order.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .events import Event

if TYPE_CHECKING:
    from .round import CalledSet, RiichiRound


class PlayerView:
    """What one seat may see: its own hand and the public state (rivers, melds, riichi,
    scores, dora indicators, tiles left), read from the referee without its hidden parts."""

    __slots__ = ("_events", "_round", "seat")

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self._round: RiichiRound | None = None
        self._events: list[Event] = []

    def _attach(self, rnd: RiichiRound, events: list[Event]) -> None:
        self._round = rnd
        self._events = events

    def _r(self) -> RiichiRound:
        if self._round is None:
            raise RuntimeError("the view is not attached to a hand yet")
        return self._round

    # own hand
    @property
    def hand(self) -> list[int]:
        """Own closed tiles (136-ids)."""
        return list(self._r().hands[self.seat])

    @property
    def counts(self) -> list[int]:
        """Own closed tiles as 34 counts."""
        return list(self._r().counts[self.seat])

    def ukeire(self) -> tuple[int, list[int], list[int]]:
        """For own 14-3k hand: (best shanten after a discard, shanten after discarding each
        kind (127 if not held), advancing-kind mask after each discard)."""
        return self._r().ukeire(self.seat)

    @property
    def n_melds(self) -> int:
        """Number of this seat's called melds (kans included)."""
        return len(self._r().melds[self.seat])

    @property
    def in_riichi(self) -> bool:
        """Whether this seat has declared riichi."""
        return self._r().riichi[self.seat]

    # public state
    def melds(self, seat: int) -> list[CalledSet]:
        """The melds ``seat`` has called."""
        return list(self._r().melds[seat])

    def river(self, seat: int) -> list[int]:
        """``seat``'s discards (136-ids), in order, called tiles removed."""
        return list(self._r().rivers[seat])

    def riichi(self, seat: int) -> bool:
        """Whether ``seat`` has declared riichi."""
        return self._r().riichi[seat]

    @property
    def scores(self) -> list[int]:
        """Every seat's points now."""
        return list(self._r().scores)

    @property
    def players(self) -> int:
        """The seat count: 4, or 3 for three-player riichi (no 2m-8m in its wall)."""
        return self._r().n_seats

    @property
    def dealer(self) -> int:
        """The dealer's seat."""
        return self._r().dealer

    @property
    def round_wind(self) -> int:
        """The round wind: 0 East, 1 South, 2 West, 3 North."""
        return self._r().round_wind

    @property
    def dora_indicators(self) -> list[int]:
        """The dora indicators turned so far (136-ids)."""
        return self._r().wall.dora_indicators

    @property
    def tiles_left(self) -> int:
        """Tiles left to draw from the live wall."""
        return self._r().wall.remaining

    def kita(self, seat: int) -> list[int]:
        """The norths ``seat`` has set aside (three players, nukidora)."""
        return list(self._r().kita[seat])

    def visible_counts(self) -> list[int]:
        """Counts of the tiles this seat can see: own hand, every river, meld and north set
        aside, indicators."""
        rnd = self._r()
        seen = list(rnd.counts[self.seat])
        for s in range(rnd.n_seats):
            for t in rnd.rivers[s]:
                seen[t >> 2] += 1
            for m in rnd.melds[s]:
                for t in m.tiles:
                    seen[t >> 2] += 1
            seen[30] += len(rnd.kita[s])
        for t in rnd.wall.dora_indicators:
            seen[t >> 2] += 1
        return seen

    def events(self) -> list[Event]:
        """The record so far as this seat saw it (other seats' draws and hands hidden)."""
        return [mask_event(ev, self.seat) for ev in self._events]


def mask_event(ev: Event, seat: int) -> Event:
    """``ev`` as ``seat`` sees it: other players' draws and starting hands hidden."""
    t = ev["type"]
    if t == "tsumo" and ev["actor"] != seat:
        out = dict(ev)
        out["pai"] = -1
        return out
    if t == "start_kyoku":
        out = dict(ev)
        out["tehais"] = [h if s == seat else [-1] * len(h) for s, h in enumerate(ev["tehais"])]
        return out
    return ev
