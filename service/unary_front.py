"""The unary front: the unary RPCs on a port of their own, over a compiled HTTP/2 path.

grpcio's Python server hands every call from its polling thread to a pool thread and back,
which costs more CPU than the analysis itself (see BENCHMARKS.md, Service). This front runs
one thread with one epoll loop: bytes from the socket go through ``_http2.ServerConnection``
(compiled HTTP/2 framing and HPACK), each finished request is answered at once by the same
servicer methods the grpcio server uses, and the answer is written back in the same pass.

It serves AnalyzeHand, Decompose, Score, ListRulePresets and grpc.health.v1.Health/Check, with
the same messages, errors, token and TLS settings as the main port. Streaming RPCs (the bulk
calls, health Watch, reflection) are answered UNIMPLEMENTED here: use the main port for them.
"""
from __future__ import annotations

import contextlib
import errno
import hmac
import logging
import os
import select
import socket
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf.message import DecodeError
from grpc_health.v1 import health_pb2

from ._http2 import ServerConnection
from .auth import OPEN_PREFIXES
from .gen.mjcore.v1 import analysis_service_pb2 as pb
from .gen.mjcore.v1 import scoring_pb2

log = logging.getLogger("mjcore.service")

RECV_BYTES = 256 * 1024
BACKLOG = 1 << 20       # unsent bytes at which a connection is no longer read
SERVICE = "/mjcore.v1.HandAnalysisService/"


class Aborted(Exception):
    """Raised by ``CallContext.abort*``: ends the call with this status."""

    def __init__(self, code: grpc.StatusCode, details: str, trailing: Any = ()) -> None:
        super().__init__(details)
        self.code = code
        self.details = details
        self.status_details: bytes | None = None
        for key, value in trailing or ():
            if key == "grpc-status-details-bin":
                self.status_details = value


class CallContext:
    """The part of ``grpc.ServicerContext`` the unary servicer methods use."""

    __slots__ = ("code", "deadline", "details")

    def __init__(self, deadline: float | None) -> None:
        self.deadline = deadline
        self.code = grpc.StatusCode.OK
        self.details = ""

    def time_remaining(self) -> float | None:
        return None if self.deadline is None else self.deadline - time.monotonic()

    def is_active(self) -> bool:
        return True

    def abort(self, code: grpc.StatusCode, details: str) -> None:
        raise Aborted(code, details)

    def abort_with_status(self, status: grpc.Status) -> None:
        raise Aborted(status.code, status.details, status.trailing_metadata)

    def set_code(self, code: grpc.StatusCode) -> None:
        self.code = code

    def set_details(self, details: str) -> None:
        self.details = details


@dataclass(frozen=True)
class Method:
    parse: Callable[[bytes], Any]
    call: Callable[[Any, CallContext], Any]
    open: bool          # callable without the token (health)


def unary_methods(servicer: Any, health_servicer: Any) -> dict[bytes, Method]:
    """The served methods by HTTP/2 :path."""
    table = {
        "AnalyzeHand": (pb.AnalyzeHandRequest, servicer.AnalyzeHand),
        "Decompose": (pb.DecomposeRequest, servicer.Decompose),
        "Score": (scoring_pb2.ScoreRequest, servicer.Score),
        "ListRulePresets": (pb.ListRulePresetsRequest, servicer.ListRulePresets),
    }
    methods = {(SERVICE + name).encode(): Method(message.FromString, call, False)
               for name, (message, call) in table.items()}
    health_path = "/grpc.health.v1.Health/Check"
    methods[health_path.encode()] = Method(health_pb2.HealthCheckRequest.FromString,
                                           health_servicer.Check,
                                           health_path.startswith(OPEN_PREFIXES))
    return methods


