"""pytest-benchmark set-up for benchmarks/: collect ``bench_*.py`` files and make the in-place
build importable from a checkout.

    .venv/bin/python -m pytest benchmarks/bench_core.py --benchmark-only
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
try:
    import mjcore  # noqa: F401
except ImportError:  # built in place, not installed
    sys.path.insert(0, str(HERE.parent))


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Module | None:
    # Files named on the command line are collected by pytest itself.
    if (file_path.suffix == ".py" and file_path.name.startswith("bench_")
            and not parent.session.isinitpath(file_path)):
        return pytest.Module.from_parent(parent, path=file_path)
    return None


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    """Throughput (hands/s at the median round) of every benchmark that recorded ``hands``:
    pytest-benchmark's own table compares round times, and rounds differ in size."""
    session = getattr(config, "_benchmarksession", None)
    rows = [b for b in getattr(session, "benchmarks", []) if b.extra_info.get("hands")]
    if not rows:
        return
    import os

    tr = terminalreporter
    tr.section("throughput (hands/s, median round)")
    tr.write_line(f"load average: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for b in sorted(rows, key=lambda b: (b.group or "", -b.extra_info["hands"] / b.stats.median)):
        rate = b.extra_info["hands"] / b.stats.median
        tr.write_line(f"{b.group or '':<24} {rate / 1e6:>10.3f} M/s  {b.name}")
