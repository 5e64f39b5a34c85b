"""The dataset job (issue 15) on the shipped Tenhou archive: extract, analyse, Dask, memory.

    .venv/bin/python benchmarks/bench_dataset.py                  # everything, Markdown out
    .venv/bin/python benchmarks/bench_dataset.py --only analyze   # one part: extract, analyze,
                                                                  # dask or memory

- **extract**: the archive (1,640 complete four-player games among its 2,261 records) into
  Parquet parts, with 1 and with 2 worker processes; wall time and CPU seconds per core.
- **analyze**: rows/s per core (CPU time) of the analyse step, Parquet in and Parquet out
  (`analyze_dir`, one part at a time on one kernel thread), against the same analysis on the
  same hands already in memory as numpy arrays (`mjcore.dataset.analyze_hands`, the one-pass
  kernel: shanten by form, waits and ukeire weighted by the unseen tiles, every discard, the
  best and the made discard; and the batch scoring kernel on the win rows; one thread, part by
  part). Each round times both back to back; the ratio is the median of the per-round ratios.
  For comparison, also the analysis of the parts' tables already read into memory up to the
  Arrow columns (what `mjcore.dataset.analyze` does in memory), and the job's ratio to it;
  and `analyze_dir` with its output discarded (every stage but the Parquet write: the bound
  that any output format of the analysis stays under).
  Then the CPU of each stage of the Parquet job (best of the rounds): reading the part and its
  side table of win rows, building and writing a part's analysis columns (the typed scalar
  columns and the packed `kind_detail`) and its table of wins (SCHEMA.md).
- **write-options**: the write of every analysed part's base file (the typed analysis
  columns and `kind_detail`) under other Parquet options than the job's (`write_options`:
  PLAIN, uncompressed numbers, no dictionary, no statistics), and of one column at a time
  with and without its nulls: CPU seconds over the parts (best of the rounds, options
  alternated) and bytes. Then the same base files written by the other Parquet writers on
  PyPI (polars, DuckDB, fastparquet; `pip install -e '.[bench]'`), for whether another writer
  would make the analyse step cheaper (CPU time, so their threads count in full).
- **dask**: the analyse step on local Dask clusters of 1 and of 2 single-threaded worker
  processes (started before timing), each round timing both back to back; the median of the
  per-round ratios of wall times.
- **ev** (issue 26; not in the default run, ``--only ev``): `mjcore analyze --ev` with two
  worker processes on ``--ev-games`` records drawn from the archive (seeded), against the
  engine alone on the same rows (the EV step in process on one thread, the batch search split
  by shanten and timed); the share of the job's cores spent in the search, and the whole
  archive's wall time projected from its rows by shanten (counted without searching).
- **memory**: peak resident memory (the process and its children, sampled every 50 ms) of
  `mjcore extract` + `mjcore analyze` on the archive and on 10 copies of it; with
  ``--ev-max-shanten S`` the analyse step runs with `--ev --max-shanten S` too (the job's
  memory with its EV columns at a bound that keeps ten copies feasible: the search's own
  memory is bounded a thread by its node budget, whatever the input's size).
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
try:
    import mjcore  # noqa: F401
except ImportError:
    sys.path.insert(0, str(ROOT))

ARCHIVE = Path(os.environ.get("MJCORE_TENHOU_DATA", ROOT.parent / "shared" / "data" / "tenhou")) \
    / "mjlog.tar.xz"
if not ARCHIVE.exists():
    ARCHIVE = Path("/work/shared/data/tenhou/mjlog.tar.xz")
ARCHIVE = Path(os.environ.get("MJCORE_BENCH_DATASET_ARCHIVE", ARCHIVE))   # a smaller one


_START = time.perf_counter()


def _step(what: str) -> None:
    """Progress on stderr (the tables go to stdout)."""
    print(f"  [{time.perf_counter() - _START:6.1f} s] {what}", file=sys.stderr, flush=True)


def bench_extract(work: Path, rounds: int) -> list[str]:
    """`mjcore extract` in a subprocess: wall time and the CPU seconds of its process tree."""
    import pyarrow.parquet as pq

    from mjcore.dataset.common import part_files

    lines = [("| extract of the archive (2,261 records: 1,727 four-, 534 three-player) | wall s "
              "(median) | CPU s, all processes | CPU s per worker | rows |"),
             "| --- | --- | --- | --- | --- |"]
    for workers in (1, 2):
        walls, cpus = [], []
        out = work / f"ex-{workers}"
        for r in range(rounds):
            _step(f"extract, {workers} worker(s), round {r + 1} of {rounds}")
            shutil.rmtree(out, ignore_errors=True)
            wall, _peak, cpu_s = _run_tree([sys.executable, "-m", "mjcore.cli", "extract",
                                            str(ARCHIVE), "--out", str(out), "-j",
                                            str(workers), "--no-progress"])
            walls.append(wall)
            cpus.append(cpu_s)
        rows = sum(pq.read_metadata(f).num_rows for f in part_files(str(out)))
        lines.append(f"| {workers} worker process(es) | {statistics.median(walls):.2f} | "
                     f"{statistics.median(cpus):.2f} | {statistics.median(cpus) / workers:.2f} | "
                     f"{rows:,} |")
    return lines


CLASSICAL = ARCHIVE.parent.parent / "classical" / "bradfield-games.tar.xz"


def bench_classical(work: Path) -> list[str]:
    """`mjcore extract` of the 300 Bradfield games (6,633 hands, each replayed through the
    classical referee), with 2 worker processes."""
    import pyarrow.parquet as pq

    from mjcore.dataset.common import part_files

    out = work / "classical"
    wall, peak, cpu_s = _run_tree([sys.executable, "-m", "mjcore.cli", "extract", str(CLASSICAL),
                                   "--out", str(out), "-j", "2", "--no-progress"])
    rows = sum(pq.read_metadata(f).num_rows for f in part_files(str(out)))
    return [("| extract of the Bradfield archive (300 games, 6,633 hands), 2 workers | wall s "
            "| CPU s | peak RSS | rows |"), "| --- | --- | --- | --- | --- |",
            f"| | {wall:.1f} | {cpu_s:.1f} | {peak / 2**20:,.0f} MiB | {rows:,} |"]


def _extract_once(work: Path) -> Path:
    from mjcore.dataset.extraction import extract

    out = work / "ex"
    if not (out / "_extract.json").exists():
        extract(str(ARCHIVE), str(out), workers=2)
    return out


def _in_memory(ex: Path) -> list[tuple[Any, Any]]:
    """Every part of the extract as the analysis takes it in memory: the hands' numpy arrays
    and the win rows' scoring arrays (built once, outside the timing)."""
    import numpy as np

    from mjcore.dataset.common import part_files
    from mjcore.dataset.hand_arrays import read_hands
    from mjcore.dataset.inputs import read_input_part
    from mjcore.dataset.win_scores import win_inputs

    parts = []
    for f in part_files(str(ex)):
        table, wins = read_input_part(f)
        h = read_hands(table)
        found = win_inputs(table, h, np.ones(table.num_rows, bool), wins)
        assert found is not None
        parts.append((h, found[1]))
    return parts


