"""Differential tests of the compiled kernels against the PyPI ``mahjong`` package.

Sizes follow the core issue: 1,000,000 random hands for shanten and for agari, 100,000 for
waits. ``MJCORE_ORACLE_SCALE`` (a float, default 1) scales them, e.g. 0.05 for a quick run.
The oracle is slow Python, so the work is split over worker processes.
"""
from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest

from mjcore import batch

from .hands import complete_hands, random_counts, random_with_melds, tenpai_hands

SCALE = float(os.environ.get("MJCORE_ORACLE_SCALE", "1"))
WORKERS = max(1, min(4, os.cpu_count() or 1))


def _n(full: int) -> int:
    return max(1000, int(full * SCALE))


def _oracle_shanten(args):
    counts, melds = args
    from mahjong.shanten import Shanten

    s = Shanten()
    out = np.empty((len(counts), 3), dtype=np.int16)
    for i, (row, k) in enumerate(zip(counts.tolist(), melds.tolist(), strict=True)):
        out[i, 0] = s.calculate_shanten_for_regular_hand(row)
        if k == 0:
            out[i, 1] = s.calculate_shanten_for_chiitoitsu_hand(row)
            out[i, 2] = s.calculate_shanten_for_kokushi_hand(row)
        else:
            out[i, 1] = out[i, 2] = 99
    return out


def _oracle_agari(counts):
    from mahjong.agari import Agari

    return np.array([Agari.is_agari(row) for row in counts.tolist()], dtype=bool)


def _oracle_waits(counts):
    from mahjong.agari import Agari

    out = np.zeros(len(counts), dtype=np.uint64)
    for i, row in enumerate(counts.tolist()):
        mask = 0
        for t in range(34):
            if row[t] >= 4:
                continue  # a fifth copy cannot be drawn
            row[t] += 1
            if Agari.is_agari(row):
                mask |= 1 << t
            row[t] -= 1
        out[i] = mask
    return out


def _split(*arrays, parts):
    idx = np.array_split(np.arange(len(arrays[0])), parts)
    return [tuple(a[i] for a in arrays) if len(arrays) > 1 else arrays[0][i] for i in idx]


def _map(fn, chunks):
    with ProcessPoolExecutor(WORKERS) as ex:
        return list(ex.map(fn, chunks))


def test_shanten_matches_mahjong_on_random_hands():
    n = _n(1_000_000)
    # 60% closed hands of 13/14 tiles, 40% with 0..4 called melds
    n_closed = int(n * 0.6)
    a = random_counts(n_closed, np.where(np.arange(n_closed) % 2 == 0, 13, 14), seed=11)
    b13, m13 = random_with_melds((n - n_closed) // 2, seed=12, extra=0)
    b14, m14 = random_with_melds(n - n_closed - (n - n_closed) // 2, seed=13, extra=1)
    counts = np.concatenate([a, b13, b14])
    melds = np.concatenate([np.zeros(n_closed, np.uint8), m13, m14])
    ours = batch.shanten(counts, melds, forms=True, n_threads=2)
    assert ours.ok.all()
    ref = np.concatenate(_map(_oracle_shanten, _split(counts, melds, parts=WORKERS * 8)))
    forms = ours.forms.astype(np.int16)
    bad = np.flatnonzero((forms != ref).any(axis=1))
    assert bad.size == 0, [(counts[i].tolist(), int(melds[i]), forms[i].tolist(),
                            ref[i].tolist()) for i in bad[:5]]
    best = np.where(melds == 0, ref.min(axis=1), ref[:, 0])
    assert (ours.shanten == best).all()
    assert len(counts) == n


def test_agari_matches_mahjong():
    n = _n(1_000_000)
    q = n // 4
    rng = np.random.default_rng(5)
    complete = complete_hands(q, seed=21)
    # near misses: a complete hand with one tile moved to a neighbouring kind
    near = complete_hands(q, seed=22).astype(np.int64)
    for row in near:
        src = rng.choice(np.flatnonzero(row))
        dst = int(np.clip(src + rng.choice([-1, 1]), 0, 33))
        if row[dst] < 4:
            row[src] -= 1
            row[dst] += 1
    # seven-pairs shapes, including a quad counted as "two pairs" (not complete in riichi)
    pairs = np.zeros((q, 34), dtype=np.int64)
    for row in pairs:
        kinds = rng.choice(34, size=7, replace=False)
        row[kinds] = 2
        if rng.random() < 0.2:
            row[kinds[0]] = 4
            row[kinds[1]] = 0
    rand = random_counts(n - 3 * q, 14, seed=23)
    counts = np.concatenate([complete, near.astype(np.uint8), pairs.astype(np.uint8), rand])
    ours = batch.is_agari(counts, n_threads=2)
    assert ours.ok.all()
    ref = np.concatenate(_map(_oracle_agari, _split(counts, parts=WORKERS * 8)))
    bad = np.flatnonzero(ours.agari != ref)
    assert bad.size == 0, [(counts[i].tolist(), bool(ours.agari[i]), bool(ref[i]))
                           for i in bad[:5]]
    assert ours.agari.sum() > q  # the generators really produce complete hands


def test_waits_match_mahjong():
    n = _n(100_000)
    half = n // 2
    tenpai = tenpai_hands(half, seed=31)
    rand13, melds = random_with_melds(n - half, seed=32, extra=0)
    counts = np.concatenate([tenpai, rand13])
    n_melds = np.concatenate([np.zeros(half, np.uint8), melds])
    ours = batch.waits(counts, n_melds, n_threads=2)
    assert ours.ok.all()
    ref = np.concatenate(_map(_oracle_waits, _split(counts, parts=WORKERS * 8)))
    ref_tenpai = ref != 0
    assert (ours.tenpai == ref_tenpai).all(), np.flatnonzero(ours.tenpai != ref_tenpai)[:5]
    bad = np.flatnonzero(ours.mask != ref)
    assert bad.size == 0, [(counts[i].tolist(), hex(int(ours.mask[i])), hex(int(ref[i])))
                           for i in bad[:5]]
    assert ours.tenpai[:half].mean() > 0.95


@pytest.mark.parametrize("total", [t for t in range(1, 15) if t % 3 != 0])
def test_every_single_suit_pattern(total):
    """Exhaustive: every pattern of one suit (and of the honors) of each hand size, with the
    called melds that make up the rest, against the oracle's standard shanten."""
    import itertools

    from mahjong.shanten import Shanten

    s = Shanten()
    k = (14 - total) // 3 if total % 3 == 2 else (13 - total) // 3
    for n_kinds, offset in ((9, 0), (7, 27)):
        rows = [c for c in itertools.product(range(5), repeat=n_kinds) if sum(c) == total]
        counts = np.zeros((len(rows), 34), dtype=np.uint8)
        counts[:, offset:offset + n_kinds] = np.array(rows, dtype=np.uint8)
        ours = batch.shanten(counts, k, forms=True)
        assert ours.ok.all()
        for row, got in zip(counts.tolist(), ours.forms[:, 0].tolist(), strict=True):
            assert got == s.calculate_shanten_for_regular_hand(row), (row, k)
