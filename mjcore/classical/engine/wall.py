"""The classical wall: 144 tiles, the break, the dead wall and the loose tiles (§3, §3.5).

A :class:`ClassicalWall` keeps the tiles in one *drawing sequence* ``tiles[0..143]``: the live
wall is read from the front (the deal is ``tiles[0..52]``), and every replacement (loose) tile
is taken at the position ``tail[n]`` for the n-th replacement of the hand. How many of the
untaken tiles belong to the dead wall (and so may not be drawn from the front) depends on the
``dead_wall`` option and on how many replacements were taken:

- ``14_unreplenished``: ``max(0, 14 - n)``; after the 14 dead tiles, replacements come from the
  far end of the live wall (§3.3);
- ``14_replenished``: ``14 - n % 2`` (the dead wall is kept at 13 or 14: when both loose tiles
  are gone, the last live stack moves onto it, §3.4);
- ``16_unreplenished``: ``max(0, 16 - n)`` (Millington);
- ``none``: 0 (every tile may be drawn).

Tiles are codes: 0..33 the kinds of :mod:`mjcore.tiles`, 34..41 the bonus tiles ``1f``..``8f``.
Without bonus tiles (the rules' ``bonus_tiles`` off) the wall is 136 tiles, 17 stacks a side.
A seeded wall is shuffled from a hash of (game seed, hand index), so any hand replays alone.
"""
from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter
from typing import Any

import numpy as np

from ...engine.seeds import hand_seed
from ...errors import InvalidHandError

N_CODES = 42
N_TILES = 144            # 136 when the rules play without bonus tiles (``bonus_tiles``)
DEAL_SIZE = 53
BONUS_BASE = 34
FULL_SET = tuple(sorted([k for k in range(34) for _ in range(4)] + list(range(34, 42))))
FULL_SET_136 = FULL_SET[:136]
_FULL_SETS = {144: list(FULL_SET), 136: list(FULL_SET_136)}

DEAD_WALL_SIZES = {"14_unreplenished": 14, "14_replenished": 14, "16_unreplenished": 16,
                   "none": 0}


def _dead_sizes(kind: str) -> tuple[int, ...]:
    n = DEAD_WALL_SIZES[kind]
    if kind == "14_replenished":
        return tuple(n - (b & 1) for b in range(N_TILES + 1))
    return tuple(n - b if b < n else 0 for b in range(N_TILES + 1))


_DEAD_SIZES = {kind: _dead_sizes(kind) for kind in DEAD_WALL_SIZES}
_LAYOUTS: dict[tuple[tuple[int, int], str, str, int], tuple[itemgetter[Any], list[int]]] = {}


def deal_slots(seat: int) -> list[int]:
    """Positions in the drawing sequence of the tiles dealt to ``seat`` (0 = East): three
    passes of four, then one each, then East's fourteenth (§4)."""
    slots = [16 * p + 4 * seat + i for p in range(3) for i in range(4)] + [48 + seat]
    if seat == 0:
        slots.append(52)
    return slots


DEAL_SLOTS = tuple(tuple(deal_slots(s)) for s in range(4))


def _stack_pairs_from_end(n_live: int) -> list[int]:
    """Positions of the live wall's tiles taken from its far end: the last stack first, its
    top tile before its bottom tile."""
    out: list[int] = []
    for top in range(n_live - 2, -1, -2):
        out += (top, top + 1)
    return out


