from __future__ import annotations

import sys
import time
from collections import Counter

import pytest

from mjcore.classical.engine.agents import AgentError, EfficiencyAgent, ProcessAgent, make_agent
from mjcore.classical.engine.game import pass_deal, play_game
from mjcore.classical.engine.referee import EngineError
from mjcore.classical.rules import ClassicalRules
from mjcore.errors import InvalidRuleError


def test_same_seed_same_game_and_zero_sum() -> None:
    def game(seed: int) -> list:
        r = play_game([EfficiencyAgent() for _ in range(4)], seed=seed)
        assert sum(r.scores) == 4 * 2000
        for rec in r.hands:
            assert sum(rec.net) == 0
        return r.events

    a, b = game(3), game(3)
    assert a == b
    assert game(4) != a
    kinds = Counter(ev["type"] for ev in a)
    assert kinds["start_hand"] >= 16 and kinds["end_game"] == 1


def test_dealer_rotation_and_four_rounds() -> None:
    r = play_game([make_agent("efficiency"), make_agent("random", 1), make_agent("random", 2),
                   make_agent("efficiency")], seed=8, rules="bradfield")
    assert sum(r.scores) == 0
    prev = None
    for rec in r.hands:
        if prev is not None:
            east_won = any(w.seat == 0 for w in prev.result.wins)
            if east_won or prev.result.washout:
                assert rec.east == prev.east
            else:
                assert rec.east == (prev.east + 1) % 4
        prev = rec
    assert [rec.prevailing for rec in r.hands] == sorted(rec.prevailing for rec in r.hands)
    assert r.hands[-1].prevailing == 3 and r.hands[0].prevailing == 0
    first = r.hands[0].east
    pairs = zip(r.hands, r.hands[1:], strict=False)
    assert sum(1 for a, b in pairs if b.east == first != a.east) == 3


def test_agreed_number_of_hands() -> None:
    rules = ClassicalRules.preset("classical").replace(agreed_hands=3)
    r = play_game([EfficiencyAgent() for _ in range(4)], seed=1, rules=rules)
    assert len(r.hands) == 3


def test_an_illegal_choice_names_the_seat() -> None:
    class Cheat:
        def choose(self, view, actions):
            return actions[0]._replace(tile=(actions[0].tile + 1) % 34)

    with pytest.raises(EngineError, match=r"hand 0 after event \w+.*: seat \d chose .* not "
                                          r"one of the legal actions"):
        play_game([Cheat(), EfficiencyAgent(), EfficiencyAgent(), EfficiencyAgent()], seed=2)


AGENT = r"""
import json, sys, time
mode = sys.argv[1]
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] != "request":
        continue
    if mode == "garbage":
        print("hello", flush=True)
    elif mode == "die":
        sys.exit(3)
    elif mode == "flood":
        sys.stdout.write("x" * (2 << 20))
        sys.stdout.flush()
        time.sleep(30)
    elif mode == "trickle":
        while True:  # never a whole line: only an overall deadline ends this
            sys.stdout.write(" ")
            sys.stdout.flush()
            time.sleep(0.2)
    else:
        acts = msg["actions"]
        pick = next((i for i, a in enumerate(acts) if a["type"] == "mahjong"), len(acts) - 1)
        print(json.dumps({"index": pick}), flush=True)
"""


def _agent(tmp_path, mode: str, timeout: float = 20) -> ProcessAgent:
    script = tmp_path / "agent.py"
    script.write_text(AGENT)
    return ProcessAgent(f"{sys.executable} {script} {mode}", timeout=timeout)


def test_a_json_lines_agent_plays_a_game(tmp_path) -> None:
    process_agent = _agent(tmp_path, "ok")
    agents = [process_agent, EfficiencyAgent(), EfficiencyAgent(), EfficiencyAgent()]
    try:
        r = play_game(agents, seed=5, rules=ClassicalRules.preset("classical").replace(
            agreed_hands=2))
    finally:
        process_agent.close()
    assert len(r.hands) == 2


