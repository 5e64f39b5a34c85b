"""Records a careless or hostile user hands to ``replay``, ``extract`` and ``score --history``
(issue 29): each bad record is that record's named problem and the run goes on; a FIFO is
skipped, never opened; an archive is read forward in bounded work per byte."""
from __future__ import annotations

import io
import json
import os
import re
import signal
import tarfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from click.testing import CliRunner

from mjcore.cli import main


@contextmanager
def within(seconds: int) -> Iterator[None]:
    """Fail (not hang) when the block takes longer than a very generous ``seconds``."""
    def stop(*_: object) -> None:
        raise TimeoutError(f"still running after {seconds} s")

    old = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


@pytest.fixture()
def games(tmp_path: Path) -> Path:
    """Two self-play games as tenhou.net/6 records (seeds 0 and 1)."""
    out = tmp_path / "games"
    r = CliRunner().invoke(main, ["play", "--games", "2", "--format", "tenhou6", "--out",
                                  str(out), "--no-progress"])
    assert r.exit_code == 0, r.output
    return out


@pytest.fixture()
def mjai_games(tmp_path: Path) -> Path:
    """The same two games as mjai records (what extract reads)."""
    out = tmp_path / "mjai"
    r = CliRunner().invoke(main, ["play", "--games", "2", "--out", str(out), "--no-progress"])
    assert r.exit_code == 0, r.output
    return out


def _ok(r) -> None:
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert "Traceback" not in r.output


def test_a_cut_discard_list_is_that_records_error(games: Path) -> None:
    path = games / "game-00000001.tenhou6.json"
    doc = json.loads(path.read_text())
    doc["log"][2][6] = doc["log"][2][6][:4]        # the hand is short of tiles from here
    path.write_text(json.dumps(doc))
    r = CliRunner().invoke(main, ["replay", str(games), "--no-progress"])
    _ok(r)
    assert r.exit_code == 1
    assert re.search(r"ERROR: \S*game-00000001.tenhou6.json: malformed record", r.output)
    assert "2 records: 1 agree" in r.output and "1 unreadable" in r.output


def test_a_fifo_named_like_a_record_is_skipped(games: Path, mjai_games: Path) -> None:
    os.mkfifo(games / "game-99999999.mjson")       # nobody writes: an open would block
    with within(60):
        r = CliRunner().invoke(main, ["replay", str(games), "--no-progress"])
    _ok(r)
    assert "SKIPPED: " in r.output and "not a regular file (a FIFO)" in r.output
    assert "3 records: 2 agree" in r.output and "1 skipped" in r.output
    pytest.importorskip("pyarrow")
    from mjcore.dataset.extraction import extract, problems_of

    os.mkfifo(mjai_games / "game-99999999.mjson")
    with within(60):
        table = extract(str(mjai_games), workers=1)
    assert [p.reason for p in problems_of(table)] == ["not_a_file"]
    assert len(set(table["source"].to_pylist())) == 2
    with within(60):
        r = CliRunner().invoke(main, ["score", "--history", str(mjai_games)])
    _ok(r)


def test_a_name_that_is_not_utf8_is_that_records_problem(mjai_games: Path) -> None:
    pytest.importorskip("pyarrow")
    from mjcore.dataset.extraction import extract, problems_of

    src = mjai_games / "game-00000000.mjson"
    bad = os.path.join(os.fsencode(mjai_games), b"r\xff.mjson")
    with open(bad, "wb") as f:
        f.write(src.read_bytes())
    table = extract(str(mjai_games), workers=1)
    problems = problems_of(table)
    assert [p.reason for p in problems] == ["bad_name"]
    assert problems[0].file.endswith("r\\xff.mjson")
    assert len(set(table["source"].to_pylist())) == 2          # the others are extracted
    r = CliRunner().invoke(main, ["replay", str(mjai_games), "--no-progress"])
    _ok(r)
    assert "r\\xff.mjson: the file name is not UTF-8" in r.output


def _bomb(path: Path, member: str, data: bytes) -> None:
    """A small .tar.xz: 64 MiB of zeros, then the record ``member``."""
    with tarfile.open(path, "w:xz", preset=1) as tar:
        info = tarfile.TarInfo("zeros.bin")
        info.size = 64 << 20
        tar.addfile(info, io.BytesIO(bytes(info.size)))
        info = tarfile.TarInfo(member)
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    assert path.stat().st_size < 100_000


def test_a_small_archive_of_zeros_is_read_in_bounded_work(games: Path, tmp_path: Path) -> None:
    from tests.classical_engine.conftest import need_archive

    with tarfile.open(need_archive()) as tar:
        member = next(m for m in tar if m.name.endswith(".mjs"))
        f = tar.extractfile(member)
        assert f is not None
        history = f.read()
    arc = tmp_path / "bomb.tar.xz"
    _bomb(arc, "game-1/hand-01.mjs", history)
    # stream mode copied its buffer per block: over a minute for this archive
    with within(60):
        r = CliRunner().invoke(main, ["score", "--history", str(arc)])
    _ok(r)
    assert "of 1 scored hands agree" in r.output
    with within(60):
        r = CliRunner().invoke(main, ["replay", str(arc), "--no-progress"])
    _ok(r)
    assert "1 games (bradfield)" in r.output
    arc2 = tmp_path / "bomb2.tar.xz"
    _bomb(arc2, "game.tenhou6.json", (games / "game-00000000.tenhou6.json").read_bytes())
    with within(60):
        r = CliRunner().invoke(main, ["replay", str(arc2), "--no-progress"])
    _ok(r)
    assert "1 records: 1 agree" in r.output


def test_a_folder_mixing_riichi_records_and_a_bradfield_game_is_refused(mjai_games: Path
                                                                        ) -> None:
    from tests.classical_engine.conftest import need_archive

    game = mjai_games / "game-1"
    game.mkdir()
    with tarfile.open(need_archive()) as tar:
        member = next(m for m in tar if m.name.endswith(".mjs"))
        f = tar.extractfile(member)
        assert f is not None
        (game / "hand-01.mjs").write_bytes(f.read())
    r = CliRunner().invoke(main, ["replay", str(mjai_games), "--no-progress"])
    _ok(r)
    assert r.exit_code == 1
    assert "riichi records" in r.output and "Bradfield hand histories" in r.output
    assert "game-00000000.mjson" in r.output and "hand-01.mjs" in r.output
