"""The review of a real game: read a record, replay it step by step with the four hands, and
rate a seat's discard decisions by tile efficiency (``mjcore.ukeire``) and, for riichi, by
expected score (one ``mjcore.batch.expected_values`` call for all of them).

Records: Tenhou mjlog XML, mjai JSON lines, tenhou.net/6 JSON (riichi) and Bradfield hand
histories (``.mjs``, Chinese classical). A record that cannot be read raises
``InvalidHandError`` naming the problem.
"""
from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidHandError, ReviewTimeout
from ..tiles import tile_name

RED_IDS = (16, 52, 88)
WINDS = ("E", "S", "W", "N")
MAX_STEPS = 20_000


@dataclass(frozen=True)
class ReviewOptions:
    """``seat``: the seat whose decisions are rated; ``ev``: also expected values (riichi);
    ``max_shanten``: decisions farther from tenpai get efficiency only; ``row_seconds``: the
    EV search bound per decision; ``deadline``: ``time.monotonic()`` by which to be done."""

    seat: int = 0
    ev: bool = True
    max_shanten: int = 2
    row_seconds: float = 0.25
    t_max: int = 18
    deadline: float = float("inf")


def _name(tile_id: int) -> str:
    return tile_name(tile_id >> 2, tile_id in RED_IDS)


def _mpsz(ids: list[int]) -> str:
    from ..tiles import format_tiles

    ids = sorted(ids, key=lambda t: (t >> 2, t not in RED_IDS))
    return format_tiles([t >> 2 for t in ids], [t in RED_IDS for t in ids], sort=False)


def detect(text: str) -> str:
    """The record's format: mjlog, tenhou6, mjai or mjs; else InvalidHandError."""
    head = text.lstrip()[:1]
    if head == "<":
        return "mjlog"
    if head == "{":
        try:
            doc = json.loads(text)
        except ValueError:
            return "mjai"
        return "tenhou6" if isinstance(doc, dict) and "log" in doc else "mjai"
    from ..dataset.classical import is_history

    if is_history(text):
        return "mjs"
    raise InvalidHandError("record: unknown format (expected Tenhou mjlog XML, mjai JSON "
                           "lines, tenhou.net/6 JSON or a Bradfield hand history)",
                           reason="unknown_format")


def review(text: str, opts: ReviewOptions) -> dict[str, Any]:
    """The review of one record (see the module doc)."""
    kind = detect(text)
    if kind == "mjs":
        return _classical(text, opts)
    return _riichi(text, kind, opts)


# -- riichi -----------------------------------------------------------------------------------

@dataclass
class _Decision:
    kyoku: int
    step: int
    turn: int
    hand: str
    discard: str
    visible: str
    dora: str
    seat_wind: int
    round_wind: int
    counts: list[int]
    red: list[int]
    melds: list[int]
    visible_counts: list[int]
    visible_red: list[int]
    dora_kinds: list[int]
    discard_code: int
    kita: int


def _riichi_events(text: str, kind: str) -> tuple[list[dict[str, Any]], Any]:
    from ..riichi.events import from_mjai_lines
    from ..riichi.mjlog import read_mjlog, rules_for_mjlog
    from ..riichi.replay import _rules_from_events
    from ..riichi.tenhou6 import read_tenhou6

    if kind == "mjlog":
        game = read_mjlog(text, "record")
        return game.events, rules_for_mjlog(game)
    events = read_tenhou6(text, "record") if kind == "tenhou6" \
        else from_mjai_lines(text.splitlines(), "record")
    return events, _rules_from_events(events)


