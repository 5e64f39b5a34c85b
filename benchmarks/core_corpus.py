"""Seeded corpora of realistic hands for the core benchmarks (bench_core.py, report_core.py).

Every hand is drawn from its own shuffled 136-tile wall. Tenpai hands come from greedy play on
that wall: draw the next tile, discard the tile the ukeire summary calls best, until tenpai.
Peers get the same hands as Python lists: 34-counts for ``mahjong``, 136-ids for ``riichienv``
(copy ``c`` of kind ``k`` is id ``4k + c``; red fives play no part in these measurements).
"""
from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from mjcore import batch

SEED = 20261129
N_HANDS = 200_000
_CHUNK = 1 << 15
_MAX_DRAWS = 60


ALL_KINDS = tuple(range(34))
# three-player riichi (sanma): 108 tiles, no 2m-8m
SANMA_KINDS = tuple(k for k in range(34) if not 1 <= k <= 7)


def shuffled_walls(n: int, seed: int, kinds: tuple[int, ...] = ALL_KINDS) -> np.ndarray:
    """(n, 4 * len(kinds)) uint8: one shuffled wall of ``kinds`` (each 4 times) per row."""
    rng = np.random.default_rng(seed)
    base = np.repeat(np.array(kinds, dtype=np.uint8), 4)
    out = np.empty((n, base.size), dtype=np.uint8)
    for lo in range(0, n, _CHUNK):
        hi = min(n, lo + _CHUNK)
        out[lo:hi] = rng.permuted(np.broadcast_to(base, (hi - lo, base.size)), axis=1)
    return out


def counts_of(kinds: np.ndarray) -> np.ndarray:
    """(n, k) tile kinds -> (n, 34) uint8 counts."""
    n = kinds.shape[0]
    flat = (np.arange(n, dtype=np.int64)[:, None] * 34 + kinds).ravel()
    return np.bincount(flat, minlength=n * 34).reshape(n, 34).astype(np.uint8)


def wall_hands(n: int, size: int, seed: int, kinds: tuple[int, ...] = ALL_KINDS) -> np.ndarray:
    """(n, 34) counts of the first ``size`` tiles of n shuffled walls of ``kinds``."""
    return counts_of(shuffled_walls(n, seed, kinds)[:, :size])


def play_to_tenpai(n: int, seed: int, kinds: tuple[int, ...] = ALL_KINDS,
                   rules: object = None) -> tuple[np.ndarray, np.ndarray]:
    """(counts, next_draw): n closed 13-tile tenpai hands reached by greedy play from a shuffled
    wall of ``kinds`` under ``rules``, and the tile each would draw next (for agari corpora)."""
    got_counts: list[np.ndarray] = []
    got_next: list[np.ndarray] = []
    have = 0
    round_seed = seed
    while have < n:
        want = int((n - have) * 1.15) + 64
        walls = shuffled_walls(want, round_seed, kinds)
        round_seed += 1
        counts = counts_of(walls[:, :13])
        pos = np.full(want, 13, dtype=np.int64)
        done = batch.waits(counts, rules=rules).shanten == 0
        rows = np.arange(want)
        for _ in range(_MAX_DRAWS):
            live = rows[~done]
            if live.size == 0:
                break
            drawn = walls[live, pos[live]]
            pos[live] += 1
            counts[live, drawn] += 1
            best = batch.ukeire(counts[live], rules=rules).best_discard.astype(np.int64)
            counts[live, best] -= 1
            done[live] = batch.waits(counts[live], rules=rules).shanten == 0
        keep = rows[done][: n - have]
        got_counts.append(counts[keep])
        got_next.append(walls[keep, pos[keep]])
        have += keep.size
    return np.concatenate(got_counts), np.concatenate(got_next)


def sorted_kinds(counts: np.ndarray) -> np.ndarray:
    """(n, 34) counts whose rows all hold the same number of tiles -> (n, size) sorted kinds."""
    n = counts.shape[0]
    size = int(counts[0].sum()) if n else 0
    flat = np.repeat(np.tile(np.arange(34, dtype=np.int64), n), counts.ravel().astype(np.int64))
    return flat.reshape(n, size)


def ids_136(counts: np.ndarray) -> list[list[int]]:
    """Each row's tiles as sorted 136-ids (copy c of kind k -> 4k + c)."""
    kinds = sorted_kinds(counts)
    if kinds.size == 0:
        return [[] for _ in range(counts.shape[0])]
    j = np.broadcast_to(np.arange(kinds.shape[1]), kinds.shape)
    new = np.ones(kinds.shape, dtype=bool)
    new[:, 1:] = kinds[:, 1:] != kinds[:, :-1]
    first = np.maximum.accumulate(np.where(new, j, 0), axis=1)
    return (4 * kinds + (j - first)).tolist()


