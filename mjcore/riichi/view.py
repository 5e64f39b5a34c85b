"""What one seat may see: its own hand and the public state of the table.

A :class:`PlayerView` is a read-only window on the referee for one seat. It exposes the seat's
own closed tiles and everything public (melds, rivers, riichi, scores, dora indicators, wall
size); it never exposes another seat's closed tiles or the wall's order. Its events hide other
seats' draws and starting hands (:data:`MASKING`).
"""
from __future__ import annotations

from ..engine.view import Hidden, Masking, SeatView
from .round import CalledSet, RiichiRound

MASKING: Masking = {
    "tsumo": Hidden(actor="actor", field="pai"),      # another seat's draw
    "start_kyoku": Hidden(per_seat="tehais"),         # the other seats' starting hands
}


class PlayerView(SeatView[RiichiRound]):
    """What one seat may see: its own hand and the public state (rivers, melds, riichi,
    scores, dora indicators, tiles left), read from the referee without its hidden parts."""

    __slots__ = ()
    masking = MASKING

    # own hand
    @property
    def hand(self) -> list[int]:
        """Own closed tiles (136-ids)."""
        return list(self._referee().hands[self.seat])

    @property
    def counts(self) -> list[int]:
        """Own closed tiles as 34 counts."""
        return list(self._referee().counts[self.seat])

    def ukeire(self) -> tuple[int, list[int], list[int]]:
        """For own 14-3k hand: (best shanten after a discard, shanten after discarding each
        kind (127 if not held), advancing-kind mask after each discard)."""
        return self._referee().ukeire(self.seat)

    @property
    def n_melds(self) -> int:
        """Number of this seat's called melds (kans included)."""
        return len(self._referee().melds[self.seat])

    @property
    def in_riichi(self) -> bool:
        """Whether this seat has declared riichi."""
        return self._referee().riichi[self.seat]

    # public state
    def melds(self, seat: int) -> list[CalledSet]:
        """The melds ``seat`` has called."""
        return list(self._referee().melds[seat])

    def river(self, seat: int) -> list[int]:
        """``seat``'s discards (136-ids), in order, called tiles removed."""
        return list(self._referee().rivers[seat])

    def riichi(self, seat: int) -> bool:
        """Whether ``seat`` has declared riichi."""
        return self._referee().riichi[seat]

    @property
    def scores(self) -> list[int]:
        """Every seat's points now."""
        return list(self._referee().scores)

    @property
    def players(self) -> int:
        """The seat count: 4, or 3 for three-player riichi (no 2m-8m in its wall)."""
        return self._referee().n_seats

    @property
    def dealer(self) -> int:
        """The dealer's seat."""
        return self._referee().dealer

    @property
    def round_wind(self) -> int:
        """The round wind: 0 East, 1 South, 2 West, 3 North."""
        return self._referee().round_wind

    @property
    def dora_indicators(self) -> list[int]:
        """The dora indicators turned so far (136-ids)."""
        return self._referee().wall.dora_indicators

    @property
    def tiles_left(self) -> int:
        """Tiles left to draw from the live wall."""
        return self._referee().wall.remaining

    def kita(self, seat: int) -> list[int]:
        """The norths ``seat`` has set aside (three players, nukidora)."""
        return list(self._referee().kita[seat])

    def visible_counts(self) -> list[int]:
        """Counts of the tiles this seat can see: own hand, every river, meld and north set
        aside, indicators."""
        rnd = self._referee()
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
