"""ExpectedValues and StreamExpectedValues (issue 26): the library's answers on both ports, the
same errors, a bounded pool that refuses at once when full without stalling the other RPCs,
and the call's deadline as the search's budget."""
from __future__ import annotations

import json
import re
import threading
from typing import Any

import grpc
import numpy as np
import pytest
from click.testing import CliRunner
from google.rpc import error_details_pb2
from grpc_status import rpc_status

import mjcore
from mjcore import batch, status
from mjcore.cli import main
from mjcore.client import Client, ServiceError
from mjcore.errors import BatchError, InvalidHandError
from mjcore.riichi.batch_scoring import encode_meld
from mjcore.wire.status import error_info
from mjcore.wire.v1 import analysis_service_pb2 as pb
from mjcore.wire.v1 import analysis_service_pb2_grpc as pb_grpc
from mjcore.wire.v1 import scoring_pb2 as sp
from mjcore.wire.v1 import types_pb2

from .service_helpers import port_clients, refused_on_both_ports, serving

ONE_SHANTEN = "234m406p78s112233z"      # 14 tiles, a red five
TENPAI = "123m456p789s11z234m"


def _plain(ev) -> dict:
    out = ev.to_dict()
    out.pop("seconds")
    return out


@pytest.fixture(scope="module")
def ev_server():
    with serving(workers=4, ev_workers=1, ev_queue=1) as server:
        yield server


def test_both_ports_answer_as_the_library(ev_server):
    kwargs: dict[str, Any] = {"dora": "1z", "round_wind": "S", "seat_wind": "W",
                              "visible": "5z5z6z"}
    local = mjcore.expected_values(ONE_SHANTEN, **kwargs)
    with port_clients(ev_server) as (main_client, front_client):
        for c in (main_client, front_client):
            remote = c.expected_values(ONE_SHANTEN, **kwargs)
            assert _plain(remote) == _plain(local)
            assert remote.table(3).splitlines()[1:] == local.table(3).splitlines()[1:]
        # options, 13 tiles, an open hand, the compatible model
        for hand, opts in (("123m456p789s11z23m", {"t_max": 6}), ("23m456p789s11z pon:555z", {}),
                           (ONE_SHANTEN, {"model": "compatible", "extra": 0, "ura": False})):
            assert _plain(main_client.expected_values(hand, **opts)) == \
                _plain(front_client.expected_values(hand, **opts)) == \
                _plain(mjcore.expected_values(hand, **opts))
        # a bound of the search is a result with its status, as in the library
        far = main_client.expected_values(ONE_SHANTEN, max_shanten=0)
        assert far.status == "ev_shanten_too_high" and not far.ok
        assert _plain(far) == _plain(mjcore.expected_values(ONE_SHANTEN, max_shanten=0))


@pytest.mark.parametrize("request_fields, reason, field", [
    ({"hand": "123m456p789s11z2345m"}, "WRONG_TILE_COUNT", "hand"),
    ({"hand": "123m456p789s11z23x"}, "UNKNOWN_CHARACTER", "hand"),
    ({"hand": "1111m456p789s11z1m"}, "TOO_MANY_COPIES", "hand"),
    ({"hand": TENPAI, "dora_indicators": "1m2m3m4m5m6m"}, "TOO_MANY_TILES", "dora_indicators"),
    ({"hand": TENPAI, "visible": "2m2m2m"}, "TOO_MANY_COPIES", "visible"),
    ({"hand": TENPAI, "seat_wind": 9}, "BAD_ENUM_VALUE", "seat_wind"),
    ({"hand": TENPAI, "kita_count": 1}, "BAD_KITA", "kita_count"),
    ({"hand": TENPAI, "rules": sp.RuleSelection(preset="classical")}, "INVALID_RULE", "rules"),
    ({"hand": TENPAI, "rules": sp.RuleSelection(preset="nope")}, "INVALID_RULE", "rules"),
    ({"hand": TENPAI, "options": pb.ExpectedValueOptions(max_turn=25)}, "EV_BAD_OPTION",
     "options.max_turn"),
    ({"hand": TENPAI, "options": pb.ExpectedValueOptions(max_node_count=2_000_001)},
     "EV_BAD_OPTION", "options.max_node_count"),
    ({"hand": TENPAI, "options": pb.ExpectedValueOptions(model=7)},  # type: ignore[arg-type]
     "BAD_ENUM_VALUE",
     "options.model"),
    ({"hand": "23m456p789s11z pon:555z", "rules": sp.RuleSelection(preset="tenhou_sanma")},
     "NOT_IN_SANMA", "hand"),
])
def test_bad_requests_are_the_same_errors_on_both_ports(ev_server, request_fields, reason,
                                                        field):
    details = refused_on_both_ports(ev_server, "ExpectedValues",
                                    pb.ExpectedValuesRequest(**request_fields), reason, field)
    assert details[0] == details[1]