class _RiichiReplay:
    """The replay of a riichi record's events: the four hands, the melds, the rivers, the
    snapshots of each hand and the rated seat's decisions."""

    def __init__(self, players: int, opts: ReviewOptions) -> None:
        self.players = players
        self.opts = opts
        self.names: list[str] = []
        self.hands: list[dict[str, Any]] = []
        self.decisions: list[_Decision] = []
        self.cur: dict[str, Any] | None = None
        self.closed: list[list[int]] = []
        self.melds: list[list[tuple[str, list[int]]]] = []
        self.codes: list[list[int]] = []
        self.rivers: list[list[dict[str, Any]]] = []
        self.dora: list[int] = []
        self.riichi: list[bool] = []
        self.kita: list[int] = []
        self.oya = 0
        self.bakaze = 0
        self.last_draw: list[int | None] = []
        self.turn = 0
        self.steps = 0
        self.handlers: dict[str, Callable[[dict[str, Any]], None]] = {
            "tsumo": self.on_draw, "dahai": self.on_discard, "reach": self.on_reach,
            "reach_accepted": self.on_reach_accepted, "chi": self.on_call,
            "pon": self.on_call, "daiminkan": self.on_call, "ankan": self.on_closed_kan,
            "kakan": self.on_added_kan, "kita": self.on_kita, "dora": self.on_dora,
            "hora": self.on_win, "ryukyoku": self.on_draw_game,
            "end_kyoku": self.on_end_hand}

    def play(self, events: list[dict[str, Any]]) -> None:
        for ev in events:
            typ = ev["type"]
            if typ == "start_game":
                self.names = [str(n) for n in ev.get("names") or []]
            elif typ == "start_kyoku":
                self.on_start_hand(ev)
            elif self.cur is not None and typ in self.handlers:
                self.handlers[typ](ev)

    @property
    def hand(self) -> dict[str, Any]:
        assert self.cur is not None
        return self.cur

    def visible_for(self, seat: int) -> list[int]:
        out = [t["id"] for s in range(self.players) for t in self.rivers[s]
               if not t.get("called")]
        for s in range(self.players):
            if s != seat:
                for _tok, ids in self.melds[s]:
                    out.extend(ids)
        return out

    def snapshot(self, actor: int | None, action: str) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise InvalidHandError(f"record: more than {MAX_STEPS} steps", reason="too_large")
        seats = range(self.players)
        self.hand["steps"].append({
            "actor": actor, "action": action,
            "hands": [_mpsz(self.closed[s]) for s in seats],
            "melds": [[tok for tok, _ids in self.melds[s]] for s in seats],
            "rivers": [[{"tile": _name(t["id"]), **{k: True for k in ("riichi", "called",
                        "tsumogiri") if t.get(k)}} for t in self.rivers[s]] for s in seats],
            "dora_indicators": [_name(t) for t in self.dora]})

    def take(self, seat: int, ids: list[int]) -> None:
        closed = self.closed[seat]
        for t in ids:
            if t in closed:
                closed.remove(t)
            else:   # a record that hides tiles (mjai "?"): drop one of the kind
                same = [x for x in closed if x >> 2 == t >> 2]
                if not same:
                    raise InvalidHandError(f"record: seat {seat} does not hold {_name(t)}",
                                           reason="bad_record")
                closed.remove(same[0])

    def on_start_hand(self, ev: dict[str, Any]) -> None:
        players = self.players
        self.bakaze = WINDS.index(ev.get("bakaze", "E"))
        self.oya = int(ev.get("oya", 0))
        label = f"{ev.get('bakaze', 'E')}{ev.get('kyoku', 1)}-{ev.get('honba', 0)}"
        self.cur = {"label": label, "round_wind": WINDS[self.bakaze], "dealer": self.oya,
                    "scores": list(ev.get("scores") or []), "steps": [], "result": None}
        self.hands.append(self.cur)
        self.closed = [list(t) for t in ev["tehais"]][:players]
        self.melds = [[] for _ in range(players)]
        self.codes = [[] for _ in range(players)]
        self.rivers = [[] for _ in range(players)]
        self.dora = [ev["dora_marker"]] if "dora_marker" in ev else []
        self.riichi = [False] * players
        self.kita = [0] * players
        self.last_draw = [None] * players
        self.turn = 0
        self.snapshot(None, f"{label}: deal")

    def on_draw(self, ev: dict[str, Any]) -> None:
        a = ev["actor"]
        self.closed[a].append(ev["pai"])
        self.last_draw[a] = ev["pai"]
        if a == self.opts.seat:
            self.turn += 1
        self.snapshot(a, f"seat {a} draws {_name(ev['pai'])}")

    def on_discard(self, ev: dict[str, Any]) -> None:
        a = ev["actor"]
        pai = ev["pai"]
        if a == self.opts.seat and not self.riichi[a]:
            self.decisions.append(_decision(
                len(self.hands) - 1, len(self.hand["steps"]) - 1, self.turn, self.closed[a],
                self.melds[a], self.codes[a], pai, self.visible_for(a), self.dora,
                (a - self.oya) % self.players, self.bakaze, self.kita[a]))
        self.take(a, [pai])
        river = {"id": pai}
        if ev.get("tsumogiri"):
            river["tsumogiri"] = True
        if self.hand.get("reach_pending") == a:
            river["riichi"] = True
            self.hand.pop("reach_pending")
        self.rivers[a].append(river)
        self.snapshot(a, f"seat {a} discards {_name(pai)}")

    def on_reach(self, ev: dict[str, Any]) -> None:
        self.hand["reach_pending"] = ev["actor"]

    def on_reach_accepted(self, ev: dict[str, Any]) -> None:
        self.riichi[ev["actor"]] = True

    def on_call(self, ev: dict[str, Any]) -> None:
        from .._core.batch_scoring import encode_meld
        from ..dataset.extraction import meld_token

        typ = ev["type"]
        a, target, pai = ev["actor"], ev["target"], ev["pai"]
        consumed = list(ev["consumed"])
        self.take(a, consumed)
        if self.rivers[target]:
            self.rivers[target][-1]["called"] = True
        rel = (target - a) % 4
        tiles = sorted(consumed + [pai])
        self.melds[a].append((meld_token(typ, pai, consumed, rel), tiles))
        kind_code = {"chi": 0, "pon": 1, "daiminkan": 2}[typ]
        self.codes[a].append(encode_meld(kind_code, min(t >> 2 for t in tiles),
                                         sum(t in RED_IDS for t in tiles), rel))
        self.snapshot(a, f"seat {a} calls {typ} on {_name(pai)}")

    def on_closed_kan(self, ev: dict[str, Any]) -> None:
        from .._core.batch_scoring import encode_meld
        from ..dataset.extraction import meld_token

        a = ev["actor"]
        consumed = list(ev["consumed"])
        self.take(a, consumed)
        self.melds[a].append((meld_token("ankan", None, consumed, 0), sorted(consumed)))
        self.codes[a].append(encode_meld(3, consumed[0] >> 2,
                                         sum(t in RED_IDS for t in consumed), 0))
        self.snapshot(a, f"seat {a} closed kan {_name(consumed[0])}")

    def on_added_kan(self, ev: dict[str, Any]) -> None:
        from .._core.batch_scoring import encode_meld
        from ..dataset.extraction import meld_token

        a, pai = ev["actor"], ev["pai"]
        self.take(a, [pai])
        melds, codes = self.melds[a], self.codes[a]
        for i, (_tok, ids) in enumerate(melds):
            if len(ids) == 3 and ids[0] >> 2 == pai >> 2:
                rel = _meld_rel(codes[i])
                new = sorted(ids + [pai])
                melds[i] = (meld_token("kakan", None, new, rel), new)
                codes[i] = encode_meld(4, pai >> 2, sum(t in RED_IDS for t in new), rel)
        self.snapshot(a, f"seat {a} added kan {_name(pai)}")

    def on_kita(self, ev: dict[str, Any]) -> None:
        a = ev["actor"]
        self.take(a, [ev["pai"]])
        self.kita[a] += 1
        self.snapshot(a, f"seat {a} sets aside a north")

    def on_dora(self, ev: dict[str, Any]) -> None:
        self.dora.append(ev["dora_marker"])

    def on_win(self, ev: dict[str, Any]) -> None:
        a, target = ev["actor"], ev["target"]
        how = "tsumo" if a == target else f"ron on seat {target}"
        self.hand["result"] = {"type": "win", "winner": a, "from": target,
                               "points": ev.get("points"), "deltas": ev.get("deltas")}
        self.snapshot(a, f"seat {a} wins ({how}), {ev.get('points', '?')} points")

    def on_draw_game(self, ev: dict[str, Any]) -> None:
        self.hand["result"] = {"type": "draw", "reason": ev.get("reason", ""),
                               "deltas": ev.get("deltas")}
        self.snapshot(None, f"draw ({ev.get('reason', '')})")

    def on_end_hand(self, ev: dict[str, Any]) -> None:
        self.hand.pop("reach_pending", None)


