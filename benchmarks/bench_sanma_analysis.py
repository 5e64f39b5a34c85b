"""Three-player riichi (sanma) analysis against four-player, on seeded hands (issue 16).

    PYTHONPATH=. .venv/bin/python benchmarks/bench_sanma_analysis.py [--rounds 21]
    .venv/bin/python -m pytest benchmarks/bench_sanma_analysis.py --benchmark-only \
        --benchmark-columns=median,ops,rounds --benchmark-group-by=group

The sanma corpora are built like the core benchmark's (core_corpus.py), from shuffled walls of
the 108 sanma tiles (no 2m-8m); the sanma tenpai hands come from greedy play under
``rules="tenhou_sanma"``. Every operation runs four ways: four-player hands with the default
rules (the four-player figures), four-player hands with ``rules="tenhou"`` (what naming the
rules costs a four-player caller), sanma hands with the default rules (the same kernels on the
sanma hands) and sanma hands with ``rules="tenhou_sanma"`` (what a sanma caller runs). Each
ratio times two of them back to back in every round (CPU time), so the host's speed drift
cancels out; the script prints the median and range of the per-round ratios.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
try:
    import mjcore
except ImportError:  # built in place, not installed
    sys.path.insert(0, str(HERE.parent))
    import mjcore

import core_corpus as cc
import numpy as np
import pytest
from timing import interleaved_ratios, median_times

from mjcore import batch

SANMA = "tenhou_sanma"
SANMA_SEED = cc.SEED + 16          # issue 16
N_BATCH = int(os.environ.get("MJCORE_BENCH_SANMA_N", str(cc.N_HANDS)))
N_SINGLE = cc.SINGLE_API_HANDS
ROUNDS = int(os.environ.get("MJCORE_BENCH_ROUNDS", "7"))


@cache
def sanma_random(size: int) -> np.ndarray:
    """(N_BATCH, 34) counts: the first ``size`` tiles of shuffled sanma walls."""
    return cc.wall_hands(N_BATCH, size, SANMA_SEED + size, cc.SANMA_KINDS)


@cache
def sanma_tenpai() -> tuple[np.ndarray, np.ndarray]:
    """(tenpai 13-tile sanma hands, the same hands plus their next draw)."""
    counts, nxt = cc.play_to_tenpai(N_BATCH, SANMA_SEED + 2, cc.SANMA_KINDS, SANMA)
    drawn = counts.copy()
    drawn[np.arange(len(counts)), nxt] += 1
    return counts, drawn


def four_player(corpus: str) -> np.ndarray:
    """The core benchmark's four-player corpus of that name, cut to N_BATCH hands."""
    counts = {"random13": lambda: cc.random13().counts,
              "random14": lambda: cc.random14().counts,
              "tenpai13": lambda: cc.tenpai13()[0].counts,
              "tenpai14": lambda: cc.tenpai13()[1].counts}[corpus]()
    return counts[:N_BATCH]


def sanma(corpus: str) -> np.ndarray:
    return {"random13": lambda: sanma_random(13), "random14": lambda: sanma_random(14),
            "tenpai13": lambda: sanma_tenpai()[0], "tenpai14": lambda: sanma_tenpai()[1]}[corpus]()


def hands_of(counts: np.ndarray, n: int) -> list[mjcore.Hand]:
    return [mjcore.Hand.parse(line) for line in cc.mpsz_lines(counts[:n]).decode().splitlines()]


# (operation, corpus, runner factory: (counts, rules) -> (run, hands))
Runner = tuple[Callable[[], Any], int]


def _batch(op: Callable[..., Any], **kw: Any) -> Callable[[np.ndarray, str | None], Runner]:
    def make(counts: np.ndarray, rules: str | None) -> Runner:
        return (lambda: op(counts, rules=rules, n_threads=1, **kw)), len(counts)
    return make


def _single(op: Callable[..., Any], n: int = N_SINGLE
            ) -> Callable[[np.ndarray, str | None], Runner]:
    def make(counts: np.ndarray, rules: str | None) -> Runner:
        hands = hands_of(counts, n)
        return (lambda: [op(h, rules=rules) for h in hands]), len(hands)
    return make