def test_the_client_raises_the_library_error(ev_server):
    with Client(f"127.0.0.1:{ev_server.port}") as c, pytest.raises(InvalidHandError) as exc:
        c.expected_values("123m456p789s11z23x")
    assert exc.value.reason == "unknown_character" and exc.value.position is not None


def _hold(pool) -> tuple[threading.Event, list]:
    """Fill ``pool`` (one worker, one queue place) with calls that wait for the event."""
    release = threading.Event()
    futures = [pool.submit(release.wait, 30) for _ in range(pool.capacity)]
    assert all(f is not None for f in futures)
    return release, futures


def test_a_full_pool_refuses_at_once_and_stalls_nothing_else(ev_server):
    pool = ev_server.servicer.ev_pool
    release, futures = _hold(pool)
    try:
        with Client(f"127.0.0.1:{ev_server.port}", retries=0) as main_client, \
                Client(f"127.0.0.1:{ev_server.port}", retries=0,
                       unary_target=f"127.0.0.1:{ev_server.unary_port}") as front_client:
            for c in (main_client, front_client):
                with pytest.raises(ServiceError) as exc:
                    c.expected_values(TENPAI, timeout=20)
                assert exc.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED
                assert exc.value.reason == "SERVER_BUSY"
                assert exc.value.metadata["limit"] == str(pool.capacity)
                # the other RPCs and health are answered meanwhile
                assert c.analyze("123m456p789s1122z").hand
                assert c.health() == "SERVING"
            # the refusal carries a retry hint
            with grpc.insecure_channel(f"127.0.0.1:{ev_server.unary_port}") as channel, \
                    pytest.raises(grpc.RpcError) as raw:
                pb_grpc.HandAnalysisServiceStub(channel).ExpectedValues(
                    pb.ExpectedValuesRequest(hand=TENPAI), timeout=20)
            hints = [d for d in rpc_status.from_call(raw.value).details
                     if d.Is(error_details_pb2.RetryInfo.DESCRIPTOR)]
            assert len(hints) == 1
    finally:
        release.set()
    for f in futures:
        f.result(30)
    with Client(f"127.0.0.1:{ev_server.port}") as c:
        assert c.expected_values(TENPAI).ok


def test_a_call_past_its_deadline_is_not_computed(ev_server):
    pool = ev_server.servicer.ev_pool
    ran: list[Any] = []
    release = threading.Event()
    blocker = pool.submit(release.wait, 30)       # the one worker; the call waits in the queue
    try:
        with grpc.insecure_channel(f"127.0.0.1:{ev_server.port}") as channel:
            stub = pb_grpc.HandAnalysisServiceStub(channel)
            future = stub.ExpectedValues.future(pb.ExpectedValuesRequest(hand=TENPAI),
                                                timeout=0.5)
            with pytest.raises(grpc.RpcError) as exc:
                future.result()
            assert exc.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    finally:
        release.set()
    blocker.result(30)
    # the queued call left the pool (cancelled, or stopped before searching): it holds no
    # place, so the whole capacity is free again
    pool.submit(ran.append, 1).result(30)
    release, futures = _hold(pool)
    release.set()
    for f in futures:
        f.result(30)
    assert ran == [1]


