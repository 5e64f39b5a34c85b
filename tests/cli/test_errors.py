"""Bad input to the `mjcore` commands: a one-line error that names the input (never a
traceback), and input that must be refused is refused."""
from __future__ import annotations

from click.testing import CliRunner

from mjcore.cli import main


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def one_line_error(result, *needles: str) -> str:
    assert result.exit_code != 0, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        repr(result.exception)
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error")]
    assert len(errors) == 1, result.stderr
    assert "Traceback" not in result.output
    for needle in needles:
        assert needle in errors[0], errors[0]
    return errors[0]


def test_replay_unknown_rules(tmp_path):
    one_line_error(run("replay", "--rules", "xyz", str(tmp_path)), "--rules", "'xyz'")


def test_replay_allow_file_that_is_not_json(tmp_path):
    bad = tmp_path / "allow.json"
    bad.write_text("dnovikoff: [not json\n")
    one_line_error(run("replay", "--allow", str(bad), str(tmp_path)), "--allow", "not JSON",
                   str(bad))
    bad.write_text("[1, 2]")
    one_line_error(run("replay", "--allow", str(bad), str(tmp_path)), "expected a JSON object")


def test_replay_refuses_a_folder_without_records(tmp_path):
    (tmp_path / "notes.md").write_text("no records here\n")
    one_line_error(run("replay", "--no-progress", str(tmp_path)), "no records in", str(tmp_path))


def test_play_refuses_a_negative_game_count():
    r = run("play", "--games", "-3", "--no-progress")
    assert r.exit_code == 2 and "--games" in r.stderr and "-3" in r.stderr
    assert "games/s" not in r.output


def test_play_with_a_missing_mjai_command():
    one_line_error(run("play", "--games", "1", "--agents", "mjai:/no/such/bot", "--no-progress"),
                   "--agents", "/no/such/bot", "not found")


def test_play_unknown_rules():
    one_line_error(run("play", "--games", "1", "--rules", "xyz", "--no-progress"), "--rules")


def test_mjai_agent_that_cannot_start_is_an_mjcore_error():
    import pytest

    from mjcore.riichi.mjai import MjaiAgent, MjaiError

    with pytest.raises(MjaiError, match="cannot be started"):
        MjaiAgent("/no/such/bot --flag")


def test_score_names_the_dora_option():
    r = run("score", "123m456p789s11122z", "--win", "2z", "--tsumo", "--dora", "9z")
    assert r.exit_code == 1
    assert "--dora '9z'" in r.stderr and "hand '9z'" not in r.stderr
    r = run("score", "123m456p789s11122z", "--win", "2z", "--tsumo", "--riichi", "--ura", "0z")
    assert "--ura '0z'" in r.stderr


def test_analyze_refuses_a_fifth_visible_copy():
    r = run("analyze", "123m456p789s11223z", "--visible", "1z1z1z1z1z")
    assert r.exit_code == 2 and "--visible" in r.stderr and "four copies of 1z" in r.stderr
    assert run("analyze", "123m456p789s11223z", "--visible", "1z1z").exit_code == 0
    # four visible beside the two in the hand: six copies in all (issue 29)
    r = run("analyze", "123m456p789s11223z", "--visible", "1z1z1z1z")
    assert r.exit_code == 1 and "1z: 6 copies (2 in the hand, 4 in the visible tiles)" in r.stderr


def test_analyze_refuses_an_over_long_line(tmp_path):
    from mjcore.cli.analyze import MAX_LINE_CHARS

    path = tmp_path / "hands.txt"
    path.write_text("123m456p789s11223z\n" + "1" * (MAX_LINE_CHARS + 1) + "\n")
    one_line_error(run("analyze", "--file", str(path)), "line 2", f"longer than {MAX_LINE_CHARS}")
    path.write_text("123m456p789s11223z" + " " * (MAX_LINE_CHARS - 18) + "\n")
    assert run("analyze", "--file", str(path)).exit_code == 0


def test_replay_refuses_an_over_large_record_and_a_truncated_archive(tmp_path, monkeypatch):
    import io
    import tarfile

    from mjcore.engine import sources

    record = tmp_path / "game.json"
    record.write_text("x" * 100)
    monkeypatch.setattr(sources, "MAX_RECORD_BYTES", 99)
    # a record that cannot be read is that record's error; the run goes on and summarises
    r = run("replay", "--no-progress", str(record))
    assert r.exit_code == 1 and "Traceback" not in r.output
    assert f"ERROR: {record}: 100 bytes, more than the 99 bytes" in r.stderr
    assert "1 records: 0 agree" in r.output and "1 unreadable" in r.output
    monkeypatch.undo()
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        info = tarfile.TarInfo("game.json")
        info.size = 100
        tar.addfile(info, io.BytesIO(b"x" * 100))
    archive = tmp_path / "games.tar.gz"
    archive.write_bytes(buf.getvalue()[:40])
    r = run("replay", "--no-progress", str(archive))
    assert r.exit_code == 1 and "Traceback" not in r.output
    assert f"ERROR: {archive}: cannot open or read the archive" in r.stderr


