"""A plain, slow reading of the consistent expected-value model (mjcore.riichi.expected's module
doc; the graph of mjcore/riichi/ev.md §2) for closed hands with red fives and ura dora off, and a
simulator that plays its policy out over random walls. Written apart from the kernel, from the
rules, to check it: dictionaries of tuples, mjcore.shanten and mjcore.score_counts only."""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import cache

import mjcore
from mjcore import InvalidHandError
from mjcore.riichi.scoring import score_counts, situation_flags

Counts = tuple[int, ...]
Node = tuple[Counts, bool]              # (closed counts, riichi declared)


def _order(a: float, b: float, tolerance: float) -> int:
    scale = max(a, b, 1.0) if a > 0 and b > 0 else 1.0
    return 1 if a - b > tolerance * scale else -1 if b - a > tolerance * scale else 0


def better(a: tuple[float, float, float], b: tuple[float, float, float]) -> bool:
    """(tenpai, win, score) a before b: more score, then win, then tenpai, ties within 1e-9 of
    the score and 1e-12 of a probability (as the kernel: rounding never decides)."""
    for k, tol in ((2, 1e-9), (1, 1e-12), (0, 1e-12)):
        o = _order(a[k], b[k], tol)
        if o:
            return o > 0
    return False


def best_of(options: list[tuple[float, float, float]]) -> tuple[float, float, float]:
    pick = options[0]
    for v in options[1:]:
        if better(v, pick):
            pick = v
    return pick


@cache
def _shanten(counts: Counts) -> int:
    return int(mjcore.batch.shanten([list(counts)]).shanten[0])


