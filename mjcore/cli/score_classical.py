"""The classical half of ``mjcore score``: one deal with a readable breakdown (or JSON), or
``--history`` to score Bradfield hand histories and compare with what they record."""
from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import click

from ..classical.rules import ClassicalRules
from ..errors import MjcoreError
from ..games import game_of
from .common import fail, preset_rules, with_settings

_SEATS = "ESWN"


def _rules(name: str, settings: Sequence[str]) -> ClassicalRules:
    """The classical rules of ``--rules`` and ``--set``; with another game's preset (``--history``
    under the default ``--rules``: the histories carry their own rules) the classical defaults,
    which ``--set`` is checked against."""
    if isinstance(game_of(name).preset(name), ClassicalRules):
        rules: ClassicalRules = preset_rules(name, settings)
        return rules
    return with_settings(ClassicalRules(), settings)


def score_classical(*, hand: Sequence[str], win: str | None, tsumo: bool, seat: str,
                    round_: str, rules: str, as_json: bool, other_east: str | None,
                    other_south: str | None, other_west: str | None, other_north: str | None,
                    discarder: str | None, won: Sequence[str], claim: str, cannon: str | None,
                    visible: str, rule_set: Sequence[str], **_options: Any) -> None:
    """``mjcore score`` under a classical preset: the deal's four hands scored item by item
    (``_options``: the other games' options, unused here)."""
    text = " ".join(hand)
    try:
        rules_value = _rules(rules, rule_set)
    except MjcoreError as e:
        fail(as_json, text, e)
    others = {"E": other_east, "S": other_south, "W": other_west, "N": other_north}
    if not hand or not win:
        raise click.UsageError("HAND and --win are required")
    try:
        result, deal = score_text(text, win, tsumo, seat, round_, others, discarder, won, claim,
                                  cannon, visible, rules_value)
    except MjcoreError as e:
        fail(as_json, text, e)
    if as_json:
        click.echo(json.dumps({"input": text, "win": win, "self_drawn": tsumo,
                               "winner": deal.winner, **result.to_dict()}, ensure_ascii=False))
        return
    from ..classical.scoring import format_deal_score

    names = [f"{n}{' (hand not shown)' if s in deal.hidden else ''}"
             for s, n in enumerate(("East", "South", "West", "North"))]
    click.echo(f"hand   {text}   win {win} ({'self-drawn' if tsumo else 'discard'})   "
               f"rules {rules_value.name}")
    click.echo(format_deal_score(result, names))


def score_histories(*, hand: Sequence[str], rules: str, rule_set: Sequence[str],
                    histories: Sequence[str], allow_file: str | None, as_json: bool,
                    **_options: Any) -> None:
    """``mjcore score --history``: every hand of Bradfield's histories scored against its
    records (the histories carry their own rules; ``--set`` is checked against them)."""
    try:
        _rules(rules, rule_set)
    except MjcoreError as e:
        fail(as_json, " ".join(hand), e)
    # `--history A B C`: the paths after the first arrive as HAND arguments
    sys.exit(check_histories([*histories, *hand], allow_file, as_json))


def _seat(value: str, option: str) -> int:
    from ..errors import InvalidHandError

    v = value.strip().upper()[:1]
    if v not in _SEATS:
        raise InvalidHandError(f"{option} {value!r}: expected E, S, W or N", reason="bad_seats")
    return _SEATS.index(v)


