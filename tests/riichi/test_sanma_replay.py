"""The proof for three-player riichi (issue 16): every complete sanma game of the Tenhou
archive replays through the engine under ``tenhou_sanma`` with the same results: every event
(draws, discards, calls, north declarations and their replacement draws, dora, riichi), every
win's points and score changes, every draw's payments and tenpai, the final scores and points
(uma). A game that cannot agree belongs in sanma_exceptions.json with the reason (held
exactly; it is empty)."""
from __future__ import annotations

import json
from pathlib import Path

from mjcore.riichi.mjlog import read_mjlog, rules_for_mjlog
from mjcore.riichi.replay import replay_events, replay_source

EXCEPTIONS = Path(__file__).with_name("sanma_exceptions.json")


def _sanma_records(mjlog_members):
    return {n: d for n, d in mjlog_members.items() if b'<GO type="185"' in d[:4000]}


def test_every_complete_sanma_game_replays(mjlog_members):
    records = _sanma_records(mjlog_members)
    assert len(records) == 534
    disagree = {}
    counts = {"hora": 0, "ryukyoku": 0, "kita": 0, "start_kyoku": 0}
    kinds = set()
    complete = 0
    for name, data in sorted(records.items()):
        game = read_mjlog(data.decode("utf-8"), name)
        assert game.players == 3
        if not game.complete:
            continue
        complete += 1
        rules = rules_for_mjlog(game)
        assert rules.players == 3 and rules.nukidora
        rep = replay_events(game.events, rules, where=name)
        if not rep.ok:
            disagree[name] = rep.message
            continue
        assert rep.engine_events is not None and rep.final_scores is not None
        for ev in rep.engine_events:
            if ev["type"] in counts:
                counts[ev["type"]] += 1
            if ev["type"] == "ryukyoku":
                kinds.add(ev["reason"])
        assert sum(rep.final_scores) == 105000
        assert rep.final_points == game.final_points
    known = {e["record"]: e["reason"] for e in json.loads(EXCEPTIONS.read_text())}
    assert disagree == known
    assert complete == 534
    # what the replay compared: the archive's 3,986 wins, 729 draws, 11,945 norths
    assert counts == {"hora": 3986, "ryukyoku": 729, "kita": 11945, "start_kyoku": 4701}
    assert kinds == {"exhaustive", "kyushukyuhai", "nagashimangan", "suukaikan"}


def test_replay_source_takes_sanma_rules(mjlog_members):
    name, data = sorted(_sanma_records(mjlog_members).items())[0]
    out = replay_source(name, data)
    assert out.status == "agree" and out.hands > 0
    # four-player rules cannot replay a three-player record: a clear disagreement
    from mjcore.riichi.rules import RuleSet

    out = replay_source(name, data, RuleSet.preset("tenhou"))
    assert out.status == "error" and "three-player" in out.detail
