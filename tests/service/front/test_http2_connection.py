"""The unary front's HTTP/2 server connection (service/front/_http2.pyx), sans-IO.

The independent client is the ``h2`` package (its own framing, HPACK and flow-control checks);
raw frames are built by hand where h2 would refuse to send them. No sockets, no threads.
"""
from __future__ import annotations

import faulthandler
import struct
from dataclasses import dataclass, field
from typing import cast

import h2.config
import h2.connection
import h2.events
import h2.settings
import hpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mjcore.service.front._http2 import ServerConnection

PATH = "/mjcore.v1.HandAnalysisService/AnalyzeHand"
OTHER = "/grpc.health.v1.Health/Check"
PATHS = frozenset({PATH.encode(), OTHER.encode()})
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

DATA, HEADERS, PRIORITY, RST_STREAM, SETTINGS, PUSH_PROMISE, PING, GOAWAY, WINDOW_UPDATE, \
    CONTINUATION = range(10)
END_STREAM, ACK, END_HEADERS, PADDED, PRIORITY_FLAG = 0x1, 0x1, 0x4, 0x8, 0x20
NO_ERROR, PROTOCOL_ERROR, FLOW_CONTROL_ERROR, STREAM_CLOSED, FRAME_SIZE_ERROR, REFUSED_STREAM, \
    COMPRESSION_ERROR, ENHANCE_YOUR_CALM = 0x0, 0x1, 0x3, 0x5, 0x6, 0x7, 0x9, 0xb


def grpc_message(payload: bytes, flag: int = 0) -> bytes:
    return bytes((flag,)) + len(payload).to_bytes(4, "big") + payload


def request_headers(path: str = PATH, *extra: tuple[str, str],
                    content_type: str = "application/grpc") -> list[tuple[str, str]]:
    return [(":method", "POST"), (":scheme", "http"), (":path", path),
            (":authority", "localhost"), ("content-type", content_type), ("te", "trailers"),
            *extra]


# -- raw frames --------------------------------------------------------------------------------

def frame(kind: int, flags: int, sid: int, payload: bytes = b"", length: int | None = None
          ) -> bytes:
    n = len(payload) if length is None else length
    return struct.pack(">I", n)[1:] + bytes((kind, flags)) + struct.pack(">I", sid) + payload


def settings_frame(**values: int) -> bytes:
    ids = {"header_table_size": 1, "enable_push": 2, "max_concurrent_streams": 3,
           "initial_window_size": 4, "max_frame_size": 5, "max_header_list_size": 6}
    return frame(SETTINGS, 0, 0, b"".join(struct.pack(">HI", ids[k], v)
                                          for k, v in values.items()))


@dataclass
class Frame:
    kind: int
    flags: int
    sid: int
    payload: bytes


def parse_frames(data: bytes) -> list[Frame]:
    """The server's output as whole frames; fails on a truncated or oversized one."""
    frames = []
    pos = 0
    while pos < len(data):
        assert len(data) - pos >= 9, f"truncated frame header at {pos}"
        length = int.from_bytes(data[pos:pos + 3], "big")
        assert length <= (1 << 24) - 1
        kind, flags = data[pos + 3], data[pos + 4]
        sid = int.from_bytes(data[pos + 5:pos + 9], "big")
        assert sid >> 31 == 0, "reserved bit set"
        assert len(data) - pos - 9 >= length, f"truncated frame payload at {pos}"
        frames.append(Frame(kind, flags, sid, data[pos + 9:pos + 9 + length]))
        pos += 9 + length
    return frames


def goaway_of(frames: list[Frame]) -> tuple[int, int]:
    """(last stream id, error code) of the one GOAWAY, which must be the last frame."""
    goaways = [f for f in frames if f.kind == GOAWAY]
    assert len(goaways) == 1 and frames[-1] is goaways[0], frames
    last, code = struct.unpack(">II", goaways[0].payload[:8])
    return last, code


class RawClient:
    """Hand-built frames for a fresh server; the server's frames parsed and decoded back."""

    def __init__(self, max_message: int = 4 * 1024 * 1024, handshake: bool = True,
                 **limits: int) -> None:
        self.server = ServerConnection(PATHS, max_message, **limits)
        self.encoder = hpack.Encoder()
        self.decoder = hpack.Decoder()
        self.frames: list[Frame] = []
        self.frames += parse_frames(self.server.take_output())   # the server preface
        assert self.frames[0].kind == SETTINGS and not self.frames[0].flags & ACK
        if handshake:
            assert self.send(PREFACE + settings_frame()) == []
            assert self.frames[-1].kind == SETTINGS and self.frames[-1].flags & ACK

    def block(self, headers) -> bytes:
        return self.encoder.encode(headers)

    def send(self, data: bytes) -> list[tuple]:
        requests = self.server.receive(data)
        self.frames += parse_frames(self.server.take_output())
        return requests

    def take(self) -> list[Frame]:
        start = getattr(self, "_seen", 0)
        self._seen = len(self.frames)
        return self.frames[start:]

    def headers_of(self, sid: int) -> list[list[tuple[bytes, bytes]]]:
        """Every header block the server sent on ``sid`` (HEADERS + CONTINUATION joined)."""
        blocks: list[list[tuple[bytes, bytes]]] = []
        current: bytearray | None = None
        for f in self.frames:
            if f.kind == HEADERS and f.sid == sid:
                current = bytearray(f.payload)
            elif f.kind == CONTINUATION and f.sid == sid:
                assert current is not None, "CONTINUATION without HEADERS"
                current += f.payload
            else:
                continue
            if f.flags & END_HEADERS:
                assert current is not None
                headers = self.decoder.decode(bytes(current), raw=True)  # raw: names, values bytes
                blocks.append(cast("list[tuple[bytes, bytes]]", headers))
                current = None
        return blocks

    def status_of(self, sid: int) -> tuple[int, str]:
        """grpc-status and grpc-message of a trailers-only answer."""
        (block,) = self.headers_of(sid)
        fields = dict(block)
        return int(fields[b"grpc-status"]), fields.get(b"grpc-message", b"").decode()

    def resets(self, sid: int) -> list[int]:
        return [struct.unpack(">I", f.payload)[0] for f in self.frames
                if f.kind == RST_STREAM and f.sid == sid]

    def call(self, sid: int, message: bytes = b"", headers=None, end_stream: bool = True,
             body: bytes | None = None) -> list[tuple]:
        block = self.block(headers or request_headers())
        data = grpc_message(message) if body is None else body
        return self.send(frame(HEADERS, END_HEADERS, sid, block)
                         + frame(DATA, END_STREAM if end_stream else 0, sid, data))


