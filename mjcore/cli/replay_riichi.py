"""The riichi half of ``mjcore replay``: mjlog files, mjai records and tenhou.net/6 JSON
replayed through the riichi engine, each hand checked against its record."""
from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from ..errors import MjcoreError
    from ..riichi.replay import RecordOutcome


def replay_riichi(*, paths: Sequence[str], kind: str | None, preset: str | None,
                  allowed: dict[str, str], jobs: int, as_json: bool, show: int,
                  progress: bool) -> None:
    """``mjcore replay`` of riichi records (``kind``: what the paths were told to hold, or
    None); exit 1 on any disagreement not in ``allowed``."""
    from tqdm import tqdm

    from ..engine.sources import RECORD_SUFFIXES, iter_record_sources
    from ..errors import MjcoreError
    from ..riichi.replay import replay_source
    from ..riichi.rules import RuleSet

    try:
        rules = RuleSet.preset(preset) if preset else None
    except MjcoreError as exc:
        raise click.ClickException(f"--rules {preset!r}: {exc}") from None
    start = time.perf_counter()
    found = dict.fromkeys(paths, 0)

    def sources() -> Iterator[tuple[str, bytes | MjcoreError]]:
        for path in paths:
            for name, data in iter_record_sources([path]):
                found[path] += 1
                yield name, data

    bar = tqdm(desc="records", unit="record", file=sys.stderr, disable=not progress,
               mininterval=0.5)
    outcomes = []
    try:
        if jobs > 1:
            import multiprocessing

            from ..processes import end_with_parent

            with multiprocessing.get_context("fork").Pool(jobs, end_with_parent,
                                                      (os.getpid(),)) as pool:
                for o in pool.imap(_work, ((n, d, preset) for n, d in sources()), 8):
                    outcomes.append(o)
                    bar.update(1)
        else:
            for n, d in sources():
                outcomes.append(replay_source(n, d, rules))
                bar.update(1)
    except MjcoreError as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        bar.close()
    empty = [p for p, n in found.items() if n == 0]
    if empty:
        raise click.ClickException(
            f"no records in {', '.join(map(repr, empty))} (looked for "
            f"{', '.join(RECORD_SUFFIXES)} files, directories and tar archives)")
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
        elif status in ("disagree", "error", "skipped") and shown < show:
            shown += 1
            detail = o.detail[len(o.name) + 2:] if o.detail.startswith(o.name + ": ") \
                else o.detail
            click.echo(f"{status.upper()}: {o.name}: {detail}", err=True)
    summary = (f"{len(outcomes)} records: {counts['agree']} agree "
               f"({sum(1 for o in outcomes if o.status == 'agree' and o.incomplete)} of them "
               f"incomplete), {counts['disagree']} disagree, {counts['allowed']} known "
               f"disagreements, {counts['skipped']} skipped, {counts['error']} "
               f"unreadable; {hands} hands in {elapsed:.1f} s")
    click.echo(summary, err=as_json)
    if counts["disagree"] or counts["error"]:
        sys.exit(1)


def _allowed(name: str, allowed: dict[str, str]) -> bool:
    return any(name == k or name.endswith(("/" + k, ":" + k)) for k in allowed)


def _work(item: tuple[str, bytes | MjcoreError, str | None]) -> RecordOutcome:
    from ..riichi.replay import replay_source
    from ..riichi.rules import RuleSet

    name, data, preset = item
    return replay_source(name, data, RuleSet.preset(preset) if preset else None)
