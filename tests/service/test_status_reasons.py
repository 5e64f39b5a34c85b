"""Reasons are API (issue 17): a bad hand gives the same reason from the library (mjcore.batch,
the single-hand API), from every RPC (the streams' HandError, the unary calls' ErrorInfo, both in
UPPER_SNAKE_CASE) and from the client (lower_snake again), all from mjcore/status.py."""
from __future__ import annotations

import re
from pathlib import Path

import grpc
import numpy as np
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

import mjcore
from mjcore import batch, status
from mjcore.classical.scoring import Deal, PlayerHand, score_deal
from mjcore.client import Client
from mjcore.errors import BatchError, InvalidHandError
from mjcore.riichi.batch_scoring import pack
from mjcore.wire.v1 import analysis_service_pb2 as pb
from mjcore.wire.v1 import scoring_pb2 as sp
from mjcore.wire.v1 import types_pb2

from .service_helpers import refused_on_both_ports

PROTO = Path(__file__).resolve().parents[2] / "proto" / "mjcore" / "v1" / "types.proto"
COUNTS = types_pb2.HAND_ENCODING_COUNTS_U8
TOO_MANY = status.reason_of(status.BAD_COUNT)


def _counts(text: str) -> np.ndarray:
    """One row of counts for mpsz text, without the parser's checks (five copies allowed)."""
    row = np.zeros(34, np.uint8)
    for digits, suit in re.findall(r"(\d+)([mpsz])", text):
        for d in digits:
            row[9 * "mpsz".index(suit) + int(d) - 1] += 1
    return row


def _wire(reason: str) -> str:
    return status.wire_reason(reason)


def _stream_reasons(call, request) -> dict[int, str]:
    return {e.index: e.reason for r in call(iter([request])) for e in r.errors}


def _unary_reason(call, request) -> str:
    with pytest.raises(grpc.RpcError) as exc:
        call(request)
    assert exc.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    for detail in rpc_status.from_call(exc.value).details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            return info.reason
    raise AssertionError("no ErrorInfo detail")


# Rows for the analysis streams: (13 or 14 closed tiles as mpsz, n_melds, the status).
ANALYSIS_ROWS = [
    ("123m456p789s1122z", 0, status.OK),
    ("11111m456p789s11z", 0, status.BAD_COUNT),       # five 1m
    ("123m456p789s112z", 0, status.BAD_TOTAL),        # twelve tiles
    ("123m456p789s1122z", 7, status.BAD_MELDS),       # seven melds
]


@pytest.mark.parametrize("rpc, library, tiles", [
    ("StreamShanten", batch.shanten, 13),
    ("StreamWaits", batch.waits, 13),
    ("StreamAgari", batch.is_agari, 14),
])
def test_analysis_streams_library_and_client_agree(stub, client: Client, rpc, library, tiles):
    texts = [t if tiles == 13 else t + "1z" for t, _, _ in ANALYSIS_ROWS]
    counts = np.stack([_counts(t) for t in texts])
    melds = np.array([m for _, m, _ in ANALYSIS_ROWS], np.uint8)
    want = {i: status.reason_of(code) for i, (_, _, code) in enumerate(ANALYSIS_ROWS) if code}
    lib = library(counts, melds)
    assert {e.index: e.reason for e in lib.errors()} == want
    request = getattr(pb, f"{rpc}Request")(hands=types_pb2.PackedHands(
        encoding=COUNTS, data=counts.tobytes(), n_melds=melds.tobytes()))
    assert _stream_reasons(getattr(stub, rpc), request) == {i: _wire(r) for i, r in want.items()}
    call = {"StreamShanten": client.shanten, "StreamWaits": client.waits,
            "StreamAgari": client.is_agari}[rpc]
    with pytest.raises(BatchError) as err:
        call(counts, melds).raise_for_errors()
    assert {i: e.reason for i, e in err.value.errors.items()} == want


def test_text_lines_give_the_parse_reason(stub):
    data = b"123m456p789s1122z\n12x3m456p789s11z\n11111m456p789s11z\n"
    want = {e.index: e.reason for e in batch.shanten_text(data).errors()}
    assert want == {1: status.reason_of(status.PARSE), 2: TOO_MANY}
    request = pb.StreamShantenRequest(hands=types_pb2.PackedHands(
        encoding=types_pb2.HAND_ENCODING_TEXT_LINES, data=data))
    assert _stream_reasons(stub.StreamShanten, request) == {i: _wire(r) for i, r in want.items()}


def test_score_stream_library_and_client_agree(stub, client: Client):
    """The same bad row StreamShanten reports as TOO_MANY_COPIES is TOO_MANY_COPIES here too
    (it was BAD_COUNT)."""
    arrays = pack([{"hand": "123m456p789s11z555z", "win_tile": "5z"},
                   {"hand": "123m456p789s11z555z", "win_tile": "5z"},
                   {"hand": "123m456p789s23456s", "win_tile": "5s"},
                   {"hand": "123m456p789s11z555z", "win_tile": "5z"}])
    arrays["counts"][1] = _counts("11111m789s11z555z")
    arrays["win_tile"][3] = 40
    want = {1: TOO_MANY, 2: status.reason_of(status.NOT_AGARI),
            3: status.reason_of(status.BAD_TILE)}
    lib = batch.score(**arrays)
    assert {e.index: e.reason for e in lib.errors()} == want
    assert lib.status[0] == status.OK
    request = pb.StreamScoreRequest(
        hands=types_pb2.PackedHands(encoding=COUNTS, data=arrays["counts"].tobytes()),
        win_tile=arrays["win_tile"].tobytes())
    assert _stream_reasons(stub.StreamScore, request) == {i: _wire(r) for i, r in want.items()}
    counts, win = arrays.pop("counts"), arrays.pop("win_tile")
    with pytest.raises(BatchError) as err:
        client.score_batch(counts, win, **arrays).raise_for_errors()
    assert {i: e.reason for i, e in err.value.errors.items()} == want


