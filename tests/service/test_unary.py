"""Unary RPCs against the in-process library, and their errors."""
from __future__ import annotations

from typing import Any

import grpc
import pytest

import mjcore
from mjcore.client import Client, ServiceError
from mjcore.decomposition import decompose
from mjcore.errors import InvalidHandError, InvalidRuleError
from mjcore.hand import Hand
from mjcore.riichi.rules import RuleSet
from mjcore.riichi.scoring import score
from mjcore.service.errors import error_info
from mjcore.tiles import parse_kinds, parse_tile
from mjcore.wire import convert as wire
from mjcore.wire.v1 import analysis_service_pb2 as pb
from mjcore.wire.v1 import scoring_pb2 as sp
from mjcore.wire.v1 import types_pb2

ANALYSE = ["123m456p789s1122z", "123m456p789s11223z", "19m19p19s1234567z", "11223344556677m",
           "1m2p3s4z369m258p147s", "23m456p789s11z chi:324m",
           "5m pon:555z<2 pon:666z kan:7777z<1 ankan:1111s", "1111m222p33s1234z",
           "m123p406s789z1122", "4444m123p567s99s1z", "1111m2222p3333s4z"]


def _check_raises(stub_call, request, reason: str, field: str = "hand"):
    with pytest.raises(grpc.RpcError) as exc:
        stub_call(request)
    assert exc.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    info = error_info(exc.value)
    assert info is not None and info.domain == "mjcore.dev"
    assert info.reason == reason, (info.reason, exc.value.details())
    assert info.metadata["field"] == field
    assert info.metadata["index"] == "0"
    return info


@pytest.mark.parametrize("text", ANALYSE)
def test_analyze_matches_library(client: Client, text: str):
    hand = Hand.parse(text)
    got = client.analyze(text)
    assert got.hand == str(hand)
    sh = mjcore.shanten(hand)
    assert (int(got.shanten), got.shanten.standard, got.shanten.chiitoitsu,
            got.shanten.kokushi) == (int(sh), sh.standard, sh.chiitoitsu, sh.kokushi)
    tiles = hand.n_closed + 3 * hand.n_melds
    assert got.is_agari == (tiles == 14 and mjcore.is_agari(hand))
    if tiles == 13:
        assert got.waits == mjcore.waits(hand)
    else:
        assert got.waits is None
    assert got.ukeire == mjcore.ukeire(hand)


def test_analyze_visible_tiles_lower_remaining(client: Client):
    text, visible = "123m456p789s1122z", "1z1z2z"
    got = client.analyze(text, visible)
    hand = Hand.parse(text)
    expected = mjcore.waits(hand, parse_kinds(visible))
    assert got.waits is not None
    assert got.waits.tiles == expected.tiles
    assert sum(w.remaining for w in got.waits.tiles) < mjcore.waits(hand).remaining


def test_analyze_raw_message_fields(stub):
    r = stub.AnalyzeHand(pb.AnalyzeHandRequest(hand="123m456p789s1122z"))
    assert r.closed_tile_count == 13 and r.meld_count == 0 and not r.agari
    assert r.shanten.shanten == 0 and r.waits.tenpai
    assert {t.tile for t in r.waits.tiles} == {"1z", "2z"}
    assert r.waits.remaining_count == sum(t.remaining_count for t in r.waits.tiles) == 4


@pytest.mark.parametrize("text,reason", [
    ("123x456p", None),            # unknown character
    ("123", None),                  # digits without a suit
    ("11111m23p456s789s", None),    # five copies of a tile
    ("", None),
    ("123m pon:123z", None),        # a meld that is not a set
])
def test_analyze_malformed_hands(stub, text, reason):
    with pytest.raises(InvalidHandError) as lib:
        Hand.parse(text)
    info = _check_raises(stub.AnalyzeHand, pb.AnalyzeHandRequest(hand=text),
                         lib.value.reason.upper())
    if lib.value.position is not None:
        assert info.metadata["position"] == str(lib.value.position)


def test_analyze_wrong_tile_count(stub):
    with pytest.raises(InvalidHandError) as lib:
        mjcore.shanten("123m456p789s12z")
    _check_raises(stub.AnalyzeHand, pb.AnalyzeHandRequest(hand="123m456p789s12z"),
                  lib.value.reason.upper())


