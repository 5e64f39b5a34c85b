"""The analysis columns: against the single-hand API, the `mahjong` package and the records."""
from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import mjcore
from mjcore.dataset.analysed_parts import (
    DETAIL_BYTES,
    DETAIL_COLUMN,
    SIDE_TABLES,
    WAITS_LEFT_AT,
    WINS_SIDE,
    read_table,
)
from mjcore.dataset.analysis import analyze, analyze_dir
from mjcore.dataset.analysis_columns import ANALYSIS_COLUMNS, SCALAR_COLUMNS, analyze_table
from mjcore.dataset.common import WINS_TABLE
from mjcore.dataset.extraction import _mpsz, win_rows
from mjcore.dataset.hands import NOT_HELD
from mjcore.dataset.inputs import read_input_part
from mjcore.errors import MjcoreError
from mjcore.tiles import parse_kinds

SAMPLE_EVERY = 97


def _kinds(mask: int) -> list[int]:
    return [k for k in range(34) if mask >> k & 1]


def _hand_text(row) -> str:
    return " ".join([_mpsz(sorted(row["closed"]))] + list(row["melds"]))


def _api_visible(row) -> list[int]:
    """The row's visible tiles less its own melds (the single-hand API counts those itself)."""
    seen = list(row["visible"])
    for token in row["melds"]:
        for k in parse_kinds(token.split(":")[1].split("<")[0]):
            seen[k] -= 1
    return [k for k in range(34) for _ in range(seen[k])]


def test_sample_agrees_with_the_single_hand_api(analysed_table):
    """Four- and three-player rows (the latter under the sanma tile set: no 2m-8m)."""
    rows = analysed_table.take(pa.array(range(0, analysed_table.num_rows, SAMPLE_EVERY)))
    checked13 = checked14 = 0
    seats = set()
    for row in rows.to_pylist():
        assert row["analysis_error"] is None
        text = _hand_text(row)
        rules = "tenhou_sanma" if row["players"] == 3 else None
        seats.add(row["players"])
        s = mjcore.shanten(text, rules)
        assert row["shanten"] == int(s)
        assert row["shanten_standard"] == s.standard
        assert row["shanten_chiitoitsu"] == s.chiitoitsu
        assert row["shanten_kokushi"] == s.kokushi
        visible = _api_visible(row)
        u = mjcore.ukeire(text, visible, rules)
        if row["tiles"] % 3 == 1:
            assert row["ukeire"] == u.options[0].remaining
            w = mjcore.waits(text, visible, rules)
            assert row["waits"] == [x.tile for x in w.tiles]
            assert row["waits_remaining"] == [x.remaining for x in w.tiles]
            checked13 += 1
            continue
        options = {o.discard: (o.shanten, o.remaining) for o in u.options}
        after = np.frombuffer(row["discard_shanten"], np.int8)
        left = np.frombuffer(row["discard_ukeire"], np.uint8)
        assert {k: (int(after[k]), int(left[k])) for k in range(34)
                if after[k] != NOT_HELD} == options
        assert all(left[k] == 0 for k in range(34) if after[k] == NOT_HELD)
        best = u.options[0]
        assert (row["best_shanten"], row["best_ukeire"]) == (best.shanten, best.remaining)
        assert _kinds(row["best_discards"]) == sorted(
            o.discard for o in u.options if o.discard is not None and
            (o.shanten, o.remaining) == (best.shanten, best.remaining))
        if row["action"] in ("discard", "riichi"):
            made = row["tile"] >> 2
            assert row["made_discard"] == made
            assert row["made_best"] == (made in _kinds(row["best_discards"]))
            sh, kept = options[made]
            lost = best.remaining - kept if sh == best.shanten else best.remaining
            assert row["acceptance_lost"] == lost
        else:
            assert row["made_discard"] is None
        checked14 += 1
    assert checked13 > 5 and checked14 > 50 and seats == {3, 4}


