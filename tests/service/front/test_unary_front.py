"""The unary front (``ServerConfig(unary_port=...)``, service/front/server.py) through real clients.

Every answer of the front is checked against the same call on the main grpcio port, byte for
byte; the deadline and shutdown paths use a raw HTTP/2 client (the ``h2`` package) on a socket.
"""
from __future__ import annotations

import contextlib
import json
import os
import socket
import ssl
import subprocess
import sys
import threading
import time

import grpc
import h2.config
import h2.connection
import h2.events
import h2.exceptions
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

import mjcore
from mjcore.client import Client
from mjcore.hand import Hand
from mjcore.service import ServerConfig, build
from mjcore.service.errors import error_info
from mjcore.tiles import format_counts
from mjcore.wire.v1 import analysis_service_pb2 as pb
from mjcore.wire.v1 import analysis_service_pb2_grpc as pb_grpc
from mjcore.wire.v1 import scoring_pb2 as sp
from mjcore.wire.v1 import types_pb2

from ..service_helpers import TOKEN, random_counts
from ..test_unary import ANALYSE, DECOMPOSE, SCORES
from .test_http2_connection import GOAWAY as GOAWAY_FRAME
from .test_http2_connection import (
    PREFACE,
    Answer,
    frame,
    grpc_message,
    parse_frames,
    record,
    request_headers,
    settings_frame,
)

SERVICE = "/mjcore.v1.HandAnalysisService/"
CHECK = "/grpc.health.v1.Health/Check"
SERVING, NOT_SERVING = health_pb2.HealthCheckResponse.SERVING, \
    health_pb2.HealthCheckResponse.NOT_SERVING


def _start(**settings):
    server = build(ServerConfig(port=0, unary_port=0, workers=8, drain=0, grace=2, **settings))
    server.start()
    return server


@pytest.fixture(scope="module")
def server():
    s = _start()
    yield s
    s.shutdown(0, 0)


@pytest.fixture(scope="module")
def channels(server):
    # the long-details case sends about 8 KiB of trailers: above grpc's default soft metadata
    # limit, where the client refuses a random share of calls (RESOURCE_EXHAUSTED)
    options = [("grpc.max_metadata_size", 64 * 1024),
               ("grpc.absolute_max_metadata_size", 64 * 1024)]
    main = grpc.insecure_channel(f"127.0.0.1:{server.port}", options=options)
    front = grpc.insecure_channel(f"127.0.0.1:{server.unary_port}", options=options)
    yield main, front
    main.close()
    front.close()


def _raw(channel: grpc.Channel, path: str, request: bytes, metadata=None, timeout=10):
    """(code, details, response bytes, trailing metadata) of a call with identity codecs."""
    call = channel.unary_unary(path)
    try:
        response, info = call.with_call(request, metadata=metadata, timeout=timeout)
        return grpc.StatusCode.OK, info.details(), response, tuple(info.trailing_metadata())
    except grpc.RpcError as err:
        return err.code(), err.details(), None, tuple(err.trailing_metadata() or ())


def _same(channels, path: str, request, metadata=None):
    """The call on both ports; asserts identical outcomes (status details too); returns it."""
    main, front = channels
    data = request if isinstance(request, bytes) else request.SerializeToString()
    want = _raw(main, path, data, metadata)
    got = _raw(front, path, data, metadata)
    assert got[:3] == want[:3], (path, request)
    details_bin = [(k, v) for k, v in got[3] if k == "grpc-status-details-bin"]
    assert details_bin == [(k, v) for k, v in want[3] if k == "grpc-status-details-bin"]
    return got


# -- successful calls --------------------------------------------------------------------------

def _sample_hands() -> list[str]:
    hands = [format_counts(c) for tiles in (13, 14) for c in random_counts(40, tiles, 77 + tiles)]
    hands += ANALYSE + [h for h, _ in DECOMPOSE]
    return hands


def test_analyze_hand_matches_the_main_port(channels):
    for i, text in enumerate(_sample_hands()):
        visible = ("", "1z1z2z", "5m5m0p9s", "7z")[i % 4]
        code, _, response, _ = _same(channels, SERVICE + "AnalyzeHand",
                                     pb.AnalyzeHandRequest(hand=text, visible=visible))
        assert code == grpc.StatusCode.OK and response


def test_decompose_matches_the_main_port(channels):
    cases = list(DECOMPOSE)
    cases += _complete_hands(30, 5)
    for c in random_counts(30, 14, 5):
        cases.append((format_counts(c), mjcore.tile_name(int(c.nonzero()[0][-1]))))
    for text, win in cases:
        code, _, response, _ = _same(channels, SERVICE + "Decompose",
                                     pb.DecomposeRequest(hand=text, win_tile=win))
        assert code == grpc.StatusCode.OK
    assert pb.DecomposeResponse.FromString(response).hand


def _complete_hands(n: int, seed: int) -> list[tuple[str, str]]:
    """``n`` seeded complete 14-tile hands (four sets and a pair) with a winning tile."""
    import numpy as np

    rng = np.random.default_rng(seed)
    out: list[tuple[str, str]] = []
    while len(out) < n:
        counts = np.zeros(34, dtype=np.int64)
        for _ in range(4):
            if rng.random() < 0.6:
                suit, start = rng.integers(3), rng.integers(7)
                counts[suit * 9 + start:suit * 9 + start + 3] += 1
            else:
                counts[rng.integers(34)] += 3
        counts[rng.integers(34)] += 2
        if counts.max() <= 4:
            win = int(rng.choice(counts.nonzero()[0]))
            out.append((format_counts(counts.tolist()), mjcore.tile_name(win)))
    return out


