"""The API as a hostile client finds it: huge and deep JSON, a slow body and a slow head
(slowloris), a full server and the token, each with a well-behaved client beside it that keeps
getting answers. No timing is asserted: the slow cases wait for the server to act."""
from __future__ import annotations

import contextlib
import json
import socket
import threading

import pytest

from mjcore.web.app import WebConfig, json_depth

from .conftest import Served, reason

GOOD = {"hand": "123m456p789s1122z"}


@pytest.fixture
def strict():
    served = Served(WebConfig(port=0, max_in_flight=1, workers=1, body_seconds=0.5,
                              header_seconds=0.5, max_body=4096, token="s3cret"))
    yield served
    served.stop()


AUTH = {"Authorization": "Bearer s3cret"}


def well_behaved(web, headers=None):
    status, data = web.post("analyze", GOOD, headers=headers)
    assert status == 200, data
    assert data["shanten"]["shanten"] == 0


def test_json_depth_skips_strings():
    assert json_depth(b'{"a": [1, {"b": "[[[[{{{{"}]}') == 3
    assert json_depth(b'"\\"[["') == 0


def test_huge_body_is_refused(web):
    status, data = web.post("analyze", {"hand": "1m" * 100_000})
    assert status == 413 and reason(data) == "BODY_TOO_LARGE"
    well_behaved(web)


def test_huge_body_without_length_is_refused(web):
    """A chunked body (no Content-Length) is counted as it comes."""
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", web.port, timeout=30)
    try:
        conn.putrequest("POST", "/api/v1/analyze")
        conn.putheader("Content-Type", "application/json")
        conn.putheader("Transfer-Encoding", "chunked")
        conn.endheaders()
        chunk = b" " * 32768
        try:
            for _ in range(8):
                conn.send(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            conn.send(b"0\r\n\r\n")
        except OSError:
            pass    # the server may answer and close before the end
        res = conn.getresponse()
        assert res.status == 413
        assert json.loads(res.read())["error"]["details"][0]["reason"] == "BODY_TOO_LARGE"
    finally:
        conn.close()
    well_behaved(web)


def test_deep_json_is_refused_before_parsing(web):
    status, data = web.post("analyze", b"[" * 20_000 + b"]" * 20_000)
    assert status == 400 and reason(data) == "JSON_TOO_DEEP"
    well_behaved(web)


def test_many_values_are_refused(web):
    status, data = web.post("analyze", {"hand": "1m", "x": list(range(5000))})
    assert status == 400 and reason(data) == "TOO_MANY_VALUES"


@pytest.mark.parametrize("body", [b"{", b"[1]", b"\xff\xfe", b'{"hand": 3}'])
def test_bad_json_is_one_clear_error(web, body):
    status, data = web.post("analyze", body)
    assert status == 400
    assert reason(data) in ("BAD_JSON", "BAD_JSON_FIELD")
    assert data["error"]["message"]


def test_unknown_path_and_method(web):
    status, _h, data = web.call("GET", "/api/v1/nope")
    assert status == 404 and reason(data) == "NOT_FOUND"
    status, _h, data = web.call("GET", "/api/v1/analyze")
    assert status == 405 and reason(data) == "METHOD_NOT_ALLOWED"


def test_token(strict):
    status, data = strict.post("analyze", GOOD)
    assert status == 401 and reason(data) == "UNAUTHENTICATED"
    status, data = strict.post("analyze", GOOD, headers={"Authorization": "Bearer nope"})
    assert status == 401 and data["error"]["message"] == "invalid bearer token"
    well_behaved(strict, AUTH)
    # the page itself and its files are open (the page asks for the token)
    status, _h, _d = strict.call("GET", "/api/v1/health")
    assert status == 200


def test_a_full_server_answers_503_at_once(strict, monkeypatch):
    """With its one slot held, the next call is refused with Retry-After, not queued."""
    entered, release = threading.Event(), threading.Event()
    api = strict.api
    real = api.ev_work

    def held(body):
        entered.set()
        release.wait(30)
        return real(body)

    monkeypatch.setattr(api, "ev_work", held)
    result: dict = {}
    t = threading.Thread(target=lambda: result.update(
        first=strict.post("ev", GOOD, headers=AUTH)))
    t.start()
    assert entered.wait(30)
    status, headers, data = strict.call("POST", "/api/v1/analyze", GOOD, headers=AUTH)
    assert status == 503 and reason(data) == "OVERLOADED"
    assert headers["retry-after"] == "1"
    assert api.refused == 1
    release.set()
    t.join(30)
    assert result["first"][0] == 200
    well_behaved(strict, AUTH)


def _open_stalled(port, data):
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    s.sendall(data)
    return s


def test_slow_body_times_out(strict):
    head = (b"POST /api/v1/analyze HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer s3cret\r\n"
            b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"hand\":")
    s = _open_stalled(strict.port, head)
    try:
        well_behaved(strict, AUTH)      # answered while the slow one waits
        answer = b""
        while chunk := s.recv(65536):   # the server gives up on the body, answers, closes
            answer += chunk
        assert answer.startswith(b"HTTP/1.1 408")
        assert b"BODY_TIMEOUT" in answer
    finally:
        s.close()


def test_slowloris_heads_are_closed(strict):
    stalled = [_open_stalled(strict.port, b"POST /api/v1/analyze HTTP/1.1\r\nHost: x\r\n")
               for _ in range(20)]
    try:
        well_behaved(strict, AUTH)
        for s in stalled:
            assert s.recv(1024) == b""     # closed by the server, no answer
    finally:
        for s in stalled:
            s.close()
    well_behaved(strict, AUTH)


def test_flood_of_calls_keeps_answering(web):
    """Many clients at once: each gets an answer (200, or 503 or 429 with Retry-After), none
    hangs."""
    out = []
    lock = threading.Lock()

    def client():
        for _ in range(5):
            status, headers, _d = web.call("POST", "/api/v1/ev",
                                           {"hand": "23m456p789s11223z4p"})
            with lock:
                out.append((status, headers.get("retry-after")))

    threads = [threading.Thread(target=client) for _ in range(24)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert len(out) == 120
    assert all(s == 200 or (s in (429, 503) and r is not None and int(r) >= 1)
               for s, r in out)
    assert any(s == 200 for s, _r in out)
    well_behaved(web)


def test_a_connection_flood_gets_503_with_retry_after():
    served = Served(WebConfig(port=0, max_connections=8, header_seconds=30))
    stalled = [_open_stalled(served.port, b"GET / HTTP/1.1\r\n") for _ in range(8)]
    try:
        status, headers, data = served.call("POST", "/api/v1/analyze", GOOD)
        assert status == 503 and reason(data) == "OVERLOADED"
        assert headers["Retry-After"] == "1"
    finally:
        for s in stalled:
            s.close()
    # the stalled ones gone, the server answers again (it notices the closes first)
    for _ in range(200):
        status, _h, _d = served.call("POST", "/api/v1/analyze", GOOD)
        if status == 200:
            break
        threading.Event().wait(0.05)
    assert status == 200
    served.stop()


def test_a_huge_request_head_is_refused(web):
    s = socket.create_connection(("127.0.0.1", web.port), timeout=30)
    try:
        with contextlib.suppress(OSError):   # the server may close before reading it all
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 200_000 + b"\r\n\r\n")
        answer = b""
        with contextlib.suppress(ConnectionResetError):
            while chunk := s.recv(65536):
                answer += chunk
        assert answer == b"" or answer.startswith(b"HTTP/1.1 4")
    finally:
        s.close()
    well_behaved(web)


def _post_from(source: str, port: int, path: str, body: dict) -> tuple[int, dict, dict]:
    """POST from the loopback address ``source`` (another client host than 127.0.0.1)."""
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60,
                                      source_address=(source, 0))
    try:
        conn.request("POST", path, body=json.dumps(body),
                     headers={"Content-Type": "application/json"})
        res = conn.getresponse()
        return res.status, dict(res.getheaders()), json.loads(res.read())
    finally:
        conn.close()


