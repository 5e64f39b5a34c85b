"""Expected values of discards (issue 25): mjcore against mahjong-cpp 0.9.8, per shanten.

    .venv/bin/python benchmarks/bench_ev.py [--per 15] [--rounds 5] [--threads-hands 10000]

The hands are the reference records of ../shared/data/ev/ at mahjong-cpp's default options
(t_max 18, extra 1, red fives, ura, shanten-down, tegawari), the first ``--per`` of each shanten
in each group (a seeded, fixed choice). mahjong-cpp cannot be run here; its time is the one the
records hold, measured by its own front on one of this project's 2-core machines. Ours is the
kernel's CPU time for the same hand in mahjong-cpp's model (the hand repeated in one batch, 50
rows at shanten 0 down to 1 at shanten 3, the time divided by the rows: no Python result
objects and no per-call cost, the work mahjong-cpp's timer covers), the median of
``--rounds``; the single-hand API's CPU time (one call, its result objects) beside it.
Ratio = mahjong-cpp's time / ours, the median of the per-hand ratios. Then the batch over
``--threads-hands`` hands (the records of shanten <= 1 repeated) on 1 and 2 threads,
interleaved, and the memory each call held at its peak. The CPU time is the process's, so
OpenBLAS's idle worker threads are kept out (OPENBLAS_NUM_THREADS=1 unless set: numpy's spinning
threads were 2-4 % of the samples in `perf`, work the kernel never does).
"""
from __future__ import annotations

import argparse
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")      # before numpy: see the docstring
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mjcore import batch
from tests.riichi.ev_records import as_arrays, evaluate, records

GROUPS = {"14 closed": ("14-fixed", "14-low-shanten"), "14 open": ("open-14",),
          "13 closed": ("13-fixed", "13-low-shanten")}
REPEAT = {0: 50, 1: 10, 2: 2, 3: 1}     # rows of the same hand per timed batch, by shanten
DEFAULTS = {"extra": 1, "red": 1, "ura": 1, "shanten_down": 1, "tegawari": 1, "t_max": 18}


def _sample(files: tuple[str, ...], shanten: int, per: int) -> list[dict]:
    out = []
    for name in files:
        for r in records(name):
            if r["shanten"] == shanten and all(r["request"][k] == v for k, v in DEFAULTS.items()):
                out.append(r)
                if len(out) == per:
                    return out
    return out


def _cpu(run, rounds: int) -> float:
    run()
    times = []
    for _ in range(rounds):
        c = time.process_time()
        run()
        times.append(time.process_time() - c)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per", type=int, default=15, help="hands per group and shanten")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads-hands", type=int, default=10_000)
    args = ap.parse_args()
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    print(f"load average {os.getloadavg()[0]:.2f}; {when}")
    print("\n| hands | shanten | n | mahjong-cpp (its records) | mjcore kernel | mjcore API "
          "| ratio (median) | nodes (median) | peak memory (median) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for group, files in GROUPS.items():
        for shanten in range(4):
            recs = _sample(files, shanten, args.per if shanten < 3 else max(3, args.per // 3))
            if not recs:
                continue
            theirs, ours, api, ratios, nodes, peaks = [], [], [], [], [], []
            for r in recs:
                arrays = as_arrays([r["request"]])
                out = batch.expected_values(**arrays, model="compatible", max_seconds=60)
                assert out.nodes[0] == r["searched"], (r["request"]["line"], out.nodes[0])
                # the hand repeated in one batch, so the call's fixed cost is shared out
                copies = REPEAT[shanten]
                many = {k: np.repeat(v, copies, axis=0) for k, v in arrays.items()}
                k = _cpu(lambda a=many: batch.expected_values(**a, model="compatible",
                                                              max_seconds=60),
                         args.rounds) / copies
                a = _cpu(lambda q=r["request"]: evaluate(q), args.rounds)
                theirs.append(r["us"] / 1e3)
                ours.append(k * 1e3)
                api.append(a * 1e3)
                ratios.append(r["us"] / 1e6 / k)
                nodes.append(int(out.nodes[0]))
                peaks.append(evaluate(r["request"]).bytes_peak)
            print(f"| {group} | {shanten} | {len(recs)} | {statistics.median(theirs):.3f} ms "
                  f"| {statistics.median(ours):.3f} ms | {statistics.median(api):.3f} ms "
                  f"| {statistics.median(ratios):.2f}x | {statistics.median(nodes):,.0f} "
                  f"| {statistics.median(peaks) / 1e6:.2f} MB |", flush=True)
    # thread scaling on many small hands
    small = [r["request"] for r in records("14-low-shanten")
             if all(r["request"][k] == v for k, v in DEFAULTS.items())][:200]
    arrays = as_arrays(small)
    reps = max(1, args.threads_hands // len(small))
    big = {k: np.concatenate([v] * reps) for k, v in arrays.items()}
    n = big["counts"].shape[0]
    rates: dict[int, list[float]] = {1: [], 2: []}
    for _ in range(3):
        for threads in (1, 2):
            t = time.perf_counter()
            batch.expected_values(**big, n_threads=threads, model="compatible")
            rates[threads].append(n / (time.perf_counter() - t))
    one, two = statistics.median(rates[1]), statistics.median(rates[2])
    print(f"\nbatch of {n:,} hands (shanten 0-1, 14 tiles): 1 thread {one:,.0f} hands/s, "
          f"2 threads {two:,.0f} hands/s, ratio {two / one:.2f} (wall time, medians of 3, "
          f"interleaved)")


if __name__ == "__main__":
    main()
