"""Summaries of an analysed table: per player and overall, as numbers and as PNG charts.

A *discard decision* is a row whose discard was analysed (``made_discard`` set). Measures:
how often the discard was one of the efficiency-best, the tiles of acceptance given up per
discard and per hand (summed over the player's discards in the hand, averaged over the hands
he discarded in), the mean shanten (of the hand before the discard) by turn (turns with at
least 30 discards), and for wins how
often the score agrees with the record. ``skipped`` counts every record and row that could
not be used, by reason, from the problem lists of the analysed folder and of its input.
With ``--ev`` columns (``ev_*``, mjcore.dataset.expected): per player and overall the share of
evaluated discards that were EV-best and the expected score and win probability given up per
discard and per hand, and the discard decisions not evaluated, by reason (``ev_skipped``).
Four- and three-player rows (the ``players`` column) are kept apart: ``by_seats`` gives each
table size's figures, three-player names are labelled ``(3p)``, and the overall shanten by
turn is of the four-player rows (three-player turns are longer: ``by_seats["3"]``).
"""
from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..errors import MjcoreError
from .common import read_problems

REPORT_COLUMNS = ("game", "hand", "seat", "player", "players", "turn", "action", "shanten",
                  "made_discard", "made_best", "acceptance_lost", "analysis_error", "score_status",
                  "score_points", "win_points", "ev_status", "ev_made_best", "ev_loss",
                  "ev_win_loss")
MAX_TURN = 24
MADE_NOT_SEARCHED = "made_discard_not_searched"  # ev_skipped: the best known, the made one not
MIN_TURN_DISCARDS = 30      # turns with fewer discards are left out of shanten by turn
THREE_PLAYER_LABEL = " (3p)"    # after a player's name in three-player games
SEATS_WORDS = {"4": "four players", "3": "three players"}


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
    by_seats: dict[str, dict[str, Any]] = field(default_factory=dict)   # "4", "3": figures

    def as_dict(self) -> dict[str, Any]:
        """The report as a JSON-ready dict."""
        return {"overall": self.overall, "players": self.players,
                "shanten_by_turn": self.shanten_by_turn, "skipped": self.skipped,
                "problems_shown": self.problems_shown, "by_seats": self.by_seats}

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
        if "3" in self.by_seats:
            for key, b in sorted(self.by_seats.items(), reverse=True):
                lines.append(_seats_line(SEATS_WORDS.get(key, f"{key} players"), b))
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
        if "ev_discards" in o:
            lines.append("")
            skipped = ", ".join(f"{k} {v:,}" for k, v in o["ev_skipped"].items()) or "none"
            lines.append(f"expected value: {o['ev_discards']:,} discards evaluated, EV-best "
                         f"{_pct(o['ev_best_rate'])}, given up {_num(o['ev_lost_per_discard'])} "
                         f"points and {_pct(o['win_lost_per_discard'])} win per discard, "
                         f"{_num(o['ev_lost_per_hand'])} points and "
                         f"{_pct(o['win_lost_per_hand'])} win per hand; not evaluated: "
                         f"{skipped}")
            if self.players:
                lines.append(f"{'player':<24} {'evaluated':>9} {'EV-best':>7} "
                             f"{'pts/discard':>11} {'win/discard':>11} {'pts/hand':>9} "
                             f"{'win/hand':>8}")
                for p in self.players[:players]:
                    lines.append(f"{_pad(p['player'], 24)} {p['ev_discards']:>9,} "
                                 f"{_pct(p['ev_best_rate']):>7} "
                                 f"{_num(p['ev_lost_per_discard']):>11} "
                                 f"{_pct(p['win_lost_per_discard']):>11} "
                                 f"{_num(p['ev_lost_per_hand']):>9} "
                                 f"{_pct(p['win_lost_per_hand']):>8}")
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


def _seats_line(label: str, b: dict[str, Any]) -> str:
    """One table size's figures in a line of the text report."""
    line = (f"{label}: rows {b['rows']:,}, games {b['games']:,}, discards {b['discards']:,}, "
            f"efficiency-best {_pct(b['best_rate'])}, acceptance lost "
            f"{_num(b['lost_per_discard'])} per discard, {_num(b['lost_per_hand'])} per hand")
    if b.get("wins"):
        line += f", wins agree {b['wins_agree']:,} of {b['wins']:,}"
    if "ev_discards" in b:
        line += (f", EV-best {_pct(b['ev_best_rate'])} of {b['ev_discards']:,}, "
                 f"{_num(b['ev_lost_per_hand'])} points per hand")
    return line


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
        from .analysed_parts import iter_parts, table_columns

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


