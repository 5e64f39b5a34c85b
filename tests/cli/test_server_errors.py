"""`mjcore analyze --server` and `mjcore score --server`: one clear error, fast, when the
server cannot be reached or refuses the token; --token-file, --ca, --cert and --key reach a TLS
server; the answer prints as the local command's."""
from __future__ import annotations

import json
import os
import socket

import pytest
from click.testing import CliRunner

from mjcore.cli import main
from mjcore.service import ServerConfig, build_server
from tests.service.conftest import certs  # noqa: F401  (the throwaway CA and certificates)

TOKEN = "cli-test-token"
HANDS = ["123m456p789s11223z", "123m456p789s1122z", "19m19p19s1234567z"]


def run(*args: str, env: dict[str, str] | None = None):
    return CliRunner(env={"MJCORE_TOKEN": "", "MJCORE_SERVER": "", **(env or {})}).invoke(
        main, ["analyze", "--json", *args])


def one_error(result, needle: str) -> None:
    assert result.exit_code == 1, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error:") and needle in lines[0], lines
    assert result.stdout == ""


@pytest.fixture(scope="module")
def mtls_token_server(certs):  # noqa: F811
    server, port = build_server(ServerConfig(
        port=0, tls_cert=certs["server"], tls_key=certs["server.key"], client_ca=certs["ca"],
        token=TOKEN))
    server.start()
    yield port
    server.stop(0).wait()


@pytest.fixture(scope="module")
def token_server():
    server, port = build_server(ServerConfig(port=0, token=TOKEN))
    server.start()
    yield port
    server.stop(0).wait()


def test_nothing_listening_is_one_error():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    one_error(run("--server", f"127.0.0.1:{port}", *HANDS), "unreachable")


def test_a_refused_token_is_one_error(token_server, tmp_path):
    one_error(run("--server", f"127.0.0.1:{token_server}", *HANDS), "refused the token")
    wrong = tmp_path / "wrong.txt"
    wrong.write_text("not-the-token\n")
    one_error(run("--server", f"127.0.0.1:{token_server}", "--token-file", str(wrong), *HANDS),
              "refused the token")
    right = tmp_path / "token.txt"
    right.write_text(TOKEN + "\n")
    ok = run("--server", f"127.0.0.1:{token_server}", "--token-file", str(right), *HANDS)
    assert ok.exit_code == 0, ok.output
    local = run(*HANDS)
    assert [json.loads(x) for x in ok.stdout.splitlines()] == \
        [json.loads(x) for x in local.stdout.splitlines()]
    assert run("--server", f"127.0.0.1:{token_server}", HANDS[0],
               env={"MJCORE_TOKEN": TOKEN}).exit_code == 0


def test_mutual_tls_with_ca_cert_key_and_token_file(mtls_token_server, certs, tmp_path):  # noqa: F811
    token = tmp_path / "token.txt"
    token.write_text(TOKEN + "\n")
    server = f"localhost:{mtls_token_server}"
    ok = run("--server", server, "--ca", str(certs["ca"]), "--cert", str(certs["client"]),
             "--key", str(certs["client.key"]), "--token-file", str(token), *HANDS)
    assert ok.exit_code == 0, ok.output
    assert len(ok.stdout.splitlines()) == len(HANDS)
    # plaintext, or TLS without the client certificate: the handshake fails, once
    one_error(run("--server", server, "--token-file", str(token), HANDS[0]), "unreachable")
    one_error(run("--server", server, "--ca", str(certs["ca"]), "--token-file", str(token),
                  HANDS[0]), "unreachable")


def test_tls_options_need_server_and_cert_needs_key(certs):  # noqa: F811
    r = run("--ca", str(certs["ca"]), HANDS[0])
    assert r.exit_code == 2 and "go with --server" in r.stderr
    r = run("--server", "127.0.0.1:1", "--cert", str(certs["client"]), HANDS[0])
    assert r.exit_code == 2 and "--cert and --key go together" in r.stderr


