"""Load test of the gRPC service: 16 concurrent clients mixing unary and streaming calls.

    python benchmarks/load_service.py                  # 130 s of load after a 15 s warm-up
    python benchmarks/load_service.py --seconds 20     # a short smoke run
    python benchmarks/load_service.py --unary-front    # unary calls through --unary-port
    python benchmarks/load_service.py --ev             # issue 26: ExpectedValues calls of 1- and
                                                       # 2-shanten hands in the mix
    python benchmarks/load_service.py --soak           # issue 11: 32 clients on both ports,
                                                       # 600 s after a 30 s warm-up, attack
                                                       # probes in turns
    python benchmarks/load_service.py --memory-probe   # RSS held by unfinished bodies
    python benchmarks/load_service.py --probe fields --rounds 5   # one probe, RSS after each

With ``--attack`` (``--soak`` sets it with ``--clients 32 --seconds 600 --warmup 30
--unary-front``), half the clients send their unary calls to the front, half to the main port,
while the probes of issue 11 (``ATTACKS``: stalled calls, a flood of new stalled calls,
oversized fields, a gzip bomb, unfinished bodies, silent, slowloris and non-reading
connections, rapid reset, unknown-method and SETTINGS floods, garbage) run one after the other
against both ports. The well-behaved clients must see no error, and once the probes are over
the server's RSS must be back within 10% of its size after the warm-up (3 s after the load
ended) and its open file descriptors back to their count then. The raw-socket probes connect
from 127.0.0.2 (``--attacker``), another client host to the server's per-peer shares.

Loopback only; the server runs in its own process (``mjcore serve``). Every answer is checked
against the in-process library. Passes (exit 0) when there were no errors and the server's RSS
grew less than 10% between the end of the warm-up and the end of the run. Prints p50, p99 and
throughput per call type; ``--json FILE`` also writes them as JSON. Not part of the test suite.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_service import analyse_hands, free_port, server_process, wall_hands, winning_hands

import mjcore
from mjcore import batch
from mjcore.client import Client
from mjcore.riichi.batch_scoring import score as score_batch
from mjcore.service.config import DEFAULT_MAX_MESSAGE_SIZE

KINDS = ("AnalyzeHand", "Score", "StreamShanten", "StreamScore", "ExpectedValues")
# the end's RSS is taken this long after the load, once the server, idle for 1 s, has given
# its freed heap back (service.server.MainPort.trim_heap_when_idle)
SETTLE_SECONDS = 3.0
# the raw-socket probes connect from another loopback address: another client host to the
# server's per-peer shares, as an attacker would be (the well-behaved clients use 127.0.0.1)
ATTACKER = "127.0.0.2"
WEIGHTS = (0.70, 0.10, 0.15, 0.05, 0.0)
WEIGHTS_EV = (0.60, 0.10, 0.15, 0.05, 0.10)    # --ev: a tenth of the calls ask for expected values
# --ev: closed 14-tile hands of one and two shanten (seeded walls), answered by the EV pool
EV_HANDS = 12


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
        self.scoring = winning_hands(5_000, seed)
        self.scoring_points = score_batch(**self.scoring).points
        self.ev_hands = ev_hands(seed)
        self.ev_answers = [mjcore.expected_values(h) for h in self.ev_hands]


def ev_hands(seed: int) -> list[str]:
    """EV_HANDS closed 14-tile hands, half one shanten and half two, from seeded walls."""
    from mjcore.tiles import format_tiles

    rng = np.random.default_rng(seed)
    want = {1: EV_HANDS // 2, 2: EV_HANDS - EV_HANDS // 2}
    out: list[str] = []
    while any(want.values()):
        kinds = rng.permutation(136)[:14] // 4
        text = format_tiles(sorted(int(k) for k in kinds))
        s = int(mjcore.shanten(text))
        if want.get(s):
            want[s] -= 1
            out.append(text)
    return out


def same_ev(got: Any, want: Any) -> bool:
    """The remote answer is the library's: the same discards in order, values within 1e-9."""
    if [d.tile for d in got.discards] != [d.tile for d in want.discards]:
        return False
    return all(np.allclose(g.ev, w.ev, rtol=1e-9, atol=1e-6)
               and np.allclose(g.win, w.win, rtol=0, atol=1e-9)
               for g, w in zip(got.discards, want.discards, strict=True))


