"""Build and run the gRPC server: the analysis service, health, reflection, auth and TLS.

The main port is a ``grpc.aio`` server on an event loop of its own thread (``MainPort``):
calls wait for their request messages on the loop, holding no thread; a unary call is then
answered on the loop and a bulk stream's batches are computed in a pool of ``workers`` threads
(``guard.CallGuard``, the server's one handler, in front of every method).
"""
from __future__ import annotations

import asyncio
import ctypes
import gc
import logging
import sys
import threading
from collections.abc import Callable, Coroutine
from concurrent import futures
from pathlib import Path
from typing import Any, TypeVar

import grpc
from grpc_health.v1 import _async as aio_health
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from mjcore.wire.v1 import analysis_service_pb2

from .auth import bearer
from .config import ServerConfig
from .front.server import UnaryFront, bind_error, tls_context, unary_methods
from .guard import CallGuard, quiet_ended_calls
from .limits import IdleTrim, PeerCalls, ReceiveSlots
from .processes import ServerProcesses
from .reflect import add_reflection
from .servicer import OFFLOADED, HandAnalysisServicer, add_to_server
from .signals import SignalWaker, on_stop_signals, restore_signals

log = logging.getLogger("mjcore.service")

SERVICE_NAME = analysis_service_pb2.DESCRIPTOR.services_by_name["HandAnalysisService"].full_name
SERVING, NOT_SERVING = (health_pb2.HealthCheckResponse.SERVING,
                        health_pb2.HealthCheckResponse.NOT_SERVING)
T = TypeVar("T")


