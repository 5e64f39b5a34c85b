"""Chinese classical scoring: the §11.9 worked examples, every item of §11.3-§11.8 and every
scoring option, by hand-built deals."""
from __future__ import annotations

import json
from collections import Counter

import pytest

from mjcore.classical.rules import ClassicalRules
from mjcore.classical.scoring import Deal, PlayerHand, format_deal_score, score_deal
from mjcore.errors import InvalidHandError, InvalidRuleError
from mjcore.tiles import parse_tiles

C = ClassicalRules.preset("classical")


def tiles(text: str) -> list[int]:
    return list(parse_tiles(text).kinds)


def filler(used: Counter, n: int) -> str:
    """n suit tiles nobody can score with (no triples, no pairs), avoiding copies in use."""
    out: list[int] = []
    for k in list(range(0, 27, 2)) + list(range(1, 27, 2)):
        if len(out) == n:
            break
        if used[k] < 4:
            out.append(k)
            used[k] += 1
    assert len(out) == n
    from mjcore.tiles import format_tiles
    return format_tiles(sorted(out))


def deal(winner_text: str, win: str, *, winner: int = 1, prevailing: int = 0,
         how=("self_drawn",), discarder=None, losers: dict[int, str] | None = None,
         **kw) -> Deal:
    """A deal where seat ``winner`` holds ``winner_text`` and the others hold ``losers`` or
    non-scoring filler."""
    hands: dict[int, PlayerHand] = {winner: PlayerHand.parse(winner_text)}
    losers = losers or {}
    for s, text in losers.items():
        hands[s] = PlayerHand.parse(text)
    used: Counter = Counter()
    for h in hands.values():
        used.update(h.concealed)
        for m in h.melds:
            used.update(m.tiles)
    for s in range(4):
        if s not in hands:
            hands[s] = PlayerHand.parse(filler(used, 13))
    if discarder is None and "self_drawn" not in how:
        discarder = (winner + 1) % 4
    return Deal(hands=tuple(hands[s] for s in range(4)), prevailing=prevailing,  # type: ignore[arg-type]
                winner=winner, win_tile=tiles(win)[0], how=frozenset(how),
                discarder=discarder, **kw)


def items(result, seat):
    return {(i.name, i.subject, i.points or i.doubles or ("limit" if i.limit else 0))
            for i in result.players[seat].items}


def names(result, seat):
    return {i.name for i in result.players[seat].items}


# -- §11.9 worked examples -------------------------------------------------------------------

def test_example_a():
    d = Deal(
        hands=(PlayerHand.parse("333z 1357m 246p pon:999s 5f"),
               PlayerHand.parse("777z 234s 678m 11z pon:555p 2f"),
               PlayerHand.parse("1357m 2468p 1357s 6z"),
               PlayerHand.parse("222m 1479p 23689s 4z")),
        prevailing=0, winner=1, win_tile=tiles("4s")[0], how=frozenset({"self_drawn"}))
    r = score_deal(d, C)
    south = r.players[1]
    assert (south.points, south.doubles, south.score) == (38, 1, 76)
    assert items(r, 1) == {("set", "[555p]", 2), ("set", "777z", 8), ("pair", "11z", 2),
                           ("bonus", "1 bonus tile", 4), ("mahjong", "", 20),
                           ("from_wall", "", 2), ("dragon_set", "777z", 1)}
    assert [p.score for p in r.players] == [16, 76, 0, 4]
    pays = {(p.payer, p.payee): p.amount for p in r.payments}
    assert pays == {(0, 1): 152, (2, 1): 76, (3, 1): 76, (2, 0): 32, (3, 0): 24, (2, 3): 4}
    assert r.net == (-96, 304, -112, -96)
    assert "South (winner):" in format_deal_score(r)
    assert json.loads(r.to_json())["net"] == [-96, 304, -112, -96]


def test_example_b():
    d = deal("19m19p19s12345677z", "7z", winner=0, how=(), discarder=2,
             losers={1: "1357m 2468p 1357s 1z", 2: "2468m 1357p 2468s 2z",
                     3: "2468m 2468p 2468s 3z"})
    r = score_deal(d, C)
    assert r.players[0].limit_hand and r.players[0].score == 1000
    assert names(r, 0) == {"thirteen_unique_wonders"}
    assert [p.score for p in r.players[1:]] == [0, 0, 0]
    assert r.net == (6000, -2000, -2000, -2000)


# -- basic points, pairs, bonus tiles (§11.3) -------------------------------------------------

