"""Health, graceful shutdown (in-process and by signal), and the `mjcore serve` command."""
from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import grpc
import numpy as np
import pytest
from click.testing import CliRunner
from grpc_health.v1 import health_pb2, health_pb2_grpc

from mjcore import batch
from mjcore.client import Client, ServiceError
from mjcore.service import ServerConfig
from mjcore.wire.v1 import analysis_service_pb2 as pb
from mjcore.wire.v1 import analysis_service_pb2_grpc as pb_grpc
from mjcore.wire.v1 import types_pb2

from .service_helpers import TOKEN, random_counts, start

SERVICE = "mjcore.v1.HandAnalysisService"


def _health(port: int, service: str = "") -> int:
    with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
        return health_pb2_grpc.HealthStub(ch).Check(
            health_pb2.HealthCheckRequest(service=service), timeout=2).status


def _wait_for(predicate, seconds: float = 1.5) -> bool:
    give_up = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > give_up:
            return False
        time.sleep(0.02)
    return True


def test_health_during_graceful_shutdown():
    server, port = start(ServerConfig(port=0, max_batch=1 << 16, grace=10, drain=2.0))
    assert _health(port) == _health(port, SERVICE) == health_pb2.HealthCheckResponse.SERVING
    counts = random_counts(1 << 16, 13, 7)
    expected = batch.shanten(counts).shanten
    req = pb.StreamShantenRequest(hands=types_pb2.PackedHands(
        encoding=types_pb2.HAND_ENCODING_COUNTS_U8, data=counts.tobytes()))
    release = threading.Event()
    results: list = []

    def slow_requests():
        yield req
        release.wait(5)       # the stream stays in flight while the server shuts down
        yield req

    def in_flight():
        with grpc.insecure_channel(f"127.0.0.1:{port}", options=[
                ("grpc.max_receive_message_length", 1 << 26)]) as ch:
            stub = pb_grpc.HandAnalysisServiceStub(ch)
            results.extend(stub.StreamShanten(slow_requests(), timeout=20))

    t = threading.Thread(target=in_flight)
    t.start()
    give_up = time.monotonic() + 10
    while server.servicer.batches_done < 1 and time.monotonic() < give_up:
        time.sleep(0.01)
    assert server.servicer.batches_done == 1
    stopper = threading.Thread(target=server.shutdown)
    stopper.start()
    assert _wait_for(lambda: _health(port) == health_pb2.HealthCheckResponse.NOT_SERVING)
    assert _health(port, SERVICE) == health_pb2.HealthCheckResponse.NOT_SERVING
    release.set()
    t.join(10)
    stopper.join(15)
    assert len(results) == 2
    for r in results:
        assert np.array_equal(np.frombuffer(r.shanten, np.int8), expected)
    with pytest.raises(grpc.RpcError):
        _health(port)


@contextlib.contextmanager
def _served(*args: str, env: dict | None = None) -> Iterator[tuple[subprocess.Popen, int]]:
    """A `mjcore serve` process on a free port; killed on the way out if still running (its
    pipes closed and the process reaped by ``Popen.__exit__``)."""
    with subprocess.Popen([sys.executable, "-c", "from mjcore.cli import main; main()",
                           "serve", "--port", "0", *args],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          env={**os.environ, **(env or {})}) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        try:
            line = proc.stdout.readline()
            assert line.startswith("listening on "), (line, proc.stderr.read()
                                                      if proc.poll() else "")
            yield proc, int(line.split()[2].rsplit(":", 1)[1])
        finally:
            if proc.poll() is None:
                proc.kill()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signal_shuts_down_gracefully_with_exit_0(sig):
    with _served("--drain", "2", "--grace", "2") as (proc, port):
        with Client(f"127.0.0.1:{port}") as c:
            assert c.health() == "SERVING"
            proc.send_signal(sig)
            assert _wait_for(lambda: c.health() == "NOT_SERVING")
        assert proc.wait(10) == 0


