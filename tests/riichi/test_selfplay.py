"""Conformance: invariants after every event on a few hundred seeded self-play games."""
from __future__ import annotations

import json

import pytest

from mjcore.riichi.agents import EfficiencyAgent, RandomAgent, TsumogiriAgent
from mjcore.riichi.game import final_points, play_game, ranking
from mjcore.riichi.invariants import InvariantChecker, check_game
from mjcore.riichi.rules import RuleSet

MIXES = [["random", "random", "random", "random"],
         ["efficiency", "random", "tsumogiri", "efficiency"],
         ["efficiency", "efficiency", "efficiency", "efficiency"]]


@pytest.mark.parametrize("preset,games", [("tenhou", 150), ("ema", 40), ("wrc", 40)])
def test_invariants_hold_on_self_play(preset, games):
    rules = RuleSet.preset(preset)
    checked = 0
    for seed in range(games):
        checked += check_game(seed, MIXES[seed % 3], rules)[0]
    assert checked > games * 100


def test_tonpuusen_games_end():
    rules = RuleSet.preset("tenhou").replace(game_length="tonpuusen")
    for seed in range(20):
        check_game(seed, MIXES[seed % 3], rules)


def test_same_seed_same_record_and_different_seeds_differ():
    a = play_game([EfficiencyAgent(), RandomAgent(1), TsumogiriAgent(), RandomAgent(2)], seed=5)
    b = play_game([EfficiencyAgent(), RandomAgent(1), TsumogiriAgent(), RandomAgent(2)], seed=5)
    c = play_game([EfficiencyAgent(), RandomAgent(1), TsumogiriAgent(), RandomAgent(2)], seed=6)
    assert a.events == b.events and a.scores == b.scores
    assert a.events != c.events


def test_results_are_consistent():
    res = play_game([EfficiencyAgent() for _ in range(4)], seed=11)
    assert sum(res.scores) == 100000
    assert sorted(res.ranks) == [1, 2, 3, 4]
    assert res.events[0]["type"] == "start_game" and res.events[-1]["type"] == "end_game"
    assert abs(sum(res.final_points)) < 1e-6


def test_efficiency_beats_random():
    wins = 0
    for seed in range(12):
        res = play_game([EfficiencyAgent(), RandomAgent(seed), RandomAgent(seed + 100),
                         RandomAgent(seed + 200)], seed=seed)
        wins += res.agent_ranks()[0] == 1
    assert wins >= 9


def test_ranking_ties_go_to_the_earlier_seat():
    assert ranking([30000, 30000, 20000, 20000]) == [1, 2, 3, 4]
    assert ranking([20000, 30000, 30000, 20000]) == [3, 1, 2, 4]


def test_tenhou_final_points_rounding():
    rules = RuleSet.preset("tenhou")
    # values from real records (owari)
    assert final_points([39500, 13300, 500, 46700], rules) == [20.0, -27.0, -49.0, 56.0]
    assert final_points([26900, 29200, 51400, -7500], rules) == [-13.0, 9.0, 62.0, -58.0]
    assert final_points([28600, 36900, 27100, 7400], rules) == [9.0, 47.0, -13.0, -43.0]
    exact = final_points([38300, 14300, -2800, 50200], rules.replace(final_rounding="exact"))
    assert exact == [18.3, -25.7, -52.8, 60.2]


def test_final_rounding_is_a_rule_option():
    scores = [39500, 13300, 500, 46700]
    custom = RuleSet.preset("tenhou").replace(red_fives=0)      # keeps Tenhou's rounding
    assert final_points(scores, custom) == [20.0, -27.0, -49.0, 56.0]
    exact = RuleSet.preset("tenhou").replace(final_rounding="exact")
    assert final_points(scores, exact) == [19.5, -26.7, -49.5, 56.7]
    ema = RuleSet.preset("ema")
    assert ema.final_rounding == "exact"
    # (score - 30000) / 1000 + uma 15, 5, -5, -15 by rank, no oka, no rounding
    assert final_points([38300, 14300, -2800, 50200], ema) == [13.3, -20.7, -47.8, 35.2]