def _analyse_in_memory(parts: list[tuple[Any, Any]]) -> None:
    """The analysis on arrays already in memory: the one-pass kernel on every row and the
    batch scoring kernel on the win rows, one thread, part by part."""
    from mjcore.dataset.hands import analyze_hands

    for h, wins in parts:
        analyze_hands(h.counts, h.n_melds, h.visible, h.made, forms=h.forms, n_threads=1)
        wins.score(1)


def bench_analyze(work: Path, rounds: int, chart: Path | None = None) -> list[str]:
    from unittest import mock

    import pyarrow.parquet as pq

    from mjcore.dataset import analysis
    from mjcore.dataset.analysis import analyze_dir
    from mjcore.dataset.analysis_columns import analysis_of, columns_of
    from mjcore.dataset.common import part_files
    from mjcore.dataset.inputs import read_input_part

    ex = _extract_once(work)
    parts = _in_memory(ex)
    tables = [read_input_part(f) for f in part_files(str(ex))]
    n = sum(pq.read_metadata(f).num_rows for f in part_files(str(ex)))
    ratios, kern_rates, job_rates, column_rates, column_ratios = [], [], [], [], []
    unwritten_ratios = []
    for r in range(rounds):
        _step(f"analyse, round {r + 1} of {rounds}")
        c0 = time.process_time()
        _analyse_in_memory(parts)
        kernel = n / (time.process_time() - c0)
        c0 = time.process_time()
        for table, side in tables:      # analyze's work on tables in memory: no read, no write
            columns_of(analysis_of(table, 1, None, "bench", side))
        columns = n / (time.process_time() - c0)
        out = work / "an"
        shutil.rmtree(out, ignore_errors=True)
        c0 = time.process_time()
        analyze_dir(str(ex), str(out), workers=1)
        job = n / (time.process_time() - c0)
        shutil.rmtree(out, ignore_errors=True)
        with mock.patch.object(analysis, "write_split_tables", lambda *a, **k: None):
            c0 = time.process_time()
            analyze_dir(str(ex), str(out), workers=1)
            unwritten_ratios.append(n / (time.process_time() - c0) / kernel)
        kern_rates.append(kernel)
        job_rates.append(job)
        column_rates.append(columns)
        ratios.append(job / kernel)
        column_ratios.append(job / columns)
    _step("analyse, the stages")
    stages = _stages(ex, rounds)
    total = sum(stages.values())
    if chart:
        _stages_chart(chart, stages, n, rounds)
    return [
        f"| analyse step, {n:,} rows | rows/s per core (CPU time, median) |",
        "| --- | --- |",
        (f"| the same analysis on the hands in memory (`analyze_hands` + batch scoring of the "
         f"wins), 1 thread | {statistics.median(kern_rates) / 1e3:,.0f} k |"),
        (f"| analyze_dir, Parquet in and out, 1 part at a time on 1 thread | "
         f"{statistics.median(job_rates) / 1e3:,.0f} k |"),
        (f"| ratio (median of {rounds} per-round ratios; target >= 0.80) | "
         f"{statistics.median(ratios):.2f} (range {min(ratios):.2f}-{max(ratios):.2f}) |"),
        (f"| for comparison: the analysis of the parts' tables already in memory into Arrow "
         f"columns (`analyze`'s work without reading or writing Parquet) | "
         f"{statistics.median(column_rates) / 1e3:,.0f} k |"),
        (f"| analyze_dir against it (median of {rounds} per-round ratios) | "
         f"{statistics.median(column_ratios):.2f} (range {min(column_ratios):.2f}-"
         f"{max(column_ratios):.2f}) |"),
        (f"| analyze_dir with its output discarded (no Parquet write), against the kernels "
         f"(median of {rounds} per-round ratios) | {statistics.median(unwritten_ratios):.2f} "
         f"(range {min(unwritten_ratios):.2f}-{max(unwritten_ratios):.2f}) |"),
        "",
        "| where the analyse step's CPU goes (best of the rounds, per stage) | CPU s | share |",
        "| --- | --- | --- |",
        *[f"| {name} | {sec:.3f} | {100 * sec / total:.0f}% |" for name, sec in stages.items()],
    ]