def test_serve_settings_from_environment(tmp_path):
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    with _served(env={"MJCORE_TOKEN_FILE": str(token_file), "MJCORE_MAX_BATCH": "10",
                             "MJCORE_HOST": "127.0.0.1", "MJCORE_DRAIN": "0"}) as (proc, port):
        with Client(f"127.0.0.1:{port}", token=TOKEN, retries=0) as c:
            assert len(c.shanten(random_counts(10, 13, 1))) == 10
            with pytest.raises(ServiceError) as err:
                c.shanten(random_counts(11, 13, 1))
            assert err.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED
        with Client(f"127.0.0.1:{port}", retries=0) as c:
            with pytest.raises(ServiceError) as err:
                c.rule_presets()
            assert err.value.code == grpc.StatusCode.UNAUTHENTICATED
        proc.terminate()
        assert proc.wait(10) == 0


def test_serve_rejects_bad_settings(tmp_path):
    from mjcore.cli import main

    empty = tmp_path / "empty"
    empty.write_text("\n")
    runner = CliRunner()
    r = runner.invoke(main, ["serve", "--port", "0", "--token-file", str(empty)])
    assert r.exit_code == 2 and "empty" in r.output
    cert = tmp_path / "cert.pem"
    cert.write_text("x")
    r = runner.invoke(main, ["serve", "--port", "0", "--tls-cert", str(cert)])
    assert r.exit_code == 2 and "tls_key" in r.output
    r = runner.invoke(main, ["serve", "--help"])
    assert r.exit_code == 0 and "MJCORE_PORT" in r.output


def test_serve_reports_an_address_in_use():
    import socket

    from mjcore.cli import main

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        r = CliRunner().invoke(main, ["serve", "--port", str(s.getsockname()[1])])
    assert r.exit_code == 1 and "cannot serve" in r.output


_ENGINE_PROBE = ("import os, sys; from mjcore.cli.serve import _select_io_engine; "
                 "_select_io_engine(sys.argv[1]); print(os.environ.get('GRPC_EXPERIMENTS', ''))")


@pytest.mark.parametrize(("engine", "preset", "expected"), [
    ("legacy", None, "-event_engine_client,-event_engine_listener,-event_engine_callback_cq"),
    ("event-engine", None, ""),
    ("legacy", "-event_engine_client", "-event_engine_client"),   # the user's setting wins
])
def test_io_engine_sets_grpc_experiments_before_grpc_starts(engine, preset, expected):
    env = {k: v for k, v in os.environ.items() if k != "GRPC_EXPERIMENTS"}
    if preset is not None:
        env["GRPC_EXPERIMENTS"] = preset
    out = subprocess.run([sys.executable, "-c", _ENGINE_PROBE, engine], env=env,
                         capture_output=True, text=True, check=True).stdout
    assert out.strip() == expected


def test_io_engine_is_left_alone_once_grpc_is_imported(monkeypatch):
    from mjcore.cli.serve import _select_io_engine

    monkeypatch.delenv("GRPC_EXPERIMENTS", raising=False)
    assert "grpc" in sys.modules
    _select_io_engine("legacy")
    assert "GRPC_EXPERIMENTS" not in os.environ


@pytest.mark.parametrize("engine", ["legacy", "event-engine"])
def test_served_process_with_each_io_engine(engine, certs):
    """Mutual TLS, the token, bulk and unary calls in a `mjcore serve` process per engine."""
    token_file = certs["ca"].parent / "token"
    token_file.write_text(TOKEN + "\n")
    env = {k: v for k, v in os.environ.items() if k != "GRPC_EXPERIMENTS"}
    with _served("--drain", "0", "--io-engine", engine, "--tls-cert",
                        str(certs["server"]), "--tls-key", str(certs["server.key"]),
                        "--client-ca", str(certs["ca"]), "--token-file", str(token_file),
                        env=env) as (proc, port):
        with Client(f"localhost:{port}", token=TOKEN, root_certificates=certs["ca"],
                    client_cert=certs["client"], client_key=certs["client.key"],
                    timeout=10, retries=0) as c:
            counts = random_counts(300, 13, 9)
            assert np.array_equal(c.shanten(counts).shanten, batch.shanten(counts).shanten)
            assert int(c.analyze("123m456p789s1122z").shanten) == 0
        proc.terminate()
        assert proc.wait(10) == 0