def test_shanten_agrees_with_the_mahjong_package(analysed_table):
    from mahjong.shanten import Shanten

    oracle = Shanten()
    t = analysed_table.select(["closed", "n_melds", "shanten_standard", "shanten_chiitoitsu",
                               "shanten_kokushi"]).slice(0, 3000).to_pylist()
    for row in t:
        counts = [0] * 34
        for tile in row["closed"]:
            counts[tile >> 2] += 1
        assert row["shanten_standard"] == oracle.calculate_shanten_for_regular_hand(counts)
        if row["n_melds"] == 0:
            assert row["shanten_chiitoitsu"] == \
                oracle.calculate_shanten_for_chiitoitsu_hand(counts)
            assert row["shanten_kokushi"] == oracle.calculate_shanten_for_kokushi_hand(counts)
        else:
            assert row["shanten_chiitoitsu"] is None and row["shanten_kokushi"] is None


def test_wins_score_as_the_records_say(analysed_table):
    wins = analysed_table.filter(pc.is_in(analysed_table["action"], pa.array(["tsumo", "ron"])))
    assert wins.num_rows > 20
    assert set(wins["score_status"].to_pylist()) == {"win"}
    assert wins["score_points"].to_pylist() == wins["win_points"].to_pylist()
    assert wins["score_fu"].to_pylist() == wins["win_fu"].to_pylist()
    for han, yakuman, recorded in zip(wins["score_han"].to_pylist(),
                                      wins["score_yakuman"].to_pylist(),
                                      wins["win_han"].to_pylist(), strict=True):
        assert (han if yakuman == 0 else 13 * yakuman) == recorded
    for w in wins.select(["action", "shanten", "waits", "tile"]).to_pylist():
        if w["action"] == "tsumo":            # the hand with the winning tile: complete
            assert w["shanten"] == -1
        else:                                 # the hand before the ron: tenpai on the tile
            assert w["shanten"] == 0 and w["tile"] >> 2 in w["waits"]


def test_user_tables_with_bad_rows():
    """A user's table of mpsz hands: bad rows keep their place with the reason, the rest run."""
    hands = ["123m456p789s11223z", "123m456p789s1122z", "123x", None, "1111m", "",
             "23m406p789s11z pon:555z<2", "11112222333344m", "123m456p789s11223z chi:999m"]
    discard = ["3z", None, None, None, None, None, "1z", "5m", None]
    frame = pd.DataFrame({"hand": hands, "discard": discard, "id": range(len(hands))})
    out = analyze(frame, n_threads=1)
    assert isinstance(out, pd.DataFrame) and list(out["id"]) == list(range(len(hands)))
    err = [None if pd.isna(e) else e for e in out["analysis_error"]]
    assert err[0] is None and err[1] is None and err[6] is None
    for i in (2, 3, 4, 5, 8):
        text = err[i]
        assert isinstance(text, str) and ":" in text, i
    assert err[7] is not None and err[7].startswith("discard_not_held")
    assert out["shanten"][0] == 0 and out["made_best"][0]
    assert list(out["waits"][1]) == [27, 28] and list(out["waits_remaining"][1]) == [2, 2]
    assert out["shanten"][6] == mjcore.shanten("23m406p789s11z pon:555z<2")
    table = analyze(pa.Table.from_pandas(frame), n_threads=1)
    assert isinstance(table, pa.Table)
    assert table["analysis_error"].to_pylist() == err


def test_huge_hand_cell_is_a_row_error():
    huge = "1m" * 100_000
    out = analyze(pa.table({"hand": ["123m456p789s11223z", huge, huge + " pon:555z"],
                            "discard": [huge, None, None]}), n_threads=1)
    err = out["analysis_error"].to_pylist()
    assert err[0] == "bad_discard: 200000 characters, not a tile"
    assert err[1:] == ["bad_hand: 200000 characters, more than 256",
                       "bad_hand: 200009 characters, more than 256"]


