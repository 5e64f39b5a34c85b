"""``mjcore serve``: run the gRPC hand-analysis service until SIGTERM/SIGINT."""
from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable
from typing import Any

import click

# gRPC core experiments turned off by ``--io-engine legacy``: with them off, the thread waiting
# on a completion queue also polls the sockets, which saves thread hops on every call.
EVENT_ENGINE_EXPERIMENTS = ("event_engine_client", "event_engine_listener",
                            "event_engine_callback_cq")


def _select_io_engine(engine: str) -> None:
    """Set GRPC_EXPERIMENTS for ``engine`` before grpc is imported; an explicit
    GRPC_EXPERIMENTS in the environment wins. In a process that has imported grpc already
    (``serve`` called from Python), grpc keeps the engine it started with."""
    if engine != "legacy" or "GRPC_EXPERIMENTS" in os.environ:
        return
    if "grpc" in sys.modules:
        logging.getLogger("mjcore.service").warning(
            "grpc already imported: --io-engine legacy has no effect in this process")
        return
    os.environ["GRPC_EXPERIMENTS"] = ",".join(f"-{name}" for name in EVENT_ENGINE_EXPERIMENTS)


# Limits against misbehaving clients: (flag, ServerConfig field, type, help). Their defaults
# live in ServerConfig (service/config.py) and service/README.md ("Limits") lists them.
SECONDS = click.FloatRange(0, min_open=True)
LIMIT_OPTIONS = (
    ("--unary-max-message-size", "unary_max_message_size", click.IntRange(1024),
     "Largest unary request in bytes (bulk streams: --max-message-size). [64 KiB]"),
    ("--receive-timeout", "receive_timeout", SECONDS,
     "Seconds a unary call may take to send its request message (both ports). [10]"),
    ("--stream-timeout", "stream_timeout", SECONDS,
     "Main port: seconds a bulk stream may take to send each batch or end. [120]"),
    ("--max-receiving", "max_receiving", click.IntRange(1),
     ("Main port: calls that may wait for a request message at once (each may buffer up to "
      "--max-message-size); past it the oldest waits end once 0.5 s old. [16]")),
    ("--max-receiving-per-peer", "max_receiving_per_peer", click.IntRange(1),
     ("Main port: calls of one client host that may wait for a request message at once; past "
      "it that host's oldest waits end once 0.5 s old. [4]")),
    ("--max-concurrent-calls", "max_concurrent_calls", click.IntRange(1),
     "Main-port calls running or queued; more are RESOURCE_EXHAUSTED. [1024]"),
    ("--max-calls-per-peer", "max_calls_per_peer", click.IntRange(1),
     "Main-port calls of one client host in progress; more are RESOURCE_EXHAUSTED. [256]"),
    ("--max-streams-per-connection", "max_streams_per_connection", click.IntRange(1),
     "Concurrent calls on one HTTP/2 connection (both ports). [100]"),
    ("--max-connections", "max_connections", click.IntRange(1),
     "Open connections per port. [1024]"),
    ("--handshake-timeout", "handshake_timeout", SECONDS,
     "Seconds for the TLS handshake and the HTTP/2 preface (both ports). [10]"),
    ("--idle-timeout", "idle_timeout", SECONDS,
     "Seconds without a call before a connection is closed (both ports). [300]"),
    ("--keepalive-interval", "keepalive_interval", SECONDS,
     "Seconds of silence from a peer before a keepalive PING (both ports). [60]"),
    ("--keepalive-timeout", "keepalive_timeout", SECONDS,
     "Seconds a keepalive PING may go unanswered before the connection is closed. [20]"),
    ("--max-connection-age", "max_connection_age", SECONDS,
     "Main port: seconds after which a connection is asked to go away. [3600]"),
    ("--max-connection-age-grace", "max_connection_age_grace", SECONDS,
     "Main port: seconds the calls of an aged connection get to finish. [60]"),
    ("--header-timeout", "header_timeout", SECONDS,
     "Front: seconds for a header block split over CONTINUATION frames. [10]"),
    ("--write-timeout", "write_timeout", SECONDS,
     "Front: seconds a peer may take no answer bytes before it is dropped. [30]"),
    ("--connection-buffer", "connection_buffer", click.IntRange(65535),
     "Front: request bytes one connection may have buffered (its HTTP/2 window). [1 MiB]"),
    ("--process-buffer", "process_buffer", click.IntRange(65535),
     "Front: request bytes all connections may have buffered together. [64 MiB]"),
    ("--calm-limit", "calm_limit", click.IntRange(1),
     ("Front: resets, error-only streams and control frames per connection in 10 s before "
      "GOAWAY ENHANCE_YOUR_CALM. [1000]")),
    ("--ev-workers", "ev_workers", click.IntRange(1),
     "Threads computing ExpectedValues, shared by both ports. [cores]"),
    ("--ev-queue", "ev_queue", click.IntRange(0),
     "ExpectedValues calls that may wait for a thread; more are RESOURCE_EXHAUSTED at once "
     "(SERVER_BUSY, with a retry hint). [4 x cores]"),
    ("--ev-max-seconds", "ev_max_seconds", click.FloatRange(0, 600, min_open=True),
     "Longest expected-value search (a call's deadline, when nearer, stops it first). [5]"),
    ("--ev-max-nodes", "ev_max_nodes", click.IntRange(1, 50_000_000),
     "Most nodes of one expected-value search (about 220 bytes each). [2,000,000]"),
)