def _riichi(text: str, kind: str, opts: ReviewOptions) -> dict[str, Any]:
    events, rules = _riichi_events(text, kind)
    players = rules.players
    if not 0 <= opts.seat < players:
        raise InvalidHandError(f"seat {opts.seat}: the record has {players} players (0.."
                               f"{players - 1})", reason="bad_seats")
    replay = _RiichiReplay(players, opts)
    replay.play(events)
    if not replay.hands:
        raise InvalidHandError("record: no hands in it", reason="bad_record")
    rated = _rate_riichi(replay.decisions, rules, opts)
    return _answer(kind, rules.name, players, replay.names, replay.hands, rated, opts)


def _meld_rel(code: int) -> int:
    return code >> 12 & 0x7


def _decision(kyoku: int, step: int, turn: int, closed: list[int],
              melds: list[tuple[str, list[int]]], codes: list[int], pai: int,
              visible: list[int], dora: list[int], seat_wind: int, round_wind: int,
              kita: int) -> _Decision:
    counts = [0] * 34
    red = [0, 0, 0]
    for t in closed:
        counts[t >> 2] += 1
        if t in RED_IDS:
            red[RED_IDS.index(t)] += 1
    vis = [0] * 34
    vis_red = [0, 0, 0]
    for t in visible + dora:
        if t in RED_IDS:
            vis_red[RED_IDS.index(t)] += 1
    for t in visible:
        vis[t >> 2] += 1
    hand = " ".join([_mpsz(closed)] + [tok for tok, _ids in melds])
    code = (34 + RED_IDS.index(pai)) if pai in RED_IDS else pai >> 2
    return _Decision(kyoku, step, turn, hand, _name(pai), _mpsz(visible),
                     _mpsz(dora), seat_wind, round_wind, counts, red,
                     (codes + [0xFFFF] * 4)[:4], vis, vis_red, [t >> 2 for t in dora][:5],
                     code, kita)


