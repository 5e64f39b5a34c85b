"""The library's values as ``mjcore.v1`` messages and back, for both ends of the wire.

To messages: rule selections and options (the client's requests), shanten, decompositions,
scores and classical deal scores (the service's answers). From messages: the analysis of a
hand and a classical deal's score (the client's results). The enum vocabularies (winds,
classical claims and win conditions, fu items, wait shapes) are mapped here and only here.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

from mjcore._core.scoring import FuEntry, Yaku
from mjcore.classical.scoring import WIN_FLAGS, deal_dict, item_dict, payment_dict, player_dict
from mjcore.decomposition import Decomposition, TileSet
from mjcore.errors import InvalidRuleError
from mjcore.results import Shanten, Ukeire, UkeireOption, Wait, Waits
from mjcore.tiles import TILE_NAMES, parse_tile

from .v1 import analysis_service_pb2 as pb
from .v1 import scoring_pb2 as sp
from .v1 import types_pb2

# -- enums --------------------------------------------------------------------------------------

WIND_OF_NAME = {"E": types_pb2.WIND_EAST, "S": types_pb2.WIND_SOUTH, "W": types_pb2.WIND_WEST,
                "N": types_pb2.WIND_NORTH}
WIND_NAMES = {number: name for name, number in WIND_OF_NAME.items()}
# ClassicalWinCondition value -> the library's name (the order of WIN_FLAGS)
CONDITIONS = {cast(sp.ClassicalWinCondition, number): name
              for number, name in enumerate(WIN_FLAGS, start=1)}
CONDITION_OF_NAME = {name: number for number, name in CONDITIONS.items()}
CLAIMS = {sp.CLASSICAL_CLAIM_UNSPECIFIED: "any", sp.CLASSICAL_CLAIM_PAIR: "pair",
          sp.CLASSICAL_CLAIM_CHOW: "chow", sp.CLASSICAL_CLAIM_PUNG: "pung"}
CLAIM_OF_NAME = {name: number for number, name in CLAIMS.items()}
SITUATION_FLAGS = tuple(sp.Situation.DESCRIPTOR.fields_by_name)
SCORE_STATUS = {"ok": sp.SCORE_STATUS_WIN, "no_yaku": sp.SCORE_STATUS_NO_YAKU}

_FORMS = {"standard": sp.HAND_FORM_STANDARD, "chiitoitsu": sp.HAND_FORM_CHIITOITSU,
          "kokushi": sp.HAND_FORM_KOKUSHI}
_SET_KINDS = {"chi": sp.SET_KIND_CHI, "pon": sp.SET_KIND_PON, "kan": sp.SET_KIND_KAN}
WAIT_SHAPES = {"ryanmen": sp.WAIT_SHAPE_RYANMEN, "kanchan": sp.WAIT_SHAPE_KANCHAN,
               "penchan": sp.WAIT_SHAPE_PENCHAN, "shanpon": sp.WAIT_SHAPE_SHANPON,
               "tanki": sp.WAIT_SHAPE_TANKI, "kokushi": sp.WAIT_SHAPE_KOKUSHI,
               "kokushi 13-sided": sp.WAIT_SHAPE_KOKUSHI_13_SIDED}
FU_ITEM_KINDS = {"base": sp.FU_ITEM_KIND_BASE, "chiitoitsu": sp.FU_ITEM_KIND_CHIITOITSU,
                 "menzen ron": sp.FU_ITEM_KIND_MENZEN_RON, "tsumo": sp.FU_ITEM_KIND_TSUMO,
                 "set": sp.FU_ITEM_KIND_SET, "pair": sp.FU_ITEM_KIND_PAIR,
                 "wait": sp.FU_ITEM_KIND_WAIT, "open pinfu": sp.FU_ITEM_KIND_OPEN_PINFU,
                 "rounding": sp.FU_ITEM_KIND_ROUNDING}
EV_MODELS = {pb.EXPECTED_VALUE_MODEL_CONSISTENT: "consistent",
             pb.EXPECTED_VALUE_MODEL_COMPATIBLE: "compatible"}
EV_MODEL_OF_NAME = {name: number for number, name in EV_MODELS.items()}
EV_STATUS = {"ok": pb.EXPECTED_VALUE_STATUS_OK,
             "ev_shanten_too_high": pb.EXPECTED_VALUE_STATUS_SHANTEN_TOO_HIGH,
             "ev_node_budget": pb.EXPECTED_VALUE_STATUS_NODE_BUDGET,
             "ev_deadline": pb.EXPECTED_VALUE_STATUS_DEADLINE,
             "ev_out_of_memory": pb.EXPECTED_VALUE_STATUS_OUT_OF_MEMORY}
EV_STATUS_NAMES = {number: name for name, number in EV_STATUS.items()}
_LIMITS = (sp.LIMIT_NONE, sp.LIMIT_MANGAN, sp.LIMIT_HANEMAN, sp.LIMIT_BAIMAN,
           sp.LIMIT_SANBAIMAN, sp.LIMIT_YAKUMAN)


# -- rules ------------------------------------------------------------------------------------

def option_to_proto(name: str, value: Any) -> sp.RuleOption:
    """One rule option; an empty tuple is an empty ``string_list``."""
    opt = sp.RuleOption(name=name)
    if isinstance(value, bool):
        opt.bool_value = value
    elif isinstance(value, int):
        opt.int_value = value
    elif isinstance(value, str):
        opt.string_value = value
    elif isinstance(value, tuple) and all(isinstance(v, str) for v in value):
        opt.string_list.values.extend(value)
        opt.string_list.SetInParent()
    elif isinstance(value, tuple) and all(isinstance(v, int) for v in value):
        opt.int_list.values.extend(value)
    else:
        raise InvalidRuleError(f"rule option {name}: cannot express {value!r}")
    return opt


def rule_selection(rules: Any) -> sp.RuleSelection:
    """A RuleSelection from None (the default preset), a preset name, a riichi ``RuleSet``, a
    ``ClassicalRules`` (its options that differ from the "classical" preset) or a dict of
    options with an optional "preset"."""
    from mjcore.classical.rules import ClassicalRules
    from mjcore.riichi.rules import RuleSet

    if rules is None:
        return sp.RuleSelection()
    if isinstance(rules, str):
        return sp.RuleSelection(preset=rules)
    if isinstance(rules, RuleSet):
        return sp.RuleSelection(preset="tenhou", options=[
            option_to_proto(k, v) for k, v in rules.to_dict().items()])
    if isinstance(rules, ClassicalRules):
        base = ClassicalRules.preset("classical").to_dict()
        rules = {k: v for k, v in rules.to_dict().items() if base[k] != v}
        rules["preset"] = "classical"
    if isinstance(rules, dict):
        return sp.RuleSelection(preset=rules.get("preset", ""), options=[
            option_to_proto(k, v) for k, v in rules.items() if k != "preset"])
    raise InvalidRuleError(f"rules {rules!r}: expected a preset name, a RuleSet, a "
                           "ClassicalRules or a dict")


def preset_to_proto(name: str, description: str) -> sp.RulePreset:
    """A riichi rule preset with every option's value in it."""
    from mjcore.riichi.rules import RuleSet

    return sp.RulePreset(name=name, description=description, options=[
        option_to_proto(k, v) for k, v in RuleSet.preset(name).to_dict().items()])


