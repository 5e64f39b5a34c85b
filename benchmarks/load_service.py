"""Load test of the gRPC service: 16 concurrent clients mixing unary and streaming calls.

    python benchmarks/load_service.py                  # 130 s of load after a 15 s warm-up
    python benchmarks/load_service.py --seconds 20     # a short smoke run
    python benchmarks/load_service.py --unary-front    # unary calls through --unary-port

Loopback only; the server runs in its own process (``mjcore serve``). Every answer is checked
against the in-process library. Passes (exit 0) when there were no errors and the server's RSS
grew less than 10% between the end of the warm-up and the end of the run. Prints p50, p99 and
throughput per call type; ``--json FILE`` also writes them as JSON. Not part of the test suite.
"""
from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from pathlib import Path
from typing import Any, cast

import numpy as np
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_service import analyse_hands, free_port, server_process, wall_hands, winning_hands

import mjcore
from mjcore import batch
from mjcore.riichi.batch_scoring import score as score_batch
from mjcore.client import Client

KINDS = ("AnalyzeHand", "Score", "StreamShanten", "StreamScore")
WEIGHTS = (0.70, 0.10, 0.15, 0.05)


class Fixtures:
    """Requests and their expected answers, computed once with the in-process library."""

    def __init__(self, seed: int = 7) -> None:
        self.hands = analyse_hands(500)
        self.shanten = [int(mjcore.shanten(h)) for h in self.hands]
        self.score_rows: list[tuple[str, str, dict[str, Any]]] = [("123m456p789s11122z", "2z", {}),
                           ("234m567p345s22m678s", "8s", {"tsumo": True, "riichi": True}),
                           ("22334455667788p", "8p", {"dora": "7p"}),
                           ("11m pon:555z<1 pon:666z<2 pon:777z<3 123p", "1m", {"pao_seat": 3})]
        self.score_points = [mjcore.score(h, w, **kw).points for h, w, kw in self.score_rows]
        self.bulk = [wall_hands(20_000, 13 + i % 2, seed + i) for i in range(4)]
        self.bulk_shanten = [batch.shanten(c).shanten for c in self.bulk]
        self.scoring = cast("dict[str, Any]", winning_hands(5_000, seed))
        self.scoring_points = score_batch(**self.scoring).points


