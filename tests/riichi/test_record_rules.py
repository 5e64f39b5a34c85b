"""Replay takes the rules from each Tenhou record: its lobby flags and its era."""
from __future__ import annotations

from mjcore.riichi.mjlog import read_mjlog, rules_for_go_type, rules_for_mjlog
from mjcore.riichi.replay import replay_events, replay_source

EARLY = "dnovikoff-tenhou/log/test_data/"
# a 2022 East-only game whose dealer repeats in South 1 while a non-dealer has 30 800
PLAYS_ON = "thewaxmango-mahjong-hands/logs/2022010223gm-00e1-0000-e9ff3179.txt"


def test_early_lobby_rules():
    east = rules_for_go_type(161, early=True)
    assert (east.uma, east.tenpai_yame, east.agari_yame) == (
        (10000, 5000, -5000, -10000), False, True)
    south = rules_for_go_type(169, early=True)
    assert (south.uma, south.tenpai_yame) == ((20000, 10000, -10000, -20000), False)
    assert rules_for_go_type(169).tenpai_yame is True
    assert rules_for_go_type(169).west_sudden_death is False


def test_the_era_is_read_from_the_record(mjlog_members):
    for name in ("bug1.xml", "bye.xml", "shuffle.xml"):
        game = read_mjlog(mjlog_members[EARLY + name].decode(), name)
        assert game.early
        # under today's lobby rules these three disagree (uma 5-10, no tenpai-yame) ...
        modern = rules_for_go_type(game.go_type)
        assert not replay_events(game.events, modern, where=name).ok
        # ... and under their own they agree, as `mjcore replay` finds without help
        assert replay_source(name, mjlog_members[EARLY + name]).status == "agree"
    assert not read_mjlog(mjlog_members[PLAYS_ON].decode(), PLAYS_ON).early


def test_tenhou_plays_a_dealer_repeat_in_the_extension_on(mjlog_members):
    game = read_mjlog(mjlog_members[PLAYS_ON].decode(), PLAYS_ON)
    rules = rules_for_mjlog(game)
    assert replay_events(game.events, rules, where=PLAYS_ON).ok
    sudden = replay_events(game.events, rules.replace(west_sudden_death=True), where=PLAYS_ON)
    assert not sudden.ok and "end_game instead of start_kyoku" in sudden.message
