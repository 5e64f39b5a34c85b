"""A table of hands -> the same table with the analysis columns added (see SCHEMA.md).

The hands come from an extract (``counts`` and ``visible``, 34 bytes per row, ``n_melds``,
``action``, ``tile`` and the win columns) or from a user's table with a ``hand`` column (mpsz
text, called melds written as tokens), a ``counts`` column (34 counts) or a ``closed`` column
(136-ids), optionally ``n_melds``, ``visible`` and ``discard`` (the tile discarded, mpsz).
Every row gets a result: a row that cannot be analysed keeps its place, with
``analysis_error`` saying why.

Remaining counts (waits, ukeire) count the tiles the player cannot see: 4 minus the copies in
the hand and in ``visible`` (discards, melds and dora indicators), never below 0. On a 14-3k
tile hand the discards are ranked by the shanten after the discard, then by ukeire; the
efficiency-best discards are those ranked first. Three-player rows (``players`` 3, or
``"players": 3`` in ``rules``) have no 2m-8m: those kinds count as all seen, a hand holding
one is the row error ``not_in_sanma``, and their wins are scored under their own rules.

The counting is one GIL-free compiled pass (:func:`mjcore.dataset.hands.analyze_hands`) and the
batch scoring kernel; a folder of Parquet parts is analysed part by part, on every core (one
part per core) or on a Dask cluster.

This module holds the entry points (:func:`analyze` on a table or DataFrame, :func:`analyze_dir`
on a folder or file, :func:`analyze_part` the unit of work of every runner). The steps live
beside it: ``inputs`` (the input parts read), ``hand_arrays`` (an input's hands as arrays),
``analysis_columns`` (the kernels' results as the analysis columns), ``win_scores`` (the win
rows scored), ``analysed_parts`` (an analysed part's files written and read back) and
``dask_driver`` (the parts on a Dask cluster).
"""
from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import MjcoreError
from .analysed_parts import (
    OLD_SIDE_TABLES,
    SIDE_TABLES,
    STAMP_KEY,
    input_stamp,
    split_tables,
    write_options,
    write_split_tables,
)
from .analysis_columns import analysis_of, analyze_table
from .common import (
    PartitionPlan,
    Problem,
    atomic_write_json,
    cores,
    progress,
    read_problems,
    write_table_atomic,
)
from .dask_driver import analyze_dask_frame, run_dask
from .expected import EV_SIDE
from .inputs import (
    ParquetSlice,
    input_parts,
    part_rows,
    read_column,
    read_input_part,
)

if TYPE_CHECKING:
    from distributed import Client


def analyze(data: Any, *, n_threads: int | None = None) -> Any:
    """Analyse a table of hands: an Arrow table, a pandas DataFrame or a Dask DataFrame;
    returns the same kind with the analysis columns added. ``n_threads``: kernel threads
    (default: every core; on Dask, 1 per task)."""
    import pyarrow as pa

    if isinstance(data, pa.Table):
        return analyze_table(data, n_threads=n_threads)
    module = type(data).__module__
    if module.startswith("dask"):
        return analyze_dask_frame(data)
    if module.startswith("pandas"):
        table = pa.Table.from_pandas(data, preserve_index=False)
        return analyze_table(table, n_threads=n_threads).to_pandas()
    raise MjcoreError(f"analyze takes an Arrow table or a pandas or Dask DataFrame, not "
                      f"{type(data).__name__}")


@dataclass
class AnalyzeSummary:
    """What an analyze run did: parts analysed, rows, parts already done (``resumed``) and
    the problems.
    """
    parts: int = 0
    rows: int = 0
    resumed: int = 0
    problems: list[Problem] = field(default_factory=list)


def _out_name(name: str) -> str:
    base = name.rsplit(".parquet", 1)[0].replace("#", "-")
    return base + ".parquet"


def analyze_part(name: str, source: Any, out_dir: str, n_threads: int = 1,
                 ev: dict[str, Any] | None = None) -> dict[str, Any]:
    """Analyse one input part and write it to ``out_dir``; returns its row and problem counts.
    The unit of work of every runner (in-process and Dask). ``ev``: the options of
    ``mjcore.dataset.expected.EvOptions`` to add the ``_ev`` side table (an extract's parts
    only)."""
    import pyarrow as pa

    problems: list[Problem] = []
    on_disk = isinstance(source, (str, ParquetSlice))
    if on_disk:
        try:
            table, wins = read_input_part(source)
        except (OSError, pa.ArrowInvalid, MemoryError) as exc:    # ArrowMemoryError too
            problems.append(Problem(name, -1, -1, "unreadable",
                                    str(exc) or type(exc).__name__))
            table = None
        except MjcoreError as exc:
            problems.append(Problem(name, -1, -1, "bad_table", str(exc)))
            table = None
    else:
        table, wins = source, None
    out_name = _out_name(name)
    out_path = os.path.join(out_dir, out_name)
    if table is not None:
        try:
            if on_disk:
                # the input's columns stay in the input part (read_part joins them back)
                analysed = analysis_of(table, n_threads, problems, name, wins,
                                       lambda: read_column(source, "game"))
                tables = split_tables(analysed)
                if ev is not None:
                    tables[EV_SIDE] = _ev_side(source, ev, n_threads)
                write_split_tables(tables, source, table.num_rows, out_path)
            elif ev is not None:
                raise MjcoreError("--ev needs an extract (a folder of Parquet parts of "
                                  "`mjcore extract`)")
            else:
                result = analyze_table(table, n_threads=n_threads, problems=problems,
                                       where=name)
                write_table_atomic(result, out_path, **write_options(result.schema))
        except MjcoreError as exc:
            problems.append(Problem(name, -1, -1, "bad_table", str(exc)))
    atomic_write_json(os.path.join(out_dir, _problems_file(out_name)),
                      [p.as_dict() for p in problems])
    return {"name": name, "rows": 0 if table is None else table.num_rows,
            "problems": [p.as_dict() for p in problems]}


