"""Records: mjai JSON lines round trip, tenhou.net/6 export, the mjai subprocess agent and the
two commands."""
from __future__ import annotations

import json
import sys
import time

import pytest
from click.testing import CliRunner

from mjcore.cli import main
from mjcore.errors import InvalidHandError, MjcoreError
from mjcore.riichi.agents import EfficiencyAgent, RandomAgent, TsumogiriAgent, make_agent
from mjcore.riichi.events import MJAI_NAMES, from_mjai_lines, write_mjai
from mjcore.riichi.game import play_game
from mjcore.riichi.mjai import MjaiAgent, MjaiError
from mjcore.riichi.replay import replay_events, replay_source
from mjcore.riichi.tenhou6 import to_tenhou6


def _game(seed=3):
    return play_game([EfficiencyAgent(), RandomAgent(seed), TsumogiriAgent(),
                      RandomAgent(seed + 9)], seed=seed)


def test_mjai_lines_round_trip_and_replay():
    res = _game()
    lines = list(write_mjai(res.events))
    first = json.loads(lines[1])
    assert first["type"] == "start_kyoku" and all(isinstance(t, str) for t in first["tehais"][0])
    assert any('"5mr"' in ln or '"5pr"' in ln or '"5sr"' in ln for ln in lines)
    back = from_mjai_lines(lines)
    assert [e["type"] for e in back] == [e["type"] for e in res.events]
    for a, b in zip(back, res.events, strict=True):
        if "pai" in a:
            assert MJAI_NAMES[a["pai"]] == MJAI_NAMES[b["pai"]]
    rep = replay_events(back)
    assert rep.ok, rep.message
    assert rep.final_scores == res.scores


def test_replay_detects_a_tampered_record():
    res = _game()
    events = [dict(e) for e in res.events]
    hora = next(i for i, e in enumerate(events) if e["type"] == "hora")
    events[hora]["deltas"] = [d + 100 * (i == events[hora]["actor"]) - 100 * (
        i == events[hora]["target"]) for i, d in enumerate(events[hora]["deltas"])]
    rep = replay_events(events)
    assert not rep.ok and "score changes" in rep.message
    events = [dict(e) for e in res.events]
    d = next(i for i, e in enumerate(events) if e["type"] == "dahai" and i > 40)
    hand_tiles = events[d]
    events[d] = dict(hand_tiles, pai=(hand_tiles["pai"] + 4) % 136)
    assert not replay_events(events).ok


def test_malformed_mjai_lines():
    with pytest.raises(InvalidHandError, match="not JSON"):
        from_mjai_lines(["{"])
    with pytest.raises(InvalidHandError, match="unknown mjai tile"):
        from_mjai_lines(['{"type":"start_kyoku","tehais":[["9z"]],"dora_marker":"1m"}'])
    with pytest.raises(InvalidHandError, match="does not hold"):
        start = '{"type":"start_kyoku","tehais":[["1m"],[],[],[]],"dora_marker":"2m"}'
        from_mjai_lines([start, '{"type":"dahai","actor":0,"pai":"3m"}'])


def test_tenhou6_export():
    res = _game()
    t6 = to_tenhou6(res.events)
    hands = sum(1 for e in res.events if e["type"] == "start_kyoku")
    assert len(t6["log"]) == hands
    kyoku = t6["log"][0]
    assert len(kyoku[4]) == 13 and all(11 <= t <= 53 for t in kyoku[4])
    assert kyoku[-1][0] in ("和了", "流局", "九種九牌", "四風連打", "四家立直", "三家和了",
                            "四槓散了", "流し満貫")
    assert t6["sc"][0::2] == res.scores
    json.dumps(t6, ensure_ascii=False)


def test_mjai_subprocess_agent():
    bot = MjaiAgent([sys.executable, "-m", "mjcore.riichi.mjai"])
    try:
        res = play_game([bot, EfficiencyAgent(), RandomAgent(2), TsumogiriAgent()], seed=4)
    finally:
        bot.close()
    assert sum(res.scores) == 100000
    # the bot discarded every tile it drew
    seat = res.agent_of_seat.index(0)
    mine = [e for e in res.events if e["type"] == "dahai" and e["actor"] == seat]
    assert mine and all(e["tsumogiri"] for e in mine)


