"""What to discard: tenpai probability, win probability and expected score of every discard,
turn by turn, in the one-player model of mjcore/riichi/ev.md.

``expected_values(hand, ...)`` builds one graph per hand, shared by all its discards, in the
compiled kernel (``mjcore/_core/ev.pyx``). Two models run on that graph:

- ``consistent`` (the default): a draw at every turn comes from the wall the hand leaves (the
  player's discards go back into it: S tiles, S + 1 after the first discard of a 14-tile hand),
  so every value is a true probability; one policy, the one with the most expected score (then
  win, then tenpai probability), makes every discard and every choice between winning now and
  playing on, and ``tenpai``, ``win`` and ``ev`` are that policy's. ``max_tenpai`` and
  ``max_win`` beside them are the highest tenpai and win probabilities any policy reaches.
- ``compatible``: mahjong-cpp 0.9.8's model number for number (mjcore/riichi/ev.md §3), faults
  kept: the draws are weighted over S - t tiles while the counts stay, so its "probabilities"
  pass 1 late in a hand with many useful tiles, and each column maximises on its own
  (``max_tenpai`` and ``max_win`` equal ``tenpai`` and ``win`` there).

Bounds: hands above ``max_shanten`` (3, as mahjong-cpp) are not searched; a search past
``max_nodes`` nodes or ``max_seconds`` seconds stops. Each ends with ``result.status`` naming
it (``ev_shanten_too_high``, ``ev_node_budget``, ``ev_deadline``); the discards' shanten and
necessary tiles are given either way. Memory is about 260 bytes a node at its peak
(``result.bytes_peak``; 220-250 in the compatible model), so the default budget of 2,000,000
nodes holds about 520 MB.
"""
from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass
from time import perf_counter
from typing import Any

from .._core.ev import evaluate_raw, release_work
from ..errors import InvalidHandError, InvalidRuleError
from ..hand import Hand, as_hand, check_copies
from ..melds import MeldKind
from ..status import BY_CODE, OK, status_error
from ..tiles import TILE_NAMES, format_counts, parse_tile_list, tile_name
from .rules import RuleSet
from .scoring import _indicator_tiles, _rules

MAX_TURNS = 24
DEFAULT_MAX_NODES = 2_000_000
DEFAULT_MAX_SECONDS = 1.0
_RED_TILES = ("0m", "0p", "0s")
NORTH = 30
_WINDS = {"E": 0, "S": 1, "W": 2, "N": 3, "1z": 0, "2z": 1, "3z": 2, "4z": 3,
          0: 0, 1: 1, 2: 2, 3: 3}


@dataclass(frozen=True, slots=True)
class DiscardValue:
    """One discard (``None`` for a 3n+1-tile hand's one answer): the shanten after it, the
    tiles that lower it with their unseen copies, and per turn t = 1 .. t_max (index 0 is t = 1)
    the tenpai and win probabilities and the expected score in points of the best-score policy,
    and the highest tenpai and win probabilities of any policy (``max_tenpai``, ``max_win``; see
    the module doc for the two models). ``evaluated`` is False when the search did not reach
    this discard (its values are then empty)."""

    tile: str | None
    shanten: int
    necessary: tuple[tuple[str, int], ...]
    tenpai: tuple[float, ...]
    win: tuple[float, ...]
    ev: tuple[float, ...]
    evaluated: bool
    max_tenpai: tuple[float, ...] = ()
    max_win: tuple[float, ...] = ()

    @property
    def necessary_count(self) -> int:
        """The unseen copies of the necessary tiles."""
        return sum(n for _t, n in self.necessary)

    def at(self, turn: int) -> tuple[float, float, float]:
        """(tenpai, win, expected score) at ``turn`` (1-based; the first draw is turn 1)."""
        if not self.evaluated:
            raise InvalidHandError(f"discard {self.tile}: not evaluated (outside the search)",
                                   reason="ev_not_evaluated")
        if not 1 <= turn <= len(self.ev):
            raise InvalidHandError(f"turn {turn}: outside 1..{len(self.ev)}",
                                   reason="ev_bad_option")
        return self.tenpai[turn - 1], self.win[turn - 1], self.ev[turn - 1]

    def to_dict(self) -> dict[str, Any]:
        """The discard as plain JSON values."""
        return {"tile": self.tile, "shanten": self.shanten,
                "necessary": [[t, n] for t, n in self.necessary],
                "necessary_count": self.necessary_count, "evaluated": self.evaluated,
                "tenpai": list(self.tenpai), "win": list(self.win), "ev": list(self.ev),
                "max_tenpai": list(self.max_tenpai), "max_win": list(self.max_win)}