# -- analysis ---------------------------------------------------------------------------------

def shanten_info(sh: Shanten) -> pb.ShantenInfo:
    """The shanten of each form; a form the hand or the rules rule out is left unset."""
    info = pb.ShantenInfo(shanten=int(sh), standard=sh.standard)
    if sh.chiitoitsu is not None:
        info.chiitoitsu = sh.chiitoitsu
    if sh.kokushi is not None:
        info.kokushi = sh.kokushi
    return info


def _waits(items: Iterable[types_pb2.TileCount]) -> tuple[Wait, ...]:
    return tuple(Wait(t.kind, t.remaining_count) for t in items)


def analysis_values(r: pb.AnalyzeHandResponse
                    ) -> tuple[str, Shanten, bool, Waits | None, Ukeire]:
    """The hand, shanten, agari flag, waits (None unless a 13 - 3k tile hand) and ukeire of an
    AnalyzeHandResponse, as the library's values."""
    sh = r.shanten
    shanten = Shanten(sh.standard, sh.chiitoitsu if sh.HasField("chiitoitsu") else None,
                      sh.kokushi if sh.HasField("kokushi") else None)
    waits = Waits(shanten=int(shanten), tiles=_waits(r.waits.tiles)) \
        if r.HasField("waits") else None
    ukeire = Ukeire(r.ukeire.shanten, tuple(
        UkeireOption(parse_tile(o.discard) if o.discard else None, o.shanten, _waits(o.tiles))
        for o in r.ukeire.options))
    return r.hand, shanten, r.agari, waits, ukeire


# -- decomposition and scoring ----------------------------------------------------------------

def _set_text(tiles: Iterable[int]) -> str:
    kinds = list(tiles)
    return "".join(TILE_NAMES[k][0] for k in kinds) + TILE_NAMES[kinds[0]][1]


