"""Three-player hand analysis over gRPC (issue 16): the analysis RPCs take ``tenhou_sanma``.

AnalyzeHand on both ports, the bulk and text streams, the client and ``mjcore analyze
--server`` answer as ``mjcore.analysis`` and ``mjcore.batch`` do under the sanma tile set:
2m-8m (and chi) is NOT_IN_SANMA naming the tile, per row in bulk, and the good rows keep
their results; remaining counts count only the tiles that exist.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import mjcore
from mjcore import batch
from mjcore.cli import main
from mjcore.errors import BatchError, InvalidHandError
from mjcore.riichi.rules import SANMA_KINDS, RuleSet
from mjcore.service.riichi import PRESETS
from mjcore.tiles import parse_kinds
from mjcore.wire.v1 import analysis_service_pb2 as pb
from mjcore.wire.v1 import scoring_pb2 as sp

from .service_helpers import partial_of, port_clients, refused_on_both_ports

SANMA = "tenhou_sanma"
SANMA_TILES = [k for k in range(34) if SANMA_KINDS >> k & 1]
# (hand, visible): 13 and 14 tiles, tenpai, complete, kokushi, seven pairs, called melds,
# a red five
HANDS = [
    ("19m456p789s11223z", ""),
    ("19m456p789s11223z", "1m9m9m3z"),
    ("11m99m123p406s789s", ""),
    ("11m99m123p456s7899s", "1m"),
    ("19m19p19s1234567z", "9m9m"),
    ("19m19p19s12345677z", ""),
    ("11m99m11p99p11s99s7z", "7z7z"),
    ("99m123p456s11z pon:777z<1", ""),
    ("1p99m123p456s22z kan:1111z", "1s"),
    ("1m5p9s1z2z3z4z5z6z7z369p", ""),
    ("2345p6789s12z pon:999m<2", "2z"),
]
# (hand, visible, the field named, the tile named)
BAD_HANDS = [("12m456p789s11223z", "", "hand", "2m"), ("19m456p789s11223z", "5m", "visible", "5m"),
             ("19m789s11223z chi:789p", "", "hand", "a chi")]


@pytest.fixture(scope="module")
def clients(two_ports):
    with port_clients(two_ports, batch_size=200) as pair:
        yield pair


def _library(hand: str, visible: str, rules: object) -> tuple:
    size = mjcore.Hand.parse(hand).n_closed + 3 * mjcore.Hand.parse(hand).n_melds
    return (mjcore.shanten(hand, rules), size == 14 and mjcore.is_agari(hand, rules),
            mjcore.waits(hand, visible, rules) if size == 13 else None,
            mjcore.ukeire(hand, visible, rules))


# -- AnalyzeHand ----------------------------------------------------------------------------------

@pytest.mark.parametrize("hand,visible", HANDS)
def test_analyze_hand_on_both_ports_is_the_library(clients, hand, visible):
    want = _library(hand, visible, SANMA)
    for client in clients:
        got = client.analyze(hand, visible, rules=SANMA)
        assert (got.shanten, got.is_agari, got.waits, got.ukeire) == want


def test_sanma_counts_differ_from_four_player(clients):
    hand = "19m456p789s11223z"
    four = clients[1].analyze(hand)
    three = clients[1].analyze(hand, rules=SANMA)
    assert four.ukeire.best.remaining == 29 and three.ukeire.best.remaining == 13
    assert all(w.tile in SANMA_TILES for o in three.ukeire.options for w in o.tiles)


@pytest.mark.parametrize("rules", [
    RuleSet.preset(SANMA),
    RuleSet.preset("tenhou").replace(players=3, red_fives=0),
    {"preset": SANMA, "red_fives": 0},
])
def test_rule_values_with_three_players_are_sanma(clients, rules):
    hand, visible = HANDS[1]
    want = _library(hand, visible, SANMA)
    for client in clients:
        got = client.analyze(hand, visible, rules=rules)
        assert (got.shanten, got.is_agari, got.waits, got.ukeire) == want
        with pytest.raises(InvalidHandError) as err:
            client.analyze("12m456p789s11223z", rules=rules)
        assert err.value.reason == "not_in_sanma"


@pytest.mark.parametrize("text,visible,field,tile", BAD_HANDS)
def test_a_tile_sanma_lacks_is_not_in_sanma_on_both_ports(two_ports, clients, text, visible,
                                                           field, tile):
    with pytest.raises(InvalidHandError) as lib:
        mjcore.ukeire(text, visible, SANMA)
    assert lib.value.reason == "not_in_sanma"
    request = pb.AnalyzeHandRequest(hand=text, visible=visible,
                                    rules=sp.RuleSelection(preset=SANMA))
    for details in refused_on_both_ports(two_ports, "AnalyzeHand", request, "NOT_IN_SANMA",
                                         field):
        assert f"{tile} is not in the tile set" in details
    for client in clients:
        with pytest.raises(InvalidHandError) as got:
            client.analyze(text, visible, rules=SANMA)
        assert got.value.reason == "not_in_sanma"
    # the same hand is fine under four-player rules
    assert clients[0].analyze(text, visible, rules="tenhou").ukeire == mjcore.ukeire(text,
                                                                                    visible)


def test_unknown_preset_lists_the_sanma_one(clients):
    with pytest.raises(mjcore.errors.InvalidRuleError) as err:
        clients[0].analyze("19m456p789s11223z", rules="sanma")
    assert "tenhou_sanma" in str(err.value)


# -- bulk -------------------------------------------------------------------------------------

def _rows(n: int, size: int, seed: int) -> np.ndarray:
    """``n`` random hands of ``size`` tiles from the 108-tile set."""
    rng = np.random.default_rng(seed)
    wall = np.repeat(SANMA_TILES, 4)
    counts = np.zeros((n, 34), np.uint8)
    for i in range(n):
        np.add.at(counts[i], rng.choice(wall, size, replace=False), 1)
    return counts


def _with_bad_rows(counts: np.ndarray, bad: list[int]) -> np.ndarray:
    counts = counts.copy()
    for row, kind in zip(bad, (1, 4, 7), strict=False):
        counts[row, kind] += 1
        counts[row, np.flatnonzero(counts[row])[-1]] -= 1   # keep the tile count
    return counts


def _hand_counts(hands: list[str]) -> np.ndarray:
    counts = np.zeros((len(hands), 34), np.uint8)
    for i, hand in enumerate(hands):
        np.add.at(counts[i], parse_kinds(hand), 1)
    return counts


BAD_ROWS = [3, 250, 401]


def _check_bad_rows(err: BatchError, counts: np.ndarray) -> None:
    assert sorted(err.errors) == BAD_ROWS
    for i, e in err.errors.items():
        assert e.reason == "not_in_sanma"
        held = [mjcore.tiles.tile_name(k) for k in range(1, 8) if counts[i, k]]
        assert re.search(rf"\b{held[0]}\b", str(e)), str(e)


def test_stream_shanten_is_the_batch_kernel_with_bad_rows(clients):
    counts = _with_bad_rows(_rows(500, 14, 1), BAD_ROWS)
    want = batch.shanten(counts, forms=True, rules=SANMA)
    assert sorted(np.flatnonzero(want.status).tolist()) == BAD_ROWS
    with pytest.raises(BatchError) as err:
        clients[0].shanten(counts, forms=True, rules=SANMA).raise_for_errors()
    _check_bad_rows(err.value, counts)
    got = partial_of(err.value, batch.BatchResult)
    assert np.array_equal(got.shanten, want.shanten)
    assert np.array_equal(got.forms, want.forms)


def test_stream_waits_and_agari_are_the_batch_kernels(clients):
    tenpai = _hand_counts([h for h, _ in HANDS if " " not in h and len(parse_kinds(h)) == 13
                           and mjcore.shanten(h, SANMA) == 0])
    counts = _with_bad_rows(np.concatenate([_rows(480, 13, 2), tenpai]), BAD_ROWS)
    want = batch.waits(counts, rules=SANMA)
    assert (want.mask[-len(tenpai):] != 0).all()
    assert not (want.mask & np.uint64(0xFE)).any()            # no 2m-8m wait
    with pytest.raises(BatchError) as err:
        clients[0].waits(counts, rules=SANMA).raise_for_errors()
    _check_bad_rows(err.value, counts)
    got = partial_of(err.value, batch.BatchResult)
    assert np.array_equal(got.mask, want.mask)
    assert np.array_equal(got.advance_mask, want.advance_mask)

    complete = _hand_counts(["11m999m123p406s789s", "19m19p19s12345677z",
                             "11m99m11p99p11s99s77z"])
    counts = _with_bad_rows(np.concatenate([_rows(480, 14, 3), complete]), BAD_ROWS)
    want = batch.is_agari(counts, rules=SANMA)
    assert want.agari[-3:].all()
    with pytest.raises(BatchError) as err:
        clients[0].is_agari(counts, rules=SANMA).raise_for_errors()
    _check_bad_rows(err.value, counts)
    assert np.array_equal(partial_of(err.value, batch.BatchResult).agari, want.agari)


def test_text_streams_take_sanma_rules(clients):
    lines = ["19m456p789s11223z", "12m456p789s11223z", "19m19p19s12345677z", "x"]
    got = clients[0].shanten_text(lines, rules=SANMA)
    errors = got.errors_by_row()
    assert {i: e.reason for i, e in errors.items()} == {1: "not_in_sanma", 3: "parse_error"}
    assert "2m" in str(errors[1])
    want = batch.shanten_text("\n".join(lines).encode(), rules=SANMA)
    assert sorted(np.flatnonzero(want.status).tolist()) == [1, 3]
    assert np.array_equal(got.status, want.status)
    assert np.array_equal(got.shanten, want.shanten)
    assert got.shanten[[0, 2]].tolist() == [2, -1]
    assert clients[0].shanten_text(lines[:1] * 3, rules=SANMA).shanten.tolist() == [2, 2, 2]
    masks = clients[0].waits_text(lines[:1], rules=SANMA).mask
    assert int(masks[0]) == int(batch.waits(_hand_counts(lines[:1]), rules=SANMA).mask[0])
    assert clients[0].is_agari_text(lines[2:3], rules=SANMA).agari.tolist() == [True]


# -- the contract and the CLI -------------------------------------------------------------------

def test_the_proto_documents_the_accepted_presets():
    proto = (Path(__file__).parents[2] / "proto/mjcore/v1/analysis_service.proto").read_text()
    request = proto[proto.index("message AnalyzeHandRequest"):]
    rules_doc = request[:request.index("RuleSelection rules")]
    for name in (*PRESETS, "classical", "bradfield", "NOT_IN_SANMA"):
        assert name in rules_doc, name


def test_cli_analyze_server_with_sanma_is_local(two_ports):
    runner = CliRunner()
    address = f"127.0.0.1:{two_ports.port}"
    hands = [h for h, _ in HANDS[:4]] + ["12m456p789s11223z"]
    args = ["analyze", "--json", "--rules", SANMA, "--visible", "9m", *hands]
    local = runner.invoke(main, args)
    remote = runner.invoke(main, [*args, "--server", address])
    assert local.exit_code == remote.exit_code == 1, remote.output
    local_lines = [json.loads(x) for x in local.stdout.splitlines()]
    remote_lines = [json.loads(x) for x in remote.stdout.splitlines()]
    assert remote_lines[:-1] == local_lines[:-1]
    assert remote_lines[-1]["error"]["reason"] == local_lines[-1]["error"]["reason"] \
        == "not_in_sanma"
    classical = ["analyze", "--json", "--rules", "classical", "--set", "seven_pairs=true",
                 "11m22m33p44p55s66s7z"]
    assert json.loads(runner.invoke(main, [*classical, "--server", address]).stdout) \
        == json.loads(runner.invoke(main, classical).stdout)