def test_jobs_has_a_limit(tmp_path):
    from mjcore.cli.common import MAX_JOBS

    for command in (["replay", str(tmp_path)], ["play", "--games", "1"]):
        r = run(*command, "--jobs", str(MAX_JOBS + 1))
        assert r.exit_code == 2 and "--jobs" in r.stderr, r.stderr


def test_a_malformed_server_address_is_named_malformed_not_unreachable():
    for address, why in (("localhost", "the port is required"),
                         ("127.0.0.1:abc", "the port 'abc' is not a number 1-65535"),
                         ("127.0.0.1:0", "the port '0' is not a number 1-65535"),
                         ("::1:50051", "IPv6 host in brackets")):
        for args in (("analyze", "--server", address, "123m456p789s1122z"),
                     ("score", "123m456p789s11122z", "--win", "2z", "--server", address)):
            line = one_line_error(run(*args), "--server", f"{address!r} is not a server "
                                  "address", why)
            assert "unreachable" not in line


def score_error(*args: str) -> str:
    """The one `error: ...` line of a `mjcore score` that must fail (exit 1)."""
    r = run("score", *args)
    assert r.exit_code == 1 and r.stdout == "" and "Traceback" not in r.output, r.output
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    return lines[0]


def test_score_names_the_broken_condition_in_the_options_terms():
    hand = "123m456p789s11122z"
    assert "13 tiles, where a winning hand holds 14" in score_error("123m456p789s1122z",
                                                                    "--win", "2z")
    line = score_error(hand, "--win", "2z", "--ippatsu")
    assert "--ippatsu needs --riichi or --double-riichi (neither is set)" in line
    assert "[bad_situation]" in line and "chiihou" not in line
    assert "--win 3z is not in the hand" in score_error(hand, "--win", "3z")
    assert "--haitei is a win by tsumo, not with --ron" in score_error(hand, "--win", "2z",
                                                                      "--haitei")
    assert "--tenhou needs the dealer (--seat W)" in score_error(
        hand, "--win", "2z", "--tsumo", "--tenhou", "--seat", "W")


def test_score_refuses_a_discarder_on_a_tsumo_and_a_fourth_seat_in_sanma():
    line = score_error("123m456p789s11122z", "--win", "2z", "--from", "2", "--tsumo")
    assert "--from 2 with --tsumo" in line and "[bad_seats]" in line
    sanma = ("123p456p789s11z555z", "--win", "5z", "--rules", "tenhou_sanma")
    line = score_error(*sanma, "--from", "3")
    assert line.startswith("error: --from 3: three players") and "from_who" not in line
    assert "--pao 3" in score_error(*sanma, "--from", "1", "--pao", "3")


def test_analyze_refuses_a_binary_file_at_once(tmp_path):
    binary = tmp_path / "data.bin"
    binary.write_bytes(bytes(range(256)) * 4000 + b"\n" * 1000)
    r = run("analyze", "--file", str(binary))
    one_line_error(r, str(binary), "a binary file")
    assert len(r.output) < 1000
    latin = tmp_path / "latin1.txt"
    latin.write_bytes("123m456p789s1122z caf\xe9\n".encode("latin-1"))
    one_line_error(run("analyze", "--file", str(latin)), str(latin), "not UTF-8")


def test_analyze_escapes_what_it_prints_and_bounds_the_errors(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("".join(f"\x1b[2J\x07{i}m\n" for i in range(500)) + "123m456p789s1122z\n")
    r = run("analyze", "--file", str(bad))
    assert r.exit_code == 1 and "Traceback" not in r.output
    errors = [line for line in r.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 100
    assert "\x1b" not in r.stderr and "\x07" not in r.stderr and "\\x1b" in errors[0]
    assert "500 hand(s) failed (400 more not shown)" in r.stderr
    assert "123m456p789s1122z" in r.stdout          # the good hand after them is analysed


def test_extract_refuses_an_out_folder_inside_its_input(tmp_path):
    """An --out inside the input folder would be walked as input: the extract's own manifest
    and problem lists were read as records (and reported as bad ones)."""
    import pytest

    pytest.importorskip("pyarrow")
    records = tmp_path / "records"
    records.mkdir()
    (records / "game.mjson").write_text('{"type": "start_game", "names": ["a", "b", "c", "d"]}\n')
    for out in (records / "ex", records):
        r = CliRunner().invoke(main, ["extract", str(records), "--out", str(out),
                                      "--no-progress"])
        assert r.exit_code == 2, r.output
        assert f"--out {out} is inside the input folder {records}" in r.output
        assert not (records / "ex").exists()
