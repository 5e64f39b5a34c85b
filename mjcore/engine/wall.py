"""The wall: the seeded shuffle, the canonical ring layout (riichi.md §3.5) and the draw order.

A :class:`Wall` holds the live wall ``live`` (``L[0..121]``, the deal is ``L[0..51]``, the
dealer's fourteenth tile ``L[52]`` is his first draw), the four rinshan tiles in draw order,
and the five dora / ura-dora indicators in reveal order. Every hand's wall derives from
(game seed, round index, honba), so a hand replays alone. For a recorded game,
:meth:`Wall.from_record` builds a wall whose draws are exactly the recorded ones.
"""
from __future__ import annotations

import hashlib
from collections.abc import Sequence
from operator import itemgetter

from .._core.engine_turn import shuffled_wall
from ..errors import InvalidHandError

N_TILES = 136
N_STACKS = 68
LIVE_SIZE = 122
DEAL_SIZE = 52


def deal_slots(seat_from_dealer: int) -> list[int]:
    """Positions in ``L`` of the 13 tiles dealt to the seat ``seat_from_dealer`` turns after the
    dealer: three passes of four, then one each (the dealer's 14th is ``L[52]``)."""
    base = 4 * seat_from_dealer
    return ([base + i for i in range(4)] + [16 + base + i for i in range(4)]
            + [32 + base + i for i in range(4)] + [48 + seat_from_dealer])


_DEAL_SLOTS = [deal_slots(s) for s in range(4)]
_DEAL_TILES = [itemgetter(*slots) for slots in _DEAL_SLOTS]   # live wall -> a seat's 13


def _hand_digest(seed: int, round_index: int, honba: int) -> bytes:
    return hashlib.blake2b(f"mjcore-wall:{seed}:{round_index}:{honba}".encode(),
                           digest_size=16).digest()


def hand_seed(seed: int, round_index: int, honba: int) -> int:
    """The seed of one hand's shuffle: a hash of (game seed, round index, honba)."""
    return int.from_bytes(_hand_digest(seed, round_index, honba), "little")


