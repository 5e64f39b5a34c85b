"""Every record format `mjcore play` writes, `mjcore replay` reads: tenhou.net/6 JSON records
replay through the engine, under the rules they were played with."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from mjcore.cli import main
from mjcore.engine.agents import make_agent
from mjcore.engine.events import write_mjai
from mjcore.engine.game import play_game
from mjcore.engine.tenhou import dumps_tenhou6, read_tenhou6
from mjcore.errors import InvalidHandError


@pytest.mark.parametrize("preset", ["tenhou", "ema"])
def test_play_tenhou6_records_replay(tmp_path, preset):
    out = tmp_path / "games"
    r = CliRunner().invoke(main, ["play", "--games", "12", "--seed", "40", "--rules", preset,
                                  "--agents", "efficiency,random", "--format", "tenhou6",
                                  "--out", str(out), "--no-progress"])
    assert r.exit_code == 0, r.output
    assert len(list(out.glob("*.tenhou6.json"))) == 12
    r = CliRunner().invoke(main, ["replay", str(out), "--json", "--no-progress"])
    outcomes = [json.loads(line) for line in r.stdout.splitlines()]
    assert [o["status"] for o in outcomes] == ["agree"] * 12, outcomes
    assert r.exit_code == 0


def test_tenhou6_reads_back_the_same_events():
    """Draws, discards, calls, kans, kan dora, riichi and results come back as the mjai record
    has them (tile copies aside)."""
    seen = set()
    for seed in range(8):
        agents = [make_agent(n, seed * 4 + i) for i, n in
                  enumerate(["efficiency", "random", "efficiency", "random"])]
        res = play_game(agents, seed=seed)
        back = read_tenhou6(dumps_tenhou6(res.events), f"seed {seed}")
        keys = ("type", "actor", "target", "pai", "consumed", "dora_marker", "deltas",
                "tenpais", "reason", "tsumogiri")
        want = [json.loads(line) for line in write_mjai(res.events)]
        got = [json.loads(line) for line in write_mjai(back)]
        assert len(got) == len(want)
        for w, g in zip(want, got, strict=True):
            seen.add(w["type"])
            for k in keys:
                if k in ("consumed",) and k in w:
                    assert sorted(g[k]) == sorted(w[k]), (w, g)
                elif k in w and w["type"] not in ("start_game",):
                    assert g.get(k) == w[k], (k, w, g)
    assert {"chi", "pon", "reach_accepted", "hora", "ryukyoku"} <= seen


def test_malformed_tenhou6_is_an_invalid_hand_error():
    with pytest.raises(InvalidHandError, match=r"not a tenhou\.net/6 record"):
        read_tenhou6('{"title": []}', "x.json")
    with pytest.raises(InvalidHandError, match=r"x\.json hand 1"):
        read_tenhou6('{"log": [[[0, 0, 0], [25000, 25000, 25000, 25000]]]}', "x.json")
    with pytest.raises(InvalidHandError, match="tile code"):
        read_tenhou6('{"log": [[[0,0,0],[1,1,1,1],[99],[],[11],[],[],[11],[],[],[11],[],[],'
                     '[11],[],[],["流局",[0,0,0,0]]]]}', "x.json")
