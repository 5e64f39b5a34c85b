"""``mjcore export``: an analysed table joined with its input and unpacked, for SQL readers."""
from __future__ import annotations

import click

from .common import need_extra


@click.command()
@click.argument("table", type=click.Path(exists=True, file_okay=False), metavar="DIR")
@click.option("--out", "out", required=True, type=click.Path(file_okay=False), metavar="DIR",
              help="New or empty folder for the exported parts.")
def export(table: str, out: str) -> None:
    """Write an analysed table (the --out folder of `mjcore analyze`) as plain Parquet parts
    that any reader can query without mjcore: each part joined with its input part's columns,
    the waits, the per-discard shanten and ukeire and the scores unpacked, and every 34-byte
    column a list of 34 numbers (DuckDB: `discard_shanten[kind + 1]`). One part in memory at
    a time. See SCHEMA.md, "SQL readers"."""
    need_extra("dataset", "mjcore export", "pyarrow")
    from ..dataset.exporting import export as export_dir
    from ..errors import MjcoreError

    try:
        done = export_dir(table, out)
    except MjcoreError as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as err:
        raise click.ClickException(f"--out {out!r}: {err.strerror or err}") from None
    click.echo(f"{done['rows']:,} rows in {done['parts']} parts -> {out}")
