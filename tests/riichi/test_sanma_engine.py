"""The three-player (sanma, ``tenhou_sanma``) referee and game on hand-built positions: north
declarations (offered when, the replacement draw, robbing by ron, dora), no chi, tsumo loss,
noten payments, the hands of a game and its end; self-play with every invariant checked."""
from __future__ import annotations

import json

import pytest

from mjcore.engine.turns import EngineError, Start
from mjcore.riichi.actions import CHI, KITA, PASS, PON, RON, TSUMO, Action
from mjcore.riichi.agents import EfficiencyAgent, RandomAgent, TsumogiriAgent
from mjcore.riichi.events import from_mjai_lines, write_mjai
from mjcore.riichi.game import play_game
from mjcore.riichi.invariants import check_game
from mjcore.riichi.replay import replay_events
from mjcore.riichi.round import RiichiRound
from mjcore.riichi.rules import RuleSet
from mjcore.riichi.wall import SANMA_TILES, Wall

SANMA = RuleSet.preset("tenhou_sanma")
NORTH = 30


def parse(text: str) -> list[int]:
    """mpsz text -> kinds (no red fives here)."""
    out, digits = [], []
    for ch in text:
        if ch.isdigit():
            digits.append(int(ch))
        else:
            out += ["mpsz".index(ch) * 9 + d - 1 for d in digits]
            digits = []
    return out


class Pool:
    """Sanma tiles by kind, plain copies first (copy 0 of 5p and 5s is red)."""

    def __init__(self) -> None:
        self.free: dict[int, list[int]] = {}
        for t in SANMA_TILES:
            self.free.setdefault(t >> 2, []).append(t)
        for k in (13, 22):
            self.free[k].append(self.free[k].pop(0))

    def take(self, text: str) -> list[int]:
        return [self.free[k].pop(0) for k in parse(text)]

    def rest(self) -> list[int]:
        return [t for k in sorted(self.free) for t in self.free[k]]


def make_round(hands: dict[int, str], draws: str = "", rinshan: str = "", dealer: int = 0,
               scores: list[int] | None = None, honba: int = 0) -> RiichiRound:
    pool = Pool()
    tehais = [pool.take(hands.get(s, "")) for s in range(3)]
    drawn = pool.take(draws)
    rin = pool.take(rinshan)
    rest = pool.rest()
    dora = [rest.pop(rest.index(next(t for t in rest if t >> 2 == 33)))]     # C: dora haku
    for h in tehais:
        while len(h) < 13:
            h.append(rest.pop())
    wall = Wall.from_record(dealer, tehais, drawn, rin, dora, [])
    return RiichiRound(SANMA, wall, round_wind=0, kyoku=dealer + 1, dealer=dealer,
                       honba=honba, sticks=0, scores=list(scores or [35000] * 3), events=[])


class Script:
    """A decider: the first listed action type each seat is offered, else the first action
    (a discard of the lowest tile, or a pass)."""

    def __init__(self, wants: dict[int, list[int]]) -> None:
        self.wants = wants
        self.asked: list[tuple[int, list[Action]]] = []

    def __call__(self, seat: int, actions: list[Action]) -> Action:
        self.asked.append((seat, actions))
        for want in self.wants.get(seat, []):
            for a in actions:
                if a.type == want:
                    self.wants[seat].remove(want)
                    return a
        for a in actions:
            if a.type == PASS.type:
                return a
        return actions[0]


def test_kita_is_offered_with_a_north_in_hand():
    rnd = make_round({0: "19m19p19s1234567z"}, draws="5s")
    rnd.play(Script({0: [KITA]}))
    ev = rnd.events
    kita = next(e for e in ev if e["type"] == "kita")
    assert kita["actor"] == 0 and kita["pai"] >> 2 == NORTH
    nxt = ev[ev.index(kita) + 1]
    assert nxt["type"] == "tsumo" and nxt["actor"] == 0 and nxt.get("rinshan")
    assert len(rnd.kita[0]) == 1 and rnd.wall.n_rinshan == 1