def test_score_matches_the_main_port(channels):
    requests = [r for r, _ in SCORES]
    for i, (text, win) in enumerate(_complete_hands(40, 6)):
        requests.append(sp.ScoreRequest(
            hand=text, win_tile=win, win_method=(sp.WIN_METHOD_TSUMO, sp.WIN_METHOD_RON)[i % 2],
            seat_wind=types_pb2.WIND_SOUTH, dora_indicators="3z",
            situation=sp.Situation(riichi=i % 3 == 0)))
    requests.append(sp.ScoreRequest(
        hand="234m567p345s22m678s", win_tile="8s", win_method=sp.WIN_METHOD_RON,
        situation=sp.Situation(riichi=True, double_riichi=False), honba_count=3,
        riichi_stick_count=2,
        rules=sp.RuleSelection(preset="ema", options=[sp.RuleOption(name="kuitan",
                                                                    bool_value=False)])))
    ok = 0
    for request in requests:
        code, details, response, _ = _same(channels, SERVICE + "Score", request)
        if code == grpc.StatusCode.OK:
            ok += 1
            last = response
        else:
            assert code == grpc.StatusCode.INVALID_ARGUMENT, details
    assert ok >= len(requests) // 2
    response = last
    assert sp.ScoreResponse.FromString(response).points


def test_list_rule_presets_matches_the_main_port(channels):
    code, _, response, _ = _same(channels, SERVICE + "ListRulePresets",
                                 pb.ListRulePresetsRequest())
    assert code == grpc.StatusCode.OK
    assert [p.name for p in pb.ListRulePresetsResponse.FromString(response).presets] == \
        ["tenhou", "ema", "wrc", "tenhou_sanma"]


CLASSICAL_A = ["333z 1357m 246p pon:999s 5f", "777z 234s 678m 11z pon:555p 2f",
               "1357m 2468p 1357s 6z", "222m 1479p 23689s 4z"]
CLASSICAL_B = ["19m19p19s12345677z", "1357m 2468p 1357s 1z", "2468m 1357p 2468s 2z",
               "2468m 2468p 2468s 3z"]
SELF_DRAWN = sp.CLASSICAL_WIN_CONDITION_SELF_DRAWN
DEALS = [
    sp.ScoreClassicalDealRequest(hands=CLASSICAL_A, winner=1, win_tile="4s",
                                 conditions=[SELF_DRAWN]),
    sp.ScoreClassicalDealRequest(hands=CLASSICAL_B, winner=0, win_tile="7z", discarder=2,
                                 cannon=2, rules=sp.RuleSelection(preset="bradfield")),
    sp.ScoreClassicalDealRequest(hands=CLASSICAL_A[:3], winner=1, win_tile="4s"),
    sp.ScoreClassicalDealRequest(hands=CLASSICAL_A, winner=4, win_tile="4s"),
    sp.ScoreClassicalDealRequest(hands=CLASSICAL_A, winner=1, win_tile="9s",
                                 conditions=[SELF_DRAWN]),
    sp.ScoreClassicalDealRequest(hands=CLASSICAL_A, winner=1, win_tile="4s",
                                 rules=sp.RuleSelection(preset="tenhou")),
]


@pytest.mark.parametrize("index", range(len(DEALS)))
def test_score_classical_deal_matches_the_main_port(channels, index):
    request = DEALS[index]
    code, details, response, _ = _same(channels, SERVICE + "ScoreClassicalDeal", request)
    if index < 2:
        assert code == grpc.StatusCode.OK, details
        assert sp.ScoreClassicalDealResponse.FromString(response).players
        return
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    infos = []
    for channel in channels:
        with pytest.raises(grpc.RpcError) as err:
            pb_grpc.HandAnalysisServiceStub(channel).ScoreClassicalDeal(request, timeout=10)
        info = error_info(err.value)
        assert info is not None
        infos.append((info.reason, dict(info.metadata)))
    assert infos[0] == infos[1] and infos[0][0]


def test_client_sends_score_classical_to_the_front(server):
    # the bulk target listens nowhere: the answer can only come from the front
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        dead = unused.getsockname()[1]
    with Client(f"127.0.0.1:{dead}", timeout=10, retries=0,
                unary_target=f"127.0.0.1:{server.unary_port}") as client:
        got = client.score_classical(CLASSICAL_A, 1, "4s", self_drawn=True)
    assert got["net"] == [-96, 304, -112, -96]   # test_classical_service: example A


@pytest.mark.parametrize("service", ["", "mjcore.v1.HandAnalysisService",
                                     "no.such.Service"])
def test_health_check_matches_the_main_port(channels, service):
    code, _, response, _ = _same(channels, CHECK, health_pb2.HealthCheckRequest(service=service))
    if service == "no.such.Service":
        assert code == grpc.StatusCode.NOT_FOUND
    else:
        assert health_pb2.HealthCheckResponse.FromString(response).status == SERVING


# -- errors ------------------------------------------------------------------------------------

