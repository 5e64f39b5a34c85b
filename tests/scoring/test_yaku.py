"""Hand-written scoring checks: every yaku and yakuman, fu items, limits, payments, presets."""
from __future__ import annotations

import re
from typing import Any

import pytest

from mjcore.errors import InvalidHandError, InvalidRuleError
from mjcore.riichi.rules import RuleSet
from mjcore.riichi.scoring import score

NON_DEALER: dict[str, Any] = {"seat_wind": "S", "round_wind": "E"}


def yaku_of(res):
    return {y.id: y.han for y in res.yaku}


# (hand, win, situation, expected yaku {tenhou id: han})
YAKU_CASES = [
    ("123m45699p234789s", "4s", {"tsumo": True}, {0: 1, 7: 1}),                 # tsumo, pinfu
    ("123m45699p234789s", "4s", {"riichi": True}, {1: 1, 7: 1, 53: 0}),           # riichi
    ("123m45699p234789s", "4s", {"riichi": True, "ippatsu": True}, {1: 1, 2: 1, 7: 1, 53: 0}),
    ("123m45699p234789s", "4s", {"double_riichi": True}, {21: 2, 7: 1, 53: 0}),
    ("123m45699p234789s", "4s", {"chankan": True}, {3: 1, 7: 1}),
    ("123m45699p234s 4s ankan:7777s".replace(" 4s", ""), "4s",
     {"tsumo": True, "rinshan": True}, {0: 1, 4: 1}),
    ("123m45699p234789s", "4s", {"tsumo": True, "haitei": True}, {0: 1, 5: 1, 7: 1}),
    ("123m45699p234789s", "4s", {"houtei": True}, {6: 1, 7: 1}),
    ("234m456p22678s chi:345s", "2m", {}, {8: 1}),                                # open tanyao
    ("112233m45556p789s", "1m", {"riichi": True}, {1: 1, 7: 1, 9: 1, 53: 0}),     # iipeikou
    ("123m456p789s11p pon:555z", "1p", {}, {18: 1}),                               # haku
    ("123m456p789s11p pon:666z", "1p", {}, {19: 1}),                               # hatsu
    ("123m456p789s11p pon:777z", "1p", {}, {20: 1}),                               # chun
    ("123m456p789s11p pon:111z", "1p", {"seat_wind": "E", "round_wind": "E"}, {10: 1, 14: 1}),
    ("123m456p789s11p pon:222z", "1p", {"seat_wind": "S", "round_wind": "E"}, {11: 1}),
    ("123m456p789s11p pon:333z", "1p", {"seat_wind": "W", "round_wind": "E"}, {12: 1}),
    ("123m456p789s11p pon:444z", "1p", {"seat_wind": "N", "round_wind": "E"}, {13: 1}),
    ("123m456p789s11p pon:222z", "1p", {"seat_wind": "W", "round_wind": "S"}, {15: 1}),
    ("123m456p789s11p pon:333z", "1p", {"seat_wind": "S", "round_wind": "W"}, {16: 1}),
    ("123m456p789s11p pon:444z", "1p", {"seat_wind": "S", "round_wind": "N"}, {17: 1}),
    ("1199m2288p3355s66z", "6z", {}, {22: 2}),                                     # chiitoitsu
    ("123m789p789999s44z", "3m", {}, {23: 2}),                                     # chanta
    ("123m789p999s11p chi:798s", "3m", {}, {23: 1} if False else {33: 2}),          # open junchan
    ("123m789p789999s11p", "3m", {}, {33: 3}),                                     # junchan
    ("123456789m234p55s", "9m", {}, {24: 2, 7: 1}),                                # ittsu
    ("123m123p123s456m77s", "7s", {}, {25: 2}),                                    # sanshoku
    ("123m123s456m77s chi:213p", "7s", {}, {25: 1}),                               # open sanshoku
    ("456m77s222m222s pon:222p", "7s", {}, {26: 2, 8: 1}),                         # doukou
    ("123m55p ankan:1111s kan:2222p<1 kakan:7777z<3", "5p", {}, {27: 2, 20: 1}),   # sankantsu
    ("111m999p55s pon:222s pon:777s", "5s", {}, {28: 2}),                          # toitoi
    ("111m999p333s55s789p", "8p", {}, {29: 2}),                                    # sanankou
    ("555z666z77z123m789p", "1m", {}, {18: 1, 19: 1, 30: 2, 23: 2}),               # shousangen
    ("111m999p111s99s pon:111z", "9s", {"seat_wind": "S", "round_wind": "E"},
     {28: 2, 29: 2, 31: 2, 14: 1}),                                                # honroutou
    ("112233m445566p77s", "7s", {}, {32: 3}),                                      # ryanpeikou
    ("123456999m111z22z", "2z", {"seat_wind": "W", "round_wind": "S"}, {34: 3}),     # honitsu
    ("123m456m11z chi:789m pon:222z", "1z", {"seat_wind": "W", "round_wind": "S"},
     {34: 2, 15: 1, 24: 1}),                                       # open honitsu + ittsu
    ("111234567999p55p", "2p", {"tsumo": True}, {0: 1, 35: 6}),            # chinitsu
    ("234234567p55p chi:768p", "2p", {}, {35: 5, 8: 1}),                     # open chinitsu
]


