"""Fixtures for the gRPC service tests: in-process servers on port 0, clients, certificates."""
from __future__ import annotations

import gc
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from mjcore.client import Client
from mjcore.service import ServerConfig

from .service_helpers import serving, start


@pytest.fixture(autouse=True)
def _older_objects_frozen() -> Iterator[None]:
    """The servers under test run in this process, so one full garbage collection of all the
    suite's objects (3.1 M objects, 1.5-1.8 s each late in `make test`, measured) would stall
    them past the bystanders' 2 s deadlines. The objects older than the test are kept out of
    the collections while it runs."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


@pytest.fixture(scope="module")
def two_ports() -> Iterator[object]:
    """A started server with both ports (gRPC and the unary front), four workers."""
    with serving(workers=4) as server:
        yield server


@pytest.fixture(scope="module")
def plain_server() -> Iterator[tuple[object, int]]:
    server, port = start(ServerConfig(port=0, max_batch=5000, workers=8))
    yield server, port
    server.stop(0).wait()


@pytest.fixture(scope="module")
def client(plain_server) -> Iterator[Client]:
    _, port = plain_server
    with Client(f"127.0.0.1:{port}", timeout=30, batch_size=1000) as c:
        yield c


@pytest.fixture(scope="module")
def stub(client):
    return client._stub


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="session")
def certs(tmp_path_factory) -> dict[str, Path]:
    """A throwaway CA, a server certificate for localhost/127.0.0.1 and a client certificate
    (openssl CLI; the `cryptography` package is not a dependency)."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl CLI not available")
    d = tmp_path_factory.mktemp("certs")
    (d / "san.ext").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
             "/CN=mjcore test CA", "-keyout", "ca.key", "-out", "ca.pem", cwd=d)
    for name in ("server", "client"):
        _openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={name}",
                 "-keyout", f"{name}.key", "-out", f"{name}.csr", cwd=d)
        _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                 "-CAcreateserial", "-days", "2", "-extfile", "san.ext", "-out", f"{name}.pem",
                 cwd=d)
    # a second CA that signed nothing the server trusts
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
             "/CN=other CA", "-keyout", "other.key", "-out", "other.pem", cwd=d)
    return {p.stem if p.suffix == ".pem" else p.name: p for p in d.iterdir()}