def _stages(ex: Path, rounds: int) -> dict[str, float]:
    """CPU seconds of each stage of analyze_part over every part of ``ex`` (each stage's best
    of ``rounds`` passes)."""
    import numpy as np

    from mjcore.dataset.analysed_parts import split_tables, write_split_tables
    from mjcore.dataset.analysis_columns import analysis_of
    from mjcore.dataset.common import part_files
    from mjcore.dataset.hand_arrays import read_hands
    from mjcore.dataset.hands import analyze_hands
    from mjcore.dataset.inputs import read_input_part
    from mjcore.dataset.win_scores import win_inputs

    names = ("read Parquet (the part, its wins side table)",
             "decode the hands (counts, visible, discard)",
             "one-pass kernel (analyze_hands)", "decode the win rows for scoring",
             "scoring kernel",
             "the rest: waits, errors, the columns and kind_detail (by difference)",
             "write Parquet (the analysis columns and the wins table of each part)")
    best = dict.fromkeys(names, float("inf"))
    sink = Path(tempfile.mkdtemp(prefix="mjcore-bench-stage-"))
    try:
        for _ in range(rounds):
            spent = dict.fromkeys(names, 0.0)
            for f in part_files(str(ex)):
                c = [time.process_time()]
                table, side = read_input_part(f)
                c.append(time.process_time())
                h = read_hands(table)
                c.append(time.process_time())
                analyze_hands(h.counts, h.n_melds, h.visible, h.made, forms=h.forms,
                              n_threads=1)
                c.append(time.process_time())
                found = win_inputs(table, h, np.ones(table.num_rows, bool), side)
                c.append(time.process_time())
                assert found is not None
                wins = found[1]
                wins.score(1)
                c.append(time.process_time())
                tables = split_tables(analysis_of(table, 1, None, "bench", side))
                c.append(time.process_time())
                write_split_tables(tables, f, table.num_rows, str(sink / "part.parquet"))
                c.append(time.process_time())
                whole = c[6] - c[5]          # decode, kernels and columns
                parts = [c[i + 1] - c[i] for i in range(5)]
                spent[names[0]] += parts[0]
                for i in range(1, 5):
                    spent[names[i]] += parts[i]
                spent[names[5]] += whole - sum(parts[1:])
                spent[names[6]] += c[7] - c[6]
            for k in names:
                best[k] = min(best[k], spent[k])
    finally:
        shutil.rmtree(sink, ignore_errors=True)
    return best