@pytest.mark.parametrize("hand,win,sit,expected", YAKU_CASES)
def test_yaku(hand, win, sit, expected):
    kw = dict(NON_DEALER)
    kw.update(sit)
    res = score(hand, win, **kw)
    assert res.is_win
    assert yaku_of(res) == expected, res


YAKUMAN_CASES = [
    ("119m19p19s1234567z", "9s", {}, {47: 13}),
    ("119m19p19s1234567z", "1m", {}, {48: 13}),
    ("111m222p333s444s55z", "4s", {"tsumo": True}, {40: 13}),
    ("111m222p333s444s55z", "5z", {}, {41: 13}),
    ("555666777z123m11p", "1p", {}, {39: 13}),
    ("111z222z555z77z pon:666z", "7z", {}, {42: 13}),
    ("234s234s666s88s pon:666z", "8s", {}, {43: 13}),
    ("111m999m111p99p pon:999s", "9p", {}, {44: 13}),
    ("11112345678999m", "5m", {}, {45: 13}),
    ("11112345678999m", "1m", {}, {46: 13}),
    ("111z222z55m pon:333z pon:444z", "5m", {}, {49: 13}),
    ("111z222z33z123m pon:444z", "3m", {}, {50: 13}),
    ("55m ankan:1111m kan:2222p<1 kakan:3333s<3 ankan:7777z", "5m", {}, {51: 13}),
    ("123m45699p234789s", "4s", {"tsumo": True, "tenhou": True, "seat_wind": "E"}, {37: 13}),
    ("123m45699p234789s", "4s", {"tsumo": True, "chiihou": True}, {38: 13}),
]


@pytest.mark.parametrize("hand,win,sit,expected", YAKUMAN_CASES)
def test_yakuman(hand, win, sit, expected):
    kw = dict(NON_DEALER)
    kw.update(sit)
    res = score(hand, win, **kw)
    assert yaku_of(res) == expected, res
    assert res.limit == 5 and res.han == 0 and res.yakuman == 1
    dealer = kw["seat_wind"] == "E"
    assert res.points == (48000 if dealer else 32000)


def test_suuankou_on_shanpon_ron_is_sanankou_toitoi():
    res = score("111m222p333s444s55z", "4s", **NON_DEALER)
    assert yaku_of(res) == {28: 2, 29: 2}


def test_renhou_by_rule():
    hand, win = "123m45699p234789s", "4s"
    assert yaku_of(score(hand, win, renhou=True, **NON_DEALER)) == {7: 1}      # tenhou: off
    res = score(hand, win, renhou=True, rules=RuleSet().replace(renhou="mangan"), **NON_DEALER)
    assert yaku_of(res) == {36: 5, 7: 1} and res.limit == 2
    res = score(hand, win, renhou=True, rules=RuleSet().replace(renhou="yakuman"), **NON_DEALER)
    assert yaku_of(res) == {36: 13} and res.points == 32000


def test_ryuuiisou_needs_hatsu_option():
    hand = "234234234s66688s"
    assert 43 in yaku_of(score(hand, "8s", **NON_DEALER))
    res = score(hand, "8s", rules=RuleSet().replace(ryuuiisou_needs_hatsu=True), **NON_DEALER)
    assert 43 not in yaku_of(res) and res.is_win
    assert 43 in yaku_of(score("234s234s666s88s pon:666z", "8s", **NON_DEALER,
                               rules=RuleSet().replace(ryuuiisou_needs_hatsu=True)))


