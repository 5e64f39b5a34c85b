"""The core benchmark table, without pytest: plain timing, median of N runs, peers side by side.

    .venv/bin/python benchmarks/report_core.py [--repeats 5] [--only waits] [--no-agreement]
                                               [--chart benchmarks/figures/core.png]
    .venv/bin/python benchmarks/report_core.py --per-call --repeats 7

Prints Markdown for BENCHMARKS.md: throughput of every workload in core_corpus.WORKLOADS (the
same seeded hands for mjcore and its peers), thread scaling, import time, table memory, the
machine load (``uptime``) before and after, and how often the peers agree with mjcore.
``--per-call`` prints only the one-call-per-hand table: mjcore.shanten, is_agari and waits on
Hand values against riichienv on the same hands, alternated in one run.
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import NamedTuple

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
try:
    import mjcore  # noqa: F401
except ImportError:  # a checkout that is built in place but not installed
    sys.path.insert(0, str(ROOT))

import core_corpus as cc

TARGETS = {  # issue 2, one core, batch API
    "shanten": 25e6, "agari": 40e6, "waits": 7e6, "ukeire": 1e6, "text to shanten": 5e6,
}
SINGLE_API_TARGET = 1e6


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True,
                              check=False).stdout.strip()
    except OSError:
        return "load average: " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def time_workload(work: cc.Workload, repeats: int) -> float:
    """Median seconds of one run, after one warm-up run."""
    work.run()
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        work.run()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def per_call(repeats: int) -> list[tuple[str, str, float, float, int]]:
    """(operation, corpus, mjcore seconds, riichienv seconds, hands): medians of ``repeats``
    runs after a warm-up, mjcore and riichienv alternated run by run (the one to go first
    alternating too), so both see the same load."""
    out = []
    for op, corpus, ours, theirs in cc.per_call_pairs():
        ours.run()
        theirs.run()
        times: dict[int, list[float]] = {0: [], 1: []}
        for r in range(repeats):
            order = (0, 1) if r % 2 == 0 else (1, 0)
            for which in order:
                work = ours if which == 0 else theirs
                t = time.perf_counter()
                work.run()
                times[which].append(time.perf_counter() - t)
        mine, peer = statistics.median(times[0]), statistics.median(times[1])
        out.append((op, corpus, mine, peer, ours.hands))
        print(f"  measured per call {op}: {peer / mine:.2f}x", file=sys.stderr)
    return out


def print_per_call(rows: list[tuple[str, str, float, float, int]], repeats: int) -> None:
    print(f"\n### One call per hand (target: mjcore ≥ 2× riichienv; median of {repeats} runs, "
          "alternated)\n")
    print("| operation | corpus | hands | mjcore | throughput | riichienv | throughput "
          "| mjcore is faster by |")
    print("| --- | --- | ---: | --- | ---: | --- | ---: | ---: |")
    for op, corpus, ours, theirs, hands in rows:
        mine, peer = cc.PER_CALL_IMPLS[op]
        print(f"| {op} | {corpus} | {hands:,} | `{mine}` | {rate(hands / ours)} | `{peer}` "
              f"| {rate(hands / theirs)} | {theirs / ours:.2f}× |")


def rate(x: float) -> str:
    if x >= 1e6:
        return f"{x / 1e6:.2f} M/s"
    if x >= 1e3:
        return f"{x / 1e3:.1f} k/s"
    return f"{x:.0f} /s"


_IMPORT_PROBE = """
import os, time, psutil
p = psutil.Process()
rss0 = p.memory_info().rss
t = time.perf_counter()
import mjcore
t_import = time.perf_counter() - t
rss1 = p.memory_info().rss
import numpy as np
from mjcore import batch
batch.shanten(np.zeros((1, 34), np.uint8))
rss2 = p.memory_info().rss
print(t_import, rss1 - rss0, rss2 - rss0)
"""

_NUMPY_PROBE = """
import time, psutil
p = psutil.Process()
rss0 = p.memory_info().rss
t = time.perf_counter()
import numpy
print(time.perf_counter() - t, p.memory_info().rss - rss0)
"""


def import_stats(runs: int) -> dict[str, float]:
    """Medians over fresh interpreters: import time and RSS growth of mjcore (and of numpy
    alone, which mjcore imports), process wall time of `python -c 'import mjcore'`."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    rows: dict[str, list[float]] = {k: [] for k in
                                     ("import_s", "rss_import", "rss_first_call", "numpy_s",
                                      "numpy_rss", "process_s", "bare_process_s")}
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", _IMPORT_PROBE], env=env, check=True,
                             capture_output=True, text=True).stdout.split()
        rows["import_s"].append(float(out[0]))
        rows["rss_import"].append(float(out[1]))
        rows["rss_first_call"].append(float(out[2]))
        out = subprocess.run([sys.executable, "-c", _NUMPY_PROBE], env=env, check=True,
                             capture_output=True, text=True).stdout.split()
        rows["numpy_s"].append(float(out[0]))
        rows["numpy_rss"].append(float(out[1]))
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import mjcore"], env=env, check=True)
        rows["process_s"].append(time.perf_counter() - t)
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], env=env, check=True)
        rows["bare_process_s"].append(time.perf_counter() - t)
    return {k: statistics.median(v) for k, v in rows.items()}


