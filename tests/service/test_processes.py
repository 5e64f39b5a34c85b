"""`mjcore serve --processes N`: pre-forked servers on one port (SO_REUSEPORT, Linux only)."""
from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import grpc
import numpy as np
import psutil
import pytest
from click.testing import CliRunner

import mjcore
from mjcore import batch
from mjcore.cli import main
from mjcore.hand import Hand
from mjcore.tiles import format_counts
from mjcore.wire.v1 import analysis_service_pb2 as pb
from mjcore.wire.v1 import analysis_service_pb2_grpc as pb_grpc
from mjcore.wire.v1 import types_pb2

from .service_helpers import TOKEN, random_counts

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="--processes > 1 needs SO_REUSEPORT (Linux)")

AUTH = (("authorization", f"Bearer {TOKEN}"),)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def _served(*args: str, env: dict | None = None) -> Iterator[tuple[subprocess.Popen, int]]:
    """`mjcore serve --drain 0 ARGS`; on the way out the whole process tree is killed."""
    proc = subprocess.Popen([sys.executable, "-c", "from mjcore.cli import main; main()",
                             "serve", "--drain", "0", "--grace", "2", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **(env or {})})
    assert proc.stdout is not None and proc.stderr is not None
    children: list[psutil.Process] = []
    try:
        line = proc.stdout.readline()
        assert line.startswith("listening on "), (line, proc.stderr.read() if proc.poll() else "")
        children = psutil.Process(proc.pid).children()
        yield proc, int(line.split()[2].rsplit(":", 1)[1])
    finally:
        for child in children:
            with contextlib.suppress(psutil.NoSuchProcess):
                child.kill()
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)
        for pipe in (proc.stdout, proc.stderr):
            pipe.close()


def _children(proc: subprocess.Popen) -> list[int]:
    return sorted(c.pid for c in psutil.Process(proc.pid).children())


def _connections_held(pid: int, port: int) -> int:
    """Established TCP connections on ``port`` that process ``pid`` holds (psutil, /proc)."""
    return sum(1 for c in psutil.Process(pid).net_connections("tcp")
               if c.laddr and c.laddr.port == port and c.status == psutil.CONN_ESTABLISHED)


def _all_gone(pids: list[int], seconds: float = 5.0) -> bool:
    give_up = time.monotonic() + seconds
    while time.monotonic() < give_up:
        if not any(psutil.pid_exists(p) and psutil.Process(p).status() != psutil.STATUS_ZOMBIE
                   for p in pids):
            return True
        time.sleep(0.05)
    return False


def _check_answers(stub, seed: int) -> None:
    """A few AnalyzeHand calls and one StreamShanten batch equal the in-process library."""
    for counts in random_counts(4, 13, seed):
        text = format_counts(counts)
        r = stub.AnalyzeHand(pb.AnalyzeHandRequest(hand=text), metadata=AUTH, timeout=10)
        hand = Hand.parse(text)
        want = mjcore.ukeire(hand)
        assert r.shanten.standard == mjcore.shanten(hand).standard
        assert r.ukeire.shanten == want.shanten
        assert len(r.ukeire.options) == len(want.options)
    counts = random_counts(500, 13, seed + 1)
    req = pb.StreamShantenRequest(hands=types_pb2.PackedHands(
        encoding=types_pb2.HAND_ENCODING_COUNTS_U8, data=counts.tobytes()))
    (got,) = stub.StreamShanten(iter([req]), metadata=AUTH, timeout=10)
    assert np.array_equal(np.frombuffer(got.shanten, np.int8), batch.shanten(counts).shanten)


