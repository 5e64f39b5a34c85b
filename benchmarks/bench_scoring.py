"""Riichi scoring: mjcore batch and single-hand API against riichienv on the same
seeded corpus of random winning hands with random situations (tests/scoring/random_hands.py).

    .venv/bin/python -m pytest benchmarks/bench_scoring.py --benchmark-only \
        --benchmark-columns=median,ops,rounds --benchmark-group-by=group
    .venv/bin/python benchmarks/bench_scoring.py          # Markdown table, plain timing

Every implementation scores the full result: mjcore batch fills the yaku bitmask and per-yaku
han, the fu breakdown and the payments of every row; riichienv is called once per hand
(``HandEvaluator(tiles, melds).calc(...)``, its compiled core, not the Python wrapper);
``extra_info["hands_per_s"]`` is the throughput at the median round.
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "tests" / "scoring"))
try:
    import mjcore  # noqa: F401
except ImportError:
    sys.path.insert(0, str(ROOT))

import pytest
from random_hands import CHI, KAN_ADDED, KAN_CLOSED, KAN_OPEN, PON, random_wins
from timing import interleaved_ratios, median_times

SEED = 20260101
N_BATCH = int(os.environ.get("MJCORE_BENCH_SCORING_N", "20000"))
N_SINGLE = 5000
ROUNDS = int(os.environ.get("MJCORE_BENCH_ROUNDS", "7"))


class Corpus:
    def __init__(self) -> None:
        from mjcore.hand import Hand, Meld
        from mjcore.riichi.batch_scoring import pack_prepared

        self.hands = random_wins(N_BATCH, SEED)
        self.arrays = pack_prepared([h.kernel_args() for h in self.hands])
        kinds = {CHI: "chi", PON: "pon", KAN_OPEN: "kan-open", KAN_CLOSED: "kan-closed",
                 KAN_ADDED: "kakan"}
        self.single: list[tuple[Any, int, dict[str, Any]]] = []
        for h in self.hands[:N_SINGLE]:
            melds = [Meld.from_136(kinds[k], ids, None if k == KAN_CLOSED else ids[0],
                                   None if k == KAN_CLOSED else (3 if k == CHI else 2))
                     for k, ids in h.melds]
            hand = Hand.from_136(h.closed_ids, melds)
            kw = {"tsumo": h.tsumo, "seat_wind": h.seat_wind, "round_wind": h.round_wind,
                      "dora": [t // 4 for t in h.dora_ids], "ura": [t // 4 for t in h.ura_ids],
                      "riichi": h.riichi, "double_riichi": h.double_riichi, "ippatsu": h.ippatsu,
                      "rinshan": h.rinshan, "chankan": h.chankan, "haitei": h.haitei,
                      "houtei": h.houtei,
                      "tenhou": h.tenhou, "chiihou": h.chiihou, "honba": h.honba,
                      "riichi_sticks": h.riichi_sticks}
            self.single.append((hand, h.win_id // 4, kw))


_CORPUS: Corpus | None = None


def corpus() -> Corpus:
    global _CORPUS
    if _CORPUS is None:
        _CORPUS = Corpus()
    return _CORPUS


def batch_runner(n_threads: int) -> tuple[Callable[[], Any], int]:
    from mjcore.riichi.batch_scoring import score

    c = corpus()
    return (lambda: score(**c.arrays, n_threads=n_threads)), len(c.hands)


def single_runner() -> tuple[Callable[[], Any], int]:
    from mjcore.riichi.scoring import score

    items = corpus().single

    def run() -> None:
        for hand, win, kw in items:
            score(hand, win, **kw)
    return run, len(items)


def _riichienv_items(public: bool) -> list[tuple[Any, ...]]:
    """(tiles, melds, win, dora, ura, conditions) per hand, with riichienv's compiled
    ``Conditions`` or, when ``public``, its Python ``riichienv.Conditions`` dataclass."""
    import riichienv
    import riichienv._riichienv as rc

    winds = [rc.Wind.East, rc.Wind.South, rc.Wind.West, rc.Wind.North]
    types = {CHI: rc.MeldType.Chi, PON: rc.MeldType.Pon, KAN_OPEN: rc.MeldType.Daiminkan,
             KAN_CLOSED: rc.MeldType.Ankan, KAN_ADDED: rc.MeldType.Kakan}
    conditions = riichienv.Conditions if public else rc.Conditions
    items = []
    for h in corpus().hands[:N_SINGLE]:
        melds = [rc.Meld(types[k], sorted(ids), k != KAN_CLOSED, -1) for k, ids in h.melds]
        cond = conditions(
            tsumo=h.tsumo, riichi=h.riichi, double_riichi=h.double_riichi, ippatsu=h.ippatsu,
            haitei=h.haitei, houtei=h.houtei, rinshan=h.rinshan, chankan=h.chankan,
            tsumo_first_turn=h.tenhou or h.chiihou,
            player_wind=h.seat_wind if public else winds[h.seat_wind],
            round_wind=h.round_wind if public else winds[h.round_wind],
            riichi_sticks=h.riichi_sticks, honba=h.honba)
        items.append((list(h.closed_ids), melds, h.win_id, list(h.dora_ids),
                      list(h.ura_ids), cond))
    return items


def riichienv_runner() -> tuple[Callable[[], Any], int]:
    """riichienv's compiled ``HandEvaluator`` class, called directly."""
    import riichienv._riichienv as rc

    items = _riichienv_items(public=False)
    evaluator = rc.HandEvaluator

    def run() -> None:
        for tiles, melds, win, dora, ura, cond in items:
            evaluator(tiles, melds).calc(win, dora, ura, cond)
    return run, len(items)


