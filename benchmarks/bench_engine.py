"""The riichi game engine: self-play games per second and replay of the real Tenhou games,
with riichienv's environment measured in the same run for comparison; three-player (sanma,
``tenhou_sanma``) self-play and the replay of the 534 Tenhou sanma games beside them.

    .venv/bin/python -m pytest benchmarks/bench_engine.py --benchmark-only \
        --benchmark-columns=median,ops,rounds --benchmark-group-by=group
    .venv/bin/python benchmarks/bench_engine.py        # plain table (CPU and wall time)

Games are seeded (game i of a round uses seed i); ``extra_info["games_per_s"]`` is the
throughput at the median round. Random agents pick uniformly among the legal actions in both
engines (mjcore: :class:`RandomAgent`; riichienv: a random choice among
``Observation.legal_actions()``), full hanchan with red fives.

What the self-play figures include: ``play_game`` with the built-in agents, every legal-action
list built and every event of the record kept in memory. Not included: the per-event invariant
checks (the tests and ``mjcore play --check-invariants`` run those), writing records, the
progress bar.

CPU cost without the timing noise of a shared host, as instructions (the difference of two
runs; ``--only random --games 0`` only imports):

    PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        .venv/bin/python benchmarks/bench_engine.py --only random --games 40
"""
from __future__ import annotations

import gzip
import json
import os
import random
import sys
import tarfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from mjcore.riichi.agents import EfficiencyAgent, RandomAgent
from mjcore.riichi.game import play_game
from mjcore.riichi.mjlog import read_mjlog, rules_for_go_type, rules_for_mjlog, with_record_rounding
from mjcore.riichi.replay import replay_events

DATA = Path(os.environ.get("MJCORE_TENHOU_DATA", "/work/shared/data/tenhou"))
ROUNDS = int(os.environ.get("MJCORE_BENCH_ROUNDS", "3"))
GAMES = int(os.environ.get("MJCORE_BENCH_GAMES", "40"))


def selfplay_random(n: int = GAMES) -> int:
    for seed in range(n):
        play_game([RandomAgent(seed * 4 + i) for i in range(4)], seed=seed)
    return n


def selfplay_efficiency(n: int = GAMES) -> int:
    for seed in range(n):
        play_game([EfficiencyAgent() for _ in range(4)], seed=seed)
    return n


def selfplay_sanma_random(n: int = GAMES) -> int:
    for seed in range(n):
        play_game([RandomAgent(seed * 4 + i) for i in range(3)], seed=seed, rules="tenhou_sanma")
    return n


def selfplay_sanma_efficiency(n: int = GAMES) -> int:
    for seed in range(n):
        play_game([EfficiencyAgent() for _ in range(3)], seed=seed, rules="tenhou_sanma")
    return n


SELFPLAY = {"random": selfplay_random, "efficiency": selfplay_efficiency,
            "sanma-random": selfplay_sanma_random, "sanma-efficiency": selfplay_sanma_efficiency}


def riichienv_random(n: int = GAMES) -> int:
    from riichienv import RiichiEnv

    rng = random.Random(0)
    for seed in range(n):
        env = RiichiEnv(game_mode="4p-red-half", seed=seed, skip_mjai_logging=True)
        obs = env.reset()
        while not env.done():
            acts = {}
            for pid, o in obs.items():
                legal = o.legal_actions()
                acts[pid] = legal[rng.randrange(len(legal))]
            obs = env.step(acts)
    return n


def load_tenhou_games() -> list[tuple[str, bytes]]:
    with gzip.open(DATA / "games.jsonl.gz", "rt") as f:
        wanted = [g["file"] for g in map(json.loads, f) if g["complete"]]
    complete = set(wanted)
    out = {}
    with tarfile.open(DATA / "mjlog.tar.xz") as tar:
        for m in tar:
            if m.name in complete:
                out[m.name] = tar.extractfile(m).read()  # type: ignore[union-attr]
    return [(name, out[name]) for name in wanted]


def load_sanma_games() -> list[tuple[str, bytes]]:
    """The 534 three-player records of the archive (GO type 185)."""
    out = []
    with tarfile.open(DATA / "mjlog.tar.xz") as tar:
        for m in tar:
            f = tar.extractfile(m) if m.isfile() else None
            if f is not None:
                data = f.read()
                if b'<GO type="185"' in data[:4000]:
                    out.append((m.name, data))
    return out


def replay_sanma(games: list[tuple[str, bytes]]) -> int:
    """Replay every sanma record under the rules it names (tenhou_sanma)."""
    ok = 0
    for name, data in games:
        g = read_mjlog(data.decode("utf-8"), name)
        ok += replay_events(g.events, rules_for_mjlog(g), where=name).ok
    return ok


def replay_all(games: list[tuple[str, bytes]]) -> int:
    """Parse every mjlog and replay it with every check (what ``mjcore replay`` does)."""
    ok = 0
    for name, data in games:
        g = read_mjlog(data.decode("utf-8"), name)
        rules = with_record_rounding(rules_for_go_type(g.go_type), g.events)
        rep = replay_events(g.events, rules, where=name)
        ok += rep.ok
    return ok