def test_kita_conditions():
    rnd = make_round({0: "123p456p789p1s1s4z"}, draws="9s")
    acts = rnd.turn_actions(0, rnd.draw(0, Start.DRAW), Start.DRAW)
    assert [a for a in acts if a.type == KITA] == [Action(KITA, next(
        t for t in rnd.hands[0] if t >> 2 == NORTH))]
    assert acts == sorted(acts)
    rnd.wall.left = 0                                   # no replacement tile: no kita
    assert KITA not in [a.type for a in rnd.turn_actions(0, rnd.hands[0][0], Start.DRAW)]
    rnd = make_round({0: "123p456p789p1s2s3s"}, draws="9s")
    acts = rnd.turn_actions(0, rnd.draw(0, Start.DRAW), Start.DRAW)
    assert KITA not in [a.type for a in acts]            # no north
    # after a call there is no draw, so no kita
    rnd = make_round({0: "123p456p789p1s4z4z"})
    assert KITA not in [a.type for a in rnd.turn_actions(0, -1, Start.CALLED)]


def test_kita_in_riichi_only_the_drawn_north():
    rnd = make_round({0: "123p456p789p11s4z"}, draws="4z")
    rnd.riichi[0] = True
    drawn = rnd.draw(0, Start.DRAW)
    acts = rnd.turn_actions(0, drawn, Start.DRAW)
    assert Action(KITA, drawn) in acts
    rnd = make_round({0: "123p456p789p11s4z"}, draws="9s")
    rnd.riichi[0] = True
    acts = rnd.turn_actions(0, rnd.draw(0, Start.DRAW), Start.DRAW)
    assert KITA not in [a.type for a in acts]


def test_kita_is_dora_and_a_rinshan_tsumo():
    # 123p 456p 789p 11s 9s N, draws 9s, sets the north aside and wins on the replacement 9s
    rnd = make_round({0: "123p456p789p119s4z"}, draws="9s", rinshan="9s")
    res = rnd.play(Script({0: [KITA, TSUMO]}))
    hora = next(e for e in rnd.events if e["type"] == "hora")
    assert res.kind == "hora" and hora["actor"] == 0 and hora["target"] == 0
    yaku = dict(hora["yakus"])
    assert yaku.get("rinshan kaihou") == 1 and yaku.get("dora") == 1     # the north
    assert "chankan" not in yaku
    # the dealer's tsumo: two payers, no absent share
    assert hora["deltas"][1] == hora["deltas"][2] < 0 and sum(hora["deltas"]) == 0
    assert len(hora["deltas"]) == 3


def test_a_north_is_robbed_by_ron_not_chankan():
    # seat 1 waits on a north tanki; seat 0 sets a north aside
    rnd = make_round({0: "19m19p19s123z4z5z6z", 1: "123p456p789p111s4z"}, draws="7z")
    res = rnd.play(Script({0: [KITA], 1: [RON]}))
    hora = next(e for e in rnd.events if e["type"] == "hora")
    assert res.kind == "hora" and (hora["actor"], hora["target"]) == (1, 0)
    assert hora["pai"] >> 2 == NORTH
    assert not any("chankan" in str(y) for y in hora["yakus"])
    assert hora["deltas"][0] < 0 and hora["deltas"][2] == 0


def test_passing_a_robbable_north_is_furiten():
    rnd = make_round({0: "19m19p19s123z4z5z6z", 1: "123p456p789p111s4z"}, draws="7z")
    furiten_at_next_turn = []

    class Watch(Script):
        def __call__(self, seat: int, actions: list[Action]) -> Action:
            if seat == 0 and self.asked and self.asked[-1][0] == 1:
                furiten_at_next_turn.append(rnd.furiten(1))
            return super().__call__(seat, actions)

    script = Watch({0: [KITA]})
    rnd.play(script)
    offered = [acts for seat, acts in script.asked if seat == 1 and acts[-1] == PASS]
    assert offered[0] == [Action(RON, offered[0][0].tile), PASS]
    assert furiten_at_next_turn[0] is True


def test_no_chi_with_three_players():
    rnd = make_round({0: "19m19p19s1234567z", 1: "23p456p789p111s4z"})
    acts = rnd.claim_actions(1, 0, Pool().take("1p")[0])
    assert CHI not in [a.type for a in acts]
    acts = rnd.claim_actions(1, 0, Pool().take("1s")[0])
    assert PON in [a.type for a in acts]


