"""The referee's legal actions on hand-built positions: furiten, kuikae, claim rules, riichi
conditions, kans, and the endings."""
from __future__ import annotations

import pytest

from mjcore.engine.turns import EngineError, Start
from mjcore.melds import MeldKind
from mjcore.riichi.actions import (
    ANKAN,
    CHI,
    DAIMINKAN,
    DISCARD,
    KYUUSHU,
    PASS,
    PON,
    RIICHI,
    RON,
    TENPAI,
    TSUMO,
    Action,
)
from mjcore.riichi.round import CalledSet, RiichiRound, RoundResult
from mjcore.riichi.rules import RuleSet
from mjcore.riichi.wall import Wall

TENHOU = RuleSet.preset("tenhou")


def parse(text: str) -> list[tuple[int, bool]]:
    """mpsz text -> (kind, red) pairs."""
    out, digits = [], []
    for ch in text:
        if ch.isdigit():
            digits.append(int(ch))
        else:
            base = "mpsz".index(ch) * 9
            out += [(base + (4 if d == 0 else d - 1), d == 0) for d in digits]
            digits = []
    return out


def kinds(text: str) -> list[int]:
    return [k for k, _ in parse(text)]


class Pool:
    def __init__(self) -> None:
        self.free = {k: [k * 4 + c for c in (1, 2, 3, 0)] for k in range(34)}  # red last

    def take(self, text: str) -> list[int]:
        out = []
        for k, red in parse(text):
            t = k * 4 if red else self.free[k][0]
            self.free[k].remove(t)
            out.append(t)
        return out


def make_round(hands: dict[int, str], draws: str = "", rules: RuleSet = TENHOU,
               scores=None, dealer: int = 0) -> RiichiRound:
    pool = Pool()
    tehais = [pool.take(hands[s]) if s in hands else [] for s in range(4)]
    drawn = pool.take(draws) if draws else []
    rest = [t for k in range(34) for t in pool.free[k]]
    for s in range(4):
        while len(tehais[s]) < 13:
            tehais[s].append(rest.pop())
    wall = Wall.from_record(dealer, tehais, drawn, [], [rest.pop(0)], [])
    return RiichiRound(rules, wall, round_wind=0, kyoku=1, dealer=dealer, honba=0, sticks=0,
                       scores=list(scores or [25000] * 4), events=[])


def types(acts):
    return [a.type for a in acts]


def tile(k: str) -> int:
    return kinds(k)[0] * 4 + 3          # copy 3: never a red five, never dealt by Pool first


def test_ron_offered_and_permanent_furiten():
    rnd = make_round({1: "23m456p789p11s567s"})
    acts = rnd.claim_actions(1, 0, tile("4m"))
    assert RON in types(acts) and acts[-1] == (PASS)
    rnd.disc_kinds[1] |= 1 << kinds("1m")[0]        # 1m is also a winning tile
    assert RON not in types(rnd.claim_actions(1, 0, tile("4m")))


def test_no_yaku_no_ron_but_tsumo_closed():
    rnd = make_round({1: "23m456p789p11s567s"})
    # an open hand without yaku: move 567s into a chi meld
    for t in [x for x in rnd.hands[1] if 22 <= x >> 2 <= 24][:3]:
        rnd._remove(1, t)
    rnd.melds[1].append(CalledSet(MeldKind.CHI, (88 + 1, 92 + 1, 96 + 1), 89, 0))
    rnd.n_open[1] = 1
    rnd._update_waits(1)
    assert RON not in types(rnd.claim_actions(1, 0, tile("4m")))


def free_tile(rnd: RiichiRound, text: str) -> int:
    """A copy of the tile still in the live wall (so moving it keeps the census)."""
    k = kinds(text)[0]
    live = rnd.wall.live[rnd.wall.pos:]
    t = next(x for x in live if x >> 2 == k)
    return t


def test_temporary_furiten_after_passing():
    rnd = make_round({1: "23m456p789p11s567s"})
    rnd.set_decider(lambda seat, acts: PASS if seat == 1 else acts[0])
    four = free_tile(rnd, "4m")
    rnd._add(0, four)
    rnd.discard(0, Action(DISCARD, four), -1)
    assert rnd.furiten_temp[1]
    assert RON not in types(rnd.claim_actions(1, 2, free_tile(rnd, "1m")))
    rnd.furiten_temp[1] = False
    assert RON in types(rnd.claim_actions(1, 2, free_tile(rnd, "1m")))


def test_chi_only_from_the_left_and_kuikae():
    rnd = make_round({1: "45m123p456p789p1z", 2: "45m123p456p789p1z"})
    assert CHI in types(rnd.claim_actions(1, 0, tile("3m")))
    assert CHI not in types(rnd.claim_actions(2, 0, tile("3m")))
    three = free_tile(rnd, "3m")
    rnd.rivers[0].append(three)
    chi = next(a for a in rnd.claim_actions(1, 0, three) if a.type == CHI)
    assert rnd._apply_call(1, 0, chi) == (1, Start.CALLED)
    forbidden = [k for k in range(34) if (rnd.forbidden >> k) & 1]
    assert forbidden == kinds("3m6m")            # the called tile and the other side
    offered = {a.tile >> 2 for a in rnd.turn_actions(1, -1, Start.CALLED)}
    assert kinds("3m")[0] not in offered and offered