def score_text(text: str, win: str, tsumo: bool, seat: str, round_: str,
               others: Mapping[str, str | None], discarder: str | None, won: Sequence[str],
               claim: str, cannon: str | None, visible: str, rules: ClassicalRules) -> Any:
    """Build the deal from command-line text and score it; returns (DealScore, Deal)."""
    from ..classical.scoring import Deal, PlayerHand, score_deal
    from ..errors import InvalidHandError
    from ..tiles import parse_kinds, parse_tile

    winner = _seat(seat, "--seat")
    hands: list[PlayerHand] = []
    hidden = set()
    for s, name in enumerate(_SEATS):
        if s == winner:
            hands.append(PlayerHand.parse(text))
        elif others.get(name):
            hands.append(PlayerHand.parse(others[name] or ""))
        else:
            hands.append(PlayerHand(()))
            hidden.add(s)
    how = set(won)
    if tsumo:
        how.add("self_drawn")
    disc = None
    if not tsumo:
        disc = _seat(discarder, "--discarder") if discarder else (winner + 1) % 4
        if disc == winner:
            raise InvalidHandError("--discarder: the winner cannot discard his winning tile",
                                   reason="bad_seats")
    try:
        dead = frozenset(parse_kinds(visible)) if visible else frozenset()
    except InvalidHandError as e:
        raise InvalidHandError(f"--visible {visible!r}: {e}", reason=e.reason) from None
    deal = Deal(hands=tuple(hands), prevailing=_seat(round_, "--round"),  # type: ignore[arg-type]
                winner=winner, win_tile=parse_tile(win), how=frozenset(how), discarder=disc,
                claim=claim, cannon=_seat(cannon, "--cannon") if cannon else None,
                dead_kinds=dead, hidden=frozenset(hidden))
    return score_deal(deal, rules), deal


def _known(allow_file: str | None) -> dict[str, Any]:
    if not allow_file:
        return {}
    try:
        data = json.loads(Path(allow_file).read_text())
    except (OSError, ValueError) as e:
        raise click.UsageError(f"--allow {allow_file}: {e}") from None
    if not isinstance(data, dict):
        raise click.UsageError(f"--allow {allow_file}: expected a JSON object of hand files")
    return data


def check_histories(paths: Sequence[str], allow_file: str | None, as_json: bool) -> int:
    """Score every finished hand under ``paths``; print each disagreement and a summary.
    Returns the exit status: 0 when every hand agreed (or only allowed ones differ)."""
    from ..classical.bradfield import check_history
    from ..classical.history import fewer_collections, iter_histories
    from ..errors import HistoryError

    known = _known(allow_file)
    hands = agreed = allowed = errors = 0
    washouts = 0
    with fewer_collections():
        for h in iter_histories(paths):
            if isinstance(h, HistoryError):     # that file's problem; the others still run
                errors += 1
                if as_json:
                    click.echo(json.dumps({"source": h.source, "line": h.line,
                                           "error": h.detail}))
                else:
                    click.echo(f"error: {h}", err=True)
                continue
            if not h.finished:
                washouts += 1
                continue
            hands += 1
            _, diffs = check_history(h)
            if not diffs:
                agreed += 1
                continue
            name = "/".join(h.source.replace("\\", "/").replace(":", "/").split("/")[-2:])
            is_known = name in known
            allowed += is_known
            if as_json:
                click.echo(json.dumps({"source": h.source, "game": h.game_number,
                                       "hand": h.hand_number, "known": is_known,
                                       "differences": [{"seat": d.seat, "what": d.what,
                                                        "ours": repr(d.ours),
                                                        "bradfield": repr(d.theirs)}
                                                       for d in diffs]}))
            else:
                click.echo(f"{h.label} ({h.source}){' [known]' if is_known else ''}:")
                for d in diffs:
                    click.echo(f"    {d}")
    if hands == 0 and not washouts and not errors:
        click.echo(f"error: no Bradfield hand histories (.mjs) found in {', '.join(paths)}",
                   err=True)
    differ = hands - agreed
    summary = (f"{agreed} of {hands} scored hands agree with Bradfield's records "
               f"({differ} differ" + (f", {allowed} of them known" if known else "") + ")"
               + (f"; {washouts} wash-outs not scored" if washouts else "")
               + (f"; {errors} files could not be read (listed above)" if errors else ""))
    if as_json:
        click.echo(json.dumps({"summary": {"hands": hands, "agreed": agreed, "differ": differ,
                                           "known": allowed, "washouts": washouts,
                                           "unreadable": errors}}))
    else:
        click.echo(summary)
    return 1 if errors or differ - allowed or (hands == 0 and not washouts) else 0
