"""AnalyzeHand's handler in process: the answer serialized once (as served) against the same
answer parsed into a message and serialized again (the round trip issue 17 removed).

    .venv/bin/python -m pytest benchmarks/bench_wire.py --benchmark-only
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from mjcore.tiles import format_counts

pytest.importorskip("grpc")

from mjcore.service.servicer import HandAnalysisServicer
from mjcore.wire.v1 import analysis_service_pb2 as pb

N_HANDS = 200


def _requests() -> list[bytes]:
    """Request bytes of 13- and 14-tile hands drawn from shuffled walls (seeded)."""
    rng = np.random.default_rng(17)
    out = []
    for i in range(N_HANDS):
        tiles = 13 + i % 2
        counts = np.bincount(rng.permutation(136)[:tiles] // 4, minlength=34)
        out.append(pb.AnalyzeHandRequest(hand=format_counts(counts.tolist())).SerializeToString())
    return out


REQUESTS = _requests()
SERVICER = HandAnalysisServicer(max_batch=10)
# the servicer asks its context for the deadline only (the hands are all valid)
CONTEXT = SimpleNamespace(time_remaining=lambda: None, is_active=lambda: True)


def _served() -> int:
    total = 0
    for data in REQUESTS:
        total += len(SERVICER.AnalyzeHand(pb.AnalyzeHandRequest.FromString(data),
                                          CONTEXT).SerializeToString())
    return total


def _round_trip() -> int:
    total = 0
    for data in REQUESTS:
        answer = SERVICER.AnalyzeHand(pb.AnalyzeHandRequest.FromString(data), CONTEXT)
        total += len(pb.AnalyzeHandResponse.FromString(answer).SerializeToString())
    return total


def test_analyze_hand_encoded_once(benchmark):
    benchmark.extra_info["hands"] = N_HANDS
    assert benchmark(_served) == _round_trip()


def test_analyze_hand_parsed_and_serialized_again(benchmark):
    benchmark.extra_info["hands"] = N_HANDS
    benchmark(_round_trip)
