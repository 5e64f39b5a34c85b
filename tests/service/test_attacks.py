"""Issue 11: the service under attack. Each test runs one attack against a live server (both
ports where it applies) while a ``Bystander`` (well-behaved clients on both ports) keeps
calling: every bystander call has a 2 s deadline, and every one must succeed, during the attack
as well as before and after it. The server's limits are set short (``LIMITS``) so the tests are
quick; production defaults are in ``ServerConfig``.
"""
from __future__ import annotations

import contextlib
import errno
import logging
import select
import socket
import ssl
import struct
import threading
import time
from collections.abc import Callable
from typing import Any, Self

import grpc
import hpack
import pytest
from grpc_health.v1 import health_pb2

from mjcore.service import ServerConfig, build
from mjcore.service.errors import error_info
from mjcore.wire.v1 import analysis_service_pb2 as pb
from mjcore.wire.v1 import scoring_pb2 as sp

from .front.test_http2_connection import (
    CONTINUATION,
    DATA,
    END_HEADERS,
    END_STREAM,
    ENHANCE_YOUR_CALM,
    GOAWAY,
    HEADERS,
    PING,
    PREFACE,
    PROTOCOL_ERROR,
    RST_STREAM,
    SETTINGS,
    WINDOW_UPDATE,
    frame,
    grpc_message,
    parse_frames,
    request_headers,
    settings_frame,
)
from .service_helpers import TOKEN

SERVICE = "/mjcore.v1.HandAnalysisService/"
ANALYZE = SERVICE + "AnalyzeHand"
CHECK = "/grpc.health.v1.Health/Check"
DEADLINE = 2.0          # the bystanders' stated latency: every call must finish within it
LIMITS = {"workers": 8, "receive_timeout": 0.5, "stream_timeout": 0.5, "handshake_timeout": 0.5,
          "header_timeout": 0.5, "idle_timeout": 1.5, "keepalive_interval": 0.4,
          "keepalive_timeout": 0.4, "write_timeout": 0.6, "max_streams_per_connection": 8,
          "max_connections": 40, "connection_buffer": 128 * 1024,
          "process_buffer": 384 * 1024, "calm_limit": 200}
HAND = pb.AnalyzeHandRequest(hand="123m456p789s1122z").SerializeToString()


def _start(**settings):
    config = dict(LIMITS, **settings)
    server = build(ServerConfig(port=0, unary_port=0, drain=0, grace=1, **config))
    server.start()
    return server


@pytest.fixture(scope="module")
def server():
    s = _start()
    yield s
    s.shutdown(0, 0)


# -- the well-behaved clients ----------------------------------------------------------------

class Bystander:
    """Unary calls on both ports, health on the main port and a bulk stream, all the time."""

    def __init__(self, server, metadata=None) -> None:
        self.targets = {"main": f"127.0.0.1:{server.port}",
                        "front": f"127.0.0.1:{server.unary_port}"}
        self.metadata = metadata
        self.ok = dict.fromkeys(("main", "front", "health", "bulk"), 0)
        self.errors: list[str] = []
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def _unary(self, name: str, path: str, request: bytes) -> None:
        with grpc.insecure_channel(self.targets["front" if name == "front" else "main"]) as ch:
            call = ch.unary_unary(path)
            while not self._stop.is_set():
                try:
                    call(request, timeout=DEADLINE, metadata=self.metadata)
                    self.ok[name] += 1
                except grpc.RpcError as err:
                    self.errors.append(f"{name}: {err.code()} {err.details()}")
                time.sleep(0.01)

    def _bulk(self) -> None:
        from mjcore.wire.v1 import types_pb2

        request = pb.StreamShantenRequest(hands=types_pb2.PackedHands(
            encoding=types_pb2.HAND_ENCODING_TEXT_LINES, data=b"123m456p789s1122z\n" * 50))
        with grpc.insecure_channel(self.targets["main"]) as ch:
            call = ch.stream_stream(SERVICE + "StreamShanten",
                                    request_serializer=pb.StreamShantenRequest.SerializeToString,
                                    response_deserializer=pb.StreamShantenResponse.FromString)
            while not self._stop.is_set():
                try:
                    for _ in call(iter([request] * 3), timeout=DEADLINE, metadata=self.metadata):
                        pass
                    self.ok["bulk"] += 1
                except grpc.RpcError as err:
                    self.errors.append(f"bulk: {err.code()} {err.details()}")
                time.sleep(0.01)

    def __enter__(self) -> Self:
        jobs: list[tuple[Callable[..., object], tuple[Any, ...]]] = [
                (self._unary, ("main", ANALYZE, HAND)), (self._unary, ("front", ANALYZE, HAND)),
                (self._unary, ("health", CHECK, b"")), (self._bulk, ())]
        for target, args in jobs:
            thread = threading.Thread(target=target, args=args, daemon=True)
            thread.start()
            self._threads.append(thread)
        self.wait_for_answers("warm-up")
        return self

    def wait_for_answers(self, when: str, calls: int = 3) -> None:
        """Each client gets ``calls`` more answers (within 10 s in all)."""
        start = dict(self.ok)
        give_up = time.monotonic() + 10
        while time.monotonic() < give_up and not self.errors:
            if all(self.ok[k] - start[k] >= calls for k in self.ok):
                return
            time.sleep(0.02)
        raise AssertionError(f"bystanders starved {when}: {self.ok} (from {start}), "
                             f"errors {self.errors[:5]}")

    def __exit__(self, *exc) -> None:
        if exc[0] is None:
            self.wait_for_answers("after the attack")
        self._stop.set()
        for thread in self._threads:
            thread.join(10)
        assert not self.errors, self.errors[:10]