# ---- yakuman stacking -------------------------------------------------------------------

def test_yakuman_stacking_options():
    hand, win = "555666777z111z22z", "2z"           # daisangen + tsuuiisou + suuankou tanki
    res = score(hand, win, **NON_DEALER)
    assert yaku_of(res) == {39: 13, 41: 13, 42: 13}
    assert res.yakuman == 3 and res.points == 96000 and res.limit_name == "triple yakuman"
    res = score(hand, win, rules=RuleSet().replace(yakuman_stacking="single"), **NON_DEALER)
    assert res.yakuman == 1 and res.points == 32000
    res = score(hand, win, rules=RuleSet().replace(yakuman_stacking="double"), **NON_DEALER)
    assert res.yakuman == 4 and res.points == 128000
    assert yaku_of(res)[41] == 26


def test_double_forms_only_under_double_stacking():
    for hand, win, yid in [("119m19p19s1234567z", "1m", 48), ("11112345678999m", "1m", 46),
                           ("111m222p333s444s55z", "5z", 41),
                           ("111z222z55m pon:333z pon:444z", "5m", 49)]:
        assert score(hand, win, **NON_DEALER).yakuman == 1
        res = score(hand, win, rules=RuleSet().replace(yakuman_stacking="double"), **NON_DEALER)
        assert res.yakuman == 2 and res.points == 64000, (hand, res)
        assert yid in {y.id for y in res.yaku}, (hand, res)


# ---- kazoe, kiriage, limit table --------------------------------------------------------

def test_kazoe_yakuman_and_cap():
    hand, win = "22334455667788p", "8p"
    res = score(hand, win, tsumo=True, riichi=True, dora="1p", **NON_DEALER)
    assert res.han >= 13 and res.limit == 5 and res.limit_name == "kazoe yakuman"
    assert res.points == 32000 and res.is_kazoe
    res = score(hand, win, tsumo=True, riichi=True, dora="1p", rules="ema", **NON_DEALER)
    assert res.limit == 4 and res.points == 24000


def test_kiriage():
    hand, win = "234m456p678s234s55p", "4s"           # riichi pinfu tanyao + 1 dora = 4-30
    res = score(hand, win, riichi=True, dora="1m", **NON_DEALER)
    assert (res.han, res.fu, res.points, res.limit) == (4, 30, 7700, 0)
    res = score(hand, win, riichi=True, dora="1m", rules="wrc", **NON_DEALER)
    assert (res.points, res.limit) == (8000, 1)
    res = score(hand, win, riichi=True, dora="1m", seat_wind="E")
    assert res.points == 11600
    res = score(hand, win, riichi=True, dora="1m", seat_wind="E", rules="wrc")
    assert res.points == 12000


# seed 002 limit table: han -> (dealer ron, dealer tsumo each, non-dealer ron,
# non-dealer tsumo (dealer pays, others pay))
LIMITS = {
    5: ("mangan", 12000, 4000, 8000, 4000, 2000),
    6: ("haneman", 18000, 6000, 12000, 6000, 3000),
    7: ("haneman", 18000, 6000, 12000, 6000, 3000),
    8: ("baiman", 24000, 8000, 16000, 8000, 4000),
    10: ("baiman", 24000, 8000, 16000, 8000, 4000),
    11: ("sanbaiman", 36000, 12000, 24000, 12000, 6000),
    12: ("sanbaiman", 36000, 12000, 24000, 12000, 6000),
    13: ("kazoe yakuman", 48000, 16000, 32000, 16000, 8000),
}


def _dora(n):
    """n indicators each worth one dora to 234m456p678s234s55p, never a fifth copy of a kind."""
    return (["1m"] * 4 + ["1s"] * 4 + ["7s"] * 3)[:n]


