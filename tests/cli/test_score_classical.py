"""`mjcore score --rules classical ...` and `mjcore score --history ...`."""
from __future__ import annotations

import json

from click.testing import CliRunner

from mjcore.cli import main

HAND = ["777z234s678m11z", "pon:555p", "2f", "--win", "4s", "--tsumo", "--seat", "S",
        "--east", "333z1357m246p pon:999s 5f", "--west", "1357m2468p1357s6z",
        "--north", "222m1479p23689s4z"]


def run(*args):
    return CliRunner().invoke(main, ["score", *args])


def test_breakdown_of_the_worked_example():
    r = run("--rules", "classical", *HAND)
    assert r.exit_code == 0, r.output
    assert "South (winner):" in r.output and "38 points x 2^1 = 76" in r.output
    assert "East pays South 152" in r.output
    assert "Net: East -96, South +304, West -112, North -96" in r.output


def test_json_and_options():
    r = run("--rules", "classical", *HAND, "--json", "--set", "mahjong_points=10")
    data = json.loads(r.output)
    assert data["players"][1]["points"] == 28 and sum(data["net"]) == 0


def test_hidden_losers_score_nothing_but_settle():
    r = run("--rules", "classical", "777z234s678m11z", "pon:555p", "--win", "4s", "--tsumo",
            "--seat", "S", "--json")
    data = json.loads(r.output)
    assert [p["score"] for p in data["players"]] == [0, 68, 0, 0]
    assert data["net"] == [-136, 272, -68, -68]


def test_errors_are_named():
    r = run("--rules", "classical", "777z234s678m11z", "--win", "4s", "--tsumo")
    assert r.exit_code == 1 and "wrong_tile_count" in r.output
    r = run("--rules", "classical", *HAND, "--set", "colour=red")
    assert r.exit_code == 1 and "colour" in r.output
    r = run("--rules", "classical", *HAND, "--json", "--discarder", "S", "--ron")
    assert r.exit_code == 1 and "bad_seats" in r.output


def test_history_agreement_disagreement_and_allow(tmp_path):
    import tarfile

    import pytest

    from tests.conftest import BRADFIELD_ARCHIVE as ARCHIVE

    if not ARCHIVE.exists():
        pytest.skip("no Bradfield archive")
    wanted = {"game-1/hand-01.mjs", "game-210/hand-10.mjs"}
    with tarfile.open(ARCHIVE) as tar:
        for m in tar:
            if m.name in wanted:
                member = tar.extractfile(m)
                assert member is not None, m.name
                (tmp_path / m.name).parent.mkdir(parents=True, exist_ok=True)
                (tmp_path / m.name).write_bytes(member.read())
    good, bad = tmp_path / "game-1" / "hand-01.mjs", tmp_path / "game-210" / "hand-10.mjs"
    r = run("--rules", "bradfield", "--history", str(good), str(bad))
    assert r.exit_code == 0 and "2 of 2 scored hands agree" in r.output
    # a changed option the server did not play by: 10 for going out instead of 20
    text = bad.read_bytes()
    option = b"GameOption 0 MahJongScore score 0 1 20 "
    assert text.count(option) == 1
    bad.write_bytes(text.replace(option, b"GameOption 0 MahJongScore score 0 1 10 "))
    r = run("--rules", "bradfield", "--history", str(good), str(bad))
    assert r.exit_code == 1
    assert "game 210 hand 10" in r.output and "West: score: ours 96, Bradfield 136" in r.output
    assert "1 of 2 scored hands agree with Bradfield's records (1 differ)" in r.output
    allow = tmp_path / "allow.json"
    allow.write_text(json.dumps({"game-210/hand-10.mjs": "MahJongScore changed"}))
    r = run("--history", str(tmp_path), "--allow", str(allow))
    assert r.exit_code == 0 and "1 of them known" in r.output
    r = run("--history", str(tmp_path), "--json")
    assert json.loads(r.output.splitlines()[-1])["summary"] == {
        "hands": 2, "agreed": 1, "differ": 1, "known": 0, "washouts": 0, "unreadable": 0}
    broken = tmp_path / "broken.mjs"
    broken.write_text("Player 1 A\n")
    r = run("--history", str(broken))
    assert r.exit_code == 1 and "broken.mjs" in r.output and "4 Player lines" in r.output


def test_history_folder_without_histories_is_refused(tmp_path):
    r = run("--rules", "bradfield", "--history", str(tmp_path))
    assert r.exit_code == 1
    assert "no Bradfield hand histories (.mjs) found" in r.output


def test_set_of_the_wrong_shape_is_one_line_naming_the_option():
    from click.testing import CliRunner

    from mjcore.cli import main

    r = CliRunner().invoke(main, ["score", "--rules", "classical", "123m456p789s345s99m", "--win",
                                  "9m", "--tsumo", "--set", "tile_specific_limits=0"])
    assert r.exit_code == 1 and "Traceback" not in r.output
    assert "tile_specific_limits=0" in r.output