# -- a raw HTTP/2 attacker -------------------------------------------------------------------

class Raw:
    """A hand-driven HTTP/2 client connection."""

    def __init__(self, port: int, preface: bool = True, window: int | None = None,
                 answer_pings: bool = True, source: str | None = None) -> None:
        # ``source``: the local address to connect from (another loopback address is another
        # client host to the server's per-peer shares)
        self.sock = socket.create_connection(("127.0.0.1", port),
                                             source_address=(source, 0) if source else None)
        self.answer_pings = answer_pings
        self.encoder = hpack.Encoder()
        self.buffer = b""
        self.frames: list = []
        self.closed = False
        if preface:   # with a connection window large enough for every answer
            settings = {} if window is None else {"initial_window_size": window}
            self.send(PREFACE + settings_frame(**settings)
                      + frame(WINDOW_UPDATE, 0, 0, struct.pack(">I", 1 << 30)))

    def block(self, headers) -> bytes:
        return self.encoder.encode(headers)

    def send(self, data: bytes) -> bool:
        try:
            self.sock.sendall(data)
            return True
        except OSError:
            self.closed = True
            return False

    def read(self, seconds: float, until=None) -> list:
        """Frames received within ``seconds`` (or until ``until(frames)``); sets ``closed``."""
        end = time.monotonic() + seconds
        while not self.closed:
            left = end - time.monotonic()
            if left <= 0 or (until is not None and until(self.frames)):
                break
            if not select.select([self.sock], [], [], min(left, 0.05))[0]:
                continue
            try:
                data = self.sock.recv(1 << 20)
            except OSError:
                data = b""
            if not data:
                self.closed = True
                break
            self.buffer += data
            cut = 0
            while len(self.buffer) - cut >= 9:
                length = int.from_bytes(self.buffer[cut:cut + 3], "big")
                if len(self.buffer) - cut - 9 < length:
                    break
                cut += 9 + length
            frames = parse_frames(self.buffer[:cut])
            self.buffer = self.buffer[cut:]
            self.frames += frames
            if self.answer_pings:
                for f in frames:
                    if f.kind == PING and not f.flags & 1:
                        self.send(frame(PING, 1, 0, f.payload))
        return self.frames

    def statuses(self) -> dict[int, int]:
        """grpc-status by stream of the (trailers-only) answers received."""
        decoder = hpack.Decoder()
        out = {}
        for f in self.frames:
            if f.kind == HEADERS:
                fields = dict(decoder.decode(f.payload, raw=True))
                if b"grpc-status" in fields:
                    out[f.sid] = int(fields[b"grpc-status"])
        return out

    def goaway_code(self) -> int | None:
        codes = [struct.unpack(">II", f.payload[:8])[1] for f in self.frames if f.kind == GOAWAY]
        return codes[-1] if codes else None

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()


def _stall(port: int, streams: int, path: str = ANALYZE, extra=(),
           source: str | None = None) -> Raw:
    """A connection opening ``streams`` calls that send HEADERS and never their message."""
    raw = Raw(port, source=source)
    raw.send(b"".join(frame(HEADERS, END_HEADERS, sid, raw.block(request_headers(path, *extra)))
                      for sid in range(1, 2 * streams, 2)))
    return raw


