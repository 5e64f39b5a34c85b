"""``mjcore web``: prints its address when ready, serves, takes a token, stops on SIGTERM with
status 0, and says so in one line when it cannot listen."""
from __future__ import annotations

import http.client
import json
import signal
import subprocess
import sys

import pytest

pytest.importorskip("starlette", reason="the web extra (starlette) is not installed")
pytest.importorskip("uvicorn", reason="the web extra (uvicorn) is not installed")


def _start(*args, cwd=None):
    return subprocess.Popen([sys.executable, "-m", "mjcore.cli", "web", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd)


def _get(port, path, headers=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("POST" if path.endswith("analyze") else "GET", path,
                     body=json.dumps({"hand": "123m456p789s1122z"}), headers=headers or {})
        res = conn.getresponse()
        return res.status, res.read()
    finally:
        conn.close()


def test_web_prints_its_address_serves_and_stops(tmp_path):
    token = tmp_path / "token.txt"
    token.write_text("t0ken\n")
    proc = _start("--port", "0", "--token-file", str(token))
    try:
        line = proc.stdout.readline()
        assert line.startswith("mjcore web: http://127.0.0.1:"), (line, proc.stderr.read())
        assert "token required" in line
        port = int(line.split("http://127.0.0.1:")[1].split("/")[0])
        status, page = _get(port, "/")
        assert status == 200 and b"mjcore" in page
        assert _get(port, "/api/v1/analyze")[0] == 401
        status, body = _get(port, "/api/v1/analyze", {"Authorization": "Bearer t0ken"})
        assert status == 200 and json.loads(body)["shanten"]["shanten"] == 0
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0
        proc.stdout.close()
        proc.stderr.close()


def test_web_on_a_port_in_use_is_one_line():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        proc = _start("--port", str(port))
        _out, err = proc.communicate(timeout=60)
    assert proc.returncode != 0
    assert "Traceback" not in err
    assert "address already in use" in err and str(port) in err
    assert len(err.strip().splitlines()) == 1, err