def test_client_raises_invalid_hand_error_with_reason(client: Client):
    with pytest.raises(InvalidHandError) as err:
        client.analyze("11111m")
    with pytest.raises(InvalidHandError) as lib:
        Hand.parse("11111m")
    assert err.value.reason == lib.value.reason
    assert err.value.index == 0


def _lib_reason(fn, *args) -> str:
    with pytest.raises(InvalidHandError) as lib:
        fn(*args)
    return lib.value.reason.upper()


def test_bad_visible_field(stub):
    _check_raises(stub.AnalyzeHand, pb.AnalyzeHandRequest(hand="123m456p789s1122z",
                                                          visible="9q"),
                  _lib_reason(Hand.parse, "9q"), "visible")


DECOMPOSE = [("123m456p789s11122z", "2z"), ("22334455667788p", "5p"), ("11123455678999m", "5m"),
             ("19m19p19s11234567z", "1z"), ("112233m456p789s55z", "3m"),
             ("123m55z chi:345p pon:777s<2 kan:9999m<1", "5z")]


@pytest.mark.parametrize("text,win", DECOMPOSE)
def test_decompose_matches_library(stub, text, win):
    r = stub.Decompose(pb.DecomposeRequest(hand=text, win_tile=win))
    expected = decompose(text, win)
    assert r.hand == str(Hand.parse(text))
    assert [d.text for d in r.decompositions] == [str(d) for d in expected]
    for got, want in zip(r.decompositions, expected, strict=True):
        assert sp.HandForm.Name(got.form) == f"HAND_FORM_{want.form.upper()}"
        assert [s.first_kind for s in got.sets] == [s.tile for s in want.sets]
        assert [s.concealed for s in got.sets] == [s.concealed for s in want.sets]
        assert (got.win_set if got.HasField("win_set") else None) == want.win_set


def test_decompose_incomplete_hand_has_none(stub):
    assert decompose("123m456p789s11234z", "4z") == ()
    r = stub.Decompose(pb.DecomposeRequest(hand="123m456p789s11234z", win_tile="4z"))
    assert list(r.decompositions) == []


def test_decompose_errors(stub):
    _check_raises(stub.Decompose, pb.DecomposeRequest(hand="123m456p789s11122z"),
                  "MISSING_TILE", "win_tile")
    _check_raises(stub.Decompose, pb.DecomposeRequest(hand="123m456p789s11122z", win_tile="0z"),
                  _lib_reason(parse_tile, "0z"), "win_tile")
    with pytest.raises(InvalidHandError) as lib:
        decompose("123m456p789s11122z", "9m")
    _check_raises(stub.Decompose, pb.DecomposeRequest(hand="123m456p789s11122z", win_tile="9m"),
                  lib.value.reason.upper())


SCORES = [
    (sp.ScoreRequest(hand="123m456p789s11122z", win_tile="2z", win_method=sp.WIN_METHOD_RON,
                     seat_wind=types_pb2.WIND_WEST, dora_indicators="1z"),
     {"round_wind": "E", "seat_wind": "W", "dora": "1z"}),
    (sp.ScoreRequest(hand="234m567p345s22m678s", win_tile="8s", win_method=sp.WIN_METHOD_TSUMO,
                     seat_wind=types_pb2.WIND_SOUTH, situation=sp.Situation(riichi=True,
                                                                          ippatsu=True),
                     dora_indicators="1m", ura_indicators="4p", honba_count=2,
                     riichi_stick_count=1),
     {"tsumo": True, "seat_wind": "S", "riichi": True, "ippatsu": True, "dora": "1m",
      "ura": "4p", "honba": 2, "riichi_sticks": 1}),
    (sp.ScoreRequest(hand="11m pon:555z<1 pon:666z<2 pon:777z<3 123p", win_tile="1m",
                     win_method=sp.WIN_METHOD_RON, seat_wind=types_pb2.WIND_EAST,
                     discarder=2, liable=3),
     {"seat_wind": "E", "from_who": 2, "pao_seat": 3}),
    (sp.ScoreRequest(hand="19m19p19s12345677z", win_tile="7z", win_method=sp.WIN_METHOD_TSUMO,
                     winner=2, dealer=0, rules=sp.RuleSelection(preset="ema")),
     {"tsumo": True, "winner": 2, "dealer": 0, "rules": RuleSet.preset("ema")}),
    (sp.ScoreRequest(hand="22334455667788p", win_tile="8p", win_method=sp.WIN_METHOD_RON,
                     rules=sp.RuleSelection(preset="wrc", options=[
                         sp.RuleOption(name="kiriage", bool_value=False)])),
     {"rules": RuleSet.preset("wrc").replace(kiriage=False)}),
]


