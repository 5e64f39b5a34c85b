"""``mjcore replay``: replay real or self-play records through the riichi engine and check them."""
from __future__ import annotations

import json
import sys
import time

import click

from . import main


@main.command("replay")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--rules", "preset", default=None,
              help="Rule preset (default: from each record: the Tenhou lobby flags, or the "
                   "rules named in an mjai record).")
@click.option("--allow", "allow_file", type=click.Path(exists=True), default=None,
              help="JSON file of known disagreements ({name: reason}) that do not fail the run.")
@click.option("--jobs", "-j", default=1, show_default=True, help="Worker processes.")
@click.option("--json", "as_json", is_flag=True, help="One JSON line per record.")
@click.option("--show", default=10, show_default=True, help="Disagreements printed in full.")
def replay_cmd(paths: tuple[str, ...], preset: str | None, allow_file: str | None, jobs: int,
               as_json: bool, show: int) -> None:
    """Replay mjlog files, mjai records, directories or .tar.xz archives; exit 1 on any
    disagreement (three-player records are reported as skipped)."""
    from ..engine.replay import iter_record_sources, replay_source
    from ..riichi.rules import RuleSet

    rules = RuleSet.preset(preset) if preset else None
    allowed: dict[str, str] = {}
    if allow_file:
        with open(allow_file) as f:
            allowed = dict(json.load(f))
    start = time.perf_counter()
    sources = iter_record_sources(list(paths))
    if jobs > 1:
        import multiprocessing

        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            outcomes = list(pool.imap(_work, ((n, d, preset) for n, d in sources), 8))
    else:
        outcomes = [replay_source(n, d, rules) for n, d in sources]
    elapsed = time.perf_counter() - start
    counts = {"agree": 0, "disagree": 0, "skipped": 0, "error": 0, "allowed": 0}
    hands = 0
    shown = 0
    for o in outcomes:
        status = o.status
        if status in ("disagree", "error") and _allowed(o.name, allowed):
            status = "allowed"
        counts[status] += 1
        hands += o.hands
        if as_json:
            click.echo(json.dumps({"record": o.name, "status": status, "hands": o.hands,
                                   "incomplete": o.incomplete, "detail": o.detail}))
        elif status in ("disagree", "error") and shown < show:
            shown += 1
            click.echo(f"{status.upper()}: {o.name}: {o.detail}", err=True)
    summary = (f"{len(outcomes)} records: {counts['agree']} agree "
               f"({sum(1 for o in outcomes if o.status == 'agree' and o.incomplete)} of them "
               f"incomplete), {counts['disagree']} disagree, {counts['allowed']} known "
               f"disagreements, {counts['skipped']} skipped (three-player), {counts['error']} "
               f"unreadable; {hands} hands in {elapsed:.1f} s")
    click.echo(summary, err=as_json)
    if counts["disagree"] or counts["error"]:
        sys.exit(1)


def _allowed(name: str, allowed: dict[str, str]) -> bool:
    return any(name == k or name.endswith("/" + k) for k in allowed)


def _work(item: tuple[str, bytes, str | None]):
    from ..engine.replay import replay_source
    from ..riichi.rules import RuleSet

    name, data, preset = item
    return replay_source(name, data, RuleSet.preset(preset) if preset else None)