def test_noten_payments_from_a_pool_of_2000():
    for tenpai, deltas in (((0,), [2000, -1000, -1000]), ((0, 1), [1000, 1000, -2000]),
                           ((), [0, 0, 0]), ((0, 1, 2), [0, 0, 0])):
        rnd = make_round({0: "19m19p19s1234567z"})
        for s in range(3):
            rnd.waits[s] = 1 << 33 if s in tenpai else 0
        rnd.rivers = [[Pool().take("5p")[0]] for _ in range(3)]    # no nagashi mangan
        res = rnd._exhaustive()
        assert res.deltas == deltas, tenpai
        assert rnd.events[-2]["tenpais"] == [s in tenpai for s in range(3)]


def test_sanma_needs_a_sanma_wall_and_three_agents():
    wall = Wall.from_seed(1, 0, 0)
    with pytest.raises(EngineError, match="4-player wall for 3-player"):
        RiichiRound(SANMA, wall, round_wind=0, kyoku=1, dealer=0, honba=0, sticks=0,
                    scores=[35000] * 3, events=[])
    with pytest.raises(EngineError, match="need 3 agents"):
        play_game([RandomAgent(i) for i in range(4)], seed=1, rules=SANMA)


def test_a_sanma_game():
    res = play_game([EfficiencyAgent(), EfficiencyAgent(), RandomAgent(3)], seed=11,
                    rules="tenhou_sanma")
    starts = [e for e in res.events if e["type"] == "start_kyoku"]
    assert starts[0]["scores"] == [35000] * 3 and len(starts[0]["tehais"]) == 3
    assert {(e["bakaze"], e["kyoku"]) for e in starts} <= {
        (w, k) for w in "ESW" for k in (1, 2, 3)}
    assert sum(res.scores) == 105000 and sum(res.final_points) == 0
    assert len(res.ranks) == 3 and sorted(res.ranks) == [1, 2, 3]
    assert any(e["type"] == "kita" for e in res.events)
    assert not any(e["type"] == "chi" for e in res.events)


def test_sanma_self_play_invariants_and_records():
    """Every invariant after every event (108 tiles, points and sticks conserved), the same
    seed -> the same record, and the record written as mjai lines (with kita) replays."""
    kita = 0
    for seed in range(6):
        checked, res = check_game(seed, ["efficiency", "random", "efficiency"], SANMA)
        assert checked > 0 and sum(res.scores) == 105000
        kita += sum(1 for e in res.events if e["type"] == "kita")
    assert kita > 0


def test_mjai_kita_round_trip():
    res = play_game([EfficiencyAgent(), TsumogiriAgent(), EfficiencyAgent()], seed=3,
                    rules=SANMA)
    lines = list(write_mjai(res.events))
    kita = [json.loads(x) for x in lines if '"kita"' in x]
    assert kita and all(k["pai"] == "N" and set(k) == {"type", "actor", "pai"} for k in kita)
    events = from_mjai_lines(lines, "sanma")
    assert replay_events(events, SANMA).ok


def test_efficiency_agent_sets_aside_only_unneeded_norths():
    from mjcore.riichi.view import PlayerView

    agent = EfficiencyAgent()
    for hand, draw, wants_kita in (("123p456p789p11s9s4z", "7z", True),      # a lone north
                                   ("123p456p789p11s4z4z", "9s", False)):   # the north pair
        rnd = make_round({0: hand}, draws=draw)
        view = PlayerView(0)
        view.attach(rnd, rnd.events)
        acts = rnd.turn_actions(0, rnd.draw(0, Start.DRAW), Start.DRAW)
        assert KITA in [a.type for a in acts]
        assert (agent.choose(view, acts).type == KITA) is wants_kita, hand


