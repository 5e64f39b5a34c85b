"""Streaming bulk RPCs: results identical to mjcore.batch, per-hand errors, batch errors."""
from __future__ import annotations

import threading
import time
from typing import cast

import grpc
import numpy as np
import pytest

from mjcore import batch
from mjcore.client import Client, ServiceError
from mjcore.errors import BatchError, InvalidHandError
from mjcore.riichi.batch_scoring import BatchScores
from mjcore.service import ServerConfig
from mjcore.service.errors import error_info
from mjcore.tiles import format_counts
from mjcore.wire.v1 import analysis_service_pb2 as pb
from mjcore.wire.v1 import analysis_service_pb2_grpc as pb_grpc
from mjcore.wire.v1 import types_pb2

from .service_helpers import partial_of, random_counts, start

COUNTS = types_pb2.HAND_ENCODING_COUNTS_U8
PACKED = types_pb2.HAND_ENCODING_PACKED_3BIT
TEXT = types_pb2.HAND_ENCODING_TEXT_LINES
NIBBLE = types_pb2.HAND_ENCODING_PACKED_4BIT
UNKNOWN_ENCODING = cast(types_pb2.HandEncoding, 99)   # a number the enum does not have


def _melded(n: int, seed: int, extra: int) -> tuple[np.ndarray, np.ndarray]:
    """Hands with 0..4 called melds: 13 - 3k (+extra) closed tiles."""
    rng = np.random.default_rng(seed)
    melds = rng.integers(0, 5, n).astype(np.uint8)
    counts = np.zeros((n, 34), dtype=np.uint8)
    for k in range(5):
        rows = np.flatnonzero(melds == k)
        counts[rows] = random_counts(len(rows), 13 - 3 * k + extra, seed + k)
    return counts, melds


@pytest.mark.parametrize("encoding", ["nibble", "packed", "counts"])
def test_shanten_matches_batch_api(plain_server, encoding):
    _, port = plain_server
    counts = np.concatenate([random_counts(3000, 13, 1), random_counts(3000, 14, 2)])
    with Client(f"127.0.0.1:{port}", batch_size=1024, encoding=encoding) as c:
        got = c.shanten(counts)
        with_forms = c.shanten(counts, forms=True)
    want = batch.shanten(counts, forms=True)
    assert np.array_equal(got.shanten, want.shanten)
    assert np.array_equal(with_forms.shanten, want.shanten)
    assert np.array_equal(with_forms.forms, want.forms)


def test_shanten_with_melds_explicit_and_derived(client: Client):
    counts, melds = _melded(4000, 5, 0)
    want = batch.shanten(counts, melds).shanten
    assert np.array_equal(client.shanten(counts, melds).shanten, want)
    # n_melds derived from tile counts
    assert np.array_equal(client.shanten(counts).shanten, want)


def test_waits_matches_batch_api(client: Client):
    counts, melds = _melded(5000, 7, 0)
    want = batch.waits(counts, melds)
    assert np.array_equal(client.waits(counts, melds).mask, want.mask)
    assert want.tenpai.any()


def test_agari_matches_batch_api(client: Client):
    counts, melds = _melded(5000, 9, 1)
    # complete hands are rare at random: add some built ones
    complete = np.zeros((3, 34), dtype=np.uint8)
    complete[0, [0, 1, 2, 9, 10, 11, 18, 19, 20, 27]] = 1
    complete[0, 27] = 3
    complete[0, 28] = 2
    complete[1, [0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33]] = 1
    complete[1, 0] = 2
    complete[2, 0:7] = 2
    counts = np.concatenate([counts, complete])
    melds = np.concatenate([melds, np.zeros(3, np.uint8)])
    got = client.is_agari(counts, melds).agari
    want = batch.is_agari(counts, melds).agari
    assert np.array_equal(got, want)
    assert got[-3:].all()


def test_text_lines(client: Client, tmp_path):
    lines = ["123m456p789s1122z", "m123p406s789z1122", "19m19p19s1234567z", "1122335577m99p11s"]
    path = tmp_path / "hands.txt"
    path.write_text("\n".join(lines * 700) + "\n")
    want = batch.shanten_text(path.read_bytes()).shanten
    assert np.array_equal(client.shanten_text(path).shanten, want)
    assert np.array_equal(client.shanten_text(lines).shanten, batch.shanten_text(
        ("\n".join(lines) + "\n").encode()).shanten)