# -- an h2 client ------------------------------------------------------------------------------

@dataclass
class Answer:
    headers: list = field(default_factory=list)
    data: bytes = b""
    trailers: list = field(default_factory=list)
    ended: bool = False
    reset: int | None = None
    data_frames: list[int] = field(default_factory=list)

    @property
    def grpc_status(self) -> int:
        fields = dict(self.trailers or self.headers)
        return int(fields[b"grpc-status"])

    @property
    def message(self) -> bytes:
        assert self.data[0] == 0 and int.from_bytes(self.data[1:5], "big") == len(self.data) - 5
        return self.data[5:]



def record(answers: dict, e) -> Answer | None:
    """Fold one h2 client event into ``answers`` (stream id -> Answer); that stream's Answer."""
    sid = getattr(e, "stream_id", None)
    if not sid:
        return None
    a = answers.setdefault(sid, Answer())
    if isinstance(e, h2.events.ResponseReceived):
        a.headers = e.headers
    elif isinstance(e, h2.events.DataReceived):
        a.data += e.data
        a.data_frames.append(len(e.data))
    elif isinstance(e, h2.events.TrailersReceived):
        a.trailers = e.headers
    elif isinstance(e, h2.events.StreamEnded):
        a.ended = True
    elif isinstance(e, h2.events.StreamReset):
        a.reset = e.error_code
    return a

class Pair:
    """An h2 client wired to a ServerConnection; ``pump`` moves bytes both ways."""

    def __init__(self, max_message: int = 4 * 1024 * 1024, client_settings: dict | None = None,
                 paths=PATHS) -> None:
        self.server = ServerConnection(paths, max_message)
        self.client = h2.connection.H2Connection(h2.config.H2Configuration(
            client_side=True, header_encoding=None))
        if client_settings:
            self.client.local_settings = h2.settings.Settings(
                client=True, initial_values=client_settings)
            # h2 read this one at construction
            self.client.max_inbound_frame_size = self.client.local_settings.max_frame_size
            self.client.incoming_buffer.max_frame_size = self.client.max_inbound_frame_size
        self.client.initiate_connection()
        self.answers: dict[int, Answer] = {}
        self.events: list = []
        self.requests: list[tuple] = []
        self.pump()

    def pump(self) -> list[tuple]:
        """Client -> server -> client until both are quiet; returns the new requests."""
        new = []
        while True:
            out = self.client.data_to_send()
            if out:
                new += self.server.receive(out)
            back = self.server.take_output()
            if not out and not back:
                break
            if back:
                self._on(self.client.receive_data(back))
        self.requests += new
        return new

    def _on(self, events) -> None:
        self.events += events
        for e in events:
            record(self.answers, e)

    def start(self, message: bytes, headers=None, end: bool = True) -> int:
        sid = self.client.get_next_available_stream_id()
        self.client.send_headers(sid, headers or request_headers())
        self.client.send_data(sid, grpc_message(message), end_stream=end)
        return sid

    def respond(self, sid: int, *args, **kwargs) -> bool:
        ok = self.server.respond(sid, *args, **kwargs)
        self.pump()
        return ok


# -- round trips -------------------------------------------------------------------------------

def test_server_preface_is_settings_then_window_update():
    frames = parse_frames(ServerConnection(PATHS).take_output())
    assert [f.kind for f in frames] == [SETTINGS, WINDOW_UPDATE]
    values = dict(struct.unpack(">HI", frames[0].payload[i:i + 6])
                  for i in range(0, len(frames[0].payload), 6))
    assert values[4] >= 65535 and values.get(3, 1) >= 1


def test_unary_round_trip():
    p = Pair()
    sid = p.start(b"hello", request_headers(PATH, ("authorization", "Bearer t"),
                                            ("grpc-timeout", "250m")))
    (request,) = p.pump()
    assert request == (sid, PATH.encode(), b"hello", b"Bearer t", 250_000)
    assert p.server.active_streams == 1
    assert p.respond(sid, b"world")
    a = p.answers[sid]
    assert dict(a.headers)[b":status"] == b"200"
    assert dict(a.headers)[b"content-type"].startswith(b"application/grpc")
    assert a.message == b"world" and a.grpc_status == 0 and a.ended and a.reset is None
    assert p.server.active_streams == 0
    assert not p.respond(sid, b"again")        # answered once only