def test_the_remaining_deadline_is_the_search_budget(ev_server, monkeypatch):
    from mjcore.service import expected

    seen = []
    real = expected.expected_values

    def spy(*args, **kwargs):
        seen.append(kwargs["max_seconds"])
        return real(*args, **kwargs)

    monkeypatch.setattr(expected, "expected_values", spy)
    with port_clients(ev_server) as clients:
        for c in clients:
            c.expected_values(TENPAI, timeout=2.0)
            c.expected_values(TENPAI, timeout=None)
    cap = ev_server.servicer.ev_max_seconds
    assert len(seen) == 4
    # the call's deadline (the grpc-timeout header rounds it up by a few milliseconds at most)
    assert 0 < seen[0] <= 2.05 and 0 < seen[2] <= 2.05 < cap
    assert seen[1] == seen[3] == cap                         # no deadline: the server's cap


def test_a_search_stopped_by_the_deadline_is_deadline_exceeded(monkeypatch):
    from mjcore.riichi.expected import expected_values as library
    from mjcore.service import expected

    def stopped(*args, **kwargs):   # what the kernel answers when max_seconds runs out
        kwargs["max_nodes"] = 1
        r = library(*args, **kwargs)
        return type(r)(**{**{f: getattr(r, f) for f in r.__dataclass_fields__},
                          "status": "ev_deadline"})

    monkeypatch.setattr(expected, "expected_values", stopped)
    with serving(ev_workers=1) as server, port_clients(server) as clients:
        for c in clients:
            with pytest.raises(ServiceError) as exc:
                c.expected_values(ONE_SHANTEN, timeout=3)   # within the server's cap
            assert exc.value.code == grpc.StatusCode.DEADLINE_EXCEEDED
            # without a deadline the server's own limit stopped it: a result with its status
            assert c.expected_values(ONE_SHANTEN, timeout=None).status == "ev_deadline"


def test_cli_ev_through_the_server_prints_what_the_local_one_prints(ev_server):
    runner = CliRunner()
    args = ["analyze", ONE_SHANTEN, "--ev", "--dora", "1z", "--turn", "2", "--seat", "S"]
    local = runner.invoke(main, args)
    remote = runner.invoke(main, [*args, "--server", f"127.0.0.1:{ev_server.port}"])
    assert local.exit_code == remote.exit_code == 0, remote.output
    times = re.compile(r"\d+\.\d ms")
    assert times.sub("", local.output) == times.sub("", remote.output)
    local = json.loads(runner.invoke(main, [*args, "--json"]).output)
    remote = json.loads(runner.invoke(main, [*args, "--json", "--server",
                                             f"127.0.0.1:{ev_server.port}"]).output)
    for record in (local, remote):
        record["ev"].pop("seconds")
    assert local == remote


def test_cli_ev_bounds_here_and_through_the_server(ev_server):
    runner = CliRunner()
    args = ["analyze", ONE_SHANTEN, "--ev", "--max-nodes", "10", "--max-seconds", "5",
            "--json"]
    for extra in ([], ["--server", f"127.0.0.1:{ev_server.port}"]):
        r = runner.invoke(main, [*args, *extra])
        assert r.exit_code == 0, r.output
        ev = json.loads(r.output)["ev"]
        assert ev["status"] == "ev_node_budget" and ev["nodes"] == 10, ev


# -- the stream ---------------------------------------------------------------------------------

def _rows():
    hands = [mjcore.Hand.parse(t) for t in (ONE_SHANTEN, TENPAI, "123m456p789s11z23m",
                                             "234m456p789s11z pon:555z")]
    counts = np.stack([np.array(h.counts, np.uint8) for h in hands])
    red = np.stack([np.array(h.red, np.uint8) for h in hands])
    melds = np.full((len(hands), 4), 0xFFFF, np.uint16)
    melds[3, 0] = encode_meld(1, 31, 0, 3)
    dora = np.full((len(hands), 1), 27, np.uint8)
    discard = np.array([34 + 1, 27, 255, 1], np.uint8)     # the red 5p, 1z, none, 2m
    return {"counts": counts, "red": red, "melds": melds, "dora": dora, "discard": discard}