@dataclass
class Plain:
    """The graph and values of one hand (13 or 14 closed tiles), options as the kernel's."""

    hand: Counts
    wall: Counts                        # unseen copies at the start
    dora: tuple[int, ...] = ()
    t_max: int = 8
    extra: int = 0
    tegawari: bool = False
    shanten_down: bool = False
    draws: dict[Node, dict[int, tuple[Node, int]]] = field(default_factory=dict)
    kids: dict[Node, set[Node]] = field(default_factory=dict)
    score: dict[tuple[Node, int], float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.s0 = _shanten(self.hand)
        self.size = sum(self.wall) + (1 if sum(self.hand) == 14 else 0)
        start: Node = (self.hand, False)
        todo = [start]
        seen = {start}
        while todo:
            node = todo.pop()
            more = self._draw(node) if sum(node[0]) == 13 else self._discard(node)
            for m in more:
                if m not in seen:
                    seen.add(m)
                    todo.append(m)
        self.nodes = len(seen)

    # -- the graph (§2) --
    def unseen(self, c: Counts, i: int) -> int:
        return self.wall[i] - (c[i] - self.hand[i])

    def _wide(self, c: Counts, s: int) -> bool:
        dist = sum(max(0, a - b) for a, b in zip(c, self.hand, strict=True))
        return dist + s < self.s0 + self.extra

    def _draw(self, x: Node) -> list[Node]:
        c, riichi = x
        s = _shanten(c)
        wide = self.tegawari and not riichi and self._wide(c, s)
        out = []
        self.draws.setdefault(x, {})
        for i in range(34):
            w = self.unseen(c, i)
            if w <= 0:
                continue
            d = c[:i] + (c[i] + 1,) + c[i + 1:]
            if not wide and _shanten(d) >= s:
                continue
            self._edge(x, i, (d, riichi), w)
            out.append((d, riichi))
        return out

    def _discard(self, dnode: Node) -> list[Node]:
        c, riichi = dnode
        s = _shanten(c)
        wide = self.shanten_down and not riichi and self._wide(c, s)
        out = []
        for i in range(34):
            if not c[i]:
                continue
            y = c[:i] + (c[i] - 1,) + c[i + 1:]
            unnecessary = s >= 0 and _shanten(y) == s
            if not (wide or unnecessary):
                continue
            declares = riichi or (s == 0 and unnecessary)
            ynode = (y, declares)
            self._edge(ynode, i, dnode, self.unseen(y, i))
            out.append(ynode)
        return out

    def _edge(self, x: Node, tile: int, d: Node, w: int) -> None:
        self.draws.setdefault(x, {})[tile] = (d, w)
        self.kids.setdefault(d, set()).add(x)
        if _shanten(d[0]) == -1 and (x, tile) not in self.score:
            self.score[(x, tile)] = self._points(d, tile)

    def _points(self, d: Node, tile: int) -> float:
        flags = situation_flags(tsumo=True, riichi=d[1])
        try:
            r = score_counts(list(d[0]), tile, flags=flags, dora=list(self.dora))
        except InvalidHandError:
            return 0.0
        return float(r.points) if r.is_win else 0.0

    # -- the values: the best-score policy, then win, then tenpai --
    def values(self) -> dict[int, dict[Node, tuple[float, float, float]]]:
        """(tenpai, win, score) of every draw node at every turn t = 1 .. t_max."""
        out: dict[int, dict[Node, tuple[float, float, float]]] = {}
        draws = list(self.draws)
        out[self.t_max] = {x: (1.0 if _shanten(x[0]) == 0 else 0.0, 0.0, 0.0) for x in draws}
        for t in range(self.t_max - 1, 0, -1):
            later = out[t + 1]
            now = {}
            for x in draws:
                stay = later[x]
                acc = [0.0, 0.0, 0.0]
                total = 0
                for tile, (d, w) in self.draws[x].items():
                    best = self.choose(d, later)
                    sc = self.score.get((x, tile), 0.0)
                    if sc > 0.0 and better((1.0, 1.0, sc), best):
                        best = (1.0, 1.0, sc)
                    for k in range(3):
                        acc[k] += w * best[k]
                    total += w
                v = tuple(stay[k] * (1 - total / self.size) + acc[k] / self.size
                          for k in range(3))
                now[x] = (1.0, v[1], v[2]) if _shanten(x[0]) == 0 else (v[0], v[1], v[2])
            out[t] = now
        return out

    def choose(self, d: Node, values: dict[Node, tuple[float, float, float]]
               ) -> tuple[float, float, float]:
        """The values of the draw node the policy moves to from discard node d."""
        return best_of([values[y] for y in sorted(self.kids[d])])

    def candidates(self) -> dict[int | None, Node]:
        """Each discard's draw node (None: a 13-tile hand's own)."""
        c = self.hand
        if sum(c) == 13:
            return {None: (c, False)}
        s = _shanten(c)
        out: dict[int | None, Node] = {}
        for i in range(34):
            if c[i]:
                y = c[:i] + (c[i] - 1,) + c[i + 1:]
                node = (y, s == 0 and _shanten(y) == 0)
                if node in self.draws:
                    out[i] = node
        return out


def _move(plain: Plain, d: Node, later: dict[Node, tuple[float, float, float]]) -> Node:
    """The draw node the policy goes to from discard node d."""
    kids = sorted(plain.kids[d])
    pick = kids[0]
    for y in kids[1:]:
        if better(later[y], later[pick]):
            pick = y
    return pick


def simulate(plain: Plain, start: Node, values: dict[int, dict[Node, tuple[float, float, float]]],
             rng: random.Random) -> tuple[bool, bool, float]:
    """One game from a draw node at turn 1, the policy of ``values``: (tenpai reached, won,
    points). The wall is the unseen tiles of the hand held (the discards go back)."""
    x = start
    tenpai = _shanten(x[0]) == 0
    for t in range(1, plain.t_max):
        wall = [plain.unseen(x[0], i) for i in range(34)]
        tile = rng.choices(range(34), weights=wall)[0]
        edge = plain.draws[x].get(tile)
        if edge is None:
            continue                            # drawn and discarded: stay
        d = edge[0]
        later = values[t + 1]
        nxt = _move(plain, d, later)
        sc = plain.score.get((x, tile), 0.0)
        if sc > 0.0 and better((1.0, 1.0, sc), later[nxt]):
            return True, True, sc
        x = nxt
        tenpai = tenpai or _shanten(x[0]) == 0
    return tenpai, False, 0.0


def enumerate_win(plain: Plain, x: Node, t: int,
                  values: dict[int, dict[Node, tuple[float, float, float]]]) -> float:
    """The win probability from x at turn t by going through every draw sequence."""
    if t >= plain.t_max:
        return 0.0
    total = 0.0
    for i in range(34):
        w = plain.unseen(x[0], i)
        if w <= 0:
            continue
        p = w / plain.size
        edge = plain.draws[x].get(i)
        if edge is None:
            total += p * enumerate_win(plain, x, t + 1, values)
            continue
        later = values[t + 1]
        nxt = _move(plain, edge[0], later)
        sc = plain.score.get((x, i), 0.0)
        if sc > 0.0 and better((1.0, 1.0, sc), later[nxt]):
            total += p
        else:
            total += p * enumerate_win(plain, nxt, t + 1, values)
    # the stay mass (tiles not in the wall of this state) is zero: the wall is the state's own
    return total