@pytest.mark.parametrize("timeout,micros", [("1H", 3_600_000_000), ("2M", 120_000_000),
                                            ("3S", 3_000_000), ("4m", 4000), ("5u", 5),
                                            ("1500n", 2), ("0m", 0), ("99999999u", 99999999)])
def test_grpc_timeout_units(timeout, micros):
    p = Pair()
    p.start(b"x", request_headers(PATH, ("grpc-timeout", timeout)))
    (request,) = p.pump()
    assert request[4] == micros


def test_no_timeout_and_no_token():
    p = Pair()
    p.start(b"")
    (request,) = p.pump()
    assert request[2:] == (b"", None, -1)


def test_error_answer_is_trailers_only_with_encoded_message_and_details():
    p = Pair()
    sid = p.start(b"x")
    p.pump()
    details = bytes(range(256)) * 3
    assert p.respond(sid, None, 3, "bad hand: 5 × 1m, 100% wrong\n", details)
    a = p.answers[sid]
    fields = dict(a.headers)
    assert a.trailers == [] and a.data == b"" and a.ended
    assert fields[b":status"] == b"200" and fields[b"grpc-status"] == b"3"
    assert fields[b"grpc-message"] == b"bad hand: 5 %C3%97 1m, 100%25 wrong%0A"
    import base64
    b64 = fields[b"grpc-status-details-bin"]
    assert base64.b64decode(b64 + b"=" * (-len(b64) % 4)) == details


def test_many_calls_pipelined_in_one_receive():
    p = Pair()
    sids = [p.start(b"m%d" % i, request_headers(PATH, ("x-n", str(i)))) for i in range(100)]
    requests = p.pump()
    assert [(r[0], r[2]) for r in requests] == [(s, b"m%d" % i) for i, s in enumerate(sids)]
    for sid, _, message, _, _ in reversed(requests):
        p.server.respond(sid, message[::-1])
    p.pump()
    assert [p.answers[s].message for s in sids] == [(b"m%d" % i)[::-1] for i in range(100)]
    assert all(p.answers[s].grpc_status == 0 and p.answers[s].ended for s in sids)


def test_request_fed_one_byte_at_a_time():
    raw = RawClient(handshake=False)
    wire = (PREFACE + settings_frame(initial_window_size=1 << 20)
            + frame(HEADERS, END_HEADERS, 1, raw.block(request_headers(
                PATH, ("authorization", "Bearer x"), ("grpc-timeout", "7S"))))
            + frame(DATA, 0, 1, grpc_message(b"abcdef")[:4])
            + frame(DATA, END_STREAM, 1, grpc_message(b"abcdef")[4:]))
    got = []
    for i in range(len(wire)):
        got += raw.send(wire[i:i + 1])
        assert not raw.server.closed
    assert got == [(1, PATH.encode(), b"abcdef", b"Bearer x", 7_000_000)]
    assert raw.server.respond(1, b"ok")
    raw.send(b"")
    blocks = raw.headers_of(1)
    assert dict(blocks[-1])[b"grpc-status"] == b"0"


@pytest.mark.parametrize("cut", [1, 5, 9, 10, 23, 24, 33, 40])
def test_request_split_across_two_receives(cut):
    raw = RawClient(handshake=False)
    wire = (PREFACE + settings_frame() + frame(HEADERS, END_HEADERS, 1,
                                                raw.block(request_headers()))
            + frame(DATA, END_STREAM, 1, grpc_message(b"q")))
    assert raw.send(wire[:cut]) == []
    assert raw.send(wire[cut:]) == [(1, PATH.encode(), b"q", None, -1)]


# -- flow control ------------------------------------------------------------------------------

def test_response_waits_for_a_tiny_stream_window():
    p = Pair(client_settings={h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 10})
    sid = p.start(b"x")
    p.pump()
    message = bytes(range(97))
    assert p.respond(sid, message)
    a = p.answers[sid]
    assert len(a.data) == 10 and not a.ended and a.trailers == []
    while not a.ended:
        sent = len(a.data)
        p.client.increment_flow_control_window(7, sid)
        p.pump()
        assert len(a.data) - sent <= 7      # never past the window (h2 also checks)
        assert a.trailers == [] or len(a.data) == 102
    assert a.message == message and a.grpc_status == 0
    assert max(a.data_frames) <= 10


def test_response_waits_for_the_connection_window():
    """Responses of 30000 bytes with the client's connection window at 65535 and never
    acknowledged: the third waits until a connection WINDOW_UPDATE, and the one after too."""
    p = Pair(client_settings={h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 1 << 20})
    sids = [p.start(b"%d" % i) for i in range(4)]
    p.pump()
    body = [bytes([i]) * 30000 for i in range(4)]
    for sid, b in zip(sids, body, strict=True):
        assert p.respond(sid, b)
    done = [p.answers[s].ended for s in sids]
    assert done == [True, True, False, False]
    assert sum(len(p.answers[s].data) for s in sids) == 65535
    p.client.increment_flow_control_window(30000)
    p.pump()
    assert sum(len(p.answers[s].data) for s in sids) == 65535 + 30000
    p.client.increment_flow_control_window(100000)
    p.pump()
    assert [p.answers[s].message for s in sids] == body
    assert all(p.answers[s].grpc_status == 0 for s in sids)
    assert p.server.active_streams == 0


