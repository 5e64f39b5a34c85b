"""``mjcore analyze``: text and JSON output, inputs (args, stdin, files), errors, progress."""
from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner

import mjcore
from mjcore.cli import main
from mjcore.hand import Hand
from mjcore.tiles import TILE_NAMES


def run(*args: str, stdin: str | None = None):
    return CliRunner().invoke(main, ["analyze", *args], input=stdin)


def json_lines(output: str) -> list[dict]:
    return [json.loads(line) for line in output.splitlines() if line.strip()]


def test_tenpai_13_text():
    r = run("123m406p789s1122z")
    assert r.exit_code == 0, r.output
    out = r.stdout
    assert "123m406p789s1122z" in out
    assert Hand.parse("123m406p789s1122z").format(unicode=True) in out
    assert "shanten  0 (tenpai); standard 0, chiitoitsu 4, kokushi 8" in out
    assert "waits    1z(2) 2z(2)  (4 tiles)" in out


def test_not_tenpai_13_shows_ukeire():
    r = run("1m5m9m1p5p9p1s5s9s1z2z3z4z")
    assert r.exit_code == 0, r.output
    uk = mjcore.ukeire("1m5m9m1p5p9p1s5s9s1z2z3z4z")
    assert f"({uk.best.remaining} tiles)" in r.stdout
    assert "ukeire" in r.stdout and "waits" not in r.stdout


def test_14_table_lists_every_discard_best_first():
    hand = "123m456p789s11223z"
    r = run(hand)
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    head = lines.index("  discard  shanten  count  advancing tiles")
    rows = [line.split() for line in lines[head + 1:]]
    distinct = {TILE_NAMES[k] for k in Hand.parse(hand).tiles}
    assert {row[0] for row in rows} == distinct
    assert rows[0][:3] == ["3z", "0", "4"]
    assert "tenpai   discard 3z: waits 1z(2) 2z(2)  (4 tiles)" in r.stdout
    keys = [(int(row[1]), -int(row[2])) for row in rows]
    assert keys == sorted(keys)


def test_json_matches_api():
    hands = ["123m406p789s1122z", "123m456p789s11223z", "13m456p789s11z pon:555z<2",
             "1112345678999m"]
    r = run("--json", *hands)
    assert r.exit_code == 0, r.output
    records = json_lines(r.stdout)
    assert [rec["line"] for rec in records] == [1, 2, 3, 4]
    for rec, text in zip(records, hands, strict=True):
        sh = mjcore.shanten(text)
        assert rec["input"] == text
        assert rec["hand"] == str(Hand.parse(text))
        assert rec["shanten"] == {"min": int(sh), "standard": sh.standard,
                                  "chiitoitsu": sh.chiitoitsu, "kokushi": sh.kokushi}
        uk = mjcore.ukeire(text)
        assert [o["count"] for o in rec["ukeire"]] == [o.remaining for o in uk.options]
        assert [o["discard"] for o in rec["ukeire"]] == [
            None if o.discard is None else TILE_NAMES[o.discard] for o in uk.options]
    assert records[2]["n_melds"] == 1 and records[2]["shanten"]["chiitoitsu"] is None
    nine_gates = records[3]
    assert nine_gates["tenpai"] is True
    assert [w["tile"] for w in nine_gates["waits"]] == [f"{n}m" for n in range(1, 10)]
    assert records[1]["tenpai_discards"][0]["discard"] == "3z"


def test_visible_tiles_reduce_remaining():
    r = run("--json", "--visible", "1z2z2z", "123m406p789s1122z")
    rec = json_lines(r.stdout)[0]
    assert rec["waits"] == [{"tile": "1z", "remaining": 1}, {"tile": "2z", "remaining": 0}]
    bad = run("--visible", "9z", "123m406p789s1122z")
    assert bad.exit_code == 2
    assert "--visible" in bad.output


