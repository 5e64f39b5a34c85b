"""Server settings. Every field has a ``mjcore serve`` flag and an ``MJCORE_*`` variable."""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

DEFAULT_PORT = 50051
# the largest bulk message at the client's default batch of 65,536 hands is 13.1 MB (a
# StreamScoreClassical batch, 200 bytes a deal; StreamScore's answer with details is 10 MB):
# 16 MiB takes it, and bounds what waiting calls may buffer (service/README.md, "Limits")
DEFAULT_MAX_MESSAGE_SIZE = 16 * 1024 * 1024
DEFAULT_MAX_BATCH = 1 << 18
DEFAULT_UNARY_MAX_MESSAGE_SIZE = 64 * 1024


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
    the compiled HTTP/2 front (``front/server.py``), with the same TLS and token.

    Limits against misbehaving clients (service/README.md, "Limits"; seconds and bytes):
    ``unary_max_message_size`` is the largest unary request (bulk streams keep
    ``max_message_size``, which also caps it); ``receive_timeout`` is how long a call may take
    to send its request message, ``stream_timeout`` how long a bulk stream may take to send
    each batch (or end); while more than ``max_receiving`` main-port calls wait for a message
    (each may buffer up to ``max_message_size`` meanwhile), or more than
    ``max_receiving_per_peer`` of one peer host, the oldest waits (of that peer) are ended
    once they are 0.5 s old; ``max_concurrent_calls`` bounds the main port's calls (waiting,
    running and queued), ``max_calls_per_peer`` those of one peer host (more are refused);
    a per-peer share larger than its whole applies as the whole (``peer_shares``);
    ``max_streams_per_connection`` and ``max_connections`` apply to each port;
    ``handshake_timeout`` covers the TLS handshake and the HTTP/2 preface; a connection with
    no call for ``idle_timeout`` is closed; ``keepalive_interval`` without a byte from the
    peer sends a PING, unanswered after ``keepalive_timeout`` the connection is closed;
    ``max_connection_age`` (main port) closes connections after that long, with
    ``max_connection_age_grace`` for their calls; on the front a header block must finish
    within ``header_timeout``, a peer that takes no answer bytes for ``write_timeout`` is
    dropped, request bytes buffered are capped per connection (``connection_buffer``) and
    per process (``process_buffer``), and more than ``calm_limit`` resets, error-only
    streams and control frames in 10 s end the connection with GOAWAY ENHANCE_YOUR_CALM.
    ``reflection`` False leaves server reflection out. ExpectedValues runs in a pool of
    ``ev_workers`` threads shared by both ports, with at most ``ev_queue`` more calls waiting
    (more are RESOURCE_EXHAUSTED at once); a search takes at most ``ev_max_seconds`` (less
    when the call's deadline is nearer) and ``ev_max_nodes`` nodes (about 220 bytes each).
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
    unary_max_message_size: int = DEFAULT_UNARY_MAX_MESSAGE_SIZE
    receive_timeout: float = 10.0
    stream_timeout: float = 120.0
    max_receiving: int = 16
    max_receiving_per_peer: int = 4
    max_concurrent_calls: int = 1024
    max_calls_per_peer: int = 256
    max_streams_per_connection: int = 100
    max_connections: int = 1024
    handshake_timeout: float = 10.0
    idle_timeout: float = 300.0
    keepalive_interval: float = 60.0
    keepalive_timeout: float = 20.0
    max_connection_age: float = 3600.0
    max_connection_age_grace: float = 60.0
    header_timeout: float = 10.0
    write_timeout: float = 30.0
    connection_buffer: int = 1024 * 1024
    process_buffer: int = 64 * 1024 * 1024
    calm_limit: int = 1000
    reflection: bool = True
    ev_workers: int = max(1, os.cpu_count() or 1)
    ev_queue: int = 4 * max(1, os.cpu_count() or 1)
    ev_max_seconds: float = 5.0
    ev_max_nodes: int = 2_000_000

    def __post_init__(self) -> None:
        self._check_sizes()
        self._check_security()
        self._check_processes_and_front()
        self._check_timeouts()
        self._check_ev()
        self._check_call_limits()
        if self.processes > 1 and not sys.platform.startswith("linux"):
            raise ValueError("processes > 1 needs Linux (SO_REUSEPORT spreads connections)")

    def _check_sizes(self) -> None:
        if not 0 <= self.port <= 65535:
            raise ValueError(f"port {self.port}: expected 0..65535")
        if self.workers < 1:
            raise ValueError(f"workers {self.workers}: expected at least 1")
        if self.max_message_size < 1024:
            raise ValueError(f"max_message_size {self.max_message_size}: expected >= 1024")
        if self.max_batch < 1:
            raise ValueError(f"max_batch {self.max_batch}: expected at least 1")

    def _check_security(self) -> None:
        if (self.tls_cert is None) != (self.tls_key is None):
            raise ValueError("tls_cert and tls_key go together")
        if self.client_ca is not None and self.tls_cert is None:
            raise ValueError("client_ca (mutual TLS) needs tls_cert and tls_key")
        if self.token is not None and not self.token:
            raise ValueError("empty token")

    def _check_processes_and_front(self) -> None:
        """The kernel threads and processes, then the unary port and its message size."""
        if self.kernel_threads < 1:
            raise ValueError(f"kernel_threads {self.kernel_threads}: expected at least 1")
        if self.processes < 1:
            raise ValueError(f"processes {self.processes}: expected at least 1")
        if self.unary_port is not None:
            self._check_unary_port(self.unary_port)
        if self.unary_max_message_size < 1024:
            raise ValueError(f"unary_max_message_size {self.unary_max_message_size}: expected "
                             ">= 1024")

    def _check_unary_port(self, unary_port: int) -> None:
        if not 0 <= unary_port <= 65535:
            raise ValueError(f"unary_port {unary_port}: expected 0..65535")
        if self.processes > 1 and unary_port == 0:
            raise ValueError("with processes > 1 the unary port must be a fixed port")
        if unary_port != 0 and unary_port == self.port:
            raise ValueError(f"unary_port {unary_port} is the main port")
        if not sys.platform.startswith("linux"):
            raise ValueError("the unary front needs Linux (epoll)")

    def _check_timeouts(self) -> None:
        for name in ("receive_timeout", "stream_timeout", "handshake_timeout", "idle_timeout",
                     "keepalive_interval", "keepalive_timeout", "max_connection_age",
                     "max_connection_age_grace", "header_timeout", "write_timeout"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} {getattr(self, name)}: expected seconds > 0")

    def _check_ev(self) -> None:
        if self.ev_queue < 0:
            raise ValueError(f"ev_queue {self.ev_queue}: expected at least 0")
        if not 0 < self.ev_max_seconds <= 600:
            raise ValueError(f"ev_max_seconds {self.ev_max_seconds}: expected 0 < s <= 600")
        if not 1 <= self.ev_max_nodes <= 50_000_000:
            raise ValueError(f"ev_max_nodes {self.ev_max_nodes}: expected 1..50,000,000")

    def _check_call_limits(self) -> None:
        for name in ("max_concurrent_calls", "max_streams_per_connection", "max_connections",
                     "calm_limit", "max_receiving_per_peer", "max_calls_per_peer",
                     "ev_workers"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} {getattr(self, name)}: expected at least 1")
        if not 1 <= self.max_receiving <= self.max_concurrent_calls:
            raise ValueError(f"max_receiving {self.max_receiving}: expected "
                             "1..max_concurrent_calls")
        if self.connection_buffer < 65535:
            raise ValueError(f"connection_buffer {self.connection_buffer}: expected >= 65535 "
                             "(the HTTP/2 initial window)")
        if self.process_buffer < self.connection_buffer:
            raise ValueError(f"process_buffer {self.process_buffer}: expected >= "
                             "connection_buffer")

    @property
    def unary_limit(self) -> int:
        """The largest unary request: ``unary_max_message_size``, within ``max_message_size``."""
        return min(self.unary_max_message_size, self.max_message_size)

    @property
    def peer_shares(self) -> tuple[int, int]:
        """``(receiving waits, calls)`` one peer host may hold: ``max_receiving_per_peer`` and
        ``max_calls_per_peer``, each within its whole."""
        return (min(self.max_receiving_per_peer, self.max_receiving),
                min(self.max_calls_per_peer, self.max_concurrent_calls))

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