@pytest.mark.parametrize("meld, points", [
    ("pon:555p", 2), ("pon:999p", 4), ("pon:777z", 4), ("kan:5555p", 8), ("kan:9999p", 16),
    ("kakan:1111s", 16), ("ankan:5555p", 16), ("ankan:7777z", 32)])
def test_set_points(meld, points):
    r = score_deal(deal(f"234m 678p 678s 22m {meld}", "2m"), C)
    sets = [i for i in r.players[1].items if i.name == "set"]
    assert [i.points for i in sets] == [points]


@pytest.mark.parametrize("pair, seat, prevailing, points, reason", [
    ("55z", 1, 0, 2, "pair of dragons"), ("22z", 1, 0, 2, "pair of own wind"),
    ("11z", 1, 0, 2, "pair of prevailing wind"),
    ("22z", 1, 1, 4, "pair of own and prevailing wind"),
    ("44z", 1, 0, 0, None), ("22m", 1, 0, 0, None)])
def test_pair_points(pair, seat, prevailing, points, reason):
    r = score_deal(deal(f"234m 345p 678s 789m {pair}", pair[:1] + pair[-1], winner=seat,
                        prevailing=prevailing), C)
    got = [i for i in r.players[seat].items if i.name == "pair"]
    assert [i.points for i in got] == ([points] if points else [])
    if reason:
        assert got[0].reason == reason


def test_bonus_points_and_concealed_pungs_of_losers():
    r = score_deal(deal("234m 345p 678s 789m 22m", "2m",
                        losers={0: "555m 999p 44z 13579s 3f 4f",
                                2: "555z 666z 77z 1357m 9p 1f"}), C)
    east, west = r.players[0], r.players[2]
    assert (east.points, east.doubles) == (4 + 8 + 8, 0)        # two bonus, two pungs, no pair
    assert names(r, 2) >= {"little_three_dragons", "dragon_set"} and west.doubles == 3
    assert west.points == 8 + 8 + 2 + 4 and west.score == 22 * 8


# -- extra points (§11.4) --------------------------------------------------------------------

def test_filling_the_only_place_and_fishing_the_eyes():
    r = score_deal(deal("123m 456p 789s 345s 9m9m", "9m", how=(), discarder=2), C)
    assert {"only_place", "fishing_eyes"} <= names(r, 1)
    assert {i.points for i in r.players[1].items if i.name == "fishing_eyes"} == {4}
    # two places (2s/5s): no only-place points
    r = score_deal(deal("123m 456p 789s 234s 99m", "2s"), C)
    assert "only_place" not in names(r, 1)


def test_only_place_ignores_kinds_whose_four_copies_are_visible():
    d = deal("123m 456p 789s 234s 99m", "2s")
    assert "only_place" not in names(score_deal(d, C), 1)
    d2 = Deal(**{**d.__dict__, "dead_kinds": frozenset({tiles("5s")[0]})})
    assert "only_place" in names(score_deal(d2, C), 1)


@pytest.mark.parametrize("dead", [{-1}, {34}, {True}, {"5s"}, {2**70}])
def test_dead_kinds_out_of_range_are_refused_naming_the_field(dead):
    d = deal("123m 456p 789s 234s 99m", "2s")
    with pytest.raises(InvalidHandError, match="dead_kinds"):
        Deal(**{**d.__dict__, "dead_kinds": frozenset(dead)})


@pytest.mark.parametrize("rules", [5, None, object(), ["classical"]])
def test_rules_of_the_wrong_type_are_an_invalid_rule_error(rules):
    from mjcore.classical.batch import pack_deals, score_deals

    d = deal("123m 456p 789s 234s 99m", "2s")
    with pytest.raises(InvalidRuleError, match="rules"):
        score_deal(d, rules)
    with pytest.raises(InvalidRuleError, match="rules"):
        score_deals(**pack_deals([d]), rules=rules)  # type: ignore[arg-type]


def test_claim_restricts_the_reading():
    # 5-6-7-7 waiting on 7: claimed for the pair (fishing the eyes) or the chow
    pair = score_deal(deal("123m 456p 999s 56777m", "7m", how=(), claim="pair"), C)
    chow = score_deal(deal("123m 456p 999s 56777m", "7m", how=(), claim="chow"), C)
    assert "fishing_eyes" in names(pair, 1) and "fishing_eyes" not in names(chow, 1)
    best = score_deal(deal("123m 456p 999s 56777m", "7m", how=()), C)
    assert best.players[1].score == pair.players[1].score


