"""mjcore.build, `mjcore info` and the choice of level in mjcore._core: the build's record agrees
with the extensions beside it, a level the CPU cannot run is never loaded, and a build below
what this CPU runs is said (issue 28)."""
from __future__ import annotations

import json
import platform
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

import mjcore._core as core
from mjcore import build
from mjcore.cli import main


@pytest.mark.parametrize("name", ["shanten", "ev", "batch", "single"])
def test_the_loaded_level_agrees_with_the_instructions_in_the_kernel(name: str):
    info = build.build_info()
    path = info["kernels"][name]
    if shutil.which("objdump") is None or path is None:
        pytest.skip("objdump or the extension is missing")
    assert not info["mismatch"] and info["kernel_levels"][name] == info["level"], info
    text = subprocess.run(["objdump", "-d", path], capture_output=True, text=True,
                          check=True).stdout
    # VEX-encoded instructions (vmovdqu, vpshufb, ...) and BMI2's shifts are x86-64-v3's only
    vex = sum(1 for line in text.splitlines()
              if "\tv" in line or "\tshlx " in line or "\tpext " in line)
    if info["level"] == "x86-64-v3":
        assert vex > 50, info
    elif info["level"] == "x86-64":
        assert vex == 0 and "\tpopcnt " not in text, info


def _fake_build(folder: Path, record: dict, levels: tuple[str, ...] = ()) -> None:
    (folder / "_build_info.json").write_text(json.dumps(record))
    for level in levels:
        (folder / level.replace("-", "_")).mkdir()
        (folder / level.replace("-", "_") / "_build_info.json").write_text(
            json.dumps({"march": "dispatch", "flags": [f"-march={level}"], "debug": False}))


DISPATCH = {"march": "dispatch", "flags": [], "debug": False, "levels": ["x86-64-v3"]}


@pytest.mark.parametrize("cpu, forced, chosen", [
    (["x86-64", "x86-64-v2", "x86-64-v3"], None, "x86-64-v3"),
    (["x86-64", "x86-64-v2"], None, "x86-64"),
    (["x86-64"], "best", "x86-64"),
    (["x86-64", "x86-64-v2", "x86-64-v3"], "x86-64", "x86-64"),
    ([], None, "x86-64"),              # not x86-64 at all: the portable build
])
def test_the_best_level_the_cpu_runs_is_chosen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               cpu: list, forced: str | None, chosen: str):
    _fake_build(tmp_path, DISPATCH, ("x86-64-v3",))
    monkeypatch.setattr(core, "HERE", tmp_path)
    monkeypatch.setattr(core, "_cpu_levels", lambda: cpu)
    if forced is None:
        monkeypatch.delenv("MJCORE_SIMD", raising=False)
    else:
        monkeypatch.setenv("MJCORE_SIMD", forced)
    assert core._choose() == (chosen, ["x86-64", "x86-64-v3"])


@pytest.mark.parametrize("record, levels, forced, message", [
    (DISPATCH, ("x86-64-v3",), "x86-64-v3", "this CPU does not run x86-64-v3"),
    (DISPATCH, ("x86-64-v3",), "avx9000", "MJCORE_SIMD='avx9000': this build has the levels "
                                           "x86-64, x86-64-v3"),
    (DISPATCH, (), "x86-64-v3", "this build has the levels x86-64 "),   # the folder is gone
    ({"march": "native", "flags": ["-march=x86-64-v3"], "debug": False}, (), None,
     "were built for x86-64-v3; this CPU runs x86-64, x86-64-v2"),
])
def test_a_level_the_cpu_cannot_run_is_an_import_error_not_an_illegal_instruction(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, record: dict, levels: tuple,
        forced: str | None, message: str):
    _fake_build(tmp_path, record, levels)
    monkeypatch.setattr(core, "HERE", tmp_path)
    monkeypatch.setattr(core, "_cpu_levels", lambda: ["x86-64", "x86-64-v2"])
    if forced is None:
        monkeypatch.delenv("MJCORE_SIMD", raising=False)
    else:
        monkeypatch.setenv("MJCORE_SIMD", forced)
    with pytest.raises(ImportError, match=message.replace("(", r"\(")):
        core._choose()


