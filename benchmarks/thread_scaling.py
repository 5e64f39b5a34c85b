"""Thread scaling of the batch kernels, measured fairly on a machine whose cores differ.

    .venv/bin/python benchmarks/thread_scaling.py [--rounds 15] [--hands 2000000] [--per-core]

One thread and two threads alternate for every round, on the same seeded hands, so a core
that is slow for a while affects both sides alike. The table gives the median throughput of
each, the ratio of the medians, and the median of the per-round ratios (each round's two
runs are back to back, so that statistic is the least affected by the host's drift; issue 2
asks for 2 threads >= 1.8x one thread). ``--per-core`` adds, per round, 1 thread pinned to
each core in turn and a second 2-thread run: 2 threads against the mean of the cores' single-
thread rates at that moment, since the two vCPUs of this host often run at different speeds.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mjcore import batch
from tests.core.hands import random_counts, tenpai_hands


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--hands", type=int, default=2_000_000)
    ap.add_argument("--per-core", action="store_true",
                    help="also time 1 thread pinned to each core in every round")
    args = ap.parse_args()
    reps = max(1, args.hands // 200_000)
    h13 = np.tile(random_counts(200_000, 13, seed=1), (reps, 1))
    tp = np.tile(tenpai_hands(200_000, seed=3), (reps, 1))
    h14 = random_counts(200_000, 14, seed=2)
    text = b"\n".join(_mpsz(r).encode() for r in h13[:200_000])
    text = (text + b"\n") * reps
    work = {
        "shanten": (lambda th: batch.shanten(h13, n_threads=th), len(h13)),
        "waits": (lambda th: batch.waits(tp, n_threads=th), len(tp)),
        "ukeire": (lambda th: batch.ukeire(h14, full=True, n_threads=th), len(h14)),
        "text to shanten": (lambda th: batch.shanten_text(text, n_threads=th), len(h13)),
    }
    load = subprocess.run(["uptime"], check=False, capture_output=True, text=True).stdout.strip()
    print(f"Command: `.venv/bin/python benchmarks/thread_scaling.py --rounds {args.rounds} "
          f"--hands {args.hands}`; load before: {load.split('load average:')[-1].strip()}\n")
    cpus = sorted(os.sched_getaffinity(0))
    pinned = args.per_core and len(cpus) >= 2
    print("| operation | 1 thread (median) | 2 threads (median) | ratio of medians | "
          "median of per-round ratios | per-round ratios (min–max) |"
          + (" 2 threads / mean of 1 thread pinned to each core (median, min–max) |"
             if pinned else ""))
    print("| --- | ---: | ---: | ---: | ---: | --- |" + (" --- |" if pinned else ""))
    for name, (fn, n) in work.items():
        fn(1)
        fn(2)  # the OpenMP pool is created here, before any pinning, so it may use every core
        one: list[float] = []
        two: list[float] = []
        per_core: list[float] = []
        for _ in range(args.rounds):
            for th, out in ((1, one), (2, two)):
                out.append(_rate(fn, th, n))
            if pinned:
                # the same round on each core alone: what "one thread" is worth right now
                # on an average core of this host, whose cores drift apart
                singles = []
                for cpu in cpus[:2]:
                    os.sched_setaffinity(0, {cpu})
                    singles.append(_rate(fn, 1, n))
                os.sched_setaffinity(0, cpus)
                per_core.append(_rate(fn, 2, n) / statistics.mean(singles))
        ratios = [b / a for a, b in zip(one, two, strict=True)]
        m1, m2 = statistics.median(one), statistics.median(two)
        extra = (f" {statistics.median(per_core):.2f}× ({min(per_core):.2f}–{max(per_core):.2f}) |"
                 if pinned else "")
        print(f"| {name} | {m1 / 1e6:.2f} M/s | {m2 / 1e6:.2f} M/s | {m2 / m1:.2f}× | "
              f"{statistics.median(ratios):.2f}× | {min(ratios):.2f}–{max(ratios):.2f} |{extra}")
    load = subprocess.run(["uptime"], check=False, capture_output=True, text=True).stdout.strip()
    print(f"\nload after: {load.split('load average:')[-1].strip()}")


def _rate(fn: Callable[[int], object], threads: int, n: int) -> float:
    t = time.perf_counter()
    fn(threads)
    return n / (time.perf_counter() - t)


def _mpsz(row: np.ndarray) -> str:
    out = []
    for s, letter in enumerate("mpsz"):
        digits = "".join(str(i + 1) * int(row[9 * s + i]) for i in range(7 if s == 3 else 9))
        if digits:
            out.append(digits + letter)
    return "".join(out)


if __name__ == "__main__":
    main()