def _ev_side(source: str | ParquetSlice, ev: dict[str, Any], n_threads: int) -> Any:
    """The ``_ev`` side table of an extract part (``mjcore.dataset.expected``)."""
    import pyarrow.parquet as pq

    from .expected import INPUT_COLUMNS as EV_INPUT
    from .expected import EvOptions, ev_table

    path = source if isinstance(source, str) else source.path
    with pq.ParquetFile(path, memory_map=True) as f:
        names = f.schema_arrow.names
        columns = [c for c in EV_INPUT if c in names]
        if isinstance(source, ParquetSlice):
            table = f.read_row_groups(range(source.first, source.end), columns=columns,
                                      use_threads=False)
        else:
            table = f.read(columns=columns, use_threads=False)
    return ev_table(table, n_threads, EvOptions(**ev))


def _analysed_from(path: str, source: Any) -> bool:
    """Whether the analysed part ``path`` exists and was analysed from ``source`` as it is
    now (a Parquet part: its stamp; a part of a CSV or text file: the manifest's stamp)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not os.path.exists(path):
        return False
    if not isinstance(source, (str, ParquetSlice)):
        return True
    try:
        stamp = (pq.read_schema(path).metadata or {}).get(STAMP_KEY.encode())
        return stamp is not None and stamp.decode() == input_stamp(source, part_rows(source))
    except (OSError, pa.ArrowInvalid):
        return False


def _problems_file(out_name: str) -> str:
    return "_problems-" + out_name.rsplit(".parquet", 1)[0] + ".json"


def analyze_dir(source: str, out: str, *, workers: int | None = None,
                dask: str | Client | None = None,
                show_progress: bool = False, resume: bool = True,
                rows_per_part: int = 1_000_000, ev: Any = None) -> AnalyzeSummary:
    """Analyse a folder of Parquet parts (or a Parquet, CSV or text file) into ``out``, one
    output part per input part. In-process: ``workers`` parts at a time (default one per
    core), each on one kernel thread (more when there are fewer parts than workers).
    ``dask``: a scheduler address, a ``Client``, or ``"local"`` for a local cluster of one
    single-threaded worker process per core. ``ev``: True or an ``EvOptions`` to add the
    expected values of every discard decision (``mjcore.dataset.expected``)."""
    from .expected import EvOptions

    ev_options = None if not ev else (ev if isinstance(ev, EvOptions) else EvOptions())
    ev_dict = None if ev_options is None else ev_options.as_dict()
    parts = input_parts(source, rows_per_part)
    plan = PartitionPlan(out, (*SIDE_TABLES, EV_SIDE, *OLD_SIDE_TABLES))
    manifest = {"input": os.path.abspath(source), "rows_per_part": rows_per_part,
                "schema": "mjcore.dataset.analyze/5"}
    if ev_dict is not None:
        manifest["ev"] = ev_dict
    if not os.path.isdir(source):            # a file's parts are redone when it changes
        manifest["input_stamp"] = input_stamp(source, 0)
    plan.start("_analyze.json", manifest, resume, what="an analysis",
               other="the analysis of another input", redo_on=("schema", "input_stamp", "ev"))
    if isinstance(parts, list):              # parts of an input part no longer there
        out_names: dict[str, str] = {}
        for name, _src in parts:
            other = out_names.setdefault(_out_name(name), name)
            if other != name:
                raise MjcoreError(f"{source}: the input parts {other!r} and {name!r} would both "
                                  f"be written as {_out_name(name)!r}; rename one of them")
        plan.remove_other_parts(set(out_names))
    summary = AnalyzeSummary()

    def not_done() -> Iterator[tuple[str, Any]]:
        for name, src in parts:
            out_name = _out_name(name)
            if resume and os.path.exists(os.path.join(out, _problems_file(out_name))) and \
                    _analysed_from(os.path.join(out, out_name), src):
                summary.resumed += 1
                continue
            yield name, src

    streamed = not isinstance(parts, list)     # CSV or text: parts read as they are needed
    todo: Any = not_done() if streamed else list(not_done())
    total = None if streamed or not show_progress else \
        sum(part_rows(src) for _name, src in todo)
    count = "" if streamed else f"/{len(todo)}"
    bar = progress(show_progress, desc="analyze", unit="row", unit_scale=True, total=total)
    rows = 0

    def done(res: dict[str, Any]) -> None:
        nonlocal rows
        rows += res["rows"]
        summary.parts += 1
        plan.wrote(_out_name(res["name"]))
        bar.update(res["rows"])
        bar.set_postfix(parts=f"{summary.parts}{count}", refresh=False)

    if dask:
        run_dask(dask, todo, out, done, ev_dict)
    else:
        import concurrent.futures as cf

        n = cores() if workers is None or workers <= 0 else workers
        # fewer parts than workers: the kernels of each part get the spare threads
        threads = 1 if streamed else max(1, n // max(1, min(n, len(todo))))
        with cf.ThreadPoolExecutor(n) as pool:
            pending: set[Any] = set()
            for name, src in todo:            # at most two parts per worker in flight
                pending.add(pool.submit(analyze_part, name, src, out, threads, ev_dict))
                if len(pending) >= 2 * n:
                    finished, pending = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
                    for future in finished:
                        done(future.result())
            for future in cf.as_completed(pending):
                done(future.result())
    bar.close()
    summary.rows = rows
    summary.problems = read_problems(out)
    return summary


__all__ = ["AnalyzeSummary", "analyze", "analyze_dir", "analyze_part"]
