"""`mjcore analyze EXTRACT --out DIR --ev` (issue 26): the expected value of every discard
decision, from the record's turn and visible tiles; rows outside the bounds get a reason and
are counted; the report adds the EV measures per player; Dask gives identical parts."""
from __future__ import annotations

import json
import math
import re

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

import mjcore
from mjcore.cli import main
from mjcore.dataset.analysed_parts import read_table
from mjcore.dataset.analysis import analyze_dir
from mjcore.dataset.common import side_file
from mjcore.dataset.expected import EV_COLUMNS, EV_SIDE, RED_IDS, EvOptions, counts_of_melds
from mjcore.dataset.reporting import build_report, report_figures
from mjcore.tiles import tile_name

# cheap bounds: hands up to 1-shanten, so the tests stay fast
# (and time enough that the node budget, not the clock, bounds a row: identical runs)
CHEAP = EvOptions(max_shanten=1, max_nodes=100_000, max_seconds=30.0)
ROWS = 700


@pytest.fixture(scope="module")
def ev_parts(tmp_path_factory, extract_table):
    src = tmp_path_factory.mktemp("ev_in")
    table = extract_table.slice(0, 2 * ROWS)
    game = table.column("game").to_numpy()
    cut = int(np.flatnonzero(game == game[ROWS])[0])     # parts never split a game
    assert 0 < cut <= ROWS
    pq.write_table(table.slice(0, cut), src / "part-00000.parquet")
    pq.write_table(table.slice(cut), src / "part-00001.parquet")
    return src


@pytest.fixture(scope="module")
def ev_analysed(ev_parts, tmp_path_factory):
    out = tmp_path_factory.mktemp("ev_out")
    summary = analyze_dir(str(ev_parts), str(out), workers=2, ev=CHEAP)
    return out, summary


