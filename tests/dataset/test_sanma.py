"""Three-player (sanma) records in the bulk path (issue 26): extracted with the `players` and
`kita` columns and a row per north set aside, analysed without 2m-8m, their wins scored and
their discards evaluated under `tenhou_sanma`, and reported apart from four-player games."""
from __future__ import annotations

import json
import math
import tarfile

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import mjcore
from mjcore.dataset.analysed_parts import read_table
from mjcore.dataset.analysis import analyze_dir
from mjcore.dataset.analysis_columns import analyze_table
from mjcore.dataset.common import Problem, side_file
from mjcore.dataset.expected import EV_SIDE, RED_IDS, EvOptions, counts_of_melds
from mjcore.dataset.extraction import extract
from mjcore.dataset.reporting import build_report, report_figures
from mjcore.riichi.mjlog import _decode, read_mjlog
from mjcore.tiles import tile_name

from .conftest import ARCHIVE

NORTH = 30
SANMA_LIVE_WALL = 55
# cheap bounds (the node budget, not the clock, bounds a row: identical runs)
CHEAP = EvOptions(max_shanten=1, max_nodes=100_000, max_seconds=30.0)


SANMA_RECORDS = 3


@pytest.fixture(scope="module")
def sanma_dir(tmp_path_factory):
    """The first few three-player records of the shipped archive, as files."""
    if not ARCHIVE.exists():
        pytest.skip(f"Tenhou data not found at {ARCHIVE}")
    root = tmp_path_factory.mktemp("sanma")
    picked: dict[str, bytes] = {}
    with tarfile.open(ARCHIVE) as tar:
        for m in tar:
            f = tar.extractfile(m) if m.isfile() else None
            data = f.read() if f is not None else b""
            if b'<GO type="185"' in data[:4000]:
                picked[m.name] = data
                if len(picked) == SANMA_RECORDS:
                    break
    assert len(picked) == SANMA_RECORDS
    for name, data in picked.items():
        (root / name.replace("/", "__")).write_bytes(data)
    return root, picked


@pytest.fixture(scope="module")
def sanma_table(sanma_dir):
    root, _ = sanma_dir
    return extract(str(root), workers=1, records_per_partition=2)


@pytest.fixture(scope="module")
def sanma_analysed(sanma_table):
    return analyze_table(sanma_table, n_threads=2)