def test_checker_detects_a_broken_state():
    rules = RuleSet.preset("tenhou")
    checker = InvariantChecker(rules)
    from mjcore.riichi.invariants import InvariantError

    def corrupt(rnd):
        checker.on_round(rnd)
        rnd.hands[0].append(rnd.hands[1][0])       # a duplicated tile
        rnd.counts[0][rnd.hands[1][0] >> 2] += 1

    with pytest.raises(InvariantError, match="duplicated"):
        play_game([TsumogiriAgent() for _ in range(4)], seed=1, on_event=checker.on_event,
                  on_round=corrupt)


def test_custom_rules_travel_with_the_record():
    from mjcore.riichi.events import from_mjai_lines, write_mjai
    from mjcore.riichi.replay import replay_source

    rules = RuleSet.preset("tenhou").replace(game_length="tonpuusen", kuikae="allowed")
    res = play_game([RandomAgent(i) for i in range(4)], seed=9, rules=rules)
    data = "\n".join(write_mjai(res.events)).encode()
    assert replay_source("custom.mjson", data).status == "agree"
    assert from_mjai_lines(data.decode().splitlines())[0]["rule_options"]["kuikae"] == "allowed"


def test_start_game_names_its_rules_under_an_extension_key():
    from mjcore.riichi.events import from_mjai_lines, write_mjai
    from mjcore.riichi.replay import _rules_from_events, replay_source

    rules = RuleSet.preset("ema")
    res = play_game([RandomAgent(i) for i in range(4)], seed=5, rules=rules)
    start = res.events[0]
    # another mjai reader's "rules" key means something else: ours must not be there
    assert "rules" not in start and start["mjcore_rules"] == "ema"
    lines = list(write_mjai(res.events))
    assert "rules" not in json.loads(lines[0])
    assert replay_source("new.mjson", "\n".join(lines).encode()).status == "agree"
    # records written before the rename still name their rules under "rules"
    old = json.loads(lines[0])
    old["rules"] = old.pop("mjcore_rules")
    del old["rule_options"]
    legacy = "\n".join([json.dumps(old), *lines[1:]]).encode()
    assert replay_source("old.mjson", legacy).status == "agree"
    assert _rules_from_events(from_mjai_lines(legacy.decode().splitlines())) == rules
    assert replay_source("old.mjson", legacy, RuleSet.preset("tenhou")).status == "disagree"


def test_seat_draw():
    from mjcore.riichi.game import seat_draw

    orders = {tuple(seat_draw(s)) for s in range(200)}
    assert len(orders) == 24                      # every permutation occurs
    res = play_game([EfficiencyAgent(), TsumogiriAgent(), RandomAgent(1), RandomAgent(2)],
                    seed=3)
    assert res.agent_of_seat == seat_draw(3)
    names = res.events[0]["names"]
    assert names == [["efficiency", "tsumogiri", "random", "random"][i]
                     for i in res.agent_of_seat]
    fixed = play_game([EfficiencyAgent(), TsumogiriAgent(), RandomAgent(1), RandomAgent(2)],
                      seed=3, seating="fixed")
    assert fixed.agent_of_seat == [0, 1, 2, 3]


def test_unimplemented_atozuke_off_is_refused():
    import pytest

    from mjcore.errors import InvalidRuleError
    with pytest.raises(InvalidRuleError, match="atozuke"):
        RuleSet.preset("tenhou").replace(atozuke=False)


@pytest.mark.parametrize("preset,seats", [("tenhou_sanma", 3), ("tenhou", 4)])
def test_play_cli_default_agents_fill_the_rules_seats(preset, seats):
    """``mjcore play`` without --agents seats one efficiency and random agents, as many as the
    rules have seats (three under tenhou_sanma)."""
    from click.testing import CliRunner

    from mjcore.cli import main

    res = CliRunner().invoke(main, ["play", "--games", "1", "--rules", preset, "--no-progress"])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert [line.split()[1] for line in lines[1:1 + seats]] == (
        ["efficiency"] + ["random"] * (seats - 1))
    assert lines[1 + seats].startswith("1 games")
