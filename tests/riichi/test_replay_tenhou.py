"""The proof: every complete four-player Tenhou game replays through the engine with the same
results (each hand's outcome, every score change, riichi sticks, final scores and points), and
every recorded choice is among the legal actions offered. Each record is replayed under the
rules it names (lobby flags and era), with no exceptions."""
from __future__ import annotations

from typing import Any

from mjcore.riichi.mjlog import read_mjlog, rules_for_mjlog
from mjcore.riichi.replay import replay_events


def _check_against_summary(game: dict, events: list[dict]) -> str:
    """Compare the engine's own events with games.jsonl (an independent summary)."""
    hands: list[dict[str, Any]] = []
    for ev in events:
        if ev["type"] == "start_kyoku":
            hands.append({"start": ev, "riichi": [], "results": []})
        elif ev["type"] == "reach_accepted":
            hands[-1]["riichi"].append(ev["actor"])
        elif ev["type"] in ("hora", "ryukyoku"):
            hands[-1]["results"].append(ev)
    if len(hands) != len(game["rounds"]):
        return f"{len(hands)} hands instead of {len(game['rounds'])}"
    for i, (h, r) in enumerate(zip(hands, game["rounds"], strict=True)):
        st = h["start"]
        if (st["honba"], st["kyotaku"], st["oya"], st["scores"]) != (
                r["honba"], r["riichi_sticks"], r["dealer"], r["start_scores"]):
            return f"hand {i}: start differs"
        if sorted(h["riichi"]) != sorted(r["riichi"]):
            return f"hand {i}: riichi {h['riichi']} instead of {r['riichi']}"
        if len(h["results"]) != len(r["results"]):
            return f"hand {i}: {len(h['results'])} results instead of {len(r['results'])}"
        for got, exp in zip(h["results"], r["results"], strict=True):
            if got["deltas"] != exp["deltas"]:
                return f"hand {i}: deltas {got['deltas']} instead of {exp['deltas']}"
            if exp["type"] == "agari" and (got["type"], got["actor"], got["target"]) != (
                    "hora", exp["who"], exp["from_who"]):
                return f"hand {i}: a different win"
            if exp["type"] == "ryukyoku" and got["type"] != "ryukyoku":
                return f"hand {i}: a win instead of a draw"
    end = events[-1]
    if end["scores"] != game["final_scores"]:
        return f"final scores {end['scores']} instead of {game['final_scores']}"
    if [float(x) for x in end["final_points"]] != [float(x) for x in game["final_points"]]:
        return f"final points {end['final_points']} instead of {game['final_points']}"
    return ""


def test_all_complete_games_replay(tenhou_games, mjlog_members):
    complete = [g for g in tenhou_games if g["complete"]]
    assert len(complete) == 1640
    mismatches = {}
    agreed = 0
    for g in complete:
        mjlog = read_mjlog(mjlog_members[g["file"]].decode("utf-8"), g["file"])
        assert not mjlog.sanma and mjlog.complete
        rep = replay_events(mjlog.events, rules_for_mjlog(mjlog), where=g["file"])
        if not rep.ok:
            mismatches[g["file"]] = rep.message
            continue
        assert rep.engine_events is not None
        problem = _check_against_summary(g, rep.engine_events)
        if problem:
            mismatches[g["file"]] = "summary: " + problem
            continue
        agreed += 1
    assert mismatches == {}
    assert agreed == 1640


def test_three_player_records_replay_under_sanma_rules(mjlog_members):
    """(All of them: tests/riichi/test_sanma_replay.py.)"""
    from mjcore.riichi.replay import replay_source

    sanma = [n for n, d in mjlog_members.items() if b'<GO type="185"' in d[:4000]][:3]
    assert sanma
    for name in sanma:
        assert replay_source(name, mjlog_members[name]).status == "agree"
