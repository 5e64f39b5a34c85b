"""gRPC service benchmarks on loopback, client and server sharing this machine.

    python benchmarks/bench_service.py            # the table of issue 4's targets
    python benchmarks/bench_service.py --only h2load   # AnalyzeHand from h2load (a compiled
                                                       # client), main port and unary front,
                                                       # mjcore serve --processes 1, 2
    python benchmarks/bench_service.py --only front-floor   # the unary front, empty handler
    python -m pytest benchmarks/bench_service.py --benchmark-only   # pytest-benchmark form

The server runs in its own process (``mjcore serve``); the in-process batch API is measured on
the same seeded hands in the same run. Targets: streaming bulk shanten >= 5 M hands/s,
streaming bulk scoring >= 500 k hands/s, unary AnalyzeHand p50 <= 300 us and p99 <= 2 ms at
8 concurrent clients.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mjcore import batch
from mjcore.client import Client
from mjcore.riichi.batch_scoring import encode_meld
from mjcore.riichi.batch_scoring import score as score_batch
from mjcore.tiles import format_counts

SEED = 20261129


# -- seeded corpora -----------------------------------------------------------------------------

def wall_hands(n: int, tiles: int, seed: int = SEED) -> np.ndarray:
    """``n`` hands of ``tiles`` tiles, each drawn from its own shuffled 136-tile wall."""
    rng = np.random.default_rng(seed)
    out = np.zeros((n, 34), dtype=np.uint8)
    step = 1 << 15
    for start in range(0, n, step):
        m = min(step, n - start)
        ids = rng.random((m, 136)).argsort(axis=1)[:, :tiles] // 4
        np.add.at(out[start:start + m], (np.repeat(np.arange(m), tiles), ids.ravel()), 1)
    return out


def winning_hands(n: int, seed: int = SEED) -> dict[str, Any]:
    """Arrays for ``mjcore.riichi.batch_scoring.score``: random complete hands (0-2 called melds),
    random winning tile, tsumo/ron, riichi, winds, one dora indicator (of a kind the hand and
    melds leave a copy of), honba and sticks."""
    rng = np.random.default_rng(seed)
    counts = np.zeros((n, 34), np.uint8)
    melds = np.full((n, 4), 0xFFFF, np.uint16)
    win = np.zeros(n, np.uint8)
    flags = np.zeros(n, np.uint16)
    dora = np.zeros((n, 1), np.uint8)
    for i in range(n):
        total = np.zeros(34, np.int64)
        n_melds = int(rng.choice(3, p=[0.6, 0.3, 0.1]))
        pair = int(rng.integers(34))
        total[pair] += 2
        closed = np.zeros(34, np.int64)
        closed[pair] += 2
        placed = 0
        while placed < 4:
            if rng.random() < 0.6:
                suit, start = int(rng.integers(3)), int(rng.integers(7))
                kinds = [9 * suit + start + j for j in range(3)]
                kind_code = 0
            else:
                kinds = [int(rng.integers(34))] * 3
                kind_code = 1
            trial = total.copy()
            for k in kinds:
                trial[k] += 1
            if trial.max() > 4:
                continue
            total = trial
            if placed < n_melds:
                melds[i, placed] = encode_meld(kind_code, min(kinds), 0, int(rng.integers(1, 4)))
            else:
                for k in kinds:
                    closed[k] += 1
            placed += 1
        counts[i] = closed
        held = np.flatnonzero(closed)
        win[i] = held[rng.integers(len(held))]
        tsumo = rng.random() < 0.4
        riichi = n_melds == 0 and rng.random() < 0.5
        flags[i] = (1 if tsumo else 0) | (2 if riichi else 0)
        dora[i, 0] = rng.choice(np.flatnonzero(total < 4))
    return {"counts": counts, "win_tile": win, "melds": melds, "flags": flags,
                "seat_wind": rng.integers(0, 4, n).astype(np.uint8),
                "round_wind": rng.integers(0, 2, n).astype(np.uint8),
                "dora": dora,
                "honba": rng.integers(0, 3, n).astype(np.uint16),
                "riichi_sticks": rng.integers(0, 2, n).astype(np.uint16)}


# -- a server in its own process ----------------------------------------------------------------

@contextlib.contextmanager
def server_process(*args: str) -> Iterator[tuple[subprocess.Popen, int]]:
    """``mjcore serve --port 0 ARGS`` in a subprocess; yields (process, port)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", "from mjcore.cli import main; main()", "serve", "--port", "0",
         "--drain", "0", "--grace", "2", *args],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    try:
        line = proc.stdout.readline()
        if not line.startswith("listening on "):
            raise RuntimeError(f"server did not start: {line!r}")
        yield proc, int(line.split()[2].rsplit(":", 1)[1])
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