def _tile_text(code: int) -> str:
    return ("0m", "0p", "0s")[code - 34] if code >= 34 else tile_name(code)


def _efficiency(hand: str, visible: str, discard: str, rules: object) -> dict[str, Any]:
    """The made discard against the efficiency-best: shanten and tiles that advance."""
    import mjcore

    uk = mjcore.ukeire(hand, visible, rules=rules)
    made_kind = tile_name(_kind_of(discard))
    made = next((o for o in uk.options if o.discard is not None
                 and tile_name(int(o.discard)) == made_kind), None)
    best = uk.options[0]
    ties = [tile_name(int(o.discard)) for o in uk.options
            if o.shanten == best.shanten and o.remaining == best.remaining
            and o.discard is not None]
    out = {"shanten": uk.shanten, "best": ties, "best_shanten": best.shanten,
           "best_ukeire": best.remaining}
    if made is not None:
        out.update(made_shanten=made.shanten, made_ukeire=made.remaining,
                   ukeire_loss=(best.remaining - made.remaining)
                   if made.shanten == best.shanten else None,
                   shanten_loss=made.shanten - best.shanten)
    return out


def _kind_of(tile: str) -> int:
    from ..tiles import parse_tile

    return parse_tile(tile)


def _rate_riichi(decisions: list[_Decision], rules: Any,
                 opts: ReviewOptions) -> list[dict[str, Any]]:
    out = []
    for d in decisions:
        if time.monotonic() > opts.deadline:
            raise ReviewTimeout("review: out of time rating the decisions")
        row: dict[str, Any] = {"hand_index": d.kyoku, "step": d.step, "turn": d.turn,
                               "hand": d.hand, "discard": d.discard, "visible": d.visible,
                               "dora_indicators": d.dora, "seat_wind": WINDS[d.seat_wind],
                               "round_wind": WINDS[d.round_wind]}
        seen = d.visible + d.dora   # ukeire counts the indicators as seen
        row["efficiency"] = _efficiency(d.hand, seen, d.discard,
                                        rules if rules.players == 3 else None)
        out.append(row)
    if opts.ev and decisions:
        _rate_ev(decisions, out, rules, opts)
    return out


