"""The unary front: the unary RPCs on a port of their own, over a compiled HTTP/2 path.

grpcio's Python server hands every call from its polling thread to a pool thread and back,
which costs more CPU than the analysis itself (see benchmarks/HISTORY.md, Service). This front runs
one thread with one epoll loop: bytes from the socket go through ``_http2.ServerConnection``
(compiled HTTP/2 framing and HPACK), each finished request is answered at once by the same
servicer methods the grpcio server uses, and the answer is written back in the same pass.

It serves AnalyzeHand, Decompose, Score, ScoreClassicalDeal, ListRulePresets, ExpectedValues
(computed in the servicer's bounded ``EvPool``, answered by the loop when done) and
grpc.health.v1.Health/Check, with the same messages, errors, token and TLS settings as the main
port. Streaming RPCs (the bulk
calls, health Watch, reflection) are answered UNIMPLEMENTED here: use the main port for them.

Against misbehaving peers (limits from ``ServerConfig``): a sweep every ``tick`` seconds closes
connections past their handshake/preface, header-block, idle, keepalive or write timeout and
answers requests whose body is late; request bytes held are counted per connection (the
HTTP/2 window) and per process (``shed``); each connection gets at most ``PER_PASS`` requests
answered per loop pass; resets and error-only streams past ``calm_limit`` in 10 s end the
connection with GOAWAY ENHANCE_YOUR_CALM; accept errors (EMFILE) pause accepting.
"""
from __future__ import annotations

import contextlib
import errno
import functools
import logging
import os
import select
import socket
import ssl
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

import grpc
from google.protobuf.message import DecodeError
from grpc_health.v1 import health_pb2

from mjcore.wire.v1 import analysis_service_pb2 as pb
from mjcore.wire.v1 import scoring_pb2

from ..auth import OPEN_PREFIXES, bearer, denial
from ..config import ServerConfig
from ..errors import RpcError
from ._http2 import ServerConnection

log = logging.getLogger("mjcore.service")

RECV_BYTES = 256 * 1024
BACKLOG = 1 << 20       # unsent bytes at which a connection is no longer read
PER_PASS = 16           # requests of one connection answered per loop pass
STRIKE_WINDOW = 10.0    # seconds over which ``calm_limit`` counts
ACCEPT_ERRORS = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)
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
    pool: Any = None    # run in this bounded pool (``EvPool``), answered when done


