"""Batch scoring: agrees with the single-hand API, keeps good rows next to bad ones, never
crashes on garbage rows, and gives the same answers with two threads."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mjcore.errors import InvalidHandError
from mjcore.riichi.batch_scoring import encode_meld, pack, pack_prepared
from mjcore.riichi.batch_scoring import score as batch_score
from mjcore.riichi.scoring import score_counts

from .random_hands import random_wins


@pytest.fixture(scope="module")
def corpus():
    hands = random_wins(3000, 4242)
    return hands, pack_prepared([h.kernel_args() for h in hands])


def test_batch_matches_single(corpus):
    hands, arrays = corpus
    res = batch_score(**arrays)
    for i, h in enumerate(hands):
        one = score_counts(**h.kernel_args())
        assert int(res.status[i]) == one.status_code
        if not one.is_win:
            continue
        assert int(res.yaku_mask[i]) == one.yaku_mask
        assert tuple(res.yaku_han[i].tolist()) == one.yaku_han
        assert (int(res.han[i]), int(res.fu[i]), int(res.points[i]), int(res.limit[i])) == \
            (one.han, one.fu, one.points, one.limit)
        assert tuple(res.deltas[i].tolist()) == one.deltas
        assert tuple(res.payments[i].tolist()) == one.payments
        assert int(res.decomposition_index[i]) == one.decomposition_index
        assert int(res.n_fu_items[i]) == len(one.fu_items)


def test_two_threads_same_result(corpus):
    _, arrays = corpus
    a = batch_score(**arrays, n_threads=1).as_dict()
    b = batch_score(**arrays, n_threads=2).as_dict()
    for k in a:
        assert np.array_equal(a[k], b[k]), k


def test_bad_rows_do_not_lose_good_rows(corpus):
    _, arrays = corpus
    arrays = {k: v[:10].copy() for k, v in arrays.items()}
    good = batch_score(**arrays)
    arrays["counts"][3, 0] = 9            # too many copies
    arrays["win_tile"][5] = 40             # not a tile
    arrays["seat_wind"][7] = 6             # not a wind
    res = batch_score(**arrays)
    assert list(res.bad_rows) == [3, 5, 7]
    assert [(e.index, e.reason) for e in res.errors()] == [
        (3, "too_many_copies"), (5, "bad_tile"), (7, "bad_seats")]
    for i in (0, 1, 2, 4, 6, 8, 9):
        assert res.points[i] == good.points[i] and res.status[i] == good.status[i]


def test_pack_from_dicts():
    arrays = pack([
        {"hand": "123m45699p234789s", "win_tile": "4s", "tsumo": True},
        {"hand": "055m33s pon:777z pon:666z pon:555z", "win_tile": "5m", "winner": 2,
         "dealer": 0, "from_who": 1, "pao_seat": 0, "honba": 1},
    ])
    res = batch_score(**arrays)
    assert res.points.tolist() == [2100, 32000]
    assert res.deltas[1].tolist() == [32300, 0, -16000, -16300]   # winner-relative seats
    with pytest.raises(InvalidHandError) as e:
        pack([{"hand": "123m", "win_tile": "1m"}, {"hand": "12x", "win_tile": "1m"}])
    assert e.value.index is not None


def test_shape_errors():
    with pytest.raises(InvalidHandError):
        batch_score(np.zeros((3, 33), np.uint8), np.zeros(3, np.uint8))
    with pytest.raises(InvalidHandError):
        batch_score(np.zeros((3, 34), np.uint8), np.zeros(2, np.uint8))
    with pytest.raises(InvalidHandError):
        batch_score(np.zeros((3, 34), np.uint8), np.full(3, -1))
    assert len(batch_score(np.zeros((0, 34), np.uint8), np.zeros(0, np.uint8))) == 0


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_garbage_rows_never_crash(data):
    n = data.draw(st.integers(1, 8))
    u8 = st.integers(0, 255)
    counts = np.array(data.draw(st.lists(st.lists(st.integers(0, 6), min_size=34, max_size=34),
                                         min_size=n, max_size=n)), np.uint8)
    melds = np.array(data.draw(st.lists(st.lists(st.one_of(
        st.just(0xFFFF), st.integers(0, 0xFFFF),
        st.builds(encode_meld, st.integers(0, 5), st.integers(0, 35), st.integers(0, 2),
                  st.integers(0, 3))), min_size=4, max_size=4), min_size=n, max_size=n)),
        np.uint16)
    def row(s):
        return np.array(data.draw(st.lists(s, min_size=n, max_size=n)))

    res = batch_score(
        counts, row(st.integers(0, 40)).astype(np.uint8), melds=melds,
        red=row(st.integers(0, 5)).astype(np.uint8),
        flags=row(st.integers(0, 4095)).astype(np.uint16),
        seat_wind=row(st.integers(0, 5)).astype(np.uint8),
        round_wind=row(st.integers(0, 5)).astype(np.uint8),
        from_rel=row(st.integers(0, 5)).astype(np.uint8),
        pao_rel=row(st.integers(-3, 5)).astype(np.int8),
        dora=np.array(data.draw(st.lists(st.lists(u8, min_size=3, max_size=3), min_size=n,
                                         max_size=n)), np.uint8),
        honba=row(st.integers(0, 65535)).astype(np.uint16))
    assert len(res) == n
    assert set(res.status.tolist()) <= {0, 1, -1, -2, -3, -4, -5, -20, -21}


def test_a_row_with_five_of_a_kind_counting_indicators_is_bad_and_others_kept():
    rows: list[dict[str, Any]] = [
            {"hand": "123m456p789s11122z", "win_tile": "2z", "dora": ["1m"]},
            {"hand": "123m456p789s11122z", "win_tile": "2z", "dora": ["1z", "1z"]},
            {"hand": "123m456p789s11122z", "win_tile": "2z", "ura": ["1z", "1z"],
             "riichi": True},
            {"hand": "123m456p789s11122z", "win_tile": "2z", "dora": ["1z"]}]
    res = batch_score(**pack(rows))
    assert res.status.tolist() == [0, -1, -1, 0]
    assert [e.index for e in res.errors()] == [1, 2]
    assert all(e.reason == "too_many_copies" for e in res.errors())
    first, second = (str(e) for e in res.errors())
    assert "1z: 5 copies (3 in the hand, 2 in dora indicators)" in first
    assert "1z: 5 copies (3 in the hand, 2 in ura indicators)" in second
    assert res.points[0] > 0 and res.points[3] > 0


def test_a_row_with_red_fives_it_cannot_hold_names_them():
    """too_many_copies from the red fives (more than the fives held, a red five marked on a
    meld without a five) says so, not the status's general words."""
    arrays = pack([{"hand": "123m456p789s11z555z", "win_tile": "5z"},
                   {"hand": "123m406p789s11z555z", "win_tile": "5z"},
                   {"hand": "123m456p11z555z chi:789s", "win_tile": "5z"},
                   {"hand": "123m456p11z555z pon:333s", "win_tile": "5z"},
                   {"hand": "123m456p11z555z pon:505s", "win_tile": "5z"}])
    arrays["red"][1] = 3                                    # one five held, three said red
    chi, pon = arrays["melds"][2, 0], arrays["melds"][3, 0]
    arrays["melds"][2, 0] = chi | 1 << 9                    # a red five in 789s
    arrays["melds"][3, 0] = pon | 1 << 9                    # a red five in 333s
    res = batch_score(**arrays)
    assert res.status.tolist()[:4] == [0, -1, -1, -1] and res.status[4] >= 0
    assert [e.reason for e in res.errors()] == ["too_many_copies"] * 3
    closed, in_chi, in_pon = (str(e) for e in res.errors())
    assert closed == "row 1: 3 red fives among the closed tiles, which hold 1 five"
    assert in_chi == "row 2: the chi of 789s marks 1 red five; it holds no five"
    assert in_pon == "row 3: the pon of 3s marks 1 red five; it holds no five"


@pytest.mark.parametrize("rules", [5, object(), ["tenhou"], 1.5])
def test_rules_of_the_wrong_type_are_an_invalid_rule_error(rules):
    from mjcore.errors import InvalidRuleError
    from mjcore.riichi.scoring import score

    arrays = pack([{"hand": "123m456p789s11122z", "win_tile": "2z"}])
    with pytest.raises(InvalidRuleError, match="rules"):
        batch_score(**arrays, rules=rules)
    with pytest.raises(InvalidRuleError, match="rules"):
        pack([{"hand": "123m456p789s11122z", "win_tile": "2z"}], rules=rules)
    with pytest.raises(InvalidRuleError, match="rules"):
        score("123m456p789s11122z", "2z", rules=rules)