class ClassicalWall:
    """One hand's wall (see the module text). ``dice`` are the two throws (0, 0 when unknown)."""

    __slots__ = ("_dead", "back", "dead_wall", "dice", "front", "n", "n_front", "tail", "taken",
                 "tiles")

    def __init__(self, tiles: Sequence[int], tail: Sequence[int], dead_wall: str,
                 dice: tuple[int, int] = (0, 0), where: str = "wall") -> None:
        if dead_wall not in DEAD_WALL_SIZES:
            raise InvalidHandError(f"{where}: unknown dead_wall {dead_wall!r}", reason="bad_wall")
        self.tiles = list(tiles)
        n = len(self.tiles)
        if sorted(self.tiles) != _FULL_SETS.get(n):
            raise InvalidHandError(f"{where}: a wall must hold each of the 144 tiles exactly "
                                   "once (136 suit and honour tiles, 8 bonus tiles; 136 when "
                                   "playing without bonus tiles)", reason="bad_wall")
        self.n = n
        self.tail = list(tail)
        if sorted(self.tail) != list(range(n)):
            raise InvalidHandError(f"{where}: the replacement order must name every position",
                                   reason="bad_wall")
        self.dead_wall = dead_wall
        self._dead = _DEAD_SIZES[dead_wall]
        self.dice = dice
        self.taken = bytearray(n)
        self.front = 0          # next position to look at from the front
        self.n_front = 0        # tiles drawn from the front
        self.back = 0           # replacement tiles taken

    # ---- construction -----------------------------------------------------------------

    @classmethod
    def from_ring(cls, ring: Sequence[int], dice: tuple[int, int], *, wall_profile: str,
                  dead_wall: str) -> ClassicalWall:
        """Lay 144 tiles out as the ring of §3.5 (stack r holds ring[2r] on top of
        ring[2r+1]) and break it with the two throws ``dice`` = (d1, d2)."""
        tiles, tail = cls.layout(ring, dice, wall_profile=wall_profile, dead_wall=dead_wall)
        return cls(tiles, tail, dead_wall, dice)

    @staticmethod
    def layout(ring: Sequence[int], dice: tuple[int, int], *, wall_profile: str,
               dead_wall: str) -> tuple[list[int], list[int]]:
        """(drawing sequence, replacement order) of the ring broken by ``dice``; with
        ``ring = range(144)`` the sequence names ring positions."""
        d1, d2 = dice
        n = len(ring)
        if n not in (144, 136) or not (2 <= d1 <= 12 and 2 <= d2 <= 12):
            raise InvalidHandError("a ring needs 144 (or 136) tiles and two throws of 2..12",
                                   reason="bad_wall")
        per_wall = n // 8                      # stacks in front of each player: 18 (or 17)
        n_stacks = n // 2
        breaker = (d1 - 1) % 4                 # 0 E, 1 S, 2 W, 3 N in turn order
        j = (4 - breaker) % 4                  # walls clockwise: E, N, W, S
        n_dead = DEAD_WALL_SIZES[dead_wall]
        if wall_profile == "seed003":
            first_live = per_wall * j + d1 + d2    # after the breach b = 18j + T - 1
        elif wall_profile == "seed001":
            first_live = per_wall * j + d2
        else:
            raise InvalidHandError(f"unknown wall_profile {wall_profile!r}", reason="bad_wall")
        if wall_profile == "seed001" and n_dead:
            n_dead = 16 if dead_wall == "16_unreplenished" else 14
        n_live_stacks = (n - n_dead) // 2

        def stack(r: int) -> tuple[int, int]:
            r %= n_stacks
            return ring[2 * r], ring[2 * r + 1]

        live: list[int] = []
        for i in range(n_live_stacks):
            live += stack(first_live + i)
        # the dead wall in replacement order: the loose pair (the breach stack for seed 003,
        # the seventh stack back for seed 001), then the stacks toward the live wall's end
        dead: list[int] = []
        n_dead_stacks = n_dead // 2
        if wall_profile == "seed003":
            for k in range(1, n_dead_stacks + 1):
                dead += stack(first_live - k)
        else:
            for k in range(n_dead_stacks, 0, -1):
                dead += stack(first_live - k)
        tiles = live + dead[::-1]
        n_live = len(live)
        if dead_wall == "14_replenished":
            reserved = list(range(n - 1, n - 3, -1))
            never = list(range(n - 3, n_live - 1, -1))
            tail = reserved + _stack_pairs_from_end(n_live) + never
        else:
            tail = list(range(n - 1, n_live - 1, -1)) + _stack_pairs_from_end(n_live)
        if dead_wall not in DEAD_WALL_SIZES:
            raise InvalidHandError(f"unknown dead_wall {dead_wall!r}", reason="bad_wall")
        return tiles, tail

    @classmethod
    def from_seed(cls, seed: int, hand_index: int, *, wall_profile: str,
                  dead_wall: str, bonus_tiles: bool = True) -> ClassicalWall:
        """The wall of one hand of a seeded game: shuffle the 144 tiles (numpy's PCG64 seeded
        with a hash of the game seed and the hand index), then throw two dice twice (d1
        picks the wall, d2 counts stacks)."""
        rng = np.random.Generator(np.random.PCG64(hand_seed(seed, hand_index, 0)))
        full = FULL_SET if bonus_tiles else FULL_SET_136
        n = len(full)
        order = rng.permutation(n).tolist()
        a, b, c, d = rng.integers(1, 7, size=4).tolist()
        dice = (a + b, c + d)
        key = (dice, wall_profile, dead_wall, n)
        laid = _LAYOUTS.get(key)
        if laid is None:
            seq, tail = cls.layout(range(n), dice, wall_profile=wall_profile,
                                   dead_wall=dead_wall)
            laid = _LAYOUTS[key] = (itemgetter(*seq), tail)
        w = cls.__new__(cls)
        ring = [full[i] for i in order]
        w.tiles = list(laid[0](ring))
        w.tail = list(laid[1])
        w.dead_wall = dead_wall
        w._dead = _DEAD_SIZES[dead_wall]
        w.dice = dice
        w.n = n
        w.taken = bytearray(n)
        w.front = w.n_front = w.back = 0
        return w

    @classmethod
    def from_sequence(cls, tiles: Sequence[int], dead_wall: str,
                      where: str = "wall") -> ClassicalWall:
        """A wall given in drawing order, replacements taken from its far end one by one
        (Bradfield's ``Wall`` line)."""
        return cls(tiles, range(len(tiles) - 1, -1, -1), dead_wall, where=where)

    # ---- play -------------------------------------------------------------------------

    def deal(self) -> list[list[int]]:
        """The starting tiles by seat (East 14, the others 13), in the order dealt."""
        self.front = self.n_front = DEAL_SIZE
        for p in range(DEAL_SIZE):
            self.taken[p] = 1
        t = self.tiles
        return [[t[p] for p in DEAL_SLOTS[s]] for s in range(4)]

    def dead_size(self) -> int:
        """Untaken tiles that belong to the dead wall (see the module text)."""
        return self._dead[self.back]

    @property
    def live_remaining(self) -> int:
        """Live tiles left to draw from the front."""
        left = self.n - self.n_front - self.back - self._dead[self.back]
        return max(0, left)

    @property
    def loose_remaining(self) -> int:
        """Tiles left for replacements (dead wall and, after it, the live wall's end)."""
        return self.n - self.n_front - self.back

    def draw(self) -> int:
        """The next live tile; the caller checks :attr:`live_remaining` first."""
        p = self.front
        taken = self.taken
        while taken[p]:
            p += 1
        taken[p] = 1
        self.front = p + 1
        self.n_front += 1
        return self.tiles[p]

    def draw_loose(self) -> int:
        """The next replacement tile; the caller checks :attr:`loose_remaining` first."""
        tail = self.tail
        taken = self.taken
        n = self.back
        while taken[tail[n]]:
            n += 1
        p = tail[n]
        taken[p] = 1
        self.back += 1
        # positions skipped above were drawn from the front; keep ``tail`` aligned with
        # ``back`` by moving the found position forward
        if n != self.back - 1:
            tail[self.back - 1], tail[n] = tail[n], tail[self.back - 1]
        return self.tiles[p]

    def unseen(self) -> list[int]:
        """The tiles not yet drawn (live and dead)."""
        return [t for p, t in enumerate(self.tiles) if not self.taken[p]]