def _raw_call(target: str, path: str, request: bytes, metadata=None, compression=None):
    with grpc.insecure_channel(target) as ch:
        try:
            response = ch.unary_unary(path)(request, timeout=5, metadata=metadata,
                                            compression=compression)
            return grpc.StatusCode.OK, response, None
        except grpc.RpcError as err:
            return err.code(), err.details(), err


def _ports(server):
    return {"main": f"127.0.0.1:{server.port}", "front": f"127.0.0.1:{server.unary_port}"}


# -- 1. limits on every field, checked before parsing ----------------------------------------

def _score(**fields) -> bytes:
    base: dict[str, Any] = {"hand": "234m456p11s555z77z7z", "win_tile": "7z",
                            "win_method": sp.WIN_METHOD_RON}
    base.update(fields)
    return sp.ScoreRequest(**base).SerializeToString()


FIELD_ATTACKS: dict[str, tuple[str, Any, str | None]] = {
    "hand 60 KB": (ANALYZE, pb.AnalyzeHandRequest(hand="1m" * 30_000), "FIELD_TOO_LONG"),
    "hand 1 MiB": (ANALYZE, pb.AnalyzeHandRequest(hand="1m" * 500_000), None),
    "visible 8 MiB": (ANALYZE, pb.AnalyzeHandRequest(hand="123m", visible="1m" * 4_000_000),
                      None),
    "visible 301 chars": (ANALYZE, pb.AnalyzeHandRequest(hand="123m456p789s1122z",
                                                         visible="1" * 300 + "m"),
                          "FIELD_TOO_LONG"),
    "visible five copies": (ANALYZE, pb.AnalyzeHandRequest(hand="123m456p789s1122z",
                                                           visible="11111m"),
                            "TOO_MANY_COPIES"),
    "dora 11 tiles": (SERVICE + "Score", _score(dora_indicators="12345678912m"),
                      "TOO_MANY_TILES"),
    "ura 41 chars": (SERVICE + "Score", _score(ura_indicators="1" * 40 + "m"),
                     "FIELD_TOO_LONG"),
    "win_tile long": (SERVICE + "Decompose", pb.DecomposeRequest(hand="123m", win_tile="1m" * 9),
                      "FIELD_TOO_LONG"),
    "1000 rule options": (SERVICE + "Score", sp.ScoreRequest(
        hand="234m456p11s555z77z7z", win_tile="7z", win_method=sp.WIN_METHOD_RON,
        rules=sp.RuleSelection(options=[sp.RuleOption(name=f"opt{i}", bool_value=True)
                                        for i in range(1000)])), "INVALID_RULE"),
    "60 unknown rule options": (SERVICE + "Score", sp.ScoreRequest(
        hand="234m456p11s555z77z7z", win_tile="7z", win_method=sp.WIN_METHOD_RON,
        rules=sp.RuleSelection(options=[sp.RuleOption(name="o" * 60 + str(i), bool_value=True)
                                        for i in range(60)])), "INVALID_RULE"),
    "long preset name": (SERVICE + "Score", sp.ScoreRequest(
        hand="234m456p11s555z77z7z", win_tile="7z", win_method=sp.WIN_METHOD_RON,
        rules=sp.RuleSelection(preset="p" * 5000)), "INVALID_RULE"),
}


def test_every_field_is_limited_before_parsing_on_both_ports(server):
    with Bystander(server):
        for _ in range(3):
            for name, (path, request, reason) in FIELD_ATTACKS.items():
                data = request if isinstance(request, bytes) else request.SerializeToString()
                for port, target in _ports(server).items():
                    code, details, err = _raw_call(target, path, data)
                    if reason is None:     # over the 64 KiB unary message limit
                        assert code == grpc.StatusCode.RESOURCE_EXHAUSTED, (name, port)
                        continue
                    assert code == grpc.StatusCode.INVALID_ARGUMENT, (name, port, details)
                    assert len(details) <= 300, (name, port)
                    info = error_info(err)
                    assert info.reason == reason, (name, port)
                    assert sum(len(v) for v in info.metadata.values()) < 400