def test_mahjong_points_option():
    d = deal("234m 345p 678s 789m 22m", "2m")
    r = score_deal(d, C.replace(mahjong_points=10))
    assert {i.points for i in r.players[1].items if i.name == "mahjong"} == {10}


# -- doubles (§11.5, §11.6) --------------------------------------------------------------------

@pytest.mark.parametrize("hand, win, how, expected", [
    ("234m 345p 678s 789m 22m", "2m", ("self_drawn",), {"no_score_hand", "concealed_hand"}),
    ("222m 333p 444s 999m 55m", "9m", (), {"no_chows"}),
    ("123m 456m 789m 111z 55m", "5m", (), {"one_suit_with_honours"}),
    ("123m 456m 789m 234m 55m", "5m", (), {"one_suit_only", "no_score_hand"}),
    ("111m 999p 111z 222z 99s", "1m", (), {"all_majors", "no_chows", "prevailing_wind_set",
                                           "own_wind_set"}),
    ("555z 666z 77z 123m 456p", "7z", (), {"little_three_dragons", "dragon_set"}),
    ("111z 222z 333z 44z 123m", "4z", (), {"little_four_winds"}),
    ("222m 333p 444s 123m 55m", "5m", ("self_drawn",), {"three_concealed_pungs",
                                                        "concealed_hand"}),
    ("234m 345p 678s 789m 22m", "2m", ("self_drawn", "loose_tile"), {"loose_tile"}),
    ("234m 345p 678s 789m 22m", "2m", ("self_drawn", "last_tile"), {"last_tile"}),
    ("234m 345p 678s 789m 22m", "2m", ("last_discard",), {"last_discard"}),
    ("234m 345p 678s 789m 22m", "2m", ("robbed_kong",), {"robbing_kong"}),
    ("234m 345p 678s 789m 22m", "2m", ("original_call",), {"original_call"}),
])
def test_doubles(hand, win, how, expected):
    r = score_deal(deal(hand, win, how=how), C)
    assert expected <= names(r, 1)


def test_flower_doubles_and_options():
    hand = "234m 345p 678s 789m 22m 2f 6f"        # South's own flower and season
    assert "own_flower_and_season" in names(score_deal(deal(hand, "2m"), C), 1)
    each = score_deal(deal(hand, "2m"), C.replace(own_bonus_double="each"))
    assert [i.name for i in each.players[1].items].count("own_bonus") == 2
    bouquet = score_deal(deal("234m 345p 678s 789m 22m 1f2f3f4f5f6f7f8f", "2m"), C)
    assert {"all_four_flowers", "all_four_seasons", "own_flower_and_season"} <= names(bouquet, 1)


def test_concealed_hand_options():
    d = deal("234m 345p 678s 789m 22m", "2m", how=())
    assert "semi_concealed_hand" not in names(score_deal(d, C), 1)
    r = score_deal(d, C.replace(concealed_hand="fully_3_semi_1"))
    assert "semi_concealed_hand" in names(r, 1)
    r = score_deal(deal("234m 345p 678s 789m 22m", "2m"),
                   C.replace(concealed_hand="fully_3_semi_1"))
    assert {i.doubles for i in r.players[1].items if i.name == "concealed_hand"} == {3}


def test_kong_has_3_types():
    d = deal("222m 333p 123m 55m kan:4444s", "5m")
    assert "three_concealed_pungs" not in names(score_deal(d, C), 1)
    assert "three_concealed_pungs" in names(score_deal(d, C.replace(kong_has_3_types=True)), 1)


def test_seven_pairs_option():
    d = deal("1133m 5577p 2299s 66z", "6z", how=("self_drawn",))
    with pytest.raises(InvalidHandError, match="not complete"):
        score_deal(d, C)
    r = score_deal(d, C.replace(seven_pairs=True))
    assert "seven_pairs" in names(r, 1)


# -- limit hands (§11.7) -----------------------------------------------------------------------