def _stages_chart(path: Path, stages: dict[str, float], n: int, rounds: int) -> None:
    """The analyse step's stages as stacked bars: the kernels alone, the job without its
    write, the whole job; the dashed line is what the 0.80 target allows."""
    from charts import stages_chart

    short = dict(zip(stages, ("read Parquet", "decode hands", "one-pass kernel", "decode wins",
                              "scoring kernel", "columns", "write Parquet"), strict=True))
    secs = {short[k]: max(0.0, v) for k, v in stages.items()}
    kernels = {k: secs[k] for k in ("one-pass kernel", "scoring kernel")}
    unwritten = {k: v for k, v in secs.items() if k != "write Parquet"}
    stages_chart(path, f"Analyse step, {n:,} decision rows of the Tenhou archive, one core",
                 [("in memory: the kernels", kernels),
                  ("Parquet job, output discarded", unwritten),
                  ("Parquet job (analyze_dir)", secs)],
                 sum(kernels.values()) / 0.80, "target: 0.80 of the kernels' rate",
                 f"benchmarks/bench_dataset.py --only analyze --rounds {rounds}; each stage the "
                 "best of the rounds (CPU time)")


WRITE_OPTIONS = ("as the job (PLAIN)", "lz4", "zstd level 1", "DELTA_BINARY_PACKED integers",
                 "dictionary on integers", "statistics", "write_batch_size 65536",
                 "data pages of 8 MiB", "data page version 1.0")


def _write_option(name: str, schema: Any) -> dict[str, Any]:
    import pyarrow as pa

    from mjcore.dataset.analysed_parts import write_options

    ints = [f.name for f in schema if pa.types.is_integer(f.type)]
    changes: dict[str, dict[str, Any]] = {
        "as the job (PLAIN)": {},
        "lz4": {"compression": "lz4"},
        "zstd level 1": {"compression": "zstd", "compression_level": 1},
        "DELTA_BINARY_PACKED integers": {"column_encoding": dict.fromkeys(
            ints, "DELTA_BINARY_PACKED")},
        "dictionary on integers": {"use_dictionary": ints},
        "statistics": {"write_statistics": True},
        "write_batch_size 65536": {"write_batch_size": 65536},
        "data pages of 8 MiB": {"data_page_size": 8 << 20},
        "data page version 1.0": {"data_page_version": "1.0"},
    }
    return {**write_options(schema), **changes[name]}


