"""The compiled HTTP/2 connection's defences (issue 11), sans-IO: request header validation
(RFC 9113 sections 8.2 and 8.3), duplicate headers, the buffer budget as flow-control window,
late requests, strike counting, header-block and SETTINGS floods."""
from __future__ import annotations

import struct

import pytest

from .test_http2_connection import (
    CONTINUATION,
    DATA,
    END_HEADERS,
    END_STREAM,
    ENHANCE_YOUR_CALM,
    HEADERS,
    PATH,
    PING,
    PROTOCOL_ERROR,
    REFUSED_STREAM,
    RST_STREAM,
    SETTINGS,
    WINDOW_UPDATE,
    RawClient,
    frame,
    goaway_of,
    grpc_message,
    parse_frames,
    request_headers,
)

BASE = request_headers()


def _without(name: str) -> list[tuple[str, str]]:
    return [(k, v) for k, v in BASE if k != name]


MALFORMED = {
    "upper-case name": BASE + [("X-Trace", "1")],
    "unknown pseudo-header": BASE[:1] + [(":bogus", "x")] + BASE[1:],
    "response pseudo-header": BASE[:1] + [(":status", "200")] + BASE[1:],
    "pseudo-header after a regular field": BASE + [(":authority", "late")],
    "connection header": BASE + [("connection", "keep-alive")],
    "transfer-encoding": BASE + [("transfer-encoding", "chunked")],
    "upgrade": BASE + [("upgrade", "h2c")],
    "te other than trailers": _without("te") + [("te", "gzip")],
    "second :path": BASE[:3] + [(":path", PATH)] + BASE[3:],
    "second :method": BASE[:1] + [(":method", "POST")] + BASE[1:],
    "no :scheme": _without(":scheme"),
    "no :method": _without(":method"),
    "empty :path": [(k, "" if k == ":path" else v) for k, v in BASE],
    "value with a newline": BASE + [("x-note", "a\nb")],
    "value with trailing space": BASE + [("x-note", "a ")],
    "second content-type": BASE + [("content-type", "application/grpc")],
    "second grpc-timeout": BASE + [("grpc-timeout", "1S"), ("grpc-timeout", "2S")],
    "content-length not a number": BASE + [("content-length", "ten")],
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_requests_are_reset_and_the_connection_goes_on(case):
    raw = RawClient()
    assert raw.call(1, b"x", headers=MALFORMED[case]) == []
    assert raw.resets(1) == [PROTOCOL_ERROR], case
    assert not raw.server.closed and raw.server.strikes >= 1
    assert raw.call(3, b"ok") == [(3, PATH.encode(), b"ok", None, -1)]


def test_content_length_must_match_the_data():
    raw = RawClient()
    body = grpc_message(b"abc")
    assert raw.call(1, headers=BASE + [("content-length", str(len(body) + 1))], body=body) == []
    assert raw.resets(1) == [PROTOCOL_ERROR]
    assert raw.call(3, headers=BASE + [("content-length", "2")], body=body) == []
    assert raw.resets(3) == [PROTOCOL_ERROR]
    assert raw.call(5, headers=BASE + [("content-length", str(len(body)))], body=body) == \
        [(5, PATH.encode(), b"abc", None, -1)]


def test_pseudo_header_in_trailers_resets_the_stream():
    raw = RawClient()
    raw.send(frame(HEADERS, END_HEADERS, 1, raw.block(BASE))
             + frame(DATA, 0, 1, grpc_message(b"x")))
    assert raw.send(frame(HEADERS, END_HEADERS | END_STREAM, 1,
                          raw.block([(":path", PATH)]))) == []
    assert raw.resets(1) == [PROTOCOL_ERROR]


def test_duplicate_authorization_is_unauthenticated():
    raw = RawClient()
    headers = BASE + [("authorization", "Bearer a"), ("authorization", "Bearer b")]
    assert raw.call(1, b"x", headers=headers) == []
    assert raw.status_of(1) == (16, "duplicate authorization header")


def test_unknown_path_is_quoted_short():
    raw = RawClient()
    assert raw.call(1, headers=request_headers("/" + "p" * 200)) == []
    status, message = raw.status_of(1)
    assert status == 12 and len(message) < 120 and "..." in message


# -- buffer budget --------------------------------------------------------------------------

def _windows(frames) -> tuple[int, int]:
    """(connection window, initial stream window) the server granted in its preface."""
    stream = 65535
    connection = 65535
    for f in frames:
        if f.kind == SETTINGS and not f.flags & 1:
            values = dict(struct.unpack(">HI", f.payload[i:i + 6])
                          for i in range(0, len(f.payload), 6))
            stream = values.get(4, stream)
        if f.kind == WINDOW_UPDATE and f.sid == 0:
            connection += struct.unpack(">I", f.payload)[0]
    return connection, stream


def test_windows_are_the_buffer_budget_and_come_back_only_as_bytes_leave():
    raw = RawClient(10_000, max_streams=8, connection_window=100_000)
    server = raw.server
    connection, stream = _windows(raw.take())
    assert stream == 10_006 and connection == 100_000
    # 8 unfinished requests of 10,000 bytes each: held, and no window comes back for them
    for sid in range(1, 17, 2):
        raw.send(frame(HEADERS, END_HEADERS, sid, raw.block(BASE))
                 + frame(DATA, 0, sid, grpc_message(b"a" * 10_000)[:10_000]))
    assert server.buffered == 80_000
    assert not [f for f in raw.take() if f.kind == WINDOW_UPDATE]
    # a ninth stream is over MAX_CONCURRENT_STREAMS
    raw.send(frame(HEADERS, END_HEADERS, 17, raw.block(BASE)))
    assert raw.resets(17) == [REFUSED_STREAM]
    # a stream never gets more than one message: one byte past it is RESOURCE_EXHAUSTED
    raw.send(frame(DATA, 0, 1, b"a" * 6))
    assert raw.status_of(1)[0] == 8
    assert server.buffered == 70_000
    # shed: every unfinished request refused, every byte released and given back
    raw.take()
    assert server.shed() == 70_000 and server.buffered == 0
    raw.frames += parse_frames(server.take_output())
    assert all(raw.resets(sid)[-1] == REFUSED_STREAM for sid in range(3, 17, 2))
    given_back = sum(struct.unpack(">I", f.payload)[0] for f in raw.take()
                     if f.kind == WINDOW_UPDATE and f.sid == 0)
    assert given_back >= 70_000


def test_late_requests_expire_with_deadline_exceeded():
    raw = RawClient()
    raw.server.receive(frame(HEADERS, END_HEADERS, 1, raw.block(BASE)), 100.0)
    raw.server.receive(frame(HEADERS, END_HEADERS, 3, raw.block(BASE)), 105.0)
    raw.frames += parse_frames(raw.server.take_output())
    assert raw.server.expire(101.0) == 1
    raw.frames += parse_frames(raw.server.take_output())
    assert raw.status_of(1)[0] == 4 and raw.resets(1) == [0x8]
    assert raw.server.active_streams == 1
    assert raw.send(frame(DATA, END_STREAM, 3, grpc_message(b"x"))) == \
        [(3, PATH.encode(), b"x", None, -1)]


# -- floods -----------------------------------------------------------------------------------

def test_rapid_reset_is_counted():
    raw = RawClient()
    for sid in range(1, 201, 2):
        raw.send(frame(HEADERS, END_HEADERS, sid, raw.block(BASE))
                 + frame(RST_STREAM, 0, sid, struct.pack(">I", 8)))
    assert raw.server.strikes >= 100 and raw.server.active_streams == 0
    raw.server.calm("test")
    raw.send(b"")
    assert goaway_of(raw.take())[1] == ENHANCE_YOUR_CALM


def test_endless_continuation_frames_end_the_connection():
    raw = RawClient()
    block = raw.block(BASE)
    data = frame(HEADERS, 0, 1, block[:3])
    data += b"".join(frame(CONTINUATION, 0, 1, b"") for _ in range(100))
    raw.send(data)
    assert raw.server.closed
    assert goaway_of(raw.take())[1] == ENHANCE_YOUR_CALM


def test_header_block_open_is_visible():
    raw = RawClient()
    raw.send(frame(HEADERS, 0, 1, raw.block(BASE)[:4]))
    assert raw.server.header_pending
    raw.send(frame(CONTINUATION, END_HEADERS, 1, raw.block([])))
    assert not raw.server.header_pending


def test_settings_with_thousands_of_window_entries_apply_once():
    raw = RawClient()
    for sid in range(1, 33, 2):
        raw.send(frame(HEADERS, END_HEADERS, sid, raw.block(BASE)))
    entries = b"".join(struct.pack(">HI", 4, v) for v in range(1, 2700)) + \
        struct.pack(">HI", 4, 70_000)
    raw.send(frame(SETTINGS, 0, 0, entries))
    assert not raw.server.closed and raw.server.strikes >= 1
    # the last value counts: a 70,000-byte answer fits the stream window without waiting
    raw.send(frame(DATA, END_STREAM, 1, grpc_message(b"x")))
    raw.send(frame(WINDOW_UPDATE, 0, 0, struct.pack(">I", 1 << 20)))
    assert raw.server.respond(1, b"z" * 60_000)
    raw.send(b"")
    sent = sum(len(f.payload) for f in raw.take() if f.kind == DATA and f.sid == 1)
    assert sent == 60_005


def test_keepalive_ping_is_a_ping():
    raw = RawClient()
    raw.server.ping()
    raw.send(b"")
    frames = raw.take() + parse_frames(raw.server.take_output())
    assert [f for f in frames if f.kind == PING and not f.flags & 1]