def test_chi_refused_when_only_kuikae_tiles_would_remain():
    rnd = make_round({1: "4566m123p456p789p"})
    for t in [x for x in rnd.hands[1] if x >> 2 >= 9]:
        rnd._remove(1, t)
    rnd.melds[1] = [CalledSet(MeldKind.PON, (t, t + 1, t + 2), t, 3) for t in (100, 104, 108)]
    rnd.n_open[1] = 3
    acts = rnd.claim_actions(1, 0, tile("3m"))
    assert CHI not in types(acts)                 # 6m 6m would be left: both forbidden
    assert CHI in types(make_round({1: "4566m123p456p789p"}).claim_actions(1, 0, tile("3m")))


def test_pon_kan_and_red_fives():
    rnd = make_round({2: "550m123p456p789p1z"})
    acts = rnd.claim_actions(2, 0, tile("5m"))
    pons = [a for a in acts if a.type == PON]
    assert len(pons) == 2                 # with and without the red five
    assert DAIMINKAN in types(acts)


def test_no_calls_on_the_last_tile():
    rnd = make_round({1: "45m55m123p456p789p"})
    rnd.wall.left = 0
    assert types(rnd.claim_actions(1, 0, tile("5m"))) == [PASS.type]
    assert types(rnd.claim_actions(1, 0, tile("3m"))) == [RON, PASS.type]
    assert PON not in types(rnd.claim_actions(1, 0, tile("5m")))


def test_riichi_conditions():
    rnd = make_round({0: "23m456p789p11s567s"}, draws="7z")
    t = rnd.wall.draw()
    rnd._add(0, t)
    acts = rnd.turn_actions(0, t)
    assert [a.tile >> 2 for a in acts if a.type == RIICHI] == [kinds("7z")[0]]
    rnd.scores[0] = 900
    assert RIICHI not in types(rnd.turn_actions(0, t))
    rnd.scores[0] = 25000
    rnd.wall.left = 3
    assert RIICHI not in types(rnd.turn_actions(0, t))


def test_tsumo_ankan_and_kyuushu():
    rnd = make_round({0: "19m19p19s123z2345m"}, draws="5p")
    t = rnd.wall.draw()
    rnd._add(0, t)
    acts = rnd.turn_actions(0, t)
    assert KYUUSHU in types(acts) and TSUMO not in types(acts)
    rnd.has_discarded[0] = True
    assert KYUUSHU not in types(rnd.turn_actions(0, t))
    rnd = make_round({0: "19m19p19s1234567z"}, draws="5z")       # kokushi
    t = rnd.wall.draw()
    rnd._add(0, t)
    assert {TSUMO, KYUUSHU} <= set(types(rnd.turn_actions(0, t)))
    rnd = make_round({0: "1112345678999m"}, draws="1m")
    t = rnd.wall.draw()
    rnd._add(0, t)
    acts = rnd.turn_actions(0, t)
    assert TSUMO in types(acts) and ANKAN in types(acts)


def test_riichi_ankan_must_keep_the_waits():
    rnd = make_round({0: "111m234p567p888s9s"}, draws="1m")
    rnd.riichi[0] = True
    t = rnd.wall.draw()
    rnd._add(0, t)
    assert ANKAN in types(rnd.turn_actions(0, t))
    rnd = make_round({0: "111m23m567p888s99s"}, draws="1m")     # 1m also makes 123m
    rnd.riichi[0] = True
    t = rnd.wall.draw()
    rnd._add(0, t)
    assert ANKAN not in types(rnd.turn_actions(0, t))


def test_wait_on_own_fourth_tile_is_not_tenpai():
    rnd = make_round({0: "1m234p567p888s99s1z"})
    rnd._remove(0, next(t for t in rnd.hands[0] if t >> 2 == 27))
    for t in [x for x in rnd.hands[0] if x >> 2 == 26][:2]:
        rnd._remove(0, t)
    rnd.melds[0] = [CalledSet(MeldKind.PON, (0 * 4 + 1, 0 * 4 + 2, 0 * 4 + 3), 1, 3)]
    rnd.hands[0].remove(next(t for t in rnd.hands[0] if t >> 2 == 0))
    rnd.counts[0][0] -= 1
    rnd._add(0, 0)                         # the fourth 1m: hand 1m 234p 567p 888s + pon 111m
    rnd._update_waits(0)
    assert (rnd.waits[0] >> 0) & 1         # the shape waits on 1m...
    assert rnd.tenpai_mask(0) == 0         # ...which the hand holds four times