def riichienv_public_runner() -> tuple[Callable[[], Any], int]:
    """riichienv's documented Python API: ``riichienv.HandEvaluator(tiles, melds).calc(win,
    dora, conditions, ura)`` with its ``riichienv.Conditions`` dataclass."""
    import riichienv

    items = _riichienv_items(public=True)
    evaluator = riichienv.HandEvaluator

    def run() -> None:
        for tiles, melds, win, dora, ura, cond in items:
            evaluator(tiles, melds).calc(win, dora, cond, ura)
    return run, len(items)


def tenhou_runner() -> tuple[Callable[[], Any], int]:
    """The 13,558 real Tenhou wins (a realistic mix; skipped when the data set is absent)."""
    import gzip
    import json

    from mjcore.riichi.batch_scoring import pack_tenhou, score

    path = ROOT.parent / "shared" / "data" / "tenhou" / "cases.jsonl.gz"
    with gzip.open(path, "rt", encoding="utf-8") as f:
        arrays = pack_tenhou(json.loads(line) for line in f)
    return (lambda: score(**arrays)), len(arrays["counts"])


def sanma_batch_runner(n_threads: int) -> tuple[Callable[[], Any], int]:
    """Three-player riichi (rules tenhou_sanma): N_BATCH seeded random sanma wins (no 2m-8m, no
    chi, north set aside in 60% of them), built like the four-player corpus."""
    from sanma_cases import pack_prepared_sanma, sanma_random_wins

    from mjcore.riichi.batch_scoring import score

    arrays = pack_prepared_sanma(sanma_random_wins(N_BATCH, SEED))
    return (lambda: score(**arrays, rules="tenhou_sanma", n_threads=n_threads)), N_BATCH


def sanma_tenhou_runner() -> tuple[Callable[[], Any], int]:
    """The 3,986 real Tenhou sanma wins, converted from the archive
    (tests/scoring/sanma_cases.py)."""
    from sanma_cases import load_sanma_cases

    from mjcore.riichi.batch_scoring import pack_tenhou, score

    arrays = pack_tenhou(load_sanma_cases())
    return (lambda: score(**arrays, rules="tenhou_sanma")), len(arrays["counts"])


def sanma_vs_four_player(rounds: int) -> list[float]:
    """Per-round speed ratio sanma / four-player batch scoring (1 thread, CPU time), the two
    random corpora of the same size timed back to back in each round."""
    sanma, n_s = sanma_batch_runner(1)
    four, n_f = batch_runner(1)
    return interleaved_ratios(sanma, n_s, four, n_f, rounds)


RUNNERS: dict[str, Callable[[], tuple[Callable[[], Any], int]]] = {
    "mjcore batch, 1 thread": lambda: batch_runner(1),
    "mjcore batch, 1 thread, sanma (tenhou_sanma)": lambda: sanma_batch_runner(1),
    "mjcore batch, 2 threads": lambda: batch_runner(2),
    "mjcore.score single calls": single_runner,
    "riichienv HandEvaluator.calc": riichienv_runner,
    "riichienv public API (riichienv.HandEvaluator)": riichienv_public_runner,
}