def test_counts_column_and_missing_columns():
    counts = np.zeros((2, 34), np.uint8)
    counts[0, [0, 1, 2, 9, 10, 11, 18, 19, 20, 27, 28]] = 1
    counts[0, [27, 28]] = 2
    counts[1, 0] = 7
    t = pa.table({"counts": pa.FixedSizeListArray.from_arrays(pa.array(counts.ravel()), 34)})
    out = analyze_table(t)
    assert out["shanten"].to_pylist()[0] == 0
    assert out["analysis_error"].to_pylist()[1].startswith("too_many_copies")
    with pytest.raises(MjcoreError, match="needs a 'closed', 'counts' or 'hand' column"):
        analyze_table(pa.table({"x": [1]}))


def test_a_parquet_part_without_hands_is_reported_with_its_columns(tmp_path, extract_table):
    """A folder part lacking a column of hands is a problem of that part naming the columns
    it has; the other parts are analysed."""
    src, out = tmp_path / "in", tmp_path / "out"
    src.mkdir()
    pq.write_table(extract_table.slice(0, 50), src / "part-00000.parquet")
    pq.write_table(pa.table({"x": [1, 2], "y": [3, 4]}), src / "part-00001.parquet")
    job = analyze_dir(str(src), str(out), workers=1)
    bad = [p for p in job.problems if p.reason == "bad_table"]
    assert [p.file for p in bad] == ["part-00001.parquet"], bad
    assert "(has: x, y)" in bad[0].detail
    assert read_table(str(out), ["shanten"], with_input=False).num_rows == 50


def test_folder_job_resumes_and_reads_text_and_csv(tmp_path, extract_table):
    src = tmp_path / "in"
    src.mkdir()
    for i in range(3):
        pq.write_table(extract_table.slice(i * 2000, 2000), src / f"part-{i:05d}.parquet")
    out = tmp_path / "out"
    first = analyze_dir(str(src), str(out), workers=2)
    assert first.parts == 3 and first.rows == 6000 and not first.problems
    keep = (out / "part-00000.parquet").stat().st_mtime_ns
    (out / "part-00002.parquet").unlink()
    again = analyze_dir(str(src), str(out), workers=2)
    assert again.resumed == 2 and again.parts == 1
    assert (out / "part-00000.parquet").stat().st_mtime_ns == keep
    whole = read_table(str(out))
    assert whole.equals(analyze_table(extract_table.slice(0, 6000), n_threads=2)
                        .replace_schema_metadata(None))
    alone = read_table(str(out), with_input=False)
    assert alone.column_names == list(ANALYSIS_COLUMNS)

    with pytest.raises(MjcoreError, match="analysis of another input"):
        analyze_dir(str(tmp_path / "in" / "part-00001.parquet"), str(out))

    text = tmp_path / "hands.txt"
    text.write_text("123m456p789s11223z\nnot a hand\n123m456p789s1122z\n")
    s = analyze_dir(str(text), str(tmp_path / "t"))
    assert s.rows == 3 and [(p.row, p.reason) for p in s.problems] == [(1, "parse_error")]
    csv = tmp_path / "hands.csv"
    csv.write_text("hand,discard\n123m456p789s11223z,3z\n123m456p789s1122z,\n")
    analyze_dir(str(csv), str(tmp_path / "c"))
    got = read_table(str(tmp_path / "c"))
    assert got["made_best"].to_pylist() == [True, None]