BAD = [
    ("AnalyzeHand", pb.AnalyzeHandRequest(hand="123x456p")),                    # malformed
    ("AnalyzeHand", pb.AnalyzeHandRequest(hand="123")),
    ("AnalyzeHand", pb.AnalyzeHandRequest(hand="")),
    ("AnalyzeHand", pb.AnalyzeHandRequest(hand="１２３m")),                      # non-ASCII
    ("AnalyzeHand", pb.AnalyzeHandRequest(hand="11111m23p456s789s")),           # five copies
    ("AnalyzeHand", pb.AnalyzeHandRequest(hand="123m456p789s12z")),             # 11 tiles
    ("AnalyzeHand", pb.AnalyzeHandRequest(hand="123m456p789s11223344z")),       # 18 tiles
    ("AnalyzeHand", pb.AnalyzeHandRequest(hand="123m pon:123z")),
    ("AnalyzeHand", pb.AnalyzeHandRequest(hand="123m456p789s1122z", visible="9q")),
    ("AnalyzeHand", pb.AnalyzeHandRequest(hand="123m456p789s1122z" * 200)),     # long details
    ("Decompose", pb.DecomposeRequest(hand="123m456p789s11122z")),               # no win tile
    ("Decompose", pb.DecomposeRequest(hand="123m456p789s11122z", win_tile="0z")),
    ("Decompose", pb.DecomposeRequest(hand="123m456p789s11122z", win_tile="9m")),
    ("Decompose", pb.DecomposeRequest(hand="11111m", win_tile="1m")),
    ("Score", sp.ScoreRequest(hand="123m456p789s11122z", win_tile="2z")),
    ("Score", sp.ScoreRequest(hand="123m456p789s11123z", win_tile="3z",
                              win_method=sp.WIN_METHOD_RON)),
    ("Score", sp.ScoreRequest(hand="123m456p789s11122z", win_tile="2z",
                              win_method=sp.WIN_METHOD_RON, situation=sp.Situation(ippatsu=True))),
    ("Score", sp.ScoreRequest(hand="123m456p789s11122z", win_tile="2z",
                              win_method=sp.WIN_METHOD_RON, dora_indicators="1x")),
    *[("Score", sp.ScoreRequest(hand="123m456p789s11122z", win_tile="2z",
                                win_method=sp.WIN_METHOD_RON, rules=rules)) for rules in (
        sp.RuleSelection(preset="nope"),
        sp.RuleSelection(options=[sp.RuleOption(name="no_such_option", bool_value=True)]),
        sp.RuleSelection(options=[sp.RuleOption(name="kuitan", int_value=1)]),
        sp.RuleSelection(options=[sp.RuleOption(name="kuitan")]))],
]


@pytest.mark.parametrize("method,request_", BAD, ids=[f"{m}-{i}" for i, (m, _) in
                                                      enumerate(BAD)])
def test_errors_match_the_main_port(channels, method, request_):
    main, front = channels
    code, details, _, _ = _same(channels, SERVICE + method, request_)
    assert code == grpc.StatusCode.INVALID_ARGUMENT, details
    stub_main, stub_front = pb_grpc.HandAnalysisServiceStub(main), \
        pb_grpc.HandAnalysisServiceStub(front)
    infos = []
    for stub in (stub_main, stub_front):
        with pytest.raises(grpc.RpcError) as err:
            getattr(stub, method)(request_, timeout=10)
        info = error_info(err.value)
        assert info is not None and info.domain == "mjcore.dev" and info.reason
        infos.append((info.reason, dict(info.metadata)))
    assert infos[0] == infos[1]
    assert "field" in infos[1][1]


@pytest.mark.parametrize("method", ["AnalyzeHand", "Decompose", "Score", "ScoreClassicalDeal"])
@pytest.mark.parametrize("data", [b"\xff\xff\xff", b"\x0a\x05ab", b"\x08"])
def test_undecodable_request_is_invalid_argument(channels, method, data):
    code, details, _, _ = _same(channels, SERVICE + method, data)
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert method in details
    with pytest.raises(grpc.RpcError) as err:
        channels[1].unary_unary(SERVICE + method)(data, timeout=10)
    info = error_info(err.value)       # the ErrorInfo the main port sends (guard.py)
    assert info is not None and info.reason == "MALFORMED_MESSAGE"
    assert info.domain == "mjcore.dev"


@pytest.mark.parametrize("method", ["AnalyzeHand", "ScoreClassicalDeal"])
def test_a_call_without_a_message_gets_the_main_ports_answer(channels, method):
    answers = []
    for channel in channels:
        call = channel.stream_unary(SERVICE + method)     # sends no message at all
        with pytest.raises(grpc.RpcError) as err:
            call(iter([]), timeout=10)
        info = error_info(err.value)
        answers.append((err.value.code(), err.value.details(), info and info.reason))
    assert answers[0] == answers[1] == (grpc.StatusCode.INVALID_ARGUMENT,
                                        "the call carries no request message",
                                        "NO_REQUEST_MESSAGE")


def test_health_check_undecodable_request_is_invalid_argument(channels):
    code, _, _, _ = _raw(channels[1], CHECK, b"\x0a\xff")
    assert code == grpc.StatusCode.INVALID_ARGUMENT


@pytest.mark.parametrize("path", [SERVICE + "StreamShanten", SERVICE + "StreamScore",
                                  SERVICE + "Nope", "/grpc.health.v1.Health/Watch",
                                  "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
                                  "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
                                  "/x/y", "/"])
def test_other_methods_are_unimplemented(channels, path):
    code, details, _, _ = _raw(channels[1], path, b"")
    assert code == grpc.StatusCode.UNIMPLEMENTED
    assert path in details


def test_streaming_stubs_get_unimplemented(channels):
    from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

    _, front = channels
    stub = pb_grpc.HandAnalysisServiceStub(front)
    request = pb.StreamShantenRequest(hands=types_pb2.PackedHands(
        encoding=types_pb2.HAND_ENCODING_COUNTS_U8, data=random_counts(4, 13, 1).tobytes()))
    with pytest.raises(grpc.RpcError) as err:
        list(stub.StreamShanten(iter([request, request]), timeout=10))
    assert err.value.code() == grpc.StatusCode.UNIMPLEMENTED
    reflection = reflection_pb2_grpc.ServerReflectionStub(front)
    with pytest.raises(grpc.RpcError) as err:
        list(reflection.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(
            list_services="")]), timeout=10))
    assert err.value.code() == grpc.StatusCode.UNIMPLEMENTED
    with pytest.raises(grpc.RpcError) as err:
        next(health_pb2_grpc.HealthStub(front).Watch(health_pb2.HealthCheckRequest(),
                                                     timeout=10))
    assert err.value.code() == grpc.StatusCode.UNIMPLEMENTED
    # and the connection still serves unary calls
    assert stub.AnalyzeHand(pb.AnalyzeHandRequest(hand="123m456p789s1122z"), timeout=10).hand


