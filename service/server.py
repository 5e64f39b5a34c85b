"""Build and run the gRPC server: the analysis service, health, reflection, auth and TLS."""
from __future__ import annotations

import contextlib
import ctypes
import gc
import logging
import os
import select
import signal
import sys
import threading
from collections.abc import Callable
from concurrent import futures
from pathlib import Path

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from mjcore.wire.v1 import analysis_service_pb2

from .auth import bearer
from .config import ServerConfig
from .guard import CallGuard
from .limits import ReceiveWatchdog
from .servicer import HandAnalysisServicer, add_to_server
from .unary_front import UnaryFront, bind_error, tls_context, unary_methods

log = logging.getLogger("mjcore.service")

SERVICE_NAME = analysis_service_pb2.DESCRIPTOR.services_by_name["HandAnalysisService"].full_name


class AnalysisServer:
    """A built (not yet started) server with its health service. Quacks like ``grpc.Server``."""

    def __init__(self, server: grpc.Server, health_servicer: health.HealthServicer,
                 servicer: HandAnalysisServicer, config: ServerConfig, port: int,
                 front: UnaryFront | None = None) -> None:
        self.server = server
        self.front = front
        self.unary_port = front.port if front is not None else None
        self.servicer = servicer
        self.health = health_servicer
        self.config = config
        self.port = port
        self.watchdog: ReceiveWatchdog | None = None
        self._stopping = threading.Event()

    def start(self) -> None:
        if self.watchdog is not None:
            self.watchdog.start()
        self.server.start()
        if self.front is not None:
            self.front.start()
        for name in ("", SERVICE_NAME):
            self.health.set(name, health_pb2.HealthCheckResponse.SERVING)

    def stop(self, grace: float | None) -> threading.Event:
        if self.front is not None:
            self.front.shutdown(grace or 0.0)
        stopped = self.server.stop(grace)
        if self.watchdog is not None:
            self.watchdog.stop()
        return stopped

    def wait_for_termination(self, timeout: float | None = None) -> bool:
        return self.server.wait_for_termination(timeout)

    def shutdown(self, grace: float | None = None, drain: float | None = None) -> None:
        """Health NOT_SERVING, wait ``drain`` s, then stop with ``grace`` s for in-flight RPCs."""
        if self._stopping.is_set():
            return
        self._stopping.set()
        grace = self.config.grace if grace is None else grace
        drain = self.config.drain if drain is None else drain
        self.health.enter_graceful_shutdown()
        if drain > 0:
            threading.Event().wait(drain)
        stopped = self.server.stop(grace)
        if self.front is not None:
            self.front.shutdown(grace)
        stopped.wait()
        if self.watchdog is not None:
            self.watchdog.stop()


def _credentials(config: ServerConfig) -> grpc.ServerCredentials | None:
    if config.tls_cert is None:
        return None
    key = Path(config.tls_key).read_bytes()  # type: ignore[arg-type]
    cert = Path(config.tls_cert).read_bytes()
    ca = Path(config.client_ca).read_bytes() if config.client_ca else None
    return grpc.ssl_server_credentials([(key, cert)], root_certificates=ca,
                                       require_client_auth=ca is not None)


def build(config: ServerConfig) -> AnalysisServer:
    """Create the server and bind its port (0 = any free port); ``start()`` it to serve."""
    watchdog = ReceiveWatchdog(config.receive_timeout, config.receiving_cap)
    guard = CallGuard(bearer(config.token) if config.token else None, watchdog,
                      config.unary_limit, config.max_message_size)
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=config.workers, thread_name_prefix="mjcore-rpc"),
        interceptors=[guard], options=grpc_options(config),
        maximum_concurrent_rpcs=config.max_concurrent_calls)
    servicer = HandAnalysisServicer(max_batch=config.max_batch,
                                    kernel_threads=config.kernel_threads,
                                    max_message_size=config.max_message_size)
    add_to_server(servicer, server)
    health_servicer = health.HealthServicer(
        experimental_non_blocking=True,
        experimental_thread_pool=futures.ThreadPoolExecutor(max_workers=2))
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    for name in ("", SERVICE_NAME):
        health_servicer.set(name, health_pb2.HealthCheckResponse.NOT_SERVING)
    if config.reflection:
        reflection.enable_server_reflection(
            (SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), server)
    creds = _credentials(config)
    if creds is None:
        port = server.add_insecure_port(config.address)
    else:
        port = server.add_secure_port(config.address, creds)
    if port == 0:
        raise OSError(f"could not bind {config.address}")
    front = None
    if config.unary_port is not None:
        front = UnaryFront(
            unary_methods(servicer, health_servicer), config.host, config.unary_port,
            token=config.token, max_message=config.unary_limit, limits=config,
            tls=(tls_context(str(config.tls_cert), str(config.tls_key),
                             str(config.client_ca) if config.client_ca else None)
                 if config.tls_cert else None),
            reuse_port=config.processes > 1)
        try:
            front.bind()
        except OSError as err:
            server.stop(None)
            raise OSError(bind_error(err, config.host, config.unary_port)) from None
    built = AnalysisServer(server, health_servicer, servicer, config, port, front)
    built.watchdog = watchdog
    return built