class _EvSums:
    """Running sums of the expected-value measures of one group (a player, or everyone)."""

    __slots__ = ("best", "discards", "hand_lost", "hand_win_lost", "hands", "lost",
                 "win_lost")

    def __init__(self) -> None:
        self.discards = self.best = self.hands = 0
        self.lost = self.win_lost = self.hand_lost = self.hand_win_lost = 0.0

    def add(self, discards: int, best: int, lost: float, win_lost: float, hands: int,
            hand_lost: float, hand_win_lost: float) -> None:
        self.discards += discards
        self.best += best
        self.lost += lost
        self.win_lost += win_lost
        self.hands += hands
        self.hand_lost += hand_lost
        self.hand_win_lost += hand_win_lost

    def measures(self) -> dict[str, Any]:
        n, h = self.discards, self.hands
        return {"ev_discards": n, "ev_best_rate": self.best / n if n else None,
                "ev_lost_per_discard": self.lost / n if n else None,
                "win_lost_per_discard": self.win_lost / n if n else None,
                "ev_lost_per_hand": self.hand_lost / h if h else None,
                "win_lost_per_hand": self.hand_win_lost / h if h else None, "ev_hands": h}


class _Totals:
    """The report's numbers, summed part by part (memory: the players and turns seen).
    A hand is one (game, hand, seat); extract parts never split a game."""

    def __init__(self, split: bool = True) -> None:
        self.split = split          # keep sub-totals per table size (by_seats)
        self.seats: dict[int, _Totals] = {}
        self.rows = self.not_analysed = self.wins = self.wins_agree = 0
        self.games: set[Any] = set()
        self.all = _Sums()
        self.players: dict[str, _Sums] = {}
        self.turns: dict[int, list[float]] = {}    # turn -> [sum, rows, sum of squares]
        self.has_wins = False
        self.has_ev = False
        self.ev_all = _EvSums()
        self.ev_players: dict[str, _EvSums] = {}
        self.ev_skipped: Counter[str] = Counter()

    def add(self, df: Any) -> None:
        if "made_discard" not in df.columns:
            raise MjcoreError("the table is not analysed (no made_discard column): run analyze")
        four = None
        if self.split and "players" in df.columns:
            players = df["players"].fillna(4).astype(int)
            three = players == 3
            if three.any() and "player" in df.columns:
                df = df.assign(player=df["player"].astype(str).where(
                    ~three, df["player"].astype(str) + THREE_PLAYER_LABEL))
            for k in sorted(players.unique().tolist()):
                self.seats.setdefault(int(k), _Totals(split=False)).add(df[players == k])
            four = ~three
        self._add(df, four)

    def _add(self, df: Any, turn_rows: Any) -> None:
        """The sums of ``df``; shanten by turn of ``turn_rows`` only (None: every row)."""
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
        if "ev_status" in df.columns:
            self._add_ev(df)
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
            if turn_rows is not None:
                t = t[turn_rows.reindex(t.index)]
            shanten = t["shanten"].astype(float)
            agg = pd_frame({"s": shanten, "sq": shanten * shanten}).groupby(
                t["turn"]).agg(sum=("s", "sum"), size=("s", "size"), sq=("sq", "sum"))
            for turn, row in agg.iterrows():
                acc = self.turns.setdefault(int(turn), [0.0, 0, 0.0])
                acc[0] += float(row["sum"])
                acc[1] += int(row["size"])
                acc[2] += float(row["sq"])


    def _add_ev(self, df: Any) -> None:
        """The expected-value measures of the evaluated discard decisions; the others are
        counted by reason."""
        self.has_ev = True
        decided = df[df["ev_status"].notna()]
        self.ev_skipped.update(decided.loc[decided["ev_status"] != "ok", "ev_status"].tolist())
        ok = decided["ev_status"] == "ok"
        outside = int((ok & decided["ev_loss"].isna()).sum())
        if outside:     # --extra 0, --no-shanten-down: a made discard the model leaves out
            self.ev_skipped[MADE_NOT_SEARCHED] += outside
        d = decided[ok & decided["ev_loss"].notna()]
        if not len(d):
            return
        best = d["ev_made_best"].astype(bool)
        lost = d["ev_loss"].astype(float)
        win_lost = d["ev_win_loss"].astype(float)
        keys = [c for c in ("game", "hand", "seat") if c in d.columns]
        frame = pd_frame({"player": d["player"] if "player" in d.columns else "",
                          "best": best, "lost": lost, "win": win_lost,
                          **{k: d[k] for k in keys}})
        hands = frame.groupby(keys, sort=False).agg(
            player=("player", "first"), lost=("lost", "sum"), win=("win", "sum")) \
            if len(keys) == 3 else None
        self.ev_all.add(len(d), int(best.sum()), float(lost.sum()), float(win_lost.sum()),
                        0 if hands is None else len(hands),
                        0.0 if hands is None else float(hands["lost"].sum()),
                        0.0 if hands is None else float(hands["win"].sum()))
        if "player" not in d.columns:
            return
        per = frame.groupby("player", sort=False).agg(
            n=("best", "size"), best=("best", "sum"), lost=("lost", "sum"), win=("win", "sum"))
        per_hand = None if hands is None else hands.groupby("player", sort=False).agg(
            n=("lost", "size"), lost=("lost", "sum"), win=("win", "sum"))
        for name, row in per.iterrows():
            h = per_hand.loc[name] if per_hand is not None and name in per_hand.index \
                else None
            self.ev_players.setdefault(str(name), _EvSums()).add(
                int(row["n"]), int(row["best"]), float(row["lost"]), float(row["win"]),
                0 if h is None else int(h["n"]), 0.0 if h is None else float(h["lost"]),
                0.0 if h is None else float(h["win"]))


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
    overall, by_turn = _figures(totals)
    by_seats = {}
    for k, sub in sorted(totals.seats.items(), reverse=True):
        figures, turns = _figures(sub)
        by_seats[str(k)] = {**figures, "shanten_by_turn": turns}
    players = [{"player": name, **sums.measures(),
                **(totals.ev_players.get(name, _EvSums()).measures() if totals.has_ev
                   else {})}
               for name, sums in totals.players.items() if sums.discards >= min_discards]
    players.sort(key=lambda p: (-p["discards"], p["player"]))
    if problems is None:
        problems = _folder_problems(source_dir) if source_dir else []
    skipped = Counter(p.reason for p in problems)
    shown = [str(p) for p in problems][:10]
    return Report(overall, players, by_turn, dict(skipped), shown, by_seats)