@pytest.mark.parametrize("mode,message", [
    ("garbage", r"answered 'hello' to a request after event \w+"),
    ("die", r"died \(exit code 3\) after event"),
    ("flood", r"answered a line longer than 1048576 bytes after event"),
    ("trickle", r"did not answer within 3 s after event"),
])
def test_a_bad_agent_gets_a_clear_error(tmp_path, mode: str, message: str) -> None:
    process_agent = _agent(tmp_path, mode, timeout=3 if mode == "trickle" else 20)
    agents = [process_agent, EfficiencyAgent(), EfficiencyAgent(), EfficiencyAgent()]
    try:
        with pytest.raises(AgentError, match=message) as info:
            play_game(agents, seed=5)
        assert "seat " in str(info.value)
    finally:
        process_agent.close()


def test_an_agent_that_stops_reading_its_input_is_reported_within_the_timeout() -> None:
    agent = ProcessAgent(f"{sys.executable} -c 'import time; time.sleep(60)'", timeout=0.5)
    try:
        t0 = time.monotonic()
        with pytest.raises(AgentError, match=r"did not take a message within 0.5 s"):
            for _ in range(1000):          # far more than a pipe buffer holds
                agent.observe({"type": "seat", "seat": 0, "pad": "x" * 4096})
        assert time.monotonic() - t0 < 10
    finally:
        agent.close()


def test_minimum_doubles_refuses_a_poor_mahjong() -> None:
    plain = play_game([EfficiencyAgent() for _ in range(4)], seed=1)
    rules = ClassicalRules.preset("classical").replace(minimum_doubles=1)
    strict = play_game([EfficiencyAgent() for _ in range(4)], seed=1, rules=rules)

    def doubles(game) -> list[int]:
        out = []
        for h in game.hands:
            for w in h.result.wins:
                p = h.score.players[w.seat]
                out.append(99 if p.limit_hand else p.doubles)
        return out

    assert min(doubles(plain)) == 0
    assert min(doubles(strict)) >= 1


def test_minimum_doubles_judges_robbing_a_kong_with_the_kong_undone() -> None:
    """Seed 0's second hand ends with an added kong robbed. Whether the robbing Mah-Jong scores
    enough is judged on the hand as it will be (the kong a pung again); judged with the kong
    still standing, the robbed tile was a fifth copy and the scorer refused the deal."""
    rules = ClassicalRules.preset("classical").replace(minimum_doubles=1, agreed_hands=2)
    r = play_game([make_agent("random", p) for p in range(4)], seed=0, rules=rules)
    robbed = [w for w in r.hands[1].result.wins if w.robbed_kong]
    assert robbed and r.hands[1].score.players[robbed[0].seat].doubles >= 1


def test_a_game_without_bonus_tiles() -> None:
    from mjcore.classical.engine.invariants import check_game

    rules = ClassicalRules.preset("bradfield").replace(bonus_tiles=False, agreed_hands=4)
    checked, r = check_game(3, ["efficiency", "random", "efficiency", "efficiency"], rules)
    assert checked > 100 and len(r.hands) == 4
    assert not any(b for h in r.hands for b in h.result.bonus)


def test_fishing_call_must_come_before_mahjong() -> None:
    rules = ClassicalRules.preset("classical").replace(fishing_call=True, agreed_hands=6)
    r = play_game([EfficiencyAgent() for _ in range(4)], seed=5, rules=rules)
    announced: set[int] = set()
    wins = 0
    for ev in r.events:
        if ev["type"] == "start_hand":
            announced = set()
        elif ev["type"] == "discard" and (ev.get("fishing") or ev.get("original_call")):
            announced.add(ev["seat"])
        elif ev["type"] == "mahjong":
            wins += 1
            assert ev["seat"] in announced
    assert wins >= 5


