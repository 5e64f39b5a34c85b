"""Seeded random winning hands with random (consistent) situations, for the differential
test against the PyPI ``mahjong`` package and for the scoring benchmark."""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

RED_IDS = (16, 52, 88)
CHI, PON, KAN_OPEN, KAN_CLOSED, KAN_ADDED = range(5)

# Tile themes: which kinds a hand draws from (weights), to reach every yaku now and then.
_ALL = list(range(34))
_THEMES = (
    (50, _ALL),
    (12, list(range(9)) + list(range(27, 34))),                 # honitsu / chinitsu (man)
    (6, list(range(9, 18))),                                    # chinitsu (pin)
    (8, [0, 8, 9, 17, 18, 26] + list(range(27, 34))),           # terminals and honors
    (6, list(range(27, 34)) + [0, 1, 2, 6, 7, 8, 9, 10, 11, 15, 16, 17, 18, 19, 20, 24, 25, 26]),
    (3, list(range(27, 34))),                                   # tsuuiisou
    (3, [19, 20, 21, 23, 25, 32]),                              # ryuuiisou
    (6, list(range(1, 8)) + list(range(10, 17)) + list(range(19, 26))),  # tanyao
    (6, list(range(27, 34)) + list(range(18, 27))),
)
_THEME_WEIGHTS = [w for w, _ in _THEMES]


