"""Summaries of an analysed table: per player and overall, as numbers and as PNG charts.

A *discard decision* is a row whose discard was analysed (``made_discard`` set). Measures:
how often the discard was one of the efficiency-best, the tiles of acceptance given up per
discard and per hand (summed over the player's discards in the hand, averaged over the hands
he discarded in), the mean shanten (of the hand before the discard) by turn (turns with at
least 30 discards), and for wins how
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
MIN_TURN_DISCARDS = 30      # turns with fewer discards are left out of shanten by turn


@dataclass
class Report:
    """An analysis report: overall figures, per-player figures, mean shanten by turn, the
    records and rows skipped (by reason) and the problems shown.
    """
    overall: dict[str, Any]
    players: list[dict[str, Any]]
    shanten_by_turn: list[dict[str, Any]]
    skipped: dict[str, int]
    problems_shown: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """The report as a JSON-ready dict."""
        return {"overall": self.overall, "players": self.players,
                "shanten_by_turn": self.shanten_by_turn, "skipped": self.skipped,
                "problems_shown": self.problems_shown}

    def text(self, players: int = 20) -> str:
        """The report as plain text; ``players``: most rows of the player table."""
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
                lines.append(f"{_pad(p['player'], 24)} {p['discards']:>9,} "
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


def _width(ch: str) -> int:
    """Terminal columns of a character: 2 for East Asian wide and fullwidth ones (most player
    names in Tenhou records), 0 for combining marks, else 1."""
    import unicodedata

    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def _pad(s: str, n: int) -> str:
    """``s`` in exactly ``n`` terminal columns: clipped with "~" when wider, else padded."""
    widths = [_width(ch) for ch in s]
    if sum(widths) <= n:
        return s + " " * (n - sum(widths))
    kept, used = [], 0
    for ch, w in zip(s, widths, strict=True):
        if used + w > n - 1:            # one column for the "~"
            break
        kept.append(ch)
        used += w
    return "".join(kept) + "~" + " " * (n - 1 - used)


def _chunks(data: Any) -> Any:
    """pandas DataFrames of the report's columns: one per part of a folder, else one."""
    import pandas as pd
    import pyarrow as pa

    if isinstance(data, (str, os.PathLike)):
        from .analysis import iter_parts, table_columns

        have = set(table_columns(os.fspath(data)))
        for part in iter_parts(os.fspath(data), [c for c in REPORT_COLUMNS if c in have]):
            yield part.to_pandas()
        return
    if isinstance(data, pa.Table):
        data = data.select([c for c in REPORT_COLUMNS if c in data.column_names]).to_pandas()
    elif type(data).__module__.startswith("dask"):
        data = data[[c for c in REPORT_COLUMNS if c in data.columns]].compute()
    elif not isinstance(data, pd.DataFrame):
        raise MjcoreError(f"report takes a folder, an Arrow table or a DataFrame, not "
                          f"{type(data).__name__}")
    yield data


class _Sums:
    """Running sums of the discard measures of one group (a player, or everyone)."""

    __slots__ = ("best", "discards", "hand_lost", "hands", "lost")

    def __init__(self) -> None:
        self.discards = self.best = self.hands = 0
        self.lost = self.hand_lost = 0.0

    def add(self, discards: int, best: int, lost: float, hands: int, hand_lost: float) -> None:
        self.discards += discards
        self.best += best
        self.lost += lost
        self.hands += hands
        self.hand_lost += hand_lost

    def measures(self) -> dict[str, Any]:
        n = self.discards
        return {"discards": n, "best_rate": self.best / n if n else None,
                "lost_per_discard": self.lost / n if n else None,
                "lost_per_hand": self.hand_lost / self.hands if self.hands else None,
                "player_hands": self.hands}