def _rate_ev(decisions: list[_Decision], out: list[dict[str, Any]], rules: Any,
             opts: ReviewOptions) -> None:
    import math

    import numpy as np

    from .. import batch
    from ..status import BY_CODE

    n = len(decisions)
    k = max(1, max(len(d.dora_kinds) for d in decisions))
    dora = np.full((n, k), 255, np.uint8)
    for i, d in enumerate(decisions):
        dora[i, :len(d.dora_kinds)] = d.dora_kinds
    left = opts.deadline - time.monotonic()
    if left < opts.row_seconds * 2:
        raise ReviewTimeout("review: no time left for the expected values")
    res = batch.expected_values(
        np.array([d.counts for d in decisions], np.uint8),
        red=np.array([d.red for d in decisions], np.uint8),
        melds=np.array([d.melds for d in decisions], np.uint16),
        visible=np.array([d.visible_counts for d in decisions], np.uint8),
        visible_red=np.array([d.visible_red for d in decisions], np.uint8), dora=dora,
        seat_wind=np.array([d.seat_wind for d in decisions], np.uint8),
        round_wind=np.array([d.round_wind for d in decisions], np.uint8),
        kita=np.array([d.kita for d in decisions], np.uint8),
        discard=np.array([d.discard_code for d in decisions], np.uint8),
        rules=rules, t_max=opts.t_max, max_shanten=opts.max_shanten,
        max_seconds=min(opts.row_seconds, max(0.001, left / n)))

    def num(x: Any) -> float | None:
        v = float(x)
        return None if math.isnan(v) else v

    for i, row in enumerate(out):
        st = int(res.status[i])
        if st != 0:
            status = BY_CODE.get(st)
            row["ev"] = {"status": (status.reason if status else str(st)).upper()}
            continue
        best_ev, made_ev = num(res.best_ev[i]), num(res.discard_ev[i])
        row["ev"] = {"status": "OK", "best": _tile_text(int(res.best_tile[i])),
                     "best_ev": best_ev, "best_win": num(res.best_win[i]),
                     "best_tenpai": num(res.best_tenpai[i]), "made_ev": made_ev,
                     "made_win": num(res.discard_win[i]),
                     "made_tenpai": num(res.discard_tenpai[i]),
                     "ev_loss": None if best_ev is None or made_ev is None
                     else max(0.0, best_ev - made_ev)}


def _answer(kind: str, rules: str, players: int, names: list[str], hands: list[dict[str, Any]],
            decisions: list[dict[str, Any]], opts: ReviewOptions) -> dict[str, Any]:
    """The review's JSON: the hands with their steps, the decisions and the totals."""
    def totals(rows: list[dict[str, Any]]) -> dict[str, Any]:
        eff = [r["efficiency"] for r in rows]
        evs = [r["ev"] for r in rows if r.get("ev", {}).get("status") == "OK"]
        return {"decisions": len(rows),
                "efficiency_matches": sum(1 for r in rows
                                          if r["efficiency"].get("ukeire_loss") == 0),
                "ukeire_loss": sum(e.get("ukeire_loss") or 0 for e in eff),
                "shanten_losses": sum(1 for e in eff if (e.get("shanten_loss") or 0) > 0),
                "ev_rated": len(evs),
                "ev_matches": sum(1 for e in evs if e["ev_loss"] is not None
                                  and e["ev_loss"] < 1e-6),
                "ev_loss": sum(e["ev_loss"] or 0.0 for e in evs)}

    for i, h in enumerate(hands):
        h["totals"] = totals([r for r in decisions if r["hand_index"] == i])
    return {"format": kind, "rules": rules, "players": players, "names": names,
            "seat": opts.seat, "ev": opts.ev and kind != "mjs", "hands": hands,
            "decisions": decisions, "totals": totals(decisions)}


# -- Chinese classical (Bradfield hand histories) -------------------------------------------

def _classical_name(k: int) -> str:
    return f"{k - 33}f" if k >= 34 else tile_name(k)


def _set_text(kinds: list[int]) -> str:
    from ..tiles import format_tiles

    return format_tiles(sorted(kinds))