@dataclass
class RandomWin:
    closed_ids: list[int]           # 136-ids of the closed tiles, winning tile included
    win_id: int
    melds: list[tuple[int, list[int]]] = field(default_factory=list)  # (kind, 136-ids)
    tsumo: bool = False
    riichi: bool = False
    double_riichi: bool = False
    ippatsu: bool = False
    rinshan: bool = False
    chankan: bool = False
    haitei: bool = False
    houtei: bool = False
    tenhou: bool = False
    chiihou: bool = False
    renhou: bool = False
    seat_wind: int = 0
    round_wind: int = 0
    dora_ids: list[int] = field(default_factory=list)
    ura_ids: list[int] = field(default_factory=list)
    honba: int = 0
    riichi_sticks: int = 0

    @property
    def menzen(self) -> bool:
        return all(k == KAN_CLOSED for k, _ in self.melds)

    def kernel_args(self) -> dict[str, Any]:
        """Keyword arguments of mjcore.riichi.scoring.score_counts (relative seats, discarder 3)."""
        counts = [0] * 34
        for t in self.closed_ids:
            counts[t // 4] += 1
        melds = [(k, min(ids) // 4, sum(1 for t in ids if t in RED_IDS), 0 if k == KAN_CLOSED
                  else 3 if k == CHI else 2) for k, ids in self.melds]
        flags = (1 * self.tsumo | 2 * self.riichi | 4 * self.double_riichi | 8 * self.ippatsu
                 | 16 * self.rinshan | 32 * self.chankan | 64 * self.haitei | 128 * self.houtei
                 | 256 * self.tenhou | 512 * self.chiihou | 1024 * self.renhou)
        return {"counts": counts, "win_tile": self.win_id // 4, "melds": melds,
                    "red": sum(1 for t in self.closed_ids if t in RED_IDS), "flags": flags,
                    "seat_wind": self.seat_wind, "round_wind": self.round_wind, "from_rel": 3,
                    "pao_rel": -1, "dora": [t // 4 for t in self.dora_ids],
                    "ura": [t // 4 for t in self.ura_ids], "honba": self.honba,
                    "riichi_sticks": self.riichi_sticks}


class _Wall:
    def __init__(self, rng: random.Random, red: bool) -> None:
        self.rng = rng
        self.free: list[list[int]] = [[k * 4 + c for c in range(4)] for k in range(34)]
        if red:
            for k in (4, 13, 22):           # red copy drawn with a fair chance, not last
                rng.shuffle(self.free[k])
        else:
            for k in (4, 13, 22):
                self.free[k].remove(k * 4)

    def left(self, kind: int) -> int:
        return len(self.free[kind])

    def take(self, kind: int) -> int:
        return self.free[kind].pop()


def _pick_set(rng: random.Random, wall: _Wall, kinds: list[int],
              seq_ok: bool) -> tuple[str, int] | None:
    for _ in range(30):
        k = rng.choice(kinds)
        if seq_ok and k < 27 and k % 9 <= 6 and rng.random() < 0.6:
            if k + 1 in kinds and k + 2 in kinds and all(wall.left(k + i) for i in range(3)):
                return "seq", k
        elif wall.left(k) >= 3:
            return "trip", k
    return None


def random_win(rng: random.Random, red: bool = True) -> RandomWin:
    """One random complete hand (not necessarily with a yaku) and situation."""
    while True:
        hand = _try_random_win(rng, red)
        if hand is not None:
            return hand


def _try_random_win(rng: random.Random, red: bool) -> RandomWin | None:
    wall = _Wall(rng, red)
    kinds = rng.choices([t for _, t in _THEMES], _THEME_WEIGHTS)[0]
    form = rng.random()
    melds: list[tuple[int, list[int]]] = []
    if form < 0.04:
        pair_kinds = rng.sample(kinds if len(kinds) >= 7 else _ALL, 7)
        closed = [t for k in pair_kinds for t in (wall.take(k), wall.take(k))]
    elif form < 0.05:
        yao = [0, 8, 9, 17, 18, 26] + list(range(27, 34))
        closed = [wall.take(k) for k in yao] + [wall.take(rng.choice(yao))]
    else:
        sets = _random_sets_and_pair(rng, wall, kinds)
        if sets is None:
            return None
        closed, melds = sets
    win_id = rng.choice(closed)
    h = RandomWin(sorted(closed), win_id, melds)
    h.seat_wind = rng.randrange(4)
    h.round_wind = rng.choice([0, 0, 1, 1, 2, 3])
    h.tsumo = rng.random() < 0.45
    if h.menzen and rng.random() < 0.5:
        if rng.random() < 0.06:
            h.double_riichi = True
        else:
            h.riichi = True
        h.ippatsu = rng.random() < 0.2
    if h.tsumo:
        _random_self_draw(rng, h)
    else:
        _random_ron(rng, h)
    n_ind = 1 + sum(1 for k, _ in melds if k >= KAN_OPEN)
    dead_wall = rng.sample([t for free in wall.free for t in free], 2 * n_ind)  # unseen tiles
    h.dora_ids = dead_wall[:n_ind]
    if h.riichi or h.double_riichi:
        h.ura_ids = dead_wall[n_ind:]
    h.honba = rng.choice([0, 0, 0, 1, 2, 5])
    h.riichi_sticks = rng.choice([0, 0, 1, 2])
    return h


def _random_sets_and_pair(rng: random.Random, wall: _Wall, kinds: list[int]
                          ) -> tuple[list[int], list[tuple[int, list[int]]]] | None:
    """Four sets and a pair: (closed 136-ids, melds), the first 0-4 sets called; None when the
    wall has no set or pair of ``kinds`` left."""
    closed: list[int] = []
    melds: list[tuple[int, list[int]]] = []
    n_melds = rng.choices([0, 1, 2, 3, 4], [45, 20, 15, 12, 8])[0]
    seq_ok = rng.random() < 0.8
    for i in range(4):
        picked = _pick_set(rng, wall, kinds, seq_ok)
        if picked is None:
            return None
        what, k = picked
        if what == "seq":
            ids = [wall.take(k), wall.take(k + 1), wall.take(k + 2)]
            if i < n_melds:
                melds.append((CHI, ids))
            else:
                closed += ids
        elif i < n_melds:
            melds.append(_random_triplet_meld(rng, wall, k))
        else:
            closed += [wall.take(k) for _ in range(3)]
    pair = [k for k in kinds if wall.left(k) >= 2]
    if not pair:
        return None
    k = rng.choice(pair)
    closed += [wall.take(k), wall.take(k)]
    return closed, melds


def _random_triplet_meld(rng: random.Random, wall: _Wall, k: int) -> tuple[int, list[int]]:
    """A pon or (when four are left) a kan of ``k``."""
    kind = rng.choices([PON, KAN_OPEN, KAN_CLOSED, KAN_ADDED], [70, 8, 14, 8])[0]
    if kind != PON and wall.left(k) >= 4:
        return kind, [wall.take(k) for _ in range(4)]
    return PON, [wall.take(k) for _ in range(3)]


def _random_self_draw(rng: random.Random, h: RandomWin) -> None:
    """A self-draw's flags: rinshan (after a kan), haitei, tenhou or chiihou."""
    has_kan = any(k >= KAN_OPEN for k, _ in h.melds)
    if has_kan and rng.random() < 0.3:
        h.rinshan = True
    elif rng.random() < 0.05:
        h.haitei = True
    if not h.melds and not h.riichi and not h.double_riichi and rng.random() < 0.02:
        if h.seat_wind == 0:
            h.tenhou = True
        else:
            h.chiihou = True


def _random_ron(rng: random.Random, h: RandomWin) -> None:
    """A ron's flags: houtei, chankan or renhou."""
    r = rng.random()
    if r < 0.05:
        h.houtei = True
    elif r < 0.08:
        h.chankan = True
    elif r < 0.09 and not h.melds and h.seat_wind != 0 and not h.riichi and not h.double_riichi:
        h.renhou = True


def random_wins(n: int, seed: int, red: bool = True) -> list[RandomWin]:
    rng = random.Random(seed)
    return [random_win(rng, red) for _ in range(n)]