# -- a raw HTTP/2 client on a socket -----------------------------------------------------------

class RawH2:
    """One HTTP/2 connection to ``port`` through the h2 package (TLS with ``context``)."""

    def __init__(self, port: int, context: ssl.SSLContext | None = None) -> None:
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        try:   # a refused TLS handshake or preface must not leave the socket open
            if context is not None:
                sock = context.wrap_socket(sock, server_hostname="localhost")
            self.sock = sock
            self.conn = h2.connection.H2Connection(h2.config.H2Configuration(
                client_side=True, header_encoding=None))
            self.conn.initiate_connection()
            self.answers: dict[int, Answer] = {}
            self.goaway: h2.events.ConnectionTerminated | None = None
            self.closed = False
            self.flush()
        except OSError:
            sock.close()
            raise

    def flush(self) -> None:
        data = self.conn.data_to_send()
        if data:
            self.sock.sendall(data)

    def open(self, path: str, *extra: tuple[str, str]) -> int:
        sid = self.conn.get_next_available_stream_id()
        self.conn.send_headers(sid, request_headers(path, *extra))
        self.flush()
        return sid

    def finish(self, sid: int, message: bytes) -> None:
        self.conn.send_data(sid, grpc_message(message), end_stream=True)
        self.flush()

    def call(self, path: str, message: bytes, *extra: tuple[str, str]) -> Answer:
        sid = self.open(path, *extra)
        self.finish(sid, message)
        self.read_until(lambda: self.answers.get(sid, Answer()).ended)
        return self.answers[sid]

    def read_until(self, done, seconds: float = 10) -> None:
        give_up = time.monotonic() + seconds
        while not done():
            assert time.monotonic() < give_up, "no answer"
            self.sock.settimeout(max(0.01, give_up - time.monotonic()))
            data = self.sock.recv(65536)
            if not data:
                self.closed = True
                return
            if self.goaway is not None:
                # after GOAWAY the server may still send frames (a SETTINGS ACK for a preface it
                # read late, RST_STREAM; RFC 9113 §6.8), which h2's closed state machine refuses;
                # from here on the client only waits for the close
                continue
            try:
                events = self.conn.receive_data(data)
            except h2.exceptions.ProtocolError:
                if not _has_goaway(data):
                    raise
                self.goaway = h2.events.ConnectionTerminated()
                continue
            for e in events:
                if isinstance(e, h2.events.ConnectionTerminated):
                    self.goaway = e
                a = record(self.answers, e)
                if isinstance(e, h2.events.DataReceived):
                    self.conn.acknowledge_received_data(e.flow_controlled_length, e.stream_id)
                elif isinstance(e, h2.events.StreamReset) and a is not None:
                    a.ended = True
            with contextlib.suppress(OSError):
                self.flush()

    def close(self) -> None:
        self.sock.close()


def _has_goaway(data: bytes) -> bool:
    """Whether a run of whole HTTP/2 frames holds a GOAWAY."""
    i = 0
    while i + 9 <= len(data):
        if data[i + 3] == 0x7:
            return True
        i += 9 + int.from_bytes(data[i:i + 3], "big")
    return False


# already expired; "1n" raced on grpcio's side (the main port sometimes answered OK)
@pytest.mark.parametrize("timeout", ["0m", "0n", "0S"])
def test_expired_grpc_timeout_is_deadline_exceeded_on_both_ports(server, timeout):
    request = pb.AnalyzeHandRequest(hand="123m456p789s1122z").SerializeToString()
    for port in (server.unary_port, server.port):
        raw = RawH2(port)
        try:
            a = raw.call(SERVICE + "AnalyzeHand", request, ("grpc-timeout", timeout))
        finally:
            raw.close()
        assert a.grpc_status == grpc.StatusCode.DEADLINE_EXCEEDED.value[0], port


def test_raw_client_with_a_long_grpc_timeout_gets_the_same_bytes(server, channels):
    request = pb.AnalyzeHandRequest(hand="123m456p789s1122z").SerializeToString()
    raw = RawH2(server.unary_port)
    try:
        a = raw.call(SERVICE + "AnalyzeHand", request, ("grpc-timeout", "5S"))
        b = raw.call(SERVICE + "AnalyzeHand", request)
    finally:
        raw.close()
    want = _raw(channels[0], SERVICE + "AnalyzeHand", request)[2]
    assert a.grpc_status == b.grpc_status == 0 and a.message == b.message == want


def test_grpcio_deadline_on_the_front(channels):
    _, front = channels
    stub = pb_grpc.HandAnalysisServiceStub(front)
    assert stub.AnalyzeHand(pb.AnalyzeHandRequest(hand="123m456p789s1122z"), timeout=5).hand
    with pytest.raises(grpc.RpcError) as err:      # (grpcio ends this one itself)
        stub.AnalyzeHand(pb.AnalyzeHandRequest(hand="123m456p789s1122z"), timeout=-1)
    assert err.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED


# -- token and TLS -----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def token_server():
    s = _start(token=TOKEN)
    yield s
    s.shutdown(0, 0)


@pytest.mark.parametrize("metadata", [None, (("authorization", "Bearer wrong"),),
                                      (("authorization", TOKEN),),
                                      (("authorization", f"Basic {TOKEN}"),),
                                      (("authorization", f"Bearer{TOKEN}"),),
                                      (("authorization", f"Bearer {TOKEN}x"),),
                                      (("authorization", f"Bearer {TOKEN}"[:-1]),)])