def limit_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The LIMIT_OPTIONS as click options (env MJCORE_<FIELD>), unset = ServerConfig's default."""
    for flag, field, kind, text in reversed(LIMIT_OPTIONS):
        env = f"MJCORE_{field.upper()}"
        command = click.option(flag, field, type=kind, default=None, envvar=env,
                               help=f"{text} [env {env}]")(command)
    return command


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, envvar="MJCORE_HOST",
              help="Bind address; 0.0.0.0 or :: to expose the service. [env MJCORE_HOST]")
@click.option("--port", default=50051, show_default=True, type=click.IntRange(0, 65535),
              envvar="MJCORE_PORT", help="TCP port; 0 picks a free one. [env MJCORE_PORT]")
@click.option("--workers", default=None, type=click.IntRange(1), envvar="MJCORE_WORKERS",
              help="RPC worker threads (default: max(8, 4 x cores)). [env MJCORE_WORKERS]")
@click.option("--kernel-threads", default=1, show_default=True, type=click.IntRange(1),
              envvar="MJCORE_KERNEL_THREADS",
              help="Threads per bulk kernel call. [env MJCORE_KERNEL_THREADS]")
@click.option("--max-message-size", default=16 * 1024 * 1024, show_default=True,
              type=click.IntRange(1024), envvar="MJCORE_MAX_MESSAGE_SIZE",
              help="Largest request or response in bytes. [env MJCORE_MAX_MESSAGE_SIZE]")
@click.option("--max-batch", default=1 << 18, show_default=True, type=click.IntRange(1),
              envvar="MJCORE_MAX_BATCH",
              help="Most hands in one bulk batch; more is RESOURCE_EXHAUSTED. "
                   "[env MJCORE_MAX_BATCH]")
@click.option("--tls-cert", type=click.Path(exists=True, dir_okay=False), envvar="MJCORE_TLS_CERT",
              help="PEM server certificate (chain); enables TLS. [env MJCORE_TLS_CERT]")
@click.option("--tls-key", type=click.Path(exists=True, dir_okay=False), envvar="MJCORE_TLS_KEY",
              help="PEM private key of --tls-cert. [env MJCORE_TLS_KEY]")
@click.option("--client-ca", type=click.Path(exists=True, dir_okay=False),
              envvar="MJCORE_CLIENT_CA",
              help="PEM CA bundle; clients must present a certificate it signed (mutual TLS). "
                   "[env MJCORE_CLIENT_CA]")
@click.option("--token-file", type=click.Path(exists=True, dir_okay=False),
              envvar="MJCORE_TOKEN_FILE",
              help="File whose first line is the bearer token every analysis RPC must send "
                   "(health and reflection need none). "
                   "[env MJCORE_TOKEN_FILE]")
@click.option("--grace", default=10.0, show_default=True, type=click.FloatRange(0),
              envvar="MJCORE_GRACE",
              help="Seconds in-flight RPCs get to finish on shutdown. [env MJCORE_GRACE]")
@click.option("--drain", default=1.0, show_default=True, type=click.FloatRange(0),
              envvar="MJCORE_DRAIN",
              help="Seconds health reports NOT_SERVING before the server stops taking calls. "
                   "[env MJCORE_DRAIN]")
@click.option("--processes", default=1, show_default=True, type=click.IntRange(1),
              envvar="MJCORE_PROCESSES",
              help="Server processes sharing the port through SO_REUSEPORT (Linux), each with "
                   "its own grpc, GIL and --workers threads; with --port 0 the first picks the "
                   "port. [env MJCORE_PROCESSES]")
