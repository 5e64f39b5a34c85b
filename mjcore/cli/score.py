"""``mjcore score HAND --win 5p ...``: score one winning hand under the preset's game (the
registry, ``mjcore.games``): riichi's in ``score_riichi``, the classical game's in
``score_classical``; ``--history`` goes to the game that reads hand histories."""
from __future__ import annotations

from typing import Any

import click

from .common import RulesOption, client_options, fail

_SEATS = "ESWN"


@click.command("score")
@click.argument("hand", nargs=-1)
@click.option("--win", "win", help="Winning tile, e.g. 5p (part of HAND).")
@click.option("--tsumo/--ron", default=False, help="Self-draw or ron (default ron).")
@click.option("--dora", multiple=True, help="Dora indicator(s), e.g. --dora 3m or --dora 3m4p.")
@click.option("--ura", multiple=True, help="Ura dora indicator(s) (used with riichi).")
@click.option("--riichi", is_flag=True)
@click.option("--double-riichi", is_flag=True)
@click.option("--ippatsu", is_flag=True)
@click.option("--rinshan", is_flag=True)
@click.option("--chankan", is_flag=True)
@click.option("--haitei", is_flag=True)
@click.option("--houtei", is_flag=True)
@click.option("--tenhou", is_flag=True)
@click.option("--chiihou", is_flag=True)
@click.option("--renhou", is_flag=True)
@click.option("--seat", default="E", show_default=True, help="Seat wind E/S/W/N (E = dealer).")
@click.option("--round", "round_", default="E", show_default=True, help="Round wind E/S/W/N.")
@click.option("--from", "from_rel", type=click.IntRange(1, 3), default=None,
              help="Discarder on ron, relative to the winner (1 shimocha, 2 toimen, 3 kamicha; "
                   "three players: 1 shimocha, 2 kamicha).")
@click.option("--pao", type=click.IntRange(1, 3), default=None,
              help="Liable player (pao), relative to the winner (numbered as --from).")
@click.option("--honba", type=click.IntRange(0, 999), default=0, show_default=True)
@click.option("--sticks", type=click.IntRange(0, 999), default=0, show_default=True,
              help="Riichi sticks collected by the winner.")
@click.option("--kita", type=click.IntRange(0, 4), default=0, show_default=True,
              help="Norths the winner set aside (three-player rules: --rules tenhou_sanma).")
@click.option("--rules", default="tenhou", show_default=True, cls=RulesOption,
              help="Rule preset: {presets}.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--east", "other_east", metavar="TILES", help="Classical: East's hand (a loser).")
@click.option("--south", "other_south", metavar="TILES", help="Classical: South's hand.")
@click.option("--west", "other_west", metavar="TILES", help="Classical: West's hand.")
@click.option("--north", "other_north", metavar="TILES", help="Classical: North's hand.")
@click.option("--discarder", type=click.Choice(list(_SEATS), case_sensitive=False),
              help="Classical: who discarded the winning tile (default: the next seat).")
@click.option("--won", multiple=True, metavar="HOW",
              help="Classical: loose_tile, last_tile, last_discard, robbed_kong, original_call, "
                   "heaven, earth, kong_upon_kong, thirteenth_win (repeatable).")
@click.option("--claim", type=click.Choice(["any", "pair", "chow", "pung"]), default="any",
              show_default=True, help="Classical: what the winning discard was claimed for.")
@click.option("--cannon", type=click.Choice(list(_SEATS), case_sensitive=False),
              help="Classical: the seat that let off a cannon.")
@click.option("--visible", metavar="TILES", default="",
              help="Classical: kinds whose four copies are all on the table.")
@click.option("--set", "rule_set", multiple=True, metavar="OPTION=VALUE",
              help="Change a rule option of --rules, e.g. --set kiriage=true, or classical "
                   "--set limit=500 (repeatable).")
@click.option("--history", "histories", multiple=True, type=click.Path(),
              help="Score every finished hand of Bradfield hand histories (files, folders, "
                   ".tar.xz; more paths may follow) and compare with the recorded scores.")
@click.option("--allow", "allow_file", type=click.Path(exists=True, dir_okay=False),
              help="With --history: a JSON file of hand files ('game-N/hand-KK.mjs') whose "
                   "differences are known; they are listed but do not fail the run.")
@click.option("--server", metavar="HOST:PORT", envvar="MJCORE_SERVER",
              help="Score on a `mjcore serve` server. [env MJCORE_SERVER; the token, if any, "
                   "from MJCORE_TOKEN]")
@client_options
def score_command(**options: Any) -> None:
    """Score a winning hand. Riichi: yaku, fu breakdown, limit, points and payments.
    Chinese classical (a classical preset): all four hands item by item and the
    settlement; or, with --history, every hand of Bradfield's histories against its records.

    HAND is mpsz text including the winning tile, with called melds after it, e.g.
    `mjcore score 123m456p789s11z234p --win 2p --tsumo --riichi --dora 1z`, or
    `mjcore score --rules classical 777z234s678m11z pon:555p 2f --win 4s --tsumo --seat S
    --east "333z1357m246p pon:999s 5f"`. Classical bonus tiles are 1f-8f.
    """
    from ..errors import InvalidRuleError
    from ..games import game_of, games_offering

    face = "score_history" if options["histories"] else "score"
    try:
        game = game_of(options["rules"])
    except InvalidRuleError as e:
        fail(options["as_json"], " ".join(options["hand"]), e)
    if not game.offers(face):       # --history under another game's default --rules
        game = games_offering(face)[0]
    game.entry(face)(**options)