def client_loop(port: int, unary_port: int | None, fx: Fixtures, idx: int, stop_at: float,
                warm_until: float, stats: dict[str, list[float]], errors: list[str],
                split: bool = False, weights: tuple[float, ...] = WEIGHTS) -> None:
    rng = np.random.default_rng(idx)
    rest = {k: v for k, v in fx.scoring.items() if k not in ("counts", "win_tile")}
    unary = f"127.0.0.1:{unary_port}" if unary_port and not (split and idx % 2) else None
    with Client(f"127.0.0.1:{port}", timeout=30, batch_size=5_000, unary_target=unary) as c:
        while time.perf_counter() < stop_at:
            kind = KINDS[rng.choice(len(KINDS), p=weights)]
            t0 = time.perf_counter()
            try:
                if kind == "AnalyzeHand":
                    i = int(rng.integers(len(fx.hands)))
                    ok = int(c.analyze(fx.hands[i]).shanten) == fx.shanten[i]
                elif kind == "Score":
                    i = int(rng.integers(len(fx.score_rows)))
                    hand, win, kw = fx.score_rows[i]
                    ok = c.score(hand, win, **kw).points == fx.score_points[i]
                elif kind == "ExpectedValues":
                    i = int(rng.integers(len(fx.ev_hands)))
                    ok = same_ev(c.expected_values(fx.ev_hands[i], timeout=30), fx.ev_answers[i])
                elif kind == "StreamShanten":
                    i = int(rng.integers(len(fx.bulk)))
                    ok = np.array_equal(c.shanten(fx.bulk[i]).shanten, fx.bulk_shanten[i])
                else:
                    got = c.score_batch(fx.scoring["counts"], fx.scoring["win_tile"],
                                        details=False, **rest)
                    ok = np.array_equal(got.points, fx.scoring_points)
                if not ok:
                    errors.append(f"client {idx}: wrong {kind} result")
            except Exception as exc:  # noqa: BLE001  (counted; the run then fails)
                errors.append(f"client {idx}: {kind}: {exc!r}")
                continue
            if t0 >= warm_until:
                stats[kind].append(time.perf_counter() - t0)


