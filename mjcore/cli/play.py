"""``mjcore play``: seeded self-play games between built-in or mjai agents, with a summary.

``mjcore play --games 10000 --agents random,efficiency,random,tsumogiri --check-invariants``
is the long conformance run: every invariant after every event of every game, the same seed
giving the same record, and every record (written as mjai lines and read back) replaying to the
same states. A three-player riichi preset plays three agents; the classical game's presets
play in ``play_classical``.
"""
from __future__ import annotations

import os
import time
from typing import Any

import click

from ..games import is_game
from .common import (
    JOBS,
    closing_agents,
    preset_rules,
    presets_of,
    record_name,
    records_folder,
    run_games,
    table_agents,
)


@click.command("play")
@click.option("--games", "-n", default=10, show_default=True, type=click.IntRange(min=1),
              help="Number of games.")
@click.option("--seed", "-s", default=0, show_default=True,
              help="Seed of the first game; game i uses seed + i.")
@click.option("--agents", "-a", default=None,
              help="Comma-separated agents (random, tsumogiri, efficiency, mjai:COMMAND; "
                   "'{seat}' in COMMAND becomes the bot's seat, 0 = first dealer, as in "
                   "'mjai:python bot.py {seat}'); fewer names than seats repeat. Seats are "
                   "drawn per game from its seed (the rules' seating option); the table is "
                   "per agent. Default: efficiency and random for every other seat of the "
                   "rules (three or four).")
@click.option("--rules", "preset", default="tenhou", show_default=True,
              help="Rule preset: tenhou, ema or wrc (riichi); tenhou_sanma (three-player "
                   "riichi, three agents); classical or bradfield (Chinese classical: agents "
                   "random, efficiency, json:COMMAND; JSON-lines records).")
@click.option("--set", "rule_set", multiple=True, metavar="OPTION=VALUE",
              help="Classical: change an option of the preset (ClassicalRules), e.g. --set "
                   "agreed_hands=8, --set wall_profile=seed001, --set dead_wall=none, "
                   "--set last_discard_claims=any (repeatable); records keep the options.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=None,
              help="Write one record per game into this directory.")
@click.option("--overwrite", is_flag=True,
              help="Replace records of the same names in --out (without it a run refuses a "
                   "folder that holds them, before any game).")
@click.option("--format", "fmt", type=click.Choice(["mjai", "tenhou6", "both"]), default="mjai",
              show_default=True, help="Record format for --out.")
@click.option("--check-invariants", is_flag=True,
              help="Check every invariant after every event, that the same seed gives the same "
                   "record and that each record replays to the same states.")
@click.option("--jobs", "-j", default=1, show_default=True, type=JOBS,
              help="Worker processes.")
@click.option("--progress/--no-progress", default=True, show_default=True)
def play_cmd(games: int, seed: int, agents: str | None, preset: str, rule_set: tuple[str, ...],
             out_dir: str | None, overwrite: bool, fmt: str, check_invariants: bool, jobs: int,
             progress: bool) -> None:
    """Play seeded games and print placements, win and deal-in rates, points and draws."""
    if is_game(preset, "classical"):
        from ..errors import InvalidRuleError
        from .play_classical import play_classical

        try:
            rules = preset_rules(preset, rule_set)
        except InvalidRuleError as e:
            raise click.BadParameter(str(e), param_hint="--set") from None
        play_classical(games, seed, agents or default_agents(4), preset, out_dir,
                       check_invariants, jobs, progress, rules=rules, overwrite=overwrite)
        return
    if rule_set:
        raise click.UsageError("--set changes a classical rule option; give --rules "
                               + presets_of("classical"))
    from ..errors import MjcoreError
    from ..riichi.rules import RuleSet

    try:
        players = RuleSet.preset(preset).players
    except MjcoreError as exc:
        raise click.ClickException(f"--rules {preset!r}: {exc}") from None
    names = table_agents(agents or default_agents(players), players, preset, _check_agent)
    suffixes = {"mjai": [".mjson"], "tenhou6": [".tenhou6.json"],
                "both": [".mjson", ".tenhou6.json"]}[fmt]
    if out_dir:
        records_folder(out_dir, [record_name(seed + i) + x for i in range(games)
                                 for x in suffixes], overwrite)
    stats = _Stats(players)
    start = time.perf_counter()
    tasks = [(seed + i, names, preset, out_dir, fmt, check_invariants, overwrite)
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


def default_agents(players: int) -> str:
    """The default ``--agents``: one efficiency agent, random agents in the other seats."""
    return ",".join(["efficiency"] + ["random"] * (players - 1))


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


def _one_game(task: tuple[int, list[str], str, str | None, str, bool, bool]) -> dict[str, Any]:
    from ..errors import MjcoreError
    from ..files import new_file
    from ..riichi.agents import make_agent
    from ..riichi.events import write_mjai
    from ..riichi.game import play_game
    from ..riichi.invariants import check_game
    from ..riichi.rules import RuleSet
    from ..riichi.tenhou6 import dumps_tenhou6

    game_seed, names, preset, out_dir, fmt, check, overwrite = task
    rules = RuleSet.preset(preset)
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