def test_shanten_text_has_the_shape_of_the_library(client: Client):
    """Client.shanten_text answers as batch.shanten_text: a BatchResult whose bad rows are
    in status and errors(), not an exception."""
    data = b"123m456p789s1122z\n11111m23p456s789s\n12x3m456p789s11z\n123m\n19m19p19s1234567z\n"
    want = batch.shanten_text(data)
    got = client.shanten_text(data)
    assert type(got) is type(want) and len(got) == len(want) == 5
    assert np.array_equal(got.status, want.status) and np.array_equal(got.ok, want.ok)
    assert np.array_equal(got.shanten[want.ok], want.shanten[want.ok])
    assert [(e.index, e.reason, str(e)) for e in got.errors()] == [
        (e.index, e.reason, str(e)) for e in want.errors()]
    assert str(got.errors()[0]) == "row 1: a fifth 1m (at character 5)"
    with pytest.raises(BatchError):
        got.raise_for_errors()


def test_score_has_the_shape_of_the_library(client: Client):
    import mjcore

    for hand, win, kw in (("123m456p789s11122z", "2z", {"tsumo": True, "riichi": True}),
                          ("123m45699p234789s", "4s", {"from_who": 2, "honba": 1}),
                          ("1122334455667z7z", "7z", {}),
                          ("19m19p19s12345677z", "7z", {"tsumo": True}),
                          ("123m456p789s55p chi:213s", "5p", {"seat_wind": "S"})):
        want = mjcore.score(hand, win, **kw)
        got = client.score(hand, win, **kw)
        assert got.to_dict() == want.to_dict() and repr(got) == repr(want), hand
        for name in ("status_code", "yaku", "yaku_mask", "yaku_han", "fu_items", "deltas",
                     "payments", "players", "winner", "wait", "n_decompositions",
                     "is_kazoe", "decomposition"):
            assert getattr(got, name) == getattr(want, name), (hand, name)
        assert got.raw.points == want.points            # the ScoreResponse itself


def test_text_helpers_for_waits_and_agari(client: Client, tmp_path):
    thirteen = [format_counts(c) for c in random_counts(300, 13, 31)] + ["123m456p789s1122z"]
    fourteen = [format_counts(c) for c in random_counts(300, 14, 32)] + ["123m456p789s11222z"]
    path = tmp_path / "w.txt"
    path.write_text("\r\n".join(thirteen) + "\r\n")
    masks = client.waits_text(path).mask
    assert np.array_equal(masks, batch.waits(batch.shanten_text(
        "\n".join(thirteen).encode(), keep_counts=True).counts).mask)
    agari = client.is_agari_text(fourteen).agari
    assert agari[-1] and np.array_equal(agari, batch.is_agari(batch.shanten_text(
        "\n".join(fourteen).encode(), keep_counts=True).counts).agari)
    assert client.is_agari_text(thirteen[:3] + fourteen[:2]).bad_rows.tolist() == [0, 1, 2]


def test_text_line_errors_by_index(stub):
    data = b"123m456p789s1122z\r\n\xff\xfe1m\n123m456p789s1122q\n\n11111m23p456s789s\n"
    (r,) = list(stub.StreamShanten(iter([pb.StreamShantenRequest(
        hands=types_pb2.PackedHands(encoding=TEXT, data=data))])))
    want = batch.shanten_text(data)
    assert r.hand_count == len(want) == 5
    assert {e.index: e.reason for e in r.errors} == {e.index: e.reason.upper()
                                                     for e in want.errors()}
    assert {e.index for e in r.errors} >= {1, 2, 3, 4}
    assert np.frombuffer(r.shanten, np.int8)[0] == 0


def test_text_lines_for_waits_and_agari(stub):
    data = b"123m456p789s1122z\n123m456p789s11222z\n"
    waits = next(iter(stub.StreamWaits(iter([pb.StreamWaitsRequest(
        hands=types_pb2.PackedHands(encoding=TEXT, data=data))]))))
    agari = next(iter(stub.StreamAgari(iter([pb.StreamAgariRequest(
        hands=types_pb2.PackedHands(encoding=TEXT, data=data))]))))
    masks = np.frombuffer(waits.masks, "<u8")
    assert masks[0] == (1 << 27) | (1 << 28)
    assert [e.index for e in waits.errors] == [1]     # 14 tiles: no waits
    assert list(np.frombuffer(agari.agari, np.uint8)) == [0, 1]
    assert [e.index for e in agari.errors] == [0]     # 13 tiles: not a complete-hand count