def score(*args: str, env: dict[str, str] | None = None):
    return CliRunner(env={"MJCORE_TOKEN": "", "MJCORE_SERVER": "", **(env or {})}).invoke(
        main, ["score", *args])


SCORED = [("123m456p789s11122z", "--win", "2z", "--tsumo", "--riichi", "--dora", "1z"),
          ("123m45699p234789s", "--win", "4s", "--from", "2", "--honba", "1"),
          ("1122334455667z7z", "--win", "7z"),
          ("123p456p789s11z555z", "--win", "5z", "--tsumo", "--kita", "2", "--rules",
           "tenhou_sanma")]


def test_score_server_nothing_listening_is_one_error():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    r = score(*SCORED[0], "--server", f"127.0.0.1:{port}")
    one_error(r, f"server 127.0.0.1:{port} is unreachable")
    assert "StatusCode" not in r.output and "_InactiveRpcError" not in r.output


def test_score_server_prints_what_the_local_score_prints(token_server, tmp_path):
    token = tmp_path / "token.txt"
    token.write_text(TOKEN + "\n")
    server = ("--server", f"127.0.0.1:{token_server}", "--token-file", str(token))
    for args in SCORED:
        local, remote = score(*args), score(*args, *server)
        assert local.exit_code == remote.exit_code == 0, remote.output
        assert remote.stdout == local.stdout and "fu     " in local.stdout
        assert "pay    " in local.stdout and "reading " in local.stdout
        local, remote = score(*args, "--json"), score(*args, "--json", *server)
        assert json.loads(remote.stdout) == json.loads(local.stdout)
    one_error(score(*SCORED[0], "--server", f"127.0.0.1:{token_server}"), "refused the token")
    bad = score("123m456p789s11122z", "--win", "2z", "--ippatsu", *server)
    assert bad.exit_code == 1 and bad.stderr.strip() == (
        "error: hand 123m456p789s11122z: --ippatsu needs --riichi or --double-riichi "
        "(neither is set) [bad_situation]")


def test_score_server_over_mutual_tls(mtls_token_server, certs, tmp_path):  # noqa: F811
    token = tmp_path / "token.txt"
    token.write_text(TOKEN + "\n")
    ok = score(*SCORED[0], "--server", f"localhost:{mtls_token_server}", "--ca",
               str(certs["ca"]), "--cert", str(certs["client"]), "--key",
               str(certs["client.key"]), "--token-file", str(token))
    assert ok.exit_code == 0 and ok.stdout == score(*SCORED[0]).stdout, ok.output
    r = score(*SCORED[0], "--ca", str(certs["ca"]))
    assert r.exit_code == 2 and "go with --server" in r.stderr


def _serve(*args: str):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "mjcore.cli", "serve", *args],
                          capture_output=True, text=True, timeout=60, check=False)


def test_serve_says_which_port_is_in_use():
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        r = _serve("--port", str(port))
    assert r.returncode == 1
    assert f"port {port} is in use" in r.stderr and "GRPC_VERBOSITY" not in r.stderr


def test_serve_says_the_tls_key_does_not_match(certs):  # noqa: F811
    r = _serve("--port", "0", "--tls-cert", str(certs["server"]), "--tls-key",
               str(certs["client.key"]))
    assert r.returncode == 1
    assert "--tls-key" in r.stderr and "GRPC_VERBOSITY" not in r.stderr, r.stderr


def test_a_failed_tls_handshake_is_our_one_line_only(token_server):
    """grpc core logs a failed handshake to the process's stderr itself (not through Python):
    run the command as a user does and see only our line."""
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "mjcore.cli", "analyze", HANDS[0], "--server",
                        f"127.0.0.1:{token_server}", "--tls"], capture_output=True, text=True,
                       timeout=60, env={**os.environ, "MJCORE_TOKEN": TOKEN})
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert r.returncode == 1 and len(lines) == 1, r.stderr
    assert lines[0].startswith("Error:") and "TLS handshake" in lines[0]
