"""``mjcore play --out`` writes each record whole or not at all, never through a link planted
under a record's name and never over an earlier run's records unless asked (issue 29)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from mjcore.cli import main
from mjcore.errors import OutputError
from mjcore.files import new_file, real_folder

RIICHI = ["play", "--games", "1", "--agents", "efficiency,random", "--no-progress"]
CLASSICAL = ["play", "--rules", "classical", "--games", "1", "--agents", "efficiency,random",
             "--no-progress"]


@pytest.mark.parametrize("args,name", [(RIICHI, "game-00000000.mjson"),
                                       (CLASSICAL, "game-00000000.jsonl")])
def test_a_link_planted_under_a_records_name_is_not_followed(tmp_path: Path, args: list[str],
                                                             name: str) -> None:
    out = tmp_path / "shared"
    out.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    (out / name).symlink_to(victim)
    r = CliRunner().invoke(main, [*args, "--out", str(out)])
    assert r.exit_code == 1 and name in r.output and "--overwrite" in r.output
    assert r.exception is None or isinstance(r.exception, SystemExit)
    assert victim.read_text() == "precious\n"
    # asked to replace: the link is replaced by the record, its target left alone
    r = CliRunner().invoke(main, [*args, "--out", str(out), "--overwrite"])
    assert r.exit_code == 0, r.output
    assert victim.read_text() == "precious\n"
    assert not (out / name).is_symlink() and (out / name).stat().st_size > 1000


def test_a_rerun_does_not_overwrite_an_earlier_runs_records(tmp_path: Path) -> None:
    out = tmp_path / "games"
    assert CliRunner().invoke(main, [*RIICHI, "--out", str(out)]).exit_code == 0
    first = (out / "game-00000000.mjson").read_bytes()
    r = CliRunner().invoke(main, [*RIICHI, "--out", str(out), "--agents", "random"])
    assert r.exit_code == 1 and "game-00000000.mjson" in r.output
    assert (out / "game-00000000.mjson").read_bytes() == first
    r = CliRunner().invoke(main, [*RIICHI, "--out", str(out), "--seed", "1"])
    assert r.exit_code == 0 and sorted(os.listdir(out)) == ["game-00000000.mjson",
                                                            "game-00000001.mjson"]


def test_an_interrupted_record_leaves_nothing_under_its_name(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    import mjcore.riichi.events as events
    from mjcore.cli.play_riichi import _one_game
    from mjcore.riichi.rules import RuleSet

    real = events.write_mjai

    def cut(evs):                            # the run is killed half-way through the record
        for i, line in enumerate(real(evs)):
            if i == 40:
                raise KeyboardInterrupt
            yield line

    monkeypatch.setattr(events, "write_mjai", cut)
    with pytest.raises(KeyboardInterrupt):
        _one_game((0, ["efficiency", "random"] * 2, RuleSet.preset("tenhou"), str(tmp_path),
                   "mjai", False, False))
    assert os.listdir(tmp_path) == []         # no cut record, no temporary left


def test_records_get_the_users_umask(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        assert CliRunner().invoke(main, [*RIICHI, "--out", str(tmp_path)]).exit_code == 0
    finally:
        os.umask(old)
    assert (tmp_path / "game-00000000.mjson").stat().st_mode & 0o777 == 0o644


def test_new_file_and_real_folder(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    with new_file(str(path)) as f:
        f.write("1")
    with pytest.raises(OutputError, match="exists"), new_file(str(path)) as f:
        f.write("2")
    assert path.read_text() == "1" and os.listdir(tmp_path) == ["a.json"]
    with new_file(str(path), replace=True) as f:
        f.write("3")
    assert path.read_text() == "3"
    (tmp_path / "link").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(OutputError, match="symbolic link"):
        real_folder(str(tmp_path / "link"))
    assert real_folder(str(tmp_path / "made")) and (tmp_path / "made").is_dir()
