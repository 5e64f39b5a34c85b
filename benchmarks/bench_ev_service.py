"""ExpectedValues over gRPC (issue 26): latency of 1- and 2-shanten hands at 1 and 8
concurrent clients through the main port and the unary front, against the in-process time of
the same hands.

    .venv/bin/python benchmarks/bench_ev_service.py [--per 20] [--calls 200] [--ev-workers 2]

The hands are the reference records of ../shared/data/ev/ (14 closed tiles, mahjong-cpp's
default options), the first ``--per`` of each shanten. The server is ``mjcore serve`` in a
process of its own (``--ev-workers`` search threads, the queue large enough for 8 clients);
each client is a thread with its own channel calling the hands in turn (``--calls`` calls per
setting, split over the clients). In-process: ``mjcore.expected_values`` of each hand in this
process, the same order. Per call overhead: the 1-client p50 less the in-process median (the
same hands, called as often each).
"""
from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import grpc

import mjcore
from mjcore.wire.v1 import analysis_service_pb2 as pb
from mjcore.wire.v1 import analysis_service_pb2_grpc as pb_grpc
from tests.riichi.ev_records import WINDS, records

DEFAULTS = {"extra": 1, "red": 1, "ura": 1, "shanten_down": 1, "tegawari": 1, "t_max": 18}
WIND = {"E": 1, "S": 2, "W": 3, "N": 4}


def _hands(shanten: int, per: int) -> list[dict]:
    out = []
    for name in ("14-fixed", "14-low-shanten"):
        for r in records(name):
            q = r["request"]
            if r["shanten"] == shanten and q["melds"] == "-" and \
                    all(q[k] == v for k, v in DEFAULTS.items()):
                out.append(q)
                if len(out) == per:
                    return out
    return out


def _request(q: dict) -> pb.ExpectedValuesRequest:
    return pb.ExpectedValuesRequest(
        hand=q["hand"], dora_indicators="" if q["dora"] == "-" else q["dora"],
        round_wind=WIND[WINDS[q["round"]]],  # type: ignore[arg-type]
        seat_wind=WIND[WINDS[q["seat"]]])  # type: ignore[arg-type]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve(ev_workers: int) -> tuple[subprocess.Popen, int, int]:
    unary = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "mjcore.cli", "serve", "--port", "0", "--unary-port",
         str(unary), "--ev-workers", str(ev_workers), "--ev-queue", "16", "--drain", "0"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if "listening on" not in line:
        proc.kill()
        raise SystemExit(f"the server did not start: {line!r}")
    port = int(line.split()[2].rsplit(":", 1)[1])
    return proc, port, unary


def _run(port: int, requests: list, clients: int, calls: int) -> list[float]:
    """Latencies (s) of ``calls`` calls over ``clients`` threads, each its own channel."""
    latencies: list[float] = []
    lock = threading.Lock()
    errors: list[BaseException] = []

    def client(k: int) -> None:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = pb_grpc.HandAnalysisServiceStub(channel)
            stub.ExpectedValues(requests[0], timeout=60)        # connect, warm up
            mine = []
            for i in range(k, calls, clients):
                t = time.perf_counter()
                try:
                    stub.ExpectedValues(requests[i % len(requests)], timeout=60)
                except grpc.RpcError as err:
                    errors.append(err)
                    return
                mine.append(time.perf_counter() - t)
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise SystemExit(f"a call failed: {errors[0]}")
    return latencies