def main() -> int:
    global ATTACKER
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=130.0, help="measured load time")
    parser.add_argument("--warmup", type=float, default=15.0)
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--unary-front", action="store_true",
                        help="serve with --unary-port; the clients' unary calls go there")
    parser.add_argument("--ev", action="store_true",
                        help="a tenth of the calls are ExpectedValues (1- and 2-shanten hands)")
    parser.add_argument("--attack", action="store_true",
                        help="run the issue 11 attack probes in turns during the load")
    parser.add_argument("--soak", action="store_true",
                        help="--attack --unary-front --clients 32 --seconds 600")
    parser.add_argument("--attacker", default=ATTACKER,
                        help="local address the probes connect from [%(default)s]")
    parser.add_argument("--memory-probe", action="store_true",
                        help="no load: unfinished max-size bodies from several hosts, RSS")
    parser.add_argument("--hosts", type=int, default=8, help="--memory-probe: attacker hosts")
    parser.add_argument("--probe", choices=sorted(ATTACKS),
                        help="no load: run this attack probe --rounds times, RSS after each")
    parser.add_argument("--rounds", type=int, default=5, help="--probe: runs")
    parser.add_argument("--server-args", default="",
                        help="extra mjcore serve arguments (space-separated)")
    opts = parser.parse_args()
    ATTACKER = opts.attacker
    if opts.memory_probe:
        return memory_probe(opts.hosts, opts.server_args.split())
    if opts.probe:
        return probe_rounds(opts.probe, opts.rounds, opts.server_args.split())
    if opts.soak:
        opts.attack = opts.unary_front = True
        opts.clients, opts.seconds = 32, max(opts.seconds, 600.0)
        opts.warmup = max(opts.warmup, 30.0)   # the RSS baseline after the caches filled
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
                                          errors, opts.attack,
                                          WEIGHTS_EV if opts.ev else WEIGHTS))
                   for i in range(opts.clients)]
        for t in threads:
            t.start()
        fds: dict[str, int] = {}
        probes: dict[str, int] = {}
        attacker = None
        while any(t.is_alive() for t in threads):
            now = time.perf_counter()
            rss.append((now - start, server.memory_info().rss))
            if opts.attack and attacker is None and now >= warm_until:
                fds["after_warmup"] = server.num_fds()
                attacker = threading.Thread(target=attack_loop, args=(
                    port, unary_port, stop_at - 40, probes), daemon=True)
                attacker.start()
            time.sleep(1.0)
        for t in threads:
            t.join()
        if attacker is not None:
            attacker.join()
        load_end_rss = server.memory_info().rss
        time.sleep(SETTLE_SECONDS)
        if attacker is not None:
            fds["end"] = settle_fds(server, fds["after_warmup"])
        rss.append((time.perf_counter() - start, server.memory_info().rss))
        alive = proc.poll() is None
    base = next((r for t, r in rss if t >= opts.warmup), rss[-1][1])
    end = rss[-1][1]
    growth = (end - base) / base
    result = {"clients": opts.clients, "seconds": opts.seconds, "errors": len(errors),
              "unary_front": opts.unary_front, "attack": opts.attack, "ev": opts.ev,
              "probes": probes,
              "fds": fds,
              "rss_mb_after_warmup": base / 2**20, "rss_mb_end": end / 2**20,
              "rss_mb_load_end": load_end_rss / 2**20,
              "rss_mb_max": max(r for _, r in rss) / 2**20, "rss_growth": growth,
              "server_alive_at_end": alive, "calls": {},
              "rss_mb_every_10s": [round(r / 2**20, 1) for t, r in rss[::10]]}
    print(f"{opts.clients} clients, {opts.seconds:.0f} s measured after {opts.warmup:.0f} s "
          f"warm-up")
    print(f"{'call':<14} {'count':>8} {'calls/s':>9} {'p50 ms':>8} {'p99 ms':>8}")
    total = 0
    for kind in KINDS:
        if kind == "ExpectedValues" and not opts.ev:
            continue
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
          f"({growth:+.1%}; max {result['rss_mb_max']:.1f} MB; "
          f"{load_end_rss / 2**20:.1f} MB as the load ended, {SETTLE_SECONDS:g} s before)")
    print("server RSS every 10 s (MB): "
          + " ".join(f"{r:.0f}" for r in result["rss_mb_every_10s"]))
    if opts.attack:
        print("attack probes run: " + ", ".join(f"{k} x{v}" for k, v in probes.items()))
        print(f"server fds {fds.get('after_warmup')} after warm-up -> {fds.get('end')} at the "
              "end")
    print(f"errors: {len(errors)}")
    for e in errors[:10]:
        print("  " + e)
    if opts.json:
        opts.json.write_text(json.dumps(result, indent=2))
    ok = not errors and growth < 0.10 and alive
    if opts.attack:
        ok = ok and bool(probes) and fds.get("end", 1 << 30) <= fds["after_warmup"]
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


# -- attack probes (issue 11) ------------------------------------------------------------------

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
ANALYZE = "/mjcore.v1.HandAnalysisService/AnalyzeHand"


def _frame(kind: int, flags: int, sid: int, payload: bytes = b"") -> bytes:
    return len(payload).to_bytes(3, "big") + bytes((kind, flags)) + sid.to_bytes(4, "big") \
        + payload


def _headers(path: str = ANALYZE, *extra: tuple[str, str]) -> list[tuple[str, str]]:
    return [(":method", "POST"), (":scheme", "http"), (":path", path),
            (":authority", "localhost"), ("content-type", "application/grpc"),
            ("te", "trailers"), *extra]


def _connect(port: int, preface: bool = True, source: str | None = None) -> Any:
    import socket

    sock = socket.create_connection(("127.0.0.1", port), source_address=(source or ATTACKER, 0))
    if preface:
        sock.sendall(PREFACE + _frame(4, 0, 0) + _frame(8, 0, 0, (1 << 30).to_bytes(4, "big")))
    return sock


def _drain(sock: Any, seconds: float) -> None:
    """Read (and drop) what the server sends for ``seconds``, or until it closes."""
    import select

    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if select.select([sock], [], [], 0.1)[0]:
            try:
                if not sock.recv(1 << 16):
                    return
            except OSError:
                return