def bench_write_options(work: Path, rounds: int) -> list[str]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from mjcore.dataset.analysed_parts import split_tables, write_options
    from mjcore.dataset.analysis_columns import analysis_of
    from mjcore.dataset.common import part_files
    from mjcore.dataset.inputs import read_input_part

    ex = _extract_once(work)
    bases = []
    for f in part_files(str(ex)):
        table, side = read_input_part(f)
        bases.append(split_tables(analysis_of(table, 1, None, "bench", side))[""])
    sink = work / "write-options"
    sink.mkdir(exist_ok=True)

    def write(tables: list[Any], options: dict[str, Any]) -> tuple[float, int]:
        c0 = time.process_time()
        for i, t in enumerate(tables):
            pq.write_table(t, sink / f"p{i}.parquet", **options)
        spent = time.process_time() - c0
        return spent, sum((sink / f"p{i}.parquet").stat().st_size for i in range(len(tables)))

    best = dict.fromkeys(WRITE_OPTIONS, float("inf"))
    size = dict.fromkeys(WRITE_OPTIONS, 0)
    for r in range(rounds):
        _step(f"write options, round {r + 1} of {rounds}")
        for name in WRITE_OPTIONS if r % 2 == 0 else WRITE_OPTIONS[::-1]:
            spent, size[name] = write(bases, _write_option(name, bases[0].schema))
            best[name] = min(best[name], spent)
    lines = ["| base files of the 12 analysed parts, written with | CPU s (best) | MB |",
             "| --- | --- | --- |",
             *[f"| {name} | {best[name]:.3f} | {size[name] / 1e6:.1f} |"
               for name in WRITE_OPTIONS],
             "", "| one column alone | with its nulls: CPU s | without them | MB |",
             "| --- | --- | --- | --- |"]
    options = write_options(bases[0].schema)
    for field in bases[0].schema:
        alone = {**options, "compression": options["compression"][field.name]}
        cells = []
        for drop in (False, True):
            tables = []
            for t in bases:
                col = t.column(field.name).combine_chunks()
                if drop:
                    col = pa.Array.from_buffers(col.type, len(col), [None, *col.buffers()[1:]])
                tables.append(pa.table({field.name: col}))
            cells.append(min(write(tables, alone)[0] for _ in range(rounds)))
        nbytes = write([pa.table({field.name: t.column(field.name)}) for t in bases], alone)[1]
        lines.append(f"| {field.name} | {cells[0]:.4f} | {cells[1]:.4f} | "
                     f"{nbytes / 1e6:.1f} |")
    return lines + ["", *_peer_writers(bases, sink, rounds)]


def _peer_writers(bases: list[Any], sink: Path, rounds: int) -> list[str]:
    """The base files written by pyarrow as the job does and by the other Parquet writers
    installed (polars, DuckDB, fastparquet), uncompressed and without statistics, alternated."""
    import pyarrow.parquet as pq

    from mjcore.dataset.analysed_parts import write_options

    writers: dict[str, Any] = {
        "pyarrow, as the job": lambda t, path: pq.write_table(t, path, **write_options(t.schema))}
    missing = []
    try:
        import polars as pl

        writers[f"polars {pl.__version__}"] = lambda t, path: pl.DataFrame(t).write_parquet(
            path, compression="uncompressed", statistics=False)
    except ImportError:
        missing.append("polars")
    try:
        import duckdb

        con = duckdb.connect()
        con.execute("SET threads = 1")

        def duck(t: Any, path: Path) -> None:
            con.register("part", t)
            con.execute(f"COPY part TO '{path}' (FORMAT parquet, COMPRESSION uncompressed)")
            con.unregister("part")

        writers[f"DuckDB {duckdb.__version__}"] = duck
    except ImportError:
        missing.append("duckdb")
    try:
        import fastparquet
        import pandas as pd
        import pyarrow as pa

        nullable = {pa.int8(): pd.Int8Dtype(), pa.int16(): pd.Int16Dtype(),
                    pa.int32(): pd.Int32Dtype(), pa.int64(): pd.Int64Dtype(),
                    pa.bool_(): pd.BooleanDtype()}

        def fast(t: Any, path: Path) -> None:     # it writes pandas frames: convert, then write
            fastparquet.write(str(path), t.to_pandas(types_mapper=nullable.get),
                              compression=None, stats=False, write_index=False,
                              fixed_text={"kind_detail": 26})

        writers[f"fastparquet {fastparquet.__version__} (with pandas nullable dtypes)"] = fast
    except ImportError:
        missing.append("fastparquet")
    best = dict.fromkeys(writers, float("inf"))
    size = dict.fromkeys(writers, 0)
    names = list(writers)
    for r in range(rounds):
        for name in names if r % 2 == 0 else names[::-1]:
            c0 = time.process_time()
            for i, t in enumerate(bases):
                writers[name](t, sink / f"w{i}.parquet")
            best[name] = min(best[name], time.process_time() - c0)
            size[name] = sum((sink / f"w{i}.parquet").stat().st_size for i in range(len(bases)))
    lines = ["| the base files written by | CPU s (best) | against pyarrow | MB |",
             "| --- | --- | --- | --- |"]
    first = best[names[0]]
    lines += [f"| {n} | {best[n]:.3f} | {best[n] / first:.2f}x | {size[n] / 1e6:.1f} |"
              for n in names]
    if missing:
        lines.append(f"\n(not installed: {', '.join(missing)}; `pip install -e '.[bench]'`)")
    return lines