def _figures(totals: _Totals) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The overall figures of ``totals`` and its mean shanten by turn."""
    overall = totals.all.measures()
    overall["rows"] = totals.rows
    overall["games"] = len(totals.games)
    overall["rows_not_analysed"] = totals.not_analysed
    if totals.has_wins:
        overall["wins"] = totals.wins
        overall["wins_agree"] = totals.wins_agree
    if totals.has_ev:
        overall.update(totals.ev_all.measures())
        overall["ev_skipped"] = dict(sorted(totals.ev_skipped.items()))
    by_turn = [{"turn": t, "mean_shanten": acc[0] / acc[1], "discards": int(acc[1]),
                "sd_shanten": _sd(acc)}
               for t, acc in sorted(totals.turns.items()) if acc[1] >= MIN_TURN_DISCARDS]
    return overall, by_turn


def _sd(acc: list[float]) -> float:
    """The sample standard deviation from [sum, n, sum of squares]."""
    total, n, squares = acc
    return max(0.0, (squares - total * total / n) / (n - 1)) ** 0.5 if n > 1 else 0.0


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


FEW_ROWS_SHARE = 0.02     # a turn with fewer rows than this share of the busiest is marked


def plot_report(report: Report, out_dir: str, *, players: int = 20) -> list[str]:
    """Write the report's charts as PNG files into ``out_dir``; returns their paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(out_dir, exist_ok=True)
    paths = []
    with matplotlib.rc_context({"font.family": chart_fonts()}):
        for name, fig in report_figures(report, players=players).items():
            paths.append(_save(fig, out_dir, name))
            plt.close(fig)
    return paths


