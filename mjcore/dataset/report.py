"""Summaries of an analysed table: per player and overall, as numbers and as PNG charts.

A *discard decision* is a row whose discard was analysed (``made_discard`` set). Measures:
how often the discard was one of the efficiency-best, the tiles of acceptance given up per
discard and per hand (summed over the player's discards in the hand, averaged over the hands
he discarded in), the mean shanten (of the hand before the discard) by turn, and for wins how
often the score agrees with the record. ``skipped`` counts every record and row that could
not be used, by reason, from the problem lists of the analysed folder and of its input.
"""
from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..errors import MjcoreError
from .common import read_problems

REPORT_COLUMNS = ("game", "hand", "seat", "player", "turn", "action", "shanten", "made_discard",
                  "made_best", "acceptance_lost", "analysis_error", "score_status",
                  "score_points", "win_points")
MAX_TURN = 24


@dataclass
class Report:
    overall: dict[str, Any]
    players: list[dict[str, Any]]
    shanten_by_turn: list[dict[str, Any]]
    skipped: dict[str, int]
    problems_shown: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"overall": self.overall, "players": self.players,
                "shanten_by_turn": self.shanten_by_turn, "skipped": self.skipped,
                "problems_shown": self.problems_shown}

    def text(self, players: int = 20) -> str:
        o = self.overall
        lines = [
            (f"rows {o['rows']:,}  games {o['games']:,}  player-hands {o['player_hands']:,}  "
             f"rows not analysed {o['rows_not_analysed']:,}"),
            (f"discard decisions {o['discards']:,}: efficiency-best {_pct(o['best_rate'])}, "
             f"acceptance lost {_num(o['lost_per_discard'])} tiles per discard, "
             f"{_num(o['lost_per_hand'])} per hand"),
        ]
        if o.get("wins"):
            lines.append(f"wins scored {o['wins']:,}: score agrees with the record "
                         f"{o['wins_agree']:,} ({_pct(o['wins_agree'] / o['wins'])})")
        if self.players:
            lines.append("")
            lines.append(f"{'player':<24} {'discards':>9} {'best':>7} {'lost/discard':>13} "
                         f"{'lost/hand':>10}")
            for p in self.players[:players]:
                lines.append(f"{_clip(p['player'], 24):<24} {p['discards']:>9,} "
                             f"{_pct(p['best_rate']):>7} {_num(p['lost_per_discard']):>13} "
                             f"{_num(p['lost_per_hand']):>10}")
            if len(self.players) > players:
                lines.append(f"... {len(self.players) - players} more players")
        if self.shanten_by_turn:
            lines.append("")
            lines.append("mean shanten by turn: " + "  ".join(
                f"{t['turn']}:{t['mean_shanten']:.2f}" for t in self.shanten_by_turn))
        lines.append("")
        if self.skipped:
            lines.append("skipped: " + ", ".join(f"{k} {v:,}" for k, v in
                                                 sorted(self.skipped.items())))
        else:
            lines.append("skipped: nothing")
        lines.extend(f"  {shown}" for shown in self.problems_shown)
        return "\n".join(lines)


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _num(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def _clip(s: str, n: int) -> str:
    return s if len(s) <= n else s[:n - 1] + "~"


def _frame(data: Any) -> Any:
    """A pandas DataFrame of the report's columns from a folder, an Arrow table or a frame."""
    import pandas as pd
    import pyarrow as pa

    if isinstance(data, (str, os.PathLike)):
        from .analyze import read_table, table_columns

        have = set(table_columns(os.fspath(data)))
        data = read_table(os.fspath(data), [c for c in REPORT_COLUMNS if c in have])
    if isinstance(data, pa.Table):
        data = data.select([c for c in REPORT_COLUMNS if c in data.column_names]).to_pandas()
    if not isinstance(data, pd.DataFrame):
        if type(data).__module__.startswith("dask"):
            data = data[[c for c in REPORT_COLUMNS if c in data.columns]].compute()
        else:
            raise MjcoreError(f"report takes a folder, an Arrow table or a DataFrame, not "
                              f"{type(data).__name__}")
    if "made_discard" not in data.columns:
        raise MjcoreError("the table is not analysed (no made_discard column): run analyze")
    return data


def _measures(df: Any) -> dict[str, Any]:
    d = df[df["made_discard"].notna()]
    n = len(d)
    out: dict[str, Any] = {"discards": int(n)}
    out["best_rate"] = float(d["made_best"].astype(bool).mean()) if n else None
    out["lost_per_discard"] = float(d["acceptance_lost"].astype(float).mean()) if n else None
    keys = [c for c in ("game", "hand", "seat") if c in d.columns]
    if n and len(keys) == 3:
        per_hand = d.groupby(keys, sort=False)["acceptance_lost"].sum()
        out["lost_per_hand"] = float(per_hand.mean())
        out["player_hands"] = len(per_hand)
    else:
        out["lost_per_hand"] = None
        out["player_hands"] = 0
    return out


def build_report(data: Any, *, problems: list[Any] | None = None,
                 min_discards: int = 1) -> Report:
    """The report of an analysed table (folder, Arrow table, pandas or Dask DataFrame)."""
    source_dir = os.fspath(data) if isinstance(data, (str, os.PathLike)) else None
    df = _frame(data)
    overall = _measures(df)
    overall["rows"] = len(df)
    overall["games"] = int(df["game"].nunique()) if "game" in df.columns else 0
    overall["rows_not_analysed"] = int(df["analysis_error"].notna().sum()) \
        if "analysis_error" in df.columns else 0
    if "score_status" in df.columns and "win_points" in df.columns:
        wins = df[df["score_status"].notna()]
        overall["wins"] = len(wins)
        overall["wins_agree"] = int((wins["score_points"] == wins["win_points"]).sum())
    players: list[dict[str, Any]] = []
    if "player" in df.columns:
        d = df[df["made_discard"].notna()]
        for name, group in d.groupby("player", sort=False):
            if len(group) >= min_discards:
                players.append({"player": str(name), **_measures(group)})
        players.sort(key=lambda p: (-p["discards"], p["player"]))
    by_turn: list[dict[str, Any]] = []
    if "turn" in df.columns:
        d = df[df["made_discard"].notna() & (df["turn"] <= MAX_TURN)]
        for turn, s in d.groupby("turn")["shanten"]:
            by_turn.append({"turn": int(turn), "mean_shanten": float(s.astype(float).mean()),
                            "discards": len(s)})
    if problems is None:
        problems = _folder_problems(source_dir) if source_dir else []
    skipped = Counter(p.reason for p in problems)
    shown = [str(p) for p in problems if p.reason != "three_player"][:10]
    return Report(overall, players, by_turn, dict(skipped), shown)


def _folder_problems(directory: str) -> list[Any]:
    """The problems of an analysed folder and of the folder it was analysed from."""
    found = read_problems(directory)
    manifest = os.path.join(directory, "_analyze.json")
    if os.path.exists(manifest):
        with open(manifest) as f:
            source = json.load(f).get("input")
        if source and os.path.isdir(source):
            found = read_problems(source) + found
    return found


def plot_report(report: Report, out_dir: str, *, players: int = 20) -> list[str]:
    """Write the report's charts as PNG files into ``out_dir``; returns their paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(out_dir, exist_ok=True)
    paths = []
    top = report.players[:players]
    if top:
        fig, ax = plt.subplots(figsize=(8, max(3, 0.3 * len(top) + 1)))
        names = _labels([p["player"] for p in top])[::-1]
        ax.barh(names, [100 * (p["best_rate"] or 0) for p in top][::-1], color="#4c72b0")
        if report.overall["best_rate"] is not None:
            ax.axvline(100 * report.overall["best_rate"], color="#c44e52", linestyle="--",
                       label="all players")
            ax.legend(loc="lower right")
        ax.set_xlabel("discards that were efficiency-best (%)")
        ax.set_title(f"Efficiency by player (top {len(top)} by discards)")
        fig.tight_layout()
        paths.append(_save(fig, out_dir, "efficiency_by_player.png"))
        plt.close(fig)

        fig, ax = plt.subplots(figsize=(8, max(3, 0.3 * len(top) + 1)))
        ax.barh(names, [p["lost_per_hand"] or 0 for p in top][::-1], color="#55a868")
        ax.set_xlabel("tiles of acceptance given up per hand")
        ax.set_title("Acceptance lost per hand, by player")
        fig.tight_layout()
        paths.append(_save(fig, out_dir, "acceptance_lost_by_player.png"))
        plt.close(fig)
    if report.shanten_by_turn:
        fig, ax = plt.subplots(figsize=(8, 4))
        turns = [t["turn"] for t in report.shanten_by_turn]
        ax.plot(turns, [t["mean_shanten"] for t in report.shanten_by_turn], marker="o")
        ax.set_xlabel("turn (the player's draws so far)")
        ax.set_ylabel("mean shanten before the discard")
        ax.set_title("Shanten by turn")
        ax.grid(alpha=0.3)
        fig.tight_layout()
        paths.append(_save(fig, out_dir, "shanten_by_turn.png"))
        plt.close(fig)
    return paths


def _labels(names: list[str]) -> list[str]:
    """Player names as chart labels; names the chart fonts cannot draw (CJK without a CJK
    font) become their rank in the text report (``#3``)."""
    import warnings

    def drawable(name: str) -> bool:
        return name.isascii() or _has_cjk_font()

    out = []
    for i, name in enumerate(names, 1):
        out.append(_clip(name, 20) if drawable(name) else f"#{i}")
    warnings.filterwarnings("ignore", message="Glyph .* missing from font")
    return out


_CJK_FONTS = ("Noto Sans CJK JP", "Noto Sans CJK SC", "IPAGothic", "IPAexGothic",
              "TakaoGothic", "WenQuanYi Zen Hei", "Droid Sans Fallback")
_cjk: list[bool] = []


def _has_cjk_font() -> bool:
    """Whether a CJK font is installed; if so it becomes the fallback font of the charts."""
    if not _cjk:
        import matplotlib
        from matplotlib import font_manager

        have = {f.name for f in font_manager.fontManager.ttflist}
        found = [f for f in _CJK_FONTS if f in have]
        if found:
            matplotlib.rcParams["font.family"] = ["DejaVu Sans", *found]
        _cjk.append(bool(found))
    return _cjk[0]


def _save(fig: Any, out_dir: str, name: str) -> str:
    path = os.path.join(out_dir, name)
    fig.savefig(path, dpi=100)
    return path


def report(data: Any, plots: str | None = None, **kwargs: Any) -> Report:
    """Build the report of an analysed table; with ``plots`` also write its PNG charts."""
    rep = build_report(data, **kwargs)
    if plots:
        plot_report(rep, plots)
    return rep


__all__ = ["Report", "build_report", "plot_report", "report"]
