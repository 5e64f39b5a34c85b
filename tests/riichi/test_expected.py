"""expected_values against mahjong-cpp 0.9.8's answers, a plain reading of the model, and bad
input (rules/ev.md; the data's README in ../shared/data/ev/)."""
from __future__ import annotations

import functools
import itertools
import json
import math
from pathlib import Path

import pytest

import mjcore
from mjcore import InvalidHandError, InvalidRuleError, batch

from .ev_records import EV_DATA, FILES, evaluate, max_shanten, records

pytestmark = pytest.mark.skipif(not EV_DATA.is_dir(), reason=f"no EV data at {EV_DATA}")

# Records whose expected score differs from mahjong-cpp's while the graph, the shanten, the
# necessary tiles and both probabilities agree exactly: the scoring of some winning hands
# (mjcore scores as tenhou.net does, checked on 13,558 real wins). Request line -> the largest
# difference in points over the discards and turns, held to 1e-6.
SCORING_DIFFERENCES: dict[str, float] = json.loads(
    (Path(__file__).parent / "ev_scoring_differences.json").read_text())


def _check(rec: dict) -> None:
    q = rec["request"]
    r = evaluate(q)
    assert r.ok, r.message
    assert r.shanten == rec["shanten"]
    assert r.nodes == rec["searched"]
    assert r.total_unseen == rec["wall"]
    ours = {d.tile or "Null": d for d in r.discards}
    theirs = {s["tile"]: s for s in rec["stats"]}
    # mahjong-cpp lists the discards its graph reached; we list every discard
    assert set(theirs) <= set(ours)
    assert {t for t, d in ours.items() if d.evaluated} == {t for t, s in theirs.items()
                                                            if "tenpai" in s}
    worst_ev = 0.0
    for tile, s in theirs.items():
        d = ours[tile]
        assert d.shanten == s["shanten"], tile
        assert [list(x) for x in d.necessary] == s["necessary"], tile
        if "tenpai" not in s:
            continue
        assert len(d.tenpai) == q["t_max"]
        for a, b in zip(d.tenpai + d.win, s["tenpai"] + s["win"], strict=False):
            assert abs(a - b) < 1e-9, (tile, a, b)
        worst_ev = max([worst_ev] + [abs(a - b) for a, b in zip(d.ev, s["ev"], strict=False)])
    expected = SCORING_DIFFERENCES.get(q["line"], 0.0)
    assert abs(worst_ev - expected) < 1e-6 if expected else worst_ev < 1e-6, (q["line"], worst_ev)


@pytest.mark.parametrize("name", FILES)
def test_every_record_agrees_with_mahjong_cpp(name: str) -> None:
    limit = max_shanten()
    done = 0
    for rec in records(name):
        if rec["shanten"] <= limit:
            _check(rec)
            done += 1
    assert done > 0


def test_the_listed_differences_are_few() -> None:
    assert len(SCORING_DIFFERENCES) < 60


# ---- a plain reading of the model (closed hands, red fives off: rules/ev.md §2-3) ----------

@functools.cache
def _shanten(h: tuple[int, ...]) -> int:
    import numpy as np
    return int(batch.shanten(np.array([h], dtype=np.uint8)).shanten[0])


