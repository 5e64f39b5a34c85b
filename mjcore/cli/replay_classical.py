"""The classical half of ``mjcore replay``: Bradfield hand histories or classical records
replayed through the classical engine (``preset`` is riichi's: the records carry their rules)."""
from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Iterator, Sequence

import click


def replay_classical(*, paths: Sequence[str], kind: str | None, preset: str | None,
                     allowed: dict[str, str], jobs: int, as_json: bool, show: int,
                     progress: bool) -> None:
    """``mjcore replay`` on Bradfield histories (through our referee, with scoring) or on
    classical records; exit 1 on any difference not in ``allowed`` ({hand file: reason}, as
    ``--allow`` reads it; a game whose every difference is allowed counts as known)."""
    from tqdm import tqdm

    from ..errors import MjcoreError
    start = time.perf_counter()
    bar = tqdm(desc="games", unit="game", file=sys.stderr, disable=not progress,
               mininterval=0.5)
    n_games = n_ok = n_hands = shown = n_known = 0
    try:
        if kind == "bradfield":
            try:
                for name, hands, problems in _bradfield_games(paths, jobs):
                    n_games += 1
                    n_hands += hands
                    known = bool(problems) and all(
                        src and any(_names(src, k) for k in allowed) for src, _ in problems)
                    ok = not problems
                    n_ok += ok
                    n_known += known
                    problem = (f"{problems[0][0]}: {problems[0][1]}" if problems and
                               problems[0][0] else problems[0][1] if problems else None)
                    if as_json:
                        click.echo(json.dumps({"game": name, "hands": hands, "agree": ok,
                                               "known": known, "differences": problems}))
                    elif problem and not known and shown < show:
                        shown += 1
                        click.echo(f"DISAGREE: {name}: {problem}", err=True)
                    bar.update(1)
            except MjcoreError as exc:
                raise click.ClickException(str(exc)) from None
        else:
            for name, ok, hands, problem in _replay_records(paths):
                n_games += 1
                n_hands += hands
                n_ok += ok
                if as_json:
                    click.echo(json.dumps({"record": name, "hands": hands, "agree": ok,
                                           "first_difference": problem}))
                elif problem and shown < show:
                    shown += 1
                    click.echo(f"DISAGREE: {name}: {problem}", err=True)
                bar.update(1)
    finally:
        bar.close()
    elapsed = time.perf_counter() - start
    if n_games == 0:
        raise click.ClickException(f"no games in {', '.join(map(repr, paths))}")
    known_text = f", {n_known} known differences (--allow)" if n_known else ""
    click.echo(f"{n_games} games ({kind}): {n_ok} agree{known_text}, "
               f"{n_games - n_ok - n_known} disagree; {n_hands} hands in {elapsed:.1f} s",
               err=as_json)
    if n_ok + n_known != n_games:
        sys.exit(1)


def _names(source: str, key: str) -> bool:
    """True when the hand file ``source`` (a path, or ``archive:member``) is ``key``."""
    source = source.replace("\\", "/")
    return source == key or source.endswith(("/" + key, ":" + key))


def _bradfield_games(paths: Sequence[str], jobs: int
                     ) -> Iterator[tuple[str, int, list[tuple[str, str]]]]:
    from ..classical.engine.bradfield import iter_games, replay_summary
    from ..classical.history import fewer_collections

    with fewer_collections():         # set before the workers fork: they inherit it
        if jobs > 1:
            import multiprocessing

            from ..processes import end_with_parent

            with multiprocessing.get_context("fork").Pool(jobs, end_with_parent,
                                                      (os.getpid(),)) as pool:
                yield from pool.imap(replay_summary, iter_games(paths), 4)
        else:
            for item in iter_games(paths):
                yield replay_summary(item)


def _replay_records(paths: Sequence[str]) -> Iterator[tuple[str, bool, int, str | None]]:
    from ..classical.engine.records import record_events, replay_record
    from ..engine.sources import MAX_RECORD_BYTES
    from ..errors import RECORD_SLIPS, MjcoreError, slip_text
    from ..files import walk_inputs

    for name, data, _done in walk_inputs(paths, lambda n: n.endswith(".jsonl"),
                                         max_bytes=MAX_RECORD_BYTES):
        if not isinstance(data, bytes):
            yield name, False, 0, str(data)
            continue
        try:
            events = record_events(name, data)
            replay_record(events, name)
            hands = sum(1 for e in events if e["type"] == "start_hand")
            yield name, True, hands, None
        except MjcoreError as exc:
            yield name, False, 0, str(exc)
        except RECORD_SLIPS as exc:
            yield name, False, 0, f"{name}: malformed record ({slip_text(exc)})"