def test_settings_lowering_the_window_then_raising_it():
    p = Pair(client_settings={h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 0})
    sid = p.start(b"x")
    p.pump()
    assert p.respond(sid, b"y" * 50)
    assert p.answers[sid].data == b""
    p.client.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 1000})
    p.pump()
    assert p.answers[sid].message == b"y" * 50 and p.answers[sid].ended


def test_large_response_split_by_max_frame_size():
    p = Pair(client_settings={h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: (1 << 31) - 1})
    p.client.increment_flow_control_window((1 << 31) - 1 - 65535)
    sid = p.start(b"x")
    p.pump()
    message = bytes(range(256)) * 400          # 102400 bytes
    assert p.respond(sid, message)
    a = p.answers[sid]
    assert a.message == message and a.ended
    assert max(a.data_frames) <= 16384 and len(a.data_frames) >= 7


def test_larger_max_frame_size_is_used():
    size = 100_000
    p = Pair(client_settings={h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: (1 << 31) - 1,
                              h2.settings.SettingCodes.MAX_FRAME_SIZE: size})
    p.client.increment_flow_control_window((1 << 31) - 1 - 65535)
    sid = p.start(b"x")
    p.pump()
    message = b"z" * 250_000
    assert p.respond(sid, message)
    a = p.answers[sid]
    assert a.message == message and max(a.data_frames) <= size


def test_large_request_over_many_data_frames_gets_window_updates():
    p = Pair()
    message = bytes(range(256)) * 12_000          # 3 MB over many frames
    sid = p.client.get_next_available_stream_id()
    p.client.send_headers(sid, request_headers())
    body = grpc_message(message)
    pos = 0
    while pos < len(body):
        window = min(p.client.local_flow_control_window(sid), p.client.max_outbound_frame_size)
        assert window > 0, "the server stopped granting window"
        chunk = body[pos:pos + window]
        pos += len(chunk)
        p.client.send_data(sid, chunk, end_stream=pos == len(body))
        p.pump()
    (request,) = p.requests
    assert request[2] == message


def test_request_larger_than_max_message_is_resource_exhausted():
    raw = RawClient(max_message=1000)
    assert raw.call(1, b"a" * 1000) == [(1, PATH.encode(), b"a" * 1000, None, -1)]
    assert raw.call(3, b"a" * 1001) == []
    assert raw.status_of(3)[0] == 8
    # the oversize body arrives over several frames, the last without END_STREAM
    block = raw.block(request_headers())
    body = grpc_message(b"b" * 3000)
    raw.send(frame(HEADERS, END_HEADERS, 5, block) + frame(DATA, 0, 5, body[:900])
             + frame(DATA, 0, 5, body[900:1800]))
    assert raw.status_of(5)[0] == 8 and raw.resets(5) == [NO_ERROR]
    raw.send(frame(DATA, END_STREAM, 5, body[1800:]))     # the rest is dropped quietly
    assert not raw.server.closed
    assert raw.call(7, b"ok") == [(7, PATH.encode(), b"ok", None, -1)]


def test_request_window_is_granted_back_as_it_is_used():
    """The windows the server grants hold one whole message: the client may send up to
    ``max_message`` on one stream without waiting, and the server never resets it for flow
    control."""
    raw = RawClient(max_message=16 << 20)
    raw.send(frame(HEADERS, END_HEADERS, 1, raw.block(request_headers())))
    window = {0: 65535, 1: 65535}
    for f in raw.frames:
        if f.kind == SETTINGS and not f.flags & ACK:
            values = dict(struct.unpack(">HI", f.payload[i:i + 6])
                          for i in range(0, len(f.payload), 6))
            window[1] = values.get(4, 65535)
    for f in raw.frames:
        if f.kind == WINDOW_UPDATE:
            window[f.sid] += struct.unpack(">I", f.payload)[0]
    raw.take()
    sent = 0
    chunk = b"\0" * 16384
    while sent < 5 * (1 << 20):
        assert min(window.values()) >= len(chunk), "the server stopped granting window"
        raw.send(frame(DATA, 0, 1, chunk))
        sent += len(chunk)
        window[0] -= len(chunk)
        window[1] -= len(chunk)
        for f in raw.take():
            assert f.kind == WINDOW_UPDATE, f
            window[f.sid] += struct.unpack(">I", f.payload)[0]
    assert raw.resets(1) == [] and not raw.server.closed


# -- frames the client may send ----------------------------------------------------------------

def test_continuation_frames_on_the_request():
    p = Pair()
    big = "v" * 40_000                         # beyond 16384: h2 sends HEADERS + CONTINUATION
    sid = p.start(b"x", request_headers(PATH, ("x-big", big), ("authorization", "Bearer c")))
    (request,) = p.pump()
    assert request[0] == sid and request[3] == b"Bearer c"
    assert p.respond(sid, b"y")
    assert p.answers[sid].message == b"y"


def test_raw_continuation_split_at_every_point():
    raw = RawClient()
    block = raw.block(request_headers(PATH, ("authorization", "Bearer z")))
    sid = 1
    for cut in range(len(block) + 1):
        wire = (frame(HEADERS, 0, sid, block[:cut])
                + frame(CONTINUATION, 0, sid, block[cut:cut + 3])
                + frame(CONTINUATION, END_HEADERS, sid, block[cut + 3:])
                + frame(DATA, END_STREAM, sid, grpc_message(b"c")))
        assert raw.send(wire) == [(sid, PATH.encode(), b"c", b"Bearer z", -1)], cut
        sid += 2