def test_a_flood_from_one_host_leaves_room_for_the_others(monkeypatch):
    """One host holds at most max_in_flight_per_host calls; its further calls are refused at
    once (429, Retry-After) while another host's calls, a well-behaved client's, answer."""
    served = Served(WebConfig(port=0, max_in_flight=4, max_in_flight_per_host=2, workers=4))
    try:
        api = served.api
        real = api.bridge.call
        release = threading.Event()
        slow = {"hand": "123m456p789s1122z", "visible": "1z"}

        def held(method, body, *args, **kwargs):
            if body == slow:
                release.wait(30)
            return real(method, body, *args, **kwargs)

        monkeypatch.setattr(api.bridge, "call", held)
        results: list = []
        flood = [threading.Thread(target=lambda: results.append(
            _post_from("127.0.0.2", served.port, "/api/v1/analyze", slow))) for _ in range(5)]
        for t in flood:
            t.start()
        while len(results) < 3:             # three refused; two held in their slots
            threading.Event().wait(0.01)
        assert api.in_flight_by_host == {"127.0.0.2": 2}
        for status, headers, data in results:
            assert status == 429 and reason(data) == "TOO_MANY_CALLS", data
            assert headers["retry-after"] == "1"
            assert data["error"]["details"][0]["metadata"]["limit"] == "2"
        for _ in range(3):
            well_behaved(served)            # 127.0.0.1, beside the flood
        release.set()
        for t in flood:
            t.join(30)
        assert sorted(r[0] for r in results) == [200, 200, 429, 429, 429]
        assert api.in_flight_by_host == {}
        assert _post_from("127.0.0.2", served.port, "/api/v1/analyze", GOOD)[0] == 200
    finally:
        served.stop()
