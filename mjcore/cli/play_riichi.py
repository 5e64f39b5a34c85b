"""The riichi half of ``mjcore play``: seeded games of the riichi engine (four players or
three) between its agents and mjai bots, a table per agent, mjai or tenhou.net/6 records."""
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


def play_riichi(*, games: int, seed: int, agents: str | None, preset: str, rules: Any,
                out_dir: str | None, overwrite: bool, fmt: str, check_invariants: bool,
                jobs: int, progress: bool) -> None:
    """``mjcore play`` under a riichi preset (``rules``: its RuleSet)."""
    players = rules.players
    names = table_agents(agents or default_agents(players), players, preset, _check_agent)
    suffixes = {"mjai": [".mjson"], "tenhou6": [".tenhou6.json"],
                "both": [".mjson", ".tenhou6.json"]}[fmt]
    if out_dir:
        records_folder(out_dir, [record_name(seed + i) + x for i in range(games)
                                 for x in suffixes], overwrite)
    stats = _Stats(players)
    start = time.perf_counter()
    tasks = [(seed + i, names, rules, out_dir, fmt, check_invariants, overwrite)
             for i in range(games)]
    for summary in run_games(_one_game, tasks, jobs, progress):
        stats.add(summary)
    elapsed = time.perf_counter() - start
    click.echo(stats.table(names))
    click.echo(f"{games} games, {stats.hands} hands, {stats.draws} draws "
               f"({stats.abortive} abortive) in {elapsed:.1f} s ({games / elapsed:.1f} games/s)")
    if check_invariants:
        click.echo(f"invariants held on all {games} games ({stats.checked} events checked; "
                   "same seed -> same record; every record replayed)")


def _check_agent(name: str) -> None:
    """Refuse an unknown agent name or an mjai command that cannot be found."""
    from ..riichi.agents import make_agent

    if name.startswith("mjai:"):
        _check_command(name)
    else:
        make_agent(name)


def _check_command(agent: str) -> None:
    """Refuse an mjai agent whose command cannot be found before any game starts."""
    from ..engine.agents import agent_command
    from ..riichi.mjai import MjaiError

    try:
        agent_command(agent, "mjai:")
    except ValueError as exc:
        raise MjaiError(str(exc)) from None


def _one_game(task: tuple[int, list[str], Any, str | None, str, bool, bool]) -> dict[str, Any]:
    from ..errors import MjcoreError
    from ..files import new_file
    from ..riichi.agents import make_agent
    from ..riichi.events import write_mjai
    from ..riichi.game import play_game
    from ..riichi.invariants import check_game
    from ..riichi.tenhou6 import dumps_tenhou6

    game_seed, names, rules, out_dir, fmt, check, overwrite = task
    checked = 0
    try:
        if check:
            checked, res = check_game(game_seed, names, rules, names)
        else:
            with closing_agents([make_agent(n, game_seed * 4 + s)
                                 for s, n in enumerate(names)]) as seat_agents:
                res = play_game(seat_agents, seed=game_seed, rules=rules, names=names)
    except MjcoreError as exc:
        return {"seed": game_seed, "error": str(exc)}
    try:
        if out_dir:
            base = os.path.join(out_dir, record_name(game_seed))
            if fmt in ("mjai", "both"):
                with new_file(base + ".mjson", replace=overwrite) as f:
                    f.writelines(line + "\n" for line in write_mjai(res.events))
            if fmt in ("tenhou6", "both"):
                with new_file(base + ".tenhou6.json", replace=overwrite) as f:
                    f.write(dumps_tenhou6(res.events, names))
    except (MjcoreError, OSError) as exc:
        return {"seed": game_seed, "error": f"writing its record: {exc}"}
    agent = res.agent_of_seat            # statistics are per agent, wherever it sat
    players = len(names)
    points = [0.0] * players
    for seat in range(players):
        points[agent[seat]] = res.final_points[seat]
    summary: dict[str, Any] = {"seed": game_seed, "ranks": res.agent_ranks(),
                               "points": points, "checked": checked,
                               "hands": 0, "wins": [0] * players, "deal_ins": [0] * players,
                               "draws": 0, "abortive": 0}
    for ev in res.events:
        t = ev["type"]
        if t == "start_kyoku":
            summary["hands"] += 1
        elif t == "hora":
            summary["wins"][agent[ev["actor"]]] += 1
            if ev["target"] != ev["actor"]:
                summary["deal_ins"][agent[ev["target"]]] += 1
        elif t == "ryukyoku":
            summary["draws"] += 1
            if ev["reason"] not in ("exhaustive", "nagashimangan"):
                summary["abortive"] += 1
    return summary


class _Stats:
    def __init__(self, players: int) -> None:
        self.players = players
        self.places = [[0] * players for _ in range(players)]
        self.points = [0.0] * players
        self.wins = [0] * players
        self.deal_ins = [0] * players
        self.hands = 0
        self.draws = 0
        self.abortive = 0
        self.games = 0
        self.checked = 0

    def add(self, s: dict[str, Any]) -> None:
        self.games += 1
        self.hands += s["hands"]
        self.draws += s["draws"]
        self.abortive += s["abortive"]
        self.checked += s["checked"]
        for seat in range(self.players):
            self.places[seat][s["ranks"][seat] - 1] += 1
            self.points[seat] += s["points"][seat]
            self.wins[seat] += s["wins"][seat]
            self.deal_ins[seat] += s["deal_ins"][seat]

    def table(self, names: list[str]) -> str:
        g = max(self.games, 1)
        h = max(self.hands, 1)
        places = range(self.players)
        rows = [(f"{'#':<5}{'agent':<14}"
                 + "".join(f"{('1st', '2nd', '3rd', '4th')[i]:>6}" for i in places)
                 + f"{'avg rank':>10}{'win %':>8}{'deal-in %':>11}{'avg pts':>9}")]
        for seat in places:
            p = self.places[seat]
            avg_rank = sum((i + 1) * p[i] for i in places) / g
            rows.append(f"{seat:<5}{names[seat][:13]:<14}" + "".join(f"{p[i]:>6}" for i in places)
                        + f"{avg_rank:>10.2f}{100 * self.wins[seat] / h:>8.1f}"
                        f"{100 * self.deal_ins[seat] / h:>11.1f}{self.points[seat] / g:>9.1f}")
        return "\n".join(rows)