def test_padded_and_prioritised_headers_and_padded_data():
    raw = RawClient()
    block = raw.block(request_headers())
    message = grpc_message(b"padded")
    headers = frame(HEADERS, END_HEADERS | PADDED | PRIORITY_FLAG, 1,
                    bytes((7,)) + b"\x00\x00\x00\x00\x10" + block + b"\0" * 7)
    data = frame(DATA, END_STREAM | PADDED, 1, bytes((200,)) + message + b"\0" * 200)
    assert raw.send(headers + data) == [(1, PATH.encode(), b"padded", None, -1)]
    data = frame(DATA, END_STREAM | PADDED, 3, bytes((0,)) + message)
    headers = frame(HEADERS, END_HEADERS | PADDED, 3, bytes((0,)) + block)
    assert raw.send(headers + data) == [(3, PATH.encode(), b"padded", None, -1)]


def test_ping_is_acknowledged_with_its_payload():
    raw = RawClient()
    raw.take()
    raw.send(frame(PING, 0, 0, b"12345678") + frame(PING, ACK, 0, b"abcdefgh"))
    (f,) = raw.take()
    assert (f.kind, f.flags, f.sid, f.payload) == (PING, ACK, 0, b"12345678")


def test_settings_are_acknowledged_and_acks_are_not():
    raw = RawClient()
    raw.take()
    raw.send(settings_frame(max_concurrent_streams=5) + frame(SETTINGS, ACK, 0)
             + settings_frame())
    assert [(f.kind, f.flags, f.payload) for f in raw.take()] == [(SETTINGS, ACK, b"")] * 2


def test_priority_unknown_frames_and_client_goaway_are_ignored():
    raw = RawClient()
    raw.take()
    raw.send(frame(PRIORITY, 0, 9, b"\0\0\0\1\x10") + frame(0x42, 0xff, 3, b"whatever")
             + frame(GOAWAY, 0, 0, b"\0\0\0\0\0\0\0\0debug"))
    assert raw.take() == [] and not raw.server.closed
    assert raw.call(1, b"a") == [(1, PATH.encode(), b"a", None, -1)]


@pytest.mark.parametrize("sid", [2, 1 << 24])
def test_bad_priority_on_a_stream_the_client_cannot_open_is_not_reset(sid):
    """A RST_STREAM must not name an idle stream, least of all an even (server) stream id."""
    raw = RawClient()
    raw.take()
    raw.send(frame(PRIORITY, 0, sid, b"\0\0\0"))
    assert [f for f in raw.take() if f.kind == RST_STREAM and f.sid == sid] == []


def test_client_reset_before_respond_sends_nothing_for_the_stream():
    p = Pair()
    sid = p.start(b"x")
    other = p.start(b"y")
    p.pump()
    p.client.reset_stream(sid)
    p.pump()
    assert p.server.active_streams == 1
    assert p.server.respond(sid, b"late") is False
    assert p.server.respond(sid, None, 13, "late") is False
    assert p.server.take_output() == b""
    assert p.respond(other, b"fine")
    assert p.answers[other].message == b"fine"
    assert sid not in p.answers or p.answers[sid].headers == []


def test_client_reset_while_the_response_waits_for_window():
    p = Pair(client_settings={h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 5})
    sid = p.start(b"x")
    other = p.start(b"y")
    p.pump()
    assert p.respond(sid, b"q" * 100) and p.respond(other, b"r" * 20)
    p.client.reset_stream(sid)
    p.pump()
    p.client.increment_flow_control_window(1000, other)
    p.pump()
    assert p.answers[other].message == b"r" * 20
    assert p.server.active_streams == 0
    assert not p.server.closed


def test_goaway_then_new_stream_is_refused():
    raw = RawClient()
    assert raw.call(1, b"a")
    raw.server.goaway()
    raw.take()
    assert raw.call(3, b"b") == []
    frames = raw.take()
    goaways = [f for f in raw.frames if f.kind == GOAWAY]
    assert len(goaways) == 1
    assert struct.unpack(">II", goaways[0].payload[:8]) == (1, NO_ERROR)
    assert raw.resets(3) == [REFUSED_STREAM] and not raw.server.closed
    assert raw.server.going_away and frames
    assert raw.server.respond(1, b"still answered")      # received before the GOAWAY
    raw.send(b"")
    assert dict(raw.headers_of(1)[-1])[b"grpc-status"] == b"0"
    assert raw.server.active_streams == 0


# -- gRPC-level errors -------------------------------------------------------------------------

def test_content_type_not_grpc_is_http_415():
    raw = RawClient()
    raw.call(1, b"x", headers=request_headers(content_type="application/json"))
    (block,) = raw.headers_of(1)
    assert dict(block)[b":status"] == b"415"
    assert raw.call(3, b"x", headers=request_headers(content_type="application/grpc+proto"))


def test_unknown_path_is_unimplemented_with_its_name():
    raw = RawClient()
    assert raw.call(1, b"x", headers=request_headers("/mjcore.v1.HandAnalysisService/Nope")) \
        == []
    code, message = raw.status_of(1)
    assert code == 12 and "/mjcore.v1.HandAnalysisService/Nope" in message


def test_compressed_flag_is_unimplemented():
    raw = RawClient()
    assert raw.call(1, body=grpc_message(b"zz", flag=1)) == []
    assert raw.status_of(1)[0] == 12