@pytest.mark.parametrize("hand, win, how, name", [
    ("234m 345p 678s 789m 22m", "2m", ("self_drawn", "heaven"), "heavens_blessing"),
    ("234m 345p 678s 789m 22m", "2m", ("earth",), "earths_blessing"),
    ("1112345678999m 5m", "5m", (), "nine_gates"),
    ("222m 333p 444s 999m 55m", "5m", ("self_drawn",), "buried_treasure"),
    ("123m 456m 789m 234m 55m", "5m", ("self_drawn",), "concealed_clear_suit"),
    ("55m kan:1111p kan:2222p kan:3333p kan:4444p", "5m", (), "four_kongs"),
    ("555z 666z 777z 123m 55m", "5m", (), "three_great_scholars"),
    ("111z 222z 333z 444z 55m", "5m", (), "four_blessings"),
    ("111z 222z 555z 666z 77z", "7z", (), "all_honours"),
    ("111m 999m 111p 999p 11s", "1s", (), "heads_and_tails"),
    ("234s 234s 666s 888s 66z", "6z", (), "imperial_jade"),
    ("234m 345p 678s 789m 22m", "2m", ("self_drawn", "loose_tile", "kong_upon_kong"),
     "kong_upon_kong"),
    ("234m 345p 678s 789m 55p", "5p", ("self_drawn", "loose_tile"), "plum_blossom"),
    ("234m 345p 678s 789m 11p", "1p", ("last_discard",), "catching_the_moon"),
    ("234m 345p 678s 789m 22s", "2s", ("robbed_kong",), "carrying_pole"),
    ("234m 345p 678s 789m 22m", "2m", ("thirteenth_win",), "thirteenth_win"),
])
def test_limit_hands(hand, win, how, name):
    r = score_deal(deal(hand, win, how=how), C)
    p = r.players[1]
    assert p.limit_hand and p.score == 1000 and name in names(r, 1)


def test_limit_options():
    jade = deal("234s 234s 666s 888s 66z", "6z", how=())
    r = score_deal(jade, C.replace(tile_specific_limits=()))
    assert not r.players[1].limit_hand
    snake = deal("1112345678999m 2m", "2m")
    assert "wriggling_snake" in names(score_deal(snake, C.replace(wriggling_snake=True)), 1)
    assert "wriggling_snake" not in names(score_deal(snake, C), 1)
    scholars = deal("555z 666z 777z 123m 55m", "5m", how=())
    assert not score_deal(scholars, C.replace(scholars_need_no_chows=True)).players[1].limit_hand
    buried = deal("222m 333p 444s 999m 55m", "5m", how=(), claim="pair")
    assert score_deal(buried, C).players[1].limit_hand
    off = score_deal(buried, C.replace(buried_treasure_discard_pair=False)).players[1]
    assert not off.limit_hand and off.doubles >= 2        # no chows, three concealed pungs
    no13 = deal("234m 345p 678s 789m 22m", "2m", how=("thirteenth_win",))
    assert not score_deal(no13, C.replace(thirteenth_win_limit=False)).players[1].limit_hand


@pytest.mark.parametrize("how, classical, bradfield", [
    (("last_discard",), True, False),                   # §11.7 [C-2]; mj-server 1.11 does not
    (("self_drawn", "last_tile"), True, True),          # the last tile of the live wall: both
])
def test_moon_on_the_last_discard_by_preset(how, classical, bradfield):
    moon = deal("234m 345p 678s 789m 11p", "1p", how=how)
    for preset, limit in (("classical", classical), ("bradfield", bradfield)):
        rules = ClassicalRules.preset(preset)
        assert rules.moon_on_last_discard is (preset == "classical")
        r = score_deal(moon, rules)
        p = r.players[1]
        assert p.limit_hand is limit and ("catching_the_moon" in names(r, 1)) is limit, preset
        assert p.score == 1000 if limit else p.score < 1000
    no_moon = C.replace(moon_on_last_discard=False)
    assert ClassicalRules.from_dict(no_moon.to_dict()) == no_moon
    assert score_deal(moon, no_moon).players[1].limit_hand is bradfield
    assert not score_deal(moon, C.replace(tile_specific_limits=())).players[1].limit_hand


def test_limit_caps_and_no_limit():
    d = deal("555z 666z 777z 111z 22z", "2z", how=("self_drawn",))   # all honours
    r = score_deal(deal("555z 666z 77z 123m 999m", "7z", how=()), C)
    p = r.players[1]
    assert p.score == min(p.uncapped, 1000)
    r500 = score_deal(d, C.replace(limit=500))
    assert r500.players[1].score == 500
    big = deal("555z 666z 77z 999m pon:111z", "7z", how=())
    nl = score_deal(big, C.replace(no_limit=True, tile_specific_limits=())).players[1]
    assert nl.score == nl.uncapped > 1000


def test_loose_tile_wall_points_option():
    d = deal("234m 345p 678s 789m 22m", "2m", how=("self_drawn", "loose_tile"))
    assert "from_wall" in names(score_deal(d, C), 1)
    assert "from_wall" not in names(score_deal(d, C.replace(loose_tile_wall_points=False)), 1)