def bench_dask(work: Path, rounds: int) -> list[str]:
    from dask.distributed import Client, LocalCluster

    from mjcore.dataset.analysis import analyze_dir

    ex = _extract_once(work)
    clusters = {k: LocalCluster(n_workers=k, threads_per_worker=1, processes=True,
                                dashboard_address=None) for k in (1, 2)}
    clients = {k: Client(c) for k, c in clusters.items()}
    try:
        for k, client in clients.items():        # warm the workers (imports)
            analyze_dir(str(ex), str(work / f"warm-{k}"), dask=client)
        ratios: list[float] = []
        walls: dict[int, list[float]] = {1: [], 2: []}
        for r in range(rounds):
            _step(f"dask, round {r + 1} of {rounds}")
            for k in ((1, 2) if r % 2 == 0 else (2, 1)):
                out = work / f"dask-{k}"
                shutil.rmtree(out, ignore_errors=True)
                t0 = time.perf_counter()
                analyze_dir(str(ex), str(out), dask=clients[k])
                walls[k].append(time.perf_counter() - t0)
            ratios.append(walls[1][-1] / walls[2][-1])
    finally:
        for c in clients.values():
            c.close()
        for cluster in clusters.values():
            cluster.close()
    return [
        "| Dask local cluster, analyse step | wall s (median) |", "| --- | --- |",
        f"| 1 worker process | {statistics.median(walls[1]):.2f} |",
        f"| 2 worker processes | {statistics.median(walls[2]):.2f} |",
        (f"| speed-up, median of {rounds} per-round ratios (target >= 1.6) | "
        f"{statistics.median(ratios):.2f}x (range {min(ratios):.2f}-{max(ratios):.2f}) |"),
    ]


def _run_tree(argv: list[str]) -> tuple[float, int, float]:
    """(wall seconds, peak resident bytes, CPU seconds) of a command and its child processes,
    sampled every 50 ms (the CPU of a child is its last sample)."""
    import psutil

    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak = 0
    cpu_of: dict[int, float] = {}
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak
        try:
            p = psutil.Process(proc.pid)
        except psutil.Error:
            return
        while not stop.is_set():
            total = 0
            try:
                tree = [p, *p.children(recursive=True)]
            except psutil.Error:       # the command ended between two samples
                tree = []
            for q in tree:
                try:
                    with q.oneshot():
                        total += q.memory_info().rss
                        t = q.cpu_times()
                        cpu_of[q.pid] = t.user + t.system
                except psutil.Error:
                    pass
            peak = max(peak, total)
            stop.wait(0.05)

    t0 = time.perf_counter()
    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    rc = proc.wait()
    stop.set()
    thread.join()
    if rc != 0:
        raise SystemExit(f"{' '.join(argv)} exited with {rc}")
    return time.perf_counter() - t0, peak, sum(cpu_of.values())