def test_mjai_bot_gets_its_seat_on_the_command_line():
    # the reference bot plays the seat given as its argument and exits when start_game
    # names another; a literal "{seat}" would not parse
    bots = [MjaiAgent([sys.executable, "-m", "mjcore.riichi.mjai", "{seat}"]) for _ in range(2)]
    try:
        assert all(bot.proc is None for bot in bots)          # started once seated
        res = play_game([bots[0], EfficiencyAgent(), bots[1], TsumogiriAgent()], seed=4)
        for i, bot in ((0, bots[0]), (2, bots[1])):
            seat = res.agent_of_seat.index(i)
            assert bot.proc is not None and isinstance(bot.proc.args, list)
            assert bot.proc.args[-1] == str(seat) == str(bot.seat)
            mine = [e for e in res.events if e["type"] == "dahai" and e["actor"] == seat]
            assert mine and all(e["tsumogiri"] for e in mine)
    finally:
        for bot in bots:
            bot.close()


SEATED_BOT = """import json, sys
seat, draw = int(sys.argv[1]), None
for line in sys.stdin:
    events = json.loads(line)
    for ev in events:
        if ev.get("type") == "start_game" and ev.get("id") != seat:
            sys.exit("start_game names another seat")
        if ev.get("type") == "tsumo" and ev.get("actor") == seat:
            draw = ev["pai"]
    last = events[-1] if events else {}
    mine = last.get("type") in ("tsumo", "reach") and last.get("actor") == seat
    answer = {"type": "dahai", "actor": seat, "pai": draw, "tsumogiri": True} if mine else \\
        {"type": "none"}
    print(json.dumps(answer), flush=True)
"""