# -- settlement (§11.8) -------------------------------------------------------------------------

def _settle(rules, **kw):
    d = deal("234m 345p 678s 789m 22m", "2m", winner=1, how=(), discarder=2,
             losers={0: "555m 9m 1357p 2468s 1z", 3: "999p 1m 2468m 1357s 3z"}, **kw)
    return score_deal(d, rules)


def test_settlement_options():
    base = _settle(C)
    w = base.players[1].score
    e, n = base.players[0].score, base.players[3].score
    assert base.net[1] == 2 * w + w + w and sum(base.net) == 0
    off = _settle(C.replace(losers_settle=False))
    assert off.net == (-2 * w, 4 * w, -w, -w)
    plain = _settle(C.replace(east_doubles=False))
    assert plain.net[1] == 3 * w
    disc = _settle(C.replace(east_doubles=False, discarder_pays_double=True))
    assert {(p.payer, p.amount) for p in disc.payments if p.payee == 1} == {
        (0, w), (2, 2 * w), (3, w)}
    assert e != n


def test_cannon_liability():
    r = _settle(C.replace(cannon_liability=True), cannon=2)
    w = r.players[1].score
    assert r.cannon == 2 and r.net == (0, 4 * w, -4 * w, 0)
    assert {(p.payer, p.for_seat) for p in r.payments} == {(2, 0), (2, None), (2, 3)}
    assert _settle(C, cannon=2).cannon is None          # the option is off by default


# -- errors -----------------------------------------------------------------------------------

@pytest.mark.parametrize("build, reason", [
    (lambda: deal("234m 345p 678s 789m 2m", "2m"), "wrong_tile_count"),
    (lambda: deal("234m 345p 678s 789m 22m", "3z"), "bad_tile"),
    (lambda: deal("234m 345p 678s 789m 23m", "2m"), "not_complete"),
    (lambda: deal("234m 345p 678s 789m 22m 1f", "2m", losers={0: "1357m 2468p 1357s 1z 1f"}),
     "too_many_copies"),
    (lambda: deal("2222m 345p 678s 789m 2m", "2m"), "too_many_copies"),
])
def test_errors_name_the_reason(build, reason):
    with pytest.raises(InvalidHandError) as e:
        score_deal(build(), C)
    assert e.value.reason == reason


def test_bad_deal_values():
    with pytest.raises(InvalidHandError, match="win condition"):
        deal("234m 345p 678s 789m 22m", "2m", how=("ron",))
    with pytest.raises(InvalidHandError, match="claim"):
        deal("234m 345p 678s 789m 22m", "2m", claim="kong")
    with pytest.raises(InvalidHandError, match="discarder"):
        Deal(hands=(PlayerHand(()),) * 4, prevailing=0, winner=0, win_tile=0)


@pytest.mark.parametrize("args, reason", [
    (((99,),), "bad_tile"), (((0,), (), (9,)), "bad_bonus"),
    (((0,), (), (1, 1)), "too_many_copies"),
    (((0,), ("pon:555z",)), "bad_melds")])
def test_player_hand_values_are_checked(args, reason):
    with pytest.raises(InvalidHandError) as e:
        PlayerHand(*args)
    assert e.value.reason == reason


def test_parse_errors_name_the_token():
    with pytest.raises(InvalidHandError, match="9z"):
        PlayerHand.parse("123m 9z")
    with pytest.raises(InvalidHandError, match="9f"):
        PlayerHand.parse("123m 9f")


def test_no_limit_extremes_stay_exact():
    """The largest no-limit hand the options allow (every bonus tile with the most bouquet
    doubles, East winning, discarder paying double) settles exactly: its score stops at the
    kernel's ceiling and the settlement sums to zero."""
    big = deal("555z 666z 77z 999m pon:111z 1f2f3f4f5f6f7f8f", "7z", winner=0, how=())
    rules = C.replace(no_limit=True, tile_specific_limits=(), bouquet_doubles=8,
                      discarder_pays_double=True)
    r = score_deal(big, rules)
    assert r.players[0].uncapped > r.players[0].score == 100_000_000
    assert sum(r.net) == 0
    assert r.net[0] == (4 + 2 + 2) * 100_000_000     # East doubles; the discarder (South) again
    with pytest.raises(InvalidRuleError, match="bouquet_doubles=9"):
        C.replace(bouquet_doubles=9)