class _ClassicalReplay:
    """The replay of a Bradfield hand's events: the four concealed hands, the exposed sets,
    the bonus tiles, the rivers, the snapshots and the rated seat's decisions."""

    def __init__(self, history: Any, opts: ReviewOptions) -> None:
        self.history = history
        self.opts = opts
        self.concealed: list[list[int]] = [[], [], [], []]
        self.sets: list[list[str]] = [[], [], [], []]
        self.bonus: list[list[int]] = [[], [], [], []]
        self.rivers: list[list[dict[str, Any]]] = [[], [], [], []]
        self.cur: dict[str, Any] = {
            "label": history.label, "round_wind": WINDS[history.game.prevailing_wind],
            "dealer": 0, "scores": [], "steps": [], "result": None}
        self.decisions: list[dict[str, Any]] = []
        self.turn = 0
        self.handlers: dict[str, Callable[[dict[str, Any], int], None]] = {
            "draw": self.on_draw, "loose": self.on_draw, "bonus": self.on_bonus,
            "discard": self.on_discard, "chow": self.on_claim, "pung": self.on_claim,
            "kong": self.on_claim, "concealed_kong": self.on_concealed_kong,
            "add_kong": self.on_add_kong, "mahjong": self.on_mahjong}

    def play(self, events: list[dict[str, Any]]) -> None:
        for ev in events:
            typ = ev["type"]
            if typ == "deal":
                self.on_deal(ev)
            elif typ in self.handlers:
                seat = ev.get("seat")
                assert seat is not None
                self.handlers[typ](ev, seat)

    def bonus_text(self, seat: int) -> str:
        return "".join(_classical_name(b) for b in self.bonus[seat])

    def text_of(self, seat: int) -> str:
        from ..tiles import format_tiles

        parts = [format_tiles(sorted(self.concealed[seat]))] + self.sets[seat]
        if self.bonus[seat]:
            parts.append(self.bonus_text(seat))
        return " ".join(p for p in parts if p)

    def snapshot(self, actor: int | None, action: str) -> None:
        from ..tiles import format_tiles

        self.cur["steps"].append({
            "actor": actor, "action": action,
            "hands": [format_tiles(sorted(self.concealed[s])) for s in range(4)],
            "melds": [self.sets[s] + ([self.bonus_text(s)] if self.bonus[s] else [])
                      for s in range(4)],
            "rivers": [[{"tile": _classical_name(t["id"]),
                         **({"called": True} if t.get("called") else {})}
                        for t in self.rivers[s]] for s in range(4)],
            "dora_indicators": []})

    def take(self, seat: int, kinds: list[int]) -> None:
        for k in kinds:
            if k not in self.concealed[seat]:
                raise InvalidHandError(f"record: seat {seat} does not hold "
                                       f"{_classical_name(k)}", reason="bad_record")
            self.concealed[seat].remove(k)

    def seen_by(self, seat: int) -> list[int]:
        from ..tiles import parse_kinds

        out = [t["id"] for s in range(4) for t in self.rivers[s] if not t.get("called")]
        for s in range(4):
            if s != seat:
                for tok in self.sets[s]:
                    out.extend(parse_kinds(tok.split(":", 1)[1].split("<")[0]))
        return [k for k in out if k < 34]

    def on_deal(self, ev: dict[str, Any]) -> None:
        for i, hand in enumerate(ev["hands"]):
            self.concealed[i] = [k for k in hand if k < 34]
            self.bonus[i] = [k for k in hand if k >= 34]
        self.snapshot(None, f"{self.history.label}: deal")

    def on_draw(self, ev: dict[str, Any], s: int) -> None:
        if ev["tile"] < 34:     # a bonus tile drawn is set aside by the next event
            self.concealed[s].append(ev["tile"])
        if s == self.opts.seat:
            self.turn += 1
        self.snapshot(s, f"seat {s} draws {_classical_name(ev['tile'])}")

    def on_bonus(self, ev: dict[str, Any], s: int) -> None:
        if ev["tile"] in self.concealed[s]:
            self.concealed[s].remove(ev["tile"])
        if ev["tile"] not in self.bonus[s]:     # each bonus tile is unique (the deal's too)
            self.bonus[s].append(ev["tile"])
        self.snapshot(s, f"seat {s} sets aside {_classical_name(ev['tile'])}")

    def rate_discard(self, s: int, tile: int) -> None:
        hand = self.text_of(s).split(" ")
        hand_text = " ".join(p for p in hand if not p.endswith("f") or ":" in p)
        visible = _set_text(self.seen_by(s))
        prevailing = WINDS[self.history.game.prevailing_wind]
        row = {"hand_index": 0, "step": len(self.cur["steps"]) - 1, "turn": self.turn,
               "hand": hand_text, "discard": _classical_name(tile), "visible": visible,
               "dora_indicators": "", "seat_wind": WINDS[s], "round_wind": prevailing}
        try:
            row["efficiency"] = _efficiency(hand_text, visible, _classical_name(tile),
                                            self.history.rules)
        except InvalidHandError as err:
            row["efficiency"] = {"error": str(err)}
        self.decisions.append(row)

    def on_discard(self, ev: dict[str, Any], s: int) -> None:
        tile = ev["tile"]
        if s == self.opts.seat:
            self.rate_discard(s, tile)
        self.take(s, [tile])
        self.rivers[s].append({"id": tile})
        self.snapshot(s, f"seat {s} discards {_classical_name(tile)}")

    def on_claim(self, ev: dict[str, Any], s: int) -> None:
        typ, tile = ev["type"], ev["tile"]
        if typ == "chow":
            low = tile - int(ev.get("form", 0))
            kinds = [low, low + 1, low + 2]
        else:
            kinds = [tile] * (3 if typ == "pung" else 4)
        rest = list(kinds)
        rest.remove(tile)
        self.take(s, rest)
        if self.rivers[ev["from"]]:
            self.rivers[ev["from"]][-1]["called"] = True
        prefix = {"chow": "chi", "pung": "pon", "kong": "kan"}[typ]
        self.sets[s].append(f"{prefix}:{_set_text(kinds)}")
        self.snapshot(s, f"seat {s} claims {typ} on {_classical_name(tile)}")

    def on_concealed_kong(self, ev: dict[str, Any], s: int) -> None:
        self.take(s, [ev["tile"]] * 4)
        self.sets[s].append(f"ankan:{_set_text([ev['tile']] * 4)}")
        self.snapshot(s, f"seat {s} concealed kong {_classical_name(ev['tile'])}")

    def on_add_kong(self, ev: dict[str, Any], s: int) -> None:
        self.take(s, [ev["tile"]])
        pung = f"pon:{_set_text([ev['tile']] * 3)}"
        if pung in self.sets[s]:
            self.sets[s][self.sets[s].index(pung)] = f"kakan:{_set_text([ev['tile']] * 4)}"
        self.snapshot(s, f"seat {s} adds to the pung of {_classical_name(ev['tile'])}")

    def on_mahjong(self, ev: dict[str, Any], s: int) -> None:
        src = ev.get("from")
        if src is not None and src != s:
            self.concealed[s].append(ev["tile"])
            if self.rivers[src]:
                self.rivers[src][-1]["called"] = True
        how = "self-drawn" if src is None or src == s else f"on seat {src}'s discard"
        self.snapshot(s, f"seat {s} goes Mah-Jong ({how})")