@pytest.mark.parametrize("explicit_melds", [False, True])
def test_per_hand_errors_keep_good_results(client: Client, explicit_melds):
    counts = random_counts(2500, 13, 11)
    counts[7, 3] = 5                  # five copies
    counts[1500] = 0                  # 12 tiles: neither 13 - 3k nor 14 - 3k
    counts[1500, [0, 9, 18]] = 4
    counts[2222] = 0                  # 4 tiles: fine with 3 melds, wrong with none
    counts[2222, 5] = 4
    melds = np.zeros(len(counts), np.uint8) if explicit_melds else None
    with pytest.raises(BatchError) as err:
        client.shanten(counts, melds).raise_for_errors()
    want = batch.shanten(counts, melds if explicit_melds else
                         np.where(np.arange(len(counts)) == 2222, 3, 0))
    bad = {e.index: e.reason for e in want.errors()}
    assert set(bad) == ({7, 1500, 2222} if explicit_melds else {7, 1500})
    assert set(err.value.errors) == set(bad)
    for i, e in err.value.errors.items():
        assert e.reason == bad[i] and e.index == i
    good = want.ok
    partial = partial_of(err.value, batch.BatchResult).shanten
    assert np.array_equal(partial[good], want.shanten[good])
    assert (partial[~good] == -128).all()


def test_garbage_packed_bits_are_per_hand_errors(stub):
    words = batch.pack(random_counts(4, 13, 3)).astype("<u4")
    words[1, 0] |= 1 << 30                  # a bit outside the 27 used bits
    words[2, 3] |= 0b111 << 6               # a count of 7 for 3z
    req = pb.StreamShantenRequest(hands=types_pb2.PackedHands(encoding=PACKED,
                                                              data=words.tobytes()))
    (r,) = list(stub.StreamShanten(iter([req])))
    reasons = {e.index: e.reason for e in r.errors}
    assert reasons[1] == "BAD_PACKING" and 2 in reasons and set(reasons) == {1, 2}
    sh = np.frombuffer(r.shanten, np.int8)
    assert sh[1] == sh[2] == -128
    assert np.array_equal(sh[[0, 3]], batch.shanten(batch.unpack(words[[0, 3]])).shanten)


def test_random_garbage_bytes_never_break_the_server(stub):
    rng = np.random.default_rng(5)
    for encoding, size in ((COUNTS, 34), (PACKED, 16), (NIBBLE, 17), (TEXT, 17)):
        data = rng.integers(0, 256, size * 300, dtype=np.uint8).tobytes()
        req = pb.StreamShantenRequest(hands=types_pb2.PackedHands(encoding=encoding, data=data))
        try:
            (r,) = list(stub.StreamShanten(iter([req])))
        except grpc.RpcError as err:   # text that is not UTF-8 is a batch-level error
            assert encoding == TEXT and err.code() == grpc.StatusCode.INVALID_ARGUMENT
            continue
        assert r.hand_count == len(np.frombuffer(r.shanten, np.int8)) and len(r.errors) > 0
    assert stub.ListRulePresets(pb.ListRulePresetsRequest()).presets


def _batch_error(call, request, code=grpc.StatusCode.INVALID_ARGUMENT):
    with pytest.raises(grpc.RpcError) as exc:
        list(call(iter(request if isinstance(request, list) else [request])))
    assert exc.value.code() == code, exc.value.details()
    return error_info(exc.value)


@pytest.mark.parametrize("hands,reason", [
    (types_pb2.PackedHands(encoding=COUNTS, data=b""), "EMPTY_BATCH"),
    (types_pb2.PackedHands(encoding=TEXT, data=b""), "EMPTY_BATCH"),
    (types_pb2.PackedHands(encoding=COUNTS, data=bytes(35)), "BAD_BATCH_LENGTH"),
    (types_pb2.PackedHands(encoding=PACKED, data=bytes(17)), "BAD_BATCH_LENGTH"),
    (types_pb2.PackedHands(encoding=NIBBLE, data=bytes(34 * 3 + 1)), "BAD_BATCH_LENGTH"),
    (types_pb2.PackedHands(data=bytes(34)), "BAD_ENCODING"),
    (types_pb2.PackedHands(encoding=UNKNOWN_ENCODING, data=bytes(34)), "BAD_ENCODING"),
    (types_pb2.PackedHands(encoding=COUNTS, data=bytes(68), n_melds=b"\0"), "BAD_N_MELDS"),
])
def test_malformed_batches(stub, hands, reason):
    for call, make in ((stub.StreamShanten, pb.StreamShantenRequest),
                       (stub.StreamWaits, pb.StreamWaitsRequest),
                       (stub.StreamAgari, pb.StreamAgariRequest)):
        info = _batch_error(call, make(hands=hands))
        assert info.reason == reason and info.metadata["batch"] == "0"
        if reason == "BAD_ENCODING":
            assert info.metadata["field"] == "hands.encoding"


