"""Records a careless or hostile user hands to ``replay``, ``extract`` and ``score --history``
(issue 29): each bad record is that record's named problem and the run goes on; a FIFO is
skipped, never opened; an archive is read forward in bounded work per byte."""
from __future__ import annotations

import contextlib
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
    from tests.conftest import need_bradfield_archive as need_archive

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
    from tests.conftest import need_bradfield_archive as need_archive

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


@pytest.fixture(scope="module")
def mjlog() -> tuple[str, str]:
    """The first complete four-player mjlog of the shipped archive (name, text)."""
    from tests.riichi.conftest import DATA

    if not (DATA / "mjlog.tar.xz").exists():
        pytest.skip("no Tenhou data")
    with tarfile.open(DATA / "mjlog.tar.xz") as tar:
        for m in tar:
            f = tar.extractfile(m) if m.isfile() else None
            text = f.read().decode("utf-8", "replace") if f else ""
            if text.startswith("<mjloggm") and 'hai3="' in text and "owari=" in text:
                return m.name, text
    pytest.skip("no mjlog")


@pytest.mark.parametrize("how", ["deal", "seed_dora", "seed_dora_big", "seed_dora_huge",
                                 "dora_tag", "win_tile", "ura", "who", "meld"])
def test_every_tile_id_of_an_mjlog_is_range_checked(mjlog: tuple[str, str], how: str) -> None:
    from mjcore.riichi.replay import replay_source

    name, text = mjlog

    def first_attr(tag: str, attr: str) -> re.Match[str]:
        m = re.search(rf'<{tag} [^>]*?\b{attr}="([^"]*)"', text)
        if m is None:
            pytest.skip(f"no <{tag} {attr}> in {name}")
        return m

    def put(m: re.Match[str], value: str) -> str:
        return text[:m.start(1)] + value + text[m.end(1):]

    if how == "deal":
        m = first_attr("INIT", "hai0")
        bad = put(m, "-1," + m.group(1).split(",", 1)[1])
    elif how.startswith("seed_dora"):
        m = first_attr("INIT", "seed")
        f = m.group(1).split(",")
        f[5] = {"seed_dora": "-1", "seed_dora_big": "40000",
                "seed_dora_huge": str(2 ** 63)}[how]
        bad = put(m, ",".join(f))
    elif how == "dora_tag":
        bad = put(first_attr("DORA", "hai"), "40000")
    elif how == "win_tile":
        bad = put(first_attr("AGARI", "machi"), "-1")
    elif how == "ura":
        bad = put(first_attr("AGARI", "doraHaiUra"), "999")
    elif how == "who":
        bad = put(first_attr("REACH", "who"), "7")
    else:
        bad = put(first_attr("N", "m"), str(1 << 40))
    out = replay_source(name, bad.encode())
    assert out.status == "error" and "bad" not in out.status
    assert re.search(r"tile id -?\d+ is not 0-135|is not a seat|meld code", out.detail), \
        out.detail
    pytest.importorskip("pyarrow")
    from mjcore.dataset.extraction import extract_partition

    res, table = extract_partition(0, 0, [("bad.xml", bad.encode()),
                                          (name, text.encode())], None)
    assert [(p.file, p.reason) for p in res.problems] == [("bad.xml", "bad_mjlog")]
    assert set(table["source"].to_pylist()) == {name}


@pytest.mark.parametrize("body", ["<A" * 100_000, "<UN " + "n" * 200_000 + ">",
                                  "<UN " + 'a="' * 70_000 + ">", "<" * 200_000])
def test_the_mjlog_reader_is_linear_in_the_records_size(body: str) -> None:
    from mjcore.errors import MjcoreError
    from mjcore.riichi.mjlog import read_mjlog

    # quadratic backtracking took minutes on 200 KB; linear is milliseconds
    with within(30), contextlib.suppress(MjcoreError):
        read_mjlog('<mjloggm ver="2.3"><GO type="169"/>' + body, "big.xml")


def test_deeply_nested_json_in_a_record_is_bad_json(mjai_games: Path) -> None:
    deep = mjai_games / "deep.mjson"
    deep.write_text('{"type": "start_game", "x": ' + "[" * 200_000 + "\n")
    (mjai_games / "deep.json").write_text('{"log": ' + "[" * 200_000)
    r = CliRunner().invoke(main, ["replay", str(mjai_games), "--no-progress"])
    _ok(r)
    assert "deep.mjson line 1: not JSON (nested too deeply)" in r.output
    assert "4 records: 2 agree" in r.output and "2 unreadable" in r.output
    pytest.importorskip("pyarrow")
    from mjcore.dataset.extraction import extract, problems_of

    (mjai_games / "deep.json").unlink()
    table = extract(str(mjai_games), workers=1)
    assert [(Path(p.file).name, p.reason) for p in problems_of(table)] == [
        ("deep.mjson", "bad_json")]
    assert len(set(table["source"].to_pylist())) == 2


def test_a_record_of_nested_json_arrays_is_bad_json_in_extract_as_in_replay(mjai_games: Path
                                                                             ) -> None:
    """A record that opens with an array is read as mjai lines by extract too (it was
    unknown_format there and bad_json in replay)."""
    (mjai_games / "deep.mjson").write_text("[" * 200_000 + "]" * 200_000 + "\n")
    r = CliRunner().invoke(main, ["replay", str(mjai_games), "--no-progress"])
    assert "deep.mjson line 1: not JSON (nested too deeply)" in r.output
    pytest.importorskip("pyarrow")
    from mjcore.dataset.extraction import extract, problems_of

    table = extract(str(mjai_games), workers=1)
    assert [(Path(p.file).name, p.reason) for p in problems_of(table)] == [
        ("deep.mjson", "bad_json")]