@pytest.mark.parametrize("request_,kwargs", SCORES)
def test_score_matches_library(stub, request_, kwargs):
    r = stub.Score(request_)
    want = score(request_.hand, request_.win_tile, **kwargs)
    assert r.win == want.is_win
    assert r.status == wire.SCORE_STATUS[want.status]
    assert [(y.tenhou_id, y.name, y.han) for y in r.yaku] == [(y.id, y.name, y.han)
                                                             for y in want.yaku]
    assert (r.han, r.fu, r.points, r.basic_points) == (want.han, want.fu, want.points,
                                                         want.basic)
    assert (r.dora_count, r.ura_dora_count, r.red_dora_count) == (want.dora, want.ura, want.aka)
    assert tuple(r.deltas) == want.deltas and tuple(r.payments) == want.payments
    assert r.limit_name == want.limit_name and r.yakuman_multiplier == want.yakuman
    assert [(sp.FuItemKind.Name(f.kind), f.fu) for f in r.fu_items] == [
        ("FU_ITEM_KIND_" + f.item.upper().replace(" ", "_"), f.fu) for f in want.fu_items]
    assert [f.tile or sp.WaitShape.Name(f.wait) for f in r.fu_items if f.tile or f.wait] == [
        mjcore.tile_name(f.tile) if isinstance(f.tile, int) else f"WAIT_SHAPE_{f.tile.upper()}"
        for f in want.fu_items if f.tile is not None]
    assert r.decomposition.text == str(want.decomposition)
    assert r.decomposition_index == want.decomposition_index


def test_score_no_yaku_is_not_an_error(stub):
    r = stub.Score(sp.ScoreRequest(hand="234m456p789s55z chi:123s", win_tile="5z",
                                   win_method=sp.WIN_METHOD_RON))
    assert not r.win and r.status == sp.SCORE_STATUS_NO_YAKU and r.han == 0


def test_score_errors(stub):
    base: dict[str, Any] = {"hand": "123m456p789s11122z", "win_tile": "2z"}
    _check_raises(stub.Score, sp.ScoreRequest(**base), "MISSING_WIN_METHOD", "win_method")
    with pytest.raises(InvalidHandError) as lib:
        score("123m456p789s11123z", "3z")
    _check_raises(stub.Score, sp.ScoreRequest(hand="123m456p789s11123z", win_tile="3z",
                                              win_method=sp.WIN_METHOD_RON),
                  lib.value.reason.upper())
    _check_raises(stub.Score, sp.ScoreRequest(**base, win_method=sp.WIN_METHOD_RON,
                                              situation=sp.Situation(ippatsu=True)),
                  "BAD_SITUATION")
    _check_raises(stub.Score, sp.ScoreRequest(**base, win_method=sp.WIN_METHOD_RON,
                                              dora_indicators="1x"),
                  _lib_reason(parse_kinds, "1x"), "dora_indicators")


def test_five_of_a_kind_counting_indicators_or_visible_tiles_is_invalid(stub):
    req = sp.ScoreRequest(hand="123m456p789s11122z", win_tile="2z", win_method=sp.WIN_METHOD_RON,
                          dora_indicators="1z1z")
    info = _check_raises(stub.Score, req, "TOO_MANY_COPIES", "dora_indicators")
    assert info is not None
    _check_raises(stub.AnalyzeHand, pb.AnalyzeHandRequest(hand="123m456p789s1122z",
                                                          visible="1z1z1z"), "TOO_MANY_COPIES",
                  "visible")
    _check_raises(stub.AnalyzeHand, pb.AnalyzeHandRequest(hand="123m406p789s1122z",
                                                          visible="0p"), "TOO_MANY_COPIES",
                  "visible")


