"""The wall: the seeded shuffle, the canonical ring layout (riichi.md §3.5) and the draw order.

A :class:`Wall` holds the live wall ``live`` (``L[0..121]``, the deal is ``L[0..51]``, the
dealer's fourteenth tile ``L[52]`` is his first draw), the four rinshan tiles in draw order,
and the five dora / ura-dora indicators in reveal order. Every hand's wall derives from
(game seed, round index, honba), so a hand replays alone. For a recorded game,
:meth:`Wall.from_record` builds a wall whose draws are exactly the recorded ones.

Three-player walls (``players=3``, sanma) hold the 108 tiles without 2m-8m and are laid out as
Tenhou lays them (:meth:`Wall.from_yama`, checked against every sanma record of the archive by
tests/riichi/test_sanma_wall.py): the deal is ``L[0..38]``, the live wall ``L[0..93]`` (55
draws), eight replacement tiles (four kans and four north declarations) and five indicator
pairs. Each replacement draw moves the last live tile to the dead wall, so the dead wall stays
at 14 tiles and the fourth and fifth indicator pairs are the last four live tiles, drawn only
when there were too few replacement draws ever to turn them. :func:`tenhou_walls` rebuilds
Tenhou's walls of a recorded game from its ``<SHUFFLE>`` seed.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Callable, Iterator, Sequence
from operator import itemgetter

from .._core.engine_turn import shuffled_wall
from ..engine.seeds import hand_digest
from ..errors import InvalidHandError

N_TILES = 136
N_STACKS = 68
LIVE_SIZE = 122
DEAL_SIZE = 52
SANMA_TILES = tuple(t for t in range(N_TILES) if not 4 <= t < 32)   # 2m-8m removed
_SANMA_SET = frozenset(SANMA_TILES)
# players -> (tiles, live wall, deal, replacement tiles)
_SIZES = {4: (N_TILES, LIVE_SIZE, DEAL_SIZE, 4), 3: (len(SANMA_TILES), 94, 39, 8)}
# the live tiles that are also the fourth and fifth indicator pairs of a three-player wall
_SANMA_SHARED = 4


def deal_slots(seat_from_dealer: int, players: int = 4) -> list[int]:
    """Positions in ``L`` of the 13 tiles dealt to the seat ``seat_from_dealer`` turns after the
    dealer: three passes of four, then one each (the dealer's 14th is ``L[52]``, with three
    players ``L[39]``)."""
    base = 4 * seat_from_dealer
    step = 4 * players
    return ([base + i for i in range(4)] + [step + base + i for i in range(4)]
            + [2 * step + base + i for i in range(4)] + [3 * step + seat_from_dealer])


_DEAL_SLOTS = {p: [deal_slots(s, p) for s in range(p)] for p in (3, 4)}
# live wall -> a seat's 13, by players and seat from the dealer
_DEAL_TILES = {p: [itemgetter(*slots) for slots in _DEAL_SLOTS[p]] for p in (3, 4)}


class Wall:
    """One hand's wall. ``live``: 122 tiles (94 with three players); ``rinshan``: 4 (8);
    ``dora``/``ura``: 5 indicators; ``players``: 4 or 3."""

    __slots__ = (
        "break_seat",
        "dice",
        "dora",
        "left",
        "live",
        "n_dora",
        "n_rinshan",
        "players",
        "pos",
        "rinshan",
        "ura",
    )

    def __init__(self, live: Sequence[int], rinshan: Sequence[int], dora: Sequence[int],
                 ura: Sequence[int], dice: tuple[int, int] = (0, 0), break_seat: int = -1,
                 players: int = 4):
        if players not in _SIZES:
            raise InvalidHandError(f"a wall is for 3 or 4 players, not {players!r}",
                                   reason="bad_wall")
        _, live_size, deal_size, n_rinshan = _SIZES[players]
        self.live = list(live)
        self.rinshan = list(rinshan)
        self.dora = list(dora)
        self.ura = list(ura)
        if (len(self.live), len(self.rinshan), len(self.dora), len(self.ura)) != (
                live_size, n_rinshan, 5, 5):
            raise InvalidHandError(f"a wall needs {live_size} live tiles, {n_rinshan} rinshan, "
                                   "5 dora and 5 ura indicators", reason="bad_wall")
        if players == 4:
            every = self.live + self.rinshan + self.dora + self.ura
            if sorted(every) != list(range(N_TILES)):
                raise InvalidHandError("a wall must hold each of the 136 tiles exactly once",
                                       reason="bad_wall")
        else:
            every = self.live + self.rinshan + self.dora[:3] + self.ura[:3]
            if sorted(every) != list(SANMA_TILES) or self.live[-_SANMA_SHARED:] != [
                    self.dora[4], self.ura[4], self.dora[3], self.ura[3]]:
                raise InvalidHandError(
                    "a three-player wall must hold each of the 108 tiles without 2m-8m "
                    "exactly once, its fourth and fifth indicators the last live tiles",
                    reason="bad_wall")
        self.players = players
        self.dice = dice
        self.break_seat = break_seat
        self.pos = deal_size
        self.n_rinshan = 0
        self.n_dora = 1
        self.left = live_size - deal_size      # live tiles left to draw

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
    def from_yama(cls, yama: Sequence[int], dice: tuple[int, int] = (0, 0)) -> Wall:
        """Tenhou's layout of a shuffled tile array ``yama`` (136 tiles, or 108 for three
        players): the deal and the live draws run down from its top end, the replacement
        tiles are ``yama[1], yama[0], yama[3], yama[2], ...`` and the indicator pairs follow
        them (dora above ura)."""
        players = 4 if len(yama) == N_TILES else 3
        n_tiles, live_size, _, n_rinshan = _SIZES[players]
        if len(yama) != n_tiles:
            raise InvalidHandError(f"a Tenhou wall has 136 or 108 tiles, not {len(yama)}",
                                   reason="bad_wall")
        live = [yama[n_tiles - 1 - i] for i in range(live_size)]
        rinshan = [yama[i ^ 1] for i in range(n_rinshan)]
        dora = [yama[n_rinshan + 1 + 2 * i] for i in range(5)]
        ura = [yama[n_rinshan + 2 * i] for i in range(5)]
        return cls(live, rinshan, dora, ura, dice, -1, players)

    @classmethod
    def from_seed(cls, seed: int, round_index: int, honba: int, players: int = 4) -> Wall:
        """The wall of one hand of a seeded game: shuffle, then roll two dice. With three
        players the shuffle's 108 sanma tiles, in their shuffled order, are Tenhou's array."""
        # numpy's rng = Generator(PCG64(hand_seed(...))), rng.permutation(136) and, for the
        # dice, rng.integers(1, 7, size=2), computed in one compiled call (see shuffled_wall)
        perm, d1, d2 = shuffled_wall(hand_digest(seed, round_index, honba))
        if players == 3:
            return cls.from_yama([t for t in perm if t in _SANMA_SET], (d1, d2))
        # the same layout as from_ring, by index tables (a permutation needs no checks)
        live, rinshan, dora, ura, break_seat = _RING_LAYOUTS[d1 + d2]
        w = cls.__new__(cls)
        w.live = list(live(perm))
        w.rinshan = list(rinshan(perm))
        w.dora = list(dora(perm))
        w.ura = list(ura(perm))
        w.players = 4
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
        """A wall consistent with a recorded hand: the dealt hands (by absolute seat; three
        hands for a three-player record), the live draws in order (the dealer's first draw
        first), the rinshan draws, the dora indicators in reveal order and the ura indicators.
        Tiles never seen fill the remaining places."""
        players = len(tehais)
        if players not in _SIZES:
            raise InvalidHandError(f"{where}: {players} hands dealt, not 3 or 4",
                                   reason="bad_deal")
        _, live_size, deal_size, n_rinshan = _SIZES[players]
        live = [-1] * live_size
        for seat in range(players):
            hand = tehais[seat]
            slots = _DEAL_SLOTS[players][(seat - oya) % players]
            if len(hand) != 13:
                raise InvalidHandError(f"{where}: seat {seat} is dealt {len(hand)} tiles, not 13",
                                       reason="bad_deal")
            for slot, tile in zip(slots, hand, strict=True):
                live[slot] = tile
        if len(draws) > live_size - deal_size - len(rinshan):
            raise InvalidHandError(f"{where}: {len(draws)} live draws do not fit the wall",
                                   reason="bad_wall")
        for i, tile in enumerate(draws):
            live[deal_size + i] = tile
        if len(rinshan) > n_rinshan or len(dora) > 5 or len(ura) > 5:
            raise InvalidHandError(f"{where}: too many rinshan draws or indicators",
                                   reason="bad_wall")
        rin = list(rinshan) + [-1] * (n_rinshan - len(rinshan))
        dor = list(dora) + [-1] * (5 - len(dora))
        ur = list(ura) + [-1] * (5 - len(ura))
        if players == 3:
            return cls._sanma_from_record(live, rin, dor, ur, where)
        used = [t for t in live + rin + dor + ur if t >= 0]
        _check_distinct(used, where)
        seen = set(used)
        free = iter(t for t in range(N_TILES) if t not in seen)
        for seq in (live, rin, dor, ur):
            for i, t in enumerate(seq):
                if t < 0:
                    seq[i] = next(free)
        return cls(live, rin, dor, ur)

    @classmethod
    def _sanma_from_record(cls, live: list[int], rin: list[int], dor: list[int],
                           ur: list[int], where: str) -> Wall:
        """A three-player wall of the recorded tiles (-1 where unknown): placed in Tenhou's
        array, where the last live tiles and the fourth and fifth indicator pairs share
        places."""
        n_tiles, _, _, n_rinshan = _SIZES[3]
        yama = [-1] * n_tiles
        places = ([(n_tiles - 1 - i, t) for i, t in enumerate(live)]
                  + [(i ^ 1, t) for i, t in enumerate(rin)]
                  + [(n_rinshan + 1 + 2 * i, t) for i, t in enumerate(dor)]
                  + [(n_rinshan + 2 * i, t) for i, t in enumerate(ur)])
        for place, tile in places:
            if tile < 0:
                continue
            if tile not in _SANMA_SET:
                raise InvalidHandError(f"{where}: tile {tile} is not in the three-player set "
                                       "(2m-8m are removed)", reason="not_in_sanma")
            if yama[place] >= 0 and yama[place] != tile:
                raise InvalidHandError(
                    f"{where}: the record draws tile {yama[place]} where the dead wall "
                    f"shows tile {tile} (too many draws for its replacement draws)",
                    reason="bad_wall")
            yama[place] = tile
        used = [t for t in yama if t >= 0]
        _check_distinct(used, where)
        seen = set(used)
        free = iter(t for t in SANMA_TILES if t not in seen)
        return cls.from_yama([t if t >= 0 else next(free) for t in yama])

    # ---- play ---------------------------------------------------------------------------

    def deal(self, oya: int) -> list[list[int]]:
        """The starting hands of 13 tiles, by absolute seat (three or four)."""
        live = self.live
        players = self.players
        getters = _DEAL_TILES[players]
        return [list(getters[(seat - oya) % players](live)) for seat in range(players)]

    @property
    def remaining(self) -> int:
        """Live tiles left to draw."""
        return len(self.live) - self.n_rinshan - self.pos

    def draw(self) -> int:
        """The next tile of the live wall."""
        tile = self.live[self.pos]
        self.pos += 1
        self.left -= 1
        return tile

    def draw_rinshan(self) -> int:
        """The next replacement tile after a kan (or, with three players, a north
        declaration)."""
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

    def unseen_tiles(self) -> list[int]:
        """Every tile still in the wall, live and dead (drawn tiles are not; turned
        indicators are), each once: the wall's part of a tile census."""
        if self.players == 4:
            return self.live[self.pos:] + self.rinshan[self.n_rinshan:] + self.dora + self.ura
        # the last four live tiles are the fourth and fifth indicator pairs
        return (self.live[self.pos:] + self.rinshan[self.n_rinshan:] + self.dora[:3]
                + self.ura[:3])

    def unseen_count(self) -> int:
        """Tiles still in the wall (live and dead, not yet drawn or revealed)."""
        return len(self.unseen_tiles()) - self.n_dora