class Measured(NamedTuple):
    """What one run of the report measured (``load_before``/``load_after``: ``uptime``)."""

    results: list[tuple[str, str, int, float]]    # (operation, implementation, hands, s)
    big: list[tuple[str, float, float]]           # (operation, 1-thread and 2-thread rates)
    calls: list[tuple[str, str, float, float, int]]
    stats: dict[str, float] | None
    agree: list[tuple[str, str, int, int]]
    load_before: str
    load_after: str


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5, help="timed runs per workload (median)")
    ap.add_argument("--only", default="", help="only operations containing this text")
    ap.add_argument("--import-runs", type=int, default=7)
    ap.add_argument("--no-agreement", action="store_true", help="skip the peer agreement check")
    ap.add_argument("--chart", type=Path, help="also draw the throughputs as a PNG chart here")
    ap.add_argument("--per-call", action="store_true",
                    help="only the one-call-per-hand table (mjcore against riichienv)")
    args = ap.parse_args(argv)
    if args.per_call:
        report_per_call(args.repeats)
        return
    t0 = time.perf_counter()
    m = measure(args)
    before = m.load_before.split("load average:")[-1].strip()
    after = m.load_after.split("load average:")[-1].strip()
    print_kernels(m.results, args.repeats, time.perf_counter() - t0, before, after)
    if args.chart:
        from charts import throughput_chart

        throughput_chart(
            args.chart, "Core kernels: mjcore and its PyPI peers on the same seeded hands",
            [(op, impl, hands / seconds) for op, impl, hands, seconds in m.results],
            f"benchmarks/report_core.py --repeats {args.repeats}; median of {args.repeats} "
            f"runs; {os.cpu_count()} CPUs, shared; load before {before}, after {after}",
            rate)
    if m.calls:
        print_per_call(m.calls, args.repeats)
    print_thread_scaling(m.results)
    if m.big:
        print_big_scaling(m.big)
    if m.stats:
        print_import_stats(m.stats, args.import_runs)
    if m.agree:
        print_agreement(m.agree)


def report_per_call(repeats: int) -> None:
    """``--per-call``: the one-call-per-hand table alone, with the machine load."""
    load_before = uptime()
    rows = per_call(repeats)
    load_after = uptime()
    print(f"Command: `.venv/bin/python benchmarks/report_core.py --per-call --repeats "
          f"{repeats}`  ")
    print(f"{platform.machine()}, {os.cpu_count()} CPUs (shared): load before "
          f"`{load_before.split('load average:')[-1].strip()}`, after "
          f"`{load_after.split('load average:')[-1].strip()}` (1/5/15 min).")
    print_per_call(rows, repeats)