def decomposition(d: Any) -> sp.Decomposition:
    """A ``mjcore.decomposition`` reading as a message."""
    msg = sp.Decomposition(
        form=_FORMS[d.form], wait=WAIT_SHAPES[d.wait], text=str(d),
        pair="" if d.form == "chiitoitsu" else TILE_NAMES[d.pair],
        sets=[sp.TileSet(kind=_SET_KINDS[s.kind], tiles=_set_text(s.tiles), first_kind=s.tile,
                         concealed=s.concealed, called=s.called) for s in d.sets])
    if d.win_set is not None:
        msg.win_set = d.win_set
    return msg


def _fu_item(f: Any) -> sp.FuItem:
    item = sp.FuItem(kind=FU_ITEM_KINDS[f.item], fu=f.fu)
    if isinstance(f.tile, int):
        item.tile = TILE_NAMES[f.tile]
    elif isinstance(f.tile, str):
        item.wait = WAIT_SHAPES[f.tile]
    return item


def score_response(r: Any) -> sp.ScoreResponse:
    """A ``mjcore.score`` result as a ScoreResponse."""
    return sp.ScoreResponse(
        win=r.is_win, status=SCORE_STATUS[r.status],
        yaku=[sp.Yaku(tenhou_id=y.id, name=y.name, name_japanese=y.name_ja, han=y.han)
              for y in r.yaku],
        dora_count=r.dora, ura_dora_count=r.ura, red_dora_count=r.aka, han=r.han, fu=r.fu,
        fu_items=[_fu_item(f) for f in r.fu_items], limit=_LIMITS[r.limit],
        limit_name=r.limit_name, kazoe=r.is_kazoe, yakuman_multiplier=r.yakuman,
        basic_points=r.basic, points=r.points, deltas=r.deltas, payments=r.payments,
        decomposition=decomposition(r.decomposition),
        decomposition_index=r.decomposition_index, decomposition_count=r.n_decompositions)


_FORM_NAMES = {number: name for name, number in _FORMS.items()}
_SET_KIND_NAMES = {number: name for name, number in _SET_KINDS.items()}
_WAIT_NAMES = {number: name for name, number in WAIT_SHAPES.items()}
_FU_ITEM_NAMES = {number: name for name, number in FU_ITEM_KINDS.items()}
_STATUS_NAMES = {number: name for name, number in SCORE_STATUS.items()}


def decomposition_value(d: sp.Decomposition, win_kind: int) -> Decomposition:
    """A Decomposition message as the library's ``Decomposition`` (seven pairs: the message
    names no pair; the library's is the winning tile's)."""
    return Decomposition(
        _FORM_NAMES[d.form],
        tuple(TileSet(_SET_KIND_NAMES[s.kind], s.first_kind, s.concealed, s.called)
              for s in d.sets),
        parse_tile(d.pair) if d.pair else win_kind, _WAIT_NAMES[d.wait],
        d.win_set if d.HasField("win_set") else None)


def score_values(r: sp.ScoreResponse, win_kind: int) -> dict[str, Any]:
    """The fields of a ScoreResponse as the values ``mjcore.score``'s result holds (the
    keyword arguments of ``mjcore.client.RemoteScoreResult`` but ``players``, ``winner``
    and ``raw``); ``win_kind`` the request's winning tile."""
    fu_items = []
    for f in r.fu_items:
        tile: int | str | None = None
        if f.kind in (sp.FU_ITEM_KIND_SET, sp.FU_ITEM_KIND_PAIR):
            tile = parse_tile(f.tile)
        elif f.kind == sp.FU_ITEM_KIND_WAIT:
            tile = _WAIT_NAMES[f.wait]
        fu_items.append(FuEntry(_FU_ITEM_NAMES[f.kind], tile, f.fu))
    return {
        "status": _STATUS_NAMES[r.status], "han": r.han, "fu": r.fu,
        "yaku": tuple(Yaku(y.tenhou_id, y.name, y.name_japanese, y.han) for y in r.yaku),
        "dora": r.dora_count, "ura": r.ura_dora_count, "aka": r.red_dora_count,
        "yakuman": r.yakuman_multiplier, "is_kazoe": r.kazoe, "limit": _LIMITS.index(r.limit),
        "limit_name": r.limit_name, "basic": r.basic_points, "points": r.points,
        "fu_items": tuple(fu_items), "deltas": tuple(r.deltas), "payments": tuple(r.payments),
        "decomposition": decomposition_value(r.decomposition, win_kind),
        "decomposition_index": r.decomposition_index,
        "n_decompositions": r.decomposition_count}