# what `mjcore serve --io-engine legacy` (the default) sets for the server
LEGACY_IO = "-event_engine_client,-event_engine_listener,-event_engine_callback_cq"
SERVER_ARGS = ("--kernel-threads", "2", "--max-batch", str(1 << 20), "--workers", "16")


# -- measurements -------------------------------------------------------------------------------

def rate(fn, n: int, repeat: int = 3) -> float:
    """Best hands/s of ``repeat`` runs of ``fn()`` over ``n`` hands."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return n / best


class _Schedule:
    """When one latency client sends (perf_counter_ns): back to back when ``gaps`` is None
    (closed loop), else after each of the ``gaps`` in seconds in turn (open loop); ``None``
    once the run's end ``t_end`` is reached."""

    def __init__(self, gaps: np.ndarray | None, t_end: int) -> None:
        self.gaps = gaps
        self.t_end = t_end
        self.due = time.perf_counter_ns()
        self.k = 0

    def next_send(self) -> int | None:
        if self.gaps is None:
            self.due = time.perf_counter_ns()
        else:
            self.due += int(self.gaps[self.k % len(self.gaps)] * 1e9)
            self.k += 1
        return self.due if self.due < self.t_end else None


def _latency_client(port: int, index: int, seconds: float, rate: float | None) -> None:
    """One client process: warm up, print "ready", wait for "go" on stdin, then call
    AnalyzeHand through ``mjcore.client`` (10 s deadline) for ``seconds`` and print JSON:
    each call's latency from its send, and how late the send was against its schedule (ns).
    ``rate`` None = closed loop; else Poisson arrivals at ``rate`` calls/s. Every answer's
    shanten is checked against the library."""
    import json

    import mjcore

    hands = analyse_hands()
    expected = [int(mjcore.shanten(h)) for h in hands]
    rng = np.random.default_rng(SEED + 100 + index)
    order = rng.permutation(len(hands))
    gaps = rng.exponential(1 / rate, 1 << 16) if rate else None
    latency: list[int] = []
    late: list[int] = []
    wrong = 0
    now = time.perf_counter_ns
    with Client(f"127.0.0.1:{port}", timeout=10, retries=0) as c:
        for i in order[:50]:
            c.analyze_raw(hands[i])
        print("ready", flush=True)
        sys.stdin.readline()
        sched = _Schedule(gaps, now() + int(seconds * 1e9))
        k = 0
        while (due := sched.next_send()) is not None:
            wait = due - now()
            if wait > 0:
                time.sleep(wait / 1e9)
            i = order[k % len(order)]
            t0 = now()
            r = c.analyze_raw(hands[i])
            latency.append(now() - t0)
            late.append(t0 - due)
            wrong += r.shanten.shanten != expected[i]
            k += 1
    print(json.dumps({"latency": latency, "late": late, "wrong": wrong}), flush=True)