def test_letting_off_a_cannon() -> None:
    from mjcore.classical.engine.game import let_off_cannon
    from mjcore.classical.engine.handcalc import USE_PAIR, USE_PUNG
    from mjcore.classical.engine.referee import CalledSet, HandResult, WinInfo
    from mjcore.melds import MeldKind

    chow, pung, concealed_kong = MeldKind.CHI, MeldKind.PON, MeldKind.KAN_CLOSED

    def result(concealed: dict[int, int], melds: list[CalledSet]) -> HandResult:
        c = [0] * 34
        for k, n in concealed.items():
            c[k] = n
        return HandResult((), (tuple(c), (0,) * 34, (0,) * 34, (0,) * 34),
                          (tuple(melds), (), (), ()), ((), (), (), ()), ((), (), (), ()))

    def win(tile: int, use: int, discarder: int = 2) -> WinInfo:
        return WinInfo(0, tile, discarder, use, False, 0, False, False, False, False, False,
                       False)

    dragons = [CalledSet(pung, 31, claimed_from=1), CalledSet(pung, 32, claimed_from=3)]
    r = result({33: 3, 0: 3, 5: 2}, dragons)           # 7z7z + 7z claimed: the third dragon
    assert let_off_cannon(r, win(33, USE_PUNG)) == 2
    assert let_off_cannon(r, win(5, USE_PAIR)) is None
    assert let_off_cannon(r, win(33, USE_PUNG, discarder=-1)) is None
    winds = [CalledSet(pung, 27), CalledSet(pung, 28), CalledSet(concealed_kong, 29)]
    assert let_off_cannon(result({30: 3, 4: 2}, winds), win(30, USE_PUNG)) == 2
    bamboo = [CalledSet(chow, 18), CalledSet(pung, 22), CalledSet(chow, 23)]
    one_suit = result({26: 3, 27: 2}, bamboo)             # bamboo and an honour pair
    assert let_off_cannon(one_suit, win(26, USE_PUNG)) == 2
    mixed = result({8: 3, 27: 2}, bamboo)
    assert let_off_cannon(mixed, win(8, USE_PUNG)) is None
    majors = [CalledSet(pung, 0), CalledSet(pung, 8), CalledSet(pung, 27)]
    assert let_off_cannon(result({9: 3, 33: 1}, majors), win(33, USE_PAIR)) == 2


def test_package_example() -> None:
    import doctest

    from mjcore.classical import engine

    assert doctest.testmod(engine).failed == 0


def test_every_option_set_plays_under_the_invariants() -> None:
    """A short game under each combination of the play options (every third, seeded)."""
    import itertools

    from mjcore.classical.engine.invariants import check_game

    base = ClassicalRules.preset("classical")
    combos = itertools.product(
        ["seed003", "seed001"], ["14_unreplenished", "14_replenished", "16_unreplenished", "none"],
        ["loose", "live_wall"], ["first", "last", "all"], ["never", "thirteen_wonders"],
        [False, True], [False, True])
    several = 0
    for i, (wp, dw, br, mm, rc, sp, wd) in enumerate(combos):
        if i % 3:
            continue
        rules = base.replace(wall_profile=wp, dead_wall=dw, bonus_replacement=br,
                             multiple_mahjong=mm, rob_concealed_kong=rc, seven_pairs=sp,
                             washout_passes_deal=wd, agreed_hands=3)
        _, r = check_game(i, ["random", "efficiency", "random", "efficiency"], rules)
        several += sum(1 for h in r.hands if len(h.result.wins) > 1)
        for h in r.hands:
            if len(h.result.wins) > 1:
                discarder = h.result.wins[0].discarder
                assert h.net[discarder] < 0 and sum(h.net) == 0
                assert all(h.net[w.seat] > 0 for w in h.result.wins)
    assert several >= 1


def test_easts_thirteenth_consecutive_win_keeps_or_passes_the_deal_by_option() -> None:
    keep = ClassicalRules.preset("classical")
    mj_server = ClassicalRules.preset("bradfield")
    assert not keep.thirteenth_win_passes_deal and mj_server.thirteenth_win_passes_deal
    # (passes, East's run after the hand) from East's run before it
    for rules in (keep, mj_server):
        assert pass_deal(rules, True, True, 11) == (False, 12)       # the 12th win: he stays
        assert pass_deal(rules, False, True, 12) == (True, 0)        # another player wins
        assert pass_deal(rules, False, False, 12) == (False, 12)     # a wash-out
    assert pass_deal(keep, True, True, 12) == (False, 13)            # the 13th win
    assert pass_deal(mj_server, True, True, 12) == (True, 0)
    assert pass_deal(keep.replace(washout_passes_deal=True), False, False, 3) == (True, 0)
    with pytest.raises(InvalidRuleError, match="thirteenth_win_passes_deal"):
        keep.replace(thirteenth_win_passes_deal="yes")


