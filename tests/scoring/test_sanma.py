"""Three-player riichi (sanma) scoring, rules preset ``tenhou_sanma``.

1. Every sanma win of the Tenhou archive (3,986 wins in 534 games, converted by
   sanma_cases.py) scores exactly as tenhou.net did: fu, han, limit, points, the yaku with
   each han, and every player's delta. Wins that cannot match belong in
   sanma_known_mismatches.json with the reason (held exactly; it is empty).
2. Differential test against the PyPI ``mahjong`` package (2.1.0) with
   ``OptionalRules(is_three_player=True)`` and ``num_nuki_dora`` on seeded random sanma wins.
   Rule differences (mahjong -> how the test aligns them), besides those of test_oracle.py
   (open tanyao and red fives on, no double yakuman, renhou as a 5-han yaku, ura listed only
   when > 0, yakuman compared as 13 han each, only the winner's total compared):
   - mahjong accepts 2m-8m, chi and a North seat under three-player rules; ours refuses them
     (not_in_sanma, bad_seats), so the hands drawn have none of them;
   - mahjong knows no seats, so tsumo loss and honba are compared through the winner's total
     (mahjong 2.1.0 also pays 200 per honba on ron, 100 per payer on tsumo, and no absent
     share on tsumo, as Tenhou does);
   - mahjong's red five of man (id 16) cannot occur: the hands hold no 5m.
3. The rules themselves on hand-made examples (dora 1m -> 9m, nukidora, payments), and every
   malformed sanma input answered by InvalidHandError naming it.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mjcore.errors import InvalidHandError, InvalidRuleError
from mjcore.hand import Hand
from mjcore.riichi.batch_scoring import pack, pack_tenhou
from mjcore.riichi.batch_scoring import score as batch_score
from mjcore.riichi.rules import RuleSet
from mjcore.riichi.scoring import score, score_counts

from .sanma_cases import (
    ARCHIVE,
    load_sanma_cases,
    load_sanma_games,
    pack_prepared_sanma,
    sanma_random_wins,
)
from .tenhou_cases import batch_mismatches, compare, hand_of, situation

KNOWN = Path(__file__).with_name("sanma_known_mismatches.json")
SANMA = RuleSet.preset("tenhou_sanma")

needs_archive = pytest.mark.skipif(not ARCHIVE.exists(), reason="Tenhou archive not available")


# ---- the converted Tenhou wins ------------------------------------------------------------

@needs_archive
def test_converter_finds_every_sanma_game_and_win():
    games = load_sanma_games()
    cases = load_sanma_cases()
    assert len(games) == 534 and all(g["go_type"] & 0x10 for g in games)
    assert len(cases) == 3986
    assert sum(len(g["draws"]) for g in games) == 729
    assert sum(g["kita_declared"] for g in games) == 11945
    assert sum(1 for c in cases if c["tsumo"]) == 2000
    failed = {c["case_id"]: k for c in cases for k, v in c["checks"].items() if not v}
    assert failed == {}


@needs_archive
def test_every_sanma_win_matches_tenhou():
    cases = load_sanma_cases()
    bad = batch_mismatches(cases, batch_score(**pack_tenhou(cases), rules="tenhou_sanma"),
                           players=3)
    known = {k["case_id"]: k["reason"] for k in json.loads(KNOWN.read_text())}
    assert sorted(bad) == sorted(known), {k: bad.get(k, "now matches") for k in
                                          sorted(set(bad) ^ set(known))}


@needs_archive
def test_every_sanma_win_through_the_single_api():
    """mjcore.score with a Hand, absolute seats 0-2 and kita, on every converted win."""
    bad = {}
    for c in load_sanma_cases():
        res = score(hand_of(c), c["win_tile_136"] // 4, rules="tenhou_sanma", **situation(c))
        diffs = compare(c, res)
        if diffs:
            bad[c["case_id"]] = diffs
    known = {k["case_id"] for k in json.loads(KNOWN.read_text())}
    assert set(bad) == known, dict(list(bad.items())[:5])


@needs_archive
def test_sanma_wins_need_the_sanma_rules():
    """The same wins under four-player rules disagree: the rules are what makes them match
    (kita refused; tsumo and honba paid as with four players)."""
    cases = [c for c in load_sanma_cases() if c["tsumo"] and c["kita"] == 0][:200]
    res = batch_score(**pack_tenhou(cases))
    assert any(int(res.points[i]) != c["expected"]["points"] for i, c in enumerate(cases))
    with_kita = [c for c in load_sanma_cases() if c["kita"]][:50]
    res = batch_score(**pack_tenhou(with_kita))
    assert (res.status == -20).all()


# ---- the rules on hand-made hands ---------------------------------------------------------

def test_dora_indicator_1m_points_to_9m():
    hand = "99m123p456p789s111z"
    four = score(hand, "1z", dora="1m", riichi=True, seat_wind="S")
    three = score(hand, "1z", dora="1m", riichi=True, seat_wind="S", rules=SANMA)
    assert four.dora == 0 and three.dora == 2
    assert score(hand, "1z", dora="9m", riichi=True, seat_wind="S", rules=SANMA).dora == 0
    assert score("11m123p456p789s111z", "1z", dora="9m", riichi=True, seat_wind="S",
                 rules=SANMA).dora == 2


def test_nukidora_counts_each_north_and_north_indicators():
    hand = "99m123p456p789s555z"
    base = score(hand, "5z", rules=SANMA, seat_wind="S")
    assert base.dora == 0
    two = score(hand, "5z", rules=SANMA, seat_wind="S", kita=2)
    assert two.dora == 2 and two.han == base.han + 2
    # West indicates North: each north set aside counts once more per such indicator
    assert score(hand, "5z", rules=SANMA, seat_wind="S", kita=2, dora="3z3z").dora == 6
    # ura dora too, after riichi
    r = score(hand, "5z", rules=SANMA, seat_wind="S", kita=1, riichi=True, ura="3z")
    assert (r.dora, r.ura) == (1, 1)
    # three norths in the hand and one set aside: fine; two set aside: five norths
    assert score("99m123p456p789s444z", "4z", rules=SANMA, seat_wind="S", riichi=True,
                 kita=1).is_win
    with pytest.raises(InvalidHandError) as e:
        score("99m123p456p789s444z", "4z", rules=SANMA, seat_wind="S", riichi=True, kita=2)
    assert e.value.reason == "bad_situation"


def test_nukidora_is_not_a_yaku():
    res = score("99m123p456p789s345s", "9m", rules=SANMA, seat_wind="S", kita=3, from_who=1)
    assert not res.is_win and res.status == "no_yaku"


@pytest.mark.parametrize("dealer,tsumo,honba,pays", [
    # non-dealer mangan tsumo: dealer 4000, the other 2000 (no absent 2000); +100 per honba
    (False, True, 0, {1: 2000, 2: 4000}),
    (False, True, 2, {1: 2200, 2: 4200}),
    # dealer mangan tsumo: 4000 from each of the two
    (True, True, 1, {1: 4100, 2: 4100}),
    # ron: 8000 / 12000, +200 per honba from the discarder
    (False, False, 3, {2: 8600}),
    (True, False, 1, {2: 12200}),
])
def test_payments(dealer, tsumo, honba, pays):
    res = score("99m123p456p789s555z", "5z", tsumo=tsumo, riichi=True,
                dora="4p4p" if tsumo else "4p4p4p",
                seat_wind="E" if dealer else "S", honba=honba, riichi_sticks=1, rules=SANMA)
    assert res.limit_name == "mangan"
    expect = [0, 0, 0, 0]
    for seat, p in pays.items():
        expect[seat] = p
    assert list(res.payments) == expect
    assert res.deltas == (sum(pays.values()) + 1000, -expect[1], -expect[2], 0)
    assert res.points == sum(pays.values()) - 100 * honba * (len(pays) if tsumo else 2)
    assert res.players == 3


def test_absolute_seats_wrap_mod_three():
    res = score("99m123p456p789s555z", "5z", tsumo=True, riichi=True, dora="4p4p", winner=2,
                dealer=0, rules=SANMA)
    # winner 2 is West; the dealer (seat 0) pays 4000, seat 1 pays 2000
    assert res.payments == (4000, 2000, 0, 0)
    assert res.deltas == (-4000, -2000, 6000, 0)
    ron = score("99m123p456p789s555z", "5z", riichi=True, dora="4p4p4p", winner=0, dealer=0,
                from_who=2, rules=SANMA)
    assert ron.deltas == (12000, 0, -12000, 0)


@pytest.mark.parametrize("hand,win,kw,reason,named", [
    ("22m123p456p789s555z", "5z", {}, "not_in_sanma", "2m"),
    ("99m123p456p555z pon:777s<1", "5z", {"dora": "5m"}, "not_in_sanma", "5m"),
    ("99m123p555z chi:789s pon:777z<1", "5z", {}, "not_in_sanma", "chi"),
    ("99m123p456p789s555z", "5z", {"seat_wind": "N"}, "bad_seats", "East, South, West"),
    (Hand.parse("99m123p456p789s555z"), 31, {"seat_wind": "N"}, "bad_seats", "E, S, W"),
    ("99m123p456p789s555z", "5z", {"from_who": 3}, "bad_seats", "0-2"),
    ("99m123p456p789s555z", "5z", {"winner": 1, "from_who": 3}, "bad_seats", "0-2"),
    ("99m123p456p789s555z", "5z", {"winner": 3}, "bad_seats", "3"),
    ("99m123p456p789s555z", "5z", {"winner": 0, "from_who": 0}, "bad_seats", "discarder"),
    ("99m123p456p789s555z", "5z", {"kita": 5}, "bad_kita", "kita"),
    ("99m123p456p789s555z", "5z", {"kita": -1}, "bad_kita", "kita"),
])
def test_malformed_sanma_input(hand, win, kw, reason, named):
    with pytest.raises(InvalidHandError) as e:
        score(hand, win, rules=SANMA, **kw)
    assert e.value.reason == reason and named in str(e.value)


def test_kita_needs_sanma_rules():
    with pytest.raises(InvalidHandError) as e:
        score("99m123p456p789s555z", "5z", kita=1)
    assert e.value.reason == "bad_kita" and "tenhou_sanma" in str(e.value)


def test_preset_options():
    assert SANMA.players == 3 and SANMA.nukidora and SANMA.red_fives == 2
    assert (SANMA.start_points, SANMA.target_points, SANMA.oka) == (35000, 40000, 15000)
    assert SANMA.uma == (20000, 0, -20000, 0)
    assert repr(SANMA) == "RuleSet.preset('tenhou_sanma')"
    with pytest.raises(InvalidRuleError):
        RuleSet.preset("tenhou").replace(nukidora=True)
    with pytest.raises(InvalidRuleError):
        SANMA.replace(red_fives=3)
    with pytest.raises(InvalidRuleError):
        SANMA.replace(players=5)
    assert SANMA.replace(nukidora=False).scoring_params[12] == 0


def test_four_player_scoring_is_unchanged_by_the_new_options():
    four = RuleSet.preset("tenhou")
    assert four.players == 4 and not four.nukidora
    res = score("99m123p456p789s555z", "5z", tsumo=True, riichi=True, dora="4p4p",
                seat_wind="S", honba=1)
    assert res.payments == (0, 2100, 2100, 4100) and res.players == 4   # kamicha deals


def test_batch_pack_with_sanma_rules_and_errors_per_row():
    rows = [{"hand": "99m123p456p789s555z", "win_tile": "5z", "tsumo": True, "riichi": True,
             "dora": "4p4p", "winner": 2, "dealer": 0, "kita": k} for k in range(3)]
    arrays = pack(rows, rules="tenhou_sanma")
    res = batch_score(**arrays, rules="tenhou_sanma")
    assert res.dora_ura_aka[:, 0].tolist() == [2, 3, 4]
    assert res.deltas[0].tolist() == [6000, -4000, -2000, 0]     # relative: 1 = seat 0 (dealer)
    bad = dict(arrays)
    bad["counts"] = bad["counts"].copy()
    bad["counts"][1, 8] -= 2
    bad["counts"][1, 1] += 2                                       # 99m -> 22m
    res = batch_score(**bad, rules="tenhou_sanma")
    assert res.status.tolist() == [0, -22, 0]
    assert [(e.index, e.reason) for e in res.errors()] == [(1, "not_in_sanma")]
    with pytest.raises(InvalidHandError):
        batch_score(**{**arrays, "kita": np.zeros(2, np.uint8)}, rules="tenhou_sanma")


def test_batch_agrees_with_single_on_random_sanma_wins():
    hands = sanma_random_wins(600, 99)
    res = batch_score(**pack_prepared_sanma(hands), rules=SANMA)
    for i, h in enumerate(hands):
        one = score_counts(**h["kernel"], rules=SANMA)
        assert int(res.status[i]) == one.status_code
        assert int(res.points[i]) == one.points and res.deltas[i].tolist() == list(one.deltas)


# ---- differential test against the mahjong package's three-player mode -----------------

def _oracle(h):
    from mahjong.hand_calculating.hand import HandCalculator
    from mahjong.hand_calculating.hand_config import HandConfig, HandConstants, OptionalRules
    from mahjong.meld import Meld as OMeld

    k = h["kernel"]
    tiles = list(h["closed"])
    melds = []
    for kind, ids in h["melds"]:
        tiles += ids
        melds.append(OMeld(meld_type=OMeld.PON if kind == 1 else OMeld.KAN, tiles=sorted(ids),
                           opened=kind != 3))
    options = OptionalRules(has_open_tanyao=True, has_aka_dora=True, has_double_yakuman=False,
                            kazoe_limit=HandConstants.KAZOE_LIMITED, kiriage=False,
                            fu_for_open_pinfu=True, fu_for_pinfu_tsumo=False,
                            renhou_as_yakuman=False, is_three_player=True)
    f = k["flags"]
    config = HandConfig(is_tsumo=bool(f & 1), is_riichi=bool(f & 2), is_ippatsu=bool(f & 8),
                        is_rinshan=bool(f & 16), is_haitei=bool(f & 64),
                        is_houtei=bool(f & 128), player_wind=27 + k["seat_wind"],
                        round_wind=27 + k["round_wind"], kyoutaku_number=k["riichi_sticks"],
                        tsumi_number=k["honba"], num_nuki_dora=k["kita"], options=options)
    return HandCalculator.estimate_hand_value(sorted(tiles), h["win"], melds,
                                              dora_indicators=h["dora"], config=config,
                                              ura_dora_indicators=h["ura"] or None)


def test_differential_against_mahjong_three_player():
    pytest.importorskip("mahjong")
    from .oracle import YAKU_ID

    hands = sanma_random_wins(3000, 20260301)
    bad = []
    n_kita = n_wins = 0
    for i, h in enumerate(hands):
        o = _oracle(h)
        r = score_counts(**h["kernel"], rules=SANMA)
        if o.error:
            if r.is_win:
                bad.append((i, f"oracle: {o.error}, ours: {r}"))
            continue
        if not r.is_win:
            bad.append((i, f"ours {r.status}, oracle {o.han} han {o.fu} fu"))
            continue
        n_wins += 1
        n_kita += h["kernel"]["kita"] > 0
        theirs = {YAKU_ID[type(y).__name__]: y.han_open if (o.is_open_hand and y.han_open)
                  else y.han_closed for y in o.yaku}
        ours = {y.id: y.han for y in r.yaku if not (y.id == 53 and y.han == 0)}
        han = 13 * r.yakuman if r.yakuman and not r.is_kazoe else r.han
        if ours != theirs or han != o.han or r.fu != o.fu or r.deltas[0] != o.cost["total"]:
            bad.append((i, (f"ours {sorted(ours.items())} {han}/{r.fu} {r.deltas[0]}; "
                            f"theirs {sorted(theirs.items())} {o.han}/{o.fu} "
                            f"{o.cost['total']}")))
    assert not bad, bad[:5]
    assert n_wins > 1500 and n_kita > 500


# ---- the command line ---------------------------------------------------------------------

def test_score_cli_with_sanma_rules():
    from click.testing import CliRunner

    from mjcore.cli import main

    runner = CliRunner()
    args = ["score", "11p345p678s999s111z", "--win", "1z", "--tsumo", "--riichi", "--dora", "1m",
            "--seat", "S", "--honba", "1"]
    r = runner.invoke(main, [*args, "--kita", "2", "--rules", "tenhou_sanma"])
    assert r.exit_code == 0, r.output
    assert "mangan: 6000 points" in r.output
    assert "shimocha pays 2100, kamicha pays 4100" in r.output and "toimen" not in r.output
    r = runner.invoke(main, [*args, "--kita", "2", "--rules", "tenhou_sanma", "--json"])
    data = json.loads(r.output)
    assert data["dora"] == 2 and data["deltas"] == [6200, -2100, -4100, 0]
    r = runner.invoke(main, [*args, "--kita", "2"])           # four-player rules: refused
    assert r.exit_code == 1 and "bad_kita" in r.output
    r = runner.invoke(main, ["score", "22m345p678s999s111z", "--win", "1z", "--rules",
                             "tenhou_sanma"])
    assert r.exit_code == 1 and "(2m)" in r.output and "not_in_sanma" in r.output


# ---- robustness ---------------------------------------------------------------------------

_FLAGS = ("tsumo", "riichi", "double_riichi", "ippatsu", "rinshan", "chankan", "haitei",
          "houtei", "tenhou", "chiihou", "renhou")


def test_any_sanma_situation_gives_a_result_or_invalid_hand_error():
    """Random flags, seats (some out of range), kita and indicators (some 2m-8m) on random
    sanma wins: every call scores or raises InvalidHandError, and a score is zero-sum but for
    the sticks, with nothing paid by the empty fourth seat."""
    import random

    rng = random.Random(11)
    n_scored = 0
    for h in sanma_random_wins(400, 5):
        k = h["kernel"]
        hand = Hand.from_136(h["closed"]) if not h["melds"] else None
        if hand is None:
            continue
        kw: dict[str, Any] = {name: rng.random() < 0.08 for name in _FLAGS}
        kw.update(seat_wind=rng.choice(["E", "S", "W", "N", 0, 2, 3]),
                  round_wind=rng.choice(["E", "S", "W"]),
                  winner=rng.choice([None, 0, 1, 2, 3]),
                  from_who=rng.choice([None, 0, 1, 2, 3]),
                  pao_seat=rng.choice([None, None, 1, 2]),
                  kita=rng.choice([0, k["kita"], 4, 5]),
                  dora=rng.choice([k["dora"], [0], [3], [29]]),
                  honba=rng.randrange(5), riichi_sticks=rng.randrange(3))
        try:
            res = score(hand, k["win_tile"], rules=SANMA, **kw)
        except InvalidHandError:
            continue
        assert res.is_win or res.status == "no_yaku"
        if res.is_win:
            n_scored += 1
            assert sum(res.deltas) == 1000 * kw["riichi_sticks"] and res.deltas[3] == 0
            assert res.points > 0
    assert n_scored > 20


def test_batch_rows_with_bad_sanma_values_get_a_status():
    hands = sanma_random_wins(200, 6)
    arrays = pack_prepared_sanma(hands)
    rng = np.random.default_rng(3)
    arrays["seat_wind"] = rng.integers(0, 5, len(hands)).astype(np.uint8)
    arrays["from_rel"] = rng.integers(0, 4, len(hands)).astype(np.uint8)
    arrays["kita"] = rng.choice([0, 1, 4, 255], len(hands)).astype(np.uint8)
    res = batch_score(**arrays, rules=SANMA)
    ok = res.status >= 0
    assert ok.any() and (~ok).any()
    assert set(res.status[~ok].tolist()) <= {-20, -21, -22}
    assert (res.deltas[:, 3] == 0).all()
