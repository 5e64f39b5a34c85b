"""A malformed field in one Bradfield hand history is that hand's named problem: ``score
--history`` and ``replay`` go on with the other hands and summarise (issue 29); mutations of
real histories never escape as anything but a reported problem."""
from __future__ import annotations

import contextlib
import re
import tarfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mjcore.classical.bradfield import check_history
from mjcore.classical.engine.bradfield import replay_game
from mjcore.classical.history import HistoryError, parse_history
from mjcore.cli import main
from mjcore.errors import MjcoreError
from tests.conftest import need_bradfield_archive as need_archive


@pytest.fixture(scope="module")
def game_one() -> dict[str, str]:
    """game-1's hand histories (name -> text), read from the front of the archive."""
    out: dict[str, str] = {}
    with tarfile.open(need_archive()) as tar:
        for m in tar:
            if m.isfile() and m.name.startswith("game-1/") and m.name.endswith(".mjs"):
                f = tar.extractfile(m)
                assert f is not None
                out[m.name.split("/")[-1]] = f.read().decode()
            elif out and not m.name.startswith("game-1/"):
                break
    assert len(out) >= 10
    return dict(sorted(out.items())[:10])


def _folder(tmp_path: Path, hands: dict[str, str]) -> Path:
    folder = tmp_path / "game-1"
    folder.mkdir()
    for name, text in hands.items():
        (folder / name).write_text(text)
    return folder


def _first(text: str, pattern: str) -> str:
    m = re.search(pattern, text, re.M)
    assert m, pattern
    return m.group(0)


def test_a_malformed_field_does_not_stop_score_history(game_one: dict[str, str],
                                                       tmp_path: Path) -> None:
    hands = dict(game_one)
    names = list(hands)
    # a discard whose serial number is a word, a chow form that does not exist
    line = _first(hands[names[1]], r"^PlayerDiscards \d+ \S+ \d+ \d+(?=\r?$)")
    hands[names[1]] = hands[names[1]].replace(line, " ".join(line.split()[:3] + ["Chow"]), 1)
    chow = next(n for n in names[2:] if "PlayerChows" in hands[n])
    line = _first(hands[chow], r"^PlayerChows \d+ \S+ \w+(?=\r?$)")
    hands[chow] = hands[chow].replace(line, line.rsplit(" ", 1)[0] + " Sideways", 1)
    folder = _folder(tmp_path, hands)
    r = CliRunner().invoke(main, ["score", "--history", str(folder)])
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert r.exit_code == 1 and "Traceback" not in r.output
    # each named with its file, line and message
    assert re.search(rf"{names[1]}:\d+: PlayerDiscards: malformed \(ValueError", r.output)
    assert re.search(rf"{chow}:\d+: PlayerChows: malformed \(KeyError: 'Sideways'", r.output)
    m = re.search(r"(\d+) of (\d+) scored hands agree", r.output)
    assert m and int(m.group(2)) >= 8, r.output          # the other hands were scored
    r = CliRunner().invoke(main, ["replay", str(folder), "--no-progress"])
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert "1 games (bradfield)" in r.output and "Traceback" not in r.output


_TOKENS = ["Chow", "Pung", "Kong", "Sideways", "Upper", "-1", "99", "5C", "--", "x", "", "0",
           "2", "1F", "3000000000000000000000", "MahJong", "\u00e9", "{"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_mutated_histories_are_problems_never_crashes(game_one: dict[str, str],
                                                      data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(sorted(game_one)))
    lines = game_one[name].split("\n")
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(lines) - 1))
        parts = lines[i].split(" ")
        j = data.draw(st.integers(0, len(parts) - 1))
        op = data.draw(st.integers(0, 3))
        if op == 0:
            parts[j] = data.draw(st.sampled_from(_TOKENS))
        elif op == 1:
            parts.insert(j, data.draw(st.sampled_from(_TOKENS)))
        elif op == 2:
            del parts[j:]
        else:
            lines[i] = ""
        lines[i] = " ".join(parts) if op != 3 else ""
    text = "\n".join(lines)
    with contextlib.suppress(HistoryError):
        check_history(parse_history(text, name))
    game = replay_game("g", [(name, text)])     # reports, never raises
    assert isinstance(game.problems(), list)


def test_an_unreadable_history_is_reported_and_the_run_goes_on(game_one: dict[str, str],
                                                               tmp_path: Path) -> None:
    import os

    folder = _folder(tmp_path, dict(list(game_one.items())[:3]))
    os.mkfifo(folder / "hand-99.mjs")             # no writer: opening it would block
    (folder / "hand-98.mjs").write_bytes(b"\xff\xfe not text")
    r = CliRunner().invoke(main, ["score", "--history", str(folder)])
    assert "Traceback" not in r.output and r.exit_code == 1
    assert "hand-99.mjs: not a regular file (a FIFO); skipped" in r.output
    assert "hand-98.mjs" in r.output and "not UTF-8" in r.output
    assert re.search(r"of 3 scored hands agree", r.output), r.output
    with pytest.raises(MjcoreError):
        list(__import__("mjcore.classical.history", fromlist=["x"]).read_histories(folder))