def bench_memory(work: Path, copies: int = 10, ev_max_shanten: int | None = None) -> list[str]:
    import pyarrow.parquet as pq

    from mjcore.dataset.common import part_files

    exe = [sys.executable, "-m", "mjcore.cli"]
    lines = ["| input | step | wall s | peak RSS (process tree) | rows |",
             "| --- | --- | --- | --- | --- |"]
    for k in (1, copies):
        _step(f"memory, the archive x{k}")
        ex, an = work / f"mem-ex-{k}", work / f"mem-an-{k}"
        shutil.rmtree(ex, ignore_errors=True)
        shutil.rmtree(an, ignore_errors=True)
        wall, peak, _cpu = _run_tree(exe + ["extract", *[str(ARCHIVE)] * k, "--out", str(ex),
                                            "--no-progress"])
        rows = sum(pq.read_metadata(f).num_rows for f in part_files(str(ex)))
        lines.append(f"| archive x{k} | extract | {wall:.1f} | {peak / 2**20:,.0f} MiB | "
                     f"{rows:,} |")
        ev = [] if ev_max_shanten is None else ["--ev", "--max-shanten", str(ev_max_shanten)]
        wall, peak, _cpu = _run_tree(exe + ["analyze", str(ex), "--out", str(an),
                                            "--no-progress", *ev])
        step = "analyze" + (f" --ev --max-shanten {ev_max_shanten}" if ev else "")
        lines.append(f"| archive x{k} | {step} | {wall:.1f} | {peak / 2**20:,.0f} MiB | "
                     f"{rows:,} |")
    return lines


def _sample_archive(work: Path, games: int, seed: int = 0) -> Path:
    """``games`` members of the archive drawn at random (seeded), written to a folder."""
    import random
    import tarfile

    out = work / f"ev-sample-{games}"
    out.mkdir(exist_ok=True)
    with tarfile.open(ARCHIVE) as tar:
        members = [m for m in tar.getmembers() if m.isfile()]
        chosen = sorted(random.Random(seed).sample(members, min(games, len(members))),
                        key=lambda m: m.name)
        for k, member in enumerate(chosen):
            f = tar.extractfile(member)
            if f is not None:
                (out / f"{k:04d}-{Path(member.name).name}").write_bytes(f.read())
    return out


def _engine_pass(ex: Path, probe_only: bool) -> tuple[dict[int, list[float]], float]:
    """The EV step of every part of the extract ``ex`` in this process on one thread, with
    the batch search split by the hands' shanten and each piece timed (CPU): per shanten
    [rows, engine CPU s], and the CPU of the whole step (the arrays around the search
    included). ``probe_only``: only the rows per shanten (no search)."""
    from types import SimpleNamespace

    import numpy as np
    import pyarrow.parquet as pq

    import mjcore.riichi.batch_expected as batch_expected
    from mjcore.dataset.expected import INPUT_COLUMNS, EvOptions, ev_table

    be: Any = batch_expected          # its search is swapped for the timed one below
    real = be.expected_values
    stats: dict[int, list[float]] = {}

    def timed(**kw: Any) -> Any:
        n = len(kw["counts"])
        probe = real(**{**kw, "max_shanten": -1})
        merged = {name: np.array(getattr(probe, name)) for name in
                  ("status", "best_tile", "best_ev", "best_win", "discard_ev", "discard_win")}
        for s in np.unique(probe.shanten).tolist():
            idx = np.flatnonzero(probe.shanten == s)
            row = stats.setdefault(int(s), [0, 0.0])
            row[0] += idx.size
            if probe_only:
                continue
            sub = {k: (v[idx] if isinstance(v, np.ndarray) and v.shape[:1] == (n,) else v)
                   for k, v in kw.items()}
            c = time.process_time()
            res = real(**sub)
            row[1] += time.process_time() - c
            for name, arr in merged.items():
                arr[idx] = getattr(res, name)
        return SimpleNamespace(**merged)

    be.expected_values = timed
    c = time.process_time()
    try:
        for part in sorted(ex.glob("part-*.parquet")):
            names = [n for n in INPUT_COLUMNS if n in pq.read_schema(part).names]
            ev_table(pq.read_table(part, columns=names), 1, EvOptions())
    finally:
        be.expected_values = real
    return stats, time.process_time() - c