def _send(sock: Any, data: bytes) -> bool:
    try:
        sock.sendall(data)
        return True
    except OSError:
        return False


def probe_stall(port: int, unary_port: int) -> None:
    """8 connections x 8 calls that never send their message, held 15 s."""
    import hpack

    socks = []
    for p in (port, unary_port):
        for _ in range(4):
            sock = _connect(p)
            block = hpack.Encoder().encode(_headers())
            _send(sock, b"".join(_frame(1, 4, sid, block) for sid in range(1, 16, 2)))
            socks.append(sock)
    time.sleep(15)
    for sock in socks:
        sock.close()


def probe_stall_flood(port: int, unary_port: int) -> None:
    """For 15 s, a new main-port connection of 16 calls that never send their message every
    50 ms (320 calls/s, far more than the workers), the newest 20 connections kept open."""
    import hpack

    block = hpack.Encoder().encode(_headers())   # no dynamic-table entries: reusable
    socks: list[Any] = []
    end = time.monotonic() + 15
    try:
        while time.monotonic() < end:
            sock = _connect(port)
            socks.append(sock)
            _send(sock, b"".join(_frame(1, 4, sid, block) for sid in range(1, 32, 2)))
            while len(socks) > 20:
                socks.pop(0).close()
            time.sleep(0.05)
    finally:
        for sock in socks:
            sock.close()


def probe_fields(port: int, unary_port: int) -> None:
    """Oversized fields, a 16 MiB gzip bomb, bad enums and garbage on both ports."""
    import grpc

    from mjcore.wire.v1 import analysis_service_pb2 as pb
    from mjcore.wire.v1 import scoring_pb2 as sp

    bad = [pb.AnalyzeHandRequest(hand="1m" * 30_000).SerializeToString(),
           pb.AnalyzeHandRequest(hand="1m" * 500_000).SerializeToString(),
           pb.AnalyzeHandRequest(hand="123m", visible="1m" * 4_000_000).SerializeToString(),
           pb.AnalyzeHandRequest(hand="123m", visible="11111m").SerializeToString(),
           b"\xff\xff\xff"]
    score = sp.ScoreRequest(hand="234m456p11s555z77z7z", win_tile="7z",  # seat_wind: no such wind
                            win_method=2, seat_wind=99).SerializeToString()  # type: ignore[arg-type]
    bomb = pb.AnalyzeHandRequest(hand="1m" * (8 << 20)).SerializeToString()
    for target in (port, unary_port):
        with grpc.insecure_channel(f"127.0.0.1:{target}") as ch:
            for _ in range(5):
                for data in bad:
                    with contextlib.suppress(grpc.RpcError):
                        ch.unary_unary(ANALYZE)(data, timeout=10)
                with contextlib.suppress(grpc.RpcError):
                    ch.unary_unary("/mjcore.v1.HandAnalysisService/Score")(score, timeout=10)
                with contextlib.suppress(grpc.RpcError):
                    ch.unary_unary(ANALYZE)(bomb, timeout=10,
                                            compression=grpc.Compression.Gzip)


def probe_bodies(port: int, unary_port: int) -> None:
    """Unfinished request bodies filling every window granted, on both ports, held 15 s."""
    import h2.config
    import h2.connection

    held = []
    for p, declared, conns in ((unary_port, 60_000, 8), (port, DEFAULT_MAX_MESSAGE_SIZE - 1024, 2)):
        for _ in range(conns):
            sock = _connect(p, preface=False)
            client = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
            client.initiate_connection()
            for sid in range(1, 16, 2):
                client.send_headers(sid, _headers())
                client.send_data(sid, b"\0" + declared.to_bytes(4, "big"))
            _send(sock, client.data_to_send())
            sock.settimeout(0.2)
            for _ in range(20):
                # timeouts, resets, closed streams: the server decides, the probe goes on
                with contextlib.suppress(Exception):
                    client.receive_data(sock.recv(1 << 20))
                for sid in range(1, 16, 2):
                    with contextlib.suppress(Exception):
                        window = min(client.local_flow_control_window(sid),
                                     client.max_outbound_frame_size)
                        if window > 0:
                            client.send_data(sid, b"u" * window)
                if not _send(sock, client.data_to_send()):
                    break
            held.append(sock)
    time.sleep(15)
    for sock in held:
        sock.close()


