import json

from click.testing import CliRunner

from mjcore.cli import main


def test_score_cli_text_and_json():
    runner = CliRunner()
    r = runner.invoke(main, ["score", "123m456p789s11z234p", "--win", "2p", "--tsumo",
                             "--riichi", "--dora", "1z"])
    assert r.exit_code == 0, r.output
    assert "2 han 30 fu: 3000 points" in r.output and "pair 1z 4" in r.output
    r = runner.invoke(main, ["score", "055m33s", "pon:777z", "pon:666z", "pon:555z", "--win",
                             "5m", "--seat", "S", "--json"])
    data = json.loads(r.output)
    assert data["points"] == 32000 and data["limit_name"] == "yakuman"
    assert data["yaku"][0]["name"] == "daisangen"


def test_score_cli_errors():
    r = CliRunner().invoke(main, ["score", "123m456p789s5p", "--win", "5p"])
    assert r.exit_code == 1
    r = CliRunner().invoke(main, ["score", "123m456p789s55p", "chi:213s", "--win", "5p",
                                  "--json"])
    assert r.exit_code == 0 and json.loads(r.output)["is_win"] is False