@pytest.mark.parametrize("method,request_", [
    ("AnalyzeHand", pb.AnalyzeHandRequest(hand="123m456p789s1122z")),
    ("AnalyzeHand", pb.AnalyzeHandRequest(hand="11111m")),
    ("Score", sp.ScoreRequest(hand="123m456p789s11122z", win_tile="2z")),
    ("ListRulePresets", pb.ListRulePresetsRequest())])
def test_token_required_like_the_main_port(token_server, metadata, method, request_):
    with grpc.insecure_channel(f"127.0.0.1:{token_server.port}") as main, \
            grpc.insecure_channel(f"127.0.0.1:{token_server.unary_port}") as front:
        code, details, _, _ = _same((main, front), SERVICE + method, request_, metadata)
    assert code == grpc.StatusCode.UNAUTHENTICATED
    assert details == ("missing bearer token" if metadata is None else "invalid bearer token")


@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "BEARER", "beaRER  "])
def test_bearer_scheme_is_case_insensitive_on_both_ports(token_server, scheme):
    with grpc.insecure_channel(f"127.0.0.1:{token_server.port}") as main, \
            grpc.insecure_channel(f"127.0.0.1:{token_server.unary_port}") as front:
        code, details, _, _ = _same((main, front), SERVICE + "ListRulePresets",
                                    pb.ListRulePresetsRequest(),
                                    (("authorization", f"{scheme} {TOKEN}"),))
    assert code == grpc.StatusCode.OK, details


def test_right_token_and_open_health(token_server):
    good = (("authorization", f"Bearer {TOKEN}"),)
    with grpc.insecure_channel(f"127.0.0.1:{token_server.port}") as main, \
            grpc.insecure_channel(f"127.0.0.1:{token_server.unary_port}") as front:
        for text in ANALYSE:
            code, _, _, _ = _same((main, front), SERVICE + "AnalyzeHand",
                                  pb.AnalyzeHandRequest(hand=text), good)
            assert code == grpc.StatusCode.OK
        code, _, response, _ = _same((main, front), CHECK, health_pb2.HealthCheckRequest())
        assert code == grpc.StatusCode.OK
        assert health_pb2.HealthCheckResponse.FromString(response).status == SERVING
        code, _, _, _ = _same((main, front), CHECK, health_pb2.HealthCheckRequest(), good)
        assert code == grpc.StatusCode.OK


def test_overlong_token_is_refused(token_server):
    with grpc.insecure_channel(f"127.0.0.1:{token_server.unary_port}") as front:
        code, _, _, _ = _raw(front, SERVICE + "ListRulePresets", b"",
                             (("authorization", "Bearer " + "x" * 2000),))
    assert code in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.RESOURCE_EXHAUSTED)


@pytest.fixture(scope="module")
def tls_server(certs):
    s = _start(tls_cert=certs["server"], tls_key=certs["server.key"])
    yield s
    s.shutdown(0, 0)


@pytest.fixture(scope="module")
def mtls_server(certs):
    s = _start(tls_cert=certs["server"], tls_key=certs["server.key"], client_ca=certs["ca"],
               token=TOKEN)
    yield s
    s.shutdown(0, 0)


def _secure(port: int, certs, client_cert: bool = False, ca: str = "ca") -> grpc.Channel:
    creds = grpc.ssl_channel_credentials(
        root_certificates=certs[ca].read_bytes(),
        private_key=certs["client.key"].read_bytes() if client_cert else None,
        certificate_chain=certs["client"].read_bytes() if client_cert else None)
    return grpc.secure_channel(f"localhost:{port}", creds)


def test_tls_front_matches_the_main_port(tls_server, certs):
    with _secure(tls_server.port, certs) as main, _secure(tls_server.unary_port, certs) as front:
        for text in ANALYSE[:4]:
            code, _, _, _ = _same((main, front), SERVICE + "AnalyzeHand",
                                  pb.AnalyzeHandRequest(hand=text))
            assert code == grpc.StatusCode.OK
        _same((main, front), SERVICE + "AnalyzeHand", pb.AnalyzeHandRequest(hand="11111m"))
    with Client(f"localhost:{tls_server.port}", unary_target=f"localhost:{tls_server.unary_port}",
                root_certificates=certs["ca"], retries=0, timeout=10) as c:
        assert c.rule_presets().default_preset == "tenhou"


def _padded(request, size: int) -> bytes:
    """``request`` serialized with an unknown length-delimited field of ``size`` bytes (kept
    and ignored by the parser): a large request with an ordinary answer."""
    return request.SerializeToString() + b"\xc2\x3e" + _varint(size) + b"u" * size


def _varint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7f | 0x80)
        n >>= 7
    return bytes(out + bytes((n,)))


def test_large_requests_match_the_main_port(channels, tls_server, certs):
    """Up to the unary limit (64 KiB) answered, above it RESOURCE_EXHAUSTED, on both ports."""
    requests = {n: _padded(pb.AnalyzeHandRequest(hand="123m456p789s1122z"), n)
                for n in (60_000, 70_000, 1_500_000)}
    want = {60_000: grpc.StatusCode.OK, 70_000: grpc.StatusCode.RESOURCE_EXHAUSTED,
            1_500_000: grpc.StatusCode.RESOURCE_EXHAUSTED}
    for n, request in requests.items():
        code, _, response, _ = _same(channels, SERVICE + "AnalyzeHand", request)
        assert code == want[n] and (response or code != grpc.StatusCode.OK)
    with _secure(tls_server.port, certs) as main, _secure(tls_server.unary_port, certs) as front:
        for n, request in requests.items():
            assert _same((main, front), SERVICE + "AnalyzeHand", request)[0] == want[n]