def probe_connections(port: int, unary_port: int) -> None:
    """300 silent connections, 20 slowloris header blocks, 5 peers that never read."""
    import hpack

    socks = [_connect(p, preface=False) for p in (port, unary_port) for _ in range(150)]
    for _ in range(20):
        sock = _connect(unary_port)
        _send(sock, _frame(1, 0, 1, hpack.Encoder().encode(_headers())[:5]))
        socks.append(sock)
    for _ in range(5):
        sock = _connect(unary_port, preface=False)
        _send(sock, PREFACE + _frame(4, 0, 0, (4).to_bytes(2, "big") + (0).to_bytes(4, "big")))
        block = hpack.Encoder().encode(_headers())
        _send(sock, b"".join(_frame(1, 4, sid, block) + _frame(0, 1, sid, b"\0\0\0\0\0")
                             for sid in range(1, 16, 2)))
        socks.append(sock)
    time.sleep(40)     # past the handshake, header and write timeouts (10, 10, 30 s)
    for sock in socks:
        sock.close()


def probe_floods(port: int, unary_port: int) -> None:
    """Rapid reset, unknown-method HEADERS and SETTINGS floods on both ports."""
    import hpack

    for p in (port, unary_port):
        for kind in ("reset", "unknown", "settings"):
            sock = _connect(p)
            encoder = hpack.Encoder()
            block = encoder.encode(_headers() if kind == "reset"
                                   else _headers("/no.such/" + "m" * 500))
            sid = 1
            for _ in range(40):
                if kind == "settings":
                    unit = _frame(4, 0, 0, b"".join((4).to_bytes(2, "big")
                                                    + (65535 + i).to_bytes(4, "big")
                                                    for i in range(2700))) * 10
                else:
                    parts = []
                    for _ in range(50):
                        parts.append(_frame(1, 4 | (1 if kind == "unknown" else 0), sid, block))
                        if kind == "reset":
                            parts.append(_frame(3, 0, sid, (8).to_bytes(4, "big")))
                        sid += 2
                    unit = b"".join(parts)
                if not _send(sock, unit):
                    break
                _drain(sock, 0.01)
            _drain(sock, 1)
            sock.close()


SERVICE = "/mjcore.v1.HandAnalysisService/"
ATTACKS = {"stall": probe_stall, "stall flood": probe_stall_flood, "fields": probe_fields,
           "bodies": probe_bodies,
           "connections": probe_connections, "floods": probe_floods}


def attack_loop(port: int, unary_port: int | None, until: float, runs: dict[str, int]) -> None:
    """Run the probes in turns until ``until`` (perf_counter)."""
    assert unary_port is not None, "--attack needs --unary-front"
    while time.perf_counter() < until:
        for name, probe in ATTACKS.items():
            if time.perf_counter() >= until:
                break
            try:
                probe(port, unary_port)
            except OSError as err:   # the server may close the attacker at any point
                print(f"probe {name}: {err}", file=sys.stderr)
            runs[name] = runs.get(name, 0) + 1


# -- one probe at a time, and unfinished bodies, with the server's RSS ---------------------------

def _rss_mb(server: Any) -> float:
    return float(server.memory_info().rss) / 2**20


