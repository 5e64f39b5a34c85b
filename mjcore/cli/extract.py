"""``mjcore extract``: game records -> one Parquet row per decision; and the table job of
``mjcore analyze DIR --out DIR2``."""
from __future__ import annotations

import os
import sys
from collections import Counter
from typing import Any

import click

from .common import need_extra


def echo_problems(problems: list[Any], shown: int = 10) -> None:
    """The problems by reason on stderr, the first few in full (file, game, row, reason)."""
    if not problems:
        click.echo("skipped: nothing", err=True)
        return
    counts = Counter(p.reason for p in problems)
    click.echo("skipped: " + ", ".join(f"{k} {v:,}" for k, v in sorted(counts.items())),
               err=True)
    listed = problems[:shown]
    for p in listed:
        click.echo(f"  {p}", err=True)
    rest = len(problems) - len(listed)
    if rest > 0:
        click.echo(f"  ... {rest} more (see the _problems-*.json files)", err=True)


@click.command()
@click.argument("records", nargs=-1, required=True, type=click.Path(exists=True),
                metavar="RECORDS...")
@click.option("--out", "-o", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Folder for the Parquet parts (created if missing).")
@click.option("--per-part", default=200, show_default=True, type=click.IntRange(1),
              help="Records per Parquet part.")
@click.option("--workers", "-j", default=0, type=click.IntRange(0),
              help="Worker processes (0: one per core).")
@click.option("--resume/--no-resume", default=True, show_default=True,
              help="Keep the parts already written in --out instead of redoing them.")
@click.option("--progress/--no-progress", default=True, show_default=True,
              help="Progress bar on stderr.")
def extract(records: tuple[str, ...], out_dir: str, per_part: int, workers: int,
            resume: bool, progress: bool) -> None:
    """Extract game records into a table with one row per decision (Parquet parts in --out).

    RECORDS are files, folders (searched recursively) or .tar/.tar.gz/.tar.xz archives of
    Tenhou mjlog XML (four- or three-player) or mjai JSON lines (also the records of
    `mjcore play`). Records that
    cannot be used are listed with file, game and reason; the rest still run.
    """
    need_extra("dataset", "mjcore extract", "pyarrow")
    from ..dataset.extraction import extract as run
    from ..errors import MjcoreError

    out = os.path.realpath(out_dir)
    for source in records:
        inside = os.path.realpath(source)
        if os.path.isdir(inside) and (out == inside or out.startswith(inside + os.sep)):
            raise click.UsageError(f"--out {out_dir} is inside the input folder {source}: "
                                   "the extract would read its own parts and manifests as "
                                   "records; choose an --out outside it")

    try:
        summary = run(list(records), out_dir, records_per_partition=per_part,
                      workers=workers or None, show_progress=progress, resume=resume)
    except MjcoreError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"{summary.records:,} records -> {summary.rows:,} rows in "
               f"{summary.partitions:,} new parts ({summary.resumed} already written) in "
               f"{out_dir}", err=True)
    echo_problems(summary.problems)


def analyze_table_job(inputs: tuple[str, ...], out_dir: str | None, dask: str | None,
                      workers: int, progress: bool | None, ev: Any = None) -> None:
    """``mjcore analyze SOURCE --out DIR``: a folder of Parquet parts (or one Parquet, CSV or
    text file) analysed into DIR, on every core or on a Dask cluster; ``ev`` (an
    ``EvOptions``): with the expected value of every discard decision (``--ev``)."""
    if out_dir is None:
        raise click.UsageError("--dask needs --out DIR (it runs the table job)")
    need_extra("dataset", "mjcore analyze --out", "pyarrow")
    if dask:
        need_extra("dask", "mjcore analyze --dask", "dask.distributed")
    from ..dataset.analysis import analyze_dir
    from ..errors import MjcoreError

    if len(inputs) != 1:
        raise click.UsageError("with --out give exactly one SOURCE: a folder of Parquet "
                               "parts, or one Parquet, CSV or text file")
    try:
        summary = analyze_dir(inputs[0], out_dir, workers=workers or None, dask=dask,
                              show_progress=True if progress is None else progress, ev=ev)
    except MjcoreError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"{summary.rows:,} rows analysed in {summary.parts} parts "
               f"({summary.resumed} already written) -> {out_dir}", err=True)
    echo_problems(summary.problems)
    if any(p.reason in ("unreadable", "bad_table") for p in summary.problems):
        sys.exit(1)