@pytest.mark.parametrize("hand, win, code", [
    ("11111m456p789s555z", "5z", status.BAD_COUNT),
    ("123m456p789s23456s", "5s", status.NOT_AGARI),
])
def test_unary_rpcs_library_and_client_agree(stub, client: Client, hand, win, code):
    reason = status.reason_of(code)
    with pytest.raises(InvalidHandError) as lib:
        mjcore.score(hand, win)
    assert lib.value.reason == reason
    request = sp.ScoreRequest(hand=hand, win_tile=win, win_method=sp.WIN_METHOD_RON)
    assert _unary_reason(stub.Score, request) == _wire(reason)
    with pytest.raises(InvalidHandError) as got:
        client.score(hand, win)
    assert got.value.reason == reason
    if code == status.BAD_COUNT:
        thirteen = hand[:-2] + "z"              # one 5z fewer
        with pytest.raises(InvalidHandError) as lib:
            mjcore.ukeire(thirteen)
        assert lib.value.reason == reason
        for call, request in ((stub.AnalyzeHand, pb.AnalyzeHandRequest(hand=thirteen)),
                              (stub.Decompose, pb.DecomposeRequest(hand=hand, win_tile=win))):
            assert _unary_reason(call, request) == _wire(reason)
        with pytest.raises(InvalidHandError) as got:
            client.analyze(thirteen)
        assert got.value.reason == reason


def test_classical_deal_library_and_client_agree(client: Client):
    hands = ["234m 345p 678s 789m 23m", "1m 9m 1p 9p 1s 9s 1z 2z 3z 4z 5z 6z 7z",
             "1m 9m 1p 9p 1s 9s 1z 2z 3z 4z 5z 6z 7z", "1m 9m 1p 9p 1s 9s 1z 2z 3z 4z 5z 6z 7z"]
    seats = [PlayerHand.parse(h) for h in hands]
    deal = Deal(hands=(seats[0], seats[1], seats[2], seats[3]), prevailing=0, winner=0,
                win_tile=1, how=frozenset({"self_drawn"}))
    reason = status.reason_of(status.NOT_AGARI)
    with pytest.raises(InvalidHandError) as lib:
        score_deal(deal)
    assert lib.value.reason == reason
    with pytest.raises(InvalidHandError) as got:
        client.score_classical(hands, 0, "2m", self_drawn=True)
    assert got.value.reason == reason


def test_proto_documents_the_reasons_the_kernels_send():
    text = PROTO.read_text()
    block = text[text.index("message HandError"):]
    block = block[:block.index("}")]
    documented = set(re.findall(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]\b", block))
    documented -= {"UPPER_SNAKE_CASE"}
    # DISCARD_NOT_HELD: StreamExpectedValues' (the discard given is not in the hand)
    sent = {_wire(s.reason) for s in status.STATUSES if s.code < 0}
    assert documented == sent | {"BAD_PACKING"}


@pytest.mark.parametrize(("method", "request_", "field"), [
    ("AnalyzeHand", pb.AnalyzeHandRequest(hand="123m456p789s1122z", visible="222z"), "visible"),
    ("Score", sp.ScoreRequest(hand="123m456p789s11122z", win_tile="2z",
                              win_method=sp.WIN_METHOD_RON, ura_indicators="1z1z"),
     "ura_indicators"),
    ("ExpectedValues", pb.ExpectedValuesRequest(hand="123m456p789s1122z",
                                                dora_indicators="222z"), "dora_indicators"),
    ("ExpectedValues", pb.ExpectedValuesRequest(hand="123m406p789s1122z", visible="0p"),
     "visible"),
    ("ExpectedValues", pb.ExpectedValuesRequest(hand="123m456p789s1122z", visible="1z",
                                                dora_indicators="1z1z1z"), "dora_indicators"),
])
def test_too_many_copies_names_the_part_holding_the_extra_ones(two_ports, method, request_,
                                                               field):
    """The field is where the copies pass the limit (the hand's own come first), not "hand"."""
    details = refused_on_both_ports(two_ports, method, request_, "TOO_MANY_COPIES", field)
    assert all(d.startswith(f"{field}: ") for d in details)


def test_too_many_copies_in_one_tile_list_names_the_tile(two_ports):
    """Five of a kind inside the dora indicators alone (the request's own check, before the
    hand is counted with them) names the tile and its copies, on both ports."""
    request_ = sp.ScoreRequest(hand="123m456p789s11122z", win_tile="2z",
                               win_method=sp.WIN_METHOD_RON, dora_indicators="3z3z3z3z3z")
    details = refused_on_both_ports(two_ports, "Score", request_, "TOO_MANY_COPIES",
                                    "dora_indicators")
    assert set(details) == {"dora_indicators: 3z: 5 copies; at most 4"}
