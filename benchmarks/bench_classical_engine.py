"""The Chinese classical game engine: self-play games per second, and the replay of Bradfield's
300 games (parsing with mjcore.classical.history, then our referee and scorer).

    .venv/bin/python benchmarks/bench_classical_engine.py            # plain table (CPU, wall)
    .venv/bin/python -m pytest benchmarks/bench_classical_engine.py --benchmark-only \
        --benchmark-columns=median,ops,rounds

Games are seeded (game i uses seed i); a full game is four rounds (about 23 hands with
efficiency agents). Self-play includes every legal-action list, every event kept in memory, the
scoring and settlement of every hand; not the invariant checks or writing records.
The replay reads the archive in one pass (``tar r|*``), parses every hand history, replays it
through the referee, scores all four hands and the settlement, and checks the game's running and
final scores; the table also shows the parsing and the replay alone.
"""
from __future__ import annotations

import os
import sys
import tarfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from mjcore.classical.engine.agents import EfficiencyAgent, RandomAgent
from mjcore.classical.engine.bradfield import replay_hand, replay_paths
from mjcore.classical.engine.game import play_game
from mjcore.classical.history import parse_history

ARCHIVE = Path(os.environ.get("MJCORE_BRADFIELD_DATA",
                              "/work/shared/data/classical/bradfield-games.tar.xz"))
GAMES = int(os.environ.get("MJCORE_BENCH_GAMES", "60"))


def selfplay_efficiency(n: int = GAMES, rules: str = "classical") -> int:
    for seed in range(n):
        play_game([EfficiencyAgent() for _ in range(4)], seed=seed, rules=rules)
    return n


def selfplay_mixed(n: int = GAMES) -> int:
    for seed in range(n):
        play_game([EfficiencyAgent(), RandomAgent(seed), EfficiencyAgent(),
                   RandomAgent(seed + 1)], seed=seed)
    return n


def read_archive() -> list[tuple[str, str]]:
    out = []
    with tarfile.open(ARCHIVE, "r|*") as tar:
        for m in tar:
            if m.isfile() and m.name.endswith(".mjs"):
                f = tar.extractfile(m)
                if f is not None:
                    out.append((m.name, f.read().decode()))
    return out


def replay_all() -> int:
    games = list(replay_paths([ARCHIVE]))
    bad = [g.first_problem() for g in games if not g.ok]
    if len(games) != 300:
        raise SystemExit(f"expected 300 games, replayed {len(games)}")
    return len(bad)


def _timed(fn, *args):
    w0, c0 = time.perf_counter(), time.process_time()
    out = fn(*args)
    return out, time.perf_counter() - w0, time.process_time() - c0


def main() -> None:
    rows = []
    for name, fn in (("efficiency agents (classical)", selfplay_efficiency),
                     ("efficiency agents (bradfield)",
                      lambda: selfplay_efficiency(GAMES, "bradfield")),
                     ("2 efficiency + 2 random", selfplay_mixed)):
        n, wall, cpu = _timed(fn)
        rows.append((name, f"{n / cpu:.1f} games/s", f"{n / wall:.1f} games/s"))
    if ARCHIVE.exists():
        texts, wall_r, cpu_r = _timed(read_archive)
        hands, wall_p, cpu_p = _timed(lambda: [parse_history(t, n) for n, t in texts])
        _, wall_g, cpu_g = _timed(lambda: [replay_hand(h) for h in hands])
        bad, wall_a, cpu_a = _timed(replay_all)
        rows.append(("read the .tar.xz (6,633 hands)", f"{cpu_r:.1f} s", f"{wall_r:.1f} s"))
        rows.append(("parse (mjcore.classical.history)", f"{cpu_p:.1f} s", f"{wall_p:.1f} s"))
        rows.append(("referee + scoring of the parsed hands", f"{cpu_g:.1f} s",
                     f"{wall_g:.1f} s"))
        rows.append((f"replay of all 300 games, end to end ({bad} disagree)", f"{cpu_a:.1f} s",
                     f"{wall_a:.1f} s"))
    print("| workload | CPU | wall |\n|---|---|---|")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]} |")
    print(f"(load average {os.getloadavg()[0]:.1f}; {GAMES} games per self-play row)")


def test_selfplay_efficiency(benchmark) -> None:
    n = benchmark.pedantic(selfplay_efficiency, args=(10,), rounds=3)
    benchmark.extra_info["games_per_s"] = n / benchmark.stats.stats.median


def test_replay_one_game(benchmark) -> None:
    if not ARCHIVE.exists():
        import pytest

        pytest.skip("no Bradfield archive")
    texts = read_archive()[:25]
    hands = [parse_history(t, n) for n, t in texts]
    benchmark(lambda: [replay_hand(h) for h in hands])


if __name__ == "__main__":
    main()
