"""What a careless or hostile user's files do to ``extract`` (issue 29): its output folder's
links and other files, resuming on changed input, and records that are not what they say."""
from __future__ import annotations

import os
from pathlib import Path

import pyarrow.parquet as pq
import pytest

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
    assert not (out / WINS_TABLE / "part-00002.parquet").exists()
    assert len(_sources(out)) == 5