def client_loop(port: int, unary_port: int | None, fx: Fixtures, idx: int, stop_at: float,
                warm_until: float, stats: dict[str, list[float]], errors: list[str]) -> None:
    rng = np.random.default_rng(idx)
    rest = {k: v for k, v in fx.scoring.items() if k not in ("counts", "win_tile")}
    unary = f"127.0.0.1:{unary_port}" if unary_port else None
    with Client(f"127.0.0.1:{port}", timeout=30, batch_size=5_000, unary_target=unary) as c:
        while time.perf_counter() < stop_at:
            kind = KINDS[rng.choice(len(KINDS), p=WEIGHTS)]
            t0 = time.perf_counter()
            try:
                if kind == "AnalyzeHand":
                    i = int(rng.integers(len(fx.hands)))
                    ok = int(c.analyze(fx.hands[i]).shanten) == fx.shanten[i]
                elif kind == "Score":
                    i = int(rng.integers(len(fx.score_rows)))
                    hand, win, kw = fx.score_rows[i]
                    ok = c.score(hand, win, **kw).points == fx.score_points[i]
                elif kind == "StreamShanten":
                    i = int(rng.integers(len(fx.bulk)))
                    ok = np.array_equal(c.shanten(fx.bulk[i]), fx.bulk_shanten[i])
                else:
                    got = c.score_batch(fx.scoring["counts"], fx.scoring["win_tile"], **rest)
                    ok = np.array_equal(got["points"], fx.scoring_points)
                if not ok:
                    errors.append(f"client {idx}: wrong {kind} result")
            except Exception as exc:  # noqa: BLE001  (counted; the run then fails)
                errors.append(f"client {idx}: {kind}: {exc!r}")
                continue
            if t0 >= warm_until:
                stats[kind].append(time.perf_counter() - t0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=130.0, help="measured load time")
    parser.add_argument("--warmup", type=float, default=15.0)
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--unary-front", action="store_true",
                        help="serve with --unary-port; the clients' unary calls go there")
    opts = parser.parse_args()
    fx = Fixtures()
    stats: dict[str, list[float]] = {k: [] for k in KINDS}
    errors: list[str] = []
    rss: list[tuple[float, int]] = []
    unary_port = free_port() if opts.unary_front else None
    extra = ("--unary-port", str(unary_port)) if unary_port else ()
    with server_process("--workers", "32", "--kernel-threads", "1", *extra) as (proc, port):
        server = psutil.Process(proc.pid)
        start = time.perf_counter()
        warm_until = start + opts.warmup
        stop_at = warm_until + opts.seconds
        threads = [threading.Thread(target=client_loop,
                                    args=(port, unary_port, fx, i, stop_at, warm_until, stats,
                                          errors))
                   for i in range(opts.clients)]
        for t in threads:
            t.start()
        while any(t.is_alive() for t in threads):
            rss.append((time.perf_counter() - start, server.memory_info().rss))
            time.sleep(1.0)
        for t in threads:
            t.join()
        alive = proc.poll() is None
    base = next((r for t, r in rss if t >= opts.warmup), rss[-1][1])
    end = rss[-1][1]
    growth = (end - base) / base
    result = {"clients": opts.clients, "seconds": opts.seconds, "errors": len(errors),
              "unary_front": opts.unary_front,
              "rss_mb_after_warmup": base / 2**20, "rss_mb_end": end / 2**20,
              "rss_mb_max": max(r for _, r in rss) / 2**20, "rss_growth": growth,
              "server_alive_at_end": alive, "calls": {},
              "rss_mb_every_10s": [round(r / 2**20, 1) for t, r in rss[::10]]}
    print(f"{opts.clients} clients, {opts.seconds:.0f} s measured after {opts.warmup:.0f} s "
          f"warm-up")
    print(f"{'call':<14} {'count':>8} {'calls/s':>9} {'p50 ms':>8} {'p99 ms':>8}")
    total = 0
    for kind in KINDS:
        lat = np.array(stats[kind])
        total += len(lat)
        row = {"count": len(lat), "per_s": len(lat) / opts.seconds,
               "p50_ms": float(np.percentile(lat, 50) * 1e3) if len(lat) else None,
               "p99_ms": float(np.percentile(lat, 99) * 1e3) if len(lat) else None}
        result["calls"][kind] = row
        print(f"{kind:<14} {row['count']:>8} {row['per_s']:>9.1f} "
              f"{row['p50_ms'] or 0:>8.2f} {row['p99_ms'] or 0:>8.2f}")
    hands_per_s = (len(stats["StreamShanten"]) * 20_000 + len(stats["StreamScore"]) * 5_000
                   + len(stats["AnalyzeHand"]) + len(stats["Score"])) / opts.seconds
    result["calls_per_s"] = total / opts.seconds
    result["hands_per_s"] = hands_per_s
    print(f"total {total / opts.seconds:.1f} calls/s, {hands_per_s / 1e3:.0f} k hands/s")
    print(f"server RSS {base / 2**20:.1f} MB after warm-up -> {end / 2**20:.1f} MB at the end "
          f"({growth:+.1%}; max {result['rss_mb_max']:.1f} MB)")
    print("server RSS every 10 s (MB): "
          + " ".join(f"{r:.0f}" for r in result["rss_mb_every_10s"]))
    print(f"errors: {len(errors)}")
    for e in errors[:10]:
        print("  " + e)
    if opts.json:
        opts.json.write_text(json.dumps(result, indent=2))
    ok = not errors and growth < 0.10 and alive
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
