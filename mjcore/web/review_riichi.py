"""The review of a riichi record: Tenhou mjlog XML, mjai JSON lines or tenhou.net/6 JSON
replayed with the four hands, the rated seat's discards by tile efficiency and by expected
score (one ``mjcore.batch.expected_values`` call for all of them)."""
from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidHandError, ReviewTimeout
from ..tiles import tile_name
from .review import WINDS, ReviewOptions, efficiency_of, review_answer

RED_IDS = (16, 52, 88)
MAX_STEPS = 20_000


def _name(tile_id: int) -> str:
    return tile_name(tile_id >> 2, tile_id in RED_IDS)


def _mpsz(ids: list[int]) -> str:
    from ..tiles import format_tiles

    ids = sorted(ids, key=lambda t: (t >> 2, t not in RED_IDS))
    return format_tiles([t >> 2 for t in ids], [t in RED_IDS for t in ids], sort=False)



def record_format(text: str) -> str | None:
    """The riichi format of a record's text: ``mjlog``, ``tenhou6`` or ``mjai``; None when it
    is neither XML nor JSON."""
    head = text.lstrip()[:1]
    if head == "<":
        return "mjlog"
    if head == "{":
        try:
            doc = json.loads(text)
        except ValueError:
            return "mjai"
        return "tenhou6" if isinstance(doc, dict) and "log" in doc else "mjai"
    return None

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


def review_riichi(text: str, opts: ReviewOptions) -> dict[str, Any] | None:
    """The review of a riichi record (the registry's ``review``), None when ``text`` is none
    (neither XML nor JSON)."""
    kind = record_format(text)
    if kind is None:
        return None
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
    return review_answer(kind, rules.name, players, replay.names, replay.hands, rated, opts,
                         ev=opts.ev)


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
        row["efficiency"] = efficiency_of(d.hand, seen, d.discard,
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

