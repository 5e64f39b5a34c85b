"""Timing shared by the benchmark scripts: the median wall and process CPU time of a call, and
the speed ratio of two workloads timed back to back."""
from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any


def median_times(run: Callable[[], Any], rounds: int) -> tuple[float, float]:
    """Median wall time and median process CPU time of ``rounds`` calls of ``run``, after one
    untimed call. The machine may be shared: CPU time is what one core spends, whatever else
    runs."""
    run()
    wall, cpu = [], []
    for _ in range(rounds):
        t, c = time.perf_counter(), time.process_time()
        run()
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    return statistics.median(wall), statistics.median(cpu)


def interleaved_ratios(first: Callable[[], Any], n_first: int, second: Callable[[], Any],
                       n_second: int, rounds: int) -> list[float]:
    """Per round, the speed of ``first`` (``n_first`` items per CPU second) over that of
    ``second``, the two timed back to back (CPU time) so that the host's speed drift cancels
    out of each ratio; each is called once untimed first."""
    first()
    second()
    ratios = []
    for _ in range(rounds):
        c = time.process_time()
        first()
        t_first = time.process_time() - c
        c = time.process_time()
        second()
        t_second = time.process_time() - c
        ratios.append((n_first / t_first) / (n_second / t_second))
    return ratios
