"""The 14-tile ukeire kernel against its definition through the 13-tile advance kernel: for
every discard, the shanten and the advancing tiles of the hand left. Hands with 0 to 4 called
melds, and hands rich in pairs or in orphans (seven pairs and thirteen orphans tie or win)."""

import numpy as np
import pytest

from mjcore import batch
from tests.core.hands import random_with_melds

ORPHANS = np.array([0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33])


def _from_wall(n: int, seed: int, kinds_of_row) -> np.ndarray:
    """(n, 34) 14-tile hands, each drawn from a wall of 4 copies of the kinds given per row."""
    rng = np.random.default_rng(seed)
    out = np.zeros((n, 34), dtype=np.uint8)
    for i in range(n):
        wall = np.repeat(kinds_of_row(rng), 4)
        np.add.at(out[i], rng.permutation(wall)[:14], 1)
    return out


def _pair_rich(n: int, seed: int) -> np.ndarray:
    return _from_wall(n, seed, lambda rng: rng.choice(34, size=rng.integers(5, 10), replace=False))


def _orphan_rich(n: int, seed: int) -> np.ndarray:
    return _from_wall(n, seed, lambda rng: np.union1d(
        ORPHANS, rng.choice(34, size=rng.integers(0, 4), replace=False)))


def _expected(counts: np.ndarray, melds: np.ndarray):
    """after (N, 34), masks (N, 34), and the summary, from batch.waits on each discard."""
    n = counts.shape[0]
    rows, kinds = np.nonzero(counts)
    left = counts[rows].copy()
    left[np.arange(len(rows)), kinds] -= 1
    w = batch.waits(left, melds[rows])
    assert w.ok.all()
    after = np.full((n, 34), 127, dtype=np.int8)
    masks = np.zeros((n, 34), dtype=np.uint64)
    after[rows, kinds] = w.shanten
    masks[rows, kinds] = w.advance_mask
    best = after.min(axis=1)
    bits = (masks[:, :, None] >> np.arange(34, dtype=np.uint64)) & np.uint64(1)   # (N, 34, 34)
    bits = bits.astype(np.int64)
    unseen = (bits * (4 - counts[:, None, :].astype(np.int64))).sum(axis=2)
    unseen += bits[:, np.arange(34), np.arange(34)]        # the discarded copy is unseen too
    score = np.where(after == best[:, None], unseen, -1)
    discard = score.argmax(axis=1)                          # most tiles, then the lowest kind
    return after, masks, best, discard, score[np.arange(n), discard]


CASES = {
    "melds": lambda: random_with_melds(1500, seed=31, extra=1),
    "pairs": lambda: (_pair_rich(800, seed=32), np.zeros(800, dtype=np.uint8)),
    "orphans": lambda: (_orphan_rich(800, seed=33), np.zeros(800, dtype=np.uint8)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_ukeire_matches_advance_after_each_discard(case):
    counts, melds = CASES[case]()
    after, masks, best, discard, count = _expected(counts, melds)
    full = batch.ukeire(counts, melds, full=True)
    summary = batch.ukeire(counts, melds)
    assert full.ok.all() and summary.ok.all()
    assert (full.after == after).all()
    assert (full.masks == masks).all()
    for r in (full, summary):
        assert (r.best_shanten == best).all()
        assert (r.best_discard == discard).all()
        assert (r.best_count == count).all()


def test_cases_reach_seven_pairs_and_thirteen_orphans():
    # the pair- and orphan-rich hands do exercise the two closed forms
    pairs = batch.shanten(_pair_rich(800, seed=32), forms=True).forms
    orphans = batch.shanten(_orphan_rich(800, seed=33), forms=True).forms
    assert (pairs[:, 1] <= pairs[:, 0]).sum() > 100
    assert (orphans[:, 2] <= orphans[:, 0]).sum() > 100


def _draw_cases():
    """13-3k tile hands (a tile of each case's hands taken out) with their melds."""
    for case in sorted(CASES):
        counts, melds = CASES[case]()
        for row, m in zip(counts[:400], melds[:400], strict=True):
            c = row.copy()
            c[np.flatnonzero(c)[-1]] -= 1
            yield case, c, int(m)


def test_draw_discards_matches_ukeire_of_each_drawn_hand():
    # the EV graph's shortcut (shanten.draw_discards: a draw node's groups combined once for
    # all its draws) against the ukeire kernel run on every drawn hand
    from mjcore._core import shanten as kernel
    seen = dict.fromkeys(CASES, 0)
    for case, c, m in _draw_cases():
        draws = bytes(k for k in range(34) if c[k] < 4)
        st, got = kernel.draw_discards(bytes(c.tolist()), m, draws)
        assert st == 0 and got is not None
        for k, (sh, keep) in zip(draws, got, strict=True):
            d = c.copy()
            d[k] += 1
            st, best, after, _ = kernel.ukeire(bytes(d.tolist()), m)
            assert st == 0 and after is not None
            expected = 0
            for j in range(34):
                if after[j] == best:
                    expected |= 1 << j
            assert (sh, keep) == (best, expected), (case, c.tolist(), m, k)
            seen[case] += 1
    assert min(seen.values()) > 5000


def test_draw_discards_refuses_what_cannot_be_drawn():
    from mjcore._core import shanten as kernel
    c = bytes([4] + [1] * 9 + [0] * 24)
    with pytest.raises(ValueError, match="kind 0"):
        kernel.draw_discards(c, 0, bytes([0]))
    with pytest.raises(ValueError, match="kind 40"):
        kernel.draw_discards(c, 0, bytes([40]))
    assert kernel.draw_discards(c[:33] + bytes([1]), 0, bytes([1]))[0] < 0    # 14 tiles
