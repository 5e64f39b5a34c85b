"""The JSON API against the library's own results for the same inputs, its errors against the
gRPC service's reasons, and the OpenAPI document."""
from __future__ import annotations

import pytest

import mjcore
from mjcore.tiles import tile_name

from .conftest import field, reason


def test_analyze_matches_the_library(web):
    hand = "23m456p789s11223z4p"
    status, a = web.post("analyze", {"hand": hand, "visible": "1m4m"})
    assert status == 200
    sh = mjcore.shanten(hand)
    assert a["shanten"] == {"shanten": int(sh), "standard": sh.standard,
                            "chiitoitsu": sh.chiitoitsu, "kokushi": sh.kokushi}
    uk = mjcore.ukeire(hand, "1m4m")
    assert [(o["discard"], o["shanten"], o["remaining_count"]) for o in a["ukeire"]["options"]] \
        == [(tile_name(int(o.discard or 0)), o.shanten, o.remaining) for o in uk.options]
    assert a["hand"] == str(mjcore.Hand.parse(hand))


def test_analyze_waits_of_a_13_tile_hand(web):
    status, a = web.post("analyze", {"hand": "123m456p789s1122z"})
    assert status == 200
    w = mjcore.waits("123m456p789s1122z")
    assert [(t["tile"], t["remaining_count"]) for t in a["waits"]["tiles"]] == \
        [(tile_name(int(x.tile)), x.remaining) for x in w.tiles]


def test_analyze_classical_rules_and_bonus_tiles(web):
    status, a = web.post("analyze", {"hand": "123m456p789s1122z1f",
                                     "rules": {"preset": "classical"}})
    assert status == 200
    assert a["shanten"]["shanten"] == int(mjcore.shanten("123m456p789s1122z1f", "classical"))


@pytest.mark.parametrize(("body", "reason_", "field_"), [
    ({"hand": "123m456p789s1122x"}, "UNKNOWN_CHARACTER", "hand"),
    ({"hand": "1" * 101 + "m"}, "FIELD_TOO_LONG", "hand"),
    ({"hand": "111112m456p789s1z"}, "TOO_MANY_COPIES", "hand"),
    ({"hand": "123m456p789s1122z", "visible": "1z1z1z1z1z"}, "TOO_MANY_COPIES", "visible"),
    ({"hand": "123m456p789s1122z", "rules": {"preset": "nope"}}, "INVALID_RULE", "rules"),
    ({"hand": "123m456p789s1122z", "rules": {"preset": "tenhou_sanma"}}, "NOT_IN_SANMA",
     "hand"),
])
def test_analyze_errors_are_the_services(web, body, reason_, field_):
    """The reasons and fields of the gRPC ErrorInfo (the service's own servicer answers)."""
    status, data = web.post("analyze", body)
    assert status == 400, data
    assert data["error"]["status"] == "INVALID_ARGUMENT"
    assert reason(data) == reason_
    assert field(data) == field_
    assert data["error"]["details"][0]["domain"] == "mjcore.dev"


def test_unknown_json_field_names_it(web):
    status, data = web.post("analyze", {"hand": "123m456p789s1122z", "hnad": "x"})
    assert status == 400
    assert reason(data) == "BAD_JSON_FIELD"
    assert "hnad" in data["error"]["message"]


def test_score_matches_the_library(web):
    body = {"hand": "234m456p11s555z pon:777z<2", "win_tile": "1s",
            "win_method": "WIN_METHOD_TSUMO", "dora_indicators": "6z",
            "round_wind": "WIND_SOUTH", "seat_wind": "WIND_WEST", "honba_count": 1}
    status, r = web.post("score", body)
    assert status == 200, r
    lib = mjcore.score("234m456p11s555z pon:777z<2", "1s", tsumo=True, dora="6z",
                       round_wind="S", seat_wind="W", honba=1)
    assert (r["han"], r["fu"], r["points"], r["win"]) == (lib.han, lib.fu, lib.points, True)
    assert [y["tenhou_id"] for y in r["yaku"]] == [y.id for y in lib.yaku]
    assert r["payments"] == list(lib.payments)
    assert sum(f["fu"] for f in r["fu_items"]) == sum(f.fu for f in lib.fu_items)
    assert r["limit"].startswith("LIMIT_")


def test_score_needs_a_win_method(web):
    status, data = web.post("score", {"hand": "234m456p11s555z777z", "win_tile": "1s"})
    assert status == 400
    assert (reason(data), field(data)) == ("MISSING_WIN_METHOD", "win_method")