def test_an_analysed_part_stores_only_what_the_analysis_adds(tmp_path, extract_table):
    """The base file has one row per input row, in order, without keys: the scalar analysis
    columns as they are in memory, and the discards of a 14-3k or the waits of a 13-3k tile
    row packed in kind_detail; the wins table holds the scored win rows. read_table builds
    every column back."""
    src = tmp_path / "in"
    src.mkdir()
    pq.write_table(extract_table.slice(0, 3000), src / "part-00000.parquet")
    out = tmp_path / "out"
    analyze_dir(str(src), str(out), workers=1)
    want = analyze_table(extract_table.slice(0, 3000), n_threads=1)
    base = pq.read_table(out / "part-00000.parquet")
    assert base.column_names == [*SCALAR_COLUMNS, DETAIL_COLUMN] and base.num_rows == 3000
    assert base.schema.field(DETAIL_COLUMN).type == pa.binary(DETAIL_BYTES)
    for name in SCALAR_COLUMNS:
        assert base[name].equals(want[name]), name
        assert base.schema.field(name) == want.schema.field(name), name
    detail = base[DETAIL_COLUMN].combine_chunks()
    rows13 = np.flatnonzero(want["ukeire"].is_valid())
    rows14 = np.flatnonzero(want["discard_shanten"].is_valid())
    assert rows13.size > 50 and rows14.size > 2000
    assert np.array_equal(np.flatnonzero(detail.is_valid()), np.union1d(rows13, rows14))
    waits = np.frombuffer(detail.buffers()[1], np.uint8).reshape(3000, DETAIL_BYTES)[rows13]
    bits = np.zeros((rows13.size, 8), np.uint8)
    bits[:, :WAITS_LEFT_AT] = waits[:, :WAITS_LEFT_AT]
    assert [[k for k in range(34) if int(b) >> k & 1] for b in bits.view("<u8")[:, 0]] == \
        want["waits"].take(pa.array(rows13)).to_pylist()
    wins = pq.read_table(out / WINS_SIDE / "part-00000.parquet-side")
    assert wins.column_names == ["row", *SIDE_TABLES[WINS_SIDE]]
    rows = wins["row"].to_numpy()
    assert rows.size and np.array_equal(rows, np.flatnonzero(want["score_status"].is_valid()))
    for name in SIDE_TABLES[WINS_SIDE]:
        assert wins[name].to_pylist() == want[name].take(pa.array(rows)).to_pylist(), name
    assert read_table(str(out)).equals(want.replace_schema_metadata(None))
    assert read_table(str(out), ["game", "made_best"])["made_best"].equals(want["made_best"])
    (out / WINS_SIDE / "part-00000.parquet-side").unlink()
    with pytest.raises(MjcoreError, match=r"side table .* is gone"):
        read_table(str(out), ["game", "score_points"])
    assert read_table(str(out), ["waits"])["waits"].equals(want["waits"])


def test_plain_parquet_readers_query_the_analysed_folder(tmp_path, extract_table):
    """pyarrow.dataset on the analysed folder (the side tables and problem lists skipped)
    gives the scalar analysis columns of analyze_table, row for row in input order, with
    their types and nulls; a query on them needs no mjcore."""
    import pyarrow.dataset as ds

    src = tmp_path / "in"
    src.mkdir()
    for i in range(3):
        pq.write_table(extract_table.slice(i * 1500, 1500), src / f"part-{i:05d}.parquet")
    out = tmp_path / "out"
    analyze_dir(str(src), str(out), workers=2)
    want = analyze_table(extract_table.slice(0, 4500), n_threads=1)
    dataset = ds.dataset(str(out), format="parquet")
    assert sorted(os.path.basename(f) for f in dataset.files) == [
        f"part-{i:05d}.parquet" for i in range(3)]
    got = dataset.to_table(columns=list(SCALAR_COLUMNS))
    assert got.num_rows == 4500
    for name in SCALAR_COLUMNS:
        assert got[name].equals(want[name]), name
        assert got.schema.field(name).type == want.schema.field(name).type, name
    lost = dataset.to_table(columns=["acceptance_lost"],
                            filter=ds.field("made_best") == False)  # noqa: E712
    expected = want.filter(pc.equal(want["made_best"], False))["acceptance_lost"]
    assert lost.num_rows > 100 and lost["acceptance_lost"].equals(expected)
    one = pq.read_table(out / "part-00001.parquet", columns=["shanten", "analysis_error"])
    assert one["shanten"].equals(want["shanten"].slice(1500, 1500))