def test_a_gzip_bomb_is_refused_by_the_unary_limit(server):
    bomb = pb.AnalyzeHandRequest(hand="1m" * (8 << 20)).SerializeToString()   # 16 MiB
    with Bystander(server):
        code, _, _ = _raw_call(_ports(server)["main"], ANALYZE, bomb,
                               compression=grpc.Compression.Gzip)
        assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
        # the front takes identity encoding only
        code, _, _ = _raw_call(_ports(server)["front"], ANALYZE, bomb,
                               compression=grpc.Compression.Gzip)
        assert code in (grpc.StatusCode.UNIMPLEMENTED, grpc.StatusCode.RESOURCE_EXHAUSTED)


@pytest.mark.parametrize("field,value", [("seat_wind", 99), ("round_wind", 99),
                                         ("win_method", 7), ("seat_wind", -3)])
def test_enums_out_of_range_are_invalid_argument_naming_the_field(server, caplog, field, value):
    request = sp.ScoreRequest(hand="234m456p11s555z77z7z", win_tile="7z",
                              win_method=sp.WIN_METHOD_RON)
    setattr(request, field, value)
    with caplog.at_level(logging.INFO, logger="mjcore.service"):
        for port, target in _ports(server).items():
            code, details, err = _raw_call(target, SERVICE + "Score", request.SerializeToString())
            assert code == grpc.StatusCode.INVALID_ARGUMENT, (port, details)
            assert details.startswith(field) and error_info(err).metadata["field"] == field
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


def test_malformed_messages_are_logged_once_per_connection_without_traceback(server, caplog):
    with caplog.at_level(logging.INFO, logger="mjcore.service"):
        for port, target in _ports(server).items():
            with grpc.insecure_channel(target) as ch:
                for _ in range(5):
                    with pytest.raises(grpc.RpcError) as exc:
                        ch.unary_unary(ANALYZE)(b"\xff\xff\xff", timeout=5)
                    assert exc.value.code() == grpc.StatusCode.INVALID_ARGUMENT, port
    logged = [r for r in caplog.records if "not a valid message" in r.getMessage()]
    assert len(logged) == 2, [r.getMessage() for r in logged]
    assert not [r for r in caplog.records if r.exc_info]


# -- 2. stalled, unauthenticated and idle calls ------------------------------------------------

def test_stalled_calls_cannot_take_every_worker_on_either_port(server):
    before = server.slots.timed_out + server.slots.evicted
    with Bystander(server) as bystander:
        attackers = [_stall(port, 8) for port in (server.port, server.unary_port)
                     for _ in range(4)]
        bystander.wait_for_answers("while 64 calls stall")
        for raw in attackers:     # each stalled call is ended, not left waiting
            raw.read(3, until=lambda frames: len({f.sid for f in frames
                                                  if f.kind in (HEADERS, RST_STREAM)
                                                  and f.sid}) >= 8)
        for raw in attackers:
            ended = {f.sid for f in raw.frames if f.kind in (HEADERS, RST_STREAM) and f.sid}
            assert ended == set(range(1, 16, 2)), ended
            raw.close()
    assert server.slots.timed_out + server.slots.evicted - before >= 32


def test_idle_bulk_stream_is_cancelled():
    from mjcore.wire.v1 import types_pb2

    request = pb.StreamShantenRequest(hands=types_pb2.PackedHands(
        encoding=types_pb2.HAND_ENCODING_TEXT_LINES, data=b"123m456p789s1122z\n"))
    release = threading.Event()

    def requests():
        yield request
        release.wait(10)      # then idle, never ending the stream

    # the idle streams and the bystander share one client host: a host share as large as the
    # whole, so only the stream timeout ends them (the share's evictions are tested apart)
    server = _start(max_receiving_per_peer=16)
    try:
        with Bystander(server), grpc.insecure_channel(f"127.0.0.1:{server.port}") as ch:
            calls = [ch.stream_stream(SERVICE + "StreamShanten")(
                (r.SerializeToString() for r in requests()), timeout=10)
                for _ in range(6)]
            for call in calls:
                with pytest.raises(grpc.RpcError) as exc:
                    list(call)
                assert exc.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
                assert "did not arrive within 0.5 s" in exc.value.details()
            release.set()
    finally:
        release.set()
        server.shutdown(0, 0)


@pytest.fixture(scope="module")
def token_server():
    s = _start(token=TOKEN)
    yield s
    s.shutdown(0, 0)