def test_sanma_records_are_extracted(sanma_dir, sanma_table):
    _, picked = sanma_dir
    from mjcore.dataset.extraction import problems_of

    assert problems_of(sanma_table) == []
    t = sanma_table.to_pandas()
    assert t["game"].nunique() == len(picked)
    assert (t["players"] == 3).all() and set(t["seat"]) == {0, 1, 2}
    assert (t["scores"].map(lambda s: s[3]) == 0).all()         # the empty fourth seat
    assert t["tiles_left"].between(0, SANMA_LIVE_WALL - 1).all()
    # every north set aside is a `kita` row, in record order
    declared = 0
    for name, data in picked.items():
        events = read_mjlog(_decode(data, name), name).events
        declared += sum(ev["type"] == "kita" for ev in events)
    kita_rows = t[t["action"] == "kita"]
    assert len(kita_rows) == declared > 0
    assert (kita_rows["tile"] // 4 == NORTH).all()
    assert (t.groupby("game")["decision"].diff().dropna() == 1).all()


def test_kita_rows_and_column(sanma_dir, sanma_table):
    _, picked = sanma_dir
    t = sanma_table.to_pandas()
    for _, hand in t.groupby(["game", "hand"]):
        for _seat, rows in hand.groupby("seat"):
            kita = rows["kita"].to_numpy()
            declared = (rows["action"] == "kita").to_numpy()
            # the column counts the norths set aside before the row's decision
            assert kita.tolist() == np.concatenate([[0], np.cumsum(declared)[:-1]]).tolist()
            for _, r in rows[declared].iterrows():
                assert r["tile"] in r["closed"] and len(r["closed"]) % 3 == 2
    # the live wall: 55 draws in a hand, a kita's replacement draw among them
    for name, data in picked.items():
        events = read_mjlog(_decode(data, name), name).events
        draws, left = 0, {}
        for i, ev in enumerate(events):
            draws = 0 if ev["type"] == "start_kyoku" else draws + (ev["type"] == "tsumo")
            left[i] = SANMA_LIVE_WALL - draws
        rows = t[t["source"].str.endswith(name.replace("/", "__"))]
        assert len(rows) and rows["tiles_left"].tolist() == [left[e] for e in rows["event"]]


def test_sanma_wins_score_as_recorded(sanma_analysed):
    wins = sanma_analysed.filter(pc.is_valid(sanma_analysed.column("score_status")))
    w = wins.to_pandas()
    assert len(w) > 10 and (w["score_status"] == "win").all()
    assert (w["score_points"] == w["win_points"]).all()
    plain = w[w["score_yakuman"] == 0]
    assert (plain["score_han"] == plain["win_han"]).all()
    assert (plain["score_fu"] == plain["win_fu"]).all()
    assert (w["kita"] > 0).any()        # norths set aside count as dora


def test_sanma_rows_analysed_without_2m_to_8m(sanma_analysed):
    t = sanma_analysed
    assert t.column("analysis_error").null_count == t.num_rows
    rows = [r for r in t.to_pylist() if r["action"] == "discard"][::53][:40]
    assert rows
    for r in rows:
        text = "".join(tile_name(i >> 2) for i in r["closed"]) + "".join(
            " " + m for m in r["melds"])
        seen = np.frombuffer(r["visible"], np.uint8).astype(int)
        seen -= counts_of_melds(pa.array([r["melds"]], pa.list_(pa.string())), 1)[0]
        visible = [k for k in range(34) for _ in range(seen[k])]
        u = mjcore.ukeire(text, visible, "tenhou_sanma")
        assert (r["best_shanten"], r["best_ukeire"]) == (u.options[0].shanten,
                                                         u.options[0].remaining)


def test_not_in_sanma_is_a_row_error():
    hands = ["19m123p456p789s11z", "19m123p456p789s1z5m", "19m123p456p789s1z5m"]
    table = pa.table({"hand": hands, "players": pa.array([3, 3, 4], pa.int8())})
    problems: list[Problem] = []
    out = analyze_table(table, problems=problems).to_pandas()
    assert out["analysis_error"][[0, 2]].isna().all()
    assert out["analysis_error"][1].startswith("not_in_sanma: ")
    assert "5m" in out["analysis_error"][1]
    assert [(p.row, p.reason) for p in problems] == [(1, "not_in_sanma")]
    # 2m-8m never advance a sanma hand: only 1m and 9m do here (and the four-player hand
    # takes 2m, 3m, 7m, 8m too)
    assert out["ukeire"][0] == mjcore.ukeire(hands[0], rules="tenhou_sanma").options[0].remaining
    four = analyze_table(table.slice(0, 1).drop_columns(["players"]))
    assert four.column("ukeire")[0].as_py() > out["ukeire"][0]
    # without a players column the rules say it
    by_rules = analyze_table(pa.table({"hand": hands[:2],
                                       "rules": [json.dumps({"players": 3})] * 2}))
    assert by_rules.column("analysis_error")[1].as_py().startswith("not_in_sanma")
    assert by_rules.column("ukeire")[0].as_py() == out["ukeire"][0]


@pytest.fixture(scope="module")
def ev_sanma(sanma_table, tmp_path_factory):
    """Two parts of a few hundred sanma rows, analysed with --ev (cheap bounds)."""
    src = tmp_path_factory.mktemp("ev_sanma_in")
    table = sanma_table.slice(0, 400)
    pq.write_table(table.slice(0, 200), src / "part-00000.parquet")
    pq.write_table(table.slice(200), src / "part-00001.parquet")
    out = tmp_path_factory.mktemp("ev_sanma_out")
    summary = analyze_dir(str(src), str(out), workers=2, ev=CHEAP)
    return src, out, summary


def _name(tile_id: int) -> str:
    return "0" + "mps"[tile_id // 36] if tile_id in RED_IDS else tile_name(tile_id >> 2)


def test_sanma_discards_are_evaluated(ev_sanma):
    _, out, summary = ev_sanma
    assert summary.rows == 400
    t = read_table(str(out)).to_pandas()
    decisions = t["action"].isin(["discard", "riichi"])
    assert t.loc[decisions, "ev_status"].notna().all()
    assert "three_player" not in set(t["ev_status"].dropna())
    e = t[t["ev_status"] == "ok"]
    assert len(e) > 30
    # the live wall is shared by three
    np.testing.assert_array_equal(
        e["ev_turn"], CHEAP.t_max - np.minimum(e["tiles_left"] // 3, CHEAP.t_max) + 1)
    rows = [r for r in read_table(str(out)).to_pylist()
            if r["ev_status"] == "ok" and r["kita"] > 0][::7][:4]
    assert rows
    for r in rows:
        hand = mjcore.Hand.parse(("".join(_name(i) for i in r["closed"]) + " "
                                  + " ".join(r["melds"])).strip())
        seen = np.frombuffer(r["visible"], np.uint8).astype(int)
        seen -= counts_of_melds(pa.array([r["melds"]], pa.list_(pa.string())), 1)[0]
        for d in r["dora_markers"]:
            seen[d >> 2] -= 1
        seen[NORTH] -= r["kita"]          # the seat's own norths: given as kita
        visible = "".join(tile_name(k) for k in range(34) for _ in range(seen[k]))
        ev = mjcore.expected_values(
            hand, dora="".join(_name(d) for d in r["dora_markers"]),
            round_wind=r["round_wind"], seat_wind=(r["seat"] - r["dealer"]) % 3,
            visible=visible or None, kita=r["kita"], rules="tenhou_sanma",
            max_shanten=CHEAP.max_shanten, max_nodes=CHEAP.max_nodes, t_max=CHEAP.t_max)
        assert ev.ok
        made = next(d for d in ev.discards if d.tile == _name(r["tile"]))
        best = max(d.at(r["ev_turn"])[2] for d in ev.discards if d.evaluated)
        assert math.isclose(r["ev_best"], best, rel_tol=1e-9, abs_tol=1e-9)
        assert math.isclose(r["ev_made"], made.at(r["ev_turn"])[2], rel_tol=1e-9,
                            abs_tol=1e-9)


def test_dask_gives_identical_sanma_parts(ev_sanma, tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    src, out, _ = ev_sanma
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        there = analyze_dir(str(src), str(tmp_path / "there"),
                            dask=cluster.scheduler_address, ev=CHEAP)
    assert there.rows == 400
    for name in ("part-00000.parquet", "part-00001.parquet"):
        a = pq.read_table(side_file(str(out / name), EV_SIDE, reading=True))
        b = pq.read_table(side_file(str(tmp_path / "there" / name), EV_SIDE, reading=True))
        assert a.equals(b)
    assert read_table(str(out)).equals(read_table(str(tmp_path / "there")))


def test_report_keeps_three_and_four_players_apart(sanma_dir, records_dir):
    table = analyze_table(extract([str(sanma_dir[0]), str(records_dir)], workers=1),
                          n_threads=2)
    rep = build_report(table)
    assert set(rep.by_seats) == {"3", "4"}
    t = table.to_pandas()
    for seats, b in rep.by_seats.items():
        rows = t[t["players"] == int(seats)]
        assert b["rows"] == len(rows) and b["games"] == rows["game"].nunique()
        assert b["discards"] == rows["made_discard"].notna().sum()
    assert rep.shanten_by_turn == rep.by_seats["4"]["shanten_by_turn"]
    three_names = set(t.loc[t["players"] == 3, "player"])
    labelled = {p["player"] for p in rep.players if p["player"].endswith(" (3p)")}
    assert labelled == {f"{n} (3p)" for n in three_names}
    assert "three players:" in rep.text() and "four players:" in rep.text()
    import matplotlib.pyplot as plt

    figures = report_figures(rep)
    try:
        assert "shanten_by_turn_three_player.png" in figures
        assert "three-player" in figures["shanten_by_turn_three_player.png"].axes[0].get_title()
    finally:
        for fig in figures.values():
            plt.close(fig)


def test_an_extract_of_the_older_layout_is_redone(sanma_dir, tmp_path):
    root, _ = sanma_dir
    out = tmp_path / "ex"
    first = extract(str(root), str(out), records_per_partition=2, workers=1)
    assert first.rows > 0 and first.resumed == 0
    manifest = out / "_extract.json"
    old = json.loads(manifest.read_text())
    assert old["schema"] == "mjcore.dataset.extract/4"
    old["schema"] = "mjcore.dataset.extract/3"       # parts without the sanma rows
    manifest.write_text(json.dumps(old))
    again = extract(str(root), str(out), records_per_partition=2, workers=1)
    assert again.resumed == 0 and again.partitions == first.partitions
    assert again.rows == first.rows
    assert json.loads(manifest.read_text())["schema"] == "mjcore.dataset.extract/4"
    assert extract(str(root), str(out), records_per_partition=2, workers=1).resumed == \
        first.partitions


def test_self_play_sanma_records_extract_and_score(tmp_path):
    """mjai records of `mjcore play --rules tenhou_sanma` (kita as "N") take the same path."""
    from click.testing import CliRunner

    from mjcore.cli import main

    games = tmp_path / "games"
    r = CliRunner().invoke(main, ["play", "--games", "3", "--seed", "1", "--rules",
                                  "tenhou_sanma", "--agents", "efficiency,random", "--out",
                                  str(games)])
    assert r.exit_code == 0, r.output
    from mjcore.dataset.extraction import problems_of

    table = extract(str(games), workers=1)
    assert problems_of(table) == []
    t = analyze_table(table).to_pandas()
    assert (t["format"] == "mjai").all() and (t["players"] == 3).all()
    assert (t["action"] == "kita").any() and t["analysis_error"].isna().all()
    wins = t[t["score_status"].notna()]
    assert len(wins) > 5 and (wins["score_points"] == wins["win_points"]).all()