class _Totals:
    """The report's numbers, summed part by part (memory: the players and turns seen).
    A hand is one (game, hand, seat); extract parts never split a game."""

    def __init__(self) -> None:
        self.rows = self.not_analysed = self.wins = self.wins_agree = 0
        self.games: set[Any] = set()
        self.all = _Sums()
        self.players: dict[str, _Sums] = {}
        self.turns: dict[int, list[float]] = {}
        self.has_wins = False

    def add(self, df: Any) -> None:
        if "made_discard" not in df.columns:
            raise MjcoreError("the table is not analysed (no made_discard column): run analyze")
        self.rows += len(df)
        if "game" in df.columns:
            self.games.update(df["game"].unique().tolist())
        if "analysis_error" in df.columns:
            self.not_analysed += int(df["analysis_error"].notna().sum())
        if "score_status" in df.columns and "win_points" in df.columns:
            self.has_wins = True
            wins = df[df["score_status"].notna()]
            self.wins += len(wins)
            self.wins_agree += int((wins["score_points"] == wins["win_points"]).sum())
        d = df[df["made_discard"].notna()]
        if not len(d):
            return
        best = d["made_best"].astype(bool)
        lost = d["acceptance_lost"].astype(float)
        keys = [c for c in ("game", "hand", "seat") if c in d.columns]
        per_hand = lost.groupby([d[k] for k in keys]).sum() if len(keys) == 3 else None
        self.all.add(len(d), int(best.sum()), float(lost.sum()),
                     len(per_hand) if per_hand is not None else 0,
                     float(per_hand.sum()) if per_hand is not None else 0.0)
        if "player" in d.columns:
            frame = {"player": d["player"], "best": best, "lost": lost}
            grouped = pd_frame(frame).groupby("player", sort=False).agg(
                discards=("best", "size"), best=("best", "sum"), lost=("lost", "sum"))
            if per_hand is not None:
                hand_player = d.groupby(keys, sort=False)["player"].first()
                hp = pd_frame({"player": hand_player.values, "lost": per_hand.reindex(
                    hand_player.index).values}).groupby("player", sort=False)["lost"]
                hands, hand_lost = hp.size(), hp.sum()
            for name, row in grouped.iterrows():
                sums = self.players.setdefault(str(name), _Sums())
                n_hands = int(hands.get(name, 0)) if per_hand is not None else 0
                sums.add(int(row["discards"]), int(row["best"]), float(row["lost"]), n_hands,
                         float(hand_lost.get(name, 0.0)) if per_hand is not None else 0.0)
        if "turn" in d.columns and "shanten" in d.columns:
            t = d[d["turn"] <= MAX_TURN]
            agg = t["shanten"].astype(float).groupby(t["turn"]).agg(["sum", "size"])
            for turn, row in agg.iterrows():
                acc = self.turns.setdefault(int(turn), [0.0, 0])
                acc[0] += float(row["sum"])
                acc[1] += int(row["size"])


def pd_frame(columns: dict[str, Any]) -> Any:
    import pandas as pd

    return pd.DataFrame(columns)


def build_report(data: Any, *, problems: list[Any] | None = None,
                 min_discards: int = 1) -> Report:
    """The report of an analysed table (folder, Arrow table, pandas or Dask DataFrame). A
    folder is read part by part, so memory does not grow with the table."""
    source_dir = os.fspath(data) if isinstance(data, (str, os.PathLike)) else None
    totals = _Totals()
    for chunk in _chunks(data):
        totals.add(chunk)
    overall = totals.all.measures()
    overall["rows"] = totals.rows
    overall["games"] = len(totals.games)
    overall["rows_not_analysed"] = totals.not_analysed
    if totals.has_wins:
        overall["wins"] = totals.wins
        overall["wins_agree"] = totals.wins_agree
    players = [{"player": name, **sums.measures()} for name, sums in totals.players.items()
               if sums.discards >= min_discards]
    players.sort(key=lambda p: (-p["discards"], p["player"]))
    by_turn = [{"turn": t, "mean_shanten": acc[0] / acc[1], "discards": int(acc[1])}
               for t, acc in sorted(totals.turns.items()) if acc[1] >= MIN_TURN_DISCARDS]
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
    from ..files import new_file

    path = os.path.join(out_dir, name)
    with new_file(path, "wb", replace=True) as f:      # whole or not at all, never via a link
        fig.savefig(f, dpi=100, format=os.path.splitext(name)[1][1:] or "png")
    return path


def report(data: Any, plots: str | None = None, **kwargs: Any) -> Report:
    """Build the report of an analysed table; with ``plots`` also write its PNG charts."""
    rep = build_report(data, **kwargs)
    if plots:
        plot_report(rep, plots)
    return rep


__all__ = ["Report", "build_report", "plot_report", "report"]