@pytest.mark.parametrize("extra", [[("authorization", "Bearer wrong")], []],
                         ids=["wrong", "missing"])
def test_a_bad_token_is_refused_before_the_body_arrives_on_both_ports(token_server, extra):
    good = (("authorization", f"Bearer {TOKEN}"),)
    with Bystander(token_server, metadata=good):
        for port in (token_server.port, token_server.unary_port):
            raw = _stall(port, 8, extra=extra)
            raw.read(3, until=lambda fs: len({f.sid for f in fs if f.kind == HEADERS}) >= 8)
            # UNAUTHENTICATED, not DEADLINE_EXCEEDED by the receive timeout: refused from the
            # headers, with no body sent
            assert raw.statuses() == dict.fromkeys(range(1, 16, 2), 16), port
            raw.close()


def test_duplicate_authorization_is_refused_on_both_ports(token_server):
    twice = (("authorization", f"Bearer {TOKEN}"), ("authorization", "Bearer other"))
    for target in _ports(token_server).values():
        code, details, _ = _raw_call(target, ANALYZE, HAND, metadata=twice)
        assert (code, details) == (grpc.StatusCode.UNAUTHENTICATED,
                                   "duplicate authorization header")
        code, details, _ = _raw_call(target, ANALYZE, HAND, metadata=twice[::-1])
        assert code == grpc.StatusCode.UNAUTHENTICATED


# -- 3. unfinished request bodies --------------------------------------------------------------

def _fill(raw: Raw, streams: int, declared: int) -> int:
    """Open ``streams`` calls declaring ``declared``-byte messages and send body bytes while the
    server grants window; returns the bytes it accepted."""
    import h2.config
    import h2.connection

    client = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    client.initiate_connection()
    raw.send(client.data_to_send())
    sent = 0
    for sid in range(1, 2 * streams, 2):
        client.send_headers(sid, request_headers())
        client.send_data(sid, b"\0" + declared.to_bytes(4, "big"))
    raw.send(client.data_to_send())
    for _ in range(30):
        data = b""
        while select.select([raw.sock], [], [], 0.05)[0]:
            chunk = raw.sock.recv(1 << 20)
            if not chunk:
                return sent
            data += chunk
        with contextlib.suppress(Exception):
            client.receive_data(data)
        progress = 0
        for sid in range(1, 2 * streams, 2):
            with contextlib.suppress(Exception):
                window = min(client.local_flow_control_window(sid),
                             client.max_outbound_frame_size)
                if window > 0:
                    client.send_data(sid, b"u" * window)
                    progress += window
        if not raw.send(client.data_to_send()) or not progress:
            break
        sent += progress
    return sent


def test_unfinished_bodies_are_capped_per_stream_connection_and_process():
    # bodies held longer than the module's 0.5 s receive timeout, so all six connections are
    # still holding theirs when the process budget is reached
    server = _start(receive_timeout=10)
    try:
        with Bystander(server):
            front = [Raw(server.unary_port, preface=False) for _ in range(6)]
            accepted = [_fill(raw, 8, 60_000) for raw in front]
            # each connection within its budget; all of them within the process budget
            assert max(accepted) <= LIMITS["connection_buffer"]
            assert server.front.buffered <= LIMITS["process_buffer"]
            assert server.front.dropped.get("process buffer", 0) >= 1
            main = Raw(server.port, preface=False)
            # the main port: 64 KiB lookahead a stream (before grpcio's 4 MiB windows: 275 MB)
            assert _fill(main, 8, 60 << 20) <= 8 * 64 * 1024 + 4 * (1 << 20)
            for raw in [*front, main]:
                raw.close()
    finally:
        server.shutdown(0, 0)


# -- 4. connections held open ----------------------------------------------------------------

def _closed_within(raw: Raw, seconds: float) -> bool:
    raw.read(seconds)
    return raw.closed


