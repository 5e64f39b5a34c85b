"""gRPC service benchmarks on loopback, client and server sharing this machine.

    python benchmarks/bench_service.py            # the table of issue 4's targets
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
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from mjcore import batch
from mjcore.batch_scoring import encode_meld
from mjcore.batch_scoring import score as score_batch
from mjcore.client import Client
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


def winning_hands(n: int, seed: int = SEED) -> dict[str, np.ndarray]:
    """Arrays for ``mjcore.batch_scoring.score``: random complete hands (0-2 called melds),
    random winning tile, tsumo/ron, riichi, winds, one dora indicator, honba and sticks."""
    rng = np.random.default_rng(seed)
    counts = np.zeros((n, 34), np.uint8)
    melds = np.full((n, 4), 0xFFFF, np.uint16)
    win = np.zeros(n, np.uint8)
    flags = np.zeros(n, np.uint16)
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
    return {"counts": counts, "win_tile": win, "melds": melds, "flags": flags,
                "seat_wind": rng.integers(0, 4, n).astype(np.uint8),
                "round_wind": rng.integers(0, 2, n).astype(np.uint8),
                "dora": rng.integers(0, 34, (n, 1)).astype(np.uint8),
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
    from mjcore.service.gen.mjcore.v1 import analysis_service_pb2 as pb
    from mjcore.service.gen.mjcore.v1 import analysis_service_pb2_grpc as pb_grpc

    import mjcore

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
            if p.stdout.readline().strip() != "ready":
                raise RuntimeError("latency client did not start")
        for p in procs:
            p.stdin.write("go\n")
            p.stdin.flush()
        results = [json.loads(p.stdout.readline()) for p in procs]
    finally:
        for p in procs:
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
        c.score_batch(arrays["counts"][:100], arrays["win_tile"][:100],
                      **{k: v[:100] for k, v in score_in.items()})
        r = rate(lambda: c.score_batch(arrays["counts"], arrays["win_tile"], **score_in),
                 n_score)
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
    for (_clients, _total, label), got in zip(LATENCY_LOADS, runs):
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
    for (label, *_), got in zip(setups, runs):
        med = {k: float(np.median([r[k] for r in got])) for k in got[0]}
        rows.append((f"empty RPC, {label}",
                     (f"p50 {med['p50_us']:.0f} us, p99 {med['p99_us']:.0f} us; per call: CPU "
                      f"server {med['server_cpu_us']:.0f} us, client {med['client_cpu_us']:.0f} us"
                      f"; switches server {med['server_switches']:.1f}, client "
                      f"{med['client_switches']:.1f}"),
                     ""))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description="mjcore service benchmarks")
    parser.add_argument("--hands", type=int, default=1 << 20, help="hands for bulk shanten")
    parser.add_argument("--score-hands", type=int, default=200_000, help="hands for scoring")
    parser.add_argument("--seconds", type=float, default=5.0, help="per latency measurement")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each latency load")
    parser.add_argument("--only", choices=("bulk", "latency", "floor"),
                        help="one part of the table (floor: an empty RPC, not in the default run)")
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
    rows = floor_rows(opts.floor_calls, opts.repeats) if opts.only == "floor" else []
    client_env = {"GRPC_EXPERIMENTS": LEGACY_IO} if opts.client_io_engine == "legacy" else {}
    if opts.only != "floor":
        with server_process(*SERVER_ARGS) as (_, port):
            if opts.only != "latency":
                rows += bulk_rows(port, opts.hands, opts.score_hands)
            if opts.only != "bulk":
                rows += latency_rows(port, opts.seconds, opts.repeats, client_env,
                                     opts.clients_as)
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
