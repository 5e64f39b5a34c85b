"""`mjcore analyze EXTRACT --out DIR --ev` (issue 26) on a sample of the shipped Tenhou
archive: rows per second per core by shanten, and the job's wall time against the kernel's.

    .venv/bin/python benchmarks/bench_dataset_ev.py [--records 4] [--workers 2]

The first ``--records`` four-player mjlog records of the archive are extracted (two parts, by
game). Kernel: the discard decisions the job evaluates, grouped by the hand's shanten, through
``mjcore.batch.expected_values`` at the default options (one thread, CPU seconds, the rows'
own turns) -> rows per CPU second by shanten. Job: ``analyze_dir(..., ev=EvOptions())`` on
``--workers`` workers, wall time, against the job without ``--ev`` and against the kernel's CPU
time spread over the workers (the ideal): what the job around the kernel adds.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np
import pyarrow.parquet as pq

ARCHIVE = ROOT.parent / "shared" / "data" / "tenhou" / "mjlog.tar.xz"
if not ARCHIVE.exists():
    ARCHIVE = Path("/work/shared/data/tenhou/mjlog.tar.xz")


def _records(n: int, into: Path) -> None:
    from mjcore.riichi.mjlog import declares_sanma

    taken = 0
    with tarfile.open(ARCHIVE) as tar:
        for m in tar:
            if not m.isfile() or not m.name.endswith((".xml", ".mjlog")):
                continue
            f = tar.extractfile(m)
            data = f.read() if f is not None else b""
            if b"<mjloggm" not in data[:200] or declares_sanma(data.decode("utf-8", "replace")):
                continue
            (into / f"r{taken:03d}.xml").write_bytes(data)
            taken += 1
            if taken == n:
                return


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=4)
    ap.add_argument("--workers", type=int, default=2)
    opts = ap.parse_args()

    from mjcore.dataset.analysed_parts import read_table
    from mjcore.dataset.analysis import analyze_dir
    from mjcore.dataset.expected import EvOptions, ev_table
    from mjcore.dataset.extraction import extract

    tmp = Path(tempfile.mkdtemp(prefix="bench_ev_"))
    try:
        (tmp / "recs").mkdir()
        _records(opts.records, tmp / "recs")
        table = extract(str(tmp / "recs"), workers=1)
        game = table.column("game").to_numpy()
        cut = int(np.flatnonzero(game >= np.median(game))[0])
        (tmp / "ex").mkdir()
        pq.write_table(table.slice(0, cut), tmp / "ex" / "part-00000.parquet")
        pq.write_table(table.slice(cut), tmp / "ex" / "part-00001.parquet")

        t = time.perf_counter()
        analyze_dir(str(tmp / "ex"), str(tmp / "plain"), workers=opts.workers)
        plain = time.perf_counter() - t
        t, c = time.perf_counter(), time.process_time()
        analyze_dir(str(tmp / "ex"), str(tmp / "ev"), workers=opts.workers, ev=EvOptions())
        job, job_cpu = time.perf_counter() - t, time.process_time() - c
        an = read_table(str(tmp / "ev"), ["shanten", "ev_status", "action"]).to_pandas()
        decided = an["ev_status"].notna()
        print(f"{opts.records} records, {table.num_rows:,} rows, {int(decided.sum()):,} "
              f"discard decisions; {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
        print(an.loc[decided, "ev_status"].value_counts().to_string())

        # the kernel alone, by shanten, one thread
        print(f"\n{'shanten':>7} {'rows':>6} {'CPU s':>8} {'rows/CPU s':>10}")
        kernel = 0.0
        shanten = an["shanten"].to_numpy()
        for s in sorted(set(shanten[decided & an["shanten"].notna()].astype(int).tolist())):
            rows = np.flatnonzero((shanten == s) & decided.to_numpy())
            sub = table.take(rows)
            c = time.process_time()
            out = ev_table(sub, 1, EvOptions())
            cpu = time.process_time() - c
            kernel += cpu
            ok = sum(1 for x in out.column("ev_status").to_pylist() if x == "ok")
            print(f"{s:>7} {rows.size:>6} {cpu:>8.2f} {rows.size / cpu:>10.1f}  ({ok} ok)",
                  flush=True)
        ideal = kernel / opts.workers
        print(f"\njob with --ev {job:.1f} s wall, {job_cpu:.1f} CPU s on {opts.workers} "
              f"workers, without --ev {plain:.1f} s; kernel CPU {kernel:.1f} s -> ideal "
              f"{ideal:.1f} s on {opts.workers} cores; wall over ideal {job / ideal:.2f}x "
              "(other processes' load and the parts' imbalance; rows stopped by the 1 s "
              "deadline take less CPU when the cores are shared)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
