"""The kernels answer the same at every instruction-set level: the x86-64 baseline (portable
C), and x86-64-v3 (SSSE3 byte shuffles, BMI2 pext, POPCNT, AVX2).

- In every test run, a dispatch build (the default, setup.py) runs the seeded workload of
  kernel_workload.py once per level it holds, forced with MJCORE_SIMD, and the answers agree row
  for row (digests; the expected values within 1e-9, as x86-64-v3 may fuse a*b+c into an FMA).
- `make test-debug` runs this file in the debug tree (build/debug-tree: bounds checks, -O0, the
  baseline) with MJCORE_FAST_TREE pointing at the release build: the same workload in both.
- `make wheel-check` points MJCORE_WHEEL_PYTHON at a fresh venv with the wheel `pip wheel .`
  built: run from another directory, it loads the best level, and every level agrees.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import mjcore._core as core

HERE = Path(__file__).resolve().parent
TREE = HERE.parents[1]
WORKLOAD = HERE / "kernel_workload.py"


def _bradfield() -> str:
    """The Bradfield archive beside the checkout (the release tree's, from the debug tree)."""
    for tree in (TREE, Path(os.environ.get("MJCORE_FAST_TREE") or TREE)):
        archive = tree.parent / "shared" / "data" / "classical" / "bradfield-games.tar.xz"
        if archive.exists():
            return str(archive)
    return ""


def run_workload(python: str, cwd: Path, tree: Path | None = None,
                 level: str | None = None) -> dict:
    """The workload's answers from the mjcore that ``python`` imports (the tree's, when given)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MJCORE_SIMD")}
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    if level is not None:
        env["MJCORE_SIMD"] = level
    r = subprocess.run([python, str(WORKLOAD), _bradfield()], cwd=cwd, env=env, capture_output=True,
                       text=True, timeout=900, check=False)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout)


def assert_same_answers(a: dict, b: dict) -> None:
    a, b = dict(a), dict(b)
    for key in ("where", "level", "kernel_levels"):
        a.pop(key), b.pop(key)
    ev_a, ev_b = a.pop("expected"), b.pop("expected")
    assert a["tenpai_share"] > 0.1 and a["n_scored"] > 50   # the workload reaches real states
    assert a["classical"] is not None or not _bradfield()
    assert a == b
    assert len(ev_a) == len(ev_b) > 0
    for hand_a, hand_b in zip(ev_a, ev_b, strict=False):
        assert hand_a[0] == hand_b[0] == "ok"
        # the same values per discard (their order may differ between near-equal values)
        by_tile = {d[0]: d for d in hand_b[1:]}
        assert sorted(by_tile) == sorted(d[0] for d in hand_a[1:])
        for da in hand_a[1:]:
            db = by_tile[da[0]]
            for column in (1, 2, 3):
                np.testing.assert_allclose(da[column], db[column], rtol=1e-9, atol=1e-12)


def _levels_of(answer: dict) -> set:
    return set(answer["kernel_levels"].values())


def _record(tree: Path) -> dict:
    path = tree / "mjcore" / "_core" / "_build_info.json"
    return json.loads(path.read_text()) if path.exists() else {}


def test_every_level_of_this_build_gives_the_same_answers(tmp_path: Path):
    if len(core.BUILT_LEVELS) < 2:
        pytest.skip(f"one level built ({core.BUILT_LEVELS}): build with MJCORE_MARCH=dispatch")
    from mjcore._core.cpu import levels

    runnable = [lv for lv in core.BUILT_LEVELS if lv in levels()]
    if len(runnable) < 2:
        pytest.skip(f"this CPU runs only {levels()}")
    answers = {lv: run_workload(sys.executable, tmp_path, TREE, lv) for lv in runnable}
    for level, answer in answers.items():
        assert answer["level"] == level and _levels_of(answer) == {level}, answer
        assert Path(answer["where"]).is_relative_to(TREE)
    first, *rest = answers.values()
    for other in rest:
        assert_same_answers(first, other)


def test_baseline_kernels_agree_with_the_fast_paths(tmp_path: Path):
    fast_tree = os.environ.get("MJCORE_FAST_TREE")
    if not fast_tree:
        pytest.skip("run by `make test-debug` (MJCORE_FAST_TREE = the release build)")
    assert _record(TREE).get("march") == "baseline", _record(TREE)
    fast = _record(Path(fast_tree))
    assert fast.get("march") not in (None, "baseline"), fast
    baseline = run_workload(sys.executable, tmp_path, TREE)
    fast_paths = run_workload(sys.executable, tmp_path, Path(fast_tree))
    assert Path(baseline["where"]).is_relative_to(TREE)
    assert Path(fast_paths["where"]).is_relative_to(Path(fast_tree))
    assert _levels_of(baseline) == {"x86-64"} and _levels_of(fast_paths) != {"x86-64"}
    assert_same_answers(baseline, fast_paths)


def test_the_installed_wheel_runs_its_best_level_and_every_level_agrees(tmp_path: Path):
    python = os.environ.get("MJCORE_WHEEL_PYTHON")
    if not python:
        pytest.skip("run by `make wheel-check` (MJCORE_WHEEL_PYTHON = a venv with the wheel)")
    info = json.loads(subprocess.run(
        [str(Path(python).parent / "mjcore"), "info", "--json"], cwd=tmp_path,
        capture_output=True, text=True, check=True).stdout)
    assert Path(info["folder"]).is_relative_to(Path(python).parents[1]), info   # not the tree
    assert info["march"] == "dispatch" and not info["mismatch"] and not info["slow"], info
    assert info["level"] == info["cpu_levels"][-1] if info["cpu_levels"] else True
    answers = [run_workload(python, tmp_path, None, lv)
               for lv in ["x86-64"] + list(info["levels"]) if lv in info["cpu_levels"]]
    for answer in answers:
        assert Path(answer["where"]).is_relative_to(Path(python).parents[1])
    assert len(answers) >= 1
    mine = run_workload(sys.executable, tmp_path, TREE)
    for answer in answers:
        assert_same_answers(mine, answer)
