"""What a careless or hostile user's files do to ``extract`` (issue 29): its output folder's
links and other files, resuming on changed input, and records that are not what they say."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mjcore.dataset.common import WINS_TABLE
from mjcore.dataset.extraction import extract
from mjcore.errors import MjcoreError, OutputError


@pytest.fixture()
def flat(records: dict[str, bytes], tmp_path: Path) -> Path:
    """Nine records as files r01.xml ... r09.xml in one folder."""
    folder = tmp_path / "in"
    folder.mkdir()
    for i, data in enumerate(list(records.values())[:9]):
        (folder / f"r{i + 1:02d}.xml").write_bytes(data)
    return folder


def _sources(out: Path) -> list[str]:
    parts = sorted(out.glob("part-*.parquet"))
    return [s for p in parts for s in dict.fromkeys(pq.read_table(p)["source"].to_pylist())]


def test_a_linked_side_folder_is_not_written_through(flat: Path, tmp_path: Path) -> None:
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    (out / WINS_TABLE).symlink_to(elsewhere)
    with pytest.raises(OutputError, match="symbolic link"):
        extract(str(flat), str(out), records_per_partition=4, workers=1)
    assert os.listdir(elsewhere) == []


def test_parts_get_the_users_umask(flat: Path, tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        extract(str(flat), str(tmp_path / "out"), records_per_partition=4, workers=1)
    finally:
        os.umask(old)
    for path in [*(tmp_path / "out").glob("*.*"), *(tmp_path / "out" / WINS_TABLE).glob("*")]:
        assert path.stat().st_mode & 0o777 == 0o644, path


def test_no_resume_deletes_only_what_mjcore_wrote(flat: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    mine = [out / "mine.parquet", out / "_problems-notes.json"]
    for path in mine:
        path.write_text("the user's own")
    with pytest.raises(MjcoreError, match="nothing was deleted"):
        extract(str(flat), str(out), records_per_partition=4, workers=1, resume=False)
    assert all(p.read_text() == "the user's own" for p in mine)
    for path in mine:
        path.unlink()
    extract(str(flat), str(out), records_per_partition=4, workers=1)
    mine[0].write_text("the user's own")          # dropped in after mjcore wrote the folder
    with pytest.raises(MjcoreError, match=r"mine\.parquet.*nothing was deleted"):
        extract(str(flat), str(out), records_per_partition=4, workers=1, resume=False)
    assert mine[0].read_text() == "the user's own"
    assert len(list(out.glob("part-*.parquet"))) == 3
    mine[0].unlink()
    again = extract(str(flat), str(out), records_per_partition=4, workers=1, resume=False)
    assert again.partitions == 3 and again.resumed == 0


def test_resume_after_a_record_was_added_redoes_the_parts_it_shifts(flat: Path,
                                                                     records: dict[str, bytes],
                                                                     tmp_path: Path) -> None:
    out = tmp_path / "out"
    extract(str(flat), str(out), records_per_partition=4, workers=1)
    (flat / "r00.xml").write_bytes(list(records.values())[9])    # sorts first: shifts all
    again = extract(str(flat), str(out), records_per_partition=4, workers=1)
    assert again.resumed == 0 and again.partitions == 3
    names = _sources(out)
    assert len(names) == len(set(names)) == 10
    (flat / "r09.xml").write_bytes(b"changed")                   # only the last part differs
    third = extract(str(flat), str(out), records_per_partition=4, workers=1)
    assert third.resumed == 2 and third.partitions == 1
    for name in ("r05.xml", "r06.xml", "r07.xml", "r08.xml", "r09.xml"):
        (flat / name).unlink()                                   # 5 records: 2 parts
    fourth = extract(str(flat), str(out), records_per_partition=4, workers=1)
    assert fourth.resumed == 1 and fourth.partitions == 1
    assert sorted(p.name for p in out.glob("part-*.parquet")) == ["part-00000.parquet",
                                                                   "part-00001.parquet"]
    assert not (out / WINS_TABLE / "part-00002.parquet-side").exists()
    assert len(_sources(out)) == 5


_NUMBERS = st.sampled_from([-1, 0, 1, 3, 4, 7, 135, 136, 255, 256, 40000, 2 ** 31, 2 ** 63])


def _mutate(text: str, data: st.DataObject) -> str:
    """A real record with one to three of: a number changed, a tag dropped or repeated, the
    text cut short."""
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        op = data.draw(st.sampled_from(["number", "drop", "repeat", "cut"]), label="op")
        if op == "cut":
            text = text[:data.draw(st.integers(0, len(text)), label="at")]
            continue
        if op == "number":
            spots = [m.span() for m in re.finditer(r"-?\d+", text)]
            if spots:
                a, b = data.draw(st.sampled_from(spots), label="number")
                text = text[:a] + str(data.draw(_NUMBERS, label="value")) + text[b:]
            continue
        tags = [m.span() for m in re.finditer(r"<[^<>]*>|\{[^\n]*\}", text)]
        if tags:
            a, b = data.draw(st.sampled_from(tags), label="tag")
            text = text[:a] + (text[a:b] * 2 if op == "repeat" else "") + text[b:]
    return text


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                 HealthCheck.data_too_large])
@given(data=st.data())
def test_mutated_records_are_problems_never_crashes(records: dict[str, bytes],
                                                    data: st.DataObject) -> None:
    """Mutations of real mjlog and mjai records: replay and extract report them (status or
    problem) and never raise; the good record beside them is extracted."""
    from mjcore.dataset.extraction import extract_partition
    from mjcore.riichi.events import write_mjai
    from mjcore.riichi.mjlog import read_mjlog
    from mjcore.riichi.replay import replay_source

    names = sorted(n for n in records if records[n].lstrip().startswith(b"<mjloggm"))[:6]
    name = data.draw(st.sampled_from(names), label="record")
    text = records[name].decode()
    if data.draw(st.booleans(), label="as mjai"):
        text = "\n".join(write_mjai(read_mjlog(text, name).events))
    bad = _mutate(text, data).encode()
    out = replay_source("bad.xml", bad)
    assert out.status in ("agree", "disagree", "error", "skipped")
    good = names[0] if name != names[0] else names[1]
    res, table = extract_partition(0, 0, [("bad.xml", bad), (good, records[good])], None)
    assert good in set(table["source"].to_pylist())
    assert all(p.file == "bad.xml" for p in res.problems)


def _varint(n: int) -> bytes:
    out = b""
    while True:
        low, n = n & 0x7F, n >> 7
        if not n:
            return out + bytes([low])
        out += bytes([low | 0x80])


def _lying_footer(table, path: Path, rows: int) -> None:
    """``table`` written as Parquet, its footer then claiming ``rows`` rows (the file's row
    count, its row group's and its column chunks' values: i64 fields of the Thrift footer)."""
    import struct

    pq.write_table(table, path)
    data = path.read_bytes()
    size = struct.unpack("<I", data[-8:-4])[0]
    footer = data[-8 - size:-8]
    zigzag = lambda n: n << 1                                         # noqa: E731
    old = b"\x16" + _varint(zigzag(table.num_rows))
    assert footer.count(old) >= 2
    footer = footer.replace(old, b"\x16" + _varint(zigzag(rows)))
    path.write_bytes(data[:-8 - size] + footer + struct.pack("<I", len(footer)) + b"PAR1")
    assert pq.read_metadata(path).num_rows == rows


def test_a_footer_claiming_rows_the_file_cannot_hold_is_reported(tmp_path: Path) -> None:
    import pyarrow as pa

    from mjcore.dataset.analysed_parts import read_table
    from mjcore.dataset.analysis import analyze_dir

    src = tmp_path / "in"
    src.mkdir()
    hands = pa.table({"hand": ["123m456p789s1122z", "123m456p789s112z3m"] * 6172})
    pq.write_table(hands, src / "part-00000.parquet")
    _lying_footer(hands, src / "part-00001.parquet", 5_000_000_000)
    summary = analyze_dir(str(src), str(tmp_path / "out"), workers=1)
    assert [(p.file, p.reason) for p in summary.problems] == [("part-00001.parquet",
                                                               "bad_table")]
    assert "claims 5,000,000,000 rows" in summary.problems[0].detail
    assert summary.rows == hands.num_rows
    assert read_table(str(tmp_path / "out"), with_input=False).num_rows == hands.num_rows


def test_common_readers_count_an_extract_and_its_analysis_once(flat: Path,
                                                               tmp_path: Path) -> None:
    duckdb = pytest.importorskip("duckdb")
    polars = pytest.importorskip("polars")
    from mjcore.dataset.analysis import analyze_dir
    from mjcore.dataset.exporting import export

    ex, an, sql = tmp_path / "ex", tmp_path / "an", tmp_path / "sql"
    summary = extract(str(flat), str(ex), records_per_partition=4, workers=1)
    analyze_dir(str(ex), str(an), workers=1)
    export(str(an), str(sql))
    for folder in (ex, an, sql):
        rows = sum(pq.read_metadata(p).num_rows for p in folder.glob("part-*.parquet"))
        assert rows == summary.rows
        for source in (folder, f"{folder}/*.parquet", f"{folder}/**/*.parquet"):
            assert duckdb.sql(f"select count(*) from read_parquet('{source}')"
                              ).fetchall()[0][0] == rows, source
        for pattern in ("*.parquet", "**/*.parquet"):
            assert polars.scan_parquet(f"{folder}/{pattern}").select(polars.len()).collect(
            ).item() == rows, (folder, pattern)
    # polars' directory mode takes a folder of parts alone (SCHEMA.md "Other readers"): the
    # exported one; an extract or analysis keeps its journal and side tables beside its parts
    assert polars.scan_parquet(str(sql)).select(polars.len()).collect().item() == summary.rows
    assert sorted(p.name for p in sql.rglob("*")) == sorted(
        p.name for p in sql.glob("part-*.parquet"))


def test_a_planted_journal_or_manifest_link_deletes_nothing_outside(flat: Path,
                                                                    tmp_path: Path) -> None:
    out = tmp_path / "out"
    extract(str(flat), str(out), records_per_partition=4, workers=1)
    victim = tmp_path / "victim.parquet"
    victim.write_text("precious")
    with open(out / "_extract-parts.jsonl", "a") as f:
        f.write('{"part": "../victim.parquet", "digest": ""}\n')
    extract(str(flat), str(out), records_per_partition=4, workers=1, resume=False)
    assert victim.read_text() == "precious"
    (out / "_extract-parts.jsonl").unlink()
    (out / "_extract-parts.jsonl").symlink_to(victim)
    with pytest.raises(OutputError, match="symbolic link"):
        extract(str(flat), str(out), records_per_partition=4, workers=1)
    assert victim.read_text() == "precious"