# -- Heaven's and Earth's Blessing from crafted walls (§9.1, §9.2; issue 29) --------------------

def _crafted_wall(east: list[int], south: list[int], loose: list[int]):
    """A 144-tile wall dealing ``east`` (14) and ``south`` (13), whose first loose tiles are
    ``loose``; no bonus tile is dealt (they follow the deal in the live wall)."""
    from mjcore.classical.engine.wall import DEAL_SIZE, DEAL_SLOTS, FULL_SET, ClassicalWall

    pool = Counter(FULL_SET)
    seq: list[int | None] = [None] * len(FULL_SET)
    for slots, tiles in ((DEAL_SLOTS[0], east), (DEAL_SLOTS[1], south),
                         (range(len(seq) - 1, -1, -1), loose)):
        for p, t in zip(slots, tiles, strict=False):
            seq[p] = t
            pool[t] -= 1
    assert min(pool.values()) >= 0
    rest = sorted(pool.elements())
    plain = [t for t in rest if t < 34]
    bonus = [t for t in rest if t >= 34]
    free = [p for p in range(len(seq)) if seq[p] is None]
    in_deal = [p for p in free if p < DEAL_SIZE]
    fill = plain[:len(in_deal)] + bonus + plain[len(in_deal):]
    for p, t in zip(free, fill, strict=True):
        seq[p] = t
    tiles = [t for t in seq if t is not None]
    assert len(tiles) == len(seq)
    return ClassicalWall.from_sequence(tiles, "14_unreplenished")


class _Blessed:
    """Goes Mah-Jong whenever it may, declares a concealed kong, discards ``discard`` when it
    holds it; else the first choice."""

    def __init__(self, discard: int) -> None:
        self.discard = discard

    def choose(self, view, actions):
        from mjcore.classical.engine.referee import ActionType as T

        for kind in (T.MAHJONG, T.MAHJONG_CLAIM, T.CONCEALED_KONG):
            for a in actions:
                if a.type == kind:
                    return a
        for a in actions:
            if a.type == T.PASS or (a.type == T.DISCARD and a.tile == self.discard):
                return a
        return actions[0]


def _first_hand(monkeypatch, wall, discard: int):
    """The first hand of a game on ``wall``; its record replays to the same result."""
    from mjcore.classical.engine.records import read_lines, replay_record, write_lines
    from mjcore.classical.engine.wall import ClassicalWall

    real = ClassicalWall.from_seed
    monkeypatch.setattr(ClassicalWall, "from_seed",
                        lambda seed, index, **kw: wall if index == 0 else real(seed, index, **kw))
    one_hand = ClassicalRules.preset("classical").replace(agreed_hands=1)
    out = play_game([_Blessed(discard)] * 4, seed=1, rules=one_hand)
    assert replay_record(read_lines(write_lines(out.events))) > 0    # raises on a difference
    return out.hands[0]


def test_heavens_blessing_east_wins_with_the_dealt_hand(monkeypatch):
    east = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 13]      # 123456789m 123p 55p
    south = [14, 15, 16, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27]
    hand = _first_hand(monkeypatch, _crafted_wall(east, south, []), discard=-1)
    (win,) = hand.result.wins
    assert win.seat == 0 and win.discarder == -1 and win.heaven and 0 <= win.tile < 34
    east_score = hand.score.players[0]
    assert east_score.limit_hand and "heavens_blessing" in {i.name for i in east_score.items}
    assert hand.net[0] > 0 and sum(hand.net) == 0


def test_earths_blessing_after_easts_opening_concealed_kong(monkeypatch):
    east = [27] * 4 + [0, 3, 6, 10, 16, 19, 22, 25, 28, 29]    # 1z kong, then 5p discarded
    south = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13]         # waiting on 5p
    hand = _first_hand(monkeypatch, _crafted_wall(east, south, [13]), discard=13)
    assert [m.kind.name for m in hand.result.melds[0]] == ["KAN_CLOSED"]
    wins = {w.seat: w for w in hand.result.wins}
    assert 1 in wins and wins[1].discarder == 0 and wins[1].tile == 13 and wins[1].earth
    south_score = hand.score.players[1]
    assert south_score.limit_hand and "earths_blessing" in {i.name for i in south_score.items}