def grpc_options(config: ServerConfig) -> list[tuple[str, int]]:
    """grpcio channel arguments for the main port's limits (see ServerConfig)."""
    ms = lambda seconds: int(seconds * 1000)
    return [
        ("grpc.max_receive_message_length", config.max_message_size),
        ("grpc.max_send_message_length", config.max_message_size),
        ("grpc.so_reuseport", 1 if config.processes > 1 else 0),
        ("grpc.max_concurrent_streams", config.max_streams_per_connection),
        ("grpc.max_allowed_incoming_connections", config.max_connections),
        ("grpc.server_handshake_timeout_ms", ms(config.handshake_timeout)),
        ("grpc.max_connection_idle_ms", ms(config.idle_timeout)),
        ("grpc.max_connection_age_ms", ms(config.max_connection_age)),
        ("grpc.max_connection_age_grace_ms", ms(config.max_connection_age_grace)),
        ("grpc.keepalive_time_ms", ms(config.keepalive_interval)),
        ("grpc.keepalive_timeout_ms", ms(config.keepalive_timeout)),
        ("grpc.max_metadata_size", 16 * 1024),
        # a stream buffers at most 64 KiB ahead of the worker reading it; the window grows to a
        # whole message only for a call whose worker waits for it (bounded by the watchdog)
        ("grpc.http2.lookahead_bytes", 64 * 1024),
        ("grpc.http2.bdp_probe", 0),
        ("grpc.http2.max_ping_strikes", 2),
    ]


def build_server(config: ServerConfig) -> tuple[AnalysisServer, int]:
    """The server factory: ``(server, bound port)``; call ``server.start()`` to serve."""
    built = build(config)
    return built, built.port


def serve(config: ServerConfig, ready: Callable[[int], None] | None = None) -> int:
    """Run until SIGTERM or SIGINT, then shut down gracefully; returns the exit status.

    ``ready(port)`` is called once the service answers. With ``config.processes`` > 1 this
    process forks that many server processes sharing the port (see ``ServerProcesses``).
    """
    if config.processes > 1:
        from .processes import ServerProcesses  # it imports this module
        return ServerProcesses(config).run(ready)
    stop = threading.Event()
    previous = on_stop_signals(stop.set)
    try:
        serve_until(build(config), stop, ready)
    finally:
        restore_signals(previous)
    return 0


def on_stop_signals(then: Callable[[], None]) -> dict:
    """SIGTERM and SIGINT log and call ``then``; returns the previous handlers."""

    def on_signal(signum, frame):
        log.info("received %s, shutting down", signal.Signals(signum).name)
        then()

    return {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}


def restore_signals(previous: dict) -> None:
    for s, handler in previous.items():
        signal.signal(s, handler)


class SignalWaker:
    """Wakes the main thread on every signal, whichever thread the kernel delivered it to.

    CPython runs signal handlers in the main thread only, once it runs bytecode again; a
    signal that lands on one of grpc's threads would not end a blocking wait of the main
    thread. With ``signal.set_wakeup_fd`` every signal also writes a byte to a pipe that the
    main thread waits on. Main thread only.
    """

    def __init__(self) -> None:
        self.read_fd, self.write_fd = os.pipe()
        for fd in (self.read_fd, self.write_fd):
            os.set_blocking(fd, False)
        self.previous = signal.set_wakeup_fd(self.write_fd, warn_on_full_buffer=False)

    def wait(self, timeout: float, *fds: int) -> list[int]:
        """Wait up to ``timeout`` s for a signal or for one of ``fds`` to be readable; returns
        the readable ``fds``. The main thread runs the signals' Python handlers right after."""
        readable = select.select([self.read_fd, *fds], [], [], timeout)[0]
        if self.read_fd in readable:
            with contextlib.suppress(BlockingIOError):
                os.read(self.read_fd, 4096)
        return [fd for fd in readable if fd != self.read_fd]

    def close(self) -> None:
        signal.set_wakeup_fd(self.previous)
        os.close(self.read_fd)
        os.close(self.write_fd)


M_MMAP_THRESHOLD = -3


def return_large_buffers_to_the_os() -> None:
    """Keep glibc's mmap threshold at 1 MiB. glibc raises it after a large block is freed, so
    later request buffers of many MiB come from the worker threads' heaps and stay in the
    process: 16 MiB requests refused on the main port grew a server's RSS by 70 MB per ten;
    with the threshold fixed, such buffers are unmapped when freed. A no-op elsewhere."""
    if not sys.platform.startswith("linux"):
        return
    try:
        mallopt = ctypes.CDLL(None).mallopt   # glibc; musl has none
    except (OSError, AttributeError):
        return
    mallopt(M_MMAP_THRESHOLD, 1 << 20)


def serve_until(built: AnalysisServer, stop: threading.Event,
                ready: Callable[[int], None] | None) -> None:
    return_large_buffers_to_the_os()
    waker = SignalWaker()
    try:
        built.start()
        # startup objects (modules, descriptors) leave the collector's view: collections on
        # the RPC path then scan only the calls' own objects, which shortens the pauses
        gc.freeze()
        if ready is not None:
            ready(built.port)
        while not stop.is_set():
            waker.wait(3600)
    finally:
        waker.close()
    built.shutdown()
