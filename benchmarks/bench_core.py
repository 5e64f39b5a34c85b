"""Core kernels against riichienv and mahjong on the same seeded hands (see core_corpus.py).

    .venv/bin/python -m pytest benchmarks/bench_core.py --benchmark-only \
        --benchmark-columns=median,ops,rounds --benchmark-group-by=group

Each round processes ``extra_info["hands"]`` hands; ``extra_info["hands_per_s"]`` is the
throughput at the median round. ``benchmarks/report_core.py`` prints the same measurements as
a Markdown table with ratios and the machine load.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import core_corpus as cc
import pytest

ROOT = Path(__file__).resolve().parent.parent
ROUNDS = int(os.environ.get("MJCORE_BENCH_ROUNDS", "5"))


def _record(benchmark, hands: int) -> None:
    benchmark.extra_info["hands"] = hands
    if benchmark.stats is None:          # --benchmark-disable: nothing timed
        return
    median = benchmark.stats.stats.median
    benchmark.extra_info["hands_per_s"] = round(hands / median) if median else None


@pytest.mark.parametrize(
    "op, impl, factory", cc.WORKLOADS,
    ids=[f"{op}|{impl}" for op, impl, _ in cc.WORKLOADS])
def test_workload(benchmark, op, impl, factory):
    work = factory()
    benchmark.group = op
    benchmark.extra_info["corpus"] = cc.CORPUS_OF[op]
    benchmark.pedantic(work.run, rounds=ROUNDS, iterations=1, warmup_rounds=1)
    _record(benchmark, work.hands)


@pytest.mark.parametrize("op", list(cc.PER_CALL_IMPLS))
@pytest.mark.parametrize("side", ["mjcore", "riichienv"])
def test_per_call(benchmark, op, side):
    """One call per hand, mjcore's per-call API or riichienv's (cc.per_call_pairs)."""
    pairs = {name: (corpus, ours, theirs) for name, corpus, ours, theirs in cc.per_call_pairs()}
    corpus, ours, theirs = pairs[op]
    work = ours if side == "mjcore" else theirs
    benchmark.group = f"per call: {op}"
    benchmark.extra_info["corpus"] = corpus
    benchmark.extra_info["impl"] = cc.PER_CALL_IMPLS[op][side != "mjcore"]
    benchmark.pedantic(work.run, rounds=ROUNDS, iterations=1, warmup_rounds=1)
    _record(benchmark, work.hands)


def test_import_mjcore(benchmark):
    """A fresh interpreter importing mjcore (process wall time; numpy included)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    cmd = [sys.executable, "-c", "import mjcore"]
    benchmark.group = "import"
    benchmark.pedantic(subprocess.run, args=(cmd,), kwargs={"env": env, "check": True},
                       rounds=ROUNDS, iterations=1, warmup_rounds=1)
    probe = ("import psutil; p = psutil.Process(); r = p.memory_info().rss; import mjcore; "
             "print(p.memory_info().rss - r)")
    rss = subprocess.run([sys.executable, "-c", probe], env=env, check=True,
                         capture_output=True, text=True).stdout
    benchmark.extra_info["rss_growth_bytes"] = int(rss)
    tables = ROOT / "mjcore" / "_core" / "shanten_tables.bin"
    benchmark.extra_info["tables_bytes"] = tables.stat().st_size if tables.exists() else None