def report_figures(report: Report, *, players: int = 20) -> dict[str, Any]:
    """The report's charts as matplotlib figures, by file name (the caller closes them).
    Player names are drawn in :func:`chart_fonts`; a name they cannot draw is shown as its
    row in the text report (``#3``) and the chart says so."""
    import matplotlib

    figures: dict[str, Any] = {}
    with matplotlib.rc_context({"font.family": chart_fonts()}):
        top = report.players[:players]
        if top:
            figures["efficiency_by_player.png"] = _efficiency_figure(report, top)
            figures["acceptance_lost_by_player.png"] = _acceptance_figure(report, top)
            if "ev_discards" in report.overall:
                figures["ev_best_by_player.png"] = _ev_best_figure(report, top)
                figures["ev_lost_by_player.png"] = _ev_lost_figure(report, top)
        if report.shanten_by_turn:
            figures["shanten_by_turn.png"] = _shanten_figure(report.shanten_by_turn)
        three = report.by_seats.get("3", {}).get("shanten_by_turn")
        if three:
            figures["shanten_by_turn_three_player.png"] = _shanten_figure(
                three, "three-player games")
    return figures


def _player_axes(top: list[dict[str, Any]]) -> tuple[Any, Any]:
    """A figure with one row per player, the first at the top, labelled with the names."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, max(3.0, 0.32 * len(top) + 1.6)))
    labels, fallback = _labels([p["player"] for p in top])
    ax.set_yticks(range(len(top)), labels)
    ax.set_ylim(len(top) - 0.5, -0.5)
    if fallback:
        fig.text(0.01, 0.005, FALLBACK_NOTE, fontsize=8, va="bottom")
    return fig, ax


FALLBACK_NOTE = ("#N: a name the installed fonts cannot draw; N is its row in the text "
                 "report's player table")


def _efficiency_figure(report: Report, top: list[dict[str, Any]]) -> Any:
    """Efficiency-best share per player: a dot and its 95 % interval (Wilson), on an axis
    zoomed to the spread of the players (and the all-players line), value and count beside."""
    fig, ax = _player_axes(top)
    rates, los, his = [], [], []
    for p in top:
        n = p["discards"]
        k = round((p["best_rate"] or 0) * n)
        lo, hi = _wilson(k, n)
        rates.append(100 * k / n if n else 0.0)
        los.append(100 * lo)
        his.append(100 * hi)
    y = list(range(len(top)))
    ax.errorbar(rates, y, xerr=[[r - lo for r, lo in zip(rates, los, strict=True)],
                                [hi - r for r, hi in zip(rates, his, strict=True)]],
                fmt="o", color="#4c72b0", ecolor="#9db4d6", capsize=2,
                label="player (95 % interval)")
    bounds = los + his
    overall = report.overall["best_rate"]
    if overall is not None:
        bounds.append(100 * overall)
        ax.axvline(100 * overall, color="#c44e52", linestyle="--",
                   label=f"all players ({100 * overall:.1f} %)")
    low, high = min(bounds), max(bounds)
    pad = max(1.0, 0.08 * (high - low))
    low, high = max(0.0, low - pad), min(100.0, high + pad)
    ax.set_xlim(low, high)
    for i, p in enumerate(top):
        ax.text(1.01, i, f"{rates[i]:.1f} % of {p['discards']:,}",
                transform=ax.get_yaxis_transform(), va="center", fontsize=8)
    ax.set_xlabel(f"discards that were efficiency-best (%): the axis runs from {low:.0f} to "
                  f"{high:.0f} %, not from 0")
    ax.set_title(f"Efficiency by player (top {len(top)} by discards; right: share of "
                 "discards)")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(loc="best", fontsize=8)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return fig


def _acceptance_figure(report: Report, top: list[dict[str, Any]]) -> Any:
    """Acceptance lost per hand per player: bars from 0, value and hands beside each, and
    the all-players line."""
    fig, ax = _player_axes(top)
    values = [p["lost_per_hand"] or 0.0 for p in top]
    ax.barh(range(len(top)), values, color="#55a868", label="player")
    overall = report.overall["lost_per_hand"]
    if overall is not None:
        ax.axvline(overall, color="#c44e52", linestyle="--",
                   label=f"all players ({overall:.2f})")
    for i, p in enumerate(top):
        ax.text(1.01, i, f"{values[i]:.2f} in {p['player_hands']:,} hands",
                transform=ax.get_yaxis_transform(), va="center", fontsize=8)
    ax.set_xlim(0, 1.05 * max([*values, overall or 0.0, 1e-9]))
    ax.set_xlabel("tiles of acceptance given up per hand (mean over the player's hands)")
    ax.set_title("Acceptance lost per hand, by player")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return fig


def _ev_best_figure(report: Report, top: list[dict[str, Any]]) -> Any:
    """EV-best share per player with its 95 % interval (Wilson) and the all-players line."""
    fig, ax = _player_axes(top)
    rates, los, his = [], [], []
    for p in top:
        n = p["ev_discards"]
        k = round((p["ev_best_rate"] or 0) * n)
        lo, hi = _wilson(k, n)
        rates.append(100 * k / n if n else 0.0)
        los.append(100 * lo)
        his.append(100 * hi)
    y = list(range(len(top)))
    ax.errorbar(rates, y, xerr=[[r - lo for r, lo in zip(rates, los, strict=True)],
                                [hi - r for r, hi in zip(rates, his, strict=True)]],
                fmt="o", color="#8172b2", ecolor="#c3bbdc", capsize=2,
                label="player (95 % interval)")
    overall = report.overall["ev_best_rate"]
    if overall is not None:
        ax.axvline(100 * overall, color="#c44e52", linestyle="--",
                   label=f"all players ({100 * overall:.1f} %)")
    ax.set_xlim(0, 100)
    for i, p in enumerate(top):
        ax.text(1.01, i, f"{rates[i]:.1f} % of {p['ev_discards']:,}",
                transform=ax.get_yaxis_transform(), va="center", fontsize=8)
    ax.set_xlabel("evaluated discards that had the best expected score (%)")
    ax.set_title("EV-best discards by player")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(loc="best", fontsize=8)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return fig


def _ev_lost_figure(report: Report, top: list[dict[str, Any]]) -> Any:
    """Expected score and win probability given up per hand, per player: two panels of bars
    from 0 with the all-players lines."""
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, max(3.0, 0.32 * len(top) + 1.6)),
                                      sharey=True)
    labels, fallback = _labels([p["player"] for p in top])
    for ax, key, scale, what, color in (
            (left, "ev_lost_per_hand", 1.0, "points of expected score", "#dd8452"),
            (right, "win_lost_per_hand", 100.0, "win probability (points of %)", "#4c72b0")):
        values = [scale * (p[key] or 0.0) for p in top]
        ax.barh(range(len(top)), values, color=color)
        overall = report.overall[key]
        if overall is not None:
            ax.axvline(scale * overall, color="#c44e52", linestyle="--",
                       label=f"all players ({scale * overall:.2f})")
            ax.legend(loc="lower right", fontsize=8)
        # the made discard can have the better win chance: a value below 0
        ax.set_xlim(1.05 * min([*values, 0.0]),
                    1.05 * max([*values, scale * (overall or 0.0), 1e-9]))
        ax.set_xlabel(f"{what} given up per hand")
        ax.grid(axis="x", alpha=0.3)
    left.set_yticks(range(len(top)), labels)
    left.set_ylim(len(top) - 0.5, -0.5)
    if fallback:
        fig.text(0.01, 0.005, FALLBACK_NOTE, fontsize=8, va="bottom")
    fig.suptitle("Expected value given up per hand, by player (mean over the player's hands)")
    fig.tight_layout(rect=(0, 0.03, 1, 0.97))
    return fig


def _shanten_figure(by_turn: list[dict[str, Any]], games: str = "") -> Any:
    """Mean shanten by turn with its 95 % interval, above the rows each mean is of; turns
    with few rows are hollow."""
    import matplotlib.pyplot as plt

    turns = [t["turn"] for t in by_turn]
    rows = [t["discards"] for t in by_turn]
    means = [t["mean_shanten"] for t in by_turn]
    half = [1.96 * t.get("sd_shanten", 0.0) / t["discards"] ** 0.5 for t in by_turn]
    few = max(rows) * FEW_ROWS_SHARE
    fig, (ax, counts) = plt.subplots(2, 1, sharex=True, figsize=(9, 6),
                                     gridspec_kw={"height_ratios": [3, 1.3]})
    ax.plot(turns, means, color="#4c72b0", alpha=0.5)
    for hollow, label in ((False, "mean (95 % interval)"),
                          (True, f"fewer than {few:,.0f} rows ({100 * FEW_ROWS_SHARE:.0f} % "
                                 "of the busiest turn)")):
        pick = [i for i, n in enumerate(rows) if (n < few) == hollow]
        if pick:
            ax.errorbar([turns[i] for i in pick], [means[i] for i in pick],
                        yerr=[half[i] for i in pick], fmt="o", color="#4c72b0",
                        mfc="white" if hollow else "#4c72b0", capsize=2, label=label,
                        linestyle="none")
    ax.set_ylabel("mean shanten before the discard")
    ax.set_title(f"Shanten by turn{', ' + games if games else ''} (turns with at least "
                 f"{MIN_TURN_DISCARDS} discards)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    bars = counts.bar(turns, rows, color=["#c8c8c8" if n < few else "#8c8c8c" for n in rows])
    counts.bar_label(bars, labels=[f"{n:,}" for n in rows], fontsize=6, rotation=90,
                     padding=2)
    counts.set_ylim(0, max(rows) * 1.45)
    counts.yaxis.set_major_formatter("{x:,.0f}")
    counts.set_ylabel("rows")
    counts.set_xlabel("turn (the player's draws so far)")
    counts.set_xticks(turns)
    fig.tight_layout()
    return fig


def _wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of ``k`` successes in ``n`` trials."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    h = z * (p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5 / d
    return max(0.0, centre - h), min(1.0, centre + h)


def _labels(names: list[str]) -> tuple[list[str], bool]:
    """Player names as chart labels and whether any fell back: a name the chart fonts cannot
    draw becomes its row in the text report (``#3``)."""
    out = []
    fallback = False
    for i, name in enumerate(names, 1):
        if _drawable(name):
            out.append(_clip(name, 20))
        else:
            out.append(f"#{i}")
            fallback = True
    return out, fallback


# CJK fonts used when installed (after the one the dataset extra ships)
_CJK_FONTS = ("Noto Sans CJK JP", "Noto Sans CJK SC", "IPAGothic", "IPAexGothic",
              "TakaoGothic", "WenQuanYi Zen Hei", "Droid Sans Fallback")
_fonts: list[str] = []
_coverage: list[frozenset[int]] = []


def chart_fonts() -> list[str]:
    """The font families of the charts, in fallback order: DejaVu Sans (matplotlib's), then
    Noto Sans CJK JP from the ``noto-cjk-sans-jp-regular`` package (the dataset extra), then
    the CJK fonts of ``_CJK_FONTS`` that are installed."""
    if not _fonts:
        from matplotlib import font_manager

        found = ["DejaVu Sans"]
        try:
            import noto_cjk_sans_jp_regular as noto

            path = str(noto.FONT_PATH)
            font_manager.fontManager.addfont(path)
            found.append(font_manager.FontProperties(fname=path).get_name())
        except (ImportError, OSError, RuntimeError):
            pass
        have = {f.name for f in font_manager.fontManager.ttflist}
        found += [f for f in _CJK_FONTS if f in have and f not in found]
        _fonts.extend(found)
    return list(_fonts)


def _drawable(name: str) -> bool:
    """Whether every character of ``name`` is in one of the chart fonts."""
    if name.isascii():
        return True
    if not _coverage:
        from matplotlib import font_manager
        from matplotlib.ft2font import FT2Font

        codes: set[int] = set()
        for family in chart_fonts():
            path = font_manager.findfont(font_manager.FontProperties(family=family),
                                         fallback_to_default=False)
            codes.update(FT2Font(path).get_charmap())
        _coverage.append(frozenset(codes))
    return all(ord(ch) in _coverage[0] or ch.isspace() for ch in name)


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


__all__ = ["Report", "build_report", "chart_fonts", "plot_report", "report", "report_figures"]