@pytest.mark.parametrize("option", [
    sp.RuleOption(name="uma", int_value=0), sp.RuleOption(name="pao", bool_value=True),
    sp.RuleOption(name="uma", string_value="x"),
    sp.RuleOption(name="pao", int_list=sp.IntList(values=[1]))])
def test_score_rule_option_of_the_wrong_shape_is_invalid_rule_without_traceback(stub, caplog,
                                                                                option):
    import logging

    req = sp.ScoreRequest(hand="123m456p789s11122z", win_tile="2z",
                          win_method=sp.WIN_METHOD_RON, rules=sp.RuleSelection(options=[option]))
    with caplog.at_level(logging.INFO, logger="mjcore.service"):
        _check_raises(stub.Score, req, "INVALID_RULE", "rules")
        with pytest.raises(grpc.RpcError) as exc:
            stub.Score(req)
    assert f"option {option.name}=" in exc.value.details()
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


@pytest.mark.parametrize("rules", [
    sp.RuleSelection(preset="nope"),
    sp.RuleSelection(options=[sp.RuleOption(name="no_such_option", bool_value=True)]),
    sp.RuleSelection(options=[sp.RuleOption(name="kuitan", int_value=1)]),
    sp.RuleSelection(options=[sp.RuleOption(name="kuitan")]),
])
def test_score_bad_rules(stub, client, rules):
    req = sp.ScoreRequest(hand="123m456p789s11122z", win_tile="2z",
                          win_method=sp.WIN_METHOD_RON, rules=rules)
    _check_raises(stub.Score, req, "INVALID_RULE", "rules")
    with pytest.raises(InvalidRuleError):
        client._unary(stub.Score, req, None)


def test_list_rule_presets_match_ruleset(stub):
    r = stub.ListRulePresets(pb.ListRulePresetsRequest())
    assert r.default_preset == "tenhou" and r.presets[0].name == "tenhou"
    assert {p.name for p in r.presets} == {"tenhou", "ema", "wrc", "tenhou_sanma"}
    from mjcore.service.requests import option_from_proto
    for p in r.presets:
        assert p.description
        got = {o.name: option_from_proto(o) for o in p.options}
        assert got == RuleSet.preset(p.name).to_dict()


def test_preset_options_round_trip_through_score_rules(stub):
    ema = stub.ListRulePresets(pb.ListRulePresetsRequest()).presets[1]
    req = sp.ScoreRequest(hand="19m19p19s12345677z", win_tile="7z", win_method=sp.WIN_METHOD_RON,
                          rules=sp.RuleSelection(preset="tenhou", options=list(ema.options)))
    got = stub.Score(req)
    want = score("19m19p19s12345677z", "7z", rules=RuleSet.preset(ema.name))
    assert got.points == want.points


def test_unknown_method_is_unimplemented(plain_server):
    _, port = plain_server
    with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
        call = ch.unary_unary("/mjcore.v1.HandAnalysisService/Nope")
        with pytest.raises(grpc.RpcError) as exc:
            call(b"")
    assert exc.value.code() == grpc.StatusCode.UNIMPLEMENTED


def test_service_error_for_unreachable_server():
    with Client("127.0.0.1:1", timeout=0.5, retries=2, backoff=0.01) as c, \
            pytest.raises(ServiceError) as err:
        c.rule_presets()
    assert err.value.code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)


def test_unexpected_failure_is_internal_and_the_server_stays_up(stub, monkeypatch):
    from mjcore.service import riichi

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(riichi.decomposition, "decompose", broken)
    with pytest.raises(grpc.RpcError) as exc:
        stub.Decompose(pb.DecomposeRequest(hand="123m456p789s11122z", win_tile="2z"))
    assert exc.value.code() == grpc.StatusCode.INTERNAL
    assert "boom" not in exc.value.details()
    monkeypatch.undo()
    assert stub.Decompose(pb.DecomposeRequest(hand="123m456p789s11122z", win_tile="2z"))
