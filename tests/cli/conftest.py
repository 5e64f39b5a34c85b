"""Fixtures of the command tests: a gRPC server in this process (the Tenhou records and their
tables, and Bradfield's archive unpacked, are in tests/conftest.py)."""
from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(scope="module")
def plain_server() -> Iterator[tuple[object, int]]:
    """A started server on a free port (the same as the service tests' ``plain_server``)."""
    from mjcore.service import ServerConfig, build_server

    server, port = build_server(ServerConfig(port=0, max_batch=5000, workers=8))
    server.start()
    yield server, port
    server.stop(0).wait()
