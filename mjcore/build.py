"""What the compiled kernels were built for, which level this process runs, and what this CPU
can run: the build's record (``mjcore/_core/_build_info.json``, written by setup.py with the
extensions beside it), the level each loaded kernel reports of its own code (``BUILT_FOR``) and
the CPU's x86-64 levels, so a slow build never goes unnoticed (``mjcore info``)."""
from __future__ import annotations

import importlib
import importlib.util
import json
import os
import platform
from pathlib import Path
from typing import Any

# the CPU flags each x86-64 level needs (the ones our kernels use: popcnt, pshufb, AVX2, BMI2)
LEVELS = {"x86-64-v2": ("popcnt", "ssse3", "sse4_1", "sse4_2"),
          "x86-64-v3": ("popcnt", "ssse3", "sse4_1", "sse4_2", "avx", "avx2", "bmi1", "bmi2",
                        "fma")}
KERNELS = ("shanten", "decompose", "scoring", "batch", "batch_scoring", "classical_scoring",
           "discard_analysis", "engine_turn", "ev", "single")


def _core_folder() -> Path:
    return Path(__file__).resolve().parent / "_core"


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
    """The x86-64 levels this CPU runs as Linux lists its flags ("x86-64" always on x86-64; []
    elsewhere); mjcore._core asks the CPU itself (cpuid) and falls back on this."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return []
    flags = cpu_flags()
    return ["x86-64"] + [level for level, need in LEVELS.items() if set(need) <= flags]


def _kernel_levels() -> dict[str, str | None]:
    """The level each kernel module reports of its own code (None: not built)."""
    out: dict[str, str | None] = {}
    for name in KERNELS:
        try:
            module = importlib.import_module(f"mjcore._core.{name}")
        except ImportError:
            out[name] = None
            continue
        out[name] = getattr(module, "BUILT_FOR", None)
    return out


def _loaded_level(recorded: str) -> str:
    """The level mjcore._core chose for this process (the recorded one if it cannot load)."""
    try:
        from ._core import LEVEL
    except ImportError:
        return recorded
    return LEVEL


def build_info() -> dict[str, Any]:
    """The kernels' build (``march``: dispatch, baseline, native, x86-64-v2 or x86-64-v3;
    ``flags``: the -march of the top folder; ``levels``: the higher levels a dispatch build
    added; ``debug``), the ``level`` this process loaded, the folder and files of its kernels
    and the level each reports of its code (``kernel_levels``), and this CPU's levels. ``slow``
    is True when the CPU could run a higher level than the one loaded; ``mismatch`` lists the
    kernels whose code is of another level than the one loaded (never, unless a file was
    replaced behind the build's back)."""
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
    kernel_levels = _kernel_levels() if any(files.values()) else {}
    loaded = _loaded_level(target)
    best = levels[-1] if levels else None
    return {**built, "level": loaded, "folder": str(folder), "kernels": files,
            "kernel_levels": kernel_levels,
            "mismatch": sorted(k for k, lv in kernel_levels.items() if lv and lv != loaded),
            "forced": os.environ.get("MJCORE_SIMD", "best") not in ("", "best"),
            "cpu_levels": levels,
            "slow": bool(best and best != loaded and not built.get("debug"))}


__all__ = ["build_info", "cpu_flags", "cpu_levels"]