def test_score_classical_matches_the_library(web):
    from mjcore.classical.scoring import Deal, PlayerHand, score_deal

    hands = ["123m456p789s111z22z 5f", "112233m456p777z1s", "147m258p369s1234z",
             "259m259p259s2467z"]
    status, r = web.post("score_classical", {
        "hands": hands, "winner": 0, "win_tile": "1z",
        "conditions": ["CLASSICAL_WIN_CONDITION_SELF_DRAWN"]})
    assert status == 200, r
    seats = [PlayerHand.parse(h) for h in hands]
    deal = Deal((seats[0], seats[1], seats[2], seats[3]), prevailing=0, winner=0,
                win_tile=27, how=frozenset({"self_drawn"}))
    lib = score_deal(deal)
    assert [int(n) for n in r["net"]] == list(lib.net)
    assert [int(p["score"]) for p in r["players"]] == [p.score for p in lib.players]


def test_ev_is_the_expected_values_rpc(web):
    """/api/v1/ev answers ExpectedValuesRequest JSON with the servicer's ExpectedValues:
    ExpectedValuesResponse as JSON, the numbers of the library."""
    from google.protobuf import json_format

    from mjcore.wire import convert
    from mjcore.wire.v1 import analysis_service_pb2 as pb

    hand = "23m456p789s11223z4p"
    status, r = web.post("ev", {"hand": hand, "dora_indicators": "1m",
                                "seat_wind": "WIND_SOUTH", "round_wind": "WIND_EAST",
                                "options": {"max_turn": 12}})
    assert status == 200, r
    lib = mjcore.expected_values(hand, dora="1m", seat_wind="S", round_wind="E", t_max=12)
    answer = json_format.ParseDict(r, pb.ExpectedValuesResponse())   # every field its own
    assert answer.status == pb.EXPECTED_VALUE_STATUS_OK and answer.max_turn == 12
    assert r["status"] == "EXPECTED_VALUE_STATUS_OK" and r["shanten"] == lib.shanten
    want = convert.expected_values_response(lib)
    assert [d.necessary_count for d in answer.discards] == [
        d.necessary_count for d in want.discards]
    assert [d["tile"] for d in r["discards"]] == [d.tile for d in lib.discards]
    for got, mine in zip(r["discards"], lib.discards, strict=True):
        assert got["ev"] == pytest.approx(list(mine.ev), rel=1e-9, abs=1e-9)
        assert got["win"] == pytest.approx(list(mine.win), rel=1e-9, abs=1e-12)
        assert got["tenpai"] == pytest.approx(list(mine.tenpai), rel=1e-9, abs=1e-12)


@pytest.fixture(scope="module")
def grpc_port():
    """A gRPC server of the service, to compare the API's errors with its own."""
    pytest.importorskip("grpc")
    from mjcore.service import ServerConfig
    from tests.service.service_helpers import start

    server, port = start(ServerConfig(port=0))
    yield port
    server.stop(0).wait()


EV_BAD_BODIES = [
    {"hand": "123m456p789s1122z", "seat_wind": "EAST"},
    {"hand": "123m456p789s1122z", "options": {"max_turn": 99}},
    {"hand": "123m456p789s1122z", "options": {"max_node_count": 10**9}},
    {"hand": "123m456p789s1122z", "rules": {"preset": "classical"}},
    {"hand": "123m456p789s11z"},
    {"hand": "123m456p789s1122z", "visible": "5q"},
    {"hand": "123m456p789s1122z", "dora_indicators": "1" * 41 + "m"},
    {"hand": "123m456p789s1122z", "kita_count": 1},
    {},
]


@pytest.mark.parametrize("body", EV_BAD_BODIES)
def test_ev_errors_are_the_rpcs(web, grpc_port, body):
    """A bad ev body is the error the gRPC ExpectedValues gives the same request: its
    status, message, reason and metadata."""
    import grpc
    from google.protobuf import json_format

    from mjcore.client import Client
    from mjcore.service.errors import error_info
    from mjcore.wire.v1 import analysis_service_pb2 as pb

    status, data = web.post("ev", body)
    assert status in (400, 504) and data["error"]["status"] != "INTERNAL", data
    with Client(f"127.0.0.1:{grpc_port}", retries=0) as c:
        request = pb.ExpectedValuesRequest()
        try:
            json_format.ParseDict(body, request)
        except json_format.ParseError:
            assert reason(data) == "BAD_JSON_FIELD"     # not a message the RPC can be sent
            return
        with pytest.raises(grpc.RpcError) as err:
            c._stub.ExpectedValues(request, timeout=10)
    info = error_info(err.value)
    assert data["error"]["status"] == err.value.code().name
    assert data["error"]["message"] == err.value.details()
    assert (reason(data), data["error"]["details"][0]["metadata"]) == (
        info.reason, dict(info.metadata))