# -- classical deals --------------------------------------------------------------------------

def deal_response(result: Any) -> sp.ScoreClassicalDealResponse:
    """A ``mjcore.classical.scoring.DealScore`` as a message (the content of its
    ``to_dict``)."""
    players = []
    for p in result.players:
        items = [sp.ClassicalItem(item=i.name, reason=i.reason,
                                  tiles=i.subject if i.tile is not None else "",
                                  points=i.points, doubles=i.doubles, limit=i.limit)
                 for i in p.items]
        players.append(sp.ClassicalPlayerScore(
            seat=p.seat, winner=p.winner, points=p.points, doubles=p.doubles,
            uncapped=p.uncapped, score=p.score, limit_hand=p.limit_hand, items=items))
    payments = [sp.ClassicalPayment(payer=x.payer, payee=x.payee, amount=x.amount,
                                    for_seat=x.for_seat) for x in result.payments]
    response = sp.ScoreClassicalDealResponse(players=players, payments=payments,
                                             net=list(result.net), rules=result.rules.name)
    if result.cannon is not None:
        response.cannon = result.cannon
    return response


def deal_to_dict(response: sp.ScoreClassicalDealResponse) -> dict[str, Any]:
    """A ScoreClassicalDealResponse in the layout of ``DealScore.to_dict``."""
    players = [player_dict(p, [item_dict(i.item, i.reason, i.tiles, i.limit, i.doubles,
                                         i.points) for i in p.items])
               for p in response.players]
    payments = [payment_dict(x.payer, x.payee, x.amount,
                             x.for_seat if x.HasField("for_seat") else None)
                for x in response.payments]
    return deal_dict(players, payments, response.net,
                     response.cannon if response.HasField("cannon") else None, response.rules)


# -- expected values ----------------------------------------------------------------------------

def expected_values_response(ev: Any) -> pb.ExpectedValuesResponse:
    """An ``mjcore.expected_values`` result (``ExpectedValues``) as its message."""
    return pb.ExpectedValuesResponse(
        hand=ev.hand, shanten=ev.shanten, status=EV_STATUS[ev.status], message=ev.message,
        node_count=ev.nodes, edge_count=ev.edges, win_edge_count=ev.win_edges,
        unseen_count=ev.total_unseen, seconds=ev.seconds, peak_byte_count=ev.bytes_peak,
        max_turn=ev.t_max, model=EV_MODEL_OF_NAME[ev.model],
        discards=[pb.DiscardValue(
            tile=d.tile or "", shanten=d.shanten, necessary_count=d.necessary_count,
            necessary=[types_pb2.TileCount(kind=parse_tile(t), tile=t, remaining_count=n)
                       for t, n in d.necessary],
            evaluated=d.evaluated, tenpai=d.tenpai, win=d.win, ev=d.ev,
            max_tenpai=d.max_tenpai, max_win=d.max_win) for d in ev.discards])


def expected_values_value(r: pb.ExpectedValuesResponse) -> Any:
    """An ExpectedValuesResponse as the library's ``ExpectedValues``."""
    from mjcore.riichi.expected import DiscardValue, ExpectedValues

    discards = tuple(DiscardValue(
        d.tile or None, d.shanten, tuple((t.tile, t.remaining_count) for t in d.necessary),
        tuple(d.tenpai), tuple(d.win), tuple(d.ev), d.evaluated, tuple(d.max_tenpai),
        tuple(d.max_win)) for d in r.discards)
    return ExpectedValues(r.hand, r.shanten, discards, EV_STATUS_NAMES.get(r.status, "ok"),
                          r.message, r.node_count, r.edge_count, r.win_edge_count,
                          r.unseen_count, r.seconds, r.peak_byte_count, r.max_turn,
                          EV_MODELS.get(r.model, "consistent"))


__all__ = ["CLAIMS", "CLAIM_OF_NAME", "CONDITIONS", "CONDITION_OF_NAME", "EV_MODELS",
           "EV_MODEL_OF_NAME", "EV_STATUS", "EV_STATUS_NAMES", "FU_ITEM_KINDS",
           "SCORE_STATUS", "SITUATION_FLAGS", "WAIT_SHAPES", "WIND_NAMES", "WIND_OF_NAME",
           "analysis_values", "deal_response", "deal_to_dict", "decomposition",
           "decomposition_value", "expected_values_response", "expected_values_value",
           "option_to_proto", "preset_to_proto", "rule_selection",
           "score_response", "score_values", "shanten_info"]
