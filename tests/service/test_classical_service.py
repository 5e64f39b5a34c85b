"""Chinese classical rules over gRPC (issues 12 and 13, "Service"): the `rules` of AnalyzeHand
and the bulk shanten/waits/agari streams, ScoreClassicalDeal, their errors, health and
reflection, the unary front, and a grpclib client generated from the protos alone."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import grpc
import numpy as np
import pytest
from grpc_health.v1 import health_pb2

import mjcore
from mjcore import batch
from mjcore.classical.batch import pack_deals, score_deals
from mjcore.classical.rules import ClassicalRules
from mjcore.classical.scoring import Deal, PlayerHand, score_deal
from mjcore.client import Client
from mjcore.errors import BatchError
from mjcore.service import ServerConfig
from mjcore.service.errors import error_info
from mjcore.tiles import parse_tile
from mjcore.wire.v1 import analysis_service_pb2 as pb
from mjcore.wire.v1 import analysis_service_pb2_grpc as pb_grpc
from mjcore.wire.v1 import scoring_pb2 as sp
from mjcore.wire.v1 import types_pb2

from .service_helpers import TOKEN, partial_of, random_counts, serving, start

SEVEN_PAIRS = ClassicalRules.preset("classical").replace(seven_pairs=True)
HANDS = ["19m19p19s1234567z", "19m19p19s12345677z", "1133557799m2244p", "1122334455667m",
         "123m456p789s1122z", "23m456p77899s chi:324m", "1112345678999m", "123m456p789s1122z 1f"]
EXAMPLE_A = ["333z 1357m 246p pon:999s 5f", "777z 234s 678m 11z pon:555p 2f",
             "1357m 2468p 1357s 6z", "222m 1479p 23689s 4z"]
EXAMPLE_B = ["19m19p19s12345677z", "1357m 2468p 1357s 1z", "2468m 1357p 2468s 2z",
             "2468m 2468p 2468s 3z"]


@pytest.fixture(scope="module")
def server():
    with serving(workers=8) as s:
        yield s


@pytest.fixture(scope="module")
def client(server):
    with Client(f"127.0.0.1:{server.port}", timeout=30, batch_size=500) as c:
        yield c


@pytest.fixture(scope="module")
def stub(server):
    with grpc.insecure_channel(f"127.0.0.1:{server.port}") as ch:
        yield pb_grpc.HandAnalysisServiceStub(ch)


def _deal(hands, winner, win, *, how=("self_drawn",), **kw) -> Deal:
    seats = [PlayerHand.parse(h) for h in hands]
    return Deal(hands=(seats[0], seats[1], seats[2], seats[3]), prevailing=0, winner=winner,
                win_tile=parse_tile(win), how=frozenset(how), **kw)


def _error(call, *args, **kwargs):
    with pytest.raises(grpc.RpcError) as info:
        call(*args, **kwargs)
    err = info.value
    detail = error_info(err)
    return err.code(), err.details(), detail.reason, dict(detail.metadata)


# -- AnalyzeHand --------------------------------------------------------------------------------

@pytest.mark.parametrize("rules", ["classical", "bradfield", SEVEN_PAIRS])
@pytest.mark.parametrize("hand", HANDS)
def test_analyze_hand_under_classical_rules_is_the_library(client, hand, rules):
    got = client.analyze(hand, rules=rules)
    sh = mjcore.shanten(hand, rules)
    assert (int(got.shanten), got.shanten.standard, got.shanten.chiitoitsu,
            got.shanten.kokushi) == (int(sh), sh.standard, sh.chiitoitsu, sh.kokushi)
    uk = mjcore.ukeire(hand, rules=rules)
    assert [(o.discard, o.shanten, [(w.tile, w.remaining) for w in o.tiles])
            for o in got.ukeire.options] == [
        (o.discard, o.shanten, [(w.tile, w.remaining) for w in o.tiles]) for o in uk.options]
    parsed = mjcore.Hand.parse(hand)
    n = parsed.n_closed + 3 * parsed.n_melds
    if n == 14:
        assert got.is_agari == mjcore.is_agari(hand, rules)
    if n == 13:
        w = mjcore.waits(hand, rules=rules)
        assert [(x.tile, x.remaining) for x in got.waits.tiles] == [
            (x.tile, x.remaining) for x in w.tiles]


def test_seven_pairs_only_when_the_rules_have_it(client):
    assert client.analyze("1133557799m2244p", rules="classical").is_agari is False
    assert client.analyze("1133557799m2244p", rules={"preset": "classical",
                                                    "seven_pairs": True}).is_agari is True
    assert client.analyze("1133557799m2244p").is_agari is True          # riichi chiitoitsu


def test_riichi_answers_are_unchanged_by_an_empty_or_riichi_selection(stub):
    for hand in ("123m456p789s1122z", "1133557799m2244p", "19m19p19s1234567z"):
        plain = stub.AnalyzeHand(pb.AnalyzeHandRequest(hand=hand, visible="1z"))
        for sel in (sp.RuleSelection(), sp.RuleSelection(preset="tenhou"),
                    sp.RuleSelection(preset="wrc")):
            got = stub.AnalyzeHand(pb.AnalyzeHandRequest(hand=hand, visible="1z", rules=sel))
            assert got.SerializeToString() == plain.SerializeToString()


def test_analyze_hand_rule_and_hand_errors(stub):
    cases = [
        (sp.RuleSelection(preset="nope"), "123m456p789s1122z", "INVALID_RULE", "rules"),
        (sp.RuleSelection(preset="x" * 33), "123m456p789s1122z", "INVALID_RULE", "rules"),
        (sp.RuleSelection(preset="classical", options=[sp.RuleOption(name="nope",
                                                                    bool_value=True)]),
         "123m456p789s1122z", "INVALID_RULE", "rules"),
        (sp.RuleSelection(preset="classical", options=[sp.RuleOption(name="limit",
                                                                    int_value=-5)]),
         "123m456p789s1122z", "INVALID_RULE", "rules"),
        (sp.RuleSelection(preset="classical", options=[sp.RuleOption(
            name="tile_specific_limits", int_value=0)]), "123m456p789s1122z", "INVALID_RULE",
         "rules"),
        (sp.RuleSelection(preset="tenhou", options=[sp.RuleOption(name="uma", int_value=0)]),
         "123m456p789s1122z", "INVALID_RULE", "rules"),
        (sp.RuleSelection(preset="classical", options=[sp.RuleOption(name="x" * 65,
                                                                    int_value=1)]),
         "123m456p789s1122z", "INVALID_RULE", "rules"),
        (sp.RuleSelection(preset="classical"), "123m406p789s1122z", "RED_FIVE_NOT_IN_SET",
         "hand"),
        (sp.RuleSelection(preset="classical"), "1" * 101, "FIELD_TOO_LONG", "hand"),
        (sp.RuleSelection(preset="classical"), "11111m", "TOO_MANY_COPIES", "hand"),
    ]
    for sel, hand, reason, field in cases:
        code, message, got, meta = _error(stub.AnalyzeHand,
                                          pb.AnalyzeHandRequest(hand=hand, rules=sel))
        assert code == grpc.StatusCode.INVALID_ARGUMENT
        assert (got, meta["field"], meta["index"]) == (reason, field, "0"), (sel, hand)
        assert len(message) <= 300


# -- bulk streams -------------------------------------------------------------------------------

@pytest.mark.parametrize("rules", ["classical", "bradfield", SEVEN_PAIRS])
def test_bulk_streams_under_classical_rules_are_the_library(client, rules):
    counts13 = random_counts(1200, 13, 7)
    counts14 = random_counts(1200, 14, 8)
    counts14[:200] = batch.unpack(batch.pack(counts14[:200]))
    got = client.shanten(counts14, forms=True, rules=rules)
    want = batch.shanten(counts14, forms=True, rules=rules)
    assert np.array_equal(got.shanten, want.shanten) and np.array_equal(got.forms, want.forms)
    assert np.array_equal(client.waits(counts13, rules=rules).mask,
                          batch.waits(counts13, rules=rules).mask)
    assert np.array_equal(client.is_agari(counts14, rules=rules).agari,
                          batch.is_agari(counts14, rules=rules).agari)


def test_bulk_classical_forms_differ_from_riichi(client):
    pairs = np.zeros((1, 34), dtype=np.uint8)
    pairs[0, [0, 2, 4, 6, 8, 10, 12]] = 2
    assert client.is_agari(pairs).agari.tolist() == [True]
    assert client.is_agari(pairs, rules="classical").agari.tolist() == [False]
    assert client.is_agari(pairs, rules={"preset": "bradfield",
                                         "seven_pairs": True}).agari.tolist() == [True]


def test_text_lines_stream_under_classical_rules(stub):
    lines = b"1133557799m2244p\n19m19p19s12345677z\n12x\n"
    hands = types_pb2.PackedHands(encoding=types_pb2.HAND_ENCODING_TEXT_LINES, data=lines)
    out = {}
    for name, sel in (("riichi", None), ("classical", sp.RuleSelection(preset="classical"))):
        request = pb.StreamShantenRequest(hands=hands, **({"rules": sel} if sel else {}))
        (r,) = list(stub.StreamShanten(iter([request])))
        out[name] = (np.frombuffer(r.shanten, np.int8).tolist(), [e.index for e in r.errors])
    assert out["riichi"] == ([-1, -1, -128], [2])
    want = [int(mjcore.shanten(h, "classical")) for h in lines.decode().split()[:2]]
    assert want[0] > 0 and out["classical"] == ([*want, -128], [2])


def test_bulk_bad_rules_fail_the_call_naming_the_batch(stub):
    good = types_pb2.PackedHands(encoding=types_pb2.HAND_ENCODING_COUNTS_U8,
                                 data=random_counts(3, 13, 1).tobytes())
    requests = [pb.StreamWaitsRequest(hands=good),
                pb.StreamWaitsRequest(hands=good, rules=sp.RuleSelection(preset="nope"))]
    with pytest.raises(grpc.RpcError) as info:
        list(stub.StreamWaits(iter(requests)))
    detail = error_info(info.value)
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert (detail.reason, detail.metadata["batch"], detail.metadata["field"]) == (
        "INVALID_RULE", "1", "rules")


# -- ScoreClassicalDeal -------------------------------------------------------------------------

def test_score_deal_is_the_library(client):
    got = client.score_classical(EXAMPLE_A, 1, "4s", self_drawn=True)
    assert got == score_deal(_deal(EXAMPLE_A, 1, "4s"), "classical").to_dict()
    assert got["net"] == [-96, 304, -112, -96]
    got = client.score_classical(EXAMPLE_B, 0, "7z", discarder=2)
    assert got == score_deal(_deal(EXAMPLE_B, 0, "7z", how=(), discarder=2)).to_dict()
    assert got["players"][0]["limit_hand"] and got["net"] == [6000, -2000, -2000, -2000]


def test_score_deal_rules_options_and_cannon(client):
    halved = client.score_classical(EXAMPLE_B, 0, "7z", discarder=2, rules={"limit": 500})
    assert halved["net"] == [3000, -1000, -1000, -1000] and halved["rules"] == "custom"
    rules = ClassicalRules.preset("bradfield").replace(limit=300)
    got = client.score_classical(EXAMPLE_B, 0, "7z", discarder=2, cannon=2, rules=rules)
    want = score_deal(_deal(EXAMPLE_B, 0, "7z", how=(), discarder=2, cannon=2), rules)
    assert got == want.to_dict()
    assert got["cannon"] == 2 and any("for" in p for p in got["payments"])
    got = client.score_classical(EXAMPLE_A, 1, "4s", self_drawn=True, rules="bradfield")
    assert got == score_deal(_deal(EXAMPLE_A, 1, "4s"), "bradfield").to_dict()


def _request(**changes):
    fields: dict[str, Any] = {"hands": EXAMPLE_A, "winner": 1, "win_tile": "4s",
                  "conditions": [sp.CLASSICAL_WIN_CONDITION_SELF_DRAWN]}
    fields.update(changes)
    return sp.ScoreClassicalDealRequest(**fields)


@pytest.mark.parametrize("changes, reason, field, index", [
    ({"hands": EXAMPLE_A[:3]}, "BAD_HAND_COUNT", "hands", None),
    ({"hands": [*EXAMPLE_A[:2], "1" * 101, EXAMPLE_A[3]]}, "FIELD_TOO_LONG", "hands", "2"),
    ({"hands": [EXAMPLE_A[0], "777z 234s 678m 11z pon:555q", *EXAMPLE_A[2:]]}, None,
     "hands", "1"),
    ({"hands": [EXAMPLE_A[0], "777z 234s 678m 11z pon:505p", *EXAMPLE_A[2:]]},
     "RED_FIVE_NOT_IN_SET", "hands", "1"),
    ({"win_tile": "4s4s4s"}, "FIELD_TOO_LONG", "win_tile", None),
    ({"win_tile": ""}, "MISSING_TILE", "win_tile", None),
    ({"win_tile": "9s"}, "BAD_TILE", "hands", None),
    ({"winner": 0}, "WRONG_TILE_COUNT", "hands", None),
    ({"hands": [EXAMPLE_A[0], "777z 234s 679m 11z pon:555p 2f", *EXAMPLE_A[2:]]},
     "NOT_COMPLETE", "hands", "1"),
    ({"winner": 4}, "BAD_SEATS", "winner", None),
    ({"discarder": -1}, "BAD_SEATS", "discarder", None),
    ({"hidden": [0, 9]}, "BAD_SEATS", "hidden", "1"),
    ({"conditions": [99]}, "BAD_ENUM_VALUE", "conditions", "0"),
    ({"conditions": [0]}, "BAD_ENUM_VALUE", "conditions", "0"),
    ({"conditions": []}, "BAD_WIN", "deal", None),
    ({"conditions": [1] * 11}, "TOO_MANY_VALUES", "conditions", None),
    ({"claim": 7}, "BAD_ENUM_VALUE", "claim", None),
    ({"prevailing_wind": 9}, "BAD_ENUM_VALUE", "prevailing_wind", None),
    ({"dead_tiles": "1m" * 51}, "FIELD_TOO_LONG", "dead_tiles", None),
    ({"dead_tiles": "1x"}, None, "dead_tiles", None),
    ({"pair": "8x"}, None, "pair", None),
    ({"rules": sp.RuleSelection(preset="tenhou")}, "INVALID_RULE", "rules", "0"),
    ({"rules": sp.RuleSelection(preset="classical", options=[
        sp.RuleOption(name="losers_purity", bool_value=True)])}, "INVALID_RULE", "rules", "0"),
    ({"rules": sp.RuleSelection(options=[sp.RuleOption(name="limit", string_value="x" * 65)])},
     "INVALID_RULE", "rules", "0"),
    ({"rules": sp.RuleSelection(options=[sp.RuleOption(name="bouquet_doubles",
                                                        int_value=1 << 40)])},
     "INVALID_RULE", "rules", "0"),
    ({"rules": sp.RuleSelection(options=[sp.RuleOption(name="seven_pairs_points",
                                                        int_value=-(1 << 40))])},
     "INVALID_RULE", "rules", "0"),
])
def test_score_deal_errors_name_field_and_seat(stub, changes, reason, field, index):
    code, message, got, meta = _error(stub.ScoreClassicalDeal, _request(**changes))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert reason is None or got == reason
    assert got == got.upper() and got
    assert meta["field"] == field and meta.get("index") == index
    assert message.startswith(field) and len(message) <= 300


# -- StreamScoreClassical -----------------------------------------------------------------------

def _deal_arrays(n_random: int = 300, seed: int = 5):
    """The worked examples (several ways) and random, mostly bad, deals as batch arrays."""
    deals = [_deal(EXAMPLE_A, 1, "4s"), _deal(EXAMPLE_B, 0, "7z", how=(), discarder=2),
             _deal(EXAMPLE_B, 0, "7z", how=(), discarder=2, cannon=2),
             _deal(EXAMPLE_A, 1, "4s", how=("self_drawn", "last_tile"))] * 40
    arrays = pack_deals(deals)
    rng = np.random.default_rng(seed)
    counts = np.zeros((n_random, 4, 34), np.uint8)
    for seat in range(4):
        counts[:, seat] = random_counts(n_random, 14 if seat == 0 else 13, seed + seat)
    extra = {"counts": counts,
             "melds": rng.integers(0, 6, (n_random, 4, 4, 2)).astype(np.uint8),
             "n_melds": rng.integers(0, 2, (n_random, 4)).astype(np.uint8),
             "bonus": rng.integers(0, 256, (n_random, 4)).astype(np.uint8),
             "info": np.stack([rng.integers(0, 4, n_random), np.zeros(n_random),
                               rng.integers(0, 34, n_random), np.zeros(n_random),
                               np.ones(n_random), np.full(n_random, -1),
                               np.full(n_random, -1), np.full(n_random, 255)], -1
                              ).astype(np.int16),
             "dead_kinds": np.zeros(n_random, np.uint64)}
    return {k: np.concatenate([arrays[k], extra[k]]) for k in arrays}


@pytest.mark.parametrize("rules", ["classical", ClassicalRules.preset("bradfield").replace(
    limit=500, seven_pairs=True)])
def test_stream_score_classical_is_the_library(client, rules):
    arrays = _deal_arrays()
    want = score_deals(**arrays, rules=rules)
    assert (want.status == 0).sum() == 160 and (want.status != 0).any()
    got = client.score_classical_batch(**arrays, rules=rules)      # 500 deals a batch
    assert type(got) is type(want)
    assert got.bad_rows.tolist() == np.flatnonzero(want.status).tolist()
    assert np.array_equal(got.status, want.status)
    assert [(e.index, e.reason, str(e)) for e in got.errors()] == [
        (e.index, e.reason, str(e)) for e in want.errors()]
    for name in ("score", "points", "doubles", "limit_hand", "net"):
        mine, theirs = getattr(got, name), getattr(want, name)
        assert mine.dtype == theirs.dtype and np.array_equal(mine, theirs), name
    with pytest.raises(BatchError) as info:
        got.raise_for_errors()
    assert partial_of(info.value, type(want)) is got
    good = {k: v[:160] for k, v in arrays.items()}
    ok = client.score_classical_batch(**{k: v for k, v in good.items() if k != "dead_kinds"},
                                      rules=rules)
    assert np.array_equal(ok.net, want.net[:160]) and not ok.errors()


def test_stream_score_classical_framing_errors(stub):
    arrays: dict[str, Any] = {
        k: v[:3].tobytes() for k, v in pack_deals([_deal(EXAMPLE_A, 1, "4s")] * 3).items()}
    cases = [({"counts": arrays["counts"][:-1]}, "BAD_BATCH_LENGTH", "counts"),
             ({"counts": b""}, "EMPTY_BATCH", "counts"),
             ({"info": arrays["info"][:-2]}, "BAD_FIELD_LENGTH", "info"),
             ({"melds": b""}, "BAD_FIELD_LENGTH", "melds"),
             ({"dead_kinds": b"\0" * 7}, "BAD_FIELD_LENGTH", "dead_kinds"),
             ({"rules": sp.RuleSelection(preset="wrc")}, "INVALID_RULE", "rules")]
    for change, reason, field in cases:
        good = pb.StreamScoreClassicalRequest(**arrays)
        bad = pb.StreamScoreClassicalRequest(**{**arrays, **change})
        responses = []
        with pytest.raises(grpc.RpcError) as info:
            responses.extend(stub.StreamScoreClassical(iter([good, bad])))
        detail = error_info(info.value)
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert (detail.reason, detail.metadata["field"], detail.metadata["batch"]) == (
            reason, field, "1")
        assert len(responses) == 1 and responses[0].deal_count == 3


def test_stream_score_classical_batch_limit():
    server, port = start(ServerConfig(port=0, max_batch=2))
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
            stub = pb_grpc.HandAnalysisServiceStub(ch)
            arrays: dict[str, Any] = {
                k: v.tobytes() for k, v in pack_deals([_deal(EXAMPLE_A, 1, "4s")] * 3).items()}
            with pytest.raises(grpc.RpcError) as info:
                list(stub.StreamScoreClassical(iter([pb.StreamScoreClassicalRequest(**arrays)])))
    finally:
        server.stop(0).wait()
    detail = error_info(info.value)
    assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert (detail.reason, detail.metadata["limit"], detail.metadata["size"]) == (
        "BATCH_TOO_LARGE", "2", "3")


# -- health, reflection, the unary front --------------------------------------------------------

def test_health_and_reflection_list_the_classical_rpc(server):
    from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

    with grpc.insecure_channel(f"127.0.0.1:{server.port}") as ch:
        health = ch.unary_unary("/grpc.health.v1.Health/Check",
                                response_deserializer=health_pb2.HealthCheckResponse.FromString)
        assert health(b"", timeout=5).status == health_pb2.HealthCheckResponse.SERVING
        reflect = reflection_pb2_grpc.ServerReflectionStub(ch)
        request = reflection_pb2.ServerReflectionRequest(
            file_containing_symbol="mjcore.v1.HandAnalysisService")
        (answer,) = list(reflect.ServerReflectionInfo(iter([request]), timeout=5))
    from google.protobuf import descriptor_pb2

    files = [descriptor_pb2.FileDescriptorProto.FromString(b)
             for b in answer.file_descriptor_response.file_descriptor_proto]
    methods = {m.name for f in files for s in f.service for m in s.method}
    assert "ScoreClassicalDeal" in methods


def test_unary_front_analyzes_classical_and_scores_the_deal(server, stub):
    with grpc.insecure_channel(f"127.0.0.1:{server.unary_port}") as ch:
        front = pb_grpc.HandAnalysisServiceStub(ch)
        request = pb.AnalyzeHandRequest(hand="1133557799m2244p",
                                        rules=sp.RuleSelection(preset="classical"))
        assert front.AnalyzeHand(request).SerializeToString() == \
            stub.AnalyzeHand(request).SerializeToString()
        code, _, reason, meta = _error(front.AnalyzeHand, pb.AnalyzeHandRequest(
            hand="123m456p789s1122z", rules=sp.RuleSelection(preset="nope")))
        assert (code, reason, meta["field"]) == (grpc.StatusCode.INVALID_ARGUMENT,
                                                  "INVALID_RULE", "rules")
        assert front.ScoreClassicalDeal(_request()).SerializeToString() == \
            stub.ScoreClassicalDeal(_request()).SerializeToString()


# -- grpclib ------------------------------------------------------------------------------------

GRPCLIB_CLIENT = r'''
import asyncio, json, sys
from grpclib.client import Channel
from grpclib.exceptions import GRPCError
from grpclib.health.v1 import health_pb2, health_grpc
from mjcore.v1 import analysis_service_pb2 as pb, analysis_service_grpc as pb_grpc
from mjcore.v1 import scoring_pb2 as sp, types_pb2

async def main(port, token, counts_hex):
    meta = {"authorization": "Bearer " + token}
    out = {}
    classical = sp.RuleSelection(preset="classical")
    async with Channel("127.0.0.1", port) as channel:
        health = health_grpc.HealthStub(channel)
        out["health"] = (await health.Check(health_pb2.HealthCheckRequest())).status
        stub = pb_grpc.HandAnalysisServiceStub(channel)
        r = await stub.AnalyzeHand(pb.AnalyzeHandRequest(hand="19m19p19s1234567z",
                                                         rules=classical), metadata=meta)
        out["analyze"] = [r.shanten.shanten, r.shanten.standard, r.shanten.HasField("chiitoitsu"),
                          [t.tile for t in r.waits.tiles]]
        r = await stub.ScoreClassicalDeal(sp.ScoreClassicalDealRequest(
            hands=json.loads(sys.argv[4]), winner=1, win_tile="4s",
            conditions=[sp.CLASSICAL_WIN_CONDITION_SELF_DRAWN]), metadata=meta)
        out["deal"] = [list(r.net), [p.score for p in r.players],
                       [[i.item, i.tiles] for i in r.players[1].items], r.rules]
        try:
            await stub.ScoreClassicalDeal(sp.ScoreClassicalDealRequest(
                hands=["1m"] * 3, winner=1, win_tile="4s"), metadata=meta)
        except GRPCError as err:
            out["bad_deal"] = [err.status.name, err.message]
        try:
            await stub.AnalyzeHand(pb.AnalyzeHandRequest(hand="123m406p789s1122z",
                                                         rules=classical), metadata=meta)
        except GRPCError as err:
            out["red_five"] = [err.status.name, err.message]
        agari = []
        async with stub.StreamAgari.open(metadata=meta) as stream:
            await stream.send_message(pb.StreamAgariRequest(hands=types_pb2.PackedHands(
                encoding=types_pb2.HAND_ENCODING_COUNTS_U8, data=bytes.fromhex(counts_hex)),
                rules=classical))
            await stream.end()
            async for response in stream:
                agari.append(list(response.agari))
        out["stream"] = agari
        arrays = {k: bytes.fromhex(v) for k, v in json.loads(sys.argv[5]).items()}
        async with stub.StreamScoreClassical.open(metadata=meta) as stream:
            await stream.send_message(pb.StreamScoreClassicalRequest(**arrays))
            await stream.end()
            out["bulk_deals"] = [[r.deal_count, list(r.net), [e.index for e in r.errors]]
                                 async for r in stream]
    out["grpcio_loaded"] = "grpc" in sys.modules or "grpc._cython" in sys.modules
    print(json.dumps(out))

asyncio.run(main(int(sys.argv[1]), sys.argv[2], sys.argv[3]))
'''


def test_grpclib_client_calls_the_classical_rpcs(tmp_path):
    pytest.importorskip("grpclib")
    from .test_grpclib import _generate

    _generate(tmp_path)
    (tmp_path / "client.py").write_text(GRPCLIB_CLIENT)
    counts = random_counts(50, 14, 3)
    counts[0] = 0
    counts[0, [0, 2, 4, 6, 8, 10, 12]] = 2                        # seven pairs
    counts[1] = 0
    counts[1, [0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33]] = 1
    counts[1, 33] = 2                                             # thirteen unique wonders
    deals = pack_deals([_deal(EXAMPLE_A, 1, "4s"), _deal(EXAMPLE_A, 0, "4s")])
    server, port = start(ServerConfig(port=0, token=TOKEN))
    try:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        r = subprocess.run([sys.executable, str(tmp_path / "client.py"), str(port), TOKEN,
                            counts.tobytes().hex(), json.dumps(EXAMPLE_A),
                            json.dumps({k: v.tobytes().hex() for k, v in deals.items()})],
                           cwd=tmp_path,
                           check=False, capture_output=True, text=True, timeout=60, env=env)
    finally:
        server.stop(0).wait()
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["grpcio_loaded"] is False
    assert out["health"] == 1
    sh = mjcore.shanten("19m19p19s1234567z", "classical")
    waits = mjcore.waits("19m19p19s1234567z", rules="classical")
    assert out["analyze"] == [int(sh), sh.standard, False,
                              [mjcore.tile_name(w.tile) for w in waits.tiles]]
    want = score_deal(_deal(EXAMPLE_A, 1, "4s")).to_dict()
    assert out["deal"] == [want["net"], [p["score"] for p in want["players"]],
                           [[i["item"], i.get("tiles", "")] for i in want["players"][1]["items"]],
                           "classical"]
    assert out["bad_deal"][0] == "INVALID_ARGUMENT" and out["bad_deal"][1].startswith("hands")
    assert out["red_five"][0] == "INVALID_ARGUMENT" and "red five" in out["red_five"][1]
    expected = batch.is_agari(counts, rules="classical").agari
    assert out["stream"] == [expected.astype(int).tolist()]
    assert expected[:2].tolist() == [False, True]
    net = np.frombuffer(bytes(out["bulk_deals"][0][1]), "<i4").tolist()
    assert out["bulk_deals"][0][0] == 2 and out["bulk_deals"][0][2] == [1]
    assert net == [-96, 304, -112, -96, 0, 0, 0, 0]


def test_random_deal_requests_get_an_answer_or_a_clear_error(stub):
    rng = np.random.default_rng(11)
    alphabet = list("0123456789mpszf :<") + ["chi:", "pon:", "kan:", "ankan:", "kakan:"]
    seen = set()
    for _ in range(300):
        hands = list(EXAMPLE_A)
        seat = int(rng.integers(0, 4))
        text = list(hands[seat])
        for _ in range(int(rng.integers(1, 4))):
            text.insert(int(rng.integers(0, len(text) + 1)), str(rng.choice(alphabet)))
        hands[seat] = "".join(text)
        request = _request(hands=hands, winner=int(rng.integers(-1, 5)),
                           conditions=rng.integers(0, 12, int(rng.integers(0, 3))).tolist(),
                           claim=int(rng.integers(0, 5)),
                           win_tile=str(rng.choice(["4s", "7z", "0m", "x", ""])))
        if rng.random() < 0.5:
            request.discarder = int(rng.integers(-1, 5))
        try:
            stub.ScoreClassicalDeal(request, timeout=10)
            seen.add("OK")
        except grpc.RpcError as err:
            assert err.code() == grpc.StatusCode.INVALID_ARGUMENT, err.details()
            detail = error_info(err)
            assert detail.reason == detail.reason.upper() and detail.metadata["field"]
            assert len(err.details()) <= 300
            seen.add(detail.reason)
    assert len(seen) > 5
