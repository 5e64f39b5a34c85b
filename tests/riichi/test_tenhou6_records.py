"""Every record format `mjcore play` writes, `mjcore replay` reads: tenhou.net/6 JSON records
replay through the engine, under the rules they were played with."""
from __future__ import annotations

import json
import random
from typing import Any

import pytest
from click.testing import CliRunner

from mjcore.cli import main
from mjcore.errors import InvalidHandError
from mjcore.riichi.agents import make_agent
from mjcore.riichi.events import write_mjai
from mjcore.riichi.game import play_game
from mjcore.riichi.tenhou6 import dumps_tenhou6, read_tenhou6


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


def test_final_scores_that_are_not_numbers_are_bad_tenhou6():
    res = play_game([make_agent("efficiency", i) for i in range(4)], seed=3)
    doc = json.loads(dumps_tenhou6(res.events))
    doc["sc"][3] = "k11111111"
    with pytest.raises(InvalidHandError, match=r"x\.json: sc .*expected 8 numbers") as err:
        read_tenhou6(json.dumps(doc), "x.json")
    assert err.value.reason == "bad_tenhou6"


def _mutate(x: Any, rng: random.Random) -> Any:
    """One random change deep in a JSON value: a value replaced, removed, doubled or nudged."""
    if isinstance(x, list) and x:
        i, r = rng.randrange(len(x)), rng.random()
        if r < 0.5:
            x[i] = _mutate(x[i], rng)
        elif r < 0.7:
            del x[i]
        elif r < 0.85:
            x[i] = rng.choice([0, 60, 44, -1, 99, "r11", "c121314", "p111111", "a11111111",
                               "k11111111", "和了", [], None, {}])
        else:
            x.insert(i, x[i])
    elif isinstance(x, dict) and x:
        k = rng.choice(list(x))
        x[k] = _mutate(x[k], rng)
    elif isinstance(x, int) and not isinstance(x, bool):
        return x + rng.choice([-1, 1, 10])
    return x


def test_mutated_tenhou6_records_are_read_or_refused_never_a_crash():
    """Seeded mutation fuzz over real-shaped records: every read either gives events or an
    InvalidHandError naming the record (it found a final-score list of non-numbers)."""
    rng = random.Random(20261203)
    texts = [dumps_tenhou6(play_game([make_agent("efficiency", 4 * s + i) for i in range(4)],
                                     seed=s).events) for s in range(3)]
    refused = 0
    for i in range(600):
        doc = json.loads(texts[i % len(texts)])
        for _ in range(rng.randrange(1, 4)):
            _mutate(doc, rng)
        try:
            read_tenhou6(json.dumps(doc, ensure_ascii=False), f"m{i}.json")
        except InvalidHandError as exc:
            assert str(exc).startswith(f"m{i}.json"), exc
            refused += 1
    assert 0 < refused < 600
