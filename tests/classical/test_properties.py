"""Properties of classical scoring over the real Bradfield deals and random rule options:
every batch row equals the single-deal result, settlements sum to zero, and no hand or
payment exceeds the limit except by East's doubling (and the Singapore discarder's)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mjcore.classical.batch import pack_deals, score_deals
from mjcore.classical.bradfield import deal_from_history
from mjcore.classical.rules import TILE_SPECIFIC_LIMITS, ClassicalRules
from mjcore.classical.scoring import score_deal
from mjcore.errors import InvalidHandError


@pytest.fixture(scope="module")
def deals(bradfield_hands):
    return [deal_from_history(h) for h in bradfield_hands if h.finished]


def _check_rows(deals, rules, result):
    for i, d in enumerate(deals):
        one = score_deal(d, rules)
        assert result.status[i] == 0
        assert list(result.score[i]) == [p.score for p in one.players], i
        assert list(result.points[i]) == [p.points for p in one.players], i
        assert list(result.doubles[i]) == [p.doubles for p in one.players], i
        assert list(result.limit_hand[i]) == [int(p.limit_hand) for p in one.players], i
        assert tuple(result.net[i]) == one.net, i


def test_every_batch_row_equals_the_single_result(deals):
    rules = ClassicalRules.preset("bradfield")
    arrays = pack_deals(deals)
    result = score_deals(**arrays, rules=rules, n_threads=2)
    _check_rows(deals, rules, result)
    assert (result.net.sum(axis=1) == 0).all()


rule_options = st.fixed_dictionaries({
    "limit": st.sampled_from([300, 500, 1000]), "no_limit": st.booleans(),
    "mahjong_points": st.sampled_from([10, 20]),
    "own_bonus_double": st.sampled_from(["both", "each"]),
    "concealed_hand": st.sampled_from(["fully_1", "fully_3_semi_1"]),
    "kong_has_3_types": st.booleans(), "losers_settle": st.booleans(),
    "east_doubles": st.booleans(), "discarder_pays_double": st.booleans(),
    "cannon_liability": st.booleans(), "seven_pairs": st.booleans(),
    "tile_specific_limits": st.sampled_from([TILE_SPECIFIC_LIMITS, ()]),
    "wriggling_snake": st.booleans(), "loose_tile_wall_points": st.booleans(),
    "scholars_need_no_chows": st.booleans(), "thirteenth_win_limit": st.booleans(),
    "moon_on_last_discard": st.booleans(),
})


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(opts=rule_options, start=st.integers(0, 6000))
def test_settlement_and_limit_properties(deals, opts, start):
    rules = ClassicalRules.preset("classical").replace(**opts)
    sample = deals[start:start + 300]
    result = score_deals(**pack_deals(sample), rules=rules, n_threads=1)
    _check_rows(sample[:40], rules, result)
    assert (result.status == 0).all()
    assert (result.net.sum(axis=1) == 0).all()
    for d in sample[:120]:
        r = score_deal(d, rules)
        assert sum(r.net) == 0
        if not rules.no_limit:
            assert all(p.score <= rules.limit for p in r.players)
        for pay in r.payments:
            cap = rules.limit
            if rules.east_doubles and 0 in (pay.payer, pay.payee, pay.for_seat):
                cap *= 2
            if rules.discarder_pays_double:
                cap *= 2
            if not rules.no_limit:
                assert pay.amount <= cap


def test_bad_rows_are_reported_and_the_rest_scored(deals):
    arrays = pack_deals(deals[:5])
    arrays["counts"][1, 0, 0] = 4           # five copies somewhere, or a wrong tile count
    arrays["info"][2, 2] = 40               # winning tile out of range
    arrays["info"][3, 3] = 9                # unknown claim
    result = score_deals(**arrays, rules="bradfield", n_threads=1)
    assert list(result.status < 0) == [False, True, True, True, False]
    assert {e.index for e in result.errors()} == {1, 2, 3}
    assert (result.score[1:4] == 0).all() and result.score[0].sum() > 0


def test_batch_shapes_are_checked():
    def z(*shape):
        return np.zeros(shape, np.int64)
    with pytest.raises(InvalidHandError, match="integer array"):
        score_deals(np.zeros((1, 4, 34)), z(1, 4, 4, 2), z(1, 4), z(1, 4), z(1, 8))
    with pytest.raises(InvalidHandError, match="counts"):
        score_deals(z(2, 34), z(2, 4, 4, 2), z(2, 4), z(2, 4), z(2, 8))
    with pytest.raises(InvalidHandError, match="info"):
        score_deals(z(2, 4, 34), z(2, 4, 4, 2), z(2, 4), z(2, 4), z(2, 7))
    with pytest.raises(InvalidHandError, match="fit"):
        score_deals(z(1, 4, 34), z(1, 4, 4, 2), z(1, 4), z(1, 4) + 300, z(1, 8))


def test_garbage_rows_never_crash_and_are_reported():
    rng = np.random.default_rng(12)
    n = 3000
    counts = rng.integers(0, 6, (n, 4, 34), dtype=np.uint8)
    counts[::3] = rng.integers(0, 2, (len(counts[::3]), 4, 34), dtype=np.uint8)
    melds = rng.integers(0, 256, (n, 4, 4, 2), dtype=np.uint8)
    melds[::2, :, :, 0] %= 6
    melds[::2, :, :, 1] %= 40
    n_melds = rng.integers(0, 6, (n, 4), dtype=np.uint8)
    bonus = rng.integers(0, 256, (n, 4), dtype=np.uint8)
    info = rng.integers(-2, 40, (n, 8), dtype=np.int16)
    info[::2, 7] = 255
    dead = rng.integers(0, 2**63, n, dtype=np.uint64)
    result = score_deals(counts, melds, n_melds, bonus, info, dead, rules="classical",
                         n_threads=2)
    bad = result.status < 0
    assert bad.mean() > 0.9
    assert (result.score[bad] == 0).all() and (result.net[bad] == 0).all()
    assert len(result.errors()) == int(bad.sum())


def test_bad_rows_name_the_tile_held_too_often():
    from mjcore.classical.scoring import Deal, PlayerHand
    from mjcore.tiles import parse_tile

    east, south, west, north = (PlayerHand.parse(t) for t in (
        "333z1357m246p pon:999s 5f", "777z234s678m11z pon:555p 2f", "1357m2468p1357s6z",
        "222m1479p23689s4z"))
    deal = Deal((east, south, west, north), 0, 1, parse_tile("4s"), frozenset({"self_drawn"}))
    arrays = pack_deals([deal] * 4)
    arrays["counts"][1, 2, [0, 2]] -= 1          # West: 1m 3m -> 2m 2m, beside North's 222m
    arrays["counts"][1, 2, 1] += 2
    arrays["counts"][2, 1, 13] += 2              # South: two 5p beside its pon of 5p
    arrays["counts"][2, 1, 33] -= 2              # (two 7z fewer)
    arrays["bonus"][3, 2] |= 1 << 4              # West holds East's 5f too
    result = score_deals(**arrays, rules="classical", n_threads=1)
    errors = {e.index: (e.reason, str(e)) for e in result.errors()}
    assert errors == {
        1: ("too_many_copies", "row 1: a fifth 2m in the four hands (sets counted; at most 4)"),
        2: ("too_many_copies", "row 2: a fifth 5p in the four hands (sets counted; at most 4)"),
        3: ("too_many_copies", "row 3: bonus tile 5f held by E and W")}
