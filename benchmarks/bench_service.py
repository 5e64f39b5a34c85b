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
import threading
import time
from collections.abc import Iterator

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


def unary_latency(port: int, clients: int, seconds: float, hands: list[str],
                  interval: float | None = None) -> dict[str, float]:
    """AnalyzeHand latency with ``clients`` concurrent callers (threads, one channel each).
    ``interval`` None = closed loop (each client calls again at once); else each client starts
    one call every ``interval`` seconds (an open-loop, paced load)."""
    latencies: list[list[float]] = [[] for _ in range(clients)]
    stop = time.perf_counter() + seconds

    def run(i: int) -> None:
        with Client(f"127.0.0.1:{port}") as c:
            stub, pb = c._stub, c._pb
            reqs = [pb.AnalyzeHandRequest(hand=h) for h in hands]
            for r in reqs[:20]:
                stub.AnalyzeHand(r)
            k = i
            next_at = time.perf_counter()
            while True:
                now = time.perf_counter()
                if now >= stop:
                    break
                if interval is not None:
                    if now < next_at:
                        time.sleep(next_at - now)
                    next_at += interval
                t0 = time.perf_counter()
                stub.AnalyzeHand(reqs[k % len(reqs)])
                latencies[i].append(time.perf_counter() - t0)
                k += clients

    threads = [threading.Thread(target=run, args=(i,)) for i in range(clients)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - t0
    all_lat = np.concatenate([np.array(x) for x in latencies])
    return {"calls": len(all_lat), "rps": len(all_lat) / elapsed,
            "p50_us": float(np.percentile(all_lat, 50) * 1e6),
            "p99_us": float(np.percentile(all_lat, 99) * 1e6)}


def analyse_hands(n: int = 2000) -> list[str]:
    return [format_counts(c) for c in wall_hands(n, 13, SEED + 7)]


def run_all(n_shanten: int, n_score: int, seconds: float) -> list[tuple[str, str, str]]:
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
    with server_process(*SERVER_ARGS) as (_, port):
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
        hands = analyse_hands()
        lat = unary_latency(port, 8, seconds, hands)
        rows.append(("AnalyzeHand, 8 clients closed loop",
                     (f"p50 {lat['p50_us']:.0f} us, p99 {lat['p99_us']:.0f} us, "
                     f"{lat['rps']:.0f} calls/s"), "p50 <= 300 us, p99 <= 2 ms"))
        paced = unary_latency(port, 8, seconds, hands, interval=8 / 1000)
        rows.append(("AnalyzeHand, 8 clients paced at 1000 calls/s total",
                     (f"p50 {paced['p50_us']:.0f} us, p99 {paced['p99_us']:.0f} us, "
                     f"{paced['rps']:.0f} calls/s"), "p50 <= 300 us, p99 <= 2 ms"))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description="mjcore service benchmarks")
    parser.add_argument("--hands", type=int, default=1 << 20, help="hands for bulk shanten")
    parser.add_argument("--score-hands", type=int, default=200_000, help="hands for scoring")
    parser.add_argument("--seconds", type=float, default=5.0, help="per latency measurement")
    opts = parser.parse_args()
    rows = run_all(opts.hands, opts.score_hands, opts.seconds)
    width = max(len(r[0]) for r in rows)
    print(f"{'measurement':<{width}}  {'result':<48} target")
    for name, result, target in rows:
        print(f"{name:<{width}}  {result:<48} {target}")


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
    hands = analyse_hands()
    result = benchmark.pedantic(unary_latency, args=(port, 8, 3.0, hands), rounds=1,
                                iterations=1)
    benchmark.extra_info.update(result)


if __name__ == "__main__":
    main()