def test_silent_slow_and_idle_connections_are_closed(server):
    with Bystander(server):
        no_preface = Raw(server.unary_port, preface=False)
        no_preface_main = Raw(server.port, preface=False)
        # header blocks left open: only CONTINUATION may follow one, so these do not answer
        # the server's keepalive PINGs (an answer would be a protocol error: the front closed
        # with PROTOCOL_ERROR when its PING, due after 0.4 s, and the test's first read beat
        # its 0.5 s header timeout, once in a full `make test`)
        slowloris = Raw(server.unary_port, answer_pings=False)
        slowloris.send(frame(HEADERS, 0, 1, slowloris.block(request_headers())[:5]))
        drip = Raw(server.unary_port, answer_pings=False)
        drip.send(frame(HEADERS, 0, 1, b""))
        # the main port: grpc closes these by its handshake or idle timeout
        slowloris_main = Raw(server.port, answer_pings=False)
        slowloris_main.send(frame(HEADERS, 0, 1, slowloris_main.block(request_headers())[:5]))
        drip_main = Raw(server.port, answer_pings=False)
        drip_main.send(frame(HEADERS, 0, 1, b""))
        silent = Raw(server.unary_port, answer_pings=False)
        assert _closed_within(no_preface, 3) and _closed_within(no_preface_main, 3)
        for _ in range(30):                         # CONTINUATION frames, one every 0.1 s
            for raw in (drip, drip_main):
                if not raw.closed and raw.send(frame(CONTINUATION, 0, 1, b"")):
                    raw.read(0.05)
            if drip.closed and drip_main.closed:
                break
        assert _closed_within(slowloris, 3) and slowloris.goaway_code() == ENHANCE_YOUR_CALM
        # (the drip's GOAWAY may be lost to a reset: it kept sending as the server closed)
        assert _closed_within(drip, 3)
        assert server.front.dropped.get("header timeout", 0) >= 2
        assert _closed_within(silent, 3)
        assert _closed_within(slowloris_main, 3) and _closed_within(drip_main, 3)
        assert [f for f in silent.frames if f.kind == PING and not f.flags & 1]
        for raw in (no_preface, no_preface_main, slowloris, drip, silent, slowloris_main,
                    drip_main):
            raw.close()
    for reason in ("handshake timeout", "keepalive timeout"):
        assert server.front.dropped.get(reason, 0) >= 1, server.front.dropped


@pytest.mark.parametrize("port", ["main", "front"])
def test_idle_connection_gets_goaway_after_idle_timeout(server, port):
    raw = Raw(server.port if port == "main" else server.unary_port)   # answers PINGs only
    raw.read(5)
    # grpc says INTERNAL_ERROR ("connection idle") where the front says NO_ERROR
    assert raw.closed and raw.goaway_code() == (2 if port == "main" else 0)
    raw.close()


def test_a_peer_that_does_not_read_is_dropped(server):
    with Bystander(server):
        raw = Raw(server.unary_port, window=0)     # a stream window of 0: answers wait
        raw.send(frame(HEADERS, END_HEADERS, 1, raw.block(request_headers()))
                 + frame(DATA, END_STREAM, 1, grpc_message(HAND)))
        assert _closed_within(raw, 3)
        raw.close()
    assert server.front.dropped.get("peer not reading", 0) >= 1


def test_tls_handshake_that_never_comes_is_timed_out(certs):
    s = _start(tls_cert=certs["server"], tls_key=certs["server.key"])
    try:
        quiet = [socket.create_connection(("127.0.0.1", port)) for port in (s.port, s.unary_port)]
        for sock in quiet:
            sock.settimeout(3)
            assert sock.recv(100) == b""           # closed by the server, nothing sent
            sock.close()
        context = ssl.create_default_context(cafile=str(certs["ca"]))
        context.set_alpn_protocols(["h2"])
        with socket.create_connection(("127.0.0.1", s.unary_port)) as plain, \
                context.wrap_socket(plain, server_hostname="localhost") as tls:
            assert tls.selected_alpn_protocol() == "h2"
    finally:
        s.shutdown(0, 0)


def test_connection_cap_on_both_ports(server):
    with Bystander(server):
        crowd = [socket.create_connection(("127.0.0.1", port))
                 for port in (server.port, server.unary_port) for _ in range(60)]
        most = 0
        for _ in range(20):
            most = max(most, len(server.front.connections))
            time.sleep(0.01)
        for sock in crowd:
            sock.close()
    assert most <= LIMITS["max_connections"]
    assert server.front.dropped.get("connection cap", 0) >= 1


class FailingListener:
    """A listener whose accept fails like a process out of file descriptors."""

    def __init__(self, real: socket.socket) -> None:
        self.real = real
        self.attempts = 0

    def fileno(self) -> int:
        return self.real.fileno()

    def accept(self):
        self.attempts += 1
        raise OSError(errno.EMFILE, "Too many open files")

    def close(self) -> None:
        self.real.close()