@pytest.mark.parametrize("body", [grpc_message(b"one") + grpc_message(b"two"),
                                  b"\0\0\0", grpc_message(b"abc")[:-1],
                                  grpc_message(b"abc") + b"\0", b"\x02\0\0\0\0"])
def test_not_exactly_one_message_is_invalid_argument(body):
    raw = RawClient()
    assert raw.call(1, body=body) == []
    assert raw.status_of(1)[0] == 3


def test_a_request_without_a_message_is_handed_out_as_none():
    # the caller answers it (front/server.py: the main port's NO_REQUEST_MESSAGE)
    raw = RawClient()
    (request,) = raw.call(1, body=b"")
    assert request[0] == 1 and request[2] is None
    (request,) = raw.send(frame(HEADERS, END_HEADERS | END_STREAM, 3,
                                raw.block(request_headers())))
    assert request[0] == 3 and request[2] is None


@pytest.mark.parametrize("timeout", ["", "m", "1", "1x", "123456789S", "-1S", "1.5S", "1 S",
                                     "9" * 20 + "S"])
def test_malformed_grpc_timeout_is_invalid_argument(timeout):
    raw = RawClient()
    assert raw.call(1, b"x", headers=request_headers(PATH, ("grpc-timeout", timeout))) == []
    code, message = raw.status_of(1)
    assert code == 3 and "grpc-timeout" in message


def test_overlong_path_is_unimplemented_and_overlong_token_unauthenticated():
    raw = RawClient()
    raw.call(1, b"x", headers=request_headers("/" + "p" * 300))
    raw.call(3, b"x", headers=request_headers(PATH, ("authorization", "B" * 9000)))
    assert raw.status_of(1)[0] == 12
    assert raw.status_of(3)[0] == 16
    token = "Bearer " + "t" * 2000   # long tokens (JWTs) within 8 KiB reach the caller
    assert raw.call(5, b"x", headers=request_headers(PATH, ("authorization", token))) == [
        (5, PATH.encode(), b"x", token.encode(), -1)]


@pytest.mark.parametrize("headers", [
    [(":method", "GET"), (":scheme", "http"), (":path", PATH), ("content-type",
                                                                 "application/grpc")],
    [(":method", "POST"), (":scheme", "http"), ("content-type", "application/grpc")],
])
def test_bad_pseudo_headers_reset_the_stream(headers):
    raw = RawClient()
    assert raw.call(1, b"x", headers=headers) == []
    assert raw.resets(1) == [PROTOCOL_ERROR] and not raw.server.closed


def test_trailers_from_the_client_end_the_request():
    raw = RawClient()
    raw.send(frame(HEADERS, END_HEADERS, 1, raw.block(request_headers()))
             + frame(DATA, 0, 1, grpc_message(b"t")))
    assert raw.send(frame(HEADERS, END_HEADERS | END_STREAM, 1,
                          raw.block([("x-trailer", "1")]))) == [(1, PATH.encode(), b"t", None,
                                                                  -1)]


def test_too_many_concurrent_streams_are_refused():
    raw = RawClient()
    block = raw.block(request_headers())
    wire = b"".join(frame(HEADERS, END_HEADERS, 2 * i + 1, block) for i in range(300))
    raw.send(wire)
    refused = [sid for sid in range(1, 601, 2) if raw.resets(sid) == [REFUSED_STREAM]]
    assert refused and raw.server.active_streams + len(refused) == 300
    assert not raw.server.closed


# -- connection errors -------------------------------------------------------------------------

def _fails(raw: RawClient, wire: bytes, code: int) -> None:
    raw.take()
    raw.send(wire)
    last, got = goaway_of(raw.take())
    assert got == code, (got, raw.server.error)
    assert last == 0 or last % 2 == 1          # the last client stream handled, or none
    assert raw.server.closed and raw.server.error
    # nothing more is read or written
    assert raw.send(frame(HEADERS, END_HEADERS, 99, raw.block(request_headers()))
                    + frame(DATA, END_STREAM, 99, grpc_message(b"x"))) == []
    assert raw.take() == [] and not raw.server.has_output
    assert raw.server.respond(1, b"x") is False


def _fresh(handshake: bool = True) -> RawClient:
    return RawClient(handshake=handshake)


