"""AnalyzeHand's handler in process under rules "tenhou_sanma" against no rules and "tenhou"
(issue 16): what choosing three-player rules costs a unary analysis call.

    .venv/bin/python benchmarks/bench_sanma_service.py [--rounds 31]

The hands are 13 and 14 tiles from shuffled walls of the 108 sanma tiles (seeded), with one
visible tile. Every round times the three selections back to back (CPU time) over the same
hands; the script prints each one's median time per call and the median and range of the
per-round ratios against no rules, so the host's speed drift cancels out.
"""
from __future__ import annotations

import argparse
import statistics
import time
from types import SimpleNamespace

import numpy as np

from mjcore.riichi.rules import SANMA_KINDS
from mjcore.service.servicer import HandAnalysisServicer
from mjcore.tiles import format_counts
from mjcore.wire.v1 import analysis_service_pb2 as pb
from mjcore.wire.v1 import scoring_pb2 as sp

N_HANDS = 200
SELECTIONS = {"no rules": None, "tenhou": "tenhou", "tenhou_sanma": "tenhou_sanma"}


def _requests(preset: str | None) -> list[pb.AnalyzeHandRequest]:
    rng = np.random.default_rng(16)
    wall = np.repeat([k for k in range(34) if SANMA_KINDS >> k & 1], 4)
    out = []
    for i in range(N_HANDS):
        counts = np.bincount(rng.permutation(wall)[:13 + i % 2], minlength=34)
        rules = {} if preset is None else {"rules": sp.RuleSelection(preset=preset)}
        out.append(pb.AnalyzeHandRequest(hand=format_counts(counts.tolist()), visible="1z",
                                          **rules))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=31)
    args = parser.parse_args()
    servicer = HandAnalysisServicer(max_batch=10)
    context = SimpleNamespace(time_remaining=lambda: None, is_active=lambda: True)
    requests = {name: _requests(preset) for name, preset in SELECTIONS.items()}
    times: dict[str, list[float]] = {name: [] for name in SELECTIONS}
    for _ in range(args.rounds):
        for name, batch in requests.items():
            start = time.process_time()
            for request in batch:
                servicer.AnalyzeHand(request, context)
            times[name].append((time.process_time() - start) / len(batch) * 1e6)
    base = times["no rules"]
    for name, values in times.items():
        ratios = [v / b for v, b in zip(values, base, strict=True)]
        print(f"{name:13s} median {statistics.median(values):6.1f} us/call; against no rules "
              f"{statistics.median(ratios):.2f}x (range {min(ratios):.2f}-{max(ratios):.2f})")


if __name__ == "__main__":
    main()
