"""Seeded hand generators shared by the core tests and benchmarks."""
from __future__ import annotations

import numpy as np

WALL = np.repeat(np.arange(34, dtype=np.int64), 4)


def random_counts(n: int, size: int | np.ndarray, seed: int) -> np.ndarray:
    """(n, 34) uint8 counts of hands drawn from shuffled 136-tile walls.
    ``size`` is one hand size or an (n,) array of sizes."""
    rng = np.random.default_rng(seed)
    sizes = np.broadcast_to(np.asarray(size), (n,))
    order = np.argsort(rng.random((n, 136)), axis=1)
    tiles = WALL[order]
    out = np.zeros((n, 34), dtype=np.uint8)
    take = np.arange(136)[None, :] < sizes[:, None]
    rows = np.repeat(np.arange(n), 136)[take.ravel()]
    np.add.at(out, (rows, tiles.ravel()[take.ravel()]), 1)
    return out


def random_with_melds(n: int, seed: int, extra: int) -> tuple[np.ndarray, np.ndarray]:
    """Hands with 0..4 called melds: (counts, n_melds); closed size 13+extra-3k."""
    rng = np.random.default_rng(seed + 1)
    melds = rng.integers(0, 5, size=n).astype(np.uint8)
    sizes = 13 + extra - 3 * melds.astype(np.int64)
    return random_counts(n, sizes, seed), melds


def complete_hands(n: int, seed: int) -> np.ndarray:
    """(n, 34) random complete standard-form 14-tile hands (4 sets + a pair)."""
    rng = np.random.default_rng(seed)
    out = np.zeros((n, 34), dtype=np.uint8)
    i = 0
    while i < n:
        c = np.zeros(34, dtype=np.int64)
        ok = True
        for _ in range(4):
            if rng.random() < 0.6:
                suit = rng.integers(0, 3)
                start = suit * 9 + rng.integers(0, 7)
                c[start:start + 3] += 1
            else:
                c[rng.integers(0, 34)] += 3
        c[rng.integers(0, 34)] += 2
        if c.max() > 4:
            ok = False
        if ok:
            out[i] = c
            i += 1
    return out


def tenpai_hands(n: int, seed: int) -> np.ndarray:
    """(n, 34) 13-tile hands made by removing one random tile from a complete hand."""
    rng = np.random.default_rng(seed + 7)
    full = complete_hands(n, seed).astype(np.int64)
    for row in full:
        kinds = np.flatnonzero(row)
        row[rng.choice(kinds)] -= 1
    return full.astype(np.uint8)