def test_ev_says_when_its_pool_is_full(web):
    """Past the EV pool's room the answer is the gRPC service's SERVER_BUSY (429 with its
    retry hint); the other endpoints still answer."""
    pool = web.api.bridge.servicer.ev_pool
    saved = pool.capacity
    pool.capacity = 0
    try:
        status, headers, data = web.call("POST", "/api/v1/ev",
                                         {"hand": "123m456p789s1122z"})
        assert status == 429 and reason(data) == "SERVER_BUSY", data
        assert data["error"]["details"][0]["metadata"]["limit"] == "0"
        assert int(headers["retry-after"]) >= 1
        assert web.post("analyze", {"hand": "123m456p789s1122z"})[0] == 200
    finally:
        pool.capacity = saved
    assert web.post("ev", {"hand": "123m456p789s1122z"})[0] == 200


def test_presets_list_every_riichi_preset(web):
    status, _headers, data = web.call("GET", "/api/v1/presets")
    assert status == 200
    assert [p["name"] for p in data["presets"]] == ["tenhou", "ema", "wrc", "tenhou_sanma"]


def test_review_of_a_tenhou_record(web, mjlog_text):
    status, r = web.post("review", {"record": mjlog_text, "seat": 0})
    assert status == 200, r
    assert r["format"] == "mjlog" and r["players"] == 4 and len(r["hands"]) == 10
    assert r["totals"]["decisions"] == len(r["decisions"]) > 50
    for step in r["hands"][0]["steps"][:3]:
        assert len(step["hands"]) == 4
    # efficiency is the library's, for the same hand and tiles seen
    for d in r["decisions"][::10]:
        uk = mjcore.ukeire(d["hand"], d["visible"] + d["dora_indicators"])
        best = uk.options[0]
        assert d["efficiency"]["best_ukeire"] == best.remaining
        assert d["efficiency"]["best_shanten"] == best.shanten
    # the batch EV of a decision is the single call's value for that discard
    rated = [d for d in r["decisions"] if d["ev"]["status"] == "OK"]
    assert rated
    d = rated[len(rated) // 2]
    lib = mjcore.expected_values(d["hand"], dora=d["dora_indicators"],
                                 visible=d["visible"] or None, seat_wind=d["seat_wind"],
                                 round_wind=d["round_wind"], max_seconds=10)
    made = next(x for x in lib.discards if x.tile == d["discard"])
    assert d["ev"]["made_ev"] == pytest.approx(made.ev[0], rel=1e-6)
    assert d["ev"]["best_ev"] == pytest.approx(lib.best.ev[0], rel=1e-6)


def test_review_of_a_bradfield_history(web, mjs_text):
    status, r = web.post("review", {"record": mjs_text, "seat": 2})
    assert status == 200, r
    assert r["format"] == "mjs" and r["ev"] is False
    hand = r["hands"][0]
    assert hand["result"]["deltas"] == [-104, -52, 192, -36]   # the record's settlement
    assert r["decisions"]
    from mjcore.classical.rules import ClassicalRules

    d = r["decisions"][0]
    uk = mjcore.ukeire(d["hand"], d["visible"], rules=ClassicalRules.preset("bradfield"))
    assert d["efficiency"]["best_ukeire"] == uk.options[0].remaining


@pytest.mark.parametrize(("record", "reason_"), [
    ("hello", "UNKNOWN_FORMAT"),
    ("<mjloggm ver='2.3'><GO type='169'/>", None),
    ('{"type":"start_game"}\n{"type":"dahai"}', None),
])
def test_a_bad_record_is_one_clear_error(web, record, reason_):
    status, data = web.post("review", {"record": record})
    assert status == 400, data
    assert field(data) == "record"
    assert data["error"]["message"].startswith("record")
    if reason_:
        assert reason(data) == reason_


@pytest.mark.parametrize("seat", [4, -1, "0"])
def test_a_review_seat_out_of_range_is_bad_seats(web, mjlog_text, seat):
    status, data = web.post("review", {"record": mjlog_text, "seat": seat})
    assert status == 400 and (reason(data), field(data)) == ("BAD_SEATS", "seat")


def test_openapi_document_is_valid(web):
    from openapi_spec_validator import validate

    status, _h, doc = web.call("GET", "/api/v1/openapi.json")
    assert status == 200
    validate(doc)
    assert set(doc["paths"]) >= {"/api/v1/analyze", "/api/v1/score", "/api/v1/ev",
                                 "/api/v1/score_classical", "/api/v1/review"}


def test_answers_fit_their_schemas(web):
    """Answers validate against the document's schemas (written from the .proto files)."""
    import jsonschema  # type: ignore[import-untyped]

    _s, _h, doc = web.call("GET", "/api/v1/openapi.json")

    def check(name, value):
        schema = {"$ref": f"#/components/schemas/{name}", "components": doc["components"]}
        jsonschema.validate(value, schema, cls=jsonschema.Draft202012Validator)

    check("AnalyzeHandResponse", web.post("analyze", {"hand": "23m456p789s11223z4p"})[1])
    check("ScoreResponse", web.post("score", {"hand": "234m456p11s555z777z", "win_tile": "1s",
                                              "win_method": "WIN_METHOD_RON"})[1])
    check("ExpectedValuesResponse", web.post("ev", {"hand": "23m456p789s11223z4p"})[1])
    with pytest.raises(jsonschema.ValidationError):
        check("AnalyzeHandResponse", {"hand": 3})


def test_large_answers_are_gzipped(web, mjlog_text):
    import gzip
    import http.client
    import json

    conn = http.client.HTTPConnection("127.0.0.1", web.port, timeout=120)
    try:
        conn.request("POST", "/api/v1/review", body=json.dumps(
            {"record": mjlog_text, "ev": False}), headers={"Accept-Encoding": "gzip"})
        res = conn.getresponse()
        raw = res.read()
    finally:
        conn.close()
    assert res.status == 200 and res.getheader("Content-Encoding") == "gzip"
    text = gzip.decompress(raw)
    assert len(raw) * 4 < len(text)
    assert json.loads(text)["format"] == "mjlog"


def test_review_reads_every_riichi_format_alike(web, mjlog_text):
    """The same game as mjlog, tenhou.net/6 and mjai: the same hands and decisions."""
    from mjcore.riichi.events import write_mjai
    from mjcore.riichi.mjlog import read_mjlog
    from mjcore.riichi.tenhou6 import dumps_tenhou6

    events = read_mjlog(mjlog_text, "x").events
    answers = {}
    for text in (mjlog_text, dumps_tenhou6(events), "\n".join(write_mjai(events))):
        status, r = web.post("review", {"record": text, "seat": 1, "ev": False})
        assert status == 200, r
        answers[r["format"]] = [(d["hand"], d["discard"], d["efficiency"])
                                for d in r["decisions"]]
    assert set(answers) == {"mjlog", "tenhou6", "mjai"}
    assert answers["mjlog"] == answers["tenhou6"] == answers["mjai"]


def test_review_of_a_three_player_record(web, sanma_text):
    from mjcore.riichi.rules import RuleSet

    status, r = web.post("review", {"record": sanma_text, "seat": 0})
    assert status == 200, r
    assert r["players"] == 3 and all(len(s["hands"]) == 3 for s in r["hands"][0]["steps"])
    d = r["decisions"][0]
    uk = mjcore.ukeire(d["hand"], d["visible"] + d["dora_indicators"],
                       rules=RuleSet.preset("tenhou_sanma"))
    assert d["efficiency"]["best_ukeire"] == uk.options[0].remaining
    status, data = web.post("review", {"record": sanma_text, "seat": 3})
    assert status == 400 and (reason(data), field(data)) == ("BAD_SEATS", "seat")


def test_the_page_ships_a_cjk_font_for_the_players_names(web):
    import urllib.request

    with urllib.request.urlopen(f"http://127.0.0.1:{web.port}/fonts/cjk.otf", timeout=30) as r:
        assert r.status == 200
        assert r.headers["Content-Type"] == "font/otf"
        assert r.read(4) == b"OTTO"            # an OpenType font with CFF outlines
    with urllib.request.urlopen(f"http://127.0.0.1:{web.port}/static/app.css", timeout=30) as r:
        assert 'url("/fonts/cjk.otf")' in r.read().decode()

@pytest.mark.parametrize(("endpoint", "body", "field_"), [
    ("analyze", {"hand": "123m456p789s1122z", "visible": "222z"}, "visible"),
    ("score", {"hand": "123m456p789s11122z", "win_tile": "2z", "win_method": "WIN_METHOD_RON",
               "ura_indicators": "1z1z"}, "ura_indicators"),
    ("ev", {"hand": "123m456p789s1122z", "dora_indicators": "222z"}, "dora_indicators"),
    ("ev", {"hand": "123m406p789s1122z", "visible": "0p"}, "visible"),
])
def test_too_many_copies_names_the_part_holding_the_extra_ones(web, endpoint, body, field_):
    status, data = web.post(endpoint, body)
    assert status == 400, data
    assert (reason(data), field(data)) == ("TOO_MANY_COPIES", field_)