# ---- pytest-benchmark ----------------------------------------------------------------------

def _record(benchmark, games: int) -> None:
    benchmark.extra_info["games"] = games
    if benchmark.stats is None:          # --benchmark-disable: nothing timed
        return
    median = benchmark.stats.stats.median
    benchmark.extra_info["games_per_s"] = round(games / median, 1) if median else None


def test_selfplay_random(benchmark):
    benchmark.group = "self-play, random agents (hanchan)"
    benchmark.pedantic(selfplay_random, rounds=ROUNDS, iterations=1, warmup_rounds=0)
    _record(benchmark, GAMES)


def test_riichienv_random(benchmark):
    benchmark.group = "self-play, random agents (hanchan)"
    benchmark.pedantic(riichienv_random, rounds=ROUNDS, iterations=1, warmup_rounds=0)
    _record(benchmark, GAMES)


def test_selfplay_efficiency(benchmark):
    benchmark.group = "self-play, efficiency agents (hanchan)"
    benchmark.pedantic(selfplay_efficiency, rounds=ROUNDS, iterations=1, warmup_rounds=0)
    _record(benchmark, GAMES)


def test_selfplay_sanma_random(benchmark):
    benchmark.group = "self-play, random agents (hanchan)"
    benchmark.pedantic(selfplay_sanma_random, rounds=ROUNDS, iterations=1, warmup_rounds=0)
    _record(benchmark, GAMES)


def test_selfplay_sanma_efficiency(benchmark):
    benchmark.group = "self-play, efficiency agents (hanchan)"
    benchmark.pedantic(selfplay_sanma_efficiency, rounds=ROUNDS, iterations=1, warmup_rounds=0)
    _record(benchmark, GAMES)


def test_replay_sanma_games(benchmark):
    import pytest

    if not (DATA / "mjlog.tar.xz").exists():
        pytest.skip("Tenhou data not found")
    games = load_sanma_games()
    benchmark.group = "replay of the 534 Tenhou sanma games"
    ok = benchmark.pedantic(replay_sanma, args=(games,), rounds=1, iterations=1)
    benchmark.extra_info["agreeing"] = ok
    _record(benchmark, len(games))


def test_replay_all_tenhou_games(benchmark):
    import pytest

    if not (DATA / "mjlog.tar.xz").exists():
        pytest.skip("Tenhou data not found")
    games = load_tenhou_games()
    benchmark.group = "replay of the 1,640 Tenhou games"
    ok = benchmark.pedantic(replay_all, args=(games,), rounds=1, iterations=1)
    benchmark.extra_info["agreeing"] = ok
    _record(benchmark, len(games))


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", choices=list(SELFPLAY),
                        help="run only this self-play workload and print its CPU games/s")
    parser.add_argument("--games", type=int, default=GAMES, help="games for --only")
    args = parser.parse_args()
    if args.only:
        fn = SELFPLAY[args.only]
        c0 = time.process_time()
        n = fn(args.games)
        cpu = time.process_time() - c0
        print(f"{args.only}: {n} games, {cpu:.3f} s CPU"
              + (f", {n / cpu:.1f} games/s" if n else ""))
        return
    rows = []
    for name, fn in [("mjcore self-play, random agents", selfplay_random),
                     ("riichienv RiichiEnv, random legal actions", riichienv_random),
                     ("mjcore self-play, efficiency agents", selfplay_efficiency),
                     ("mjcore sanma self-play, random agents", selfplay_sanma_random),
                     ("mjcore sanma self-play, efficiency agents", selfplay_sanma_efficiency)]:
        c0, w0 = time.process_time(), time.perf_counter()
        n = fn()
        c1, w1 = time.process_time(), time.perf_counter()
        rows.append((name, n, n / (c1 - c0), n / (w1 - w0)))
    games = load_tenhou_games()
    c0, w0 = time.process_time(), time.perf_counter()
    ok = replay_all(games)
    c1, w1 = time.process_time(), time.perf_counter()
    print("| workload | games | games/s (CPU) | games/s (wall) |")
    print("|---|---|---|---|")
    for name, n, cps, wps in rows:
        print(f"| {name} | {n} | {cps:.1f} | {wps:.1f} |")
    print(f"| replay of {len(games)} Tenhou games ({ok} agree) | {len(games)} | "
          f"{len(games) / (c1 - c0):.1f} ({c1 - c0:.1f} s CPU) | "
          f"{len(games) / (w1 - w0):.1f} ({w1 - w0:.1f} s wall) |")
    sanma = load_sanma_games()
    c0, w0 = time.process_time(), time.perf_counter()
    ok = replay_sanma(sanma)
    c1, w1 = time.process_time(), time.perf_counter()
    print(f"| replay of {len(sanma)} Tenhou sanma games ({ok} agree) | {len(sanma)} | "
          f"{len(sanma) / (c1 - c0):.1f} ({c1 - c0:.1f} s CPU) | "
          f"{len(sanma) / (w1 - w0):.1f} ({w1 - w0:.1f} s wall) |")
    print(f"load average: {os.getloadavg()}")


if __name__ == "__main__":
    main()