def test_out_of_descriptors_backs_off_and_logs_once(caplog):
    s = _start()
    try:
        real = s.front._listener
        failing = s.front._listener = FailingListener(real)
        with caplog.at_level(logging.INFO, logger="mjcore.service"):
            waiting = [socket.create_connection(("127.0.0.1", s.unary_port)) for _ in range(3)]
            time.sleep(1.0)
            s.front._listener = real
            with grpc.insecure_channel(f"127.0.0.1:{s.unary_port}") as ch:
                ch.unary_unary(CHECK)(b"", timeout=5)
        # a busy loop would retry thousands of times a second
        assert 1 <= failing.attempts <= 20, failing.attempts
        failed = [r for r in caplog.records if "accept failed" in r.getMessage()]
        assert len(failed) == 1
        assert [r for r in caplog.records if "accepting connections again" in r.getMessage()]
        for sock in waiting:
            sock.close()
    finally:
        s.shutdown(0, 0)


# -- 5. floods ---------------------------------------------------------------------------------

def _flood_until_calm(server, raw: Raw, unit, rounds: int = 20) -> None:
    """Send ``unit()`` until the front sends the connection away for it (its GOAWAY can be lost
    to a reset when it closes while the flood is still arriving: the count tells)."""
    calmed = server.front.dropped.get("calm limit", 0)
    for _ in range(rounds):
        raw.read(0.001)
        if raw.closed or raw.goaway_code() is not None or not raw.send(unit()):
            break
    raw.read(2, until=lambda frames: any(f.kind == GOAWAY for f in frames))
    assert raw.goaway_code() in (ENHANCE_YOUR_CALM, None)
    assert server.front.dropped.get("calm limit", 0) == calmed + 1


def test_rapid_reset_unknown_methods_and_settings_floods(server):
    with Bystander(server):
        reset = Raw(server.unary_port)
        ids = iter(range(1, 1 << 30, 2))
        block = reset.block(request_headers())
        _flood_until_calm(server, reset, lambda: b"".join(
            frame(HEADERS, END_HEADERS, sid, block) + frame(RST_STREAM, 0, sid, b"\0\0\0\x08")
            for sid in (next(ids) for _ in range(50))))

        unknown = Raw(server.unary_port)
        ids = iter(range(1, 1 << 30, 2))
        block = unknown.block(request_headers("/no.such/" + "m" * 500))
        _flood_until_calm(server, unknown, lambda: b"".join(
            frame(HEADERS, END_HEADERS | END_STREAM, next(ids), block) for _ in range(50)))
        # the unknown path is quoted short: less out than in
        answers = [f for f in unknown.frames if f.kind == HEADERS]
        assert answers and max(len(f.payload) for f in answers) < 200

        settings = Raw(server.unary_port)
        entries = b"".join(struct.pack(">HI", 4, 65535 + i) for i in range(2700))
        _flood_until_calm(server, settings, lambda: frame(SETTINGS, 0, 0, entries) * 20)

        # the main port: grpc's own defences; the bystanders must not notice
        main = Raw(server.port)
        ids = iter(range(1, 1 << 30, 2))
        block = main.block(request_headers())
        for _ in range(20):
            if not main.send(b"".join(frame(HEADERS, END_HEADERS, sid, block)
                                      + frame(RST_STREAM, 0, sid, b"\0\0\0\x08")
                                      for sid in (next(ids) for _ in range(50)))):
                break
        for raw in (reset, unknown, settings, main):
            raw.close()
    assert server.front.dropped.get("calm limit", 0) >= 3


def test_one_connection_pipelining_thousands_of_calls_does_not_starve_others():
    # the stream cap would refuse all but 8 at a time: raised, so 500 requests arrive in
    # each burst and are answered PER_PASS at a time between the other connections' turns
    s = _start(max_streams_per_connection=1 << 16, calm_limit=1 << 30, write_timeout=30)
    try:
        with Bystander(s) as bystander:
            raw = Raw(s.unary_port)
            first = raw.block(request_headers())
            again = raw.block(request_headers())    # indexed fields only: reusable
            sid = 1
            raw.send(frame(HEADERS, END_HEADERS, sid, first)
                     + frame(DATA, END_STREAM, sid, grpc_message(HAND)))
            for _ in range(4):
                burst = b"".join(frame(HEADERS, END_HEADERS, n, again)
                                 + frame(DATA, END_STREAM, n, grpc_message(HAND))
                                 for n in range(sid + 2, sid + 1002, 2))
                sid += 1000
                raw.send(burst)
                bystander.wait_for_answers("while one connection pipelines", calls=1)
                raw.read(0.2)
            answered = {f.sid for f in raw.read(5, until=lambda fs: len(
                {f.sid for f in fs if f.kind == HEADERS and f.flags & END_STREAM}) >= 2001)
                if f.kind == HEADERS and f.flags & END_STREAM}
            assert answered == set(range(1, 4002, 2))
            raw.close()
    finally:
        s.shutdown(0, 0)


