"""What the compiled kernels were built for and what this CPU can run: the build's record
(``mjcore/_core/_build_info.json``, written by setup.py with the extensions beside it) against
the CPU's x86-64 levels, so a slow build never goes unnoticed (``mjcore info``)."""
from __future__ import annotations

import importlib.util
import json
import platform
from pathlib import Path
from typing import Any

# the CPU flags each x86-64 level needs (the ones our kernels use: popcnt, pshufb, AVX2, BMI2)
LEVELS = {"x86-64-v2": ("popcnt", "ssse3", "sse4_1", "sse4_2"),
          "x86-64-v3": ("popcnt", "ssse3", "sse4_1", "sse4_2", "avx", "avx2", "bmi1", "bmi2",
                        "fma")}
KERNELS = ("shanten", "decompose", "scoring", "batch", "batch_scoring", "classical_scoring",
           "discard_analysis", "engine_turn", "ev")


def _core_folder() -> Path:
    spec = importlib.util.find_spec("mjcore._core.shanten")
    if spec is None or spec.origin is None:
        return Path(__file__).resolve().parent / "_core"
    return Path(spec.origin).resolve().parent


def cpu_flags() -> set[str]:
    """The CPU's feature flags as Linux lists them (empty where /proc/cpuinfo is missing)."""
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="ascii", errors="replace")
    except OSError:
        return set()
    for line in text.splitlines():
        if line.startswith("flags"):
            return set(line.partition(":")[2].split())
    return set()


def cpu_levels() -> list[str]:
    """The x86-64 levels this CPU runs ("x86-64" always on x86-64; [] elsewhere)."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return []
    flags = cpu_flags()
    return ["x86-64"] + [level for level, need in LEVELS.items() if set(need) <= flags]


def build_info() -> dict[str, Any]:
    """The kernels' build (``march``: baseline, native, x86-64-v2 or x86-64-v3; ``flags``: the
    -march it resolved to; ``debug``), their folder and files, and this CPU's levels; ``slow``
    is True when the CPU could run a higher level than the kernels were built for."""
    folder = _core_folder()
    record = folder / "_build_info.json"
    try:
        built: dict[str, Any] = json.loads(record.read_text())
    except (OSError, ValueError):
        built = {"march": "unknown", "flags": [], "debug": None}
    files = {}
    for name in KERNELS:
        spec = importlib.util.find_spec(f"mjcore._core.{name}")
        files[name] = spec.origin if spec is not None and spec.origin else None
    levels = cpu_levels()
    target = next((f.partition("=")[2] for f in built.get("flags", []) if f.startswith("-march=")),
                  "x86-64")
    best = levels[-1] if levels else None
    return {**built, "level": target, "folder": str(folder), "kernels": files,
            "cpu_levels": levels,
            "slow": bool(best and best != target and not built.get("debug"))}


__all__ = ["build_info", "cpu_flags", "cpu_levels"]