def test_the_cpu_check_agrees_with_linux(monkeypatch: pytest.MonkeyPatch):
    from mjcore._core.cpu import levels

    if not Path("/proc/cpuinfo").exists():
        pytest.skip("no /proc/cpuinfo")
    assert levels() == build.cpu_levels()


def test_a_build_below_the_cpu_is_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    (tmp_path / "_build_info.json").write_text(json.dumps(
        {"march": "baseline", "flags": [], "debug": False}))
    monkeypatch.setattr(build, "_core_folder", lambda: tmp_path)
    monkeypatch.setattr(build, "cpu_levels", lambda: ["x86-64", "x86-64-v2", "x86-64-v3"])
    monkeypatch.setattr(build, "_loaded_level", lambda recorded: recorded)
    monkeypatch.setattr(build, "_kernel_levels", dict)
    monkeypatch.delenv("MJCORE_SIMD", raising=False)
    info = build.build_info()
    assert info["level"] == "x86-64" and info["slow"]
    out = CliRunner().invoke(main, ["info"]).output
    assert "built: x86-64 (MJCORE_MARCH=baseline)" in out
    assert "rebuild with MJCORE_MARCH=dispatch" in out
    (tmp_path / "_build_info.json").write_text(json.dumps(
        {"march": "native", "flags": ["-march=x86-64-v3"], "debug": False}))
    assert not build.build_info()["slow"]
    assert "rebuild" not in CliRunner().invoke(main, ["info"]).output


def test_a_kernel_of_another_level_is_said(monkeypatch: pytest.MonkeyPatch):
    real = build._kernel_levels()
    monkeypatch.setattr(build, "_kernel_levels",
                        lambda: {**real, "ev": "x86-64" if real["ev"] != "x86-64" else "x86-64-v3"})
    info = build.build_info()
    assert info["mismatch"] == ["ev"]
    assert "mismatch  ev runs" in CliRunner().invoke(main, ["info"]).output


def test_a_missing_record_is_unknown_not_an_error(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(build, "_core_folder", lambda: tmp_path)
    info = build.build_info()
    assert info["march"] == "unknown"
    data = json.loads(CliRunner().invoke(main, ["info", "--json"]).output)
    assert data["march"] == "unknown" and "version" in data


def test_cpu_levels_read_the_flags(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(platform, "machine", lambda: "x86_64")
    monkeypatch.setattr(build, "cpu_flags", lambda: set(build.LEVELS["x86-64-v2"]))
    assert build.cpu_levels() == ["x86-64", "x86-64-v2"]
    monkeypatch.setattr(platform, "machine", lambda: "aarch64")
    assert build.cpu_levels() == []


def _run_forced(level: str, *code: str) -> subprocess.CompletedProcess[str]:
    import os
    import sys

    env = {**os.environ, "MJCORE_SIMD": level}
    return subprocess.run([sys.executable, *code], capture_output=True, text=True, env=env,
                          timeout=120, check=False)


def test_a_level_that_cannot_load_is_one_line_from_the_command_line():
    done = _run_forced("banana", "-m", "mjcore.cli", "info")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        "Error: mjcore: MJCORE_SIMD='banana': this build has the levels "
        f"{', '.join(core.BUILT_LEVELS)} (expected best or one of them)"]


def test_a_level_that_cannot_load_is_an_import_error_at_first_use():
    done = _run_forced("banana", "-c", (
        "import mjcore\n"
        "for use in (lambda: mjcore.shanten('123m'), lambda: __import__('mjcore.batch')):\n"
        "    try:\n"
        "        use()\n"
        "    except mjcore.KernelLevelError as err:\n"
        "        assert isinstance(err, ImportError)\n"
        "        print('refused', err)\n"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("refused mjcore: MJCORE_SIMD='banana'") == 2