def _record(benchmark: Any, hands: int) -> None:
    benchmark.extra_info["hands"] = hands
    if benchmark.stats is None:          # --benchmark-disable: nothing timed
        return
    median = benchmark.stats.stats.median
    benchmark.extra_info["hands_per_s"] = round(hands / median) if median else None


@pytest.mark.parametrize("name", list(RUNNERS))
def test_scoring(benchmark: Any, name: str) -> None:
    run, hands = RUNNERS[name]()
    benchmark.group = "riichi scoring"
    benchmark.pedantic(run, rounds=ROUNDS, iterations=1, warmup_rounds=1)
    _record(benchmark, hands)


def _median_rates(run: Callable[[], Any], hands: int, repeats: int) -> tuple[float, float]:
    """(wall-clock, process CPU-time) hands/s at the median of ``repeats`` runs. On a loaded
    machine the CPU-time rate is the better estimate of one core's speed."""
    wall, cpu = median_times(run, repeats)
    return hands / wall, hands / cpu


def batch_same_hands_runner() -> tuple[Callable[[], Any], int]:
    """mjcore batch, 1 thread, on exactly the hands riichienv scores (the first N_SINGLE)."""
    from mjcore.riichi.batch_scoring import score

    c = corpus()
    arrays = {k: v[:N_SINGLE] for k, v in c.arrays.items()}
    return (lambda: score(**arrays, n_threads=1)), min(N_SINGLE, len(c.hands))


def interleaved_ratio(rounds: int, peer_runner: Callable[[], tuple[Callable[[], Any], int]]
                      ) -> list[float]:
    """Per-round speed ratio mjcore batch / a riichienv entry point on the same hands, the two
    timed back to back in each round (CPU time), so that the host's speed drift cancels out of
    each ratio."""
    ours, n_ours = batch_same_hands_runner()
    peer, n_peer = peer_runner()
    return interleaved_ratios(ours, n_ours, peer, n_peer, rounds)


def main() -> None:
    load = subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()
    print(f"corpus: {N_BATCH} random winning hands, seed {SEED}; load before: {load}\n")
    rates = {}
    for name, factory in RUNNERS.items():
        run, hands = factory()
        rates[name] = _median_rates(run, hands, ROUNDS)
    try:
        run, hands = tenhou_runner()
        rates["mjcore batch, 1 thread, Tenhou cases"] = _median_rates(run, hands, ROUNDS)
    except OSError:
        pass
    try:
        run, hands = sanma_tenhou_runner()
        rates["mjcore batch, 1 thread, Tenhou sanma cases"] = _median_rates(run, hands, ROUNDS)
    except OSError:
        pass
    peer_wall, peer_cpu = rates["riichienv HandEvaluator.calc"]
    print("| implementation | hands/s, wall (median) | vs riichienv | hands/s, CPU time "
          "(median) | vs riichienv |")
    print("| --- | --- | --- | --- | --- |")
    for name, (w, c) in rates.items():
        print(f"| {name} | {w / 1e6:.3f} M/s | {w / peer_wall:.1f}x | {c / 1e6:.3f} M/s | "
              f"{c / peer_cpu:.1f}x |")
    print(f"\nmjcore batch (1 thread) / riichienv on the same {N_SINGLE} hands, timed back to "
          f"back in each of {ROUNDS * 3} rounds (CPU time):")
    for label, peer_runner in (("its compiled HandEvaluator class", riichienv_runner),
                               ("its public riichienv.HandEvaluator", riichienv_public_runner)):
        ratios = interleaved_ratio(ROUNDS * 3, peer_runner)
        print(f"- vs {label}: median {statistics.median(ratios):.1f}x, "
              f"range {min(ratios):.1f}x-{max(ratios):.1f}x")
    ratios = sanma_vs_four_player(ROUNDS * 3)
    print(f"- sanma / four-player batch scoring, {N_BATCH} random hands each: median "
          f"{statistics.median(ratios):.2f}x, range {min(ratios):.2f}x-{max(ratios):.2f}x")
    load = subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()
    print(f"\nload after: {load}")


if __name__ == "__main__":
    main()
