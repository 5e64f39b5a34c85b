"""The classical half of ``mjcore play``: seeded games of the classical engine between its
agents, a table per agent, JSON-lines records."""
from __future__ import annotations

import os
import time
from typing import Any

import click

from ..engine.agents import closing_agents
from .common import (
    default_agents,
    record_name,
    records_folder,
    run_games,
    table_agents,
)

# one game of `play_classical`: (seed, agent names, rules, records folder, check invariants,
# replace existing records)
_GameTask = tuple[int, list[str], Any, str | None, bool, bool]


def _one_game(task: _GameTask) -> dict[str, Any]:
    from ..classical.engine.agents import make_agent
    from ..classical.engine.game import play_game
    from ..classical.engine.invariants import check_game
    from ..classical.engine.records import write_lines
    from ..errors import MjcoreError
    from ..files import new_file

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


def play_classical(*, games: int, seed: int, agents: str | None, preset: str, rules: Any,
                   out_dir: str | None, overwrite: bool, fmt: str, check_invariants: bool,
                   jobs: int, progress: bool) -> None:
    """``mjcore play`` under a classical preset: seeded classical games, a table per agent
    (players keep their agent; seating follows the rules' ``seating`` option). ``rules``: the
    ClassicalRules to play (the preset's with the ``--set`` changes); ``fmt`` is riichi's (the
    records are JSON lines)."""
    from ..classical.engine.agents import make_agent
    from ..classical.rules import ClassicalRules

    changed = {k: v for k, v in rules.to_dict().items()
               if ClassicalRules.preset(preset).to_dict().get(k) != v}

    names = table_agents(agents or default_agents(4), 4, preset,
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
    from ..engine.agents import agent_command
    from ..errors import AgentError

    try:
        agent_command(agent, "json:")
    except ValueError as exc:
        raise AgentError(str(exc)) from None
