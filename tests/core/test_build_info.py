"""mjcore.build and `mjcore info`: the build's record agrees with the extensions beside it, and
a build below what this CPU runs is said (issue 28)."""
from __future__ import annotations

import json
import platform
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from mjcore import build
from mjcore.cli import main


def test_the_record_agrees_with_the_instructions_in_the_shanten_kernel():
    info = build.build_info()
    path = info["kernels"]["shanten"]
    if shutil.which("objdump") is None or path is None:
        pytest.skip("objdump or the shanten extension is missing")
    text = subprocess.run(["objdump", "-d", path], capture_output=True, text=True,
                          check=True).stdout
    has_popcnt = "\tpopcnt " in text
    has_avx2 = "%ymm" in text
    if info["level"] == "x86-64-v3":
        assert has_popcnt and has_avx2, info
    elif info["level"] == "x86-64":
        assert not has_popcnt and not has_avx2, info


def test_a_build_below_the_cpu_is_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    (tmp_path / "_build_info.json").write_text(json.dumps(
        {"march": "baseline", "flags": [], "debug": False}))
    monkeypatch.setattr(build, "_core_folder", lambda: tmp_path)
    monkeypatch.setattr(build, "cpu_levels", lambda: ["x86-64", "x86-64-v2", "x86-64-v3"])
    info = build.build_info()
    assert info["level"] == "x86-64" and info["slow"]
    out = CliRunner().invoke(main, ["info"]).output
    assert "kernels   x86-64 (MJCORE_MARCH=baseline)" in out
    assert "rebuild with MJCORE_MARCH=native" in out
    (tmp_path / "_build_info.json").write_text(json.dumps(
        {"march": "native", "flags": ["-march=x86-64-v3"], "debug": False}))
    assert not build.build_info()["slow"]
    assert "rebuild" not in CliRunner().invoke(main, ["info"]).output


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
