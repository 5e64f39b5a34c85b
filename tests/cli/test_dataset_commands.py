"""The three commands end to end, and the report's numbers against the table."""
from __future__ import annotations

import json
import unicodedata

import pytest

pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

import pandas as pd
from click.testing import CliRunner

from mjcore.cli import main
from mjcore.dataset.analysed_parts import read_table
from mjcore.dataset.reporting import build_report

PNG = b"\x89PNG\r\n\x1a\n"


def test_extract_analyze_report(records_dir, tmp_path):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "broken.xml").write_text('<mjloggm ver="2.3"><GO type="169"/><INIT seed="x"/>')
    runner = CliRunner()
    ex, an, plots = tmp_path / "ex", tmp_path / "an", tmp_path / "plots"
    r = runner.invoke(main, ["extract", str(records_dir), str(bad), "--out", str(ex),
                             "--per-part", "10", "--no-progress", "-j", "1"])
    assert r.exit_code == 0, r.output
    assert "records ->" in r.output and "three_player" not in r.output   # sanma is extracted
    assert "broken.xml" in r.output and "bad_mjlog" in r.output
    r = runner.invoke(main, ["analyze", str(ex), "--out", str(an), "--no-progress"])
    assert r.exit_code == 0, r.output
    assert "rows analysed" in r.output
    r = runner.invoke(main, ["report", str(an), "--json", "--plots", str(plots)])
    assert r.exit_code == 0, r.output
    rep = json.loads(r.stdout.splitlines()[0])
    assert "three_player" not in rep["skipped"] and rep["skipped"]["bad_mjlog"] == 1
    assert set(rep["by_seats"]) == {"3", "4"}
    for name in ("efficiency_by_player.png", "acceptance_lost_by_player.png",
                 "shanten_by_turn.png"):
        assert (plots / name).read_bytes()[:8] == PNG
    text = runner.invoke(main, ["report", str(an)])
    assert text.exit_code == 0 and "efficiency-best" in text.output
    assert "skipped:" in text.output and "bad_mjlog 1" in text.output

    # the report's numbers, computed again from the table
    df = read_table(str(an)).to_pandas()
    three = df["players"] == 3
    df.loc[three, "player"] = df.loc[three, "player"] + " (3p)"
    d = df[df["made_discard"].notna()]
    o = rep["overall"]
    assert o["rows"] == len(df) and o["discards"] == len(d)
    assert abs(o["best_rate"] - d["made_best"].astype(bool).mean()) < 1e-12
    assert abs(o["lost_per_discard"] - d["acceptance_lost"].mean()) < 1e-12
    per_hand = d.groupby(["game", "hand", "seat"])["acceptance_lost"].sum()
    assert abs(o["lost_per_hand"] - per_hand.mean()) < 1e-12
    top = rep["players"][0]
    mine = d[d["player"] == top["player"]]
    assert top["discards"] == len(mine) == max(d["player"].value_counts())
    assert o["wins"] == o["wins_agree"] > 0
    turns = {t["turn"]: t["mean_shanten"] for t in rep["shanten_by_turn"]}
    four = d[d["players"] == 4]       # three-player turns are apart (by_seats)
    assert abs(turns[5] - four[four["turn"] == 5]["shanten"].mean()) < 1e-12
    for seats, rows in (("4", four), ("3", d[d["players"] == 3])):
        b = rep["by_seats"][seats]
        assert b["discards"] == len(rows) > 0
        assert abs(b["best_rate"] - rows["made_best"].astype(bool).mean()) < 1e-12
        for t in b["shanten_by_turn"]:
            at = rows[rows["turn"] == t["turn"]]["shanten"]
            assert t["discards"] == len(at) and abs(t["mean_shanten"] - at.mean()) < 1e-12
    assert sum(b["rows"] for b in rep["by_seats"].values()) == o["rows"]
    assert rep["by_seats"]["4"]["shanten_by_turn"] == rep["shanten_by_turn"]


def test_report_from_python_objects(analysed_table):
    rep = build_report(analysed_table)
    assert rep.overall["discards"] > 1000 and rep.players
    again = build_report(analysed_table.to_pandas())
    assert again.overall == rep.overall
    assert isinstance(pd.DataFrame(rep.players), pd.DataFrame)


def test_player_names_of_wide_characters_keep_the_columns_aligned():
    from mjcore.dataset.reporting import _pad

    for name in ("高橋淳", "PIXI", "滝本ひふみ！", "ＡＢＣＤＥＦＧＨＩＪＫＬＭＮＯＰ", "a" * 30,
                 "e\u0301x"):
        padded = _pad(name, 24)
        cols = sum(0 if unicodedata.combining(c) else
                   2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in padded)
        assert cols == 24, (name, padded)
    assert _pad("高橋淳", 24).startswith("高橋淳 ") and _pad("a" * 30, 24) == "a" * 23 + "~"


def test_unreachable_scheduler_is_a_message(tmp_path, monkeypatch, extract_table):
    import importlib

    import pyarrow.parquet as pq

    monkeypatch.setattr(importlib.import_module("mjcore.dataset.dask_driver"),
                        "DASK_CONNECT_TIMEOUT", 1)
    src = tmp_path / "in"
    src.mkdir()
    pq.write_table(extract_table.slice(0, 100), src / "part-00000.parquet")
    r = CliRunner().invoke(main, ["analyze", str(src), "--out", str(tmp_path / "o"),
                                  "--dask", "tcp://127.0.0.1:1", "--no-progress"])
    assert r.exit_code == 1 and "cannot reach the Dask scheduler at tcp://127.0.0.1:1" in \
        r.output


def test_errors_are_messages(tmp_path):
    runner = CliRunner()
    r = runner.invoke(main, ["report", str(tmp_path)])
    assert r.exit_code == 1 and "no Parquet parts" in r.output
    r = runner.invoke(main, ["analyze", str(tmp_path / "none"), "--out", str(tmp_path / "o")])
    assert r.exit_code == 1 and "no such file" in r.output
    r = runner.invoke(main, ["analyze", "123m", "--dask", "local"])
    assert r.exit_code == 2 and "--dask needs --out" in r.output


def test_plots_folder_that_cannot_be_created_is_one_line(tmp_path, analysed_table):
    import pyarrow.parquet as pq

    table = tmp_path / "an"
    table.mkdir()
    pq.write_table(analysed_table, table / "part-00000.parquet")
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n")
    r = CliRunner().invoke(main, ["report", str(table), "--plots", str(blocker / "plots")])
    assert r.exit_code == 1, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert "Traceback" not in r.output
    assert r.stderr.strip().splitlines() == [
        f"Error: --plots {str(blocker / 'plots')!r}: cannot create the folder: Not a directory"]
    assert r.stdout == ""      # (it fails before the report is built and printed)