@pytest.mark.parametrize("han", sorted(LIMITS))
def test_limit_table(han):
    name, d_ron, d_tsumo, n_ron, n_tsumo_dealer, n_tsumo_other = LIMITS[han]
    hand, win = "234m456p678s234s55p", "4s"           # 3 han on ron, 4 on tsumo (+ dora)
    res = score(hand, win, riichi=True, dora=_dora(han - 3), seat_wind="E", winner=0,
                from_who=1)
    assert (res.han, res.limit_name, res.points) == (han, name, d_ron)
    assert res.deltas == (d_ron, -d_ron, 0, 0)
    res = score(hand, win, riichi=True, tsumo=True, dora=_dora(han - 4), seat_wind="E")
    assert res.deltas == (3 * d_tsumo, -d_tsumo, -d_tsumo, -d_tsumo)
    res = score(hand, win, riichi=True, dora=_dora(han - 3), winner=1, dealer=0,
                from_who=3)
    assert res.points == n_ron and res.deltas == (0, n_ron, 0, -n_ron)
    res = score(hand, win, riichi=True, tsumo=True, dora=_dora(han - 4), winner=1,
                dealer=0)
    assert res.deltas == (-n_tsumo_dealer, n_tsumo_dealer + 2 * n_tsumo_other,
                          -n_tsumo_other, -n_tsumo_other)


def test_yakuman_row_of_limit_table():
    res = score("555666777z123m11p", "1p", seat_wind="E", winner=2, dealer=2, from_who=0)
    assert res.points == 48000 and res.deltas == (-48000, 0, 48000, 0)
    res = score("555666777z123m11p", "1p", tsumo=True, winner=2, dealer=0)
    assert res.deltas == (-16000, -8000, 32000, -8000)


def test_riichi_md_examples():
    # 1 han 30 fu
    hand = "234m456p22678s chi:345s"
    assert score(hand, "2m", **NON_DEALER).points == 1000
    assert score(hand, "2m", seat_wind="E").points == 1500
    res = score(hand, "2m", tsumo=True, winner=1, dealer=0)
    assert res.deltas == (-500, 1100, -300, -300)
    # 2 han 20 fu pinfu tsumo 400/700
    res = score("123m45699p234789s", "4s", tsumo=True, winner=1, dealer=0)
    assert (res.han, res.fu) == (2, 20) and res.deltas == (-700, 1500, -400, -400)
    # 2 han 25 fu chiitoitsu ron 1600; 3 han 40 fu 5200
    assert score("1199m2288p3355s66z", "6z", **NON_DEALER).points == 1600
    res = score("112233m445566p77s", "7s", **NON_DEALER)
    assert (res.han, res.fu, res.points) == (3, 40, 5200)


# ---- fu items ---------------------------------------------------------------------------

def fu_items(res):
    return [(f.item, f.tile, f.fu) for f in res.fu_items]


def test_fu_pinfu_ron_and_tsumo():
    res = score("123m45699p234789s", "4s", **NON_DEALER)
    assert fu_items(res) == [("base", None, 20), ("menzen ron", None, 10)] and res.fu == 30
    res = score("123m45699p234789s", "4s", tsumo=True, **NON_DEALER)
    assert fu_items(res) == [("base", None, 20)] and res.fu == 20


def test_fu_sets_pair_wait_rounding():
    # closed 111m (terminal, 8), open pon 555p (2), ankan 9999s (32), open kan 2222m... keep 4
    res = score("111m123p77z ankan:9999s pon:555p", "2p", tsumo=True, haitei=True,
                **NON_DEALER)
    items = fu_items(res)
    assert ("set", 0, 8) in items and ("set", 13, 2) in items and ("set", 26, 32) in items
    assert ("pair", 33, 2) in items and ("wait", "kanchan", 2) in items
    assert ("tsumo", None, 2) in items
    assert sum(f for _, _, f in items) == res.fu == 70


def test_fu_open_kans_and_penchan_tanki():
    res = score("123m55p kan:2222p<1 kakan:1111z<3 pon:999m", "3m",
                seat_wind="S", round_wind="E")
    items = fu_items(res)
    assert ("set", 10, 8) in items and ("set", 27, 16) in items and ("set", 8, 4) in items
    assert ("wait", "penchan", 2) in items
    assert res.fu == 50 and res.fu == sum(f for _, _, f in items)
    res = score("123m456p789s55p pon:777z", "5p", **NON_DEALER)
    assert ("wait", "tanki", 2) in fu_items(res)


def test_fu_double_wind_pair_option():
    hand = "123m456p789s11z234p"
    res = score(hand, "2p", riichi=True, seat_wind="E", round_wind="E")
    assert ("pair", 27, 4) in fu_items(res) and res.fu == 40
    res = score(hand, "2p", riichi=True, seat_wind="E", round_wind="E",
                rules=RuleSet().replace(double_wind_pair_fu=2))
    assert ("pair", 27, 2) in fu_items(res) and res.fu == 40
    res = score(hand, "2p", riichi=True, seat_wind="S", round_wind="E")
    assert ("pair", 27, 2) in fu_items(res)