def mpsz_lines(counts: np.ndarray) -> bytes:
    """One mpsz hand per line (``1477m23349p6s277z``), newline-terminated."""
    kinds = sorted_kinds(counts)
    n, size = kinds.shape
    suit = kinds // 9
    out = np.zeros((n, 2 * size + 1), dtype=np.uint8)
    out[:, 0:2 * size:2] = ord("1") + kinds % 9
    last = np.ones((n, size), dtype=bool)
    last[:, :-1] = suit[:, 1:] != suit[:, :-1]
    letters = np.frombuffer(b"mpsz", dtype=np.uint8)[suit]
    out[:, 1:2 * size:2] = np.where(last, letters, 0)
    out[:, -1] = ord("\n")
    return out[out != 0].tobytes()


@dataclass(frozen=True)
class Corpus:
    """The same hands in every form a measurement needs."""

    name: str
    counts: np.ndarray

    @property
    def n(self) -> int:
        return int(self.counts.shape[0])

    def lists(self, n: int | None = None) -> list[list[int]]:
        return self.counts[:n].tolist()

    def ids(self, n: int | None = None) -> list[list[int]]:
        return ids_136(self.counts[:n])


@cache
def random13() -> Corpus:
    return Corpus("random 13-tile hands", wall_hands(N_HANDS, 13, SEED))


@cache
def random14() -> Corpus:
    return Corpus("random 14-tile hands", wall_hands(N_HANDS, 14, SEED + 1))


@cache
def tenpai13() -> tuple[Corpus, Corpus]:
    """(tenpai 13-tile hands, the same hands plus their next draw: 14 tiles, some complete).
    Greedy play takes a while, so the result is cached in the temp directory (and re-checked
    to be tenpai when loaded)."""
    path = Path(tempfile.gettempdir()) / f"mjcore-bench-tenpai-{SEED + 2}-{N_HANDS}.npz"
    counts = nxt = None
    if path.exists():
        with np.load(path) as saved:
            counts, nxt = saved["counts"], saved["next"]
        if counts.shape != (N_HANDS, 34) or not (batch.waits(counts).shanten == 0).all():
            counts = None
    if counts is None:
        counts, nxt = play_to_tenpai(N_HANDS, SEED + 2)
        tmp = path.with_suffix(f".{os.getpid()}.npz")
        np.savez(tmp, counts=counts, next=nxt)
        os.replace(tmp, path)
    drawn = counts.copy()
    drawn[np.arange(counts.shape[0]), nxt] += 1
    return (Corpus("tenpai 13-tile hands (greedy play)", counts),
            Corpus("tenpai hands + next draw (14 tiles)", drawn))


@cache
def text13() -> bytes:
    """random13() as mpsz lines."""
    return mpsz_lines(random13().counts)


# -- workloads: every measured operation, built on demand ---------------------------------------

SINGLE_API_HANDS = 50_000
MAHJONG_HANDS = 4_000
MAHJONG_WAITS_HANDS = 1_000


@dataclass(frozen=True)
class Workload:
    """One operation by one implementation: ``run()`` processes ``hands`` hands once."""

    hands: int
    run: Callable[[], object]


def _riichienv_shanten() -> Callable[[list[int]], int]:
    from riichienv import calculate_shanten

    return calculate_shanten


def _riichienv_evaluator() -> Callable[..., Any]:
    # The compiled class; riichienv.HandEvaluator is a Python wrapper around it.
    from riichienv._riichienv import HandEvaluator

    return HandEvaluator


def _mahjong_waits(rows: list[list[int]]) -> list[int]:
    """Wait masks the way a mahjong user would: an agari check with each of the 34 tiles."""
    from mahjong.agari import Agari

    is_agari = Agari.is_agari
    out = []
    for row in rows:
        mask = 0
        for t in range(34):
            if row[t] < 4:
                row[t] += 1
                if is_agari(row):
                    mask |= 1 << t
                row[t] -= 1
        out.append(mask)
    return out


def shanten_batch(threads: int) -> Workload:
    c = random13().counts
    return Workload(len(c), lambda: batch.shanten(c, n_threads=threads))


def shanten_single_api() -> Workload:
    import mjcore

    hands = [mjcore.Hand.parse(line) for line in
             text13()[: 40 * SINGLE_API_HANDS].decode().splitlines()[:SINGLE_API_HANDS]]
    shanten = mjcore.shanten
    return Workload(len(hands), lambda: [shanten(h) for h in hands])


def shanten_riichienv() -> Workload:
    f = _riichienv_shanten()
    ids = random13().ids()
    return Workload(len(ids), lambda: [f(h) for h in ids])


def shanten_mahjong() -> Workload:
    from mahjong.shanten import Shanten

    f = Shanten().calculate_shanten
    rows = random13().lists(MAHJONG_HANDS)
    return Workload(len(rows), lambda: [f(r) for r in rows])