def test_two_processes_share_the_port_then_stop_on_sigterm(tmp_path):
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    port = _free_port()
    with _served("--processes", "2", "--port", str(port), "--token-file",
                 str(token_file)) as (proc, bound):
        assert bound == port
        children = _children(proc)
        assert len(children) == 2
        # each channel has its own connection; the kernel hands each to one of the children
        channels: list[grpc.Channel] = []
        try:
            while len(channels) < 24 and (len(channels) < 4 or not all(
                    _connections_held(pid, port) for pid in children)):
                channel = grpc.insecure_channel(f"127.0.0.1:{port}",
                                                options=[("grpc.use_local_subchannel_pool", 1)])
                channels.append(channel)
                _check_answers(pb_grpc.HandAnalysisServiceStub(channel), 100 + len(channels))
            held = [_connections_held(pid, port) for pid in children]
            assert all(held) and sum(held) == len(channels), held
            for i, channel in enumerate(channels):
                stub = pb_grpc.HandAnalysisServiceStub(channel)
                _check_answers(stub, 1000 + i)
                with pytest.raises(grpc.RpcError) as err:     # the token holds in each child
                    stub.ListRulePresets(pb.ListRulePresetsRequest(), timeout=10)
                assert err.value.code() == grpc.StatusCode.UNAUTHENTICATED
        finally:
            for channel in channels:
                channel.close()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(15) == 0
        assert _all_gone(children) and proc.stderr is not None
        log = proc.stderr.read()
        assert all(f"[{pid}] received SIGTERM" in log for pid in children), log


def test_a_child_killed_stops_the_others_and_fails():
    with _served("--port", "0", env={"MJCORE_PROCESSES": "2"}) as (proc, port):
        victim, other = _children(proc)
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = pb_grpc.HandAnalysisServiceStub(channel)
            assert stub.AnalyzeHand(pb.AnalyzeHandRequest(hand="123m456p789s1122z"),
                                    timeout=10).shanten.standard == 0
        os.kill(victim, signal.SIGKILL)
        assert proc.wait(15) != 0
        assert _all_gone([victim, other]) and proc.stderr is not None
        assert f"server process {victim} was killed by SIGKILL" in proc.stderr.read()



def test_children_stop_when_the_parent_is_killed():
    with _served("--processes", "2", "--port", "0") as (proc, _port):
        children = _children(proc)
        proc.kill()                  # no forwarding possible: PR_SET_PDEATHSIG stops them
        proc.wait(10)
        assert _all_gone(children, 10.0)


def _serve_on(port: int, processes: int) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from mjcore.cli import main; main()", "serve",
                           "--port", str(port), "--processes", str(processes), "--drain", "0"],
                          capture_output=True, text=True, timeout=60, check=False)


def test_a_port_in_use_is_an_error_for_one_or_many_processes():
    # a listener that allows SO_REUSEPORT: only a server that sets it too could join it
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        for processes in (1, 2):
            r = _serve_on(port, processes)
            assert r.returncode == 1 and "cannot serve" in r.stderr, (processes, r.stderr)
    assert "in use" in r.stderr


def test_a_child_that_cannot_start_fails_the_command(tmp_path):
    bad = tmp_path / "bad.pem"
    bad.write_text("not a certificate\n")
    r = subprocess.run([sys.executable, "-c", "from mjcore.cli import main; main()", "serve",
                        "--port", "0", "--processes", "2", "--tls-cert", str(bad),
                        "--tls-key", str(bad)], capture_output=True, text=True, timeout=60,
                       check=False)
    assert r.returncode == 1 and "cannot serve" in r.stderr
    assert "listening" not in r.stdout


def test_processes_setting_is_validated():
    r = CliRunner().invoke(main, ["serve", "--processes", "0"])
    assert r.exit_code == 2 and "--processes" in r.output
    r = CliRunner().invoke(main, ["serve", "--help"])
    assert "MJCORE_PROCESSES" in r.output


# serve() in a fresh interpreter; SIGTERM reaches a thread other than the main one, as it may
# when the kernel delivers a process-directed signal to one of grpc's threads
_SIGNAL_ON_A_THREAD = """
import signal, sys, threading, time
from mjcore.service import ServerConfig, serve

def ready(port):
    def hit():
        time.sleep(0.3)   # the main thread is waiting by now
        signal.pthread_kill(threading.get_ident(), signal.SIGTERM)
    threading.Thread(target=hit).start()

sys.exit(serve(ServerConfig(port=0, drain=0, grace=0, processes=int(sys.argv[1])), ready))
"""


@pytest.mark.parametrize("processes", [1, 2])
def test_a_signal_landing_on_another_thread_still_stops_the_server(processes):
    r = subprocess.run([sys.executable, "-c", _SIGNAL_ON_A_THREAD, str(processes)],
                       capture_output=True, text=True, timeout=30, check=False)
    assert r.returncode == 0, r.stderr