def test_fu_open_pinfu_and_chiitoitsu():
    res = score("234m456p22678s chi:345s", "2m", **NON_DEALER)
    assert ("open pinfu", None, 10) in fu_items(res) and res.fu == 30
    res = score("234m456p22678s chi:345s", "2m", rules=RuleSet().replace(open_pinfu_30fu=False),
                **NON_DEALER)
    assert res.fu == 20 and res.points == 700
    res = score("1199m2288p3355s66z", "6z", tsumo=True, **NON_DEALER)
    assert fu_items(res) == [("chiitoitsu", None, 25)] and res.fu == 25


def test_fu_rinshan_tsumo_option():
    hand = "123m45699p234s ankan:7777s"
    res = score(hand, "4s", tsumo=True, rinshan=True, **NON_DEALER)
    assert ("tsumo", None, 2) in fu_items(res) and res.fu == 40
    res = score(hand, "4s", tsumo=True, rinshan=True,
                rules=RuleSet().replace(rinshan_tsumo_fu=False), **NON_DEALER)
    assert ("tsumo", None, 2) not in fu_items(res) and res.fu == 40


def test_best_decomposition_is_chosen():
    # 111222333m: three triplets (sanankou) beat three sequences
    res = score("111222333m456p99s", "9s", tsumo=True, **NON_DEALER)
    assert 29 in yaku_of(res) and res.decomposition.wait == "tanki"
    assert res.n_decompositions >= 2


# ---- payments: honba, sticks, pao --------------------------------------------------------

def test_honba_and_sticks():
    res = score("123m45699p234789s", "4s", winner=2, dealer=0, from_who=1, honba=2,
                riichi_sticks=3)
    assert res.points == 1000 and res.deltas == (0, -1600, 1600 + 3000, 0)
    res = score("123m45699p234789s", "4s", tsumo=True, winner=2, dealer=0, honba=1)
    assert res.deltas == (-800, -500, 1800, -500)


def test_pao():
    hand = "055m33s pon:777z pon:666z pon:555z"
    res = score(hand, "5m", tsumo=True, winner=2, dealer=0, pao_seat=0, honba=1)
    assert res.deltas == (-32300, 0, 32300, 0)
    res = score(hand, "5m", winner=2, dealer=0, from_who=1, pao_seat=0, honba=1)
    assert res.deltas == (-16000, -16300, 32300, 0)
    res = score(hand, "5m", winner=2, dealer=0, from_who=0, pao_seat=0)
    assert res.deltas == (-32000, 0, 32000, 0)
    res = score(hand, "5m", tsumo=True, winner=2, dealer=0, pao_seat=0,
                rules=RuleSet().replace(pao=()))
    assert res.deltas == (-16000, -8000, 32000, -8000)


def test_pao_covers_only_the_liable_yakuman():
    hand = "22z444z pon:555z pon:666z pon:777z"           # daisangen + tsuuiisou
    res = score(hand, "2z", tsumo=True, winner=1, dealer=0, pao_seat=3)
    assert res.yakuman == 2
    assert res.deltas == (-16000, 64000, -8000, -40000)


# ---- no yaku, bad input ------------------------------------------------------------------

def test_no_yaku_is_not_a_win():
    res = score("123m456p789s55p chi:213s", "5p", **NON_DEALER)
    assert not res.is_win and res.status == "no_yaku" and res.points == 0


def test_dora_alone_is_not_a_yaku():
    res = score("123m456p789s55p chi:213s", "5p", dora="4p", **NON_DEALER)
    assert not res.is_win


@pytest.mark.parametrize("hand,win,kw,reason", [
    ("123m456p789s23456s", "5s", {}, "not_complete"),
    ("123m456p789s234s55p", "9m", {}, "bad_tile"),
    ("123m456p789s11p pon:555z", "1p", {"riichi": True}, "bad_situation"),
    ("123m45699p234789s", "4s", {"haitei": True}, "bad_situation"),
    ("123m45699p234789s", "4s", {"tsumo": True, "chankan": True}, "bad_situation"),
    ("123m45699p234789s", "4s", {"seat_wind": "X"}, "bad_seats"),
    ("123m45699p234789s", "4s", {"winner": 1, "from_who": 1}, "bad_seats"),
])
def test_invalid(hand, win, kw, reason):
    with pytest.raises(InvalidHandError) as e:
        score(hand, win, **kw)
    assert e.value.reason == reason