def test_a_damaged_analysed_part_is_a_clear_error(tmp_path, extract_table):
    """A kind_detail whose discards are not packed discards, or a base file without the
    analysis columns, is an error naming the file and row, not a wrong table."""
    src = tmp_path / "in"
    src.mkdir()
    pq.write_table(extract_table.slice(0, 300), src / "part-00000.parquet")
    out = tmp_path / "out"
    analyze_dir(str(src), str(out), workers=1)
    path = out / "part-00000.parquet"
    base = pq.read_table(path)
    column = base[DETAIL_COLUMN].combine_chunks()
    detail = np.frombuffer(column.buffers()[1], np.uint8).reshape(300, DETAIL_BYTES).copy()
    row = int(np.flatnonzero(analyze_table(extract_table.slice(0, 300))["discard_shanten"]
                             .is_valid())[0])
    detail[row, 4] = 0xFF                 # kinds held beyond the 34
    damaged = pa.Array.from_buffers(pa.binary(DETAIL_BYTES), 300,
                                    [column.buffers()[0], pa.py_buffer(detail.tobytes())])
    pq.write_table(base.set_column(base.schema.get_field_index(DETAIL_COLUMN), DETAIL_COLUMN,
                                   damaged), path)
    with pytest.raises(MjcoreError, match=rf"part-00000.parquet: row {row}: .*packed discards"):
        read_table(str(out), with_input=False)
    assert read_table(str(out), ["shanten"], with_input=False)["shanten"].equals(
        base["shanten"])
    pq.write_table(pa.table({"analysis": pa.array([b"x"] * 300)}).replace_schema_metadata(
        base.schema.metadata), path)
    with pytest.raises(MjcoreError, match="not an analysed part"):
        read_table(str(out), with_input=False)


def test_a_redone_extract_is_analysed_again(tmp_path, records_dir):
    """Analysing a folder again after its extract was redone (other records, fewer parts)
    does not resume the parts of the old extract; reading an analysis whose input part
    changed since is an error, not a wrong join."""
    from mjcore.dataset.extraction import extract

    games = sorted(p for p in records_dir.rglob("*") if p.is_file())
    ex, out = tmp_path / "ex", tmp_path / "an"
    extract([str(p) for p in games[:6]], str(ex), workers=1, records_per_partition=2)
    first = analyze_dir(str(ex), str(out), workers=1)
    assert first.parts == 3 and first.resumed == 0
    again = analyze_dir(str(ex), str(out), workers=1)
    assert again.parts == 0 and again.resumed == 3
    extract([str(p) for p in games[6:10]], str(ex), workers=1, records_per_partition=2,
            resume=False)
    with pytest.raises(MjcoreError, match="changed since it was analysed"):
        read_table(str(out))
    redone = analyze_dir(str(ex), str(out), workers=1)
    assert redone.parts == 2 and redone.resumed == 0
    assert sorted(p.name for p in out.glob("part-*.parquet")) == [
        "part-00000.parquet", "part-00001.parquet"]
    assert not (out / WINS_SIDE / "part-00002.parquet-side").exists()
    want = analyze_table(extract([str(p) for p in games[6:10]], workers=1), n_threads=1)
    assert read_table(str(out)).equals(want.replace_schema_metadata(None))


def test_the_win_rows_side_table_of_an_extract_is_used_when_it_matches(tmp_path,
                                                                       extract_table):
    """The analysis scores the wins from the extract's side table of its win rows; a side
    table that is not its part's is not used (the part's own columns are read)."""
    src = tmp_path / "in"
    (src / WINS_TABLE).mkdir(parents=True)
    for i in range(2):
        part = extract_table.slice(i * 2500, 2500)
        pq.write_table(part, src / f"part-{i:05d}.parquet")
        pq.write_table(win_rows(part), src / WINS_TABLE / f"part-{i:05d}.parquet")
    table, wins = read_input_part(str(src / "part-00000.parquet"))
    actions = extract_table.slice(0, 2500)["action"].to_pylist()
    assert wins["row"].to_pylist() == [i for i, a in enumerate(actions) if a in ("tsumo", "ron")]
    assert "melds" not in table.column_names and "melds" in wins.column_names
    side = src / WINS_TABLE / "part-00001.parquet"
    right = win_rows(extract_table.slice(2500, 2500))
    for wrong in (b"not parquet", right.drop_columns(["melds"]),
                  right.set_column(right.schema.get_field_index("tile"), "tile",
                                   right["tile"].cast(pa.int32())),
                  pq.read_table(src / WINS_TABLE / "part-00000.parquet")):
        if isinstance(wrong, bytes):
            side.write_bytes(wrong)
        else:
            pq.write_table(wrong, side)
        table, wins = read_input_part(str(src / "part-00001.parquet"))
        assert wins is None and "melds" in table.column_names
    out = tmp_path / "out"
    analyze_dir(str(src), str(out), workers=1)
    want = analyze_table(extract_table.slice(0, 5000), n_threads=1)
    assert read_table(str(out)).equals(want.replace_schema_metadata(None))
    assert want["score_status"].to_pylist().count("win") > 10


