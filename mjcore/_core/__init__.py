"""The compiled kernels, at the best instruction-set level this CPU runs.

A dispatch build (setup.py, the default) holds the kernels at the x86-64 baseline in this folder
and at each higher level in a folder of its own (``x86_64_v3/``); this module asks the CPU what
it runs (``cpu.levels``: cpuid) and puts the best level's folder first on the package path, so
``mjcore._core.shanten`` is that level's module and every kernel of a process is of one level.
``MJCORE_SIMD`` forces a level (``x86-64``, ``x86-64-v3``; ``best``, the default, chooses), for
tests and for comparing them. A level this CPU cannot run is never loaded: it is an ImportError
naming the level, not an illegal instruction.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ..errors import KernelLevelError

try:
    from .cpu import levels as _cpu_levels
except ImportError:             # a partial development build (MJCORE_ONLY): ask /proc/cpuinfo
    from ..build import cpu_levels as _cpu_levels

HERE = Path(__file__).resolve().parent
BASELINE = "x86-64"
ENV = "MJCORE_SIMD"


def _record(folder: Path) -> dict[str, Any]:
    try:
        out = json.loads((folder / "_build_info.json").read_text())
    except (OSError, ValueError):
        return {}
    return out if isinstance(out, dict) else {}


def _level_of(record: dict[str, Any]) -> str:
    """The level a folder's record says its kernels were built for."""
    flags = record.get("flags") or []
    return next((f.partition("=")[2] for f in flags if str(f).startswith("-march=")), BASELINE)


def _choose() -> tuple[str, list[str]]:
    """The level to load and the levels built: the best built level the CPU runs, or the one
    MJCORE_SIMD names."""
    record = _record(HERE)
    top = _level_of(record)
    built = [top] + [lv for lv in record.get("levels") or []
                     if (HERE / lv.replace("-", "_") / "_build_info.json").exists()]
    runs = _cpu_levels()
    runnable = [lv for lv in built if lv == BASELINE or lv in runs]
    wanted = os.environ.get(ENV, "best").strip() or "best"
    if wanted == "best":
        if not runnable:
            raise KernelLevelError(f"mjcore: the kernels in {HERE} were built for {top}; this CPU "
                              f"runs {', '.join(runs) or 'no x86-64 level'} (rebuild with "
                              "MJCORE_MARCH=dispatch, the default)")
        return max(runnable, key=built.index), built
    if wanted not in built:
        raise KernelLevelError(f"mjcore: {ENV}={wanted!r}: this build has the levels "
                          f"{', '.join(built)} (expected best or one of them)")
    if wanted not in runnable:
        raise KernelLevelError(f"mjcore: {ENV}={wanted!r}: this CPU does not run {wanted} (it runs "
                          f"{', '.join(runs) or 'no x86-64 level'})")
    return wanted, built


LEVEL, BUILT_LEVELS = _choose()
if _level_of(_record(HERE)) != LEVEL:
    __path__.insert(0, str(HERE / LEVEL.replace("-", "_")))

__all__ = ["BUILT_LEVELS", "HERE", "LEVEL"]