@pytest.mark.parametrize("hand,win,kw,reason,message", [
    ("123m456p789s1122z", "2z", {}, "wrong_tile_count",
     "13 tiles, where a winning hand holds 14"),
    ("123m456p789s11p pon:555z", "1p", {"riichi": True}, "bad_situation",
     "riichi=True needs a closed hand (the hand calls pon:555z"),
    ("123m456p789s11122z", "2z", {"ippatsu": True}, "bad_situation",
     "ippatsu=True needs riichi=True or double_riichi=True (neither is set)"),
    ("123m45699p234789s", "4s", {"haitei": True}, "bad_situation",
     "haitei=True is a win by tsumo, not with tsumo=False"),
    ("123m45699p234789s", "4s", {"tsumo": True, "chankan": True}, "bad_situation",
     "chankan=True is a win by ron, not with tsumo=True"),
    ("123m45699p234789s", "4s", {"tsumo": True, "tenhou": True, "seat_wind": "S"},
     "bad_situation", "tenhou=True needs the dealer (seat wind S)"),
    ("123m45699p234789s", "4s", {"tsumo": True, "chiihou": True}, "bad_situation",
     "chiihou=True needs a non-dealer (seat wind E, the dealer)"),
    ("123m456p789s11122z", "3z", {}, "bad_tile", "the winning tile 3z is not in the hand"),
    ("123m456p789s11122z", "2z", {"tsumo": True, "from_who": 2}, "bad_seats",
     "from_who 2 with tsumo=True: a tsumo has no discarder"),
])
def test_invalid_names_the_one_broken_condition(hand, win, kw, reason, message):
    with pytest.raises(InvalidHandError) as e:
        score(hand, win, **kw)
    assert e.value.reason == reason and message in str(e.value), str(e.value)
    assert "contradictory" not in str(e.value) and "13 or 14" not in str(e.value)


def test_a_tsumo_may_name_the_winner_as_from_who():
    assert score("123m456p789s11122z", "2z", tsumo=True, winner=2, from_who=2).is_win


# ---- presets ------------------------------------------------------------------------------

def test_presets_and_options():
    t, e, w = RuleSet.preset("tenhou"), RuleSet.preset("ema"), RuleSet.preset("wrc")
    assert RuleSet() == t and t.red_fives == 3 and e.red_fives == 0 and w.red_fives == 0
    assert t.kazoe and not e.kazoe and not w.kazoe
    assert w.kiriage and not t.kiriage and not e.kiriage
    assert t.yakuman_stacking == "composite"
    assert e.yakuman_stacking == w.yakuman_stacking == "single"
    assert (t.multiple_ron, e.multiple_ron, w.multiple_ron) == ("double", "triple", "atamahane")
    assert t.start_points == 25000 and e.start_points == w.start_points == 30000
    assert t.renhou == "off" and e.renhou == w.renhou == "mangan"
    assert t.replace(kiriage=True).kiriage and repr(t) == "RuleSet.preset('tenhou')"
    with pytest.raises(InvalidRuleError):
        t.replace(no_such_option=1)
    with pytest.raises(InvalidRuleError):
        RuleSet.preset("nope")
    with pytest.raises(InvalidRuleError):
        t.replace(red_fives=2)
    with pytest.raises(InvalidRuleError):
        t.replace(pao=("daisangen", "chombo"))
    import mjcore.riichi.rules as rules_mod

    for name in RuleSet.option_names():
        if name not in ("uma", "oka", "start_points", "target_points"):
            assert name in rules_mod.__doc__, name


def test_red_fives_by_preset():
    hand = "123m406p789s234s55p"
    assert score(hand, "4s", riichi=True, **NON_DEALER).aka == 1
    assert score(hand, "4s", riichi=True, rules="ema", **NON_DEALER).aka == 0


# ---- robustness --------------------------------------------------------------------------

_FLAG_NAMES = ("tsumo", "riichi", "double_riichi", "ippatsu", "rinshan", "chankan", "haitei",
               "houtei", "tenhou", "chiihou", "renhou")