def _plain(counts: tuple[int, ...], wall0: list[int], t_max: int, extra: int, down: bool,
           tegawari: bool) -> tuple[dict, int]:
    """Node count and per-answer tenpai and win rows, written plainly from the text."""
    s0 = _shanten(counts)
    total = sum(wall0)

    def plus(h, i, n=1):
        return h[:i] + (h[i] + n,) + h[i + 1:]

    def wall(h, i):
        return wall0[i] - (h[i] - counts[i])

    def dist(h):
        return sum(max(a - b, 0) for a, b in zip(h, counts, strict=False))

    draws: dict = {}
    discards: dict = {}
    edges: dict = {}
    todo = []

    def node(table, key):
        if key not in table:
            table[key] = None
            todo.append((table is draws, key))

    def add(y, d, w, wins):
        edges.setdefault(y, {}).setdefault(d, (w, wins))

    root = (counts, False)
    node(draws if sum(counts) % 3 == 1 else discards, root)
    while todo:
        is_draw, (h, r) = todo.pop()
        s = _shanten(h)
        if is_draw:
            draws[(h, r)] = s
            nec = {i for i in range(34) if h[i] < 4 and _shanten(plus(h, i)) < s}
            wide = tegawari and not r and dist(h) + s < s0 + extra
            for i in range(34):
                if wall(h, i) > 0 and (wide or i in nec):
                    d = (plus(h, i), r)
                    node(discards, d)
                    add((h, r), d, wall(h, i), s == 0 and i in nec)
        else:
            discards[(h, r)] = s
            unn = {i for i in range(34) if h[i] and _shanten(plus(h, i, -1)) == s}
            wide = down and not r and dist(h) + s < s0 + extra
            for i in range(34):
                if h[i] and (wide or i in unn):
                    y = (plus(h, i, -1), r or (s == 0 and i in unn))
                    node(draws, y)
                    add(y, (h, r), wall(y[0], i), s == -1)
    into: dict = {}
    for y, out in edges.items():
        for d in out:
            into.setdefault(d, []).append(y)
    nt = dict.fromkeys(draws, 0.0)
    nw = dict.fromkeys(draws, 0.0)
    dt = dict.fromkeys(discards, 0.0)
    dw = dict.fromkeys(discards, 0.0)
    rows: dict = {k: ([0.0] * t_max, [0.0] * t_max) for k in draws}
    for t in range(t_max, 0, -1):
        ct, cw = {}, {}
        for k, s in draws.items():
            if t == t_max:
                ct[k], cw[k] = (1.0 if s == 0 else 0.0), 0.0
            else:
                at = aw = 0.0
                for d, (w, wins) in edges.get(k, {}).items():
                    a, b = (1.0, 1.0) if wins else (dt[d], dw[d])
                    at += w * (a - nt[k])
                    aw += w * (b - nw[k])
                ct[k] = 1.0 if s == 0 else nt[k] + at / (total - t)
                cw[k] = nw[k] + aw / (total - t)
            rows[k][0][t - 1], rows[k][1][t - 1] = ct[k], cw[k]
        nt, nw = ct, cw
        dt = {d: max((ct[y] for y in into.get(d, ())), default=0.0) for d in discards}
        dw = {d: max((cw[y] for y in into.get(d, ())), default=0.0) for d in discards}
    return rows, len(draws) + len(discards)


SMALL_HANDS = ["123m456p789s1122z", "23467m123p567s11z9s", "1133557799m1357p",
               "2345m88p67s123z4z5z",
               "11223m445566p7s"]


@pytest.mark.parametrize("text", SMALL_HANDS)
@pytest.mark.parametrize("options", [(18, 1, True, True), (8, 0, True, False),
                                     (6, 1, False, True), (12, 2, True, True)])
def test_the_kernel_equals_a_plain_reading_of_the_model(text: str, options: tuple) -> None:
    t_max, extra, down, tegawari = options
    h = mjcore.Hand.parse(text)
    if mjcore.shanten(h) > 1 and extra > 1:
        pytest.skip("kept small")
    r = mjcore.expected_values(h, red=False, t_max=t_max, extra=extra, shanten_down=down,
                               tegawari=tegawari)
    wall0 = [4 - c for c in h.counts]
    rows, nodes = _plain(tuple(h.counts), wall0, t_max, extra, down, tegawari)
    assert r.nodes == nodes
    for d in r.discards:
        if not d.evaluated:
            continue
        counts = list(h.counts)
        if d.tile is not None:
            counts[mjcore.parse_tile(d.tile)] -= 1
        s = mjcore.shanten(h)
        riichi = d.tile is not None and s == 0 and d.shanten == 0
        tenpai, win = rows[(tuple(counts), riichi)]
        assert all(abs(a - b) < 1e-12 for a, b in zip(d.tenpai, tenpai, strict=False))
        assert all(abs(a - b) < 1e-12 for a, b in zip(d.win, win, strict=False))


# ---- what the values must satisfy in any model ---------------------------------------------

def test_values_are_monotone_in_the_turns_left_and_win_below_tenpai() -> None:
    r = mjcore.expected_values("23406899m123p56s4z", dora="2s3s")
    for d in r.discards:
        if not d.evaluated:
            continue
        # t counts the draws already made: more turns left (smaller t) never lowers a value
        for col in (d.tenpai, d.win, d.ev):
            assert all(a >= b - 1e-12 for a, b in itertools.pairwise(col))
        assert all(w <= tp + 1e-12 for w, tp in zip(d.win, d.tenpai, strict=False))
        assert d.tenpai[-1] in (0.0, 1.0) and d.win[-1] == 0.0


