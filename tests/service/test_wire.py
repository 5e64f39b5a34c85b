"""The wire contract (mjcore/wire, issue 17) and three-player scoring over gRPC (issue 16).

The client stands apart from the server, the analysis library works without grpc and
protobuf, AnalyzeHand's answer is serialized once and sent as written, enum numbers out of
range name their field, and ``kita`` is scored on both ports and through the client.
"""
from __future__ import annotations

import subprocess
import sys
import textwrap
from typing import Any

import grpc
import numpy as np
import pytest

import mjcore
from mjcore.errors import BatchError, InvalidHandError
from mjcore.riichi.batch_scoring import score as score_batch
from mjcore.riichi.scoring import F_TSUMO
from mjcore.service.requests import EncodedMessage
from mjcore.service.servicer import HandAnalysisServicer
from mjcore.tiles import parse_kinds, parse_tile
from mjcore.wire.v1 import analysis_service_pb2 as pb
from mjcore.wire.v1 import scoring_pb2 as sp

from .service_helpers import port_clients, refused_on_both_ports
from .test_analyze_reference import _Context

SANMA = "tenhou_sanma"
# (hand, winning tile, mjcore.score keywords): nukidora as the only dora, a hand whose only
# han would be its norths (no yaku: dora is not yaku), kokushi ron, seven pairs
SANMA_HANDS = [
    ("123p456p789s11z555z", "5z", {"tsumo": True, "kita": 2}),
    ("111m999m123p456s77z", "7z", {"kita": 1, "honba": 1}),
    ("111m999m123p456s77z", "7z", {"tsumo": True, "kita": 1, "honba": 2, "riichi_sticks": 1}),
    ("19m19p19s12345677z", "7z", {"from_who": 1}),
    ("11m99m11p99p11s99s77z", "7z", {"tsumo": True, "kita": 3, "riichi": True}),
]


@pytest.fixture(scope="module")
def clients(two_ports):
    with port_clients(two_ports) as pair:
        yield pair


# -- the packages -------------------------------------------------------------------------------

def _python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    import os

    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], check=False,
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, **env})