def test_request_over_max_message_size_is_resource_exhausted_on_both_ports():
    server = _start(max_message_size=4096)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{server.port}") as main, \
                grpc.insecure_channel(f"127.0.0.1:{server.unary_port}") as front:
            small = _padded(pb.AnalyzeHandRequest(hand="123m456p789s1122z"), 3000)
            assert _same((main, front), SERVICE + "AnalyzeHand", small)[0] == grpc.StatusCode.OK
            big = _padded(pb.AnalyzeHandRequest(hand="123m456p789s1122z"), 5000)
            for channel in (main, front):
                assert _raw(channel, SERVICE + "AnalyzeHand", big)[0] == \
                    grpc.StatusCode.RESOURCE_EXHAUSTED
            assert _raw(front, SERVICE + "AnalyzeHand", small)[0] == grpc.StatusCode.OK
    finally:
        server.shutdown(0, 0)


def test_tls_front_refuses_plaintext_and_untrusted_clients(tls_server, certs):
    with grpc.insecure_channel(f"127.0.0.1:{tls_server.unary_port}") as ch:
        code, _, _, _ = _raw(ch, CHECK, b"", timeout=3)
        assert code == grpc.StatusCode.UNAVAILABLE
    with _secure(tls_server.unary_port, certs, ca="other") as ch:
        code, _, _, _ = _raw(ch, CHECK, b"", timeout=3)
        assert code == grpc.StatusCode.UNAVAILABLE
    # a plaintext HTTP/2 preface on the TLS port is dropped, and the front still serves
    with socket.create_connection(("127.0.0.1", tls_server.unary_port), timeout=5) as s:
        s.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
        s.settimeout(5)
        with pytest.raises(OSError):
            while s.recv(4096):
                pass
            raise ConnectionResetError("closed")
    with _secure(tls_server.unary_port, certs) as ch:
        assert _raw(ch, CHECK, b"")[0] == grpc.StatusCode.OK


def test_tls_front_with_python_ssl_and_h2(tls_server, certs):
    context = ssl.create_default_context(cafile=str(certs["ca"]))
    context.set_alpn_protocols(["h2"])
    raw = RawH2(tls_server.unary_port, context)
    try:
        assert isinstance(raw.sock, ssl.SSLSocket) and raw.sock.selected_alpn_protocol() == "h2"
        a = raw.call(SERVICE + "AnalyzeHand",
                     pb.AnalyzeHandRequest(hand="123m456p789s1122z").SerializeToString())
    finally:
        raw.close()
    assert a.grpc_status == 0
    assert pb.AnalyzeHandResponse.FromString(a.message).shanten.shanten == 0


def test_mutual_tls_front(mtls_server, certs):
    good = (("authorization", f"Bearer {TOKEN}"),)
    with _secure(mtls_server.port, certs, client_cert=True) as main, \
            _secure(mtls_server.unary_port, certs, client_cert=True) as front:
        code, _, _, _ = _same((main, front), SERVICE + "Score", SCORES[0][0], good)
        assert code == grpc.StatusCode.OK
        code, _, _, _ = _same((main, front), SERVICE + "Score", SCORES[0][0])
        assert code == grpc.StatusCode.UNAUTHENTICATED
        assert _same((main, front), CHECK, b"")[0] == grpc.StatusCode.OK
    with _secure(mtls_server.unary_port, certs) as ch:              # no client certificate
        code, _, _, _ = _raw(ch, CHECK, b"", good, timeout=3)
        assert code == grpc.StatusCode.UNAVAILABLE
    context = ssl.create_default_context(cafile=str(certs["ca"]))
    context.set_alpn_protocols(["h2"])
    with pytest.raises((OSError, AssertionError)):
        raw = RawH2(mtls_server.unary_port, context)
        try:
            a = raw.call(CHECK, b"")
            assert a.grpc_status == 0
        finally:
            raw.close()
    with _secure(mtls_server.unary_port, certs, client_cert=True) as ch:
        assert _raw(ch, CHECK, b"")[0] == grpc.StatusCode.OK


# -- an independent client stack ---------------------------------------------------------------

GRPCLIB_CLIENT = r'''
import asyncio, json, sys
from grpclib.client import Channel
from grpclib.exceptions import GRPCError
from grpclib.health.v1 import health_pb2, health_grpc
from mjcore.v1 import analysis_service_pb2 as pb, analysis_service_grpc as pb_grpc
from mjcore.v1 import scoring_pb2 as sp

async def main(port, token, hands):
    meta = {"authorization": "Bearer " + token}
    out = {"analyze": [], "score": []}
    async with Channel("127.0.0.1", port) as channel:
        out["health"] = (await health_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest())).status
        stub = pb_grpc.HandAnalysisServiceStub(channel)
        try:
            await stub.AnalyzeHand(pb.AnalyzeHandRequest(hand=hands[0]))
        except GRPCError as err:
            out["no_token"] = err.status.name
        for hand in hands:
            r = await stub.AnalyzeHand(pb.AnalyzeHandRequest(hand=hand), metadata=meta)
            out["analyze"].append(r.SerializeToString().hex())
        try:
            await stub.AnalyzeHand(pb.AnalyzeHandRequest(hand="11111m"), metadata=meta)
        except GRPCError as err:
            out["bad_hand"] = [err.status.name, err.message]
        r = await stub.Score(sp.ScoreRequest(hand="123m456p789s11122z", win_tile="2z",
                                             win_method=sp.WIN_METHOD_RON), metadata=meta)
        out["score"] = [r.han, r.fu, r.points]
        try:
            async with stub.StreamShanten.open(metadata=meta) as stream:
                await stream.send_message(pb.StreamShantenRequest(), end=True)
                async for _ in stream:
                    pass
        except GRPCError as err:
            out["stream"] = err.status.name
    out["grpcio_loaded"] = "grpc" in sys.modules or "grpc._cython" in sys.modules
    print(json.dumps(out))

asyncio.run(main(int(sys.argv[1]), sys.argv[2], sys.argv[3:]))
'''


