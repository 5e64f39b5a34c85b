"""The deal, bonus tiles and loose tiles of a classical hand (chinese-classical.md §3.3, §4.1,
§5.2, §6.2).

A bonus tile, dealt or drawn, is declared at once and replaced, from the live wall or by a
loose tile (``bonus_replacement``), again while the replacement is a bonus tile; after the deal
East, South, West and North replace theirs in turn. A kong's replacement is a loose tile.
"""
from __future__ import annotations

from .hand_state import HandState
from .wall import BONUS_BASE


class BonusTiles(HandState):
    """The deal and the bonus-tile and loose-tile draws of a hand (see the module text)."""

    def deal(self) -> None:
        """Deal the four hands (a ``deal`` event), then declare and replace each seat's bonus
        tiles, East first.
        """
        hands = self.wall.deal()
        self.emit({"type": "deal", "hands": [list(h) for h in hands]})
        for seat in range(4):
            c = self.counts[seat]
            for t in hands[seat]:
                if t < BONUS_BASE:
                    c[t] += 1
        self.east_last = [t for t in hands[0] if t < BONUS_BASE][-1]
        # bonus tiles exposed and replaced: East, South, West, North (§4.1), each seat's in
        # the order dealt, a bonus replacement after them
        for seat in range(4):
            queue = [t for t in hands[seat] if t >= BONUS_BASE]
            while queue:
                t = queue.pop(0)
                rep = self._declare_bonus(seat, t)
                if rep >= BONUS_BASE:
                    queue.append(rep)
                elif rep >= 0:
                    self.counts[seat][rep] += 1
                    if seat == 0:
                        self.east_last = rep
        for seat in range(1, 4):
            self._update_waits(seat)

    def _declare_bonus(self, seat: int, tile: int) -> int:
        """Declare a bonus tile and draw its replacement (the live wall or a loose tile, by
        ``bonus_replacement``); -1 when no tile is left."""
        wall = self.wall
        self.bonus[seat].append(tile)
        self.emit({"type": "bonus", "seat": seat, "tile": tile})
        if not self.loose_from_bonus and wall.live_remaining:
            tile = wall.draw()
            self.emit({"type": "draw", "seat": seat, "tile": tile})
            self.last_loose = False
        elif wall.loose_remaining:
            tile = wall.draw_loose()
            self.emit({"type": "loose", "seat": seat, "tile": tile})
            self.last_loose = True
        else:
            return -1
        return tile

    def _replace_bonus(self, seat: int, tile: int) -> tuple[int, bool]:
        """Declare the bonus tile just drawn and replace it (again while the replacement is a
        bonus tile). Returns (the first non-bonus tile or -1, it was a loose tile)."""
        while tile >= BONUS_BASE:
            tile = self._declare_bonus(seat, tile)
        return tile, self.last_loose

    def _draw_loose(self, seat: int) -> tuple[int, bool]:
        """A loose tile for a kong, its bonus tiles replaced: (the tile or -1, it was a loose
        tile)."""
        tile = self.wall.draw_loose()
        self.emit({"type": "loose", "seat": seat, "tile": tile})
        if tile >= BONUS_BASE:
            return self._replace_bonus(seat, tile)
        return tile, True