def _warm(port: int, unary_port: int | None) -> None:
    """A few well-behaved calls of each kind, so the RSS baseline has the caches filled."""
    fx = Fixtures()
    errors: list[str] = []
    stats: dict[str, list[float]] = {k: [] for k in KINDS}
    now = time.perf_counter()
    threads = [threading.Thread(target=client_loop, args=(port, unary_port, fx, i, now + 10,
                                                          now, stats, errors, True))
               for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise RuntimeError(f"warm-up failed: {errors[:3]}")


def probe_rounds(name: str, rounds: int, server_args: list[str]) -> int:
    """Run one attack probe ``rounds`` times against a fresh server; the RSS after each."""
    unary_port = free_port()
    with server_process("--workers", "32", "--unary-port", str(unary_port),
                        *server_args) as (proc, port):
        server = psutil.Process(proc.pid)
        _warm(port, unary_port)
        print(f"{name}: server RSS after warm-up {_rss_mb(server):.1f} MB", flush=True)
        for i in range(rounds):
            peak = _rss_mb(server)
            probe = threading.Thread(target=ATTACKS[name], args=(port, unary_port))
            probe.start()
            while probe.is_alive():
                peak = max(peak, _rss_mb(server))
                probe.join(0.25)
            time.sleep(2)
            print(f"  round {i + 1}: RSS {_rss_mb(server):.1f} MB (peak {peak:.1f} MB)",
                  flush=True)
    return 0


def memory_probe(hosts: int, server_args: list[str], seconds: float = 8.0) -> int:
    """From ``hosts`` loopback addresses, 2 connections x 8 calls each announcing a message of
    the largest size the server takes and sending all but its last byte as fast as the server
    grants window, held ``seconds``; prints the server's RSS growth and the bytes it took."""
    import select

    import h2.config
    import h2.connection
    import h2.exceptions

    size = DEFAULT_MAX_MESSAGE_SIZE
    if "--max-message-size" in server_args:
        size = int(server_args[server_args.index("--max-message-size") + 1])
    declared = size - 1024            # a message the server would take
    with server_process(*server_args) as (proc, port):
        server = psutil.Process(proc.pid)
        time.sleep(1)
        base = _rss_mb(server)
        conns = []
        for h in range(hosts):
            for _ in range(2):
                sock = _connect(port, preface=False, source=f"127.0.0.{2 + h}")
                sock.setblocking(False)
                client = h2.connection.H2Connection(
                    h2.config.H2Configuration(client_side=True))
                client.initiate_connection()
                for sid in range(1, 16, 2):
                    client.send_headers(sid, _headers(SERVICE + "StreamShanten"))
                    client.send_data(sid, b"\0" + declared.to_bytes(4, "big"))
                conns.append([sock, client, dict.fromkeys(range(1, 16, 2), 0)])
        sent = 0
        peak = base
        chunk = b"u" * 16384
        end = time.monotonic() + seconds
        next_sample = 0.0
        while time.monotonic() < end and conns:
            readable = select.select([c[0] for c in conns], [], [], 0.01)[0]
            for conn in list(conns):
                sock, client, progress = conn
                try:
                    if sock in readable:
                        data = sock.recv(1 << 20)
                        if not data:
                            conns.remove(conn)
                            continue
                        client.receive_data(data)
                    for sid in progress:
                        with contextlib.suppress(h2.exceptions.H2Error):
                            window = min(client.local_flow_control_window(sid), 1 << 20,
                                         declared - 1 - progress[sid])
                            while window > 0:
                                n = min(window, client.max_outbound_frame_size, len(chunk))
                                client.send_data(sid, chunk[:n])
                                progress[sid] += n
                                window -= n
                    out = client.data_to_send()
                    if out:
                        sock.setblocking(True)
                        sock.sendall(out)
                        sock.setblocking(False)
                        sent += len(out)
                except (OSError, h2.exceptions.H2Error):
                    conns.remove(conn)
            if time.monotonic() >= next_sample:
                peak = max(peak, _rss_mb(server))
                next_sample = time.monotonic() + 0.1
        held = _rss_mb(server)
        for sock, *_ in conns:
            sock.close()
        time.sleep(3)
        after = _rss_mb(server)
    print(f"memory probe: {hosts} hosts x 2 connections x 8 calls announcing {declared} bytes "
          f"(server {' '.join(server_args) or 'defaults'})")
    print(f"  body bytes sent {sent / 2**20:.0f} MiB in {seconds:.0f} s; server RSS "
          f"{base:.1f} MB before, peak {peak:.1f} MB (+{peak - base:.1f}), {held:.1f} MB at "
          f"the end of the hold, {after:.1f} MB 3 s after closing")
    return 0


def settle_fds(server: Any, start: int, wait: float = 60.0) -> int:
    """The server's open fds once they are back to ``start`` (or after ``wait`` s)."""
    give_up = time.monotonic() + wait
    n = server.num_fds()
    while n > start and time.monotonic() < give_up:
        time.sleep(1)
        n = server.num_fds()
    return n


if __name__ == "__main__":
    sys.exit(main())
