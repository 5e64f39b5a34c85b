import json

import pytest
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


# -- --server: the gRPC service answers as the library does, three-player kita included --------

SANMA_SERVER_CASES = [
    # (hand and flags); the norths set aside are dora, so --kita changes the value
    ["123p456p789s11z555z", "--win", "5z", "--tsumo", "--kita", "2"],
    ["111m999m123p456s77z", "--win", "7z", "--from", "2", "--riichi", "--kita", "1",
     "--honba", "1"],
    ["11m99m11p99p11s99s77z", "--win", "7z", "--tsumo", "--riichi", "--kita", "3",
     "--sticks", "1"],
]


@pytest.fixture(scope="module")
def server_address():
    pytest.importorskip("grpc")
    from mjcore.service import ServerConfig, build_server

    server, port = build_server(ServerConfig(port=0))
    server.start()
    yield f"127.0.0.1:{port}"
    server.stop(0).wait()


def score(*args: str):
    return CliRunner(env={"MJCORE_SERVER": "", "MJCORE_TOKEN": ""}).invoke(
        main, ["score", "--rules", "tenhou_sanma", *args])


def lines_starting(text: str, *prefixes: str) -> list[str]:
    return [line.rstrip() for line in text.splitlines() if line.startswith(prefixes)]


@pytest.mark.parametrize("args", SANMA_SERVER_CASES)
def test_score_server_passes_kita_and_agrees_with_local(server_address, args):
    local = score(*args, "--json")
    remote = score(*args, "--json", "--server", server_address)
    assert local.exit_code == 0 and remote.exit_code == 0, (local.output, remote.output)
    want, got = json.loads(local.output), json.loads(remote.output)
    assert want["is_win"] and got == want       # the same JSON as the local command
    kita = int(args[args.index("--kita") + 1])
    without = json.loads(score(*args[:args.index("--kita")], *args[args.index("--kita") + 2:],
                               "--json").output)
    assert want["dora"] == without["dora"] + kita    # the norths counted, on both paths
    # the text output: the same dora and deltas lines, three seats (no toimen)
    local_text = score(*args).output
    remote_text = score(*args, "--server", server_address).output
    assert remote_text == local_text
    assert lines_starting(remote_text, "dora", "deltas")
    assert "kamicha" in remote_text and "toimen" not in remote_text


def test_score_server_refuses_kita_as_the_library_does(server_address):
    args = ["123p456p789s11z555z", "--win", "5z", "--tsumo", "--kita", "1"]
    for extra in ([], ["--server", server_address]):
        r = CliRunner(env={"MJCORE_SERVER": "", "MJCORE_TOKEN": ""}).invoke(
            main, ["score", "--rules", "tenhou", *args, *extra])
        assert r.exit_code == 1 and "[bad_kita]" in r.stderr, r.output


def test_score_cli_refuses_five_of_a_kind_counting_indicators():
    r = CliRunner().invoke(main, ["score", "123m456p789s11122z", "--win", "2z", "--dora",
                                  "1z1z1z1z1z"])
    assert r.exit_code != 0 and "Traceback" not in r.output
    lines = [line for line in r.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "1z: 8 copies" in lines[0] and "dora indicators" in lines[0]
    assert "points" not in r.output


@pytest.mark.parametrize("setting, words", [
    ("banana=7", "unknown rule option(s): banana"), ("uma=0", "uma=0"),
    ("pao=true", "pao=True"), ("kiriage", "OPTION=VALUE")])
def test_score_cli_set_refuses_what_does_nothing_or_is_malformed(setting, words):
    r = CliRunner().invoke(main, ["score", "123m456p789s11122z", "--win", "2z", "--set",
                                  setting])
    assert r.exit_code == 1 and "Traceback" not in r.output
    lines = [line for line in r.output.splitlines() if line.strip()]
    assert len(lines) == 1 and words in lines[0] and "points" not in r.output


def test_score_cli_set_changes_a_riichi_rule_option():
    hand = ["234m456p678s234s55p", "--win", "4s", "--riichi", "--dora", "1m", "--json"]
    base = json.loads(CliRunner().invoke(main, ["score", *hand]).output)
    kiriage = json.loads(CliRunner().invoke(main, ["score", *hand, "--set",
                                                   "kiriage=true"]).output)
    assert (base["points"], kiriage["points"]) == (11600, 12000)    # dealer 4-30, kiriage
    r = CliRunner().invoke(main, ["score", *hand, "--set", "pao=daisangen", "--set",
                                  "uma=10000,0,0,-10000"])
    assert r.exit_code == 0, r.output
