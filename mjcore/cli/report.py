"""``mjcore report``: the summary of an analysed table, as text, JSON and PNG charts."""
from __future__ import annotations

import json

import click

from .common import need_extra


@click.command()
@click.argument("table", type=click.Path(exists=True, file_okay=False), metavar="DIR")
@click.option("--plots", type=click.Path(file_okay=False), metavar="DIR",
              help="Also write the charts as PNG files into DIR.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as one JSON object.")
@click.option("--players", default=20, show_default=True, type=click.IntRange(0),
              help="Players listed (most discard decisions first).")
@click.option("--min-discards", default=1, show_default=True, type=click.IntRange(1),
              help="Leave out players with fewer discard decisions.")
def report(table: str, plots: str | None, as_json: bool, players: int,
           min_discards: int) -> None:
    """Summarise an analysed table (the --out folder of `mjcore analyze`): per player and
    overall, how often the discard was efficiency-best, acceptance lost per discard and per
    hand, shanten by turn, score agreement for wins, and what was skipped and why."""
    need_extra("dataset", "mjcore report", "pyarrow", "pandas")
    if plots:
        need_extra("dataset", "mjcore report --plots", "matplotlib")
    from ..dataset.reporting import build_report, plot_report
    from ..errors import MjcoreError

    if plots:
        _plots_dir(plots)       # before the report is built: a bad DIR fails at once
    try:
        rep = build_report(table, min_discards=min_discards)
    except MjcoreError as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        click.echo(json.dumps(rep.as_dict(), ensure_ascii=False))
    else:
        click.echo(rep.text(players=players))
    if plots:
        try:
            paths = plot_report(rep, plots, players=players or 20)
        except OSError as err:
            raise click.ClickException(f"--plots {plots!r}: cannot write the charts there "
                                       f"({err.strerror or err})") from None
        for path in paths:
            click.echo(f"wrote {path}", err=True)


def _plots_dir(plots: str) -> None:
    """Create the --plots folder, or stop with one line saying why it cannot be."""
    import os

    try:
        os.makedirs(plots, exist_ok=True)
    except OSError as err:
        where = f" ({err.filename})" if err.filename and err.filename != plots else ""
        raise click.ClickException(f"--plots {plots!r}: cannot create the folder: "
                                   f"{err.strerror or err}{where}") from None