def test_grpclib_client_on_the_front(tmp_path, token_server):
    pytest.importorskip("grpclib")
    from ..test_grpclib import _generate

    _generate(tmp_path)
    (tmp_path / "client.py").write_text(GRPCLIB_CLIENT)
    hands = ANALYSE[:6]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    r = subprocess.run([sys.executable, str(tmp_path / "client.py"), str(token_server.unary_port),
                        TOKEN, *hands], cwd=tmp_path, capture_output=True, text=True,
                       timeout=60, env=env, check=False)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["grpcio_loaded"] is False
    assert out["health"] == SERVING
    assert out["no_token"] == "UNAUTHENTICATED"
    assert out["bad_hand"][0] == "INVALID_ARGUMENT" and "1m" in out["bad_hand"][1]
    assert out["stream"] == "UNIMPLEMENTED"
    with grpc.insecure_channel(f"127.0.0.1:{token_server.port}") as main:
        stub = pb_grpc.HandAnalysisServiceStub(main)
        meta = (("authorization", f"Bearer {TOKEN}"),)
        want = [stub.AnalyzeHand(pb.AnalyzeHandRequest(hand=h), metadata=meta)
                .SerializeToString().hex() for h in hands]
    assert out["analyze"] == want
    s = mjcore.score("123m456p789s11122z", "2z")
    assert out["score"] == [s.han, s.fu, s.points]


# -- concurrency -------------------------------------------------------------------------------

def test_32_concurrent_clients_on_the_front_match_the_library(server):
    failures: list[str] = []
    barrier = threading.Barrier(32)

    def worker(i: int) -> None:
        try:
            texts = [format_counts(c) for c in random_counts(8, 13 + i % 2, 4000 + i)]
            with Client(f"127.0.0.1:{server.port}", unary_target=f"127.0.0.1:{server.unary_port}",
                        retries=0, timeout=30) as c:
                barrier.wait(30)
                for text in texts:
                    got = c.analyze(text)
                    hand = Hand.parse(text)
                    sh = mjcore.shanten(hand)
                    assert (got.shanten.standard, got.shanten.chiitoitsu,
                            got.shanten.kokushi) == (sh.standard, sh.chiitoitsu, sh.kokushi)
                    assert got.ukeire == mjcore.ukeire(hand)
                    if hand.n_closed == 13:
                        assert got.waits == mjcore.waits(hand)
                    else:
                        assert got.is_agari == mjcore.is_agari(hand)
                text, win = DECOMPOSE[i % len(DECOMPOSE)]
                got_s = c.score(text, win, tsumo=bool(i % 2))
                want = mjcore.score(text, win, tsumo=bool(i % 2))
                assert (got_s.points, got_s.han, got_s.fu) == (want.points, want.han, want.fu)
        except Exception as exc:  # noqa: BLE001  (reported by the main thread)
            failures.append(f"client {i}: {exc!r}")

    before = server.front.calls
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(32)]
    # and 16 more threads multiplexing their calls on one shared connection
    shared = Client(f"127.0.0.1:{server.port}", unary_target=f"127.0.0.1:{server.unary_port}",
                    retries=0, timeout=30)
    hands = [format_counts(c) for c in random_counts(16 * 20, 13, 99)]

    def sharing(i: int) -> None:
        try:
            for text in hands[i * 20:(i + 1) * 20]:
                assert shared.analyze(text).ukeire == mjcore.ukeire(text)
        except Exception as exc:  # noqa: BLE001  (reported by the main thread)
            failures.append(f"shared {i}: {exc!r}")

    threads += [threading.Thread(target=sharing, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    shared.close()
    assert not any(t.is_alive() for t in threads)
    assert failures == []
    assert server.front.calls - before == 32 * 9 + 16 * 20


# -- shutdown ----------------------------------------------------------------------------------

def _front_health(port: int) -> int:
    with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
        return health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(),
                                                    timeout=2).status


def _front_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "mjcore-unary-front"]


class FrameSocket:
    """Hand-built frames on a socket, for a client that keeps sending after a GOAWAY (h2
    refuses to)."""

    def __init__(self, port: int) -> None:
        import hpack

        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.encoder, self.decoder = hpack.Encoder(), hpack.Decoder()
        self.buffer = b""
        self.frames: list = []
        self.eof = False
        self.sock.sendall(PREFACE + settings_frame())

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def read_until(self, done, seconds: float = 10) -> None:
        give_up = time.monotonic() + seconds
        while not done() and not self.eof:
            assert time.monotonic() < give_up, "timed out"
            self.sock.settimeout(max(0.01, give_up - time.monotonic()))
            data = self.sock.recv(65536)
            if not data:
                self.eof = True
                break
            self.buffer += data
            while len(self.buffer) >= 9:
                n = int.from_bytes(self.buffer[:3], "big")
                if len(self.buffer) < 9 + n:
                    break
                self.frames += parse_frames(self.buffer[:9 + n])
                self.buffer = self.buffer[9 + n:]

    def of_kind(self, kind: int) -> list:
        return [f for f in self.frames if f.kind == kind]

    def trailers(self, sid: int) -> dict:
        blocks = [f for f in self.frames if f.kind == 1 and f.sid == sid]
        return dict(self.decoder.decode(blocks[-1].payload, raw=True)) if blocks else {}

    def close(self) -> None:
        self.sock.close()