@pytest.mark.parametrize(("column", "values"), [
    ("closed", [["a", "b"]]), ("closed", [5]), ("counts", ["x"]), ("visible", ["x"]),
    ("n_melds", ["x"]), ("tile", ["x"])])
def test_wrongly_typed_column_is_a_clear_error(column, values):
    columns = {"hand": ["123m456p789s11223z"], "action": ["discard"], column: values}
    if column in ("closed", "counts"):
        del columns["hand"]
    with pytest.raises(MjcoreError, match=f"the {column} column must hold"):
        analyze(pa.table(columns), n_threads=1)


def test_unknown_meld_token_of_a_win_is_invalid(extract_table):
    wins = extract_table.filter(pc.equal(extract_table["action"], "ron"))
    row = next(i for i, m in enumerate(wins["melds"].to_pylist()) if m)
    melds = wins["melds"].to_pylist()
    melds[row] = ["foo:555z"] + melds[row][1:]
    bad = wins.set_column(wins.schema.get_field_index("melds"), "melds",
                          pa.array(melds, wins.schema.field("melds").type))
    status = analyze_table(bad, n_threads=1)["score_status"].to_pylist()
    assert status[row] == "invalid"
    assert status.count("win") == len(status) - 1


def test_bad_rows_of_a_parquet_part_are_listed_and_the_rest_analysed(tmp_path, extract_table):
    """Rows spoiled in an extract part (a fifth copy, a discard not held, a hand cut short)
    are problems by row; every other row is analysed as in memory."""
    table = extract_table.slice(0, 400)
    counts = np.frombuffer(table["counts"].combine_chunks().buffers()[1], np.uint8,
                           400 * 34).reshape(400, 34).copy()
    tile = table["tile"].to_numpy().copy()
    discards = [i for i, a in enumerate(table["action"].to_pylist()) if a == "discard"]
    five, not_held, short = discards[0], discards[1], discards[2]
    counts[five, 0] = 5
    kind = next(k for k in range(34) if counts[not_held, k] == 0)
    tile[not_held] = kind * 4
    counts[short] = 0
    fsb = pa.FixedSizeBinaryArray.from_buffers(pa.binary(34), 400,
                                               [None, pa.py_buffer(counts.tobytes())])
    spoiled = table.set_column(table.schema.get_field_index("counts"), "counts", fsb)
    spoiled = spoiled.set_column(spoiled.schema.get_field_index("tile"), "tile",
                                 pa.array(tile, pa.int16()))
    src = tmp_path / "in"
    src.mkdir()
    pq.write_table(spoiled, src / "part-00000.parquet")
    summary = analyze_dir(str(src), str(tmp_path / "out"), workers=1)
    assert [(p.row, p.reason) for p in summary.problems] == [
        (five, "too_many_copies"), (not_held, "discard_not_held"), (short, "wrong_tile_count")]
    got = read_table(str(tmp_path / "out"), with_input=False)
    errors = got["analysis_error"].to_pylist()
    assert [i for i, e in enumerate(errors) if e is not None] == [five, not_held, short]
    assert got["shanten"][five].as_py() is None
    assert got["made_best"][not_held].as_py() is None
    good = [i for i in range(400) if i not in (five, not_held, short)]
    want = analyze_table(table, n_threads=1).take(pa.array(good))
    for name in ANALYSIS_COLUMNS:
        assert got[name].take(pa.array(good)).to_pylist() == want[name].to_pylist(), name