def unary_methods(servicer: Any, health_servicer: Any, pool: Any = None
                  ) -> dict[bytes, Method]:
    """The served methods by HTTP/2 :path; ExpectedValues runs in ``pool`` (an ``EvPool``,
    shared with the main port) when given, else on the front's thread."""
    table: dict[str, tuple[Any, Callable[..., Any]]] = {
        "AnalyzeHand": (pb.AnalyzeHandRequest, servicer.AnalyzeHand),
        "Decompose": (pb.DecomposeRequest, servicer.Decompose),
        "Score": (scoring_pb2.ScoreRequest, servicer.Score),
        "ScoreClassicalDeal": (scoring_pb2.ScoreClassicalDealRequest,
                               servicer.ScoreClassicalDeal),
        "ListRulePresets": (pb.ListRulePresetsRequest, servicer.ListRulePresets),
        "ExpectedValues": (pb.ExpectedValuesRequest, servicer.ExpectedValues),
    }
    methods = {(SERVICE + name).encode(): Method(message.FromString, call, False,
                                                 pool if name == "ExpectedValues" else None)
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
    __slots__ = ("accepted", "buffered", "fd", "h2", "header_since", "last_call", "last_read",
                 "logged", "out", "paused", "peer", "ping_sent", "queue", "sock", "stall_mark",
                 "stall_since", "strike_base", "strike_start", "writing", "written")

    def __init__(self, sock: socket.socket, h2: ServerConnection | None, peer: Any,
                 now: float) -> None:
        self.sock = sock
        self.fd = sock.fileno()
        self.h2 = h2
        self.out = bytearray()
        self.paused = False
        self.writing = False
        self.peer = peer
        self.queue: deque = deque()       # requests received, not yet answered (fairness)
        self.accepted = self.last_read = self.last_call = self.strike_start = now
        self.ping_sent = 0.0              # keepalive PING outstanding since
        self.header_since = 0.0           # an unfinished header block since
        self.stall_since = 0.0            # answers waiting for the peer since
        self.stall_mark: tuple | None = None  # (bytes written, answer bytes sent) then
        self.written = 0
        self.buffered = 0                 # request bytes held, as last counted
        self.strike_base = 0
        self.logged = False               # a malformed request was logged


class UnaryFront:
    """Binds on ``start()``; serves in its own thread until ``shutdown()``."""

    def __init__(self, methods: dict[bytes, Method], host: str, port: int, *,
                 token: str | None = None, tls: ssl.SSLContext | None = None,
                 max_message: int = 4 * 1024 * 1024, reuse_port: bool = False,
                 limits: ServerConfig | None = None) -> None:
        self.methods = methods
        self.paths = frozenset(methods)
        self.host = host
        self.port = port
        self.expected = bearer(token) if token else None
        self.open_paths = frozenset(path for path, method in methods.items() if method.open)
        self.tls = tls
        self.max_message = max_message
        self.reuse_port = reuse_port
        self.limits = limits = limits if limits is not None else ServerConfig(port=0)
        # sweep often enough for the shortest timeout, at most 4 times a second
        self.tick = min(0.25, min(limits.handshake_timeout, limits.header_timeout,
                                  limits.receive_timeout, limits.write_timeout,
                                  limits.idle_timeout, limits.keepalive_interval,
                                  limits.keepalive_timeout) / 4)
        self.connections: dict[int, Connection] = {}
        self.runnable: set[Connection] = set()
        self.buffered = 0                 # request bytes held by every connection
        self.calls = 0
        self.dropped: dict[str, int] = {}  # connections closed by a limit, by reason
        self._accept_paused_until = 0.0
        self._accept_backoff = 0.0
        self._at_cap_logged = False
        self._listener: socket.socket | None = None
        self._epoll: Any = None
        self._wake_r = self._wake_w = -1
        self._stop_at: float | None = None      # set by shutdown(): the grace deadline
        self._thread: threading.Thread | None = None
        # pooled calls done, to answer on the loop: (connection, stream id, future)
        self._done: deque[tuple[Connection, int, Any]] = deque()

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
            sock.listen(min(1024, self.limits.max_connections))
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
        assert self._listener is not None
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
        """The front's thread: the loop until it stops, then every socket closed."""
        try:
            self._loop()
        except Exception:
            log.exception("unary front loop failed")
        finally:
            self._close_all()

    def _loop(self) -> None:
        """Poll, sweep the time limits, handle each ready socket, answer the connections with
        requests waiting; once stopping, until every connection is done or the grace ends."""
        epoll = self._epoll
        assert self._listener is not None
        listen_fd = self._listener.fileno()
        connections = self.connections
        stopping = False
        next_sweep = time.monotonic() + self.tick
        while True:
            if self._stop_at is not None:
                if not stopping:
                    stopping = True
                    self._begin_stop()
                if not connections or time.monotonic() >= self._stop_at:
                    return
            timeout = 0 if self.runnable else 0.05 if stopping else self.tick
            try:
                events = epoll.poll(timeout)
            except InterruptedError:
                continue
            now = time.monotonic()
            if now >= next_sweep:
                next_sweep = now + self.tick
                self._sweep(now)
            for fd, event in events:
                if fd == listen_fd:
                    self._accept()
                elif fd == self._wake_r:
                    with contextlib.suppress(BlockingIOError):
                        os.read(self._wake_r, 4096)
                    self._answer_pooled()
                else:
                    conn = connections.get(fd)
                    if conn is not None:
                        self._on_event(conn, event)
            self._serve_runnable()
            if stopping:
                self._close_finished()

    def _on_event(self, conn: Connection, event: int) -> None:
        """One connection's socket is ready: handshake, read, write or close."""
        try:
            if conn.h2 is None:  # TLS handshake not done yet
                self._handshake(conn)
            elif event & select.EPOLLIN and not conn.paused and not conn.queue:
                self._readable(conn)
            elif event & select.EPOLLOUT:
                self._send(conn)
            elif event & (select.EPOLLHUP | select.EPOLLERR):
                self._close(conn)
        except Exception:   # one connection's failure is not the front's
            log.exception("unary front: dropping the connection from %s", conn.peer)
            self._close(conn)

    def _serve_runnable(self) -> None:
        """Answer the connections with received requests waiting (``_serve``: a share each)."""
        connections = self.connections
        for conn in list(self.runnable):
            if conn.fd not in connections:
                self.runnable.discard(conn)
                continue
            try:
                self._serve(conn)
                self._send(conn)
                if (not conn.queue and self.tls is not None and conn.fd in connections
                        and cast(ssl.SSLSocket, conn.sock).pending()):
                    self._readable(conn)   # decrypted bytes epoll cannot see
            except Exception:   # one connection's failure is not the front's
                log.exception("unary front: dropping the connection from %s", conn.peer)
                self._close(conn)

    def _close_finished(self) -> None:
        """While stopping: close the connections with nothing left to answer or send."""
        for conn in list(self.connections.values()):
            if conn.h2 is not None and not conn.out and not conn.h2.active_streams:
                self._close(conn)

    def _close_all(self) -> None:
        for conn in list(self.connections.values()):
            self._close(conn)
        self._close_listener()
        self._epoll.close()
        os.close(self._wake_r)
        wake, self._wake_w = self._wake_w, -1   # no pooled call writes to it now
        os.close(wake)

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
                self._pause_accepting(err)
                return
            if self._accept_backoff:
                log.warning("unary front: accepting connections again")
                self._accept_backoff = 0.0
            if len(self.connections) >= self.limits.max_connections:
                if not self._at_cap_logged:
                    log.warning("unary front: %d connections open, the most allowed; new ones "
                                "are closed at once (logged once until below the cap)",
                                len(self.connections))
                    self._at_cap_logged = True
                self._count_drop("connection cap")
                sock.close()
                continue
            self._at_cap_logged = False
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
                conn = Connection(sock, None, peer, time.monotonic())
            else:
                conn = Connection(sock, self._new_h2(), peer, time.monotonic())
            self.connections[conn.fd] = conn
            self._epoll.register(conn.fd, select.EPOLLIN)
            if conn.h2 is None:  # TLS handshake not done yet
                self._handshake(conn)
            else:
                self._send(conn)

    def _pause_accepting(self, err: OSError) -> None:
        """Out of descriptors (or memory): stop watching the listener for a while, doubling the
        pause up to 2 s while it lasts; logged once per episode, not per attempt."""
        if self._accept_backoff == 0.0:
            log.warning("unary front: accept failed (%s); pausing accepts until it works again",
                        err)
        self._accept_backoff = min(2.0, max(0.05, self._accept_backoff * 2))
        self._accept_paused_until = time.monotonic() + self._accept_backoff
        if err.errno not in ACCEPT_ERRORS:
            return
        listener = self._listener
        if listener is not None:
            with contextlib.suppress(OSError, ValueError):
                self._epoll.unregister(listener.fileno())

    def _count_drop(self, reason: str) -> None:
        self.dropped[reason] = self.dropped.get(reason, 0) + 1

    def _new_h2(self) -> ServerConnection:
        limits = self.limits
        return ServerConnection(self.paths, self.max_message, limits.max_streams_per_connection,
                                limits.connection_buffer,
                                authorize=None if self.expected is None else self._authorize,
                                open_paths=self.open_paths)

    def _authorize(self, authorization: bytes | None) -> str | None:
        """Why a call with this ``authorization`` header is refused (checked at HEADERS, before
        its body is buffered; duplicates are refused there already), or None."""
        return denial([] if authorization is None else [authorization], self.expected)

    def _sweep(self, now: float) -> None:
        """Enforce the time limits on every connection."""
        limits = self.limits
        if self._accept_paused_until and now >= self._accept_paused_until:
            self._accept_paused_until = 0.0
            if self._listener is not None:
                with contextlib.suppress(OSError, ValueError, FileExistsError):
                    self._epoll.register(self._listener.fileno(), select.EPOLLIN)
        for conn in list(self.connections.values()):
            h2 = conn.h2
            if h2 is None or not h2.preface_done:
                if now - conn.accepted > limits.handshake_timeout:
                    self._drop(conn, "handshake timeout")
                continue
            if conn.header_since and now - conn.header_since > limits.header_timeout:
                conn.header_since = 0.0
                h2.calm("header block not finished in time")
                self._count_drop("header timeout")
                self._send(conn)
                continue
            if h2.expire(now - limits.receive_timeout):
                self._count_drop("request body timeout")
                self._account(conn)
                self._send(conn)
                if conn.fd not in self.connections:
                    continue
            if conn.out or h2.blocked_streams:
                # stalled while neither the socket takes bytes nor the peer's window opens
                mark = (conn.written if conn.out else -1,
                        h2.data_sent if h2.blocked_streams else -1)
                if mark != conn.stall_mark:
                    conn.stall_mark = mark
                    conn.stall_since = now
                elif now - conn.stall_since > limits.write_timeout:
                    self._drop(conn, "peer not reading")
                    continue
            else:
                conn.stall_mark = None
            if h2.active_streams or conn.queue:
                conn.last_call = now
            elif now - conn.last_call > limits.idle_timeout:
                h2.goaway()
                self._count_drop("idle timeout")
                self._send(conn)
                self._drop(conn, None)
                continue
            if conn.ping_sent:
                if now - conn.ping_sent > limits.keepalive_timeout:
                    self._drop(conn, "keepalive timeout")
            elif now - conn.last_read > limits.keepalive_interval:
                conn.ping_sent = now
                h2.ping()
                self._send(conn)

    def _drop(self, conn: Connection, reason: str | None) -> None:
        if reason is not None:
            self._count_drop(reason)
            log.debug("unary front: closing the connection from %s: %s", conn.peer, reason)
        self._close(conn)

    def _account(self, conn: Connection) -> None:
        """Count the connection's held request bytes into the process total; over the
        process budget, the connection that just grew gives up its unfinished requests."""
        h2 = conn.h2
        assert h2 is not None
        self.buffered += h2.buffered - conn.buffered
        conn.buffered = h2.buffered
        if self.buffered > self.limits.process_buffer and conn.buffered:
            self.buffered -= h2.shed()
            conn.buffered = h2.buffered
            self._count_drop("process buffer")

    def _handshake(self, conn: Connection) -> None:
        try:
            cast(ssl.SSLSocket, conn.sock).do_handshake()
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
            now = time.monotonic()
            conn.last_read = now
            conn.ping_sent = 0.0
            strikes = h2.strikes
            conn.queue.extend(h2.receive(data, now))
            if conn.queue or h2.active_streams:
                conn.last_call = now
            self._account(conn)
            conn.header_since = (conn.header_since or now) if h2.header_pending else 0.0
            if now - conn.strike_start > STRIKE_WINDOW:
                conn.strike_start = now
                conn.strike_base = strikes
            elif h2.strikes - conn.strike_base > self.limits.calm_limit:
                h2.calm("too many resets, refused streams or control frames")
                self._count_drop("calm limit")
                log.info("unary front: GOAWAY ENHANCE_YOUR_CALM to %s", conn.peer)
            if conn.queue:
                break
            if h2.has_output:
                conn.out += h2.take_output()
            if (len(conn.out) >= BACKLOG or self.tls is None
                    or not cast(ssl.SSLSocket, sock).pending()):
                break
        self._serve(conn)
        self._send(conn)

    def _serve(self, conn: Connection) -> None:
        """Answer at most PER_PASS of the connection's received requests; the rest wait for
        the next loop pass, after every other ready connection had its turn. While
        ``BACKLOG`` bytes of answers wait for the peer, none are added (``_send`` resumes)."""
        queue = conn.queue
        h2 = conn.h2
        assert h2 is not None
        if conn.paused:
            self.runnable.discard(conn)
            return
        for _ in range(min(PER_PASS, len(queue))):
            self._call(conn, h2, queue.popleft())
        if queue:
            self.runnable.add(conn)
        else:
            self.runnable.discard(conn)

    def _call(self, conn: Connection, h2: ServerConnection, request: tuple) -> None:
        stream_id, path, message, _authorization, timeout_us = request
        self.calls += 1
        method = self.methods[path]   # its token was checked at HEADERS (``_authorize``)
        context = CallContext(None if timeout_us < 0 else time.monotonic() + timeout_us / 1e6)
        if message is None:     # the main port's answers (guard.py), ErrorInfo included
            self._refuse(h2, stream_id, "the call carries no request message",
                         "NO_REQUEST_MESSAGE")
            return
        try:
            parsed = method.parse(message)
        except DecodeError:
            if not conn.logged:
                conn.logged = True
                log.warning("%s: a request that is not a valid message from %s (logged once "
                            "per connection)", path.decode(), conn.peer)
            self._refuse(h2, stream_id, f"the request is not a valid "
                         f"{path.decode().rsplit('/', 1)[1]} message", "MALFORMED_MESSAGE")
            return
        if method.pool is not None:
            future = method.pool.submit(method.call, parsed, context)
            if future is None:      # full: refused at once, with a retry hint
                self._respond_error(h2, stream_id, method.pool.busy())
                return
            future.add_done_callback(functools.partial(self._pooled_done, conn, stream_id,
                                                       context, path))
            return
        self._answer(h2, stream_id, context, path, method.call, parsed, context)

    def _answer(self, h2: ServerConnection, stream_id: int, context: CallContext, path: bytes,
                run: Callable[..., Any], *args: Any) -> None:
        try:
            response = run(*args)
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

    def _pooled_done(self, conn: Connection, stream_id: int, context: CallContext,
                     path: bytes, future: Any) -> None:
        """In the pool's thread: queue the answer for the loop and wake it."""
        self._done.append((conn, stream_id, (context, path, future)))
        if self._wake_w >= 0:
            with contextlib.suppress(BlockingIOError, OSError):
                os.write(self._wake_w, b"d")

    def _answer_pooled(self) -> None:
        """On the loop: answer the pooled calls that finished (a closed connection's are
        dropped; a stream the client reset meanwhile is skipped by ``respond``)."""
        while self._done:
            conn, stream_id, (context, path, future) = self._done.popleft()
            if self.connections.get(conn.fd) is not conn or conn.h2 is None:
                continue
            if future.cancelled():
                self._respond_error(conn.h2, stream_id, RpcError(
                    grpc.StatusCode.UNAVAILABLE, "the server is shutting down", "SHUTDOWN"))
            else:
                self._answer(conn.h2, stream_id, context, path, future.result)
            self._send(conn)

    @staticmethod
    def _respond_error(h2: ServerConnection, stream_id: int, err: RpcError) -> None:
        status = err.to_status()
        failed = Aborted(status.code, status.details, status.trailing_metadata)
        h2.respond(stream_id, None, failed.code.value[0], failed.details,
                   failed.status_details)

    @staticmethod
    def _refuse(h2: ServerConnection, stream_id: int, message: str, reason: str) -> None:
        """Answer INVALID_ARGUMENT with an ErrorInfo of ``reason``."""
        UnaryFront._respond_error(h2, stream_id, RpcError(grpc.StatusCode.INVALID_ARGUMENT,
                                                          message, reason))

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
            conn.written += sent
        paused = len(out) >= BACKLOG
        if out or paused != conn.paused:
            if conn.paused and not paused and conn.queue:
                self.runnable.add(conn)     # answering resumes (``_serve``)
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
        self.runnable.discard(conn)
        self.buffered -= conn.buffered
        conn.buffered = 0
        conn.queue.clear()
        with contextlib.suppress(OSError, ValueError):
            self._epoll.unregister(conn.fd)
        with contextlib.suppress(OSError):
            conn.sock.close()


def bind_error(err: OSError, host: str, port: int) -> str:
    if err.errno == errno.EADDRINUSE:
        return f"unary port {host}:{port} is already in use"
    return f"could not bind the unary port {host}:{port}: {err}"
