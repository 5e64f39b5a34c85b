"""Classical hand analysis beside riichi's, on the same hands, in the same run.

    .venv/bin/python -m pytest benchmarks/bench_classical_analysis.py --benchmark-only \
        --benchmark-columns=median,ops,rounds --benchmark-group-by=group
    .venv/bin/python benchmarks/bench_classical_analysis.py      # a Markdown table with ratios

The batch kernels are one kernel with a winning-forms set, so the rules are the only
difference: riichi (standard, chiitoitsu, kokushi), classical (four sets and a pair, Thirteen
Unique Wonders) and classical with its seven_pairs option (any seven pairs). Corpora are
core_corpus's seeded ones (random13, tenpai13, random14; 200,000 hands), one thread.
The issue's targets: classical shanten >= 25 M/s and waits >= 7 M/s on one core.
"""
from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import core_corpus as cc
import pytest

from mjcore import batch

ROUNDS = int(os.environ.get("MJCORE_BENCH_ROUNDS", "5"))
TARGETS = {"shanten": 25e6, "waits": 7e6}


def _rules() -> dict[str, object]:
    from mjcore.classical.rules import ClassicalRules

    classical = ClassicalRules.preset("classical")
    return {"riichi": None, "classical": classical,
            "classical + seven pairs": classical.replace(seven_pairs=True)}


def _work(op: str, rules: object) -> tuple[int, Callable[[], object]]:
    """(hands per round, one round) of ``op`` under ``rules``."""
    if op == "shanten":
        c = cc.random13().counts
        return len(c), lambda: batch.shanten(c, rules=rules, n_threads=1)
    if op == "waits":
        c = cc.tenpai13()[0].counts
        return len(c), lambda: batch.waits(c, rules=rules, n_threads=1)
    if op == "agari":
        c = cc.random14().counts
        return len(c), lambda: batch.is_agari(c, rules=rules, n_threads=1)
    if op == "ukeire summary":
        c = cc.random14().counts
        return len(c), lambda: batch.ukeire(c, rules=rules, n_threads=1)
    raise ValueError(op)


OPS = ("shanten", "waits", "agari", "ukeire summary")
RULE_NAMES = ("riichi", "classical", "classical + seven pairs")


@pytest.mark.parametrize("rules_name", RULE_NAMES)
@pytest.mark.parametrize("op", OPS)
def test_analysis(benchmark, op, rules_name):
    hands, run = _work(op, _rules()[rules_name])
    benchmark.group = f"classical analysis: {op}"
    benchmark.pedantic(run, rounds=ROUNDS, iterations=1, warmup_rounds=1)
    benchmark.extra_info["hands"] = hands
    if benchmark.stats is not None and benchmark.stats.stats.median:
        benchmark.extra_info["hands_per_s"] = round(hands / benchmark.stats.stats.median)


def report(rounds: int = 21) -> str:
    """Rounds interleaved across the rule sets (each round runs all three in turn), so a slow
    moment of the host hits them alike. Each round is timed on the wall clock and the best round
    per rule set is reported: on a busy host the median says more about the neighbours than
    about the kernel."""
    rules = _rules()
    header = ("| operation | corpus | riichi | classical | classical + seven pairs | "
              "classical / riichi | target |")
    lines = [header, "| --- | --- | --- | --- | --- | --- | --- |"]
    corpus = {"shanten": "random13", "waits": "tenpai13", "agari": "random14",
              "ukeire summary": "random14"}
    for op in OPS:
        works = {name: _work(op, rules[name]) for name in RULE_NAMES}
        times: dict[str, list[float]] = {name: [] for name in RULE_NAMES}
        for name in RULE_NAMES:
            works[name][1]()                     # warm-up
        for _ in range(rounds):
            for name in RULE_NAMES:
                t = time.perf_counter()
                works[name][1]()
                times[name].append(time.perf_counter() - t)
        rate = {name: works[name][0] / min(times[name]) for name in RULE_NAMES}
        target = TARGETS.get(op)
        lines.append(
            f"| {op} | {corpus[op]} | "
            + " | ".join(f"{rate[n] / 1e6:.2f} M/s" for n in RULE_NAMES)
            + f" | {rate['classical'] / rate['riichi']:.2f}× | "
            + (f"≥ {target / 1e6:.0f} M/s |" if target else " |"))
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return ("\n".join(lines) + f"\n\nBest of {rounds} interleaved rounds (wall clock), "
            f"1 thread; load average at the end: {load}.")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    print(report(int(sys.argv[1]) if len(sys.argv) > 1 else 21))