def test_error_names_the_batch_number(stub):
    good = types_pb2.PackedHands(encoding=COUNTS, data=random_counts(3, 13, 1).tobytes())
    bad = types_pb2.PackedHands(encoding=COUNTS, data=bytes(33))
    info = _batch_error(stub.StreamShanten, [pb.StreamShantenRequest(hands=good)] * 2
                        + [pb.StreamShantenRequest(hands=bad)])
    assert info.metadata["batch"] == "2"


def test_oversize_batch_is_resource_exhausted(stub, client):
    hands = types_pb2.PackedHands(encoding=COUNTS, data=random_counts(5001, 13, 1).tobytes())
    info = _batch_error(stub.StreamShanten, pb.StreamShantenRequest(hands=hands),
                        grpc.StatusCode.RESOURCE_EXHAUSTED)
    assert info.reason == "BATCH_TOO_LARGE" and info.metadata["limit"] == "5000"
    text = types_pb2.PackedHands(encoding=TEXT, data=b"1m\n" * 5001)
    _batch_error(stub.StreamShanten, pb.StreamShantenRequest(hands=text),
                 grpc.StatusCode.RESOURCE_EXHAUSTED)
    big = Client(client.target, batch_size=6000)
    with pytest.raises(ServiceError) as err:
        big.shanten(random_counts(6000, 13, 1))
    assert err.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED
    big.close()


def test_batches_answered_in_order(stub):
    sizes = [5, 1, 700, 33, 2, 900]
    reqs, all_counts = [], []
    for i, n in enumerate(sizes):
        c = random_counts(n, 13, 100 + i)
        all_counts.append(c)
        reqs.append(pb.StreamShantenRequest(hands=types_pb2.PackedHands(
            encoding=COUNTS, data=c.tobytes())))
    responses = list(stub.StreamShanten(iter(reqs)))
    assert [r.batch for r in responses] == list(range(len(sizes)))
    assert [r.hand_count for r in responses] == sizes
    for r, c in zip(responses, all_counts, strict=True):
        assert np.array_equal(np.frombuffer(r.shanten, np.int8), batch.shanten(c).shanten)


def test_empty_stream_gives_no_responses(stub):
    assert list(stub.StreamShanten(iter([]))) == []


def test_client_rejects_bad_shapes(client: Client):
    with pytest.raises(InvalidHandError):
        client.shanten(np.zeros((3, 33), np.uint8))
    with pytest.raises(InvalidHandError):
        client.shanten(np.zeros((3, 34), np.uint8), np.zeros(2, np.uint8))


def test_deadline_exceeded_and_work_stops():
    server, port = start(ServerConfig(port=0, max_batch=1 << 18, workers=4))
    try:
        counts = np.tile(random_counts(1 << 12, 13, 1), (64, 1))
        req = pb.StreamShantenRequest(hands=types_pb2.PackedHands(
            encoding=COUNTS, data=counts.tobytes()))
        with grpc.insecure_channel(f"127.0.0.1:{port}", options=[
                ("grpc.max_send_message_length", 1 << 26),
                ("grpc.max_receive_message_length", 1 << 26)]) as ch:
            stub = pb_grpc.HandAnalysisServiceStub(ch)
            t0 = time.monotonic()
            with pytest.raises(grpc.RpcError) as exc:
                for _ in stub.StreamShanten(iter([req] * 400), timeout=0.4):
                    pass
            assert exc.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
            assert time.monotonic() - t0 < 3
        servicer = server.servicer
        for _ in range(100):
            if servicer.active == 0:
                break
            time.sleep(0.02)
        assert servicer.active == 0, "bulk work still running after the deadline"
        assert servicer.batches_done < 400
    finally:
        server.stop(0).wait()