@dataclass(frozen=True, slots=True)
class ExpectedValues:
    """The answer for one hand: its shanten, the discards best first (evaluated ones by
    expected score at turn 1, then win and tenpai probability; then the others by shanten
    and necessary tiles), the graph's size and the time taken. ``status`` is ``"ok"`` or the
    reason the search stopped (the discards then carry shanten and necessary tiles only)."""

    hand: str
    shanten: int
    discards: tuple[DiscardValue, ...]
    status: str
    message: str
    nodes: int
    edges: int
    win_edges: int
    total_unseen: int
    seconds: float
    bytes_peak: int
    t_max: int
    model: str = "consistent"

    @property
    def ok(self) -> bool:
        """True when the search finished within its bounds."""
        return self.status == "ok"

    @property
    def best(self) -> DiscardValue:
        """The first discard: the highest expected score at turn 1."""
        return self.discards[0]

    def to_dict(self) -> dict[str, Any]:
        """The result as plain JSON values."""
        return {"hand": self.hand, "model": self.model, "shanten": self.shanten,
                "status": self.status,
                "message": self.message, "nodes": self.nodes, "edges": self.edges,
                "win_edges": self.win_edges, "total_unseen": self.total_unseen,
                "seconds": self.seconds, "bytes_peak": self.bytes_peak, "t_max": self.t_max,
                "discards": [d.to_dict() for d in self.discards]}

    def to_json(self) -> str:
        """The result as one JSON text."""
        return json.dumps(self.to_dict(), ensure_ascii=False)

    def table(self, turn: int = 1) -> str:
        """The discards as a text table at ``turn``."""
        lines = [f"{self.hand}: shanten {self.shanten}, {self.model} model, {self.nodes:,} nodes, "
                 f"{self.seconds * 1000:.1f} ms" + ("" if self.ok else f" ({self.message})"),
                 f"{'discard':>7} {'shanten':>7} {'EV':>8} {'win %':>6} {'tenpai %':>8}  "
                 f"necessary (turn {turn})"]
        for d in self.discards:
            nec = " ".join(f"{t}x{n}" for t, n in d.necessary)
            if d.evaluated and 1 <= turn <= len(d.ev):
                tp, w, ev = d.at(turn)
                vals = f"{ev:>8.0f} {100 * w:>6.2f} {100 * tp:>8.2f}"
            else:
                vals = f"{'-':>8} {'-':>6} {'-':>8}"
            lines.append(f"{d.tile or '-':>7} {d.shanten:>7} {vals}  "
                         f"{d.necessary_count:>3}: {nec}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.table(1)


MODELS = ("compatible", "consistent")


def model_code_of(model: object) -> int:
    """The kernel's code of a model name (EV_COMPATIBLE 0, EV_CONSISTENT 1)."""
    if model not in MODELS:
        raise InvalidHandError(f"option model={model!r}: expected one of {', '.join(MODELS)}",
                               reason="ev_bad_option")
    return MODELS.index(str(model))


def _wind(value: int | str, what: str) -> int:
    w = _WINDS.get(value.upper() if isinstance(value, str) and len(value) == 1 else value)
    if w is None or isinstance(value, bool):
        raise InvalidHandError(f"{what} {value!r}: expected E, S, W, N (1z-4z or 0-3)",
                               reason="bad_seats")
    return w


def _int_option(name: str, value: object, lo: int, hi: int) -> int:
    if type(value) is not int or not lo <= value <= hi:
        raise InvalidHandError(f"option {name}={value!r}: expected an integer in {lo}..{hi}",
                               reason="ev_bad_option")
    return value


def expected_values(hand: Hand | str, *, dora: Iterable[int | str] | str = (),
                    round_wind: int | str = "E", seat_wind: int | str = "E",
                    visible: Iterable[int | str] | str | None = None,
                    rules: RuleSet | str | None = "tenhou", kita: int = 0,
                    model: str = "consistent", t_max: int = 18,
                    extra: int = 1, red: bool = True, ura: bool = True,
                    shanten_down: bool = True, tegawari: bool = True, max_shanten: int = 3,
                    max_nodes: int = DEFAULT_MAX_NODES,
                    max_seconds: float = DEFAULT_MAX_SECONDS) -> ExpectedValues:
    """Tenpai and win probability and expected score of each discard of ``hand`` (3n+2 tiles;
    a red five is its own discard) or of the hand itself (3n+1 tiles), by turn.

    ``dora``: indicators; winds E S W N; ``visible``: tiles seen elsewhere (by default the
    unseen counts are 4 minus the hand, its melds and the indicators); ``rules`` a riichi
    preset or RuleSet (``tenhou_sanma`` with ``kita`` norths set aside); ``model``
    ``"consistent"`` or ``"compatible"`` (the module doc); the options as mahjong-cpp's
    (mjcore/riichi/ev.md §2): ``t_max`` turns, ``extra``, ``red`` fives as dora and as their
    own tiles, ``ura`` dora expectation, ``shanten_down`` (向聴戻し), ``tegawari`` (手変わり).
    Bad input raises InvalidHandError naming it; a search beyond its bounds returns a result
    whose ``status`` says so.
    """
    return _evaluate(hand, False, dora=dora, round_wind=round_wind, seat_wind=seat_wind,
                     visible=visible, rules=rules, kita=kita, model=model, t_max=t_max,
                     extra=extra, red=red, ura=ura, shanten_down=shanten_down,
                     tegawari=tegawari, max_shanten=max_shanten, max_nodes=max_nodes,
                     max_seconds=max_seconds)[0]


def winning_draws(hand: Hand | str, **options: Any) -> tuple[WinningDraw, ...]:
    """Every winning draw of the graph of ``hand`` (the options of :func:`expected_values`)
    with the score the model gives it: the complete hand, the tile drawn, whether riichi was
    declared, and its tsumo value (the ura dora expectation included). What the expected
    scores are made of; the tests list with it the wins whose score differs from another
    engine's."""
    return _evaluate(hand, True, **options)[1]


def _evaluate(hand: Hand | str, keep_wins: bool, *, dora: Iterable[int | str] | str = (),
              round_wind: int | str = "E", seat_wind: int | str = "E",
              visible: Iterable[int | str] | str | None = None,
              rules: RuleSet | str | None = "tenhou", kita: int = 0,
              model: str = "consistent", t_max: int = 18,
              extra: int = 1, red: bool = True, ura: bool = True,
              shanten_down: bool = True, tegawari: bool = True, max_shanten: int = 3,
              max_nodes: int = DEFAULT_MAX_NODES,
              max_seconds: float = DEFAULT_MAX_SECONDS
              ) -> tuple[ExpectedValues, tuple[WinningDraw, ...]]:
    """The body of expected_values (and of winning_draws with keep_wins)."""
    started = perf_counter()
    h = hand if type(hand) is Hand else as_hand(hand)
    rs = _rules(rules)
    total = h.n_closed + 3 * h.n_melds
    if total not in (13, 14):
        raise InvalidHandError(f"hand {h}: {total} tiles with its melds; the expected value "
                               "needs 13 or 14", reason="wrong_tile_count")
    model_code = model_code_of(model)
    t_max = _int_option("t_max", t_max, 1, MAX_TURNS)
    extra = _int_option("extra", extra, 0, 4)
    max_shanten = _int_option("max_shanten", max_shanten, -1, 6)
    max_nodes = _int_option("max_nodes", max_nodes, 1, 50_000_000)
    kita = _int_option("kita", kita, 0, 4)
    if kita and not rs.nukidora:
        raise InvalidRuleError(f"kita={kita}: norths set aside need rules with nukidora "
                               "(tenhou_sanma)")
    if not isinstance(max_seconds, (int, float)) or not 0 < max_seconds <= 600 \
            or math.isnan(max_seconds):
        raise InvalidHandError(f"option max_seconds={max_seconds!r}: expected 0 < s <= 600",
                               reason="ev_bad_option")
    sw, rw = _wind(seat_wind, "seat_wind"), _wind(round_wind, "round_wind")
    if sw >= rs.players:
        raise InvalidHandError(f"seat_wind {seat_wind!r}: {rs.players} players",
                               reason="bad_seats")
    indicators, dora_red = _indicator_tiles(dora, "dora indicators")
    if len(indicators) > 5:
        raise InvalidHandError(f"dora {len(indicators)} indicators: at most 5",
                               reason="bad_tile")
    use_red = bool(red) and rs.red_fives > 0
    # what is seen: the hand, its melds, the indicators and the visible tiles (checked here
    # for the message; the kernel derives the wall from the same tiles)
    melds = [(int(m.kind), min(m.tiles), m.red if use_red else 0,
              0 if m.kind == MeldKind.KAN_CLOSED else (m.from_rel or 3)) for m in h.melds]
    vis_kinds: list[int] = []
    vis_reds: list[bool] = []
    if visible:
        vis = parse_tile_list(visible)
        vis_kinds, vis_reds = list(vis.kinds), list(vis.reds)
    north = [NORTH] * kita if rs.players == 3 else []
    vis_red = [k // 9 for k, r in zip(vis_kinds, vis_reds, strict=True) if r]
    check_copies(h, ("dora indicators", indicators), ("the visible tiles", vis_kinds),
                 ("the norths set aside", north),
                 red=(("dora indicators", dora_red), ("the visible tiles", vis_red)))
    seen = list(h.all_counts)
    for k in (*indicators, *vis_kinds, *north):
        seen[k] += 1
    visible_counts = [0] * 34
    for k in vis_kinds:
        visible_counts[k] += 1
    visible_red = [0, 0, 0]
    for suit in (*dora_red, *vis_red):
        visible_red[suit] += 1
    if rs.players == 3:
        for k in range(1, 8):
            if seen[k]:
                raise InvalidHandError(f"{tile_name(k)}: three-player mahjong has no 2m-8m",
                                       reason="not_in_sanma")
    unseen = 4 * (34 if rs.players == 4 else 27) - sum(seen)     # sanma: no 2m-8m seen
    if unseen <= t_max:
        raise InvalidHandError(f"option t_max={t_max}: the wall holds only {unseen} unseen "
                               f"tiles; t_max must be below that", reason="ev_bad_option")
    closed_red = list(h.red) if use_red else [0, 0, 0]
    raw = evaluate_raw(
        h.counts, closed_red, melds, visible_counts, visible_red if use_red else [0, 0, 0],
        indicators, sw, rw, kita, model_code, t_max, extra, use_red, bool(ura), bool(shanten_down),
        bool(tegawari), max_shanten, max_nodes, float(max_seconds), rs.scoring_params, keep_wins)
    st, s0, nodes, edges, win_edges, total_unseen, peak, wall, cands = raw[:9]
    if st < 0 and st not in (-30, -31, -32, -33):
        raise status_error(st, f"hand {h}")
    ranked: list[tuple[tuple[Any, ...], DiscardValue]] = []
    for tile, sh, mask, evaluated, row in cands:
        name = None if tile == 255 else TILE_NAMES[tile] if tile < 34 else _RED_TILES[tile - 34]
        nec = []
        copies = 0
        while mask:
            k = (mask & -mask).bit_length() - 1
            nec.append((TILE_NAMES[k], wall[k]))
            copies += wall[k]
            mask &= mask - 1
        if not evaluated:
            ranked.append(((1, sh, -copies), DiscardValue(name, sh, tuple(nec), (), (), (), False)))
        else:
            tenpai, win, ev = row[0], row[1], row[2]
            ranked.append(((0, -ev[0], -win[0], -tenpai[0], sh, -copies),
                           DiscardValue(name, sh, tuple(nec), tenpai, win, ev, True, row[3],
                                        row[4])))
    ranked.sort(key=_first)
    discards = [d for _, d in ranked]
    status = BY_CODE[st] if st in BY_CODE else BY_CODE[OK]
    message = "ok" if st == OK else (
        f"shanten {s0}, {nodes:,} nodes: {status.message}")
    wins = tuple(WinningDraw(_hand_text(c, reds, h), tile_name(t), riichi, score)
                 for c, reds, riichi, t, score in (raw[9] or ())) if len(raw) > 9 else ()
    return ExpectedValues(str(h), s0, tuple(discards), status.reason, message, nodes, edges,
                          win_edges, total_unseen, perf_counter() - started, peak, t_max,
                          model), wins


def _hand_text(counts: tuple[int, ...], reds: int, start: Hand) -> str:
    """A winning hand's mpsz text: its closed tiles (red fives as 0) and the start's melds."""
    closed = format_counts(counts, [reds >> s & 1 for s in range(3)])
    return closed + "".join(f" {m}" for m in start.melds)


@dataclass(frozen=True, slots=True)
class WinningDraw:
    """A winning draw the model scores: the complete hand (mpsz, melds after the closed
    tiles), the tile drawn, riichi declared, and the score (the ura expectation included)."""

    hand: str
    tile: str
    riichi: bool
    score: float


def _first(item: tuple[tuple[Any, ...], DiscardValue]) -> tuple[Any, ...]:
    """The order of the discards: evaluated ones by expected score at turn 1, then win and
    tenpai probability, shanten and necessary copies; then the others by shanten and copies."""
    return item[0]


__all__ = ["DEFAULT_MAX_NODES", "DEFAULT_MAX_SECONDS", "MODELS", "DiscardValue",
           "ExpectedValues", "WinningDraw", "expected_values", "release_work",
           "winning_draws"]
