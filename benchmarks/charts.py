"""PNG charts of benchmark results, drawn from the numbers of the same run (matplotlib, Agg).

BENCHMARKS.md shows them at its top; the scripts that measure write them with ``--chart PATH``.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def throughput_chart(path: Path, title: str, rows: Sequence[tuple[str, str, float]],
                     footnote: str, rate_text: Callable[[float], str]) -> None:
    """Horizontal bars of items per second on a log scale, one group per operation
    (``rows``: operation, implementation, rate; in the order given), mjcore's bars dark,
    each labelled by ``rate_text``."""
    plt = _pyplot()
    ops: list[str] = []
    for op, _impl, _rate in rows:
        if op not in ops:
            ops.append(op)
    fig, ax = plt.subplots(figsize=(12, 0.32 * len(rows) + 0.45 * len(ops) + 1.4))
    y = 0.0
    ticks, labels = [], []
    for op in ops:
        for _op, impl, rate in (r for r in rows if r[0] == op):
            ours = impl.startswith("mjcore")
            ax.barh(y, rate, color="#1f4e79" if ours else "#b0b0b0", height=0.8)
            ax.text(rate * 1.08, y, rate_text(rate), va="center", fontsize=7)
            ticks.append(y)
            labels.append(f"{op}: {impl}")
            y -= 1
        y -= 0.6
    ax.set_yticks(ticks, labels, fontsize=7)
    ax.set_xscale("log")
    ax.set_xlabel("hands per second (log scale; dark: mjcore)")
    ax.set_title(title, fontsize=10)
    ax.set_xlim(right=ax.get_xlim()[1] * 4)
    fig.text(0.01, 0.005, footnote, fontsize=7, va="bottom")
    fig.tight_layout(rect=(0.02, 0.03, 1, 1))
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


def stages_chart(path: Path, title: str, bars: Sequence[tuple[str, dict[str, float]]],
                 budget: float | None, budget_label: str, footnote: str) -> None:
    """Horizontal stacked bars of seconds by stage (``bars``: label, {stage: seconds}, top
    first), with an optional vertical line at ``budget`` seconds."""
    plt = _pyplot()
    stages: list[str] = []
    for _label, parts in bars:
        stages += [s for s in parts if s not in stages]
    colours = dict(zip(stages, plt.get_cmap("tab10").colors, strict=False))
    fig, ax = plt.subplots(figsize=(11, 1.4 + 0.7 * len(bars)))
    named: set[str] = set()          # each stage once in the legend
    for i, (_label, parts) in enumerate(bars):
        left = 0.0
        for stage, sec in parts.items():
            ax.barh(-i, sec, left=left, color=colours[stage], height=0.6,
                    label=None if stage in named else stage)
            named.add(stage)
            left += sec
        ax.text(left + 0.01, -i, f"{left:.2f} s", va="center", fontsize=8)
    if budget is not None:
        ax.axvline(budget, color="black", linestyle="--", linewidth=1)
        ax.text(budget, 0.55, budget_label, fontsize=8, ha="center")
    ax.set_yticks([-i for i in range(len(bars))], [b[0] for b in bars], fontsize=8)
    ax.set_xlabel("CPU seconds")
    ax.set_title(title, fontsize=10)
    ax.set_ylim(-len(bars) + 0.4, 0.9)
    ax.set_xlim(0, max(sum(p.values()) for _label, p in bars) * 1.12)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.text(0.01, 0.005, footnote, fontsize=7, va="bottom")
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)

