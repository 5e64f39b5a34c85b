"""An installed package against the development build, kernel by kernel, in one run (issue 28).

Each build runs in its own process (its interpreter; the tree's with PYTHONPATH on it), the builds
alternated round by round, on the same seeded inputs: batch shanten, waits, ukeire and agari,
riichi batch scoring, and the Chinese classical batch scorer (Bradfield deals). Each line gives
the median rate per build and the ratio to the first build.

    python benchmarks/bench_install.py --python build/wheel/venv/bin/python --rounds 5

The default builds: the tree (``make build``), the same tree forced to the portable level
(``MJCORE_SIMD=x86-64``, what every pip install ran before the dispatch build) and, with
``--python``, an installed package (``make wheel-check`` leaves one in build/wheel/venv).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BRADFIELD = ROOT.parent / "shared" / "data" / "classical" / "bradfield-games.tar.xz"

CHILD = r'''
import itertools, json, sys, time
import numpy as np
import mjcore
from mjcore import batch
from mjcore.classical.batch import pack_deals, score_deals

rng = np.random.default_rng(20261202)
n = int(sys.argv[1])
ids = rng.random((n, 136)).argsort(axis=1)
def hands(tiles):
    out = np.zeros((n, 34), np.uint8)
    np.add.at(out, (np.repeat(np.arange(n), tiles), (ids[:, :tiles] // 4).ravel()), 1)
    return out
h13, h14 = hands(13), hands(14)
agari = batch.is_agari(h14).values["agari"].astype(bool)
# winning hands for scoring: random 14-tile rows are rarely complete, so take the tenpai 13-tile
# rows and add their lowest wait
w = batch.waits(h13)
tenpai = np.flatnonzero(batch.shanten(h13).shanten == 0)
mask = w.values["mask"][tenpai].astype(np.uint64)
win = np.array([int(m & -m).bit_length() - 1 for m in mask], np.uint8)
wins = h13[tenpai].copy()
wins[np.arange(len(tenpai)), win] += 1
ok = wins.max(axis=1) <= 4
wins, win = wins[ok], win[ok]
deals = []
if sys.argv[2]:
    from mjcore.classical.bradfield import deal_from_history
    from mjcore.classical.history import read_histories
    deals = [deal_from_history(h) for h in itertools.islice(read_histories(sys.argv[2]), 3000)]
packed = pack_deals(deals) if deals else None
work = {
    "shanten": (lambda: batch.shanten(h13), n),
    "waits": (lambda: batch.waits(h13), n),
    "ukeire": (lambda: batch.ukeire(h14), n),
    "agari": (lambda: batch.is_agari(h14), n),
    "score": (lambda: batch.score(wins, win), len(wins)),
}
if packed is not None:
    work["classical"] = (lambda: score_deals(**packed), len(deals))
out = {"level": __import__("mjcore._core", fromlist=["LEVEL"]).LEVEL, "where": mjcore.__file__}
for name, (run, count) in work.items():
    run()
    times = []
    for _ in range(3):
        t = time.process_time(); run(); times.append(time.process_time() - t)
    out[name] = count / min(times)
print(json.dumps(out))
'''


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--python", help="an installed package's interpreter (its own mjcore)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--hands", type=int, default=200_000)
    args = ap.parse_args()
    builds = {"tree": (sys.executable, {"PYTHONPATH": str(ROOT)}),
              "tree x86-64": (sys.executable, {"PYTHONPATH": str(ROOT), "MJCORE_SIMD": "x86-64"})}
    if args.python:
        builds = {"installed": (args.python, {}), **builds}
    rates: dict[str, list[dict]] = {b: [] for b in builds}
    base = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MJCORE_SIMD")}
    for r in range(args.rounds):
        for name, (python, env) in builds.items():
            p = subprocess.run([python, "-c", CHILD, str(args.hands),
                                str(BRADFIELD) if BRADFIELD.exists() else ""],
                               env={**base, **env}, cwd="/", capture_output=True, text=True,
                               check=False, timeout=1800)
            if p.returncode != 0:
                sys.exit(f"{name}: {p.stderr.strip()[-2000:]}")
            rates[name].append(json.loads(p.stdout))
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr, flush=True)
    first = next(iter(builds))
    kernels = [k for k in rates[first][0] if k not in ("level", "where")]
    print(f"{'kernel':<10}" + "".join(f"{b + ' (' + rates[b][0]['level'] + ')':>26}"
                                      for b in builds) + "   ratio to " + first)
    for k in kernels:
        med = {b: statistics.median(x[k] for x in rates[b]) for b in builds}
        print(f"{k:<10}" + "".join(f"{med[b] / 1e6:>22.3f} M/s" for b in builds) + "   "
              + "  ".join(f"{med[b] / med[first]:.3f}" for b in builds if b != first))


if __name__ == "__main__":
    main()