def test_any_flags_and_seats_give_a_result_or_invalid_hand_error():
    import random

    from mjcore.hand import Hand

    from .random_hands import random_wins

    rng = random.Random(7)
    for h in random_wins(400, 31):
        hand = Hand.from_136(h.closed_ids) if not h.melds else None
        if hand is None:
            continue
        kw: dict[str, Any] = {name: rng.random() < 0.3 for name in _FLAG_NAMES}
        kw.update(seat_wind=rng.choice(["E", "S", "W", "N", 0, 3, "1z"]),
                  round_wind=rng.choice(["E", "S", 1, "4z"]),
                  winner=rng.choice([None, 0, 1, 2, 3]),
                  from_who=rng.choice([None, 0, 1, 2, 3]),
                  pao_seat=rng.choice([None, None, 1, 2]),
                  honba=rng.randrange(5), riichi_sticks=rng.randrange(3),
                  rules=rng.choice([None, "tenhou", "ema", "wrc"]))
        try:
            res = score(hand, h.win_id // 4, **kw)
        except InvalidHandError:
            continue
        assert res.is_win or res.status == "no_yaku"
        if res.is_win:
            assert sum(res.deltas) == 1000 * kw["riichi_sticks"]
            assert res.points > 0


# -- impossible states: more than 4 of a kind counting the indicators (issue 29) --------------

@pytest.mark.parametrize("hand, win, kwargs, words", [
    ("123m456p789s11122z", "2z", {"dora": "1z1z1z1z1z"}, "1z: 8 copies (3 in the hand, 5 in dora"),
    ("123m456p789s11122z", "2z", {"dora": "1z", "ura": "1z", "riichi": True},
     "1z: 5 copies (3 in the hand, 1 in dora indicators, 1 in ura indicators)"),
    ("123m456p789s11122z", "2z", {"dora": [27, 27]}, "1z: 5 copies"),
    ("123m456p11122z pon:777s", "2z", {"dora": "7s7s"}, "7s: 5 copies (3 in its melds, 2 in dora"),
    ("123m456p789s11122z", "2z", {"ura": ["1z", "1z1z"], "riichi": True}, "1z: 6 copies"),
    ("123m406p789s11122z", "2z", {"dora": "0p"}, "0p: 2 red fives"),
    ("123p456p789s11122z", "2z", {"dora": "4z4z4z", "kita": 2, "rules": "tenhou_sanma"},
     "4z: 5 copies (3 in dora indicators, 2 in the norths set aside)"),
])
def test_more_than_four_of_a_kind_with_indicators_is_refused(hand, win, kwargs, words):
    with pytest.raises(InvalidHandError, match=re.escape(words)) as err:
        score(hand, win, **kwargs)
    assert err.value.reason == "too_many_copies"


def test_four_of_a_kind_with_indicators_is_scored():
    res = score("123m456p789s11122z", "2z", dora="1z")
    assert res.is_win and res.dora == 2
    assert score("123m456p789s11122z", "2z", dora=["4z", "1m1m"]).dora == 5


@pytest.mark.parametrize("dora", [[""], ["1m", "  "], 5])
def test_an_empty_or_shapeless_indicator_is_refused(dora):
    with pytest.raises(InvalidHandError, match="dora indicators"):
        score("123m456p789s11122z", "2z", dora=dora)


@pytest.mark.parametrize("opts, needle", [
    ({"uma": 0}, "uma=0"), ({"uma": "1,2,3,4"}, "uma="), ({"uma": (1, 2, 3)}, "uma="),
    ({"uma": (1, 2, 3, True)}, "uma="), ({"uma": None}, "uma=None"),
    ({"pao": True}, "pao=True"), ({"pao": 3}, "pao=3"), ({"pao": "daisangen"}, "pao="),
    ({"pao": [["daisangen"]]}, "pao="), ({"pao": None}, "pao=None"),
])
def test_rule_options_of_the_wrong_shape_are_named(opts, needle):
    with pytest.raises(InvalidRuleError, match=re.escape(needle)):
        RuleSet.preset("tenhou").replace(**opts)
    with pytest.raises(InvalidRuleError, match=re.escape(needle)):
        RuleSet(**opts)


def test_rule_options_of_list_shape_are_taken_as_tuples():
    r = RuleSet.preset("tenhou").replace(uma=[1000, 0, 0, -1000], pao=["suukantsu"])
    assert r.uma == (1000, 0, 0, -1000) and r.pao == ("suukantsu",)