def test_play_passes_the_seat_to_mjai_commands(tmp_path):
    bot = tmp_path / "bot.py"        # a tsumogiri bot that cannot start without its seat
    bot.write_text(SEATED_BOT)
    agent = f"mjai:{sys.executable} {bot} {{seat}}"
    result = CliRunner().invoke(main, ["play", "--games", "2", "--seed", "3", "--agents",
                                       f"{agent},random,{agent},tsumogiri",
                                       "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert len(list((tmp_path / "out").glob("*.mjson"))) == 2


def test_mjai_bot_with_illegal_answers_is_reported():
    script = ("import sys\nfor l in sys.stdin: "
              "print('{\"type\":\"dahai\",\"pai\":\"9z\"}', flush=True)")
    bot = MjaiAgent([sys.executable, "-c", script])
    try:
        with pytest.raises(MjaiError, match="unknown tile"):
            play_game([bot, TsumogiriAgent(), TsumogiriAgent(), TsumogiriAgent()], seed=1)
    finally:
        bot.close()


@pytest.mark.parametrize("script, message", [
    ("import sys, time\nsys.stdin.readline()\ntime.sleep(60)", "no answer within 0.5 s"),
    ("import sys\nsys.stdin.readline()\nsys.stdout.write('x' * (3 << 20))\nsys.stdout.flush()"
     "\nimport time\ntime.sleep(60)", "longer than"),
    ("import sys\nsys.stdin.readline()", "closed its output"),
])
def test_mjai_bot_that_hangs_floods_or_exits_is_reported(script, message):
    bot = MjaiAgent([sys.executable, "-c", script], timeout=0.5)
    try:
        with pytest.raises(MjaiError, match=message):
            play_game([bot, TsumogiriAgent(), TsumogiriAgent(), TsumogiriAgent()], seed=1)
    finally:
        bot.close()


def test_mjai_bot_that_stops_reading_its_input_is_reported_within_the_timeout():
    bot = MjaiAgent([sys.executable, "-c", "import time; time.sleep(60)"], timeout=0.5)
    try:
        t0 = time.monotonic()
        with pytest.raises(MjaiError, match=r"did not take a message within 0.5 s"):
            bot._exchange([{"type": "none", "pad": "x" * (1 << 20)}])   # over any pipe buffer
        assert time.monotonic() - t0 < 10
    finally:
        bot.close()


def test_make_agent_rejects_unknown_names():
    with pytest.raises(MjcoreError, match="unknown agent"):
        make_agent("genius")


def test_play_command(tmp_path):
    out = tmp_path / "games"
    r = CliRunner().invoke(main, ["play", "--games", "3", "--seed", "2", "--agents",
                                  "efficiency,random", "--out", str(out), "--format", "both",
                                  "--check-invariants", "--no-progress"])
    assert r.exit_code == 0, r.output
    assert "avg rank" in r.output and "invariants held on all 3 games" in r.output
    files = sorted(p.name for p in out.iterdir())
    assert len(files) == 6
    r2 = CliRunner().invoke(main, ["replay", str(out)])
    assert r2.exit_code == 0, r2.output
    assert "6 records: 6 agree" in r2.output      # both formats read back


def test_replay_command_reports_disagreement(tmp_path):
    res = _game()
    lines = list(write_mjai(res.events))
    good = tmp_path / "good.mjson"
    good.write_text("\n".join(lines) + "\n")
    bad_events = [json.loads(x) for x in lines]
    end = next(e for e in bad_events if e["type"] == "end_game")
    end["scores"] = [s + 100 * (i == 0) - 100 * (i == 1) for i, s in enumerate(end["scores"])]
    bad = tmp_path / "bad.mjson"
    bad.write_text("\n".join(json.dumps(e) for e in bad_events) + "\n")
    r = CliRunner().invoke(main, ["replay", str(good), str(bad)])
    assert r.exit_code == 1
    assert "1 agree" in r.output and "1 disagree" in r.output
    allow = tmp_path / "allow.json"
    allow.write_text(json.dumps({"bad.mjson": "tampered on purpose"}))
    r = CliRunner().invoke(main, ["replay", str(good), str(bad), "--allow", str(allow)])
    assert r.exit_code == 0 and "1 known" in r.output


def test_replay_source_handles_garbage():
    assert replay_source("x.xml", b"<mjloggm><INIT seed=/></mjloggm>").status == "error"
    assert replay_source("x.mjson", b"not json\n").status == "error"


def test_tenhou6_call_strings():
    from mjcore.riichi.tenhou6 import _meld_str

    # pon of 7z (code 47) from the left, across and right; open kan from across; chi of 3m
    # with 1m 2m; closed kan of 5m holding the red five (code 51); added kan onto a pon
    # called from across
    pon = {"type": "pon", "pai": 132, "consumed": [133, 134]}
    assert _meld_str(dict(pon, target=3), 0) == "p474747"
    assert _meld_str(dict(pon, target=2), 0) == "47p4747"
    assert _meld_str(dict(pon, target=1), 0) == "4747p47"
    kan = {"type": "daiminkan", "pai": 132, "consumed": [133, 134, 135], "target": 2}
    assert _meld_str(kan, 0) == "47m474747"
    chi = {"type": "chi", "pai": 8, "consumed": [0, 4], "target": 3}
    assert _meld_str(chi, 0) == "c131112"
    assert _meld_str({"type": "ankan", "consumed": [16, 17, 18, 19]}, 0) == "511515a15"
    kakan = {"type": "kakan", "pai": 135, "consumed": [132, 133, 134]}
    assert _meld_str(kakan, 0, 2) == "47k474747"


def test_mutated_records_never_crash():
    """Corrupt a valid record in many ways: replay reports an error or a disagreement."""
    import random as _random

    res = _game(5)
    lines = list(write_mjai(res.events))
    rng = _random.Random(0)
    statuses = set()
    for _ in range(150):
        evs = [json.loads(x) for x in lines]
        i = rng.randrange(1, len(evs))
        ev = evs[i]
        key = rng.choice(sorted(ev))
        ev[key] = rng.choice([None, -1, 7, "9z", "5mr", [], {}, "x", 10**9])
        if rng.random() < 0.3:
            del evs[rng.randrange(1, len(evs))]
        data = "\n".join(json.dumps(e) for e in evs).encode()
        out = replay_source("mutant.mjson", data)
        statuses.add(out.status)
        assert out.status in ("agree", "disagree", "error")
    assert "disagree" in statuses or "error" in statuses


def test_truncated_mjlogs_never_crash(mjlog_members):
    name = next(n for n in mjlog_members if n.endswith("pao.xml"))
    data = mjlog_members[name]
    for cut in range(200, len(data), max(1, len(data) // 40)):
        out = replay_source(name, data[:cut])
        assert out.status in ("agree", "disagree", "error")