def test_the_client_imports_nothing_from_the_service():
    r = _python("""
        import sys
        import mjcore.client
        print(sorted(m for m in sys.modules if m.startswith("mjcore.service")))
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


BLOCKER = '''
import sys

BLOCKED = ("grpc", "grpc_status", "grpc_health", "grpc_reflection", "google.protobuf",
           "google.rpc")


class Blocker:
    """As if grpcio and protobuf were not installed."""

    def find_spec(self, name, path=None, target=None):
        if any(name == b or name.startswith(b + ".") for b in BLOCKED):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, Blocker())
'''


def test_the_library_works_without_grpc_and_protobuf(tmp_path):
    (tmp_path / "sitecustomize.py").write_text(BLOCKER)
    r = _python("""
        import sys
        import numpy as np
        import mjcore, mjcore.batch, mjcore.classical, mjcore.dataset, mjcore.cli
        from mjcore.classical.rules import ClassicalRules

        assert int(mjcore.shanten("123m456p789s1122z")) == 0
        assert mjcore.score("123m456p789s11122z", "2z").points == 3900
        counts = np.zeros((1, 34), np.uint8)
        counts[0, :13] = 1
        assert mjcore.batch.shanten(counts).shanten.shape == (1,)
        assert int(mjcore.shanten("19m19p19s1234567z", ClassicalRules.preset("classical"))) == 0
        try:
            import grpc
        except ImportError:
            pass
        else:
            raise SystemExit("the blocker did not block")
        try:
            import mjcore.client
        except ImportError as err:
            print("client:", err)
        print("loaded:", sorted(m for m in sys.modules
                                if m.split(".")[0] in ("grpc", "mjcore") and "service" in m
                                or m.startswith(("grpc", "google.protobuf"))))
    """, PYTHONPATH=str(tmp_path))
    assert r.returncode == 0, r.stderr
    lines = dict(line.split(": ", 1) for line in r.stdout.splitlines())
    assert "pip install 'mjcore[client]'" in lines["client"]
    assert lines["loaded"] == "[]"


def test_serve_without_the_service_extra_names_it(tmp_path):
    (tmp_path / "sitecustomize.py").write_text(BLOCKER)
    r = subprocess.run([sys.executable, "-m", "mjcore.cli", "serve", "--port", "0"],
                       check=False, capture_output=True, text=True, timeout=120,
                       env={**__import__("os").environ, "PYTHONPATH": str(tmp_path)})
    assert r.returncode == 1, r.stderr
    assert "pip install 'mjcore[service]'" in r.stderr and "Traceback" not in r.stderr


# -- AnalyzeHand: one encoding --------------------------------------------------------------

# waits and ukeire on 1m (kind 0), and tiles with no copy left unseen: the zero fields that a
# fixed-width writer would spell out
ZERO_FIELDS = [("23m456p789s11122z", ""), ("23m456p789s11122z", "1111m"),
               ("23m456p789s11122z", "44m"), ("123m456p789s1122z", "1z1z"),
               ("1m2m3m5p5p6p7p8p9p1s2s3s9s", "111m"), ("19m19p19s1234567z", "1z2z3z")]


@pytest.mark.parametrize("hand,visible", ZERO_FIELDS + [
    ("123m456p789s11223z", ""), ("23m456p789s11z chi:324m", "5m"),
    ("5m pon:555z<2 pon:666z kan:7777z<1 ankan:1111s", "")])
def test_analyze_hand_is_serialized_once_as_protobuf_would(hand, visible):
    servicer = HandAnalysisServicer(max_batch=10)
    answer = servicer.AnalyzeHand(pb.AnalyzeHandRequest(hand=hand, visible=visible), _Context())
    assert isinstance(answer, EncodedMessage)
    data = answer.SerializeToString()
    assert pb.AnalyzeHandResponse.FromString(data).SerializeToString() == data


@pytest.mark.parametrize("hand,visible", ZERO_FIELDS)
def test_both_ports_send_the_encoded_bytes(two_ports, hand, visible):
    request = pb.AnalyzeHandRequest(hand=hand, visible=visible).SerializeToString()
    want = HandAnalysisServicer(max_batch=10).AnalyzeHand(
        pb.AnalyzeHandRequest.FromString(request), _Context()).SerializeToString()
    for port in (two_ports.port, two_ports.unary_port):
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            call = channel.unary_unary("/mjcore.v1.HandAnalysisService/AnalyzeHand")
            assert call(request, timeout=10) == want


# -- enums out of range -------------------------------------------------------------------------

@pytest.mark.parametrize("field,value", [("win_method", 9), ("seat_wind", 5),
                                         ("round_wind", -1)])
def test_enum_out_of_range_names_the_field_on_both_ports(two_ports, field, value):
    request = sp.ScoreRequest(hand="123m456p789s11122z", win_tile="2z",
                              win_method=sp.WIN_METHOD_RON)
    setattr(request, field, value)
    for details in refused_on_both_ports(two_ports, "Score", request, "BAD_ENUM_VALUE", field):
        assert field in details


# -- three players ------------------------------------------------------------------------------

@pytest.mark.parametrize("hand,win,kwargs", SANMA_HANDS)
def test_sanma_score_on_both_ports_is_the_library(clients, hand, win, kwargs):
    want = mjcore.score(hand, win, rules=SANMA, **kwargs)
    for client in clients:
        got = client.score(hand, win, rules=SANMA, **kwargs)
        assert got.to_dict() == want.to_dict() and got.players == want.players == 3
        assert got.deltas[3] == 0 and got.payments[3] == 0
        raw = got.raw
        assert (raw.win, raw.han, raw.fu, raw.points, raw.basic_points) == (
            want.is_win, want.han, want.fu, want.points, want.basic)
        assert tuple(raw.deltas) == want.deltas and tuple(raw.payments) == want.payments
        assert (raw.dora_count, raw.ura_dora_count, raw.red_dora_count) == (
            want.dora, want.ura, want.aka)
        assert [(y.tenhou_id, y.han) for y in raw.yaku] == [(y.id, y.han) for y in want.yaku]
    if kwargs.get("kita"):
        # the norths are dora: the same hand without them scores lower
        without = mjcore.score(hand, win, rules=SANMA, **{**kwargs, "kita": 0})
        assert want.dora == without.dora + kwargs["kita"]


@pytest.mark.parametrize("kita,rules", [(1, None), (2, "tenhou"), (5, SANMA), (-1, SANMA)])
def test_kita_refused_where_the_library_refuses_it(two_ports, clients, kita, rules):
    with pytest.raises(InvalidHandError) as lib:
        mjcore.score("123p456p789s11z555z", "5z", tsumo=True, kita=kita, rules=rules)
    for client in clients:
        with pytest.raises(InvalidHandError) as got:
            client.score("123p456p789s11z555z", "5z", tsumo=True, kita=kita, rules=rules)
        assert got.value.reason == lib.value.reason == "bad_kita"
    request = sp.ScoreRequest(hand="123p456p789s11z555z", win_tile="5z",
                              win_method=sp.WIN_METHOD_TSUMO, kita_count=kita,
                              rules=sp.RuleSelection(preset=rules or ""))
    refused_on_both_ports(two_ports, "Score", request, "BAD_KITA", "kita_count")


def _sanma_batch(n: int, seed: int) -> dict[str, Any]:
    """The arrays of a sanma batch, by score_batch's keyword names."""
    rng = np.random.default_rng(seed)
    counts = np.zeros((n, 34), np.uint8)
    wins = np.zeros(n, np.uint8)
    for i in range(n):
        hand, win, _ = SANMA_HANDS[i % len(SANMA_HANDS)]
        for k in parse_kinds(hand):
            counts[i, k] += 1
        wins[i] = parse_tile(win)
    return {"counts": counts, "win_tile": wins,
            "flags": rng.integers(0, 2, n).astype(np.uint16) * F_TSUMO,
            "kita": rng.integers(0, 4, n).astype(np.uint8),
            "honba": rng.integers(0, 3, n).astype(np.uint16),
            "seat_wind": rng.integers(0, 3, n).astype(np.uint8),
            "from_rel": rng.integers(1, 3, n).astype(np.uint8)}   # 1 shimocha, 2 kamicha


def test_sanma_stream_score_is_the_batch_kernel(clients):
    arrays = _sanma_batch(300, 3)
    want = score_batch(**arrays, rules=SANMA)
    assert (want.status >= 0).all() and (arrays["kita"] > 0).any()
    counts = arrays.pop("counts")
    for client in clients:
        got = client.score_batch(counts, rules=SANMA, **arrays)
        assert sorted(got.as_dict()) == sorted(want.as_dict())
        for name, value in got.as_dict().items():
            assert np.array_equal(value, getattr(want, name)), name
        assert (got.deltas[:, 3] == 0).all()


def test_kita_under_four_player_rules_makes_bad_rows(clients):
    arrays = _sanma_batch(40, 4)
    counts = arrays.pop("counts")
    arrays["seat_wind"] = np.zeros(40, np.uint8)
    want = score_batch(counts, **arrays)
    with pytest.raises(BatchError) as err:
        clients[0].score_batch(counts, **arrays).raise_for_errors()
    assert sorted(err.value.errors) == np.flatnonzero(want.status < 0).tolist() \
        == np.flatnonzero(arrays["kita"]).tolist()


@pytest.mark.parametrize("rules", [5, object(), ["tenhou"], {"preset": "tenhou", "uma": object()}])
def test_client_rules_of_the_wrong_type_are_an_invalid_rule_error(rules):
    """As the library says for the same rules value (mjcore.score, batch.score)."""
    from mjcore.errors import InvalidRuleError
    from mjcore.wire.convert import rule_selection

    with pytest.raises(InvalidRuleError, match="rule"):
        rule_selection(rules)
