"""The CLI's --server flag gives the same answers as the local library."""
import json

from click.testing import CliRunner

from mjcore.cli import main


def test_analyze_and_score_through_the_server(plain_server):
    server_address = f"127.0.0.1:{plain_server[1]}"
    runner = CliRunner()
    hand = "123m456p789s1122z"
    local = runner.invoke(main, ["analyze", "--json", hand])
    remote = runner.invoke(main, ["analyze", "--json", "--server", server_address, hand])
    assert local.exit_code == remote.exit_code == 0
    assert json.loads(local.output) == json.loads(remote.output)

    args = ["score", "123m456p789s11122z", "--win", "2z", "--tsumo", "--riichi", "--json"]
    local = json.loads(runner.invoke(main, args).output)
    remote = json.loads(runner.invoke(main, args + ["--server", server_address]).output)
    assert (local["han"], local["fu"], local["points"]) == (remote["han"], remote["fu"],
                                                            remote["points"])
    assert local["deltas"] == remote["deltas"]
    bad = runner.invoke(main, ["score", "123m", "--win", "1m", "--server", server_address])
    assert bad.exit_code == 1 and "error" in bad.output
