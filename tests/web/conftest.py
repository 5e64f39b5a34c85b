"""A real ``mjcore web`` server (uvicorn on a free loopback port, in a thread) for the API and
browser tests, and the shipped records they review."""
from __future__ import annotations

import http.client
import json
import os
import tarfile
import threading
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra (starlette) is not installed")
pytest.importorskip("uvicorn", reason="the web extra (uvicorn) is not installed")

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"
MJLOG_MEMBER = "thewaxmango-mahjong-hands/logs/2022010503gm-00a9-0000-626f3911.txt"
MJS_MEMBER = "game-1/hand-01.mjs"
SANMA_MEMBER = "thewaxmango-mahjong-hands/logs/2022011115gm-00b9-0000-44852807.txt"


class Served:
    """A running server: ``port``, ``api`` (its Api object) and ``call`` for one request."""

    def __init__(self, config: Any) -> None:
        from mjcore.web.app import server, wait_started

        self.server = server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        self.port = wait_started(self.server)
        self.api = self.server.config.app.state.api

    def call(self, method: str, path: str, body: Any = None, headers: dict | None = None,
             timeout: float = 60.0) -> tuple[int, dict[str, str], Any]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            data = body if isinstance(body, bytes) or body is None else \
                json.dumps(body).encode()
            conn.request(method, path, body=data, headers={
                "Content-Type": "application/json", **(headers or {})})
            res = conn.getresponse()
            raw = res.read()
            return res.status, dict(res.getheaders()), json.loads(raw) if raw else None
        finally:
            conn.close()

    def post(self, path: str, body: Any, **kw: Any) -> tuple[int, Any]:
        status, _headers, data = self.call("POST", "/api/v1/" + path, body, **kw)
        return status, data

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)


@pytest.fixture(scope="module")
def web():
    from mjcore.web.app import WebConfig

    served = Served(WebConfig(port=0))
    yield served
    served.stop()


def _member(archive: Path, name: str) -> str:
    if not archive.exists():
        if os.environ.get("CI"):
            pytest.fail(f"CI run without {archive}")
        pytest.skip(f"{archive} not found")
    with tarfile.open(archive) as tar:
        f = tar.extractfile(name)
        assert f is not None
        return f.read().decode("utf-8")


@pytest.fixture(scope="session")
def mjlog_text() -> str:
    """A shipped Tenhou record (four players, ten hands)."""
    return _member(SHARED / "tenhou" / "mjlog.tar.xz", MJLOG_MEMBER)


@pytest.fixture(scope="session")
def sanma_text() -> str:
    """A shipped three-player Tenhou record."""
    return _member(SHARED / "tenhou" / "mjlog.tar.xz", SANMA_MEMBER)


@pytest.fixture(scope="session")
def mjs_text() -> str:
    """A shipped Bradfield hand history."""
    return _member(SHARED / "classical" / "bradfield-games.tar.xz", MJS_MEMBER)


def reason(data: dict) -> str:
    return data["error"]["details"][0]["reason"]


def field(data: dict) -> str | None:
    return data["error"]["details"][0]["metadata"].get("field")
