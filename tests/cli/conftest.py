"""Fixtures of the command tests: the Bradfield archive and its games unpacked once, and a
gRPC server in this process (the Tenhou records and their tables are in tests/conftest.py)."""
from __future__ import annotations

import os
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest

ARCHIVE = Path(__file__).resolve().parents[3] / "shared" / "data" / "classical" / \
    "bradfield-games.tar.xz"


def need_archive() -> Path:
    if not ARCHIVE.exists():
        if os.environ.get("CI"):
            pytest.fail(f"CI run without the Bradfield archive at {ARCHIVE}")
        pytest.skip("no Bradfield archive")
    return ARCHIVE


@pytest.fixture(scope="session")
def bradfield_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The whole archive unpacked into a temporary folder (one pass over the .tar.xz)."""
    archive = need_archive()
    out = tmp_path_factory.mktemp("bradfield")
    with tarfile.open(archive, "r|*") as tar:
        for m in tar:
            if m.isfile() and ".." not in m.name and not m.name.startswith("/"):
                f = tar.extractfile(m)
                if f is not None:
                    dest = out / m.name
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    dest.write_bytes(f.read())
    return out


@pytest.fixture(scope="module")
def plain_server() -> Iterator[tuple[object, int]]:
    """A started server on a free port (the same as the service tests' ``plain_server``)."""
    from mjcore.service import ServerConfig, build_server

    server, port = build_server(ServerConfig(port=0, max_batch=5000, workers=8))
    server.start()
    yield server, port
    server.stop(0).wait()
