"""``mjcore play``: seeded self-play games between built-in or mjai agents, with a summary."""
from __future__ import annotations

import os
import sys
import time

import click

from . import main


@main.command("play")
@click.option("--games", "-n", default=10, show_default=True, help="Number of games.")
@click.option("--seed", "-s", default=0, show_default=True,
              help="Seed of the first game; game i uses seed + i.")
@click.option("--agents", "-a", default="efficiency,random,random,random", show_default=True,
              help="Comma-separated agents for seats 0-3 (random, tsumogiri, efficiency, "
                   "mjai:COMMAND); fewer than four names repeat.")
@click.option("--rules", "preset", default="tenhou", show_default=True,
              help="Rule preset: tenhou, ema or wrc.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=None,
              help="Write one record per game into this directory.")
@click.option("--format", "fmt", type=click.Choice(["mjai", "tenhou6", "both"]), default="mjai",
              show_default=True, help="Record format for --out.")
@click.option("--check-invariants", is_flag=True,
              help="Check every invariant after every event, that the same seed gives the same "
                   "record and that each record replays to the same states.")
@click.option("--progress/--no-progress", default=True, show_default=True)
def play_cmd(games: int, seed: int, agents: str, preset: str, out_dir: str | None, fmt: str,
             check_invariants: bool, progress: bool) -> None:
    """Play seeded games and print placements, win and deal-in rates, points and draws."""
    from tqdm import tqdm

    from ..engine.agents import make_agent
    from ..engine.events import write_mjai
    from ..engine.game import play_game
    from ..engine.invariants import InvariantChecker, InvariantError, check_game
    from ..engine.tenhou import dumps_tenhou6
    from ..errors import MjcoreError
    from ..rules import RuleSet

    names = [a.strip() for a in agents.split(",") if a.strip()]
    if not names or len(names) > 4:
        raise click.BadParameter("give one to four agent names", param_hint="--agents")
    names = (names * 4)[:4]
    try:
        rules = RuleSet.preset(preset)
        for n in names:
            if not n.startswith("mjai:"):
                make_agent(n)
    except MjcoreError as exc:
        raise click.BadParameter(str(exc)) from None
    if out_dir:
        os.makedirs(out_dir, exist_ok=True)
    stats = _Stats()
    start = time.perf_counter()
    events_checked = 0
    it = tqdm(range(games), desc="games", unit="game", disable=not progress, file=sys.stderr)
    for i in it:
        game_seed = seed + i
        try:
            if check_invariants:
                events_checked += check_game(game_seed, names, rules)
            seat_agents = [make_agent(n, game_seed * 4 + s) for s, n in enumerate(names)]
            checker = InvariantChecker(rules) if check_invariants else None
            res = play_game(seat_agents, seed=game_seed, rules=rules, names=names,
                            on_event=checker.on_event if checker else None,
                            on_round=checker.on_round if checker else None)
        except InvariantError as exc:
            click.echo(f"INVARIANT FAILED in game seed {game_seed}: {exc}", err=True)
            sys.exit(1)
        for a in seat_agents:
            close = getattr(a, "close", None)
            if close:
                close()
        stats.add(res)
        if out_dir:
            base = os.path.join(out_dir, f"game-{game_seed:08d}")
            if fmt in ("mjai", "both"):
                with open(base + ".mjson", "w") as f:
                    for line in write_mjai(res.events):
                        f.write(line + "\n")
            if fmt in ("tenhou6", "both"):
                with open(base + ".tenhou6.json", "w") as f:
                    f.write(dumps_tenhou6(res.events, names))
    elapsed = time.perf_counter() - start
    click.echo(stats.table(names))
    click.echo(f"{games} games, {stats.hands} hands, {stats.draws} draws "
               f"({stats.abortive} abortive) in {elapsed:.1f} s ({games / elapsed:.1f} games/s)")
    if check_invariants:
        click.echo(f"invariants held on all {games} games ({events_checked} events checked; "
                   "same seed -> same record; every record replayed)")


class _Stats:
    def __init__(self) -> None:
        self.places = [[0] * 4 for _ in range(4)]
        self.points = [0.0] * 4
        self.wins = [0] * 4
        self.deal_ins = [0] * 4
        self.hands = 0
        self.draws = 0
        self.abortive = 0
        self.games = 0

    def add(self, res) -> None:
        self.games += 1
        for s in range(4):
            self.places[s][res.ranks[s] - 1] += 1
            self.points[s] += res.final_points[s]
        for ev in res.events:
            t = ev["type"]
            if t == "start_kyoku":
                self.hands += 1
            elif t == "hora":
                self.wins[ev["actor"]] += 1
                if ev["target"] != ev["actor"]:
                    self.deal_ins[ev["target"]] += 1
            elif t == "ryukyoku":
                self.draws += 1
                if ev["reason"] not in ("exhaustive", "nagashimangan"):
                    self.abortive += 1

    def table(self, names: list[str]) -> str:
        g = max(self.games, 1)
        h = max(self.hands, 1)
        rows = [f"{'seat':<5}{'agent':<14}{'1st':>6}{'2nd':>6}{'3rd':>6}{'4th':>6}"
                f"{'avg rank':>10}{'win %':>8}{'deal-in %':>11}{'avg pts':>9}"]
        for s in range(4):
            p = self.places[s]
            avg_rank = sum((i + 1) * p[i] for i in range(4)) / g
            rows.append(f"{s:<5}{names[s][:13]:<14}{p[0]:>6}{p[1]:>6}{p[2]:>6}{p[3]:>6}"
                        f"{avg_rank:>10.2f}{100 * self.wins[s] / h:>8.1f}"
                        f"{100 * self.deal_ins[s] / h:>11.1f}{self.points[s] / g:>9.1f}")
        return "\n".join(rows)