@pytest.mark.parametrize("wire", [b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
                                  b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r!",
                                  b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03"])
def test_bad_preface(wire):
    _fails(_fresh(handshake=False), wire, PROTOCOL_ERROR)


def test_bad_preface_detected_on_the_first_wrong_byte():
    raw = _fresh(handshake=False)
    raw.send(PREFACE[:10])
    assert not raw.server.closed
    _fails(raw, b"X", PROTOCOL_ERROR)


def test_first_frame_not_settings():
    _fails(_fresh(handshake=False), PREFACE + frame(PING, 0, 0, b"12345678"), PROTOCOL_ERROR)


def test_even_stream_id():
    raw = _fresh()
    _fails(raw, frame(HEADERS, END_HEADERS, 2, raw.block(request_headers())), PROTOCOL_ERROR)


def test_data_on_idle_stream():
    _fails(_fresh(), frame(DATA, 0, 5, grpc_message(b"x")), PROTOCOL_ERROR)


def test_frame_larger_than_16384():
    _fails(_fresh(), frame(DATA, 0, 1, b"", length=16385), FRAME_SIZE_ERROR)


def test_frame_larger_than_16384_even_when_still_partial():
    raw = _fresh()
    raw.take()
    raw.send(frame(DATA, 0, 1, b"", length=1 << 20)[:9])
    assert goaway_of(raw.take())[1] == FRAME_SIZE_ERROR


@pytest.mark.parametrize("block", [b"\x80", b"\xff\xff\xff\xff\xff\xff", b"\x3f\xe1\xff\x03",
                                   b"\x40\x05ab"])
def test_bad_hpack(block):
    _fails(_fresh(), frame(HEADERS, END_HEADERS, 1, block), COMPRESSION_ERROR)


def test_interrupted_header_block():
    raw = _fresh()
    block = raw.block(request_headers())
    _fails(raw, frame(HEADERS, 0, 1, block[:5]) + frame(PING, 0, 0, b"12345678"),
           PROTOCOL_ERROR)


def test_continuation_of_another_stream():
    raw = _fresh()
    block = raw.block(request_headers())
    _fails(raw, frame(HEADERS, 0, 1, block[:5]) + frame(CONTINUATION, END_HEADERS, 3,
                                                         block[5:]), PROTOCOL_ERROR)


def test_continuation_without_headers():
    _fails(_fresh(), frame(CONTINUATION, END_HEADERS, 1, b""), PROTOCOL_ERROR)


def test_endless_continuation_is_bounded():
    raw = _fresh()
    wire = frame(HEADERS, 0, 1, b"\0" * 16384) + frame(CONTINUATION, 0, 1, b"\0" * 16384) * 8
    _fails(raw, wire, ENHANCE_YOUR_CALM)


def test_connection_window_update_of_zero():
    _fails(_fresh(), frame(WINDOW_UPDATE, 0, 0, b"\0\0\0\0"), PROTOCOL_ERROR)


def test_connection_window_overflow():
    _fails(_fresh(), frame(WINDOW_UPDATE, 0, 0, struct.pack(">I", 0x7fffffff)),
           FLOW_CONTROL_ERROR)


@pytest.mark.parametrize("wire,code", [
    (frame(SETTINGS, 0, 0, b"\0\4\0\0"), FRAME_SIZE_ERROR),
    (frame(SETTINGS, ACK, 0, b"\0\0\0\0\0\0"), FRAME_SIZE_ERROR),
    (frame(SETTINGS, 0, 1, b""), PROTOCOL_ERROR),
    (settings_frame(enable_push=2), PROTOCOL_ERROR),
    (settings_frame(initial_window_size=1 << 31), FLOW_CONTROL_ERROR),
    (settings_frame(max_frame_size=100), PROTOCOL_ERROR),
    (frame(PING, 0, 1, b"12345678"), PROTOCOL_ERROR),
    (frame(PING, 0, 0, b"1234567"), FRAME_SIZE_ERROR),
    (frame(RST_STREAM, 0, 0, b"\0\0\0\0"), PROTOCOL_ERROR),
    (frame(RST_STREAM, 0, 1, b"\0\0\0"), FRAME_SIZE_ERROR),
    (frame(RST_STREAM, 0, 7, b"\0\0\0\0"), PROTOCOL_ERROR),
    (frame(WINDOW_UPDATE, 0, 0, b"\0\0\1"), FRAME_SIZE_ERROR),
    (frame(WINDOW_UPDATE, 0, 9, b"\0\0\0\1"), PROTOCOL_ERROR),
    (frame(GOAWAY, 0, 1, b"\0" * 8), PROTOCOL_ERROR),
    (frame(GOAWAY, 0, 0, b"\0" * 7), FRAME_SIZE_ERROR),
    (frame(PUSH_PROMISE, END_HEADERS, 1, b"\0\0\0\2"), PROTOCOL_ERROR),
    (frame(PRIORITY, 0, 0, b"\0" * 5), PROTOCOL_ERROR),
    (frame(HEADERS, END_HEADERS, 0, b""), PROTOCOL_ERROR),
    (frame(DATA, 0, 0, b""), PROTOCOL_ERROR),
    (frame(HEADERS, PADDED | END_HEADERS, 1, b""), FRAME_SIZE_ERROR),
    (frame(HEADERS, PADDED | END_HEADERS, 1, b"\x05abc"), PROTOCOL_ERROR),
    (frame(HEADERS, PRIORITY_FLAG | END_HEADERS, 1, b"\0\0"), FRAME_SIZE_ERROR),
])
def test_other_connection_errors(wire, code):
    _fails(_fresh(), wire, code)


def test_padded_data_errors():
    raw = _fresh()
    raw.send(frame(HEADERS, END_HEADERS, 1, raw.block(request_headers())))
    _fails(raw, frame(DATA, PADDED, 1, b"\x09abc"), PROTOCOL_ERROR)
    raw = _fresh()
    raw.send(frame(HEADERS, END_HEADERS, 1, raw.block(request_headers())))
    _fails(raw, frame(DATA, PADDED, 1, b""), FRAME_SIZE_ERROR)


def test_goaway_names_the_last_stream_and_earlier_requests_are_handed_out():
    raw = _fresh()
    block = raw.block(request_headers())
    got = raw.send(frame(HEADERS, END_HEADERS, 1, block) + frame(DATA, END_STREAM, 1,
                                                                 grpc_message(b"a"))
                   + frame(HEADERS, END_HEADERS, 4, block))
    assert [r[0] for r in got] == [1]
    assert goaway_of(raw.take())[0] == 1
    assert raw.server.respond(1, b"a") is False


# -- fuzz --------------------------------------------------------------------------------------

FRAME_KINDS = st.one_of(st.integers(0, 9), st.integers(10, 255))


@st.composite
def fuzz_frames(draw) -> bytes:
    kind = draw(FRAME_KINDS)
    flags = draw(st.sampled_from([0, END_STREAM, END_HEADERS, END_HEADERS | END_STREAM,
                                  PADDED | END_HEADERS, PRIORITY_FLAG | END_HEADERS])
                 | st.integers(0, 255))
    sid = draw(st.sampled_from([0, 1, 2, 3, 5, 0x7fffffff, 0xffffffff]) | st.integers(0, 99))
    mode = draw(st.integers(0, 3))
    if kind in (HEADERS, CONTINUATION) and mode == 0:
        encoder = hpack.Encoder()
        payload = encoder.encode(draw(st.sampled_from([
            request_headers(), request_headers(OTHER, ("grpc-timeout", "1S")),
            request_headers(content_type="text/plain"), [(":path", PATH)]])))
    elif kind == DATA and mode == 0:
        payload = grpc_message(draw(st.binary(max_size=40)))
    elif kind == SETTINGS and mode == 0:
        payload = b"".join(struct.pack(">HI", k, v) for k, v in draw(
            st.lists(st.tuples(st.integers(0, 8), st.integers(0, 0xffffffff)), max_size=4)))
    elif kind == WINDOW_UPDATE and mode == 0:
        payload = struct.pack(">I", draw(st.integers(0, 0xffffffff)))
    else:
        payload = draw(st.binary(max_size=64))
    length = None
    if mode == 3:
        length = draw(st.integers(0, 70) | st.sampled_from([16384, 16385, (1 << 24) - 1]))
    return frame(kind, flags, sid & 0xffffffff, payload, length)


def _check_output(server: ServerConnection) -> None:
    for f in parse_frames(server.take_output()):
        assert f.kind in (DATA, HEADERS, RST_STREAM, SETTINGS, PING, GOAWAY, WINDOW_UPDATE,
                          CONTINUATION)
        if f.kind != RST_STREAM:   # see test_bad_priority_on_a_stream_the_client_cannot_open
            assert f.sid % 2 == 1 or f.sid == 0, f    # only streams a client can open


def _feed(server: ServerConnection, chunks: list[bytes]) -> None:
    for i, chunk in enumerate(chunks):
        for sid, path, message, _authorization, timeout in server.receive(chunk):
            assert path in PATHS and isinstance(message, bytes)
            assert timeout >= -1
            if i % 3 == 0:
                server.respond(sid, message + b"!")
            elif i % 3 == 1:
                server.respond(sid, None, 3, "no " + message.hex(), message)
        _check_output(server)
        if server.closed:
            assert server.receive(chunk or b"x") == []
            assert not server.has_output
    server.goaway()
    _check_output(server)


def _still_serves() -> None:
    p = Pair()
    sid = p.start(b"after")
    assert p.pump()[0][2] == b"after"
    assert p.respond(sid, b"yes") and p.answers[sid].message == b"yes"


@pytest.fixture
def watchdog():
    """A hang in compiled code cannot be interrupted: dump the stacks and exit instead."""
    faulthandler.dump_traceback_later(120, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


FUZZ = settings(max_examples=300, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])


@FUZZ
@given(frames=st.lists(fuzz_frames(), max_size=12), split=st.integers(1, 64))
def test_fuzz_frame_sequences(watchdog, frames, split):
    server = ServerConnection(PATHS, 1024)
    server.take_output()
    wire = PREFACE + settings_frame() + b"".join(frames)
    _feed(server, [wire[i:i + split] for i in range(0, len(wire), split)])
    _still_serves()


@FUZZ
@given(data=st.binary(max_size=400), with_preface=st.booleans())
def test_fuzz_random_bytes(watchdog, data, with_preface):
    server = ServerConnection(PATHS, 1024)
    wire = (PREFACE + settings_frame() if with_preface else b"") + data
    _feed(server, [wire])
    server2 = ServerConnection(PATHS, 1024)
    _feed(server2, [wire[i:i + 7] for i in range(0, len(wire), 7)])
    _still_serves()


@FUZZ
@given(calls=st.lists(st.tuples(st.binary(max_size=300), st.integers(0, 3)), min_size=1,
                      max_size=8),
       window=st.integers(0, 200), increments=st.lists(st.integers(1, 150), max_size=30))
def test_fuzz_flow_control_delivers_every_answer_intact(watchdog, calls, window, increments):
    p = Pair(client_settings={h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: window})
    sids = [p.start(m) for m, _ in calls]
    p.pump()
    for sid, (message, how) in zip(sids, calls, strict=True):
        if how == 3:
            p.server.respond(sid, None, 9, "failed")
        else:
            p.server.respond(sid, message[::-1])
    p.pump()
    for i, inc in enumerate(increments):
        sid = sids[i % len(sids)]
        if not p.answers.get(sid, Answer()).ended:
            p.client.increment_flow_control_window(inc, sid)
            p.pump()
    for sid in sids:
        if not p.answers.get(sid, Answer()).ended:
            p.client.increment_flow_control_window(400, sid)
    p.pump()
    for sid, (message, how) in zip(sids, calls, strict=True):
        a = p.answers[sid]
        assert a.ended
        if how == 3:
            assert a.grpc_status == 9
        else:
            assert a.message == message[::-1] and a.grpc_status == 0
    assert p.server.active_streams == 0