def test_client_retries_unavailable_until_server_is_up():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    holder = {}

    def late_start():
        time.sleep(0.4)
        holder["server"] = start(ServerConfig(port=port))[0]

    t = threading.Thread(target=late_start)
    t.start()
    try:
        with Client(f"127.0.0.1:{port}", timeout=10, retries=20, backoff=0.05,
                    max_backoff=0.2) as c:
            assert c.rule_presets().default_preset == "tenhou"
            assert np.array_equal(c.shanten(random_counts(10, 13, 1)).shanten,
                                  batch.shanten(random_counts(10, 13, 1)).shanten)
    finally:
        t.join()
        holder["server"].stop(0).wait()


def test_client_gives_up_within_its_deadline():
    with Client("127.0.0.1:9", timeout=0.3, retries=100, backoff=0.05) as c:
        t0 = time.monotonic()
        with pytest.raises(ServiceError):
            c.shanten(random_counts(5, 13, 1))
        assert time.monotonic() - t0 < 2


WINNING = [("123m456p789s11122z", "2z"), ("22334455667788p", "8p"), ("11123455678999m", "5m"),
           ("19m19p19s11234567z", "1z"), ("112233m456p789s55z", "3m"),
           ("234m567p345s22m678s", "8s"),
           ("123m55z chi:345p pon:777s<2 kan:9999m<1", "5z"), ("234m406p345s22m678s", "0p"),
           ("11m pon:555z<1 pon:666z<2 pon:777z<3 123p", "1m"), ("234m456p789s55z chi:123s", "5z")]