@click.option("--unary-port", default=None, type=click.IntRange(0, 65535),
              envvar="MJCORE_UNARY_PORT",
              help="Also serve the unary RPCs and health Check on this port through the "
                   "compiled HTTP/2 front: several times cheaper per call than the main port. "
                   "Streaming RPCs stay on --port. Same TLS and token. [env MJCORE_UNARY_PORT]")
@click.option("--io-engine", type=click.Choice(["legacy", "event-engine"]), default="legacy",
              show_default=True, envvar="MJCORE_IO_ENGINE",
              help="gRPC core I/O: legacy (the polling thread reads the sockets; lower unary "
                   "latency) or event-engine (grpc's default). [env MJCORE_IO_ENGINE]")
@click.option("--reflection/--no-reflection", default=True, show_default=True,
              envvar="MJCORE_REFLECTION",
              help="List the services through gRPC server reflection. [env MJCORE_REFLECTION]")
@limit_options
def serve(host: str, port: int, workers: int | None, kernel_threads: int,
          max_message_size: int, max_batch: int, tls_cert: str | None, tls_key: str | None,
          client_ca: str | None, token_file: str | None, grace: float, drain: float,
          processes: int, unary_port: int | None, io_engine: str, reflection: bool,
          **limits: float | None) -> None:
    """Serve the gRPC hand-analysis API (proto/mjcore/v1) with health and reflection.

    Prints "listening on HOST:PORT" when ready. SIGTERM or SIGINT: health goes NOT_SERVING,
    in-flight calls get --grace seconds, then the process exits with status 0. With
    --processes N the signal goes to every server process; the exit status is 0 when all of
    them stopped cleanly, 1 when one failed (the others are then stopped too).
    """
    from pathlib import Path

    _select_io_engine(io_engine)
    try:
        from mjcore.service import ServerConfig, read_token_file
        from mjcore.service import serve as run
    except ImportError as err:
        if (err.name or "").partition(".")[0] not in ("grpc", "grpc_health", "grpc_reflection",
                                                      "grpc_status", "google"):
            raise
        raise click.ClickException(
            f"mjcore serve needs the service extra ({err.name} is missing): "
            "pip install 'mjcore[service]'") from None

    pid = " [%(process)d]" if processes > 1 else ""
    logging.basicConfig(level=logging.INFO, format=f"%(asctime)s %(name)s{pid} %(message)s")
    settings: dict[str, Any] = {name: value for name, value in limits.items() if value is not None}
    if workers is not None:
        settings["workers"] = workers
    try:
        config = ServerConfig(
            host=host, port=port, max_message_size=max_message_size, max_batch=max_batch,
            tls_cert=Path(tls_cert) if tls_cert else None,
            tls_key=Path(tls_key) if tls_key else None,
            client_ca=Path(client_ca) if client_ca else None,
            token=read_token_file(token_file) if token_file else None,
            kernel_threads=kernel_threads, grace=grace, drain=drain, processes=processes,
            unary_port=unary_port, reflection=reflection, **settings)
    except (ValueError, OSError) as err:
        raise click.UsageError(str(err)) from None

    def ready(port: int) -> None:
        scheme = "tls" if config.tls_cert else "plaintext"
        auth = ", token required" if config.token else ""
        procs = f", {processes} processes" if processes > 1 else ""
        click.echo(f"listening on {config.host}:{port} ({scheme}{auth}{procs})")
        sys.stdout.flush()

    if processes == 1:     # (ServerProcesses checks these itself)
        _check_before_binding(config)
    try:
        status = run(config, ready=ready)
    except (OSError, RuntimeError) as err:  # unbindable address, unreadable certificates
        raise click.ClickException(f"cannot serve on {config.address}: {err}") from None
    sys.exit(status)


def _check_before_binding(config) -> None:  # type: ignore[no-untyped-def]
    """Name the cause that grpc reports only as "Failed to bind ... set GRPC_VERBOSITY=debug":
    a TLS certificate and key that do not load or match, or a port in use."""
    import ssl

    from mjcore.service.processes import check_port_free

    if config.tls_cert is not None:
        try:
            ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER).load_cert_chain(config.tls_cert,
                                                                    config.tls_key)
        except (ssl.SSLError, OSError) as err:
            why = getattr(err, "reason", None) or err.strerror or str(err)
            raise click.ClickException(
                f"--tls-cert {str(config.tls_cert)!r} / --tls-key {str(config.tls_key)!r}: not "
                f"a PEM certificate chain and its private key ({why})") from None
    if config.port:
        try:
            check_port_free(config.host, config.port)
        except OSError as err:
            raise click.ClickException(f"cannot serve on {config.address}: "
                                       f"{err.strerror or err}") from None