def test_bad_lines_reported_and_rest_continue(tmp_path):
    path = tmp_path / "hands.txt"
    path.write_text("# sample\n123m406p789s1122z\n\n12x3m\n1m\n123m456p789s1122z\n")
    r = run("--file", str(path))
    assert r.exit_code == 1
    assert f"error: {path} line 4: hand '12x3m': unknown character 'x' at position 2" in r.stderr
    assert f"error: {path} line 5:" in r.stderr and "wrong_tile_count" in r.stderr
    assert "2 hand(s) failed" in r.stderr
    assert r.stdout.count("shanten  0 (tenpai)") == 2
    rj = run("--json", "--file", str(path))
    records = json_lines(rj.stdout)
    assert [rec["line"] for rec in records] == [2, 4, 5, 6]
    assert records[1]["error"] == {"reason": "unknown_character", "position": 2,
                                   "message": "hand '12x3m': unknown character 'x' at position 2"}
    assert records[2]["error"]["reason"] == "wrong_tile_count"


def test_stdin():
    r = run("-", stdin="123m406p789s1122z\n9z\n")
    assert r.exit_code == 1
    assert "<stdin> line 1: 123m406p789s1122z" in r.stdout
    assert "error: <stdin> line 2: hand '9z'" in r.stderr
    r = run("--file", "-", "--json", stdin="123m406p789s1122z\n")
    assert r.exit_code == 0 and json_lines(r.stdout)[0]["source"] == "<stdin> line 1"


def test_usage_errors():
    assert run().exit_code == 2
    assert run("--file", "/nonexistent/hands.txt").exit_code == 2


@pytest.fixture
def big_file(tmp_path):
    rng = random.Random(2)
    path = tmp_path / "big.txt"
    lines = []
    for _ in range(1200):
        wall = list(range(136))
        rng.shuffle(wall)
        lines.append(str(Hand.from_136(wall[:13])))
    path.write_text("\n".join(lines) + "\n")
    return path


def test_progress_bar(big_file):
    r = run("--file", str(big_file), "--json", "--progress")
    assert r.exit_code == 0
    assert len(json_lines(r.stdout)) == 1200
    assert "1200/1200" in r.stderr
    quiet = run("--file", str(big_file), "--json")  # stderr is not a terminal here
    assert quiet.stderr == ""
    assert run("--file", str(big_file), "--json", "--no-progress").stderr == ""


def test_meld_arguments_join_the_hand_before():
    r = run("--json", "13m456p789s11z", "pon:555z<2", "123m456p789s1122z")
    assert r.exit_code == 0, r.output
    first, second = json_lines(r.stdout)
    assert first["hand"] == "13m456p789s11z pon:555z<2" and first["n_melds"] == 1
    assert first["waits"] == [{"tile": "2m", "remaining": 4}]
    assert second["line"] == 3
    lone = run("pon:555z<2")
    assert lone.exit_code == 1 and "wrong_tile_count" in lone.stderr


def test_sanma_rules_drop_the_missing_kinds():
    hand = "19m456p789s11223z"
    r = run("--json", "--rules", "tenhou_sanma", hand)
    assert r.exit_code == 0, r.output
    record = json_lines(r.stdout)[0]
    uk = mjcore.ukeire(hand, rules="tenhou_sanma")
    assert [t["tile"] for t in record["ukeire"][0]["tiles"]] == ["1m", "9m", "1z", "2z", "3z"]
    assert record["ukeire"][0]["count"] == uk.best.remaining == 13
    assert json_lines(run("--json", hand).stdout)[0]["ukeire"][0]["count"] == 29
    bad = run("--rules", "tenhou_sanma", "12m456p789s11223z")
    assert bad.exit_code == 1 and "not_in_sanma" in bad.stderr
    table = run("--rules", "tenhou_sanma", "--out", "unused", hand)
    assert table.exit_code == 2 and "four-player riichi" in table.output


def test_visible_tiles_beyond_four_of_a_kind_are_refused():
    r = run("--visible", "1z1z1z", "123m456p789s1122z")
    assert r.exit_code != 0 and "Traceback" not in r.output
    assert "1z: 5 copies (2 in the hand, 3 in the visible tiles)" in r.output
    assert "waits" not in r.output


def test_an_error_without_a_reason_of_its_own_is_invalid(monkeypatch):
    from mjcore.cli import analyze
    from mjcore.errors import MjcoreError

    def refuse(text, *args, **kwargs):
        raise MjcoreError(f"hand {text}: refused")

    monkeypatch.setattr(analyze, "analyse_hand", refuse)
    r = run("--json", "123m406p789s1122z")
    assert json_lines(r.stdout)[0]["error"]["reason"] == "invalid"
    assert "[invalid]" in r.stderr