def _score_rows(n: int, seed: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        hand, win = WINNING[i % len(WINNING)]
        tsumo = bool(rng.integers(2))
        closed = ":" not in hand
        row = {"hand": hand, "win_tile": win, "tsumo": tsumo, "seat_wind": "ESWN"[rng.integers(4)],
                   "round_wind": "ES"[rng.integers(2)],
                   "dora": ("1m", "1m2z")[int(rng.integers(2))],
                   "honba": int(rng.integers(3)), "riichi_sticks": int(rng.integers(2)),
                   "riichi": closed and bool(rng.integers(2))}
        if row["riichi"]:
            row["ura"] = "9p"
        rows.append(row)
    return rows


def test_score_matches_batch_scoring(plain_server):
    from mjcore.riichi.batch_scoring import pack
    from mjcore.riichi.batch_scoring import score as score_batch

    arrays = pack(_score_rows(600, 3))
    want = score_batch(**arrays, rules="tenhou")
    _, port = plain_server
    with Client(f"127.0.0.1:{port}", batch_size=128) as c:
        counts = arrays.pop("counts")
        win = arrays.pop("win_tile")
        got = c.score_batch(counts, win, details=True, **arrays)
        got_ema = c.score_batch(counts, win, rules="ema", **arrays)
    for name in ("han", "fu", "limit", "yakuman", "basic", "points", "yaku_mask", "dora_ura_aka",
                 "deltas", "payments", "decomposition_index", "yaku_han", "fu_items",
                 "n_fu_items"):
        assert np.array_equal(getattr(got, name), getattr(want, name)), name
    assert np.array_equal(got.status, want.status)
    assert (want.status == 0).any() and (want.status == 1).any()  # wins and a no-yaku hand
    want_ema = score_batch(counts, win, rules="ema", **arrays)
    assert np.array_equal(got_ema.points, want_ema.points)


def test_score_bad_rows_and_fields(stub, client):
    from mjcore.riichi.batch_scoring import pack

    arrays = pack(_score_rows(20, 4))
    counts, win = arrays.pop("counts"), arrays.pop("win_tile")
    win = win.copy()
    win[3] = 200                      # not a tile
    counts = counts.copy()
    counts[5, 0] = 5                  # five copies
    flags = arrays.pop("flags").copy()
    flags[9] |= 8                     # ippatsu without riichi (row 9 has no riichi)
    flags[9] &= np.uint16(0xFFFF ^ 2)
    with pytest.raises(BatchError) as err:
        client.score_batch(counts, win, flags=flags, **arrays).raise_for_errors()
    assert {3, 5, 9} <= set(err.value.errors)
    assert partial_of(err.value, BatchScores).status[0] >= 0
    req = pb.StreamScoreRequest(hands=types_pb2.PackedHands(encoding=COUNTS,
                                                            data=counts[:4].tobytes()),
                                win_tile=bytes(3))
    info = _batch_error(stub.StreamScore, req)
    assert info.reason == "BAD_FIELD_LENGTH" and info.metadata["field"] == "win_tile"
    req = pb.StreamScoreRequest(hands=types_pb2.PackedHands(encoding=COUNTS,
                                                            data=counts[:4].tobytes()))
    assert _batch_error(stub.StreamScore, req).metadata["field"] == "win_tile"
    req = pb.StreamScoreRequest(hands=types_pb2.PackedHands(encoding=COUNTS,
                                                            data=counts[:4].tobytes()),
                                win_tile=bytes(4), dora_slot_count=11, dora=bytes(44))
    assert _batch_error(stub.StreamScore, req).metadata["field"] == "dora_slot_count"
    req = pb.StreamScoreRequest(hands=types_pb2.PackedHands(encoding=COUNTS,
                                                            data=counts[:4].tobytes()),
                                win_tile=bytes(4), rules={"preset": "nope"})
    assert _batch_error(stub.StreamScore, req).reason == "INVALID_RULE"


def test_score_garbage_fields_never_break_the_server(stub):
    rng = np.random.default_rng(9)
    n = 200
    counts = random_counts(n, 14, 5)
    req = pb.StreamScoreRequest(
        hands=types_pb2.PackedHands(encoding=COUNTS, data=counts.tobytes()),
        win_tile=rng.integers(0, 256, n, dtype=np.uint8).tobytes(),
        melds=rng.integers(0, 1 << 16, 4 * n, dtype=np.uint16).astype("<u2").tobytes(),
        red=rng.integers(0, 256, n, dtype=np.uint8).tobytes(),
        flags=rng.integers(0, 1 << 16, n, dtype=np.uint16).astype("<u2").tobytes(),
        seat_wind=rng.integers(0, 256, n, dtype=np.uint8).tobytes(),
        round_wind=rng.integers(0, 256, n, dtype=np.uint8).tobytes(),
        from_rel=rng.integers(0, 256, n, dtype=np.uint8).tobytes(),
        pao_rel=rng.integers(0, 256, n, dtype=np.uint8).tobytes(),
        dora=rng.integers(0, 256, 3 * n, dtype=np.uint8).tobytes(), dora_slot_count=3,
        honba=rng.integers(0, 1 << 16, n, dtype=np.uint16).astype("<u2").tobytes(),
        kita=rng.integers(0, 256, n, dtype=np.uint8).tobytes())
    (r,) = list(stub.StreamScore(iter([req])))
    assert r.hand_count == n and len(r.errors) > 0
    status = np.frombuffer(r.status, np.int8)
    assert {e.index for e in r.errors} == set(np.flatnonzero(status < 0).tolist())


def test_pack_helpers_round_trip():
    from mjcore.service import bulk
    from mjcore.wire import packing

    counts = random_counts(500, 14, 8)
    assert np.array_equal(packing.unpack_4bit(packing.pack_4bit(counts)), counts)
    assert np.array_equal(batch.unpack(packing.pack_3bit(counts)), counts)
    assert np.array_equal(packing.pack_3bit(counts), batch.pack(counts))
    melds = np.array([0, 1, 2, 3, 4], np.uint8)
    sizes = 14 - 3 * melds - np.array([0, 1, 0, 1, 0])
    rows = np.zeros((5, 34), np.uint8)
    for i, n in enumerate(sizes):
        rows[i, :n // 4] = 4
        rows[i, n // 4] = n % 4
    assert np.array_equal(bulk.derive_n_melds(rows), melds)


def test_message_over_the_size_limit_is_resource_exhausted():
    server, port = start(ServerConfig(port=0, max_message_size=64 * 1024))
    try:
        with Client(f"127.0.0.1:{port}", batch_size=4000, retries=0) as c:
            with pytest.raises(ServiceError) as err:
                c.shanten(random_counts(4000, 13, 1))     # 68 kB of nibbles
            assert err.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert len(c.shanten(random_counts(1000, 13, 1))) == 1000
    finally:
        server.stop(0).wait()


def test_a_batch_over_the_clients_message_limit_is_cut_to_fit():
    server, port = start(ServerConfig(port=0, max_message_size=64 * 1024))
    try:
        counts = random_counts(4000, 13, 1)                # 68 kB of nibbles in one batch
        with Client(f"127.0.0.1:{port}", batch_size=4000, retries=0,
                    max_message_size=64 * 1024) as c:
            assert np.array_equal(c.shanten(counts).shanten, batch.shanten(counts).shanten)
            assert server.servicer.batches_done == 2      # cut in two
        with Client(f"127.0.0.1:{port}", batch_size=4000, retries=0,
                    max_message_size=8 * 1024) as c:
            assert np.array_equal(c.shanten(counts).shanten, batch.shanten(counts).shanten)
            assert 2 + 9 <= server.servicer.batches_done <= 2 + 10    # 68 kB in 8 kB pieces
            lines = ["123m456p789s1122z"] * 3 + ["1m" * 40_000]
            with pytest.raises(InvalidHandError, match=r"row 3: its request is [\d,]+ bytes, "
                                                       r"over the client's max_message_size"):
                c.shanten_text(lines)
    finally:
        server.stop(0).wait()


@pytest.mark.parametrize("size", [0, -1, 1023])
def test_a_client_message_limit_under_1024_bytes_is_refused(size):
    with pytest.raises(ValueError, match=rf"max_message_size {size}: expected >= 1024"):
        Client("127.0.0.1:1", max_message_size=size)


def test_stream_resumes_on_another_server_after_unavailable():
    first, port = start(ServerConfig(port=0))
    holder = {}

    def swap_servers():
        give_up = time.monotonic() + 10
        while first.servicer.batches_done < 3 and time.monotonic() < give_up:
            time.sleep(0.001)
        first.stop(0).wait()
        holder["second"] = start(ServerConfig(port=port))[0]

    counts = np.tile(random_counts(1000, 13, 21), (100, 1))   # 1000 batches of 100
    t = threading.Thread(target=swap_servers)
    t.start()
    try:
        with Client(f"127.0.0.1:{port}", batch_size=100, streams=1, retries=50, backoff=0.02,
                    max_backoff=0.1, timeout=60) as c:
            got = c.shanten(counts)
    finally:
        t.join()
        if "second" in holder:
            holder["second"].stop(0).wait()
    assert np.array_equal(got.shanten, batch.shanten(counts).shanten)
    assert holder["second"].servicer.batches_done > 0
    assert first.servicer.batches_done + holder["second"].servicer.batches_done >= 1000


def test_bad_meld_counts_are_per_hand_errors(client: Client):
    counts = random_counts(6, 13, 40)
    melds = np.array([0, 7, 0, 255, 0, 5], np.uint8)
    with pytest.raises(BatchError) as err:
        client.shanten(counts, melds).raise_for_errors()
    want = batch.shanten(counts, melds)
    assert {i: e.reason for i, e in err.value.errors.items()} == {
        e.index: e.reason for e in want.errors()}
    assert set(err.value.errors) == {1, 3, 5}


def test_batch_whose_answer_would_not_fit_is_resource_exhausted():
    server, port = start(ServerConfig(port=0, max_message_size=256 * 1024))
    try:
        counts = random_counts(2000, 14, 3)          # 34 kB of nibbles, fits the request limit
        with Client(f"127.0.0.1:{port}", batch_size=2000, retries=0) as c:
            assert len(c.shanten(counts)) == 2000
            with pytest.raises(ServiceError) as err:
                c.score_batch(counts, counts.argmax(axis=1), details=True)   # ~300 kB answer
            assert err.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert err.value.reason == "BATCH_TOO_LARGE"
    finally:
        server.stop(0).wait()


def test_errors_beyond_the_first_kernel_chunk_keep_batch_indices():
    from mjcore.service.requests import CHUNK

    server, port = start(ServerConfig(port=0))
    try:
        counts = np.tile(random_counts(1000, 13, 50), (CHUNK // 1000 + 5, 1))
        bad = [3, CHUNK + 1, len(counts) - 1]
        counts[bad, 0] = 5
        with Client(f"127.0.0.1:{port}", batch_size=len(counts), streams=1) as c, \
                pytest.raises(BatchError) as err:
            c.shanten(counts).raise_for_errors()
        assert sorted(err.value.errors) == bad
        # the batch's own row numbers, the server's chunk-relative ones dropped
        assert all(e.args[0].startswith(f"row {i}: ") and e.args[0].count("row ") == 1
                   for i, e in err.value.errors.items())
        good = np.ones(len(counts), bool)
        good[bad] = False
        assert np.array_equal(partial_of(err.value, batch.BatchResult).shanten[good],
                              batch.shanten(counts[good]).shanten)
    finally:
        server.stop(0).wait()