def test_stream_answers_as_the_batch_library(ev_server):
    rows = _rows()
    with Client(f"127.0.0.1:{ev_server.port}", batch_size=3) as c:
        remote = c.expected_values_batch(**rows, turn=2)
    local = batch.expected_values(**rows, turn=2)
    for name in ("status", "shanten", "best_tile", "best_ev", "best_win", "best_tenpai",
                 "discard_shanten", "discard_ev", "discard_win", "discard_tenpai"):
        np.testing.assert_array_equal(remote[name], getattr(local, name), err_msg=name)
    assert remote["status"].tolist() == [0, 0, 0, 0]


def test_stream_reports_bad_rows_by_index(ev_server):
    rows = _rows()
    rows["discard"][1] = 5                       # 6m: not in the hand
    rows["counts"][2, 0] = 5                     # five 1m
    with Client(f"127.0.0.1:{ev_server.port}") as c, pytest.raises(BatchError) as exc:
        c.expected_values_batch(**rows)
    assert {i: e.reason for i, e in exc.value.errors.items()} == {
        1: "discard_not_held", 2: "too_many_copies"}
    partial: Any = exc.value.partial
    assert partial["status"][0] == 0 and partial["status"][3] == 0


def test_stream_rows_past_the_bounds_are_answers_not_errors(ev_server):
    rows = _rows()
    with Client(f"127.0.0.1:{ev_server.port}") as c:
        out = c.expected_values_batch(**rows, max_shanten=0)
    assert out["status"].tolist() == [status.EV_SHANTEN, 0, 0, 0]    # (row 3 is complete)
    assert np.isnan(out["best_ev"][0]) and out["best_ev"][1] > 0


def test_a_busy_server_is_asked_again_after_its_hint(ev_server):
    pool = ev_server.servicer.ev_pool
    release, futures = _hold(pool)
    refused = pool.refused
    busy = pool.busy

    def busy_then_free():       # the first refusal frees the pool: the retry gets in
        err = busy()
        release.set()
        for f in futures:
            f.result(30)
        return err

    pool.busy = busy_then_free
    try:
        with Client(f"127.0.0.1:{ev_server.port}", retries=5, max_backoff=0.05) as c:
            assert c.expected_values(TENPAI, timeout=30).ok
        assert pool.refused == refused + 1
    finally:
        del pool.busy
        release.set()


def test_stream_framing_errors_name_the_batch(ev_server):
    with grpc.insecure_channel(f"127.0.0.1:{ev_server.port}") as channel:
        stub = pb_grpc.HandAnalysisServiceStub(channel)
        request = pb.StreamExpectedValuesRequest(
            hands=types_pb2.PackedHands(encoding=types_pb2.HAND_ENCODING_COUNTS_U8,
                                        data=bytes(34)), discard=b"\x01\x02")
        with pytest.raises(grpc.RpcError) as exc:
            list(stub.StreamExpectedValues(iter([request]), timeout=20))
    info = error_info(exc.value)
    assert info is not None and exc.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert (info.reason, info.metadata["field"], info.metadata["batch"]) == (
        "BAD_FIELD_LENGTH", "discard", "0")


def test_the_token_is_required_on_both_ports():
    from .service_helpers import TOKEN

    with serving(token=TOKEN, ev_workers=1) as server:
        for unary in (None, f"127.0.0.1:{server.unary_port}"):
            with Client(f"127.0.0.1:{server.port}", unary_target=unary) as c, \
                    pytest.raises(ServiceError) as exc:
                c.expected_values(TENPAI)
            assert exc.value.code == grpc.StatusCode.UNAUTHENTICATED
            with Client(f"127.0.0.1:{server.port}", unary_target=unary, token=TOKEN) as c:
                assert c.expected_values(TENPAI).ok


def test_three_player_rules_and_kita(ev_server):
    hand = "19m456p789s11z22z33z"
    with port_clients(ev_server) as clients:
        for c in clients:
            remote = c.expected_values(hand, rules="tenhou_sanma", kita=1, dora="4z")
            assert _plain(remote) == _plain(mjcore.expected_values(
                hand, rules="tenhou_sanma", kita=1, dora="4z"))
            with pytest.raises(InvalidHandError) as exc:
                c.expected_values("123m456p789s11z23m", rules="tenhou_sanma")
            assert exc.value.reason == "not_in_sanma"