OPERATIONS: list[tuple[str, str, Callable[[np.ndarray, str | None], Runner]]] = [
    ("batch shanten", "random13", _batch(batch.shanten)),
    ("batch agari", "random14", _batch(batch.is_agari)),
    ("batch agari (tenpai + draw)", "tenpai14", _batch(batch.is_agari)),
    ("batch waits", "tenpai13", _batch(batch.waits)),
    ("batch ukeire full=True", "random14", _batch(batch.ukeire, full=True)),
    ("batch ukeire summary", "random14", _batch(batch.ukeire)),
    ("mjcore.shanten(Hand)", "random13", _single(mjcore.shanten)),
    ("mjcore.is_agari(Hand)", "tenpai14", _single(mjcore.is_agari)),
    ("mjcore.waits(Hand)", "tenpai13", _single(mjcore.waits)),
    ("mjcore.ukeire(Hand), 14 tiles", "random14", _single(mjcore.ukeire, N_SINGLE // 10)),
]
OPERATION = {op: (corpus, make) for op, corpus, make in OPERATIONS}
# (label, corpus of hands, rules)
VARIANTS = [("four-player", four_player, None), ("four-player, tenhou", four_player, "tenhou"),
            ("sanma hands, default rules", sanma, None), ("sanma, tenhou_sanma", sanma, SANMA)]


def runner(op: str, variant: str) -> Runner:
    corpus, make = OPERATION[op]
    hands_of_variant, rules = {v: (h, r) for v, h, r in VARIANTS}[variant]
    return make(hands_of_variant(corpus), rules)


def check_sanma_corpora() -> None:
    """The sanma corpora hold no 2m-8m, and every hand is a good row under tenhou_sanma."""
    for corpus in ("random13", "random14", "tenpai13", "tenpai14"):
        counts = sanma(corpus)
        assert not counts[:, 1:8].any(), corpus
        result = batch.shanten(counts, rules=SANMA)
        assert not result.errors(), corpus
    assert (batch.waits(sanma("tenpai13"), rules=SANMA).shanten == 0).all()


@pytest.mark.parametrize("variant", [v for v, _, _ in VARIANTS])
@pytest.mark.parametrize("op", [op for op, _, _ in OPERATIONS])
def test_sanma_analysis(benchmark: Any, op: str, variant: str) -> None:
    run, hands = runner(op, variant)
    benchmark.group = op
    benchmark.extra_info["hands"] = hands
    benchmark.pedantic(run, rounds=ROUNDS, iterations=1, warmup_rounds=1)


def test_sanma_corpora() -> None:
    check_sanma_corpora()


def _rate(x: float) -> str:
    return f"{x / 1e6:.2f} M/s" if x >= 1e6 else f"{x / 1e3:.0f} k/s"


def _ratios(op: str, first: str, second: str, rounds: int) -> str:
    a, n_a = runner(op, first)
    b, n_b = runner(op, second)
    r = interleaved_ratios(a, n_a, b, n_b, rounds)
    return f"{statistics.median(r):.2f}x ({min(r):.2f}-{max(r):.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=21, help="rounds per ratio (default 21)")
    parser.add_argument("--only", help="operations whose name contains this text")
    args = parser.parse_args()
    load = subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()
    print(f"{N_BATCH} hands per batch corpus, {N_SINGLE} per single-hand corpus "
          f"({N_SINGLE // 10} for ukeire); "
          f"load before: {load}\n")
    check_sanma_corpora()
    print("| operation | four-player, CPU | sanma (tenhou_sanma), CPU | sanma / four-player | "
          "four-player: rules tenhou / default | sanma hands: tenhou_sanma / default |")
    print("| --- | --- | --- | --- | --- | --- |")
    for op, _, _ in OPERATIONS:
        if args.only and args.only not in op:
            continue
        rates = {}
        for variant in ("four-player", "sanma, tenhou_sanma"):
            run, hands = runner(op, variant)
            rates[variant] = hands / median_times(run, 7)[1]
        print(f"| {op} | {_rate(rates['four-player'])} | {_rate(rates['sanma, tenhou_sanma'])} | "
              f"{_ratios(op, 'sanma, tenhou_sanma', 'four-player', args.rounds)} | "
              f"{_ratios(op, 'four-player, tenhou', 'four-player', args.rounds)} | "
              f"{_ratios(op, 'sanma, tenhou_sanma', 'sanma hands, default rules', args.rounds)} |",
              flush=True)
    load = subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()
    print(f"\nload after: {load}")


if __name__ == "__main__":
    main()