def _aio_latency_clients(port: int, clients: int, seconds: float, rate: float | None) -> None:
    """``clients`` grpc.aio channels (each its own connection) in this one process, each a
    task calling AnalyzeHand like ``_latency_client``; same ready/go/JSON protocol."""
    import asyncio
    import json

    import grpc

    import mjcore
    from mjcore.wire.v1 import analysis_service_pb2 as pb
    from mjcore.wire.v1 import analysis_service_pb2_grpc as pb_grpc

    hands = analyse_hands()
    expected = [int(mjcore.shanten(h)) for h in hands]
    requests = [pb.AnalyzeHandRequest(hand=h) for h in hands]
    latency: list[int] = []
    late: list[int] = []
    wrong = 0
    now = time.perf_counter_ns

    async def one(index: int, stub, t_end: int) -> None:
        nonlocal wrong
        rng = np.random.default_rng(SEED + 100 + index)
        order = rng.permutation(len(hands))
        gaps = rng.exponential(1 / rate, 1 << 16) if rate else None
        sched = _Schedule(gaps, t_end)
        k = 0
        while (due := sched.next_send()) is not None:
            wait = due - now()
            if wait > 0:
                await asyncio.sleep(wait / 1e9)
            i = order[k % len(order)]
            t0 = now()
            r = await stub.AnalyzeHand(requests[i], timeout=10)
            latency.append(now() - t0)
            late.append(t0 - due)
            wrong += r.shanten.shanten != expected[i]
            k += 1

    async def run() -> None:
        channels = [grpc.aio.insecure_channel(f"127.0.0.1:{port}",
                                              options=[("grpc.use_local_subchannel_pool", 1)])
                    for _ in range(clients)]
        stubs = [pb_grpc.HandAnalysisServiceStub(c) for c in channels]
        for stub in stubs:
            for r in requests[:50]:
                await stub.AnalyzeHand(r, timeout=10)
        print("ready", flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
        t_end = now() + int(seconds * 1e9)
        await asyncio.gather(*(one(i, s, t_end) for i, s in enumerate(stubs)))
        for c in channels:
            await c.close()

    asyncio.run(run())
    print(json.dumps({"latency": latency, "late": late, "wrong": wrong}), flush=True)


def unary_latency(port: int, clients: int, seconds: float, rate: float | None = None,
                  client_env: dict[str, str] | None = None,
                  mode: str = "processes") -> dict[str, float]:
    """AnalyzeHand latency seen by ``clients`` clients, each with its own channel, measured
    client-side from each call's send. ``mode`` "processes": one client process each (sync
    ``mjcore.client``); "aio": one process running every client as a grpc.aio task. ``rate``
    None = closed loop (each client calls again at once); else the clients together make
    ``rate`` calls/s (open loop, Poisson arrivals per client). ``late_p99_us``: how late the
    sends were against their schedule."""
    import json

    per_client = None if rate is None else rate / clients
    env = {**os.environ, **(client_env or {})}
    if mode == "aio":
        commands = [["--aio-latency-clients", str(port), str(clients), str(seconds),
                     str(per_client or 0)]]
    else:
        commands = [["--latency-client", str(port), str(i), str(seconds), str(per_client or 0)]
                    for i in range(clients)]
    procs = [subprocess.Popen([sys.executable, __file__, *command], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, env=env)
             for command in commands]
    try:
        for p in procs:
            assert p.stdout is not None and p.stdin is not None
            if p.stdout.readline().strip() != "ready":
                raise RuntimeError("latency client did not start")
        for p in procs:
            assert p.stdin is not None
            p.stdin.write("go\n")
            p.stdin.flush()
        results = [json.loads(p.stdout.readline()) for p in procs if p.stdout is not None]
    finally:
        for p in procs:
            if p.stdin is not None:
                p.stdin.close()
            p.wait()
    if any(r["wrong"] for r in results):
        raise AssertionError("AnalyzeHand answered a wrong shanten")
    lat = np.concatenate([np.array(r["latency"], dtype=np.float64) for r in results]) / 1e3
    late = np.concatenate([np.array(r["late"], dtype=np.float64) for r in results]) / 1e3
    return {"calls": len(lat), "rps": len(lat) / seconds,
            "p50_us": float(np.percentile(lat, 50)), "p90_us": float(np.percentile(lat, 90)),
            "p99_us": float(np.percentile(lat, 99)), "late_p99_us": float(np.percentile(late, 99))}


def analyse_hands(n: int = 2000) -> list[str]:
    """``n`` seeded 13-tile hands as mpsz text (the AnalyzeHand corpus)."""
    return [format_counts(c) for c in wall_hands(n, 13, SEED + 7)]


# (clients, total calls/s or None = closed loop, label)
LATENCY_LOADS = ((1, None, "1 client, closed loop (unloaded round trip)"),
                 (8, 200.0, "8 clients, open loop, 200 calls/s in total"),
                 (8, 1000.0, "8 clients, open loop, 1,000 calls/s in total"),
                 (8, None, "8 clients, closed loop (saturation)"))
LATENCY_TARGET = "p50 <= 300 us, p99 <= 2 ms"


def bulk_rows(port: int, n_shanten: int, n_score: int) -> list[tuple[str, str, str]]:
    rows = []
    counts = wall_hands(n_shanten, 13)
    arrays = winning_hands(n_score)
    threads = os.cpu_count() or 1
    one = rate(lambda: batch.shanten(counts), n_shanten)
    rows.append(("in-process batch.shanten, 1 thread", f"{one / 1e6:.2f} M hands/s", ""))
    many = rate(lambda: batch.shanten(counts, n_threads=threads), n_shanten)
    rows.append((f"in-process batch.shanten, {threads} threads", f"{many / 1e6:.2f} M hands/s",
                 ""))
    rows.append(("in-process batch score, 1 thread",
                 f"{rate(lambda: score_batch(**arrays), n_score) / 1e3:.0f} k hands/s", ""))
    for enc, bs, streams in (("nibble", 1 << 16, 2), ("counts", 1 << 16, 2),
                             ("nibble", 1 << 17, 1)):
        with Client(f"127.0.0.1:{port}", encoding=enc, batch_size=bs, streams=streams) as c:
            c.shanten(counts[:1000])
            r = rate(lambda: c.shanten(counts), n_shanten)
        rows.append((f"StreamShanten e2e ({enc}, {bs} hands/batch, {streams} streams)",
                     f"{r / 1e6:.2f} M hands/s", ">= 5 M/s"))
    score_in = {k: v for k, v in arrays.items() if k not in ("counts", "win_tile")}
    with Client(f"127.0.0.1:{port}", batch_size=1 << 15, streams=2) as c:
        c.score_batch(arrays["counts"][:100], arrays["win_tile"][:100], details=False,
                      **{k: v[:100] for k, v in score_in.items()})
        r = rate(lambda: c.score_batch(arrays["counts"], arrays["win_tile"], details=False,
                                       **score_in), n_score)
    rows.append(("StreamScore e2e (nibble, 32768 hands/batch, 2 streams)",
                 f"{r / 1e3:.0f} k hands/s", ">= 500 k/s"))
    return rows


def latency_rows(port: int, seconds: float, repeats: int,
                 client_env: dict[str, str] | None = None,
                 mode: str = "processes") -> list[tuple[str, str, str]]:
    """Each load ``repeats`` times, interleaved; the medians of p50, p99 and calls/s."""
    runs: list[list[dict[str, float]]] = [[] for _ in LATENCY_LOADS]
    for _ in range(repeats):
        for i, (clients, total, _label) in enumerate(LATENCY_LOADS):
            runs[i].append(unary_latency(port, clients, seconds, total, client_env, mode))
    rows = []
    for (_clients, _total, label), got in zip(LATENCY_LOADS, runs, strict=True):
        med = {k: float(np.median([r[k] for r in got])) for k in got[0]}
        p50s = "/".join(f"{r['p50_us']:.0f}" for r in got)
        rows.append((f"AnalyzeHand, {label}",
                     (f"p50 {med['p50_us']:.0f} us ({p50s}), p99 {med['p99_us']:.0f} us, "
                      f"{med['rps']:.0f} calls/s"), LATENCY_TARGET))
    return rows


# -- the floor: an empty unary RPC, no mjcore code on either side -----------------------------

FLOOR_METHOD = "/floor.Empty/Call"


def _floor_server(kind: str) -> None:
    """Serve FLOOR_METHOD (bytes in, b"" out) with grpc.server (``sync``) or grpc.aio
    (``aio``, ``aio-uvloop``); print the port, serve until killed."""
    import asyncio

    import grpc

    def same(b: bytes) -> bytes:
        return b

    def handler(behaviour):
        return grpc.method_handlers_generic_handler("floor.Empty", {
            "Call": grpc.unary_unary_rpc_method_handler(
                behaviour, request_deserializer=same, response_serializer=same)})

    if kind == "sync":
        from concurrent import futures

        server = grpc.server(futures.ThreadPoolExecutor(max_workers=16))
        server.add_generic_rpc_handlers((handler(lambda request, context: b""),))
        print(server.add_insecure_port("127.0.0.1:0"), flush=True)
        server.start()
        server.wait_for_termination()
        return

    async def empty(request: bytes, context) -> bytes:
        return b""

    async def run() -> None:
        server = grpc.aio.server()
        server.add_generic_rpc_handlers((handler(empty),))
        print(server.add_insecure_port("127.0.0.1:0"), flush=True)
        await server.start()
        await server.wait_for_termination()

    if kind == "aio-uvloop":
        import uvloop

        uvloop.run(run())
    else:
        asyncio.run(run())


def _floor_client(port: int, calls: int) -> None:
    """Sequential empty calls on one channel; print p50/p99 (us) and own CPU per call."""
    import json
    import resource

    import grpc

    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        call = channel.unary_unary(FLOOR_METHOD)
        for _ in range(200):
            call(b"", timeout=10)
        lat = np.empty(calls)
        r0 = resource.getrusage(resource.RUSAGE_SELF)
        for k in range(calls):
            t0 = time.perf_counter()
            call(b"", timeout=10)
            lat[k] = time.perf_counter() - t0
        r1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu = r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime
    print(json.dumps({"p50_us": np.percentile(lat, 50) * 1e6,
                      "p99_us": np.percentile(lat, 99) * 1e6,
                      "client_cpu_us": cpu / calls * 1e6,
                      "client_switches": (r1.ru_nvcsw - r0.ru_nvcsw) / calls}), flush=True)


def _switches(pid: int) -> int:
    """Voluntary context switches of every thread of process ``pid`` (Linux /proc)."""
    total = 0
    for status in Path(f"/proc/{pid}/task").glob("*/status"):
        try:
            for line in status.read_text().splitlines():
                if line.startswith("voluntary_ctxt_switches:"):
                    total += int(line.split()[1])
        except OSError:  # a thread that just ended
            pass
    return total


# (label, server kind, server uses legacy I/O, client uses legacy I/O)
FLOOR_SETUPS = (("grpc.server + sync client, event-engine both", "sync", False, False),
                ("grpc.server + sync client, legacy server", "sync", True, False),
                ("grpc.server + sync client, legacy both", "sync", True, True),
                ("grpc.aio server + sync client, legacy both", "aio", True, True),
                ("grpc.aio server on uvloop + sync client, legacy both", "aio-uvloop", True,
                 True))  # the uvloop row only where uvloop is installed (not a dependency)


def floor_rows(calls: int, repeats: int) -> list[tuple[str, str, str]]:
    """Round trip and CPU per call of an empty unary RPC, each setup ``repeats`` times
    interleaved; medians."""
    import importlib.util
    import json

    import psutil

    setups = [s for s in FLOOR_SETUPS
              if s[1] != "aio-uvloop" or importlib.util.find_spec("uvloop") is not None]
    runs: list[list[dict[str, float]]] = [[] for _ in setups]
    for _ in range(repeats):
        for i, (_label, kind, legacy_server, legacy_client) in enumerate(setups):
            env = {k: v for k, v in os.environ.items() if k != "GRPC_EXPERIMENTS"}
            server_env = {**env, "GRPC_EXPERIMENTS": LEGACY_IO} if legacy_server else env
            client_env = {**env, "GRPC_EXPERIMENTS": LEGACY_IO} if legacy_client else env
            server = subprocess.Popen([sys.executable, __file__, "--floor-server", kind],
                                      stdout=subprocess.PIPE, text=True, env=server_env)
            assert server.stdout is not None
            try:
                port = server.stdout.readline().strip()
                ps = psutil.Process(server.pid)
                before = ps.cpu_times()
                switches = _switches(server.pid)
                out = subprocess.run(
                    [sys.executable, __file__, "--floor-client", port, str(calls)],
                    capture_output=True, text=True, env=client_env, check=True).stdout
                after = ps.cpu_times()
                switches = _switches(server.pid) - switches
            finally:
                server.kill()
                server.wait()
            got = json.loads(out)
            got["server_cpu_us"] = (after.user + after.system - before.user - before.system
                                    ) / (calls + 200) * 1e6
            got["server_switches"] = switches / (calls + 200)
            runs[i].append(got)
    rows = []
    for (label, *_), got in zip(setups, runs, strict=True):
        med = {k: float(np.median([r[k] for r in got])) for k in got[0]}
        rows.append((f"empty RPC, {label}",
                     (f"p50 {med['p50_us']:.0f} us, p99 {med['p99_us']:.0f} us; per call: CPU "
                      f"server {med['server_cpu_us']:.0f} us, client {med['client_cpu_us']:.0f} us"
                      f"; switches server {med['server_switches']:.1f}, client "
                      f"{med['client_switches']:.1f}"),
                     ""))
    return rows


# -- a compiled client: h2load (nghttp2), so no Python runs on the client side -----------------

ANALYZE_PATH = "/mjcore.v1.HandAnalysisService/AnalyzeHand"
H2LOAD_HEADERS = ("-H", "content-type: application/grpc", "-H", "te: trailers")
# (connections, total calls/s or None = closed loop, arrivals): "rps" is h2load --rps, each
# connection on its own fixed-period timer (connections started together fire together);
# "poisson" is one h2load per connection replaying a seeded Poisson --timing-script-file
H2LOAD_LOADS = ((1, None, "closed"), (1, 200.0, "rps"), (1, 1000.0, "rps"),
                (8, None, "closed"), (8, 200.0, "rps"), (8, 1000.0, "rps"),
                (8, 200.0, "poisson"), (8, 1000.0, "poisson"))
H2LOAD_PROCESSES = (1, 2)


def grpc_frame(message: bytes) -> bytes:
    """A gRPC length-prefixed message: flag 0 (not compressed), 4-byte big-endian length."""
    return b"\0" + len(message).to_bytes(4, "big") + message


def server_pids(proc: subprocess.Popen) -> list[int]:
    """The ``mjcore serve`` process and its pre-forked children."""
    import psutil

    return [proc.pid, *(c.pid for c in psutil.Process(proc.pid).children())]


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds of processes ``pids``."""
    import psutil

    return sum(t.user + t.system for t in (psutil.Process(pid).cpu_times() for pid in pids))


def _connections_per_process(pids: list[int], port: int) -> list[int]:
    import psutil

    return [sum(1 for c in psutil.Process(pid).net_connections("tcp")
                if c.laddr and c.laddr.port == port and c.status == psutil.CONN_ESTABLISHED)
            for pid in pids]


def _h2load_totals(out: str) -> tuple[int, int]:
    """(requests failed, response body bytes) from h2load's summary."""
    import re

    failed = re.search(r"requests: .* (\d+) failed", out)
    data = re.search(r"traffic: .*\((\d+)\) data", out)
    if failed is None or data is None:
        raise RuntimeError(f"unexpected h2load output:\n{out}")
    return int(failed.group(1)), int(data.group(1))


def h2load_run(port: int, body: Path, reply_bytes: int, connections: int, total: float | None,
               arrivals: str, seconds: float, pids: list[int], workdir: Path) -> dict[str, float]:
    """One h2load measurement of AnalyzeHand; latencies from h2load's --log-file (start in
    us since the epoch, HTTP status, us until the end of the response). Every answer must be
    a whole gRPC reply of ``reply_bytes`` (an error reply has no body)."""
    import resource

    url = f"http://127.0.0.1:{port}{ANALYZE_PATH}"
    base = ["h2load", "-m", "1", "-t", "1", "-d", str(body), *H2LOAD_HEADERS]
    logs = []
    commands = []
    if arrivals == "poisson":
        assert total is not None, "Poisson arrivals need a total rate"
        per_connection = total / connections
        for i in range(connections):
            rng = np.random.default_rng(SEED + 300 + i)
            at = np.cumsum(rng.exponential(1 / per_connection, int(per_connection * seconds * 2)))
            script = workdir / f"timing{i}.tsv"
            script.write_text("".join(f"{t * 1e3:.3f}\t{url}\n" for t in at[at < seconds]))
            logs.append(workdir / f"log{i}.tsv")
            commands.append([*base, "-c", "1", "--timing-script-file", str(script),
                             "--log-file", str(logs[-1])])
    else:
        logs.append(workdir / "log.tsv")
        pace = [] if total is None else ["--rps", f"{total / connections:g}"]
        commands.append([*base, "-c", str(connections), "-D", f"{seconds:g}", *pace,
                         "--log-file", str(logs[-1]), url])
    for log in logs:
        log.unlink(missing_ok=True)  # h2load appends to its log file
    load = os.getloadavg()[0]
    cpu0 = cpu_seconds(pids)
    own0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    procs = [subprocess.Popen(c, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
             for c in commands]
    time.sleep(min(1.0, seconds / 4))
    held = _connections_per_process(pids[1:] or pids, port)
    outs = [p.communicate()[0] for p in procs]
    cpu1 = cpu_seconds(pids)
    own1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    rows = np.concatenate([np.loadtxt(f, dtype=np.int64, ndmin=2) for f in logs])
    ok = rows[rows[:, 1] == 200]
    failed, data = map(sum, zip(*map(_h2load_totals, outs), strict=True))
    if failed or len(ok) != len(rows) or data != len(ok) * reply_bytes:
        raise AssertionError(f"AnalyzeHand failed through h2load: {failed} failed, "
                             f"{len(rows) - len(ok)} not 200, {data} body bytes for {len(ok)}"
                             f" replies of {reply_bytes}")
    start = np.sort(ok[:, 0])
    span = (ok[:, 0] + ok[:, 2]).max() - start[0]
    lat = ok[:, 2].astype(np.float64)
    return {"calls": len(ok), "rps": len(ok) / span * 1e6,
            "p50_us": float(np.percentile(lat, 50)), "p99_us": float(np.percentile(lat, 99)),
            "mean_us": float(lat.mean()),
            "server_cpu_us": (cpu1 - cpu0) / len(ok) * 1e6,
            "client_cpu_us": (own1.ru_utime + own1.ru_stime - own0.ru_utime - own0.ru_stime
                              ) / len(ok) * 1e6,
            # calls sent within 100 us of the previous one (any connection): bunched arrivals
            "bunched": float(np.mean(np.diff(start) < 100)) if len(start) > 1 else 0.0,
            "load": load, "held": "/".join(map(str, held))}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def h2load_rows(seconds: float, repeats: int,
                endpoints: tuple[str, ...] = ("main port", "unary front"),
                processes_list: tuple[int, ...] = H2LOAD_PROCESSES
                ) -> list[tuple[str, str, str]]:
    """AnalyzeHand through h2load against ``mjcore serve --processes 1`` and ``2``, on the
    main (grpcio) port and on the unary front (``--unary-port``), each load ``repeats`` times
    interleaved; medians (and every run's p50 and load average)."""
    import shutil
    import tempfile

    import grpc

    import mjcore
    from mjcore.wire.v1 import analysis_service_pb2 as pb

    if shutil.which("h2load") is None:
        print("h2load not found (Debian: nghttp2-client): compiled-client rows skipped")
        return []
    hand = analyse_hands()[0]
    request = pb.AnalyzeHandRequest(hand=hand).SerializeToString()
    runs: dict[tuple[str, int, int], list[dict]] = {}
    with contextlib.ExitStack() as stack:
        workdir = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        body = workdir / "body.bin"
        body.write_bytes(grpc_frame(request))
        servers = {}
        for processes in processes_list:
            unary_port = free_port()
            proc, main_port = stack.enter_context(server_process(
                *SERVER_ARGS, "--processes", str(processes), "--unary-port", str(unary_port)))
            for endpoint, port in (("main port", main_port), ("unary front", unary_port)):
                if endpoint not in endpoints:
                    continue
                with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
                    reply = channel.unary_unary(ANALYZE_PATH)(request, timeout=10)
                if pb.AnalyzeHandResponse.FromString(reply).shanten.shanten != int(
                        mjcore.shanten(hand)):
                    raise AssertionError("AnalyzeHand answered a wrong shanten")
                subprocess.run(["h2load", "-n", "2000", "-c", "8", "-m", "1", "-t", "1", "-d",
                                str(body), *H2LOAD_HEADERS,
                                f"http://127.0.0.1:{port}{ANALYZE_PATH}"],
                               capture_output=True, check=True)  # warm-up
                servers[endpoint, processes] = (port, server_pids(proc),
                                                len(grpc_frame(reply)))
        for _ in range(repeats):
            for key, (port, pids, reply_bytes) in servers.items():
                for i, (connections, total, arrivals) in enumerate(H2LOAD_LOADS):
                    runs.setdefault((*key, i), []).append(h2load_run(
                        port, body, reply_bytes, connections, total, arrivals, seconds, pids,
                        workdir))
    rows = []
    for (endpoint, processes, i), got in runs.items():
        connections, total, arrivals = H2LOAD_LOADS[i]
        med = {k: float(np.median([r[k] for r in got])) for k in got[0]
               if k != "held"}
        load = "closed loop" if total is None else (
            f"{total:,.0f} calls/s ({'--rps' if arrivals == 'rps' else 'Poisson'})")
        conn = f"{connections} connection{'s' if connections > 1 else ''}"
        runs_text = " ".join(f"{r['p50_us']:.0f}@{r['load']:.1f}" for r in got)
        split = f", connections {'|'.join(r['held'] for r in got)}" if processes > 1 else ""
        procs = f"{processes} process{'es' if processes > 1 else ''}"
        rows.append((
            f"h2load AnalyzeHand, {endpoint}, {procs}, {conn}, {load}",
            (f"p50 {med['p50_us']:.0f} us, p99 {med['p99_us']:.0f} us, mean "
             f"{med['mean_us']:.0f} us, {med['rps']:.0f} calls/s; CPU per call server "
             f"{med['server_cpu_us']:.0f} us, h2load {med['client_cpu_us']:.0f} us; bunched "
             f"{med['bunched']:.0%}; runs p50@load {runs_text}{split}"),
            LATENCY_TARGET))
    return rows


def front_floor_rows(seconds: float, repeats: int) -> list[tuple[str, str, str]]:
    """The unary front with an AnalyzeHand that does no work (a fixed 263-byte answer), in
    this process: what the loop, HTTP/2 and h2load cost without mjcore or protobuf."""
    import shutil
    import tempfile

    from mjcore.service.front.server import Method, UnaryFront
    from mjcore.wire.v1 import analysis_service_pb2 as pb

    if shutil.which("h2load") is None:
        print("h2load not found (Debian: nghttp2-client): front floor skipped")
        return []
    reply = b"\x08" * 263

    class Fixed:
        def SerializeToString(self) -> bytes:
            return reply

    answer = Fixed()
    front = UnaryFront({ANALYZE_PATH.encode(): Method(bytes, lambda request, ctx: answer,
                                                      False)}, "127.0.0.1", 0)
    port = front.start()
    runs: dict[int, list[dict]] = {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            workdir = Path(tmp)
            body = workdir / "body.bin"
            body.write_bytes(grpc_frame(pb.AnalyzeHandRequest(
                hand=analyse_hands()[0]).SerializeToString()))
            for _ in range(repeats):
                for i, (connections, total, arrivals) in enumerate(H2LOAD_LOADS):
                    runs.setdefault(i, []).append(h2load_run(
                        port, body, len(grpc_frame(reply)), connections, total, arrivals,
                        seconds, [os.getpid()], workdir))
    finally:
        front.shutdown(1.0)
    rows = []
    for i, got in runs.items():
        connections, total, arrivals = H2LOAD_LOADS[i]
        med = {k: float(np.median([r[k] for r in got])) for k in got[0] if k != "held"}
        load = "closed loop" if total is None else (
            f"{total:,.0f} calls/s ({'--rps' if arrivals == 'rps' else 'Poisson'})")
        rows.append((f"h2load, unary front with an empty handler, {connections} conn., {load}",
                     f"p50 {med['p50_us']:.0f} us, p99 {med['p99_us']:.0f} us, "
                     f"{med['rps']:.0f} calls/s; runs p50@load "
                     + " ".join(f"{r['p50_us']:.0f}@{r['load']:.1f}" for r in got), ""))
    return rows


def _section(name: str, run: Any) -> list:
    """Run one part of the table, saying on stderr what runs and what it measured."""
    print(f"[bench_service] {name}: running ...", file=sys.stderr, flush=True)
    start = time.perf_counter()
    rows = run()
    print(f"[bench_service] {name}: {len(rows)} row(s) in {time.perf_counter() - start:.0f} s",
          file=sys.stderr, flush=True)
    for row_name, result, _ in rows:
        print(f"[bench_service]   {row_name}: {result}", file=sys.stderr, flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description="mjcore service benchmarks")
    parser.add_argument("--hands", type=int, default=1 << 20, help="hands for bulk shanten")
    parser.add_argument("--score-hands", type=int, default=200_000, help="hands for scoring")
    parser.add_argument("--seconds", type=float, default=5.0, help="per latency measurement")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each latency load")
    parser.add_argument("--only", choices=("bulk", "latency", "h2load", "floor", "front-floor"),
                        help="one part of the table (floor: an empty RPC, not in the default "
                             "run; h2load: a compiled client, --processes 1 and 2; front-floor: "
                             "the unary front with an empty handler)")
    parser.add_argument("--endpoints", default="main port,unary front",
                        help="h2load targets, comma-separated: main port, unary front")
    parser.add_argument("--h2load-processes", default="1,2",
                        help="h2load: server --processes values, comma-separated")
    parser.add_argument("--floor-calls", type=int, default=3000, help="calls per floor run")
    parser.add_argument("--client-io-engine", choices=("event-engine", "legacy"),
                        default="event-engine",
                        help="gRPC core I/O of the latency clients (grpc's default: event-engine)")
    parser.add_argument("--clients-as", choices=("processes", "aio"), default="processes",
                        help="latency clients: one process each, or grpc.aio tasks in one")
    parser.add_argument("--latency-client", nargs=4, help=argparse.SUPPRESS)
    parser.add_argument("--aio-latency-clients", nargs=4, help=argparse.SUPPRESS)
    parser.add_argument("--floor-server", help=argparse.SUPPRESS)
    parser.add_argument("--floor-client", nargs=2, help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.floor_server:
        _floor_server(opts.floor_server)
        return
    if opts.floor_client:
        _floor_client(int(opts.floor_client[0]), int(opts.floor_client[1]))
        return
    if opts.aio_latency_clients:
        port, clients, seconds, per_s = opts.aio_latency_clients
        _aio_latency_clients(int(port), int(clients), float(seconds), float(per_s) or None)
        return
    if opts.latency_client:
        port, index, seconds, per_s = opts.latency_client
        _latency_client(int(port), int(index), float(seconds), float(per_s) or None)
        return
    rows = _section("floor", lambda: floor_rows(opts.floor_calls, opts.repeats)) \
        if opts.only == "floor" else []
    if opts.only == "front-floor":
        rows += _section("front floor", lambda: front_floor_rows(opts.seconds, opts.repeats))
    client_env = {"GRPC_EXPERIMENTS": LEGACY_IO} if opts.client_io_engine == "legacy" else {}
    if opts.only in (None, "h2load"):
        rows += _section("h2load", lambda: h2load_rows(
            opts.seconds, opts.repeats, tuple(e.strip() for e in opts.endpoints.split(",")),
            tuple(int(p) for p in opts.h2load_processes.split(","))))
    if opts.only not in ("floor", "front-floor", "h2load"):
        with server_process(*SERVER_ARGS) as (_, port):
            if opts.only != "latency":
                rows += _section("bulk", lambda: bulk_rows(port, opts.hands, opts.score_hands))
            if opts.only != "bulk":
                rows += _section("latency", lambda: latency_rows(
                    port, opts.seconds, opts.repeats, client_env, opts.clients_as))
    width = max(len(r[0]) for r in rows)
    print(f"{'measurement':<{width}}  {'result':<56} target")
    for name, result, target in rows:
        print(f"{name:<{width}}  {result:<56} {target}")


# -- pytest-benchmark form ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def port():
    with server_process(*SERVER_ARGS) as (_, p):
        yield p


@pytest.fixture(scope="module")
def shanten_hands():
    return wall_hands(1 << 19, 13)


@pytest.fixture(scope="module")
def score_arrays():
    return winning_hands(50_000)


def test_inprocess_batch_shanten(benchmark, shanten_hands):
    benchmark.extra_info["hands"] = len(shanten_hands)
    benchmark(batch.shanten, shanten_hands)


def test_stream_shanten(benchmark, port, shanten_hands):
    with Client(f"127.0.0.1:{port}", batch_size=1 << 16, streams=2) as c:
        benchmark.extra_info["hands"] = len(shanten_hands)
        result = benchmark(c.shanten, shanten_hands)
    assert np.array_equal(result, batch.shanten(shanten_hands).shanten)


def test_inprocess_batch_score(benchmark, score_arrays):
    benchmark.extra_info["hands"] = len(score_arrays["counts"])
    benchmark(lambda: score_batch(**score_arrays))


def test_stream_score(benchmark, port, score_arrays):
    rest = {k: v for k, v in score_arrays.items() if k not in ("counts", "win_tile")}
    with Client(f"127.0.0.1:{port}", batch_size=1 << 15, streams=2) as c:
        benchmark.extra_info["hands"] = len(score_arrays["counts"])
        got = benchmark(c.score_batch, score_arrays["counts"], score_arrays["win_tile"], **rest)
    assert np.array_equal(got["points"], score_batch(**score_arrays).points)


def test_unary_analyze_8_clients(benchmark, port):
    result = benchmark.pedantic(unary_latency, args=(port, 8, 3.0, 1000.0), rounds=1,
                                iterations=1)
    benchmark.extra_info.update(result)


if __name__ == "__main__":
    main()