def _classical_result(h: Any, rep: Any) -> dict[str, Any]:
    """The hand's result: a win or a draw, the scores, the net payments and the items."""
    scores = {seat: sc.score for seat, sc in h.scores.items()}
    return {"type": "win" if h.finished else "draw",
            "scores": [scores.get(i, 0) for i in range(4)],
            "deltas": list(rep.net) if rep.net is not None
            else list(h.settlement.net) if h.settlement else None,
            "items": {str(seat): [str(i) for i in sc.items]
                      for seat, sc in sorted(h.scores.items())}}


def _classical(text: str, opts: ReviewOptions) -> dict[str, Any]:
    from ..classical.engine.bradfield import replay_hand
    from ..classical.history import read_history_text

    if not 0 <= opts.seat < 4:
        raise InvalidHandError(f"seat {opts.seat}: a classical hand has 4 players (0..3)",
                               reason="bad_seats")
    h = read_history_text(text.encode(), "record")
    rep = replay_hand(h)
    if rep.error:
        raise InvalidHandError(f"record: {rep.error}", reason="bad_record")
    replay = _ClassicalReplay(h, opts)
    replay.play(rep.events)
    replay.cur["result"] = _classical_result(h, rep)
    names = [n for _pid, n in h.players]
    return _answer("mjs", h.rules.name if hasattr(h.rules, "name") else "classical", 4, names,
                   [replay.cur], replay.decisions, opts)


Rater = Callable[[str, ReviewOptions], dict[str, Any]]
__all__ = ["ReviewOptions", "ReviewTimeout", "detect", "review"]