def _mixed(port: int, unary: int, requests: list, seconds: float) -> None:
    """AnalyzeHand and health latency on both ports, alone and while 8 clients keep the
    ExpectedValues pool full (2-shanten hands); every call must succeed."""
    stop = threading.Event()
    failures: list[BaseException] = []

    def ev_load(k: int) -> None:
        with grpc.insecure_channel(f"127.0.0.1:{port if k % 2 else unary}") as channel:
            stub = pb_grpc.HandAnalysisServiceStub(channel)
            i = k
            while not stop.is_set():
                try:
                    stub.ExpectedValues(requests[i % len(requests)], timeout=60)
                except grpc.RpcError as err:
                    if err.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
                        failures.append(err)
                i += 1

    def probe(p: int) -> tuple[list[float], list[float]]:
        from grpc_health.v1 import health_pb2, health_pb2_grpc

        analyze, health = [], []
        with grpc.insecure_channel(f"127.0.0.1:{p}") as channel:
            stub = pb_grpc.HandAnalysisServiceStub(channel)
            check = health_pb2_grpc.HealthStub(channel)
            request = pb.AnalyzeHandRequest(hand="123m456p789s1122z")
            stub.AnalyzeHand(request, timeout=10)
            end = time.perf_counter() + seconds
            while time.perf_counter() < end:
                t = time.perf_counter()
                stub.AnalyzeHand(request, timeout=10)
                analyze.append(time.perf_counter() - t)
                t = time.perf_counter()
                check.Check(health_pb2.HealthCheckRequest(), timeout=10)
                health.append(time.perf_counter() - t)
        return analyze, health

    print(f"\nAnalyzeHand / health Check latency (ms), {seconds:g} s per row; 'with EV': 8 "
          "clients keep ExpectedValues (2-shanten) busy on both ports")
    print(f"{'port':>6} {'load':>8} {'calls':>6} {'analyze p50':>11} {'p99':>7} "
          f"{'health p50':>10} {'p99':>7}")
    for load in ("alone", "with EV"):
        threads = []
        if load != "alone":
            threads = [threading.Thread(target=ev_load, args=(k,)) for k in range(8)]
            for t in threads:
                t.start()
            time.sleep(0.5)
        for name, p in (("main", port), ("front", unary)):
            analyze, health = probe(p)
            print(f"{name:>6} {load:>8} {len(analyze):>6} {1000 * _pct(analyze, 0.5):>11.2f} "
                  f"{1000 * _pct(analyze, 0.99):>7.2f} {1000 * _pct(health, 0.5):>10.2f} "
                  f"{1000 * _pct(health, 0.99):>7.2f}", flush=True)
        stop.set()
        for t in threads:
            t.join()
        stop.clear()
    if failures:
        raise SystemExit(f"an ExpectedValues call failed: {failures[0]}")


def _pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(p * len(values)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per", type=int, default=20, help="hands per shanten")
    ap.add_argument("--calls", type=int, default=200, help="calls per setting")
    ap.add_argument("--ev-workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--mixed-seconds", type=float, default=5.0,
                    help="seconds of AnalyzeHand calls per port, alone and under EV load")
    opts = ap.parse_args()
    proc, port, unary = _serve(opts.ev_workers)
    try:
        print(f"cores {os.cpu_count()}, ev workers {opts.ev_workers}, {opts.calls} calls a "
              "setting; ms")
        print(f"{'shanten':>7} {'in-process p50':>14} {'port':>6} {'clients':>7} "
              f"{'p50':>8} {'p99':>8} {'overhead p50':>12}")
        for shanten in (1, 2):
            hands = _hands(shanten, opts.per)
            requests = [_request(q) for q in hands]
            local = []
            for q in hands:
                t = time.perf_counter()
                mjcore.expected_values(
                    q["hand"], dora="" if q["dora"] == "-" else q["dora"],
                    round_wind=WINDS[q["round"]], seat_wind=WINDS[q["seat"]])
                local.append(time.perf_counter() - t)
            inproc = statistics.median(local)
            for name, p in (("main", port), ("front", unary)):
                for clients in (1, 8):
                    lat = _run(p, requests, clients, opts.calls)
                    over = ""
                    if clients == 1:
                        over = f"{1000 * (statistics.median(lat) - inproc):>12.2f}"
                    print(f"{shanten:>7} {1000 * inproc:>14.2f} {name:>6} {clients:>7} "
                          f"{1000 * _pct(lat, 0.5):>8.2f} {1000 * _pct(lat, 0.99):>8.2f} "
                          f"{over}", flush=True)
        _mixed(port, unary, [_request(q) for q in _hands(2, opts.per)], opts.mixed_seconds)
    finally:
        proc.terminate()
        proc.wait(30)


if __name__ == "__main__":
    main()