def test_exhaustive_draw_payments_and_nagashi():
    rnd = make_round({0: "23m456p789p11s567s", 1: "23m456p789p11s567s"})
    rnd.wall.left = 0
    rnd.set_decider(lambda s, a: a[0])
    res = rnd._exhaustive()
    assert res.kind == "exhaustive" and res.deltas == [1500, 1500, -1500, -1500]
    assert res.renchan
    rnd = make_round({})
    rnd.rivers[2] = [tile("1z"), tile("9m"), tile("5z")]
    rnd.wall.left = 0
    res = rnd._exhaustive()
    assert res.kind == "nagashimangan" and res.deltas == [-4000, -2000, 8000, -2000]


def test_triple_ron_is_abortive_and_double_ron_pays_both():
    hands = {1: "23m456p789p11s567s", 2: "23m456p789p22s567s", 3: "23m456p789p33s567s"}
    rnd = make_round(hands)
    rnd.set_decider(lambda s, acts: acts[0])
    res = rnd._resolve_rons([1, 2, 3], 0, tile("4m"))
    assert res.kind == "sanchaho" and res.deltas == [0, 0, 0, 0]
    rnd = make_round(hands)
    rnd.honba = 1
    rnd.sticks = 1
    res = rnd._resolve_rons([1, 2], 0, tile("4m"))
    assert res.winners == (1, 2)
    assert res.deltas[1] > res.deltas[2] > 0          # honba and stick only to the nearest
    assert sum(res.deltas) == 1000


def test_several_rons_on_a_discard_by_multiple_ron():
    hands = {1: "23m456p789p11s567s", 2: "23m456p789p22s567s"}
    for preset, winners in (("tenhou", (1, 2)), ("wrc", (1,))):     # wrc: atamahane
        rnd = make_round(hands, rules=RuleSet.preset(preset))
        rnd.set_decider(lambda s, acts: acts[0])                    # RON sorts before PASS
        four = free_tile(rnd, "4m")
        rnd._add(0, four)
        res = rnd.discard(0, Action(DISCARD, four), -1)
        assert isinstance(res, RoundResult), (preset, res)
        assert res.winners == winners, preset


def test_a_choice_not_offered_names_the_seat_and_the_event():
    rnd = make_round({1: "23m456p789p11s567s"})
    rnd.set_decider(lambda s, acts: Action(CHI, acts[0].tile, (0, 4)))
    four = free_tile(rnd, "4m")
    rnd._add(0, four)
    with pytest.raises(EngineError, match=r"seat 1 chose chi 4m \+1m,2m in answer to event "
                                          r"type=dahai, actor=0, pai=\d+.*not one of the legal"):
        rnd.discard(0, Action(DISCARD, four), -1)


def test_optional_tenpai_declaration():
    rules = RuleSet.preset("ema")
    assert rules.tenpai_declaration == "optional"
    rnd = make_round({0: "23m456p789p11s567s", 1: "23m456p789p11s567s"}, rules=rules)
    rnd.wall.left = 0
    asked = []

    def decide(seat, acts):
        asked.append((seat, [a.type for a in acts]))
        return acts[-1] if seat == 1 else acts[0]       # seat 1 hides its hand

    rnd.set_decider(decide)
    res = rnd._exhaustive()
    assert asked == [(0, [TENPAI, PASS.type]), (1, [TENPAI, PASS.type])]
    assert res.deltas == [3000, -1000, -1000, -1000]


def test_kokushi_may_rob_a_closed_kan_only_by_option():
    hands = {0: "1111m23456789p1s", 1: "9m19p19s1234567z"}      # seat 1: kokushi on 1m
    for allowed in (False, True):
        rules = TENHOU.replace(kokushi_chankan_ankan=allowed)
        rnd = make_round(hands, draws="2s", rules=rules)
        rnd.set_decider(lambda seat, acts: acts[0])
        t = rnd.wall.draw()
        rnd._add(0, t)
        kan = next(a for a in rnd.turn_actions(0, t) if a.type == ANKAN)
        res = rnd.kong(0, kan)
        if allowed:
            assert res is not None and res.winners == (1,)
        else:
            assert res is None and rnd.melds[0][0].kind is MeldKind.KAN_CLOSED


def test_ryanhan_shibari_needs_two_yaku_han_from_five_honba():
    shibari = TENHOU.replace(ryanhan_shibari=True)
    hand = {1: "23m456p789p11s567s"}                 # ron on 4m: pinfu only (1 han)
    for honba, rules, offered in ((5, shibari, False), (4, shibari, True), (5, TENHOU, True)):
        rnd = make_round(hand, rules=rules)
        rnd.honba = honba
        assert (RON in types(rnd.claim_actions(1, 0, tile("4m")))) is offered, (honba, rules)
    rnd = make_round(hand, rules=shibari)
    rnd.honba = 5
    rnd.riichi[1] = True                             # riichi + pinfu: 2 han
    assert RON in types(rnd.claim_actions(1, 0, tile("4m")))
    for honba, offered in ((5, False), (4, True)):
        rnd = make_round({0: "13m456p789p11s567s"}, draws="2m", rules=shibari)
        rnd.honba = honba                            # kanchan tsumo: menzen tsumo only
        rnd.has_discarded[0] = True
        t = rnd.wall.draw()
        rnd._add(0, t)
        assert (TSUMO in types(rnd.turn_actions(0, t))) is offered, honba