# sets each drawn north aside while the wall is far from empty (no kita without a live tile)
BOT = """
import json, sys
seat, last, draws = -1, None, 0
for line in sys.stdin:
    events = json.loads(line)
    for ev in events:
        if ev["type"] == "start_game":
            seat = ev["id"]
        elif ev["type"] == "start_kyoku":
            draws = 0
        elif ev["type"] == "tsumo":
            draws += 1
            if ev["actor"] == seat:
                last = ev["pai"]
    ev = events[-1] if events else {}
    answer = {"type": "none"}
    if ev.get("type") == "tsumo" and ev.get("actor") == seat:
        answer = ({"type": "kita", "actor": seat, "pai": "N"} if last == "N" and draws < 40 else
                  {"type": "dahai", "actor": seat, "pai": last, "tsumogiri": True})
    print(json.dumps(answer), flush=True)
"""


def test_an_mjai_bot_sets_norths_aside(tmp_path):
    import sys

    from mjcore.riichi.mjai import MjaiAgent

    bot = tmp_path / "kita_bot.py"
    bot.write_text(BOT)
    agent = MjaiAgent([sys.executable, str(bot)], timeout=20)
    try:
        res = play_game([agent, TsumogiriAgent(), TsumogiriAgent()], seed=5, rules=SANMA,
                        seating="fixed")
    finally:
        agent.close()
    assert any(e["type"] == "kita" and e["actor"] == 0 for e in res.events)


def test_tenhou6_records_of_sanma_games():
    from mjcore.errors import InvalidHandError
    from mjcore.riichi.replay import replay_source
    from mjcore.riichi.tenhou6 import _t6_call, dumps_tenhou6, read_tenhou6, to_tenhou6

    for seed in range(8):
        res = play_game([EfficiencyAgent(), RandomAgent(seed), RandomAgent(seed + 1)],
                        seed=seed, rules=SANMA)
        doc = to_tenhou6(res.events)
        assert all(entry[13:16] == [[], [], []] and entry[1][3] == 0 for entry in doc["log"])
        text = dumps_tenhou6(res.events)
        if any(e["type"] == "kita" for e in res.events):
            assert '"f44"' in text
        assert replay_source(f"seed{seed}.json", text.encode()).status == "agree"
    if '"f44"' in text:        # a north that is not f44 is no tile code
        with pytest.raises(InvalidHandError, match="tile code"):
            read_tenhou6(text.replace('"f44"', '"f45"', 1))
    assert _t6_call("p474747", 0, "t", 3)[3] == 2            # from the left: the seat before
    assert _t6_call("4747p47", 0, "t", 3)[3] == 1            # from the right: the seat after
    with pytest.raises(InvalidHandError, match="across"):
        _t6_call("47p4747", 0, "t", 3)


def test_play_and_replay_cli(tmp_path):
    from click.testing import CliRunner

    from mjcore.cli import main

    out = tmp_path / "games"
    res = CliRunner().invoke(main, ["play", "--games", "3", "--rules", "tenhou_sanma",
                                    "--agents", "efficiency,random", "--format", "both",
                                    "--out", str(out), "--check-invariants", "--no-progress"])
    assert res.exit_code == 0, res.output
    header = res.output.splitlines()[0].split()
    assert header[2:5] == ["1st", "2nd", "3rd"] and "4th" not in header
    assert "invariants held on all 3 games" in res.output
    assert len(list(out.iterdir())) == 6
    res = CliRunner().invoke(main, ["replay", str(out), "--no-progress"])
    assert res.exit_code == 0 and "6 records: 6 agree" in res.output, res.output
    res = CliRunner().invoke(main, ["play", "--games", "1", "--rules", "tenhou_sanma",
                                    "--agents", "random,random,random,random"])
    assert res.exit_code != 0 and "one to 3 agent names" in res.output


def test_no_kita_without_nukidora():
    """Four-player rules (and three-player rules with nukidora off) keep every north."""
    rnd = make_round({0: "123p456p789p1s1s4z"}, draws="4z")
    rnd.rules = SANMA.replace(nukidora=False)
    acts = rnd.turn_actions(0, rnd.draw(0, Start.DRAW), Start.DRAW)
    assert KITA not in [a.type for a in acts]
    res = play_game([EfficiencyAgent() for _ in range(4)], seed=2)
    assert not any(e["type"] == "kita" for e in res.events)
