"""`mjcore export`: an analysed folder as plain Parquet for SQL readers (DuckDB, polars), with
the input's columns joined and the per-kind columns unpacked."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

import mjcore.dataset
from mjcore.cli import main
from mjcore.dataset.analysis import analyze_dir
from mjcore.dataset.analysis_columns import analyze_table
from mjcore.dataset.hand_arrays import per_kind
from mjcore.dataset.hands import NOT_HELD

ROWS = 1500


@pytest.fixture(scope="module")
def exported(tmp_path_factory, extract_table):
    """(the exported folder, the in-memory analysis of the same rows)."""
    root = tmp_path_factory.mktemp("export")
    src = root / "in"
    src.mkdir()
    for i in range(3):
        pq.write_table(extract_table.slice(i * ROWS, ROWS), src / f"part-{i:05d}.parquet")
    analyze_dir(str(src), str(root / "an"), workers=1)
    r = CliRunner().invoke(main, ["export", str(root / "an"), "--out", str(root / "sql")])
    assert r.exit_code == 0, r.output
    assert r.output.strip() == f"{3 * ROWS:,} rows in 3 parts -> {root / 'sql'}"
    return root / "sql", analyze_table(extract_table.slice(0, 3 * ROWS), n_threads=1)


def _kind_lists(want: pa.Table, name: str) -> list[list[int | None] | None]:
    """A 34-byte column as lists, a kind not held (discard columns) as None."""
    values = per_kind(want[name].combine_chunks())
    held = per_kind(want["discard_shanten"].combine_chunks()).view(np.int8) != NOT_HELD
    if name == "discard_shanten":
        values = values.view(np.int8)
    out: list[list[int | None] | None] = []
    for i, valid in enumerate(want[name].is_valid().to_pylist()):
        if not valid:
            out.append(None)
        elif name.startswith("discard_"):
            out.append([int(v) if h else None for v, h in zip(values[i], held[i], strict=True)])
        else:
            out.append([int(v) for v in values[i]])
    return out


def test_the_export_is_the_joined_unpacked_table(exported):
    out, want = exported
    got = pa.concat_tables(pq.read_table(out / f"part-{i:05d}.parquet") for i in range(3))
    assert got.column_names == want.column_names          # input columns, then the analysis
    for name in ("player", "scores", "waits", "waits_remaining", "made_shanten",
                 "score_points"):
        assert got[name].to_pylist() == want[name].to_pylist(), name
    for name in ("counts", "visible", "discard_shanten", "discard_ukeire"):
        assert got[name].to_pylist() == _kind_lists(want, name), name


def test_duckdb_reads_the_waits_and_the_discards_by_kind(exported):
    duckdb = pytest.importorskip("duckdb")
    out, want = exported
    files = f"read_parquet('{out}/*.parquet', filename = true, file_row_number = true)"
    con = duckdb.connect()
    rows = con.sql(f"SELECT waits, discard_shanten[made_discard + 1], made_shanten, "
                   f"discard_ukeire[made_discard + 1], made_ukeire, scores[seat + 1] "
                   f"FROM {files} ORDER BY filename, file_row_number").fetchall()
    waits, after, made_shanten, ukeire, made_ukeire, score = map(list, zip(*rows,
                                                                           strict=True))
    assert len(rows) == want.num_rows
    assert waits == want["waits"].to_pylist()
    made = [i for i, v in enumerate(want["made_discard"].to_pylist()) if v is not None]
    assert len(made) > 1000
    assert [after[i] for i in made] == [made_shanten[i] for i in made]
    assert [ukeire[i] for i in made] == [made_ukeire[i] for i in made]
    assert made_shanten == want["made_shanten"].to_pylist()
    scores = want["scores"].to_pylist()          # DuckDB lists are 1-based: scores[seat + 1]
    seats = want["seat"].to_pylist()
    assert score == [s[k] for s, k in zip(scores, seats, strict=True)]
    [(tenpai,)] = con.sql(f"SELECT count(*) FROM {files} WHERE len(waits) > 0").fetchall()
    assert tenpai == sum(1 for w in want["waits"].to_pylist() if w) > 0


def test_the_queries_of_schema_md_run(exported):
    duckdb = pytest.importorskip("duckdb")
    out, want = exported
    text = (Path(mjcore.dataset.__file__).parent / "SCHEMA.md").read_text()
    block = text.split("```sql\n", 1)[1].split("```", 1)[0]
    queries = [q for q in block.replace("DIR3", str(out)).split(";") if q.strip()]
    assert len(queries) == 2
    con = duckdb.connect()
    per_player = con.sql(queries[0]).fetchall()
    assert {p for p, _ in per_player} == {p for p, d in zip(
        want["player"].to_pylist(), want["made_discard"].to_pylist(), strict=True)
        if d is not None}
    assert all(given >= 0 for _, given in per_player)
    [(kinds, copies)] = con.sql(queries[1]).fetchall()
    assert kinds >= 1 and copies >= 0


def test_polars_reads_the_export(exported):
    pl = pytest.importorskip("polars")
    out, want = exported
    frame = pl.read_parquet(sorted(out.glob("part-*.parquet")))
    assert frame.height == want.num_rows
    assert frame["waits"].to_list() == want["waits"].to_pylist()
    discards = frame.filter(pl.col("made_discard").is_not_null())
    after = discards.select(pl.col("discard_shanten").list.get(
        pl.col("made_discard").cast(pl.Int64)))         # polars lists are 0-based
    assert after.to_series().to_list() == discards["made_shanten"].to_list()


def test_export_refuses_a_folder_with_parts(exported, tmp_path):
    out, _ = exported
    r = CliRunner().invoke(main, ["export", str(out), "--out", str(out)])
    assert r.exit_code == 1 and "already holds Parquet parts" in r.output
