"""The classical engine's commands, called by ``mjcore play --rules classical|bradfield`` and by
``mjcore replay`` when its paths hold Bradfield hand histories or classical records."""
from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Iterator, Sequence
from typing import Any

import click

# ---- play ------------------------------------------------------------------------------

# one game of `play_classical`: (seed, agent names, rules, records folder, check invariants,
# replace existing records)
_GameTask = tuple[int, list[str], Any, str | None, bool, bool]


def _one_game(task: _GameTask) -> dict[str, Any]:
    from ...cli import closing_agents, record_name
    from ...errors import MjcoreError
    from ...files import new_file
    from .agents import make_agent
    from .game import play_game
    from .invariants import check_game
    from .records import write_lines

    game_seed, names, rules, out_dir, check, overwrite = task
    checked = 0
    try:
        if check:
            checked, res = check_game(game_seed, names, rules)
        else:
            with closing_agents([make_agent(n, game_seed * 4 + p)
                                 for p, n in enumerate(names)]) as agents:
                res = play_game(agents, seed=game_seed, rules=rules, keep_events=bool(out_dir))
    except MjcoreError as exc:
        return {"seed": game_seed, "error": str(exc)}
    if out_dir:
        try:
            with new_file(os.path.join(out_dir, record_name(game_seed) + ".jsonl"),
                          replace=overwrite) as f:
                f.writelines(line + "\n" for line in write_lines(res.events))
        except (MjcoreError, OSError) as exc:
            return {"seed": game_seed, "error": f"writing its record: {exc}"}
    order = sorted(range(4), key=lambda p: -res.scores[p])
    ranks = [0] * 4
    for place, p in enumerate(order):
        ranks[p] = place + 1
    wins = [0] * 4
    washouts = 0
    for rec in res.hands:
        if not rec.result.wins:
            washouts += 1
        for w in rec.result.wins:
            wins[(rec.east + w.seat) % 4] += 1
    return {"seed": game_seed, "scores": list(res.scores), "ranks": ranks, "wins": wins,
            "hands": len(res.hands), "washouts": washouts, "checked": checked}


def play_classical(games: int, seed: int, agents: str, preset: str, out_dir: str | None,
                   check_invariants: bool, jobs: int, progress: bool,
                   rules: Any = None, overwrite: bool = False) -> None:
    """``mjcore play --rules classical|bradfield``: seeded classical games, a table per
    agent (players keep their agent; seating follows the rules' ``seating`` option).
    ``rules``: the ClassicalRules to play (default: the preset's)."""
    from ...cli import record_name, records_folder, run_games, table_agents
    from ..rules import ClassicalRules
    from .agents import make_agent

    if rules is None:
        rules = ClassicalRules.preset(preset)
    changed = {k: v for k, v in rules.to_dict().items()
               if ClassicalRules.preset(preset).to_dict().get(k) != v}

    names = table_agents(agents, 4, preset,
                         lambda n: _check_command(n) if n.startswith("json:") else make_agent(n))
    if out_dir:
        records_folder(out_dir, [record_name(seed + i) + ".jsonl" for i in range(games)],
                       overwrite)
    tasks: list[_GameTask] = [(seed + i, names, rules, out_dir, check_invariants, overwrite)
                              for i in range(games)]
    start = time.perf_counter()
    cpu0 = time.process_time()
    results = list(run_games(_one_game, tasks, jobs, progress))
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu0
    n_done = max(len(results), 1)
    rows = [(f"{'#':<4}{'agent':<16}{'1st':>6}{'2nd':>6}{'3rd':>6}{'4th':>6}{'avg rank':>10}"
             f"{'wins/game':>11}{'avg score':>11}")]
    for p in range(4):
        places = [sum(1 for r in results if r["ranks"][p] == k) for k in (1, 2, 3, 4)]
        avg_rank = sum(r["ranks"][p] for r in results) / n_done
        rows.append(f"{p:<4}{names[p][:15]:<16}" + "".join(f"{x:>6}" for x in places)
                    + f"{avg_rank:>10.2f}{sum(r['wins'][p] for r in results) / n_done:>11.2f}"
                    f"{sum(r['scores'][p] for r in results) / n_done:>11.1f}")
    click.echo("\n".join(rows))
    hands = sum(r["hands"] for r in results)
    washouts = sum(r["washouts"] for r in results)
    rate = f"{games / elapsed:.1f} games/s"
    if jobs == 1 and cpu > 0:
        rate += f", {games / cpu:.1f} games per CPU second"
    options = "".join(f", {k}={v}" for k, v in changed.items())
    click.echo(f"{games} games ({preset}{options}), {hands} hands, {washouts} wash-outs in "
               f"{elapsed:.1f} s ({rate})")
    if check_invariants:
        checked = sum(r["checked"] for r in results)
        click.echo(f"invariants held on all {games} games ({checked} events checked: 144 tiles "
                   "after every discard, claim, kong and Mah-Jong; legal final hands; zero-sum "
                   "settlements; same seed -> same game; every record replayed)")


