"""The riichi half of ``mjcore score``: one winning hand's yaku, fu breakdown, limit, points
and payments (or JSON), here or on a ``mjcore serve`` server."""
from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import click

from .common import connect_client, fail, with_settings

if TYPE_CHECKING:
    from ..errors import MjcoreError
    from ..riichi.rules import RuleSet
    from ..riichi.scoring import Terms

_FLAGS = ("riichi", "double_riichi", "ippatsu", "rinshan", "chankan", "haitei", "houtei",
          "tenhou", "chiihou", "renhou")


def _tiles(values: tuple[str, ...], option: str = "--dora") -> list[str]:
    from ..errors import InvalidHandError
    from ..tiles import parse_kinds, tile_name

    out: list[str] = []
    for v in values:
        try:
            out += [tile_name(k) for k in parse_kinds(v)]
        except InvalidHandError as exc:    # name the option, not a "hand"
            why = str(exc).removeprefix(f"hand {v!r}: ")
            raise InvalidHandError(f"{option} {v!r}: {why}", reason=exc.reason,
                                   position=exc.position, text=v) from None
    return out


# the seats relative to the winner, as the deltas and payments list them
_SEATS_4 = ("winner", "shimocha", "toimen", "kamicha")
_SEATS_3 = ("winner", "shimocha", "kamicha")


def _seat_names(rules: RuleSet | str) -> tuple[str, ...]:
    """The seats of a preset's (or RuleSet's) game (four when this library does not know the
    preset: the server may know more presets than the client)."""
    from ..errors import InvalidRuleError
    from ..riichi.rules import RuleSet

    try:
        players = (rules if isinstance(rules, RuleSet) else RuleSet.preset(rules)).players
    except InvalidRuleError:
        return _SEATS_4
    return _SEATS_3 if players == 3 else _SEATS_4


def render(hand: str, win: str, tsumo: bool, res) -> str:  # type: ignore[no-untyped-def]
    from ..tiles import tile_name

    lines = [f"hand   {hand}   win {win} ({'tsumo' if tsumo else 'ron'})"]
    if not res.is_win:
        lines.append(f"no win: {res.status.replace('_', ' ')} (fu {res.fu})")
        return "\n".join(lines)
    lines.append("yaku")
    for y in res.yaku:
        unit = "yakuman" if y.han >= 13 and 36 <= y.id < 52 and res.yakuman and not res.is_kazoe \
            else "han"
        value = y.han // 13 if unit == "yakuman" else y.han
        lines.append(f"  {y.name:<24} {y.name_ja:<10} {value:>2} {unit}  (tenhou id {y.id})")
    if not res.yakuman or res.is_kazoe:
        lines.append(f"dora {res.dora}   ura {res.ura}   aka {res.aka}")
    parts = []
    for f in res.fu_items:
        what = f.item
        if isinstance(f.tile, int):
            what += f" {tile_name(f.tile)}"
        elif f.tile:
            what += f" ({f.tile})"
        parts.append(f"{what} {f.fu}")
    lines.append(f"fu     {res.fu}" + (f" = {' + '.join(parts)}" if parts else ""))
    if res.yakuman and not res.is_kazoe:
        value = res.limit_name
    else:
        value = f"{res.han} han {res.fu} fu" + (f" {res.limit_name}" if res.limit else "")
    lines.append(f"value  {value}: {res.points} points (basic {res.basic})")
    seats = _SEATS_3 if res.players == 3 else _SEATS_4
    pays = [f"{seats[s]} pays {p}" for s, p in enumerate(res.payments[:len(seats)]) if p]
    lines.append("pay    " + ", ".join(pays))
    lines.append("deltas " + "  ".join(f"{seats[s]} {d:+d}"
                                       for s, d in enumerate(res.deltas[:len(seats)])))
    lines.append(f"reading {res.decomposition}  (#{res.decomposition_index} of "
                 f"{res.n_decompositions})")
    return "\n".join(lines)



def _cli_terms() -> Terms:
    from ..riichi.scoring import Terms

    class CliTerms(Terms):
        """The messages of `mjcore score` name its options."""

        def flag(self, name: str) -> str:
            return "--" + name.replace("_", "-")

        def ron(self) -> str:
            return "--ron (the default)"

        def seat(self, wind: str) -> str:
            return f"--seat {wind}"

        def win(self, tile: str) -> str:
            return f"--win {tile}"

        def kita(self, n: int) -> str:
            return f"--kita {n}"

    return CliTerms()


def _check_seats(tsumo: bool, from_rel: int | None, pao: int | None, rules: str) -> None:
    """--from and --pao as the chosen rules number the seats, and no discarder on a tsumo."""
    from ..errors import InvalidHandError

    if tsumo and from_rel is not None:
        raise InvalidHandError(f"--from {from_rel} with --tsumo: a tsumo has no discarder "
                               "(--from is for a ron)", reason="bad_seats")
    if len(_seat_names(rules)) == 3:
        for option, value in (("--from", from_rel), ("--pao", pao)):
            if value == 3:
                raise InvalidHandError(
                    f"{option} 3: three players ({rules}) number the others 1 (shimocha) and "
                    "2 (kamicha)", reason="bad_seats")