def test_a_tenpai_hand_wins_its_waits_with_the_right_chance_on_the_last_draw() -> None:
    # 13 tiles waiting on 1z/2z (2 copies each left of S = 123): at t = t_max - 1 one draw is
    # left, so win = 4 / (S - t) exactly
    r = mjcore.expected_values("123m456p789s1122z", t_max=5)
    d = r.best
    assert r.total_unseen == 123
    assert d.win[-2] == pytest.approx(4 / (123 - 4), abs=1e-15)
    assert d.tenpai == (1.0,) * 5


def test_the_result_reads_as_a_table_and_as_json() -> None:
    r = mjcore.expected_values("23406899m123p56s4z", dora="2s3s")
    text = repr(r)
    assert "discard" in text and "0m" in text
    data = json.loads(r.to_json())
    assert data["nodes"] == r.nodes and len(data["discards"]) == len(r.discards)
    assert data["discards"][0]["ev"][0] == r.best.ev[0]
    assert r.best.ev[0] == max(d.ev[0] for d in r.discards if d.evaluated)


# ---- bounds and bad input -------------------------------------------------------------------

def test_a_hand_above_the_searched_shanten_gets_its_discards_and_a_status() -> None:
    r = mjcore.expected_values("19m19p19s1234z258m7p")
    assert r.shanten >= 4 and not r.ok and r.status == "ev_shanten_too_high"
    assert "shanten" in r.message and r.nodes == 0
    assert all(not d.evaluated and d.necessary for d in r.discards)


def test_a_node_budget_stops_the_search_with_a_status() -> None:
    r = mjcore.expected_values("1367m2479p1358s12z", max_nodes=1000)
    assert r.status == "ev_node_budget" and r.nodes == 1000
    assert "1,000 nodes" in r.message


def test_a_deadline_stops_the_search_with_a_status() -> None:
    r = mjcore.expected_values("1367m2479p1358s12z", max_seconds=0.001, max_shanten=4)
    assert r.status == "ev_deadline"


@pytest.mark.parametrize("kwargs, words", [
    ({"hand": "123m456p789s11z"}, "13 or 14"),
    ({"hand": "123m456p789s1122z", "dora": "1z1z1z"}, "1z: 5 copies"),
    ({"hand": "123m456p789s1122z", "visible": "1z1z1z"}, "1z: 5 copies"),
    ({"hand": "123m456p789s1122z", "t_max": 0}, "t_max=0"),
    ({"hand": "123m456p789s1122z", "t_max": 25}, "t_max=25"),
    ({"hand": "123m456p789s1122z", "extra": -1}, "extra=-1"),
    ({"hand": "123m456p789s1122z", "seat_wind": "X"}, "seat_wind"),
    ({"hand": "123m456p789s1122z", "dora": [""]}, "empty"),
    ({"hand": "123m406p789s1122z", "visible": "0p"}, "0p: 2 red fives"),
    ({"hand": "123m456p789s1122z", "max_seconds": math.nan}, "max_seconds"),
])
def test_bad_input_is_an_invalid_hand_error_naming_it(kwargs: dict, words: str) -> None:
    hand = kwargs.pop("hand")
    with pytest.raises(InvalidHandError, match=words):
        mjcore.expected_values(hand, **kwargs)


def test_kita_needs_three_player_rules() -> None:
    with pytest.raises(InvalidRuleError):
        mjcore.expected_values("123p456p789s1122z", kita=1)
    r = mjcore.expected_values("123p456p789s1122z", kita=1, rules="tenhou_sanma")
    assert r.ok and r.total_unseen == 108 - 13 - 1 - 0


def test_three_player_hands_never_draw_2m_to_8m() -> None:
    r = mjcore.expected_values("19m456p789s11223z", rules="tenhou_sanma")
    assert r.ok
    for d in r.discards:
        assert not any(t[1] == "m" and t[0] in "2345678" for t, _n in d.necessary)
    with pytest.raises(InvalidHandError, match="2m-8m"):
        mjcore.expected_values("23m456p789s11223z", rules="tenhou_sanma")