def bench_ev(work: Path, games: int) -> list[str]:
    """``mjcore analyze EXTRACT --ev`` on a seeded sample of the archive's records (two worker
    processes) against the engine alone on the same rows (one thread, in process), and the
    whole archive's wall time projected from the two."""
    import resource

    exe = [sys.executable, "-m", "mjcore.cli"]
    sample = _sample_archive(work, games)
    ex, an = work / "ev-ex", work / "ev-an"
    _step(f"extract of {games} sampled records")
    subprocess.run(exe + ["extract", str(sample), "--out", str(ex), "--no-progress"],
                   check=True, capture_output=True)
    _step("analyze --ev (2 workers)")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(exe + ["analyze", str(ex), "--out", str(an), "--ev", "--workers", "2",
                          "--no-progress"], check=True, capture_output=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    job_cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    _step("the engine alone on the same rows (1 thread)")
    stats, step_cpu = _engine_pass(ex, probe_only=False)
    engine = sum(v[1] for v in stats.values())
    rows = sum(int(v[0]) for v in stats.values())
    _step("rows by shanten of the whole archive (no search)")
    whole, _ = _engine_pass(_extract_once(work), probe_only=True)
    lines = [f"Sample: {games} records of `{ARCHIVE.name}` (seed 0); {rows:,} discard decisions "
             f"reach the search. `mjcore analyze --ev --workers 2`: {wall:.1f} s wall, "
             f"{job_cpu:.1f} CPU s; the EV step in process on one thread {step_cpu:.1f} CPU s, "
             f"of which the search {engine:.1f} s.", "",
             "| shanten | sample rows | search CPU s | rows/s per core | archive rows | "
             "archive search CPU s (projected) |", "| --- | --- | --- | --- | --- | --- |"]
    projected = 0.0
    for s in sorted(set(stats) | set(whole)):
        n, cpu = stats.get(s, [0, 0.0])
        total = int(whole.get(s, [0, 0.0])[0])
        per = cpu / n if n else float("nan")
        est = per * total if n else float("nan")
        if n:
            projected += est
        lines.append(f"| {s} | {int(n):,} | {cpu:.2f} | "
                     f"{(n / cpu if cpu > 0 else float('inf')):,.1f} | {total:,} | {est:,.0f} |")
    share = engine / (wall * 2) if wall > 0 else float("nan")
    lines += ["", f"The job's cores spent in the search: {share:.2f} (the engine's CPU over "
              f"2 x wall; target: at least 0.80). The whole archive at this share on 2 cores, "
              f"projected: {projected / 2 / share / 3600:.1f} h wall (search "
              f"{projected / 3600:.1f} CPU h; shanten classes missing from the sample are "
              f"left out)."]
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", choices=("extract", "analyze", "write-options", "dask", "memory",
                                       "classical", "ev"))
    ap.add_argument("--ev-games", type=int, default=10,
                    help="with --only ev: records sampled from the archive (seeded)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--copies", type=int, default=10)
    ap.add_argument("--ev-max-shanten", type=int,
                    help="with --only memory: the analyse step with --ev at this --max-shanten")
    ap.add_argument("--chart", type=Path, help="with --only analyze: its stages as a PNG here")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="mjcore-bench-dataset-"))
    try:
        parts = {"extract": lambda: bench_extract(work, max(1, args.rounds // 2)),
                 "analyze": lambda: bench_analyze(work, args.rounds, args.chart),
                 "write-options": lambda: bench_write_options(work, args.rounds),
                 "dask": lambda: bench_dask(work, args.rounds),
                 "memory": lambda: bench_memory(work, args.copies, args.ev_max_shanten),
                 "classical": lambda: bench_classical(work),
                 "ev": lambda: bench_ev(work, args.ev_games)}
        for name, run in parts.items():
            if (args.only and name != args.only) or (not args.only and name == "ev"):
                continue
            print("\n".join(run()))
            print()
            sys.stdout.flush()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
