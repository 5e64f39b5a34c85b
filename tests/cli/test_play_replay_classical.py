"""The classical commands: ``mjcore play --rules classical|bradfield`` and ``mjcore replay`` on
Bradfield histories and on classical records."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from mjcore.cli import main


def test_play_writes_records_that_replay(tmp_path: Path) -> None:
    out = tmp_path / "games"
    r = CliRunner().invoke(main, ["play", "--rules", "classical", "--games", "2", "--seed", "3",
                                  "--agents", "efficiency,random", "--out", str(out),
                                  "--check-invariants", "--no-progress"])
    assert r.exit_code == 0, r.output
    assert "invariants held on all 2 games" in r.output
    files = sorted(out.glob("*.jsonl"))
    assert [f.name for f in files] == ["game-00000003.jsonl", "game-00000004.jsonl"]
    first = json.loads(files[0].read_text().split("\n")[0])
    assert first["type"] == "start_game" and first["preset"] == "classical"
    r = CliRunner().invoke(main, ["replay", str(out), "--no-progress"])
    assert r.exit_code == 0, r.output
    assert "2 games (classical): 2 agree" in r.output


def test_play_takes_the_classical_rule_options(tmp_path: Path) -> None:
    out = tmp_path / "games"
    r = CliRunner().invoke(main, ["play", "--rules", "classical", "--games", "2", "--out",
                                  str(out), "--set", "agreed_hands=2", "--set",
                                  "wall_profile=seed001", "--set", "last_discard_claims=any",
                                  "--check-invariants", "--no-progress"])
    assert r.exit_code == 0, r.output
    assert "2 games (classical, agreed_hands=2, wall_profile=seed001, " \
           "last_discard_claims=any), 4 hands" in r.output
    for f in out.glob("*.jsonl"):
        first = json.loads(f.read_text().split("\n")[0])
        assert first["rules"]["agreed_hands"] == 2
        assert first["rules"]["wall_profile"] == "seed001"
    r = CliRunner().invoke(main, ["replay", str(out), "--no-progress"])
    assert r.exit_code == 0 and "2 agree" in r.output, r.output


@pytest.mark.parametrize("setting,message", [
    ("agreed_hands=-1", "agreed_hands=-1: expected >= 0"),
    ("wall_profile=seed9", "wall_profile='seed9': expected one of 'seed003', 'seed001'"),
    ("no_such_option=1", "unknown classical rule option(s): no_such_option"),
    ("agreed_hands", "--set 'agreed_hands': expected OPTION=VALUE"),
])
def test_play_refuses_a_bad_classical_rule_option(setting: str, message: str) -> None:
    r = CliRunner().invoke(main, ["play", "--rules", "bradfield", "--games", "1", "--set",
                                  setting, "--no-progress"])
    assert r.exit_code == 2 and "Traceback" not in r.output, r.output
    errors = [line for line in r.stderr.splitlines() if line.startswith("Error")]
    assert len(errors) == 1 and errors[0].startswith("Error: Invalid value for --set: ")
    assert errors[0].endswith(message), errors[0]
    assert "games/s" not in r.output


def test_play_set_changes_the_riichi_rules_too(tmp_path: Path) -> None:
    """--set is every game's: a classical option under a riichi preset is named, a riichi
    option is played and kept in the records."""
    r = CliRunner().invoke(main, ["play", "--games", "1", "--set", "agreed_hands=1",
                                  "--no-progress"])
    assert r.exit_code == 2 and "Invalid value for --set" in r.stderr
    assert "agreed_hands" in r.stderr and "Traceback" not in r.output
    r = CliRunner().invoke(main, ["play", "--games", "1", "--set", "red_fives=0", "--out",
                                  str(tmp_path), "--no-progress"])
    assert r.exit_code == 0, r.output
    first = json.loads(next(tmp_path.glob("*.mjson")).read_text().splitlines()[0])
    assert first["rule_options"]["red_fives"] == 0


def test_replay_tells_a_broken_record(tmp_path: Path) -> None:
    out = tmp_path / "games"
    r = CliRunner().invoke(main, ["play", "--rules", "bradfield", "--games", "1", "--out",
                                  str(out), "--no-progress"])
    assert r.exit_code == 0, r.output
    f = next(out.glob("*.jsonl"))
    lines = f.read_text().split("\n")
    i = next(i for i, line in enumerate(lines) if '"type":"discard"' in line)
    ev = json.loads(lines[i])
    ev["tile"] = "9m" if ev["tile"] != "9m" else "1m"
    lines[i] = json.dumps(ev, separators=(",", ":"))
    f.write_text("\n".join(lines))
    r = CliRunner().invoke(main, ["replay", str(out), "--no-progress"])
    assert r.exit_code == 1
    assert "hand 0" in r.output and "1 disagree" in r.output


def test_replay_bradfield_games(bradfield_dir: Path, tmp_path: Path) -> None:
    for g in ("game-1", "game-220"):
        shutil.copytree(bradfield_dir / g, tmp_path / g)
    r = CliRunner().invoke(main, ["replay", str(tmp_path), "--no-progress"])
    assert r.exit_code == 0 and "2 agree, 0 disagree" in r.output, r.output
    # a changed option the server did not play by: 10 for going out instead of 20
    hand = tmp_path / "game-220" / "hand-09.mjs"
    option = b"GameOption 0 MahJongScore score 0 1 20 "
    hand.write_bytes(hand.read_bytes().replace(option, option.replace(b" 20 ", b" 10 ")))
    r = CliRunner().invoke(main, ["replay", str(tmp_path), "--no-progress"])
    assert r.exit_code == 1
    assert "1 agree, 1 disagree" in r.output and "game-220/hand-09.mjs: HandScore" in r.output
    allow = tmp_path / "allow.json"
    allow.write_text(json.dumps({"game-220/hand-09.mjs": "MahJongScore changed"}))
    r = CliRunner().invoke(main, ["replay", str(tmp_path), "--no-progress", "--allow",
                                  str(allow)])
    assert r.exit_code == 0, r.output
    assert "1 agree, 1 known differences (--allow), 0 disagree; 47 hands" in r.output


def test_play_refuses_an_unknown_agent() -> None:
    r = CliRunner().invoke(main, ["play", "--rules", "classical", "--agents", "clever",
                                  "--no-progress"])
    assert r.exit_code != 0 and "unknown classical agent 'clever'" in r.output


def test_replay_checks_the_settlement_and_refuses_malformed_events(tmp_path: Path) -> None:
    out = tmp_path / "games"
    r = CliRunner().invoke(main, ["play", "--rules", "classical", "--games", "1", "--out",
                                  str(out), "--no-progress"])
    assert r.exit_code == 0, r.output
    f = next(out.glob("*.jsonl"))
    good = f.read_text().split("\n")
    lines = list(good)
    i = next(i for i, line in enumerate(lines) if '"type":"end_hand"' in line)
    ev = json.loads(lines[i])
    ev["net"] = [ev["net"][1], ev["net"][0], ev["net"][2], ev["net"][3] + 0]
    ev["net"][0] += 1
    ev["net"][1] -= 1
    lines[i] = json.dumps(ev, separators=(",", ":"))
    f.write_text("\n".join(lines))
    r = CliRunner().invoke(main, ["replay", str(out), "--no-progress"])
    assert r.exit_code == 1 and "hand 0: the replayed hand settles" in r.output
    lines = list(good)
    i = next(i for i, line in enumerate(lines) if '"type":"discard"' in line)
    ev = json.loads(lines[i])
    del ev["seat"]
    lines[i] = json.dumps(ev, separators=(",", ":"))
    f.write_text("\n".join(lines))
    r = CliRunner().invoke(main, ["replay", str(out), "--no-progress"])
    assert r.exit_code == 1 and "hand 0: malformed event (KeyError('seat'))" in r.output
    f.write_text("\n".join(good))
    r = CliRunner().invoke(main, ["replay", str(out), "--no-progress"])
    assert r.exit_code == 0, r.output


def test_a_record_file_oversized_or_not_utf8_is_refused(tmp_path: Path, monkeypatch) -> None:
    from mjcore.classical.engine.records import read_record
    from mjcore.engine import sources
    from mjcore.errors import InvalidHandError

    f = tmp_path / "game-00000001.jsonl"
    f.write_text('{"type":"start_game"}' + " " * 100 + "\n")
    assert [e["type"] for e in read_record(f)] == ["start_game"]
    monkeypatch.setattr(sources, "MAX_RECORD_BYTES", 100)
    with pytest.raises(InvalidHandError, match="jsonl: 122 bytes, more than the 100 bytes"):
        read_record(f)
    f.write_bytes(b'{"type":"start_game","x":"\xff"}\n')
    with pytest.raises(InvalidHandError, match=r"jsonl: not UTF-8 text \(byte 26\)"):
        read_record(f)
