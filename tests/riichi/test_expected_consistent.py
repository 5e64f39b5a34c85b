"""The consistent model of mjcore.expected_values: equal to a plain reading of it, its values the
real outcomes of its policy played out over random walls (within three standard errors over
1,000 hands), exact by enumerating every draw on small walls; true probabilities throughout."""
from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest

import mjcore
from mjcore.tiles import tile_name

from .ev_plain import Plain, enumerate_win, simulate

SEED = 20261202


def _random_hand(rng: random.Random, n_tiles: int, max_shanten: int) -> list[int]:
    wall = [k for k in range(34) for _ in range(4)]
    while True:
        rng.shuffle(wall)
        counts = [0] * 34
        for k in wall[:n_tiles]:
            counts[k] += 1
        if int(mjcore.batch.shanten([counts]).shanten[0]) <= max_shanten:
            return counts


def _text(counts: list[int] | tuple[int, ...]) -> str:
    return "".join(tile_name(k) * c for k, c in enumerate(counts))


def _ours(counts: list[int], **kw: object) -> mjcore.riichi.expected.ExpectedValues:
    return mjcore.expected_values(_text(counts), red=False, ura=False, **kw)  # type: ignore[arg-type]


def _plain(counts: list[int], visible: list[int] | None = None, **kw: object) -> Plain:
    seen = [c + (visible[k] if visible else 0) for k, c in enumerate(counts)]
    return Plain(tuple(counts), tuple(4 - s for s in seen), **kw)  # type: ignore[arg-type]


OPTIONS = [{"t_max": 8, "extra": 0, "tegawari": False, "shanten_down": False},
           {"t_max": 6, "extra": 1, "tegawari": True, "shanten_down": True}]


@pytest.mark.parametrize("n_tiles, opts", list(itertools.product((13, 14), OPTIONS)))
def test_equal_to_a_plain_reading_of_the_model(n_tiles: int, opts: dict) -> None:
    rng = random.Random(SEED + n_tiles)
    for _ in range(12 if opts["extra"] else 30):
        counts = _random_hand(rng, n_tiles, 1)
        plain = _plain(counts, **opts)
        r = _ours(counts, **opts)
        assert r.nodes == plain.nodes
        values = plain.values()
        got = {d.tile: d for d in r.discards}
        for tile, node in plain.candidates().items():
            d = got[None if tile is None else tile_name(tile)]
            for t in range(1, plain.t_max + 1):
                want = values[t][node]
                assert d.at(t) == pytest.approx(want, abs=1e-9, rel=1e-12), (counts, tile, t)


def test_the_policy_played_out_wins_as_often_as_its_values_say() -> None:
    """1,000 tenpai and 1-shanten hands, 13 tiles, t_max 8; 100 games each: the pooled win
    frequency and score within three standard errors of the model's, each hand within five."""
    rng = random.Random(SEED)
    diffs = var = score_diff = score_var = 0.0
    worst = 0.0
    for _ in range(1000):
        counts = _random_hand(rng, 13, 1)
        plain = _plain(counts, t_max=8)
        values = plain.values()
        start = (tuple(counts), False)
        model = values[1][start]
        r = _ours(counts, t_max=8, extra=0, tegawari=False, shanten_down=False)
        assert r.best.at(1) == pytest.approx(model, abs=1e-9)
        games = [simulate(plain, start, values, rng) for _ in range(100)]
        wins = sum(w for _, w, _ in games)
        p = model[1]
        diffs += wins - 100 * p
        var += 100 * p * (1 - p)
        points = [s for _, _, s in games]
        score_diff += sum(points) - 100 * model[2]
        score_var += 100 * float(np.var(points)) if any(points) else 0.0
        if 0 < p < 1:
            worst = max(worst, abs(wins - 100 * p) / math.sqrt(100 * p * (1 - p)))
    assert abs(diffs) <= 3 * math.sqrt(var), (diffs, math.sqrt(var))
    assert abs(score_diff) <= 3 * math.sqrt(score_var), (score_diff, math.sqrt(score_var))
    assert worst <= 5, worst


def test_exact_by_enumerating_every_draw_of_a_small_wall() -> None:
    rng = random.Random(SEED + 1)
    done = 0
    while done < 20:
        counts = _random_hand(rng, 13, 1)
        # all but six of the unseen tiles are seen elsewhere: a wall of six
        unseen = [k for k in range(34) for _ in range(4 - counts[k])]
        rng.shuffle(unseen)
        visible = [0] * 34
        for k in unseen[6:]:
            visible[k] += 1
        plain = _plain(counts, visible, t_max=4)
        values = plain.values()
        start = (tuple(counts), False)
        exact = enumerate_win(plain, start, 1, values)
        vis_text = _text(visible)
        r = _ours(counts, t_max=4, extra=0, tegawari=False, shanten_down=False, visible=vis_text)
        assert r.total_unseen == 6
        assert r.best.win[0] == pytest.approx(exact, abs=1e-12)
        assert values[1][start][1] == pytest.approx(exact, abs=1e-12)
        done += exact > 0


def test_every_value_is_a_probability_and_more_turns_never_lower_it() -> None:
    # hands mahjong-cpp's model can put over 100 % (mjcore/riichi/ev.md §4)
    rng = random.Random(SEED + 2)
    for _ in range(40):
        counts = _random_hand(rng, 14, 2)
        r = mjcore.expected_values(_text(counts), t_max=18)
        for d in r.discards:
            if not d.evaluated:
                continue
            for col in (d.tenpai, d.win, d.max_tenpai, d.max_win):
                assert all(0.0 <= v <= 1.0 + 1e-12 for v in col)
                assert all(a >= b - 1e-12 for a, b in itertools.pairwise(col))
            assert all(a >= b - 1e-9 for a, b in itertools.pairwise(d.ev))
            for a, b in zip(d.tenpai + d.win, d.max_tenpai + d.max_win, strict=True):
                assert a <= b + 1e-12           # the policy's never above the best of any
            assert all(w <= tp + 1e-12 for w, tp in zip(d.win, d.tenpai, strict=True))


def test_the_compatible_model_passes_one_where_the_consistent_one_does_not() -> None:
    # tenpai on 1m-4m-7m with nine of them among twelve unseen tiles: mahjong-cpp's weights stay
    # while S - t shrinks (mjcore/riichi/ev.md §4)
    hand = "23456m345p678s334z"
    counts = mjcore.hand.as_hand(hand).counts
    keep = {0: 3, 3: 3, 6: 3, 33: 3}
    visible = "".join(tile_name(k) * (4 - counts[k] - keep.get(k, 0)) for k in range(34))
    compatible = mjcore.expected_values(hand, visible=visible, t_max=10, model="compatible",
                                        red=False)
    consistent = mjcore.expected_values(hand, visible=visible, t_max=10, red=False)
    assert compatible.total_unseen == consistent.total_unseen == 12
    assert max(max(d.win) for d in compatible.discards if d.evaluated) > 1.0
    assert max(max(d.win) for d in consistent.discards if d.evaluated) <= 1.0