def _explained(e: MjcoreError, text: str, win: str, tsumo: bool, seat: str, kita: int,
               rules: RuleSet | str, flags: dict[str, bool]) -> MjcoreError:
    """``e`` reworded in the options' terms when it is a situation, tile count or winning
    tile the library can pin down; otherwise ``e``."""
    from ..errors import InvalidHandError
    from ..riichi import scoring
    from ..status import BAD_SITUATION, BAD_TILE, BAD_TOTAL

    code = {"bad_situation": BAD_SITUATION, "wrong_tile_count": BAD_TOTAL,
            "bad_tile": BAD_TILE}.get(getattr(e, "reason", ""))
    if code is None or not isinstance(e, InvalidHandError):
        return e
    why = scoring.explain(code, text, win, terms=_cli_terms(), tsumo=tsumo, kita=kita,
                          seat_wind=_seat_wind(seat, len(_seat_names(rules))),
                          **{k: flags[k] for k in _FLAGS})
    return InvalidHandError(f"hand {text}: {why}", reason=e.reason, text=text) if why else e


def _seat_wind(seat: str, players: int) -> int:
    """The seat wind (0 dealer) ``--seat`` names, as the scorer reads it; 0 when it names none
    (for a message only)."""
    from ..errors import InvalidHandError
    from ..riichi.scoring import prepare

    try:
        return int(prepare("11z", "1z", seat_wind=seat, players=players)["seat_wind"])
    except InvalidHandError:
        return 0


def score_riichi(*, hand: Sequence[str], win: str | None, tsumo: bool, dora: tuple[str, ...],
                 ura: tuple[str, ...], seat: str, round_: str, from_rel: int | None,
                 pao: int | None, honba: int, sticks: int, kita: int, rules: str,
                 as_json: bool, server: str | None, rule_set: tuple[str, ...],
                 token_file: str | None, tls: bool, ca_file: str | None,
                 cert_file: str | None, key_file: str | None, **options: Any) -> None:
    """``mjcore score`` under a riichi preset (``options``: the flags, and the other games'
    options, unused here)."""
    from ..errors import MjcoreError
    from ..riichi.rules import RuleSet
    from ..riichi.scoring import score

    flags: dict[str, bool] = {k: options[k] for k in _FLAGS}
    if not hand or not win:
        raise click.UsageError("HAND and --win are required")
    text = " ".join(hand)
    try:
        _check_seats(tsumo, from_rel, pao, rules)
    except MjcoreError as e:
        fail(as_json, text, e)
    ruleset: RuleSet | str = rules
    if rule_set:
        try:
            ruleset = with_settings(RuleSet.preset(rules), rule_set)
        except MjcoreError as e:
            fail(as_json, text, e)
    client_files = {"token_file": token_file, "tls": tls, "ca_file": ca_file,
                    "cert_file": cert_file, "key_file": key_file}
    if server:
        _score_remote(server, client_files, text, win, tsumo, dora, ura, seat, round_,
                      from_rel, pao, honba, sticks, kita, ruleset, as_json, flags)
        return
    if token_file or tls or ca_file or cert_file or key_file:
        raise click.UsageError("--token-file, --tls, --ca, --cert and --key go with --server")
    try:
        res = score(text, win, tsumo=tsumo, seat_wind=seat, round_wind=round_,
                    dora=_tiles(dora), ura=_tiles(ura, "--ura"), honba=honba,
                    riichi_sticks=sticks,
                    from_who=from_rel, pao_seat=pao, kita=kita, rules=ruleset,
                    **{k: flags[k] for k in _FLAGS})
    except MjcoreError as e:
        fail(as_json, text, _explained(e, text, win, tsumo, seat, kita, rules, flags))
    _print(text, win, tsumo, res, as_json)


def _score_remote(server: str, client_files: dict[str, Any], text: str, win: str,
                  tsumo: bool, dora: tuple[str, ...], ura: tuple[str, ...], seat: str,
                  round_: str, from_rel: int | None, pao: int | None, honba: int, sticks: int,
                  kita: int, rules: RuleSet | str, as_json: bool,
                  flags: dict[str, bool]) -> None:
    """The same command answered by a `mjcore serve` server, printed as the local one."""
    client = connect_client(server, "mjcore score --server", **client_files)
    from ..client import ServiceError
    from ..errors import MjcoreError

    try:
        res = client.score(text, win, tsumo=tsumo, seat_wind=seat, round_wind=round_,
                           dora="".join(_tiles(dora)), ura="".join(_tiles(ura, "--ura")),
                           honba=honba, riichi_sticks=sticks, kita=kita, from_who=from_rel,
                           pao_seat=pao, rules=rules, **{k: flags[k] for k in _FLAGS})
    except ServiceError as e:       # the server, not the hand
        raise click.ClickException(str(e)) from None
    except MjcoreError as e:
        fail(as_json, text, _explained(e, text, win, tsumo, seat, kita, rules, flags))
    finally:
        client.close()
    _print(text, win, tsumo, res, as_json)


def _print(text: str, win: str, tsumo: bool, res: Any, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps({"input": text, "win": win, "tsumo": tsumo, **res.to_dict()},
                              ensure_ascii=False))
    else:
        click.echo(render(text, win, tsumo, res))