class MainPort:
    """The main port: a ``grpc.aio`` server running on its own event loop thread.

    ``run`` executes a coroutine on that loop from any other thread. ``stop(grace)`` stops
    the server, then the loop; ``stopped`` is set once the thread and its workers are done.
    """

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.executor = futures.ThreadPoolExecutor(max_workers=config.workers,
                                                   thread_name_prefix="mjcore-rpc")
        receiving_share, call_share = config.peer_shares
        self.slots = ReceiveSlots(config.max_receiving, receiving_share)
        self.peer_calls = PeerCalls(call_share)
        self.guard = CallGuard(bearer(config.token) if config.token else None, self.slots,
                               self.executor, receive_timeout=config.receive_timeout,
                               stream_timeout=config.stream_timeout,
                               unary_limit=config.unary_limit,
                               stream_limit=config.max_message_size,
                               peer_calls=self.peer_calls)
        quiet_ended_calls()
        self.stopped = threading.Event()
        self._stopping = False
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._serve_loop, name="mjcore-main-port",
                                        daemon=True)
        self._thread.start()
        self.server: grpc.aio.Server = self.run(self._new_server())

    def _serve_loop(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_forever()
        finally:
            # a worker finishing now hands its result to the stopped loop: it is dropped
            self.executor.shutdown(wait=True, cancel_futures=True)
            self.loop.close()
            self.stopped.set()

    async def _new_server(self) -> grpc.aio.Server:
        server = grpc.aio.server(options=grpc_options(self.config),
                                 maximum_concurrent_rpcs=self.config.max_concurrent_calls)
        server.add_generic_rpc_handlers((self.guard,))
        return server

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()

    def start(self) -> None:
        self.run(self.server.start())

    def trim_heap_when_idle(self, delay: float = 1.0) -> IdleTrim | None:
        """From now on, give freed heap back to the OS once the port has been idle ``delay``
        s (``IdleTrim`` with glibc's ``malloc_trim``); None without glibc."""
        trim = _malloc_trim()
        if trim is None:
            return None
        idle = IdleTrim(self.peer_calls, lambda: trim(0), delay)

        async def arm() -> None:
            self.peer_calls.on_idle = idle.became_idle

        self.run(arm())
        return idle

    def stop(self, grace: float | None) -> threading.Event:
        if not self._stopping:
            self._stopping = True
            asyncio.run_coroutine_threadsafe(self._stop(grace), self.loop)
        return self.stopped

    async def _stop(self, grace: float | None) -> None:
        try:
            await self.server.stop(grace)
            # calls grpc cancelled may still be unwinding: let them finish, then end the rest
            others = asyncio.all_tasks() - {asyncio.current_task()}
            if others:
                _, others = await asyncio.wait(others, timeout=1.0)
            for task in others:
                task.cancel()
            if others:
                await asyncio.wait(others, timeout=1.0)
        finally:
            self.loop.stop()


class Health:
    """The serving status on both ports: the front answers Check from the synchronous
    servicer, the main port serves Check and Watch from the asyncio one; both are set here."""

    def __init__(self, main: MainPort) -> None:
        self.main = main
        self.sync = health.HealthServicer()
        self.aio = main.run(_new_aio_health())

    def set(self, name: str, status: int) -> None:
        self.sync.set(name, status)
        self.main.run(self.aio.set(name, status))

    def enter_graceful_shutdown(self) -> None:
        self.sync.enter_graceful_shutdown()
        self.main.run(self.aio.enter_graceful_shutdown())


async def _new_aio_health() -> aio_health.HealthServicer:
    return aio_health.HealthServicer()   # its conditions belong to the running loop


class AnalysisServer:
    """A built (not yet started) server with its health service. Quacks like ``grpc.Server``."""

    def __init__(self, main: MainPort, health_status: Health, servicer: HandAnalysisServicer,
                 config: ServerConfig, port: int, front: UnaryFront | None = None) -> None:
        self.main = main
        self.server = main.server
        self.front = front
        self.unary_port = front.port if front is not None else None
        self.servicer = servicer
        self.health = health_status
        self.config = config
        self.port = port
        self.slots = main.slots
        self._stopping = threading.Event()

    def start(self) -> None:
        self.main.start()
        if self.front is not None:
            self.front.start()
        for name in ("", SERVICE_NAME):
            self.health.set(name, SERVING)

    def stop(self, grace: float | None) -> threading.Event:
        if self.front is not None:
            self.front.shutdown(grace or 0.0)
        return self.main.stop(grace)

    def wait_for_termination(self, timeout: float | None = None) -> bool:
        """True when ``timeout`` passed first (as ``grpc.Server``'s)."""
        return not self.main.stopped.wait(timeout)

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
        stopped = self.main.stop(grace)
        if self.front is not None:
            self.front.shutdown(grace)
        stopped.wait()
        self.servicer.ev_pool.shutdown()


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
    main = MainPort(config)
    try:
        return _build(config, main)
    except BaseException:
        main.stop(None).wait()
        raise


def _build(config: ServerConfig, main: MainPort) -> AnalysisServer:
    server, guard = main.server, main.guard   # methods are registered with the guard
    servicer = HandAnalysisServicer(max_batch=config.max_batch,
                                    kernel_threads=config.kernel_threads,
                                    max_message_size=config.max_message_size,
                                    ev_workers=config.ev_workers, ev_queue=config.ev_queue,
                                    ev_max_seconds=config.ev_max_seconds,
                                    ev_max_nodes=config.ev_max_nodes)
    add_to_server(servicer, guard)
    for name in OFFLOADED:
        guard.pools[f"/{SERVICE_NAME}/{name}"] = servicer.ev_pool
    health_status = Health(main)
    health_pb2_grpc.add_HealthServicer_to_server(health_status.aio, guard)
    for name in ("", SERVICE_NAME):
        health_status.set(name, NOT_SERVING)
    if config.reflection:
        add_reflection((SERVICE_NAME, health.SERVICE_NAME), guard)
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
            unary_methods(servicer, health_status.sync, servicer.ev_pool), config.host,
            config.unary_port,
            token=config.token, max_message=config.unary_limit, limits=config,
            tls=(tls_context(str(config.tls_cert), str(config.tls_key),
                             str(config.client_ca) if config.client_ca else None)
                 if config.tls_cert else None),
            reuse_port=config.processes > 1)
        try:
            front.bind()
        except OSError as err:
            raise OSError(bind_error(err, config.host, config.unary_port)) from None
    return AnalysisServer(main, health_status, servicer, config, port, front)


def grpc_options(config: ServerConfig) -> list[tuple[str, int]]:
    """grpcio channel arguments for the main port's limits (see ServerConfig)."""
    def ms(seconds: float) -> int:
        return int(seconds * 1000)

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
        return ServerProcesses(config, build, serve_until).run(ready)
    stop = threading.Event()
    previous = on_stop_signals(stop.set)
    try:
        serve_until(build(config), stop, ready)
    finally:
        restore_signals(previous)
    return 0


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


def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``; None elsewhere (musl has none)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


def serve_until(built: AnalysisServer, stop: threading.Event,
                ready: Callable[[int], None] | None) -> None:
    return_large_buffers_to_the_os()
    built.main.trim_heap_when_idle()
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
