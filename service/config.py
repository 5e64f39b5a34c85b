"""Server settings. Every field has a ``mjcore serve`` flag and an ``MJCORE_*`` variable."""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

DEFAULT_PORT = 50051
DEFAULT_MAX_MESSAGE_SIZE = 64 * 1024 * 1024
DEFAULT_MAX_BATCH = 1 << 20


@dataclass(frozen=True)
class ServerConfig:
    """How to run the service.

    ``host`` defaults to loopback: exposing the service is an explicit choice (``0.0.0.0``).
    ``port`` 0 picks a free port (tests). ``token`` enables bearer-token auth; ``tls_cert`` with
    ``tls_key`` enables TLS, and ``client_ca`` on top of them requires client certificates.
    ``kernel_threads`` is the ``n_threads`` of each batch kernel call. On shutdown, health
    reports NOT_SERVING for ``drain`` seconds, then in-flight RPCs get ``grace`` seconds.
    ``processes`` > 1 (Linux only) runs that many server processes sharing the port through
    SO_REUSEPORT; with 1 the port is bound without it, so a port in use is an error.
    ``unary_port`` (None: off) also serves the unary RPCs and health Check on that port through
    the compiled HTTP/2 front (``unary_front.py``), with the same TLS and token.
    """

    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    workers: int = max(8, 4 * (os.cpu_count() or 1))
    max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE
    max_batch: int = DEFAULT_MAX_BATCH
    tls_cert: Path | None = None
    tls_key: Path | None = None
    client_ca: Path | None = None
    token: str | None = None
    kernel_threads: int = 1
    grace: float = 10.0
    drain: float = 1.0
    processes: int = 1
    unary_port: int | None = None

    def __post_init__(self) -> None:
        if not 0 <= self.port <= 65535:
            raise ValueError(f"port {self.port}: expected 0..65535")
        if self.workers < 1:
            raise ValueError(f"workers {self.workers}: expected at least 1")
        if self.max_message_size < 1024:
            raise ValueError(f"max_message_size {self.max_message_size}: expected >= 1024")
        if self.max_batch < 1:
            raise ValueError(f"max_batch {self.max_batch}: expected at least 1")
        if (self.tls_cert is None) != (self.tls_key is None):
            raise ValueError("tls_cert and tls_key go together")
        if self.client_ca is not None and self.tls_cert is None:
            raise ValueError("client_ca (mutual TLS) needs tls_cert and tls_key")
        if self.token is not None and not self.token:
            raise ValueError("empty token")
        if self.kernel_threads < 1:
            raise ValueError(f"kernel_threads {self.kernel_threads}: expected at least 1")
        if self.processes < 1:
            raise ValueError(f"processes {self.processes}: expected at least 1")
        if self.unary_port is not None:
            if not 0 <= self.unary_port <= 65535:
                raise ValueError(f"unary_port {self.unary_port}: expected 0..65535")
            if self.processes > 1 and self.unary_port == 0:
                raise ValueError("with processes > 1 the unary port must be a fixed port")
            if self.unary_port != 0 and self.unary_port == self.port:
                raise ValueError(f"unary_port {self.unary_port} is the main port")
            if not sys.platform.startswith("linux"):
                raise ValueError("the unary front needs Linux (epoll)")
        if self.processes > 1 and not sys.platform.startswith("linux"):
            raise ValueError("processes > 1 needs Linux (SO_REUSEPORT spreads connections)")

    @property
    def address(self) -> str:
        host = f"[{self.host}]" if ":" in self.host and not self.host.startswith("[") else self.host
        return f"{host}:{self.port}"


def read_token_file(path: str | Path) -> str:
    """The bearer token: the file's first line, stripped."""
    text = Path(path).read_text(encoding="utf-8").strip()
    token = text.splitlines()[0].strip() if text else ""
    if not token:
        raise ValueError(f"token file {path} is empty")
    return token
