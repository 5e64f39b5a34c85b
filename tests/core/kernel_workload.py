"""The kernels' answers on a seeded workload, printed as one JSON object: digests of the batch
kernels' outputs (shanten, waits, agari, ukeire), of the one-hand-per-call API (shanten, waits,
agari), of riichi scores and of Chinese classical deal scores, and the expected values of a few
hands (floats, compared with a tolerance: the x86-64-v3 build may contract a*b+c into one FMA).

Run as a script, ``python kernel_workload.py [BRADFIELD_ARCHIVE]``, by the tests that compare
two builds or two levels of one build (tests/core/test_simd_paths.py): it imports whichever
mjcore the interpreter finds and reports where it was and which level its kernels run.
"""
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

import mjcore
from mjcore import batch

# the Bradfield archive, as the caller found it (both runs of a comparison read the same file)
BRADFIELD = Path(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1] else None


rng = np.random.default_rng(14)


def random_hands(n, tiles):
    ids = rng.random((n, 136)).argsort(axis=1)[:, :tiles] // 4
    counts = np.zeros((n, 34), np.uint8)
    np.add.at(counts, (np.repeat(np.arange(n), tiles), ids.ravel()), 1)
    return counts


def built_hands(n, tiles):
    """Hands made of sets and a pair, then a few tiles swapped: mostly 0-2 shanten."""
    out = np.zeros((n, 34), np.uint8)
    for row in out:
        while row.sum() < tiles - 2:
            k = int(rng.integers(34))
            if k < 27 and k % 9 < 7 and rng.random() < 0.6 and row[k:k + 3].max() < 4:
                row[k:k + 3] += 1
            elif row[k] <= 1:
                row[k] += 3
        while row.sum() < tiles:
            k = int(rng.integers(34))
            if row[k] < 4:
                row[k] += 1
        row[:] = np.minimum(row, 4)
        while row.sum() > tiles:
            row[int(rng.choice(np.flatnonzero(row)))] -= 1
        while row.sum() < tiles:
            k = int(rng.integers(34))
            if row[k] < 4:
                row[k] += 1
    return out


def digest(result):
    h = hashlib.sha256(np.ascontiguousarray(result.status).tobytes())
    for name in sorted(result.values):
        h.update(name.encode() + np.ascontiguousarray(result.values[name]).tobytes())
    return h.hexdigest()


h13 = np.concatenate([random_hands(4000, 13), built_hands(4000, 13)])
h14 = np.concatenate([random_hands(4000, 14), built_hands(4000, 14)])
melds = rng.integers(0, 2, len(h13)).astype(np.uint8)
h10 = h13.copy()
for row, m in zip(h10, melds, strict=False):            # one meld: 10 tiles
    while m and row.sum() > 10:
        row[int(rng.choice(np.flatnonzero(row)))] -= 1


def score_digest(hands):
    """Scores of the winning 14-tile rows (each hand's lowest kind as the winning tile, ron then
    tsumo, riichi, with a dora indicator)."""
    h = hashlib.sha256()
    for row in hands:
        tiles = "".join(f"{k % 9 + 1}{'mpsz'[k // 9]}" * int(c) for k, c in enumerate(row))
        win = int(np.flatnonzero(row)[0])
        indicator = int(np.flatnonzero(row < 4)[-1])
        for tsumo in (False, True):
            result = mjcore.score(tiles, f"{win % 9 + 1}{'mpsz'[win // 9]}", tsumo=tsumo,
                                  dora=[f"{indicator % 9 + 1}{'mpsz'[indicator // 9]}"],
                                  riichi=True)
            h.update(json.dumps(result.to_dict(), sort_keys=True, default=str).encode())
    return h.hexdigest()


def classical_digest(limit=1500):
    import itertools

    from mjcore.classical import score_deal
    from mjcore.classical.bradfield import deal_from_history
    from mjcore.classical.history import read_histories

    if BRADFIELD is None:
        return None
    h = hashlib.sha256()
    for hist in itertools.islice(read_histories(BRADFIELD), limit):
        h.update(repr(score_deal(deal_from_history(hist))).encode())
    return h.hexdigest()


def expected(hands):
    """Per hand, per discard: the tile and its tenpai, win and ev arrays (both models)."""
    out = []
    for row in hands:
        tiles = "".join(f"{k % 9 + 1}{'mpsz'[k // 9]}" * int(c) for k, c in enumerate(row))
        for model in ("consistent", "compatible"):
            result = mjcore.expected_values(tiles, dora=["1z"], model=model, t_max=12,
                                            max_shanten=2, max_seconds=60.0)
            out.append([result.status] + [
                [d["tile"], d["tenpai"], d["win"], d["ev"]]
                for d in result.to_dict()["discards"]])
    return out


def draw_discards_digest(hands13):
    """The EV graph's shortcut kernel: each 13-tile hand's draws, their shanten and best
    discards."""
    from mjcore._core import shanten as kernel
    h = hashlib.sha256()
    for row in hands13:
        draws = bytes(k for k in range(34) if row[k] < 4)
        h.update(repr(kernel.draw_discards(bytes(row.tolist()), 0, draws)).encode())
    return h.hexdigest()


def per_call_digest(hands13, hands14):
    """The one-hand-per-call API (mjcore._core.single) on the same hands: shanten with its
    forms and waits of each 13-tile hand, agari and shanten of each 14-tile hand."""
    h = hashlib.sha256()
    for row in hands13:
        hand = mjcore.Hand.from_counts(row.tolist())
        s, w = mjcore.shanten(hand), mjcore.waits(hand)
        h.update(repr((int(s), s.standard, s.chiitoitsu, s.kokushi, w.shanten,
                       [(x.tile, x.remaining) for x in w])).encode())
    for row in hands14:
        hand = mjcore.Hand.from_counts(row.tolist())
        s = mjcore.shanten(hand)
        h.update(repr((mjcore.is_agari(hand), int(s), s.standard, s.chiitoitsu,
                       s.kokushi)).encode())
    return h.hexdigest()


agari14 = h14[batch.is_agari(h14).values["agari"].astype(bool)][:150]
one_shanten = h14[batch.shanten(h14).shanten == 1][:12]
out = {
    "shanten13": digest(batch.shanten(h13, forms=True)),
    "shanten14": digest(batch.shanten(h14, forms=True)),
    "shanten_melds": digest(batch.shanten(h10, melds)),
    "waits": digest(batch.waits(h13)),
    "agari": digest(batch.is_agari(h14)),
    "ukeire": digest(batch.ukeire(h14, full=True)),
    "draw_discards": draw_discards_digest(h13[:2000]),
    "per_call": per_call_digest(h13, h14),
    "scores": score_digest(agari14),
    "n_scored": len(agari14),
    "classical": classical_digest(),
    "expected": expected(one_shanten),
    "tenpai_share": float((batch.shanten(h13).shanten == 0).mean()),
    "where": batch.__file__,
    "level": __import__("mjcore._core", fromlist=["LEVEL"]).LEVEL,
    "kernel_levels": {name: getattr(__import__(f"mjcore._core.{name}", fromlist=["x"]),
                                    "BUILT_FOR", None)
                      for name in ("shanten", "decompose", "scoring", "batch", "batch_scoring",
                                   "classical_scoring", "discard_analysis", "engine_turn", "ev",
                                   "single")},
}
json.dump(out, sys.stdout)
