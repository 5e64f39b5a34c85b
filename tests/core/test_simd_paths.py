"""The kernels answer the same on the x86-64 baseline path (portable C) as on this machine's
fast paths (SSSE3 byte shuffles, BMI2 pext, POPCNT).

`make test-debug` runs this file in the debug tree (build/debug-tree, compiled with
MJCORE_MARCH=baseline) with MJCORE_FAST_TREE pointing at the release build (MJCORE_MARCH=native):
both compute digests of the same seeded workload and they must agree. In the ordinary test run
(MJCORE_FAST_TREE unset) there is nothing to compare with, and the test is skipped.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

WORKLOAD = r'''
import hashlib, json
import numpy as np
from mjcore import batch

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
for row, m in zip(h10, melds):            # one meld: 10 tiles
    while m and row.sum() > 10:
        row[int(rng.choice(np.flatnonzero(row)))] -= 1
out = {
    "shanten13": digest(batch.shanten(h13, forms=True)),
    "shanten14": digest(batch.shanten(h14, forms=True)),
    "shanten_melds": digest(batch.shanten(h10, melds)),
    "waits": digest(batch.waits(h13)),
    "agari": digest(batch.is_agari(h14)),
    "ukeire": digest(batch.ukeire(h14, full=True)),
    "tenpai_share": float((batch.shanten(h13).shanten == 0).mean()),
    "where": batch.__file__,
}
print(json.dumps(out))
'''


def _build_info(tree: Path) -> dict:
    path = tree / "mjcore" / "_core" / "_build_info.json"
    return json.loads(path.read_text()) if path.exists() else {}


def test_baseline_kernels_agree_with_the_fast_paths():
    fast_tree = os.environ.get("MJCORE_FAST_TREE")
    if not fast_tree:
        pytest.skip("run by `make test-debug` (MJCORE_FAST_TREE = the release build)")
    here = Path(__file__).resolve().parents[2]
    assert _build_info(here).get("march") == "baseline", _build_info(here)
    fast = _build_info(Path(fast_tree))
    assert fast.get("march") not in (None, "baseline"), fast
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    answers = []
    for cwd in (here, Path(fast_tree)):       # each run imports the mjcore of its cwd
        r = subprocess.run([sys.executable, "-c", WORKLOAD], cwd=cwd, env=env,
                           capture_output=True, text=True, timeout=600, check=False)
        assert r.returncode == 0, r.stderr
        answer = json.loads(r.stdout)
        assert Path(answer.pop("where")).is_relative_to(cwd)
        answers.append(answer)
    baseline, fast_paths = answers
    assert baseline["tenpai_share"] > 0.1      # the workload reaches the interesting states
    assert baseline == fast_paths