def _check_command(agent: str) -> None:
    from ...engine.agents import agent_command
    from .agents import AgentError

    try:
        agent_command(agent, "json:")
    except ValueError as exc:
        raise AgentError(str(exc)) from None


# ---- replay ----------------------------------------------------------------------------

_KIND_WORDS = {"bradfield": "Bradfield hand histories", "classical": "classical records",
               "riichi": "riichi records"}


def _riichi_like(head: str) -> bool:
    """True when a file's first kilobytes look like a riichi record: mjlog XML, mjai JSON
    lines or tenhou.net/6 JSON."""
    text = head.lstrip()
    first = text.split("\n", 1)[0]
    return text.startswith("<") or (text.startswith("{") and (
        '"type"' in first or '"log"' in text))


def classify(paths: Sequence[str]) -> str | None:
    """``bradfield`` or ``classical`` when the records under ``paths`` are Bradfield hand
    histories or classical JSON-lines records, None when they are riichi records (each
    record told by its own content); a mix of kinds is refused, naming one of each."""
    from ...engine.sources import MAX_RECORD_BYTES, RECORD_SUFFIXES
    from ...files import walk_inputs
    from .bradfield import is_bradfield_text

    kinds: dict[str, str] = {}            # kind -> the first record of that kind
    suffixes = (*RECORD_SUFFIXES, ".mjs")
    for name, data, _done in walk_inputs(paths, lambda n: n.endswith(suffixes),
                                         max_bytes=MAX_RECORD_BYTES):
        if not isinstance(data, bytes):
            continue                      # reported by the replay that reads it
        head = data[:4096].decode("utf-8", "replace")
        if is_bradfield_text(head):
            kind = "bradfield"
        elif name.endswith("final.txt") and head.startswith("Game over."):
            continue                      # a Bradfield game's final scores
        elif head.startswith('{"type":"start_game"') and '"dead_wall"' in head:
            kind = "classical"
        elif _riichi_like(head):
            kind = "riichi"
        else:
            continue                      # not a record of either kind (e.g. a notes file)
        kinds.setdefault(kind, name)
    if len(kinds) > 1:
        mix = " and ".join(f"{_KIND_WORDS[k]} ({n})" for k, n in kinds.items())
        raise click.ClickException(f"the paths hold {mix}: replay each kind in a separate run")
    found = next(iter(kinds), None)
    return found if found in ("bradfield", "classical") else None


def replay_classical(paths: Sequence[str], kind: str, as_json: bool, show: int,
                     progress: bool, jobs: int = 1,
                     allowed: dict[str, str] | None = None) -> None:
    """``mjcore replay`` on Bradfield histories (through our referee, with scoring) or on
    classical records; exit 1 on any difference not in ``allowed`` ({hand file: reason}, as
    ``--allow`` reads it; a game whose every difference is allowed counts as known)."""
    allowed = allowed or {}
    from tqdm import tqdm

    from ...errors import MjcoreError
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
    from ..history import fewer_collections
    from .bradfield import iter_games, replay_summary

    with fewer_collections():         # set before the workers fork: they inherit it
        if jobs > 1:
            import multiprocessing

            from ...processes import end_with_parent

            with multiprocessing.get_context("fork").Pool(jobs, end_with_parent,
                                                      (os.getpid(),)) as pool:
                yield from pool.imap(replay_summary, iter_games(paths), 4)
        else:
            for item in iter_games(paths):
                yield replay_summary(item)


def _replay_records(paths: Sequence[str]) -> Iterator[tuple[str, bool, int, str | None]]:
    from ...engine.sources import MAX_RECORD_BYTES
    from ...errors import RECORD_SLIPS, MjcoreError, slip_text
    from ...files import walk_inputs
    from .records import record_events, replay_record

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