def agari_corpus(which: str) -> Corpus:
    return random14() if which == "random" else tenpai13()[1]


def agari_batch(which: str) -> Workload:
    c = agari_corpus(which).counts
    return Workload(len(c), lambda: batch.is_agari(c))


def agari_riichienv(which: str) -> Workload:
    # riichienv exposes no agari check of its own; shanten == -1 is its cheapest one.
    f = _riichienv_shanten()
    ids = agari_corpus(which).ids()
    return Workload(len(ids), lambda: [f(h) == -1 for h in ids])


def agari_mahjong(which: str) -> Workload:
    from mahjong.agari import Agari

    f = Agari.is_agari
    rows = agari_corpus(which).lists(MAHJONG_HANDS * 5)
    return Workload(len(rows), lambda: [f(r) for r in rows])


def waits_batch(threads: int = 1) -> Workload:
    c = tenpai13()[0].counts
    return Workload(len(c), lambda: batch.waits(c, n_threads=threads))


def waits_riichienv() -> Workload:
    evaluator = _riichienv_evaluator()
    ids = tenpai13()[0].ids()
    return Workload(len(ids), lambda: [evaluator(h, []).get_waits() for h in ids])


def waits_mahjong() -> Workload:
    rows = tenpai13()[0].lists(MAHJONG_WAITS_HANDS)
    return Workload(len(rows), lambda: _mahjong_waits(rows))


def ukeire_batch(threads: int = 1, full: bool = True) -> Workload:
    c = random14().counts
    return Workload(len(c), lambda: batch.ukeire(c, full=full, n_threads=threads))


def text_shanten(threads: int = 1) -> Workload:
    data = text13()
    lines = random13().n
    return Workload(lines, lambda: batch.shanten_text(data, n_threads=threads))


# (operation, implementation, factory); the first row of each operation is the reference for
# the ratios. ``threads`` rows feed the scaling table.
WORKLOADS: list[tuple[str, str, Callable[[], Workload]]] = [
    ("shanten", "mjcore batch, 1 thread", lambda: shanten_batch(1)),
    ("shanten", "mjcore batch, 2 threads", lambda: shanten_batch(2)),
    ("shanten", "mjcore.shanten(Hand), one call per hand", shanten_single_api),
    ("shanten", "riichienv.calculate_shanten, one call per hand", shanten_riichienv),
    ("shanten", "mahjong Shanten().calculate_shanten, one call per hand", shanten_mahjong),
    ("agari", "mjcore batch, 1 thread", lambda: agari_batch("random")),
    ("agari", "riichienv calculate_shanten(...) == -1", lambda: agari_riichienv("random")),
    ("agari", "mahjong Agari.is_agari", lambda: agari_mahjong("random")),
    ("agari (tenpai + draw)", "mjcore batch, 1 thread", lambda: agari_batch("tenpai")),
    ("agari (tenpai + draw)", "riichienv calculate_shanten(...) == -1",
     lambda: agari_riichienv("tenpai")),
    ("agari (tenpai + draw)", "mahjong Agari.is_agari", lambda: agari_mahjong("tenpai")),
    ("waits", "mjcore batch, 1 thread", lambda: waits_batch(1)),
    ("waits", "mjcore batch, 2 threads", lambda: waits_batch(2)),
    ("waits", "riichienv HandEvaluator(ids, []).get_waits()", waits_riichienv),
    ("waits", "mahjong Agari.is_agari on each of 34 tiles", waits_mahjong),
    ("ukeire", "mjcore batch full=True, 1 thread", lambda: ukeire_batch(1)),
    ("ukeire", "mjcore batch full=True, 2 threads", lambda: ukeire_batch(2)),
    ("ukeire", "mjcore batch summary (full=False), 1 thread", lambda: ukeire_batch(1, False)),
    ("text to shanten", "mjcore batch.shanten_text, 1 thread", lambda: text_shanten(1)),
    ("text to shanten", "mjcore batch.shanten_text, 2 threads", lambda: text_shanten(2)),
]

# -- one call per hand: mjcore's per-call API against riichienv's, on the same hands ----------

PER_CALL_HANDS = 50_000


def _hands(corpus: Corpus, n: int) -> list[Any]:
    import mjcore

    return [mjcore.Hand.from_counts(row) for row in corpus.lists(n)]