# -- 6. header validation and reflection -------------------------------------------------------

def test_malformed_headers_are_reset_on_the_front(server):
    raw = Raw(server.unary_port)
    raw.send(frame(HEADERS, END_HEADERS, 1, raw.block(request_headers() + [("X-Up", "1")]))
             + frame(DATA, END_STREAM, 1, grpc_message(HAND)))
    frames = raw.read(2, until=lambda fs: any(f.kind == RST_STREAM for f in fs))
    (reset,) = [f for f in frames if f.kind == RST_STREAM]
    assert reset.sid == 1 and struct.unpack(">I", reset.payload)[0] == PROTOCOL_ERROR
    raw.close()


def test_reflection_can_be_turned_off():
    from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

    request = reflection_pb2.ServerReflectionRequest(list_services="")
    for reflection, want in ((True, None), (False, grpc.StatusCode.UNIMPLEMENTED)):
        s = _start(reflection=reflection)
        try:
            with grpc.insecure_channel(f"127.0.0.1:{s.port}") as ch:
                stub = reflection_pb2_grpc.ServerReflectionStub(ch)
                try:
                    list(stub.ServerReflectionInfo(iter([request]), timeout=5))
                    got = None
                except grpc.RpcError as err:
                    got = err.code()
                assert got == want
                health = ch.unary_unary(CHECK, response_deserializer=(
                    health_pb2.HealthCheckResponse.FromString))(b"", timeout=5)
                assert health.status == health_pb2.HealthCheckResponse.SERVING
        finally:
            s.shutdown(0, 0)


def test_every_limit_flag_is_a_config_field():
    from mjcore.cli.serve import LIMIT_OPTIONS

    config = ServerConfig(port=0)
    for flag, field, _kind, _text in LIMIT_OPTIONS:
        assert flag == "--" + field.replace("_", "-") and hasattr(config, field)


def test_tls_connection_pipelining_past_one_loop_pass_is_answered_in_full(certs):
    """Far more requests over TLS than one loop pass answers: the connection stops being read
    while its queue drains, then must be read again until every request is answered."""
    s = _start(tls_cert=certs["server"], tls_key=certs["server.key"],
               max_streams_per_connection=5000, calm_limit=1 << 20)
    try:
        context = ssl.create_default_context(cafile=str(certs["ca"]))
        context.set_alpn_protocols(["h2"])
        with socket.create_connection(("127.0.0.1", s.unary_port)) as plain, \
                context.wrap_socket(plain, server_hostname="localhost") as tls:
            encoder = hpack.Encoder()
            first = encoder.encode(request_headers())
            again = encoder.encode(request_headers())
            calls = b"".join(frame(HEADERS, END_HEADERS, sid, first if sid == 1 else again)
                             + frame(DATA, END_STREAM, sid, grpc_message(HAND))
                             for sid in range(1, 3000, 2))   # about 7 TLS records
            tls.sendall(PREFACE + settings_frame()
                        + frame(WINDOW_UPDATE, 0, 0, struct.pack(">I", 1 << 30)) + calls)
            data, ended = b"", set[int]()
            tls.settimeout(5)
            while len(ended) < 1500:
                chunk = tls.recv(1 << 16)
                assert chunk, f"closed after {len(ended)} answers"
                data += chunk
                cut = 0
                while len(data) - cut >= 9:
                    length = int.from_bytes(data[cut:cut + 3], "big")
                    if len(data) - cut - 9 < length:
                        break
                    cut += 9 + length
                ended |= {f.sid for f in parse_frames(data[:cut])
                          if f.kind == HEADERS and f.flags & END_STREAM}
                data = data[cut:]
            assert ended == set(range(1, 3000, 2))
    finally:
        s.shutdown(0, 0)
