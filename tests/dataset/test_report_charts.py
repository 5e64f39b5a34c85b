"""The report's charts, checked on the figure objects: labels, axes, texts (not pixels)."""
from __future__ import annotations

import warnings

import pytest

pytest.importorskip("matplotlib")

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd

from mjcore.dataset import reporting
from mjcore.dataset.reporting import FALLBACK_NOTE, Report, build_report, report_figures

NAMES = ["８００８", "高橋淳", "김철수", "张伟", "PIXI", "すずめクレイジー"]


def _report(names=NAMES, rates=(0.71, 0.66, 0.74, 0.69, 0.70, 0.68)) -> Report:
    players = [{"player": n, "discards": 4000 - 500 * i, "best_rate": r,
                "lost_per_discard": 0.5, "lost_per_hand": 2.0 + i / 4,
                "player_hands": 400 - 50 * i}
               for i, (n, r) in enumerate(zip(names, rates, strict=True))]
    rows = [1030, 68234, 60000, 50000, 30000, 9000, 37]
    turns = [{"turn": t, "mean_shanten": 3 - 0.3 * t, "discards": n, "sd_shanten": 1.0}
             for t, n in enumerate(rows)]
    return Report({"best_rate": 0.70, "lost_per_hand": 2.5, "discards": 1}, players, turns, {})


@pytest.fixture
def figures():
    made = report_figures(_report())
    yield made
    for fig in made.values():
        plt.close(fig)


def _ticks(ax) -> list[str]:
    return [t.get_text() for t in ax.get_yticklabels()]


def test_cjk_names_are_drawn(figures):
    for name in ("efficiency_by_player.png", "acceptance_lost_by_player.png"):
        fig = figures[name]
        assert _ticks(fig.axes[0]) == NAMES
        assert FALLBACK_NOTE not in [t.get_text() for t in fig.texts]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fig.canvas.draw()
        assert not [w for w in caught if "missing from" in str(w.message)]


def test_a_name_no_font_can_draw_falls_back_and_the_chart_says_so(monkeypatch):
    monkeypatch.setattr(reporting, "_fonts", ["DejaVu Sans"])
    monkeypatch.setattr(reporting, "_coverage", [])
    made = report_figures(_report())
    try:
        fig = made["efficiency_by_player.png"]
        assert _ticks(fig.axes[0]) == ["#1", "#2", "#3", "#4", "PIXI", "#6"]
        assert FALLBACK_NOTE in [t.get_text() for t in fig.texts]
        assert "N is its row" in FALLBACK_NOTE
    finally:
        for f in made.values():
            plt.close(f)


def test_efficiency_axis_is_zoomed_and_labelled_with_values_and_counts(figures):
    ax = figures["efficiency_by_player.png"].axes[0]
    low, high = ax.get_xlim()
    assert 55 < low < 66 and 74 < high < 85          # the spread, not 0..75
    assert "not from 0" in ax.get_xlabel() and f"{low:.0f}" in ax.get_xlabel()
    texts = [t.get_text() for t in ax.texts]
    assert texts[0] == "71.0 % of 4,000" and texts[-1] == "68.0 % of 1,500"
    assert any(t.get_text() == "all players (70.0 %)" for t in ax.get_legend().get_texts())


def test_acceptance_chart_has_the_all_players_line_and_values(figures):
    ax = figures["acceptance_lost_by_player.png"].axes[0]
    assert ax.get_xlim()[0] == 0                      # bars start at 0
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["all players (2.50)",
                                                                  "player"]
    assert [t.get_text() for t in ax.texts][:2] == ["2.00 in 400 hands", "2.25 in 350 hands"]


def test_shanten_by_turn_shows_rows_marks_few_and_has_integer_ticks(figures):
    fig = figures["shanten_by_turn.png"]
    means, counts = fig.axes
    assert list(counts.get_xticks()) == list(range(7))
    assert [round(p.get_height()) for p in counts.patches] == \
        [1030, 68234, 60000, 50000, 30000, 9000, 37]
    labels = [t.get_text() for t in means.get_legend().get_texts()]
    assert labels == ["mean (95 % interval)",
                      "fewer than 1,365 rows (2 % of the busiest turn)"]
    # the hollow markers are turns 0 and 6
    hollow = [line for line in means.lines if line.get_markerfacecolor() == "white"]
    assert [list(line.get_xdata()) for line in hollow] == [[0, 6]]


def test_the_report_gives_the_spread_of_shanten_per_turn():
    df = pd.DataFrame({"made_discard": [1] * 40 + [2] * 35, "made_best": True,
                       "acceptance_lost": 0, "turn": [3] * 40 + [4] * 35,
                       "shanten": [i % 4 for i in range(40)] + [1] * 35,
                       "game": 0, "hand": 0, "seat": 0, "player": "a"})
    by_turn = {t["turn"]: t for t in build_report(df).shanten_by_turn}
    assert abs(by_turn[3]["sd_shanten"] - df[df.turn == 3]["shanten"].std()) < 1e-12
    assert by_turn[4]["sd_shanten"] == 0.0