@cache
def per_call_pairs(n: int = PER_CALL_HANDS) -> list[tuple[str, str, Workload, Workload]]:
    """(operation, corpus, mjcore, riichienv): one call per hand each, the same first ``n``
    hands of the corpus (mjcore gets them as Hand values, riichienv as 136-id lists)."""
    import mjcore

    shanten, is_agari, waits = mjcore.shanten, mjcore.is_agari, mjcore.waits
    f = _riichienv_shanten()
    evaluator = _riichienv_evaluator()
    r13, r14, t13 = random13(), random14(), tenpai13()[0]
    h13, h14, ht = _hands(r13, n), _hands(r14, n), _hands(t13, n)
    i13, i14, it = r13.ids(n), r14.ids(n), t13.ids(n)
    return [
        ("shanten", "random13",
         Workload(len(h13), lambda: [shanten(h) for h in h13]),
         Workload(len(i13), lambda: [f(h) for h in i13])),
        ("agari", "random14",
         Workload(len(h14), lambda: [is_agari(h) for h in h14]),
         Workload(len(i14), lambda: [f(h) == -1 for h in i14])),
        ("waits", "tenpai13",
         Workload(len(ht), lambda: [waits(h) for h in ht]),
         Workload(len(it), lambda: [evaluator(h, []).get_waits() for h in it])),
    ]


PER_CALL_IMPLS = {
    "shanten": ("mjcore.shanten(Hand)", "riichienv.calculate_shanten(ids)"),
    "agari": ("mjcore.is_agari(Hand)", "riichienv calculate_shanten(ids) == -1"),
    "waits": ("mjcore.waits(Hand)", "riichienv HandEvaluator(ids, []).get_waits()"),
}


CORPUS_OF = {
    "shanten": "random13", "agari": "random14", "agari (tenpai + draw)": "tenpai13 + next draw",
    "waits": "tenpai13", "ukeire": "random14", "text to shanten": "random13 as mpsz lines",
}


# -- agreement of the peers with mjcore on the measured hands (not timed) -----------------------

def agreement() -> list[tuple[str, str, int, int]]:
    """(operation, peer, agreeing hands, hands compared)."""
    from mahjong.agari import Agari
    from mahjong.shanten import Shanten

    out = []
    r13 = random13()
    ours = batch.shanten(r13.counts).shanten.astype(int)
    f = _riichienv_shanten()
    theirs = np.array([f(h) for h in r13.ids()])
    out.append(("shanten", "riichienv", int((theirs == ours).sum()), len(ours)))
    m = Shanten().calculate_shanten
    theirs = np.array([m(r) for r in r13.lists(MAHJONG_HANDS)])
    out.append(("shanten", "mahjong", int((theirs == ours[:MAHJONG_HANDS]).sum()), len(theirs)))
    for which in ("random", "tenpai"):
        corpus = agari_corpus(which)
        ours = batch.is_agari(corpus.counts).agari
        theirs = np.array([f(h) == -1 for h in corpus.ids()])
        label = "agari" if which == "random" else "agari (tenpai + draw)"
        out.append((label, "riichienv", int((theirs == ours).sum()), len(ours)))
        n = MAHJONG_HANDS * 5
        theirs = np.array([Agari.is_agari(r) for r in corpus.lists(n)])
        out.append((label, "mahjong", int((theirs == ours[:n]).sum()), len(theirs)))
    tenpai = tenpai13()[0]
    ours_masks = batch.waits(tenpai.counts).mask.tolist()
    evaluator = _riichienv_evaluator()
    theirs_masks = [sum(1 << k for k in set(evaluator(h, []).get_waits())) for h in tenpai.ids()]
    same = sum(a == b for a, b in zip(ours_masks, theirs_masks, strict=True))
    out.append(("waits", "riichienv", same, len(ours_masks)))
    theirs_masks = _mahjong_waits(tenpai.lists(MAHJONG_WAITS_HANDS))  # the first hands only
    same = sum(a == b for a, b in zip(ours_masks, theirs_masks, strict=False))
    out.append(("waits", "mahjong", same, len(theirs_masks)))
    return out


# -- thread scaling on large batches (10x the corpora, tiled) -----------------------------------

SCALING_REPEAT = 10


def scaling_workloads() -> list[tuple[str, Callable[[int], Workload]]]:
    """(operation, threads -> workload) on the corpora repeated SCALING_REPEAT times: long
    enough runs that waking the second thread on a busy machine does not dominate."""
    def shanten_big(threads: int) -> Workload:
        c = np.tile(random13().counts, (SCALING_REPEAT, 1))
        return Workload(len(c), lambda: batch.shanten(c, n_threads=threads))

    def waits_big(threads: int) -> Workload:
        c = np.tile(tenpai13()[0].counts, (SCALING_REPEAT, 1))
        return Workload(len(c), lambda: batch.waits(c, n_threads=threads))

    def text_big(threads: int) -> Workload:
        data = text13() * SCALING_REPEAT
        return Workload(random13().n * SCALING_REPEAT,
                        lambda: batch.shanten_text(data, n_threads=threads))

    return [("shanten", shanten_big), ("waits", waits_big), ("text to shanten", text_big)]
