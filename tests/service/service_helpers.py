"""Helpers shared by the service tests (a uniquely named module, importable from any test)."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import numpy as np

from mjcore.client import Client
from mjcore.errors import BatchError
from mjcore.service import ServerConfig, build, build_server

TOKEN = "s3cret-token"

Partial = TypeVar("Partial")


def random_counts(n: int, tiles: int, seed: int) -> np.ndarray:
    """``n`` hands of ``tiles`` tiles, each drawn from a shuffled 136-tile wall."""
    rng = np.random.default_rng(seed)
    ids = rng.random((n, 136)).argsort(axis=1)[:, :tiles] // 4
    counts = np.zeros((n, 34), dtype=np.uint8)
    np.add.at(counts, (np.repeat(np.arange(n), tiles), ids.ravel()), 1)
    return counts


def partial_of(err: BatchError, kind: type[Partial]) -> Partial:
    """The good rows a BatchError carries (``err.partial``), checked to be a ``kind``."""
    assert isinstance(err.partial, kind), type(err.partial)
    return err.partial


def start(config: ServerConfig):
    server, port = build_server(config)
    server.start()
    return server, port


@contextmanager
def port_clients(server: Any, **options: Any) -> Iterator[tuple[Client, Client]]:
    """Two clients of ``server``: one on its gRPC port (with ``options``), one that sends its
    unary calls to the unary front. Closed on leaving."""
    main = Client(f"127.0.0.1:{server.port}", timeout=30, **options)
    front = Client(f"127.0.0.1:{server.port}", timeout=30,
                   unary_target=f"127.0.0.1:{server.unary_port}")
    try:
        yield main, front
    finally:
        main.close()
        front.close()


@contextmanager
def serving(**settings: Any) -> Iterator[Any]:
    """A started server with both ports (gRPC and the unary front) on free ports, no drain
    time; ``settings``: more ServerConfig fields. Shut down on leaving."""
    server = build(ServerConfig(**{"port": 0, "unary_port": 0, "drain": 0, "grace": 2,
                                   **settings}))
    server.start()
    try:
        yield server
    finally:
        server.shutdown(0, 0)


def refused_on_both_ports(server: Any, method: str, request: Any, reason: str,
                          field: str) -> list[str]:
    """Call ``method`` (a HandAnalysisService method name) with ``request`` on the main port
    and the unary front of ``server``; each must answer INVALID_ARGUMENT with ErrorInfo
    ``reason`` on ``field``. Returns the two details messages."""
    import grpc

    from mjcore.wire.status import error_info
    from mjcore.wire.v1 import analysis_service_pb2_grpc as pb_grpc

    details = []
    for port in (server.port, server.unary_port):
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            try:
                getattr(pb_grpc.HandAnalysisServiceStub(channel), method)(request, timeout=10)
            except grpc.RpcError as err:
                info = error_info(err)
                assert err.code() == grpc.StatusCode.INVALID_ARGUMENT and info is not None
                assert (info.reason, info.metadata["field"]) == (reason, field)
                details.append(err.details())
            else:
                raise AssertionError(f"{method} on port {port} was answered")
    return details