def test_counts_and_visible_as_bytes_survive_pandas(extract_table):
    """The extract's 34-byte columns come back from pandas as bytes and analyse the same."""
    table = extract_table.slice(0, 300).select(["counts", "n_melds", "visible", "action",
                                                "tile"])
    frame = table.to_pandas()
    assert isinstance(frame["counts"][0], bytes)
    assert analyze(frame, n_threads=1)["best_ukeire"].equals(
        analyze_table(table)["best_ukeire"].to_pandas())
    frame.loc[3, "visible"] = b"\x01" * 5
    with pytest.raises(MjcoreError, match="visible column must hold 34 bytes"):
        analyze(frame, n_threads=1)


def test_a_large_parquet_file_is_analysed_in_parts_of_row_groups(tmp_path, extract_table):
    """One Parquet file of several row groups: parts of whole row groups (memory bounded by
    a part), joined back to their rows of the file, the same as one in-memory run."""
    table = extract_table.slice(0, 5000)
    path = tmp_path / "hands.parquet"
    pq.write_table(table, path, row_group_size=1000)
    out = tmp_path / "out"
    summary = analyze_dir(str(path), str(out), workers=2, rows_per_part=2000)
    assert summary.parts == 3 and summary.rows == 5000
    assert len(list(out.glob("part-*.parquet"))) == 0
    assert sorted(p.name for p in out.glob("hands-*.parquet")) == [
        "hands-00000.parquet", "hands-00001.parquet", "hands-00002.parquet"]
    whole = read_table(str(out), ["game", "decision", "player", "shanten", "best_ukeire"])
    want = analyze_table(table, n_threads=1)
    for name in whole.column_names:
        assert whole[name].to_pylist() == want[name].to_pylist(), name


def test_a_large_file_in_a_folder_is_analysed_in_parts_of_row_groups(tmp_path, extract_table):
    """A folder's Parquet file of more than rows_per_part rows is cut into parts of whole row
    groups too (memory bounded by a part, not by the file); the others stay whole."""
    folder = tmp_path / "in"
    folder.mkdir()
    pq.write_table(extract_table.slice(0, 700), folder / "a.parquet")
    pq.write_table(extract_table.slice(700, 5000), folder / "b.parquet", row_group_size=1000)
    out = tmp_path / "out"
    summary = analyze_dir(str(folder), str(out), workers=2, rows_per_part=2000)
    assert summary.parts == 4 and summary.rows == 5700
    assert sorted(p.name for p in out.glob("*.parquet")) == [
        "a.parquet", "b-00000.parquet", "b-00001.parquet", "b-00002.parquet"]
    whole = read_table(str(out), ["game", "decision", "shanten", "best_ukeire", "made_best"])
    want = analyze_table(extract_table.slice(0, 5700), n_threads=1)
    for name in whole.column_names:
        assert whole[name].to_pylist() == want[name].to_pylist(), name
    again = analyze_dir(str(folder), str(out), workers=2, rows_per_part=2000)
    assert again.resumed == 4 and again.parts == 0


def test_input_parts_that_would_share_an_output_name_are_refused(tmp_path, extract_table):
    folder = tmp_path / "in"
    folder.mkdir()
    pq.write_table(extract_table.slice(0, 3000), folder / "b.parquet", row_group_size=1000)
    pq.write_table(extract_table.slice(0, 10), folder / "b-00000.parquet")
    with pytest.raises(MjcoreError, match=r"'b-00000.parquet' and 'b#00000.parquet' would both "
                                          r"be written as 'b-00000.parquet'"):
        analyze_dir(str(folder), str(tmp_path / "out"), rows_per_part=1000)


def test_the_modules_are_reachable_beside_the_functions():
    import importlib

    import mjcore.dataset as ds

    for function, module in (("analyze", "analysis"), ("extract", "extraction"),
                             ("report", "reporting"), ("export", "exporting")):
        assert callable(getattr(ds, function))
        mod = importlib.import_module(f"mjcore.dataset.{module}")
        assert getattr(ds, module) is mod and getattr(mod, function) is getattr(ds, function)


