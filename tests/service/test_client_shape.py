"""One shape for one question (issue 30): each bulk Client method answers as the local
mjcore call on the same arrays: the same result type, fields, values and per-row errors (bad
rows by index, the good rows kept)."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from mjcore import batch
from mjcore.client import Client
from mjcore.errors import BatchError
from mjcore.riichi.batch_scoring import MELD_NONE, encode_meld, pack

from .service_helpers import random_counts


def _same_rows(got: Any, want: Any, fields: list[str]) -> None:
    """``got`` and ``want`` agree field by field, status and errors included."""
    assert type(got) is type(want)
    assert len(got) == len(want)
    assert got.status.dtype == want.status.dtype
    assert got.status.tolist() == want.status.tolist()
    for name in fields:
        mine, theirs = getattr(got, name), getattr(want, name)
        assert mine.dtype == theirs.dtype and mine.shape == theirs.shape, name
        assert np.array_equal(mine, theirs), name
    assert [(e.index, e.reason, str(e)) for e in got.errors()] == [
        (e.index, e.reason, str(e)) for e in want.errors()]
    assert got.errors(), "the case has bad rows"
    with pytest.raises(BatchError) as err:
        got.raise_for_errors()
    assert sorted(err.value.errors) == got.bad_rows.tolist()
    assert err.value.partial is got


def _rows_with_bad_ones(tiles: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Random ``tiles``-tile rows, explicit meld counts, and four bad rows: five of a kind,
    a count of 7, a tile count no meld count explains, a meld count over 4."""
    counts = random_counts(1500, tiles, seed)
    melds = np.zeros(len(counts), np.uint8)
    counts[3] = 0
    counts[3, [0, 9]] = [5, 4]
    counts[3, 18:22] = 1
    counts[700, 27] = 7
    counts[1100] = 0
    counts[1100, [0, 9, 18]] = 4                        # 12 tiles
    melds[1499] = 5
    counts[1200] = 0
    counts[1200, [4, 5]] = [3, 1 if tiles == 13 else 2]  # 4 (5) tiles with 3 melds
    melds[1200] = 3
    return counts, melds


@pytest.mark.parametrize("forms", [False, True])
def test_shanten_is_the_local_call(client: Client, forms):
    counts, melds = _rows_with_bad_ones(14, 61)
    want = batch.shanten(counts, melds, forms=forms)
    got = client.shanten(counts, melds, forms=forms)
    _same_rows(got, want, ["shanten", "forms"] if forms else ["shanten"])
    assert sorted(got.values) == sorted(want.values)
    assert want.bad_rows.tolist() == [3, 700, 1100, 1499]


def test_waits_is_the_local_call(client: Client):
    counts, melds = _rows_with_bad_ones(13, 62)
    counts[5] = 0
    counts[5, [0, 1, 2, 12, 13, 14, 24, 25, 26]] = 1
    counts[5, [27, 28]] = 2                             # 123m456p789s1122z: 1z or 2z
    want = batch.waits(counts, melds)
    got = client.waits(counts, melds)
    _same_rows(got, want, ["shanten", "mask", "advance_mask", "tenpai"])
    assert sorted(got.values) == sorted(want.values)
    assert got.tenpai[5] and got.mask[5] == (1 << 27) | (1 << 28)


def test_is_agari_is_the_local_call(client: Client):
    counts, melds = _rows_with_bad_ones(14, 63)
    counts[6] = 0
    counts[6, 0:7] = 2                                  # seven pairs
    want = batch.is_agari(counts, melds)
    got = client.is_agari(counts, melds, rules="tenhou_sanma")
    assert got.status[6] != 0                            # 2m-7m are not sanma tiles
    got = client.is_agari(counts, melds)
    _same_rows(got, want, ["agari"])
    assert got.agari[6]


def test_score_batch_is_the_local_call(client: Client):
    arrays = pack([{"hand": "123m456p789s11z555z", "win_tile": "5z", "riichi": True,
                    "dora": ["4z"]},
                   {"hand": "123m456p789s11z555z", "win_tile": "5z"},
                   {"hand": "123m456p789s23456s", "win_tile": "5s"},
                   {"hand": "123m456p789s11z555z", "win_tile": "5z", "tsumo": True},
                   {"hand": "234m456p789s55z pon:222m", "win_tile": "5z",
                    "dora": ["1m"]}] * 40)
    arrays["counts"][1, 0] = 5                      # a fifth 1m in the hand
    arrays["win_tile"][3] = 40                      # no such tile
    # 2m: one closed, three in the pon, the fifth a dora indicator (only together over 4)
    arrays["dora"][4, 0] = 1
    assert arrays["melds"][4, 0] == encode_meld(1, 1, 0, 3) and arrays["counts"][4, 1] == 1
    assert arrays["melds"][0, 0] == MELD_NONE
    want = batch.score(**arrays)
    counts, win = arrays.pop("counts"), arrays.pop("win_tile")
    got = client.score_batch(counts, win, **arrays)
    _same_rows(got, want, list(want.as_dict()))
    assert sorted(got.as_dict()) == sorted(want.as_dict())
    assert got.bad_rows.tolist()[:4] == [1, 2, 3, 4]
    assert "2m" in str(got.errors()[3])


def test_text_helpers_answer_as_the_local_calls(client: Client):
    thirteen = ["123m456p789s1122z", "11111m23p456s789s", "12x3m", "19m19p19s1234567z"]
    fourteen = ["123m456p789s11222z", "123m456p789s1122z", "11m99m11p99p11s99s77z"]
    local = batch.shanten_text("\n".join(thirteen).encode(), keep_counts=True)
    want = batch.waits(local.counts)
    got = client.waits_text(thirteen)
    assert type(got) is type(want) and sorted(got.values) == sorted(want.values)
    assert got.status.tolist() == local.status.tolist()
    assert [(e.index, e.reason, str(e)) for e in got.errors()] == [
        (e.index, e.reason, str(e)) for e in local.errors()]
    for name in ("shanten", "mask", "advance_mask", "tenpai"):
        assert np.array_equal(getattr(got, name)[local.ok], getattr(want, name)[local.ok])
    agari = client.is_agari_text(fourteen)
    assert agari.agari.tolist() == [True, False, True]
    assert agari.bad_rows.tolist() == [1]
    assert agari.errors()[0].reason == "wrong_tile_count"