class Wall:
    """One hand's wall. ``live``: 122 tiles; ``rinshan``: 4; ``dora``/``ura``: 5 indicators."""

    __slots__ = (
        "break_seat",
        "dice",
        "dora",
        "left",
        "live",
        "n_dora",
        "n_rinshan",
        "pos",
        "rinshan",
        "ura",
    )

    def __init__(self, live: Sequence[int], rinshan: Sequence[int], dora: Sequence[int],
                 ura: Sequence[int], dice: tuple[int, int] = (0, 0), break_seat: int = -1):
        self.live = list(live)
        self.rinshan = list(rinshan)
        self.dora = list(dora)
        self.ura = list(ura)
        if (len(self.live), len(self.rinshan), len(self.dora), len(self.ura)) != (122, 4, 5, 5):
            raise InvalidHandError("a wall needs 122 live tiles, 4 rinshan, 5 dora and 5 ura "
                                   "indicators", reason="bad_wall")
        if sorted(self.live + self.rinshan + self.dora + self.ura) != list(range(N_TILES)):
            raise InvalidHandError("a wall must hold each of the 136 tiles exactly once",
                                   reason="bad_wall")
        self.dice = dice
        self.break_seat = break_seat
        self.pos = DEAL_SIZE
        self.n_rinshan = 0
        self.n_dora = 1
        self.left = LIVE_SIZE - DEAL_SIZE      # live tiles left to draw

    # ---- construction -------------------------------------------------------------------

    @classmethod
    def from_ring(cls, tiles: Sequence[int], dice: tuple[int, int]) -> Wall:
        """Lay 136 shuffled tiles out as the ring of §3.5 (stack r holds tiles[2r] on top of
        tiles[2r+1]) and break it with the dealer's dice."""
        d = dice[0] + dice[1]
        if len(tiles) != N_TILES or not (2 <= d <= 12):
            raise InvalidHandError("a ring needs 136 tiles and a dice sum of 2..12",
                                   reason="bad_wall")
        break_seat = (d - 1) % 4              # 0 E, 1 S, 2 W, 3 N (turn order from the dealer)
        j = (4 - break_seat) % 4              # ring order: E, N, W, S
        r0 = 17 * j + d
        live: list[int] = []
        for i in range(61):
            r = (r0 + i) % N_STACKS
            live += (tiles[2 * r], tiles[2 * r + 1])
        dead = [((tiles[2 * ((r0 - k) % N_STACKS)], tiles[2 * ((r0 - k) % N_STACKS) + 1]))
                for k in range(1, 8)]
        rinshan = [dead[0][0], dead[0][1], dead[1][0], dead[1][1]]
        dora = [dead[k][0] for k in range(2, 7)]
        ura = [dead[k][1] for k in range(2, 7)]
        return cls(live, rinshan, dora, ura, dice, break_seat)

    @classmethod
    def from_seed(cls, seed: int, round_index: int, honba: int) -> Wall:
        """The wall of one hand of a seeded game: shuffle, then roll two dice."""
        # numpy's rng = Generator(PCG64(hand_seed(...))), rng.permutation(136) and, for the
        # dice, rng.integers(1, 7, size=2), computed in one compiled call (see shuffled_wall)
        perm, d1, d2 = shuffled_wall(_hand_digest(seed, round_index, honba))
        # the same layout as from_ring, by index tables (a permutation needs no checks)
        live, rinshan, dora, ura, break_seat = _RING_LAYOUTS[d1 + d2]
        w = cls.__new__(cls)
        w.live = list(live(perm))
        w.rinshan = list(rinshan(perm))
        w.dora = list(dora(perm))
        w.ura = list(ura(perm))
        w.dice = (d1, d2)
        w.break_seat = break_seat
        w.pos = DEAL_SIZE
        w.n_rinshan = 0
        w.n_dora = 1
        w.left = LIVE_SIZE - DEAL_SIZE
        return w

    @classmethod
    def from_record(cls, oya: int, tehais: Sequence[Sequence[int]], draws: Sequence[int],
                    rinshan: Sequence[int], dora: Sequence[int], ura: Sequence[int] = (),
                    where: str = "record") -> Wall:
        """A wall consistent with a recorded hand: the dealt hands (by absolute seat), the live
        draws in order (the dealer's first draw first), the rinshan draws, the dora indicators in
        reveal order and the ura indicators. Tiles never seen fill the remaining places."""
        live = [-1] * LIVE_SIZE
        for seat in range(4):
            hand = tehais[seat]
            slots = _DEAL_SLOTS[(seat - oya) % 4]
            if len(hand) != 13:
                raise InvalidHandError(f"{where}: seat {seat} is dealt {len(hand)} tiles, not 13",
                                       reason="bad_deal")
            for slot, tile in zip(slots, hand):
                live[slot] = tile
        if len(draws) > LIVE_SIZE - DEAL_SIZE - len(rinshan):
            raise InvalidHandError(f"{where}: {len(draws)} live draws do not fit the wall",
                                   reason="bad_wall")
        for i, tile in enumerate(draws):
            live[DEAL_SIZE + i] = tile
        if len(rinshan) > 4 or len(dora) > 5 or len(ura) > 5:
            raise InvalidHandError(f"{where}: too many rinshan draws or indicators",
                                   reason="bad_wall")
        rin = list(rinshan) + [-1] * (4 - len(rinshan))
        dor = list(dora) + [-1] * (5 - len(dora))
        ur = list(ura) + [-1] * (5 - len(ura))
        used = [t for t in live + rin + dor + ur if t >= 0]
        seen = set(used)
        if len(seen) != len(used) or not all(0 <= t < N_TILES for t in used):
            dup = sorted({t for t in used if used.count(t) > 1})
            raise InvalidHandError(f"{where}: tiles {dup} appear twice in the record",
                                   reason="duplicate_tile")
        free = iter(t for t in range(N_TILES) if t not in seen)
        for seq in (live, rin, dor, ur):
            for i, t in enumerate(seq):
                if t < 0:
                    seq[i] = next(free)
        return cls(live, rin, dor, ur)

    # ---- play ---------------------------------------------------------------------------

    def deal(self, oya: int) -> list[list[int]]:
        """The four starting hands of 13 tiles, by absolute seat."""
        live = self.live
        return [list(_DEAL_TILES[(seat - oya) % 4](live)) for seat in range(4)]

    @property
    def remaining(self) -> int:
        """Live tiles left to draw."""
        return LIVE_SIZE - self.n_rinshan - self.pos

    def draw(self) -> int:
        """The next tile of the live wall."""
        tile = self.live[self.pos]
        self.pos += 1
        self.left -= 1
        return tile

    def draw_rinshan(self) -> int:
        """The next replacement tile after a kan."""
        tile = self.rinshan[self.n_rinshan]
        self.n_rinshan += 1
        self.left -= 1          # the last live tile moves to the dead wall
        return tile

    def reveal_dora(self) -> int:
        """Turn the next dora indicator and return it."""
        tile = self.dora[self.n_dora]
        self.n_dora += 1
        return tile

    @property
    def dora_indicators(self) -> list[int]:
        """The dora indicators turned so far."""
        return self.dora[:self.n_dora]

    @property
    def ura_indicators(self) -> list[int]:
        """The ura dora indicators under them."""
        return self.ura[:self.n_dora]

    def unseen_count(self) -> int:
        """Tiles still in the wall (live and dead, not yet drawn or revealed)."""
        return (LIVE_SIZE - self.pos) + (4 - self.n_rinshan) + (5 - self.n_dora) + 5


def _ring_layout(d: int) -> tuple[itemgetter, itemgetter, itemgetter, itemgetter, int]:
    """Where from_ring takes each part of the wall from, for the dice sum ``d``: getters of
    those places in the shuffled tiles."""
    w = Wall.from_ring(range(N_TILES), (1, d - 1))
    return (itemgetter(*w.live), itemgetter(*w.rinshan), itemgetter(*w.dora),
            itemgetter(*w.ura), w.break_seat)


_RING_LAYOUTS = {d: _ring_layout(d) for d in range(2, 13)}