def test_csv_and_text_files_are_read_part_by_part(tmp_path):
    """A CSV or text file streams in parts of rows_per_part rows (memory bounded by the parts
    in flight), in row order; an over-long text line is one bad row, not a crash."""
    hands = ["123m456p789s11223z", "123m456p789s1122z", "19m19p19s1234567z", "not a hand"] * 5
    csv = tmp_path / "hands.csv"
    csv.write_text("hand\n" + "\n".join(hands) + "\n")
    out = tmp_path / "c"
    summary = analyze_dir(str(csv), str(out), workers=2, rows_per_part=6)
    assert summary.parts == 4 and summary.rows == 20
    assert sorted(p.name for p in out.glob("hands*.parquet")) == [
        f"hands.csv-{i:05d}.parquet" for i in range(4)]
    got = read_table(str(out))
    assert got["hand"].to_pylist() == hands
    assert got["shanten"].to_pylist() == analyze(pa.table({"hand": hands}))["shanten"].to_pylist()
    assert [p.row for p in summary.problems] == [3, 1, 5, 3, 1]      # row within its part
    text = tmp_path / "hands.txt"
    text.write_bytes(b"123m456p789s11223z\n" + b"1m" * 70_000 + b"\n123m456p789s1122z\n")
    s = analyze_dir(str(text), str(tmp_path / "t"), rows_per_part=2)
    assert s.rows == 3 and [p.reason for p in s.problems] == ["bad_hand"]
    assert read_table(str(tmp_path / "t"))["shanten"].to_pylist() == [0, None, 0]


def test_an_analysis_in_an_older_layout_is_redone(tmp_path, extract_table):
    import json

    src = tmp_path / "in"
    src.mkdir()
    pq.write_table(extract_table.slice(0, 500), src / "part-00000.parquet")
    out = tmp_path / "out"
    analyze_dir(str(src), str(out), workers=1)
    manifest = json.loads((out / "_analyze.json").read_text())
    (out / "_analyze.json").write_text(json.dumps({**manifest,
                                                   "schema": "mjcore.dataset.analyze/1"}))
    (out / "wins").mkdir()                # the side folder of an older layout
    pq.write_table(pa.table({"row": [0]}), out / "wins" / "part-00000.parquet")
    again = analyze_dir(str(src), str(out), workers=1)
    assert again.parts == 1 and again.resumed == 0 and not (out / "wins").exists()
    assert json.loads((out / "_analyze.json").read_text()) == manifest
    (out / "_analyze.json").write_text(json.dumps({**manifest, "input": "/elsewhere"}))
    with pytest.raises(MjcoreError, match="analysis of another input"):
        analyze_dir(str(src), str(out), workers=1)


def test_an_analysis_moved_with_its_extract_reads_the_moved_extract(tmp_path, records_dir):
    """Copied elsewhere together (new mtimes) and the originals gone, an analysis still finds
    its input parts beside it; moved without them, it says which input part is gone."""
    import shutil

    from mjcore.dataset.extraction import extract

    games = sorted(p for p in records_dir.rglob("*") if p.is_file())[:4]
    ex, out = tmp_path / "a" / "ex", tmp_path / "a" / "an"
    extract([str(p) for p in games], str(ex), workers=1, records_per_partition=2)
    analyze_dir(str(ex), str(out), workers=1)
    want = read_table(str(out))
    moved = tmp_path / "b"
    for name in ("ex", "an"):
        shutil.copytree(tmp_path / "a" / name, moved / name, copy_function=shutil.copyfile)
    shutil.rmtree(tmp_path / "a")
    assert read_table(str(moved / "an")).equals(want)
    shutil.rmtree(moved / "ex")
    with pytest.raises(MjcoreError, match=r"its input part .*part-00000.parquet is gone"):
        read_table(str(moved / "an"))
    (moved / "ex").mkdir()                # in its place, a file that is not Parquet
    for part in sorted((moved / "an").glob("part-*.parquet")):
        (moved / "ex" / part.name).write_text("not parquet")
    with pytest.raises(MjcoreError, match=r"its input part .*part-00000.parquet cannot be read"):
        read_table(str(moved / "an"))