def tls_context(cert: str, key: str, client_ca: str | None) -> ssl.SSLContext:
    """Server TLS (ALPN h2), requiring a client certificate signed by ``client_ca`` if given."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(cert, key)
    context.set_alpn_protocols(["h2"])
    if client_ca:
        context.load_verify_locations(client_ca)
        context.verify_mode = ssl.CERT_REQUIRED
    return context


class Connection:
    __slots__ = ("fd", "h2", "out", "paused", "peer", "sock", "writing")

    def __init__(self, sock: socket.socket, h2: ServerConnection | None, peer: Any) -> None:
        self.sock = sock
        self.fd = sock.fileno()
        self.h2 = h2
        self.out = bytearray()
        self.paused = False
        self.writing = False
        self.peer = peer


class UnaryFront:
    """Binds on ``start()``; serves in its own thread until ``shutdown()``."""

    def __init__(self, methods: dict[bytes, Method], host: str, port: int, *,
                 token: str | None = None, tls: ssl.SSLContext | None = None,
                 max_message: int = 4 * 1024 * 1024, reuse_port: bool = False) -> None:
        self.methods = methods
        self.paths = frozenset(methods)
        self.host = host
        self.port = port
        self.expected = f"Bearer {token}".encode() if token else None
        self.tls = tls
        self.max_message = max_message
        self.reuse_port = reuse_port
        self.connections: dict[int, Connection] = {}
        self.calls = 0
        self._listener: socket.socket | None = None
        self._epoll: Any = None
        self._wake_r = self._wake_w = -1
        self._stop_at: float | None = None      # set by shutdown(): the grace deadline
        self._thread: threading.Thread | None = None

    # -- lifecycle ------------------------------------------------------------------------------

    def bind(self) -> int:
        """Bind and listen; returns the port (``port`` 0 picks one)."""
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if self.reuse_port:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        try:
            sock.bind((self.host.strip("[]"), self.port))
            sock.listen(1024)
        except OSError:
            sock.close()
            raise
        sock.setblocking(False)
        self._listener = sock
        self.port = sock.getsockname()[1]
        return self.port

    def start(self) -> int:
        if self._listener is None:
            self.bind()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self._epoll = select.epoll()
        self._epoll.register(self._listener.fileno(), select.EPOLLIN)
        self._epoll.register(self._wake_r, select.EPOLLIN)
        self._thread = threading.Thread(target=self._run, name="mjcore-unary-front",
                                        daemon=True)
        self._thread.start()
        log.info("unary front listening on %s:%d (%s)", self.host, self.port,
                 "tls" if self.tls is not None else "plaintext")
        return self.port

    def shutdown(self, grace: float) -> None:
        """Stop accepting, send GOAWAY, answer what was received, close within ``grace`` s."""
        if self._thread is None:   # never started
            self._close_listener()
            return
        self._stop_at = time.monotonic() + max(0.0, grace)
        with contextlib.suppress(BlockingIOError):
            os.write(self._wake_w, b"x")
        self._thread.join()
        self._thread = None

    # -- the loop -------------------------------------------------------------------------------

    def _run(self) -> None:
        epoll = self._epoll
        listen_fd = self._listener.fileno()
        connections = self.connections
        stopping = False
        try:
            while True:
                if self._stop_at is not None:
                    if not stopping:
                        stopping = True
                        self._begin_stop()
                    if not connections or time.monotonic() >= self._stop_at:
                        break
                timeout = 0.05 if stopping else -1
                try:
                    events = epoll.poll(timeout)
                except InterruptedError:
                    continue
                for fd, event in events:
                    if fd == listen_fd:
                        self._accept()
                        continue
                    if fd == self._wake_r:
                        with contextlib.suppress(BlockingIOError):
                            os.read(self._wake_r, 64)
                        continue
                    conn = connections.get(fd)
                    if conn is None:
                        continue
                    try:
                        if conn.h2 is None:  # TLS handshake not done yet
                            self._handshake(conn)
                        elif event & select.EPOLLIN and not conn.paused:
                            self._readable(conn)
                        elif event & select.EPOLLOUT:
                            self._send(conn)
                        elif event & (select.EPOLLHUP | select.EPOLLERR):
                            self._close(conn)
                    except Exception:   # one connection's failure is not the front's
                        log.exception("unary front: dropping the connection from %s",
                                      conn.peer)
                        self._close(conn)
                if stopping:
                    for conn in list(connections.values()):
                        if conn.h2 is not None and not conn.out and not conn.h2.active_streams:
                            self._close(conn)
        except Exception:
            log.exception("unary front loop failed")
        finally:
            for conn in list(connections.values()):
                self._close(conn)
            self._close_listener()
            epoll.close()
            os.close(self._wake_r)
            os.close(self._wake_w)

    def _begin_stop(self) -> None:
        self._close_listener()
        for conn in list(self.connections.values()):
            if conn.h2 is None:
                self._close(conn)
                continue
            conn.h2.goaway()
            self._send(conn)

    def _close_listener(self) -> None:
        if self._listener is not None:
            if self._epoll is not None:
                with contextlib.suppress(OSError, ValueError):
                    self._epoll.unregister(self._listener.fileno())
            self._listener.close()
            self._listener = None

    def _accept(self) -> None:
        while self._listener is not None:
            try:
                sock, peer = self._listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as err:   # EMFILE and friends: keep serving the others
                log.warning("accept failed: %s", err)
                return
            sock.setblocking(False)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if self.tls is not None:
                try:
                    sock = self.tls.wrap_socket(sock, server_side=True,
                                                do_handshake_on_connect=False)
                except (OSError, ValueError) as err:
                    log.info("TLS setup with %s failed: %s", peer, err)
                    sock.close()
                    continue
                conn = Connection(sock, None, peer)
            else:
                conn = Connection(sock, self._new_h2(), peer)
            self.connections[conn.fd] = conn
            self._epoll.register(conn.fd, select.EPOLLIN)
            if conn.h2 is None:  # TLS handshake not done yet
                self._handshake(conn)
            else:
                self._send(conn)

    def _new_h2(self) -> ServerConnection:
        return ServerConnection(self.paths, self.max_message)

    def _handshake(self, conn: Connection) -> None:
        try:
            conn.sock.do_handshake()
        except ssl.SSLWantReadError:
            self._want_write(conn, False)
            return
        except ssl.SSLWantWriteError:
            self._want_write(conn, True)
            return
        except (ssl.SSLError, OSError) as err:
            log.info("TLS handshake with %s failed: %s", conn.peer, err)
            self._close(conn)
            return
        conn.h2 = self._new_h2()
        self._send(conn)

    def _readable(self, conn: Connection) -> None:
        if conn.h2 is None:  # TLS handshake not done yet
            self._handshake(conn)
            return
        sock = conn.sock
        h2 = conn.h2
        while True:
            try:
                data = sock.recv(RECV_BYTES)
            except (BlockingIOError, InterruptedError, ssl.SSLWantReadError):
                break
            except ssl.SSLWantWriteError:
                self._want_write(conn, True)
                break
            except (OSError, ssl.SSLError):
                self._close(conn)
                return
            if not data:
                self._close(conn)
                return
            for request in h2.receive(data):
                self._call(h2, request)
            if h2.has_output:
                conn.out += h2.take_output()
            if len(conn.out) >= BACKLOG or self.tls is None or not sock.pending():
                break
        self._send(conn)

    def _call(self, h2: ServerConnection, request: tuple) -> None:
        stream_id, path, message, authorization, timeout_us = request
        self.calls += 1
        method = self.methods[path]
        if self.expected is not None and not method.open and not (
                authorization and hmac.compare_digest(authorization, self.expected)):
            h2.respond(stream_id, None, grpc.StatusCode.UNAUTHENTICATED.value[0],
                       "invalid bearer token" if authorization else "missing bearer token")
            return
        context = CallContext(None if timeout_us < 0 else time.monotonic() + timeout_us / 1e6)
        try:
            parsed = method.parse(message)
        except DecodeError:
            h2.respond(stream_id, None, grpc.StatusCode.INVALID_ARGUMENT.value[0],
                       f"the request is not a valid {path.decode().rsplit('/', 1)[1]} message")
            return
        try:
            response = method.call(parsed, context)
        except Aborted as err:
            h2.respond(stream_id, None, err.code.value[0], err.details, err.status_details)
            return
        except Exception:
            log.exception("%s failed", path.decode())
            h2.respond(stream_id, None, grpc.StatusCode.INTERNAL.value[0], "internal error")
            return
        if context.code is not grpc.StatusCode.OK:
            h2.respond(stream_id, None, context.code.value[0], context.details)
            return
        h2.respond(stream_id, response.SerializeToString())

    def _send(self, conn: Connection) -> None:
        """Send what is queued. A peer that does not read stops being read from once
        ``BACKLOG`` bytes wait for it, so it cannot make the server queue without limit."""
        h2 = conn.h2
        if h2 is not None and h2.has_output:
            conn.out += h2.take_output()
        out = conn.out
        while out:
            try:
                sent = conn.sock.send(out)
            except (BlockingIOError, InterruptedError, ssl.SSLWantWriteError,
                    ssl.SSLWantReadError):
                break
            except (OSError, ssl.SSLError):
                self._close(conn)
                return
            del out[:sent]
        paused = len(out) >= BACKLOG
        if out or paused != conn.paused:
            conn.paused = paused
            self._want_write(conn, bool(out))
        elif conn.writing:
            self._want_write(conn, False)
        if not out and h2 is not None and h2.closed:
            if h2.error:
                log.info("closing HTTP/2 connection from %s: %s", conn.peer, h2.error)
            self._close(conn)

    def _want_write(self, conn: Connection, on: bool) -> None:
        """Wait for the socket to take more bytes (``on``) or not; paused: not readable."""
        if conn.fd not in self.connections:
            return
        conn.writing = on
        self._epoll.modify(conn.fd, (0 if conn.paused else select.EPOLLIN)
                           | (select.EPOLLOUT if on else 0))

    def _close(self, conn: Connection) -> None:
        if self.connections.pop(conn.fd, None) is None:
            return
        with contextlib.suppress(OSError, ValueError):
            self._epoll.unregister(conn.fd)
        with contextlib.suppress(OSError):
            conn.sock.close()


def bind_error(err: OSError, host: str, port: int) -> str:
    if err.errno == errno.EADDRINUSE:
        return f"unary port {host}:{port} is already in use"
    return f"could not bind the unary port {host}:{port}: {err}"
