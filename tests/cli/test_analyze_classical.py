"""``mjcore analyze --rules classical``: the classical forms in text and JSON, errors."""
from __future__ import annotations

import json

from click.testing import CliRunner

import mjcore
from mjcore.cli import main


def run(*args: str):
    return CliRunner().invoke(main, ["analyze", *args])


def test_text_names_the_classical_forms():
    r = run("--rules", "classical", "19m19p19s1234567z 3f")
    assert r.exit_code == 0, r.output
    assert "shanten  0 (tenpai); standard 8, seven pairs -, thirteen orphans 0" in r.output
    assert "waits    1m(3) 9m(3)" in r.output and "(39 tiles)" in r.output


def test_json_matches_the_api():
    hand = "1111m2222p3333s45z 2f"
    r = run("--rules", "bradfield", "--json", hand)
    assert r.exit_code == 0, r.output
    record = json.loads(r.output)
    sh = mjcore.shanten(hand, "bradfield")
    assert record["rules"] == "bradfield"
    assert record["shanten"] == {"min": int(sh), "standard": sh.standard, "seven_pairs": None,
                                 "thirteen_orphans": sh.thirteen_orphans}
    u = mjcore.ukeire(hand, rules="bradfield")
    assert [o["count"] for o in record["ukeire"]] == [o.remaining for o in u.options]


def test_riichi_output_is_unchanged_by_default():
    plain = run("--json", "1111m2222p3333s4z")
    assert run("--rules", "riichi", "--json", "1111m2222p3333s4z").output == plain.output
    assert set(json.loads(plain.output)["shanten"]) == {"min", "standard", "chiitoitsu", "kokushi"}


def test_errors():
    r = run("--rules", "classical", "--json", "123m406p789s1122z", "123m456p789s1122z 1f1f")
    assert r.exit_code == 1
    reasons = [json.loads(line)["error"]["reason"] for line in r.output.splitlines()
               if line.startswith("{")]
    assert reasons == ["red_five_not_in_set", "duplicate_bonus"]
    r = run("--rules", "nosuch", "1m")
    assert r.exit_code == 2 and "'nosuch'" in r.output
    # classical rules are served by the server too: with nothing listening, a clear error
    r = run("--rules", "classical", "--server", "127.0.0.1:1", "123m456p789s1122z")
    assert r.exit_code == 1 and "127.0.0.1:1 is unreachable" in r.output


def test_set_turns_seven_pairs_on():
    r = run("--rules", "classical", "--set", "seven_pairs=true", "--json", "1111m2222p3333s4z")
    assert r.exit_code == 0, r.output
    record = json.loads(r.output)
    assert record["shanten"]["seven_pairs"] == 0
    assert record["waits"] == [{"tile": "4z", "remaining": 3}]
    r = run("--rules", "classical", "--set", "seven_pair=true", "1m")
    assert r.exit_code == 2 and "seven_pair" in r.output
    r = run("--set", "seven_pairs=true", "1m")
    assert r.exit_code == 2 and "--rules classical" in r.output