def measure(args: argparse.Namespace) -> Measured:
    """Every workload (``--only``: those of the operations named), the thread scaling on big
    batches, and without ``--only`` the per-call table, import statistics and agreement."""
    load_before = uptime()
    results: list[tuple[str, str, int, float]] = []
    for op, impl, factory in cc.WORKLOADS:
        if args.only and args.only not in op:
            continue
        work = factory()
        seconds = time_workload(work, args.repeats)
        results.append((op, impl, work.hands, seconds))
        print(f"  measured {op} / {impl}: {rate(work.hands / seconds)}", file=sys.stderr)
    big: list[tuple[str, float, float]] = []
    for op, scaled in cc.scaling_workloads():
        if args.only and args.only not in op:
            continue
        rates = []
        for threads in (1, 2):
            work = scaled(threads)
            rates.append(work.hands / time_workload(work, max(3, args.repeats // 2)))
            del work
        big.append((op, rates[0], rates[1]))
        print(f"  measured scaling {op}: {rates[1] / rates[0]:.2f}x", file=sys.stderr)
    calls = per_call(args.repeats) if not args.only else []
    stats = import_stats(args.import_runs) if not args.only else None
    agree = cc.agreement() if not (args.no_agreement or args.only) else []
    return Measured(results, big, calls, stats, agree, load_before, uptime())


def print_kernels(results: list[tuple[str, str, int, float]], repeats: int, seconds_in_all: float,
                  before: str, after: str) -> None:
    """The header (command, versions, corpus, load) and the throughput table."""
    import numpy as np

    import mjcore

    print("## Core kernels\n")
    print(f"Command: `.venv/bin/python benchmarks/report_core.py --repeats {repeats}`  ")
    print(f"mjcore {mjcore.__version__}, numpy {np.__version__}, Python {platform.python_version()}"
          f", {platform.machine()}, {os.cpu_count()} CPUs; {cc.N_HANDS:,} hands per corpus "
          f"(seed {cc.SEED}), each drawn from a shuffled 136-tile wall.  ")
    print(f"Median of {repeats} runs after a warm-up; {seconds_in_all:.0f} s in "
          f"all. The machine is shared: load before `{before}`, after `{after}` (1/5/15 min).\n")
    print("| operation | corpus | implementation | hands/round | median | throughput "
          "| mjcore batch (1 thread) is faster by | target |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | --- |")
    ref: dict[str, float] = {}
    for op, impl, hands, seconds in results:
        tput = hands / seconds
        ref.setdefault(op, tput)
        if impl.startswith("mjcore.shanten(Hand)"):
            target = f"≥ {rate(SINGLE_API_TARGET)}"
        elif "1 thread" in impl and ref[op] == tput and op in TARGETS:
            target = f"≥ {rate(TARGETS[op])}"
        else:
            target = ""
        ratio = "" if impl.startswith("mjcore batch") else f"{ref[op] / tput:,.1f}×"
        print(f"| {op} | {cc.CORPUS_OF[op]} | {impl} | {hands:,} | {seconds * 1e3:,.1f} ms "
              f"| {rate(tput)} | {ratio} | {target} |")


def print_thread_scaling(results: list[tuple[str, str, int, float]]) -> None:
    """Two threads against one, for the workloads measured both ways."""
    scaling = []
    by_key = {(op, impl): hands / s for op, impl, hands, s in results}
    for op, impl, _, _ in results:
        if impl.endswith("1 thread"):
            two = by_key.get((op, impl.replace("1 thread", "2 threads")))
            if two:
                scaling.append((op, by_key[(op, impl)], two))
    if scaling:
        print("\n### Thread scaling (target: 2 threads ≥ 1.8× one thread)\n")
        print("| operation | 1 thread | 2 threads | ratio |")
        print("| --- | ---: | ---: | ---: |")
        for op, one, two in scaling:
            print(f"| {op} | {rate(one)} | {rate(two)} | {two / one:.2f}× |")


def print_big_scaling(big: list[tuple[str, float, float]]) -> None:
    n_big = cc.N_HANDS * cc.SCALING_REPEAT
    print(f"\n### Thread scaling on {n_big:,}-hand batches (the corpora repeated "
          f"{cc.SCALING_REPEAT}×)\n")
    print("| operation | 1 thread | 2 threads | ratio |")
    print("| --- | ---: | ---: | ---: |")
    for op, one, two in big:
        print(f"| {op} | {rate(one)} | {rate(two)} | {two / one:.2f}× |")


def print_import_stats(stats: dict[str, float], import_runs: int) -> None:
    tables = ROOT / "mjcore" / "_core" / "shanten_tables.bin"
    size = tables.stat().st_size if tables.exists() else 0
    print(f"\n### Import and memory (median of {import_runs} fresh interpreters)\n")
    print("| measure | value | target |")
    print("| --- | ---: | --- |")
    print(f"| `import mjcore` (in-process) | {stats['import_s'] * 1e3:.0f} ms | < 500 ms |")
    print(f"| for scale: `import numpy` alone | {stats['numpy_s'] * 1e3:.0f} ms | |")
    print(f"| `python -c 'import mjcore'` minus `python -c pass` | "
          f"{(stats['process_s'] - stats['bare_process_s']) * 1e3:.0f} ms | |")
    print(f"| shanten_tables.bin on disk | {size / 2**20:.1f} MiB | < 64 MB |")
    print(f"| RSS growth by `import mjcore` | {stats['rss_import'] / 2**20:.1f} MiB | |")
    print(f"| for scale: `import numpy` alone | {stats['numpy_rss'] / 2**20:.1f} MiB | |")
    print(f"| RSS growth after `from mjcore import batch` and a first call (numpy included) "
          f"| {stats['rss_first_call'] / 2**20:.1f} MiB | < 64 MB (tables) |")


def print_agreement(agree: list[tuple[str, str, int, int]]) -> None:
    print("\n### Agreement of the peers with mjcore on the measured hands\n")
    print("| operation | peer | agree | hands |")
    print("| --- | --- | ---: | ---: |")
    for op, peer, same, n in agree:
        print(f"| {op} | {peer} | {same:,} | {n:,} |")


if __name__ == "__main__":
    main()
