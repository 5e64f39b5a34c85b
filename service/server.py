"""Build and run the gRPC server: the analysis service, health, reflection, auth and TLS."""
from __future__ import annotations

import gc
import logging
import signal
import threading
from collections.abc import Callable
from concurrent import futures
from pathlib import Path

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from .auth import TokenAuthInterceptor
from .config import ServerConfig
from .gen.mjcore.v1 import analysis_service_pb2, analysis_service_pb2_grpc
from .servicer import HandAnalysisServicer

log = logging.getLogger("mjcore.service")

SERVICE_NAME = analysis_service_pb2.DESCRIPTOR.services_by_name["HandAnalysisService"].full_name


class AnalysisServer:
    """A built (not yet started) server with its health service. Quacks like ``grpc.Server``."""

    def __init__(self, server: grpc.Server, health_servicer: health.HealthServicer,
                 servicer: HandAnalysisServicer, config: ServerConfig, port: int) -> None:
        self.server = server
        self.servicer = servicer
        self.health = health_servicer
        self.config = config
        self.port = port
        self._stopping = threading.Event()

    def start(self) -> None:
        self.server.start()
        for name in ("", SERVICE_NAME):
            self.health.set(name, health_pb2.HealthCheckResponse.SERVING)

    def stop(self, grace: float | None) -> threading.Event:
        return self.server.stop(grace)

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
        self.server.stop(grace).wait()


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
    interceptors = [TokenAuthInterceptor(config.token)] if config.token else []
    options = [
        ("grpc.max_receive_message_length", config.max_message_size),
        ("grpc.max_send_message_length", config.max_message_size),
        ("grpc.so_reuseport", 0),
    ]
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=config.workers, thread_name_prefix="mjcore-rpc"),
        interceptors=interceptors, options=options, maximum_concurrent_rpcs=None)
    servicer = HandAnalysisServicer(max_batch=config.max_batch,
                                    kernel_threads=config.kernel_threads,
                                    max_message_size=config.max_message_size)
    analysis_service_pb2_grpc.add_HandAnalysisServiceServicer_to_server(servicer, server)
    health_servicer = health.HealthServicer(
        experimental_non_blocking=True,
        experimental_thread_pool=futures.ThreadPoolExecutor(max_workers=2))
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    for name in ("", SERVICE_NAME):
        health_servicer.set(name, health_pb2.HealthCheckResponse.NOT_SERVING)
    reflection.enable_server_reflection(
        (SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), server)
    creds = _credentials(config)
    if creds is None:
        port = server.add_insecure_port(config.address)
    else:
        port = server.add_secure_port(config.address, creds)
    if port == 0:
        raise OSError(f"could not bind {config.address}")
    return AnalysisServer(server, health_servicer, servicer, config, port)


def build_server(config: ServerConfig) -> tuple[AnalysisServer, int]:
    """The server factory: ``(server, bound port)``; call ``server.start()`` to serve."""
    built = build(config)
    return built, built.port


def serve(config: ServerConfig, ready: Callable[[AnalysisServer], None] | None = None) -> int:
    """Run until SIGTERM or SIGINT, then shut down gracefully; returns the exit status 0."""
    built = build(config)
    stop = threading.Event()

    def on_signal(signum, frame):
        log.info("received %s, shutting down", signal.Signals(signum).name)
        stop.set()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        built.start()
        # startup objects (modules, descriptors) leave the collector's view: collections on
        # the RPC path then scan only the calls' own objects, which shortens the pauses
        gc.freeze()
        if ready is not None:
            ready(built)
        while not stop.wait(3600):
            pass
        built.shutdown()
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    return 0