def test_shutdown_drains_then_goaway_then_refuses():
    server = _start()
    port = server.unary_port
    threads_before = len(_front_threads())
    assert _front_health(port) == SERVING
    idle = RawH2(port)
    busy = FrameSocket(port)
    request = pb.AnalyzeHandRequest(hand="123m456p789s1122z").SerializeToString()
    assert idle.call(CHECK, b"").grpc_status == 0
    sid = 1
    busy.send(frame(1, 0x4, sid, busy.encoder.encode(request_headers(SERVICE + "AnalyzeHand"))))
    stopper = threading.Thread(target=server.shutdown, kwargs={"grace": 5, "drain": 1.0})
    stopper.start()
    try:
        give_up = time.monotonic() + 3
        while _front_health(port) != NOT_SERVING:
            assert time.monotonic() < give_up, "health never went NOT_SERVING on the front"
            time.sleep(0.02)
        assert _front_health(port) == NOT_SERVING           # still answering during the drain
        # after the drain: GOAWAY on every open connection
        idle.read_until(lambda: idle.goaway is not None or idle.closed, seconds=5)
        assert idle.goaway is not None and idle.goaway.error_code == 0
        busy.read_until(lambda: busy.of_kind(GOAWAY_FRAME), seconds=5)
        (goaway,) = busy.of_kind(GOAWAY_FRAME)
        assert goaway.payload[:8] == sid.to_bytes(4, "big") + bytes(4)   # NO_ERROR
        assert stopper.is_alive()                           # waiting for the open request
        busy.send(frame(0, 0x1, sid, grpc_message(request)))
        busy.read_until(lambda: busy.trailers(sid).get(b"grpc-status") is not None, seconds=5)
        assert busy.trailers(sid)[b"grpc-status"] == b"0"
        (data,) = [f for f in busy.frames if f.kind == 0 and f.sid == sid]
        assert pb.AnalyzeHandResponse.FromString(data.payload[5:]).hand
        stopper.join(10)
        assert not stopper.is_alive()
        busy.read_until(lambda: False, seconds=5)          # then the connection is closed
        assert busy.eof
    finally:
        stopper.join(10)
        idle.close()
        busy.close()
    assert server.front._thread is None and len(_front_threads()) == threads_before - 1
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=2).close()


def test_shutdown_grace_closes_a_stuck_connection():
    server = _start()
    port = server.unary_port
    stuck = RawH2(port)
    stuck.open(SERVICE + "AnalyzeHand")                   # never finished
    started = time.monotonic()
    server.shutdown(grace=0.5, drain=0)
    assert time.monotonic() - started < 10
    stuck.read_until(lambda: stuck.closed, seconds=5)
    assert stuck.goaway is not None
    stuck.close()
    assert server.front._thread is None
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=2).close()


def test_front_survives_garbage_and_abrupt_clients(server, channels):
    port = server.unary_port
    for junk in (b"GET / HTTP/1.1\r\n\r\n", b"\0" * 100, os.urandom(5000),
                 b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + os.urandom(300)):
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(junk)
            s.settimeout(5)
            try:
                while s.recv(65536):
                    pass
            except ConnectionResetError:
                pass
    half = RawH2(port)
    half.open(SERVICE + "AnalyzeHand")
    half.sock.close()                                       # gone mid-request
    code, _, response, _ = _same(channels, SERVICE + "AnalyzeHand",
                                 pb.AnalyzeHandRequest(hand="123m456p789s1122z"))
    assert code == grpc.StatusCode.OK and response


def test_shutdown_or_stop_before_start_releases_the_ports():
    for stop in (lambda s: s.shutdown(0, 0), lambda s: s.stop(0).wait(5)):
        server = build(ServerConfig(port=0, unary_port=0, drain=0))
        port = server.unary_port
        stop(server)
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), timeout=2).close()


def test_a_client_that_never_reads_cannot_grow_the_server_output_without_bound():
    """Pipelined calls from a client that reads nothing: the front must stop reading that
    connection once its unsent output is large (backpressure), not queue answers forever;
    other clients are still served."""
    import hpack

    # a client ignoring the stream cap would be refused and then sent away (ENHANCE_YOUR_CALM):
    # both raised here, to reach the output limit
    server = _start(max_streams_per_connection=1 << 20, calm_limit=1 << 30)
    limit = 16 << 20
    encoder = hpack.Encoder()
    first = encoder.encode(request_headers(SERVICE + "ListRulePresets"))
    again = encoder.encode(request_headers(SERVICE + "ListRulePresets"))   # indexed only
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", server.unary_port))
    try:
        sock.sendall(PREFACE + settings_frame(initial_window_size=(1 << 31) - 1)
                     + frame(8, 0, 0, ((1 << 31) - 1 - 65535).to_bytes(4, "big"))
                     + frame(1, 0x4, 1, first) + frame(0, 0x1, 1, grpc_message(b"")))
        sock.setblocking(False)
        sid, pending, stalled, queued = 3, b"", None, 0
        give_up = time.monotonic() + 30
        while time.monotonic() < give_up:
            queued = max([len(c.out) for c in list(server.front.connections.values())] or [0])
            if queued > limit:
                break
            if not pending:
                pending = b"".join(frame(1, 0x4, s, again) + frame(0, 0x1, s, grpc_message(b""))
                                   for s in range(sid, sid + 400, 2))
                sid += 400
            try:
                pending = pending[sock.send(pending):]
                stalled = None
            except BlockingIOError:
                stalled = stalled or time.monotonic()
                if time.monotonic() - stalled > 2:
                    break              # the server stopped reading: backpressure works
                time.sleep(0.02)
        assert queued <= limit, f"{queued} bytes of answers queued for a client that never reads"
        with grpc.insecure_channel(f"127.0.0.1:{server.unary_port}") as ch:
            assert _raw(ch, CHECK, b"")[0] == grpc.StatusCode.OK
    finally:
        sock.close()
        server.shutdown(0, 0)
