"""``mjcore play``: seeded self-play games between built-in or mjai agents, with a summary.

``mjcore play --games 10000 --agents random,efficiency,random,tsumogiri --check-invariants``
is the long conformance run: every invariant after every event of every game, the same seed
giving the same record, and every record (written as mjai lines and read back) replaying to the
same states. The preset's game (the registry, ``mjcore.games``) plays the games: riichi's in
``play_riichi``, the classical game's in ``play_classical``.
"""
from __future__ import annotations

import click

from .common import JOBS, RulesOption, rules_of_command


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
@click.option("--rules", "preset", default="tenhou", show_default=True, cls=RulesOption,
              help="Rule preset: {presets}. A three-player preset plays three agents; the "
                   "classical game's agents are random, efficiency and json:COMMAND, its "
                   "records JSON lines.")
@click.option("--set", "rule_set", multiple=True, metavar="OPTION=VALUE",
              help="Change an option of the preset, e.g. --set red_fives=0, or classical --set "
                   "agreed_hands=8, --set wall_profile=seed001, --set dead_wall=none "
                   "(repeatable); records keep the options.")
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
    game, rules = rules_of_command(preset, rule_set)
    game.entry("play")(games=games, seed=seed, agents=agents, preset=preset, rules=rules,
                       out_dir=out_dir, overwrite=overwrite, fmt=fmt,
                       check_invariants=check_invariants, jobs=jobs, progress=progress)