def _name(tile_id: int) -> str:
    return "0" + "mps"[tile_id // 36] if tile_id in RED_IDS else tile_name(tile_id >> 2)


def test_ev_columns_and_reasons(ev_analysed):
    out, summary = ev_analysed
    t = read_table(str(out)).to_pandas()
    assert summary.rows == 2 * ROWS
    assert set(EV_COLUMNS) <= set(t.columns)
    decisions = t["action"].isin(["discard", "riichi"])
    # every discard decision has a status, the other rows none
    assert t.loc[decisions, "ev_status"].notna().all()
    assert t.loc[~decisions, "ev_status"].isna().all()
    ok = t["ev_status"] == "ok"
    assert ok.sum() > 50
    # not evaluated: null values and a reason, never silently dropped
    reasons = set(t.loc[decisions & ~ok, "ev_status"])
    assert "ev_shanten_too_high" in reasons and reasons <= {
        "ev_shanten_too_high", "ev_node_budget", "ev_deadline", "in_riichi", "no_draws_left"}
    assert t.loc[decisions & ~ok, ["ev_best", "ev_made", "ev_loss"]].isna().all().all()
    assert (t.loc[decisions & ~ok & (t["ev_status"] == "ev_shanten_too_high"), "shanten"]
            > CHEAP.max_shanten - 1).all()
    # in riichi: the forced discard is not a decision of the model
    assert (t.loc[t["riichi"] & (t["action"] == "discard") & decisions, "ev_status"]
            == "in_riichi").all()
    e = t[ok]
    assert (e["ev_loss"] >= -1e-6).all()
    np.testing.assert_allclose(e["ev_loss"], e["ev_best"] - e["ev_made"])
    np.testing.assert_allclose(e["ev_win_loss"], e["ev_best_win"] - e["ev_made_win"])
    assert e["ev_made_best"].astype(bool).tolist() == \
        (e["ev_loss"] <= 1e-9 * np.maximum(1, e["ev_best"].abs())).tolist()
    assert ((e["ev_turn"] >= 1) & (e["ev_turn"] <= CHEAP.t_max)).all()
    np.testing.assert_array_equal(
        e["ev_turn"], CHEAP.t_max - np.minimum(e["tiles_left"] // 4, CHEAP.t_max) + 1)


def test_values_are_the_single_hand_apis(ev_analysed):
    """A few evaluated rows again through mjcore.expected_values with the hand, melds,
    indicators and visible tiles written out from the record."""
    out, _ = ev_analysed
    t = read_table(str(out))
    rows = [r for r in t.to_pylist() if r["ev_status"] == "ok"][:: 23][:6]
    assert rows
    for r in rows:
        closed = " ".join(_name(i) for i in r["closed"])
        melds = " ".join(r["melds"])
        hand = mjcore.Hand.parse(("".join(closed.split()) + " " + melds).strip())
        seen = np.frombuffer(r["visible"], np.uint8).astype(int)
        seen -= counts_of_melds(pa.array([r["melds"]], pa.list_(pa.string())), 1)[0]
        for d in r["dora_markers"]:
            seen[d >> 2] -= 1
        visible = "".join(tile_name(k) for k in range(34) for _ in range(seen[k]))
        dora = "".join(_name(d) for d in r["dora_markers"])
        ev = mjcore.expected_values(
            hand, dora=dora, round_wind=r["round_wind"] % 4,
            seat_wind=(r["seat"] - r["dealer"]) % 4, visible=visible or None,
            max_shanten=CHEAP.max_shanten, max_nodes=CHEAP.max_nodes, t_max=CHEAP.t_max)
        assert ev.ok
        turn = r["ev_turn"]
        best = max(d.at(turn)[2] for d in ev.discards if d.evaluated)
        made = next(d for d in ev.discards if d.tile == _name(r["tile"]))
        assert math.isclose(r["ev_best"], best, rel_tol=1e-9, abs_tol=1e-9)
        assert math.isclose(r["ev_made"], made.at(turn)[2], rel_tol=1e-9, abs_tol=1e-9)
        assert math.isclose(r["ev_made_win"], made.at(turn)[1], rel_tol=1e-9, abs_tol=1e-12)


def test_report_has_the_ev_measures_per_player(ev_analysed):
    out, _ = ev_analysed
    rep = build_report(str(out))
    o = rep.overall
    t = read_table(str(out)).to_pandas()
    ok = t[t["ev_status"] == "ok"]
    assert o["ev_discards"] == len(ok)
    assert o["ev_best_rate"] == pytest.approx(ok["ev_made_best"].mean())
    assert o["ev_lost_per_discard"] == pytest.approx(ok["ev_loss"].mean())
    per_hand = ok.groupby(["game", "hand", "seat"])["ev_loss"].sum()
    assert o["ev_lost_per_hand"] == pytest.approx(per_hand.mean())
    skipped = t.loc[t["ev_status"].notna() & (t["ev_status"] != "ok"), "ev_status"]
    assert o["ev_skipped"] == skipped.value_counts().to_dict()
    first = rep.players[0]
    mine = ok[ok["player"] == first["player"]]
    assert first["ev_discards"] == len(mine)
    assert first["win_lost_per_discard"] == pytest.approx(mine["ev_win_loss"].mean())
    assert "expected value:" in rep.text() and "EV-best" in rep.text()
    json.dumps(rep.as_dict())
    figures = report_figures(rep)
    assert {"ev_best_by_player.png", "ev_lost_by_player.png"} <= set(figures)
    import matplotlib.pyplot as plt

    for fig in figures.values():
        plt.close(fig)


def test_without_ev_nothing_changes(ev_parts, tmp_path):
    plain = analyze_dir(str(ev_parts), str(tmp_path / "plain"), workers=2)
    assert plain.rows == 2 * ROWS
    assert not set(EV_COLUMNS) & set(read_table(str(tmp_path / "plain")).column_names)
    assert "ev_discards" not in build_report(str(tmp_path / "plain")).overall
    # asking for --ev on the same folder redoes it with the side table
    again = analyze_dir(str(ev_parts), str(tmp_path / "plain"), workers=2, ev=CHEAP)
    assert again.resumed == 0
    assert set(EV_COLUMNS) <= set(read_table(str(tmp_path / "plain")).column_names)


def test_ev_needs_an_extract(tmp_path):
    path = tmp_path / "hands.txt"
    path.write_text("123m456p789s11z234m\n")
    summary = analyze_dir(str(path), str(tmp_path / "out"), ev=CHEAP)
    assert [p.reason for p in summary.problems] == ["bad_table"]
    assert "--ev needs an extract" in summary.problems[0].detail


def test_cli_ev_table_job(ev_parts, tmp_path):
    r = CliRunner().invoke(main, ["analyze", str(ev_parts), "--out", str(tmp_path / "an"),
                                  "--ev", "--max-shanten", "0", "--no-progress"])
    assert r.exit_code == 0, r.output
    t = read_table(str(tmp_path / "an")).to_pandas()
    assert (t.loc[t["ev_status"] == "ok", "shanten"] <= 1).all()
    assert json.loads((tmp_path / "an" / "_analyze.json").read_text())["ev"]["max_shanten"] == 0


def test_cli_ev_table_job_takes_the_engine_options(ev_parts, ev_analysed, tmp_path):
    """--model, --extra and the bounds reach the search: the parts equal analyze_dir's with
    the same EvOptions, and differ from the consistent model's."""
    r = CliRunner().invoke(main, ["analyze", str(ev_parts), "--out", str(tmp_path / "an"),
                                  "--ev", "--max-shanten", "1", "--max-nodes", "100000",
                                  "--max-seconds", "30", "--model", "compatible",
                                  "--extra", "0", "--no-progress"])
    assert r.exit_code == 0, r.output
    options = EvOptions(max_shanten=1, max_nodes=100_000, max_seconds=30.0,
                        model="compatible", extra=0)
    manifest = json.loads((tmp_path / "an" / "_analyze.json").read_text())["ev"]
    assert manifest == options.as_dict()
    analyze_dir(str(ev_parts), str(tmp_path / "lib"), workers=2, ev=options)
    cli, lib = read_table(str(tmp_path / "an")), read_table(str(tmp_path / "lib"))
    assert cli.equals(lib)
    consistent = read_table(str(ev_analysed[0])).to_pandas()
    ok = consistent["ev_status"] == "ok"
    assert ok.sum() > 100
    t = cli.to_pandas()
    assert (t.loc[ok, "ev_best"] != consistent.loc[ok, "ev_best"]).any()
    # with --extra 0 a discard that raises the shanten is outside the model: the best is
    # known, the made one's values are null (at the defaults every discard is searched)
    outside = (t["ev_status"] == "ok") & t["ev_made"].isna()
    assert outside.any()
    assert (t.loc[outside, "made_shanten"] > t.loc[outside, "shanten"]).all()
    assert t.loc[outside, ["ev_made_win", "ev_loss", "ev_win_loss", "ev_made_best"]] \
        .isna().all().all()
    assert not (ok & consistent["ev_made"].isna()).any()
    o = build_report(str(tmp_path / "an")).overall
    assert o["ev_skipped"]["made_discard_not_searched"] == int(outside.sum())
    assert o["ev_discards"] == int(((t["ev_status"] == "ok") & ~outside).sum())


@pytest.mark.parametrize("args, words", [
    (["--ev", "--turn", "3"], "--turn: the table job (--out, --dask) takes it from each record"),
    (["--visible", "1z", "--seat", "S", "--ev"], "--visible, --seat: the table job"),
    (["--model", "compatible"], "--model goes with --ev"),
    (["--max-nodes", "10", "--extra", "0"], "--extra, --max-nodes go with --ev"),
    (["--ev", "--max-nodes", "0"], "--max-nodes"),
    (["--ev", "--max-seconds", "0"], "--max-seconds"),
    (["--ev", "--max-seconds", "nan"], "nan is not a number of seconds"),
])
def test_cli_table_job_refuses_options_it_does_not_take(ev_parts, tmp_path, args, words):
    r = CliRunner().invoke(main, ["analyze", str(ev_parts), "--out", str(tmp_path / "an"),
                                  "--no-progress", *args])
    assert r.exit_code == 2, r.output
    assert words in r.output
    assert not (tmp_path / "an").exists()


@pytest.mark.parametrize("kwargs, words", [
    ({"model": "greedy"}, "greedy"), ({"clock": "gpu"}, "clock='gpu'"),
    ({"max_seconds": float("nan")}, "max_seconds=nan"), ({"t_max": 25}, "t_max=25"),
    ({"extra": 5}, "extra=5"), ({"max_nodes": 0}, "max_nodes=0"),
])
def test_bad_ev_options_are_refused_when_made(kwargs, words):
    with pytest.raises(mjcore.InvalidHandError, match=re.escape(words)):
        EvOptions(**kwargs)


def test_dask_local_gives_identical_parts(ev_parts, ev_analysed, tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    out, _ = ev_analysed
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        there = analyze_dir(str(ev_parts), str(tmp_path / "there"),
                            dask=cluster.scheduler_address, ev=CHEAP)
    assert there.rows == 2 * ROWS
    for name in ("part-00000.parquet", "part-00001.parquet"):
        a = pq.read_table(side_file(str(out / name), EV_SIDE, reading=True))
        b = pq.read_table(side_file(str(tmp_path / "there" / name), EV_SIDE, reading=True))
        assert a.equals(b)
    assert read_table(str(out)).equals(read_table(str(tmp_path / "there")))