def _check_distinct(used: list[int], where: str) -> None:
    bad = [t for t in used if not 0 <= t < N_TILES]
    if bad:
        raise InvalidHandError(f"{where}: tile id {bad[0]} is not in 0..135", reason="bad_tile")
    if len(set(used)) != len(used):
        dup = sorted({t for t in used if used.count(t) > 1})
        raise InvalidHandError(f"{where}: tiles {dup} appear twice in the record",
                               reason="duplicate_tile")


TENHOU_SHUFFLE = "mt19937ar-sha512-n288-base64"
MAX_TENHOU_HANDS = 1000        # a game has far fewer hands; a bound for the generator


def tenhou_walls(shuffle_seed: str, players: int = 4,
                 where: str = "record") -> Iterator[Wall]:
    """Tenhou's walls of a recorded game, hand after hand, from the ``seed`` attribute of the
    record's ``<SHUFFLE>`` tag (``mt19937ar-sha512-n288-base64,<base64>``), as tenhou.net
    generates them: the base64 text is 624 little-endian words that seed MT19937
    (``init_by_array``); each hand takes 288 outputs, hashes them in nine 128-byte blocks with
    SHA-512 into 144 words ``rnd``, swaps ``yama[i]`` with ``yama[i + rnd[i] % (n - i)]`` for
    each ``i`` of the ``n`` tiles (136, or the 108 sanma tiles in id order) and rolls the dice
    ``rnd[135] % 6 + 1`` and ``rnd[136] % 6 + 1``; :meth:`Wall.from_yama` lays the array out.
    Raises InvalidHandError naming ``where`` for a seed of another kind or malformed."""
    import numpy as np

    kind, _, text = shuffle_seed.partition(",")
    if kind != TENHOU_SHUFFLE:
        raise InvalidHandError(f"{where}: shuffle seed of kind {kind[:40]!r}, not "
                               f"{TENHOU_SHUFFLE!r}", reason="bad_shuffle")
    try:
        key = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise InvalidHandError(f"{where}: the shuffle seed is not base64",
                               reason="bad_shuffle") from None
    if len(key) != 624 * 4:
        raise InvalidHandError(f"{where}: the shuffle seed has {len(key)} bytes, not 2496",
                               reason="bad_shuffle")
    if players not in _SIZES:
        raise InvalidHandError(f"{where}: a wall is for 3 or 4 players, not {players!r}",
                               reason="bad_wall")
    tiles = list(range(N_TILES)) if players == 4 else list(SANMA_TILES)
    n = len(tiles)
    mt = np.random.RandomState(np.frombuffer(key, dtype="<u4"))
    for _ in range(MAX_TENHOU_HANDS):
        src = mt.randint(0, 1 << 32, size=288, dtype=np.uint32).astype("<u4").tobytes()
        digest = b"".join(hashlib.sha512(src[128 * i:128 * (i + 1)]).digest()
                          for i in range(9))
        rnd = np.frombuffer(digest, dtype="<u4").tolist()
        yama = list(tiles)
        for i in range(n - 1):
            j = i + rnd[i] % (n - i)
            yama[i], yama[j] = yama[j], yama[i]
        yield Wall.from_yama(yama, (rnd[135] % 6 + 1, rnd[136] % 6 + 1))


_Places = Callable[[Sequence[int]], tuple[int, ...]]     # shuffled tiles -> a part of the wall


def _ring_layout(d: int) -> tuple[_Places, _Places, _Places, _Places, int]:
    """Where from_ring takes each part of the wall from, for the dice sum ``d``: getters of
    those places in the shuffled tiles."""
    w = Wall.from_ring(range(N_TILES), (1, d - 1))
    return (itemgetter(*w.live), itemgetter(*w.rinshan), itemgetter(*w.dora),
            itemgetter(*w.ura), w.break_seat)


_RING_LAYOUTS = {d: _ring_layout(d) for d in range(2, 13)}
