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
    from ..engine.events import from_mjai_lines
    from ..engine.replay import _rules_from_events
    from ..engine.tenhou import read_mjlog, read_tenhou6, rules_for_mjlog

    if kind == "mjlog":
        game = read_mjlog(text, "record")
        return game.events, rules_for_mjlog(game)
    events = read_tenhou6(text, "record") if kind == "tenhou6" \
        else from_mjai_lines(text.splitlines(), "record")
    return events, _rules_from_events(events)


def _riichi(text: str, kind: str, opts: ReviewOptions) -> dict[str, Any]:
    from .._core.batch_scoring import encode_meld

    events, rules = _riichi_events(text, kind)
    players = rules.players
    if not 0 <= opts.seat < players:
        raise InvalidHandError(f"seat {opts.seat}: the record has {players} players (0.."
                               f"{players - 1})", reason="bad_seats")
    names: list[str] = []
    hands: list[dict[str, Any]] = []
    decisions: list[_Decision] = []
    cur: dict[str, Any] | None = None
    closed: list[list[int]] = []
    melds: list[list[tuple[str, list[int]]]] = []
    codes: list[list[int]] = []
    rivers: list[list[dict[str, Any]]] = []
    dora: list[int] = []
    riichi: list[bool] = []
    kita: list[int] = []
    oya = 0
    bakaze = 0
    last_draw: list[int | None] = []
    turn = 0
    steps = 0

    def visible_for(seat: int) -> list[int]:
        out = [t["id"] for s in range(players) for t in rivers[s] if not t.get("called")]
        for s in range(players):
            if s != seat:
                for _tok, ids in melds[s]:
                    out.extend(ids)
        return out

    def snapshot(actor: int | None, action: str) -> None:
        nonlocal steps
        steps += 1
        if steps > MAX_STEPS:
            raise InvalidHandError(f"record: more than {MAX_STEPS} steps", reason="too_large")
        assert cur is not None
        cur["steps"].append({
            "actor": actor, "action": action,
            "hands": [_mpsz(closed[s]) for s in range(players)],
            "melds": [[tok for tok, _ids in melds[s]] for s in range(players)],
            "rivers": [[{"tile": _name(t["id"]), **{k: True for k in ("riichi", "called",
                        "tsumogiri") if t.get(k)}} for t in rivers[s]] for s in range(players)],
            "dora_indicators": [_name(t) for t in dora]})

    def take(seat: int, ids: list[int]) -> None:
        for t in ids:
            if t in closed[seat]:
                closed[seat].remove(t)
            else:   # a record that hides tiles (mjai "?"): drop one of the kind
                same = [x for x in closed[seat] if x >> 2 == t >> 2]
                if not same:
                    raise InvalidHandError(f"record: seat {seat} does not hold {_name(t)}",
                                           reason="bad_record")
                closed[seat].remove(same[0])

    for ev in events:
        typ = ev["type"]
        if typ == "start_game":
            names = [str(n) for n in ev.get("names") or []]
        elif typ == "start_kyoku":
            bakaze = WINDS.index(ev.get("bakaze", "E"))
            oya = int(ev.get("oya", 0))
            label = f"{ev.get('bakaze', 'E')}{ev.get('kyoku', 1)}-{ev.get('honba', 0)}"
            cur = {"label": label, "round_wind": WINDS[bakaze], "dealer": oya,
                   "scores": list(ev.get("scores") or []), "steps": [], "result": None}
            hands.append(cur)
            closed = [list(t) for t in ev["tehais"]][:players]
            melds = [[] for _ in range(players)]
            codes = [[] for _ in range(players)]
            rivers = [[] for _ in range(players)]
            dora = [ev["dora_marker"]] if "dora_marker" in ev else []
            riichi = [False] * players
            kita = [0] * players
            last_draw = [None] * players
            turn = 0
            snapshot(None, f"{label}: deal")
        elif cur is None:
            continue
        elif typ == "tsumo":
            a = ev["actor"]
            closed[a].append(ev["pai"])
            last_draw[a] = ev["pai"]
            if a == opts.seat:
                turn += 1
            snapshot(a, f"seat {a} draws {_name(ev['pai'])}")
        elif typ == "dahai":
            a = ev["actor"]
            pai = ev["pai"]
            if a == opts.seat and not riichi[a]:
                decisions.append(_decision(len(hands) - 1, len(cur["steps"]) - 1, turn,
                                           closed[a], melds[a], codes[a], pai,
                                           visible_for(a), dora, (a - oya) % players, bakaze,
                                           kita[a]))
            take(a, [pai])
            river = {"id": pai}
            if ev.get("tsumogiri"):
                river["tsumogiri"] = True
            if cur.get("reach_pending") == a:
                river["riichi"] = True
                cur.pop("reach_pending")
            rivers[a].append(river)
            snapshot(a, f"seat {a} discards {_name(pai)}")
        elif typ == "reach":
            cur["reach_pending"] = ev["actor"]
        elif typ == "reach_accepted":
            riichi[ev["actor"]] = True
        elif typ in ("chi", "pon", "daiminkan"):
            a, target, pai = ev["actor"], ev["target"], ev["pai"]
            consumed = list(ev["consumed"])
            take(a, consumed)
            if rivers[target]:
                rivers[target][-1]["called"] = True
            rel = (target - a) % 4
            tiles = sorted(consumed + [pai])
            from ..dataset.extraction import meld_token

            melds[a].append((meld_token(typ, pai, consumed, rel), tiles))
            kind_code = {"chi": 0, "pon": 1, "daiminkan": 2}[typ]
            codes[a].append(encode_meld(kind_code, min(t >> 2 for t in tiles),
                                        sum(t in RED_IDS for t in tiles), rel))
            snapshot(a, f"seat {a} calls {typ} on {_name(pai)}")
        elif typ == "ankan":
            a = ev["actor"]
            consumed = list(ev["consumed"])
            take(a, consumed)
            from ..dataset.extraction import meld_token

            melds[a].append((meld_token("ankan", None, consumed, 0), sorted(consumed)))
            codes[a].append(encode_meld(3, consumed[0] >> 2,
                                        sum(t in RED_IDS for t in consumed), 0))
            snapshot(a, f"seat {a} closed kan {_name(consumed[0])}")
        elif typ == "kakan":
            a, pai = ev["actor"], ev["pai"]
            take(a, [pai])
            for i, (_tok, ids) in enumerate(melds[a]):
                if len(ids) == 3 and ids[0] >> 2 == pai >> 2:
                    from ..dataset.extraction import meld_token

                    rel = _meld_rel(codes[a][i])
                    new = sorted(ids + [pai])
                    melds[a][i] = (meld_token("kakan", None, new, rel), new)
                    codes[a][i] = encode_meld(4, pai >> 2, sum(t in RED_IDS for t in new), rel)
            snapshot(a, f"seat {a} added kan {_name(pai)}")
        elif typ == "kita":
            a = ev["actor"]
            take(a, [ev["pai"]])
            kita[a] += 1
            snapshot(a, f"seat {a} sets aside a north")
        elif typ == "dora":
            dora.append(ev["dora_marker"])
        elif typ == "hora":
            a, target = ev["actor"], ev["target"]
            how = "tsumo" if a == target else f"ron on seat {target}"
            cur["result"] = {"type": "win", "winner": a, "from": target,
                             "points": ev.get("points"), "deltas": ev.get("deltas")}
            snapshot(a, f"seat {a} wins ({how}), {ev.get('points', '?')} points")
        elif typ == "ryukyoku":
            cur["result"] = {"type": "draw", "reason": ev.get("reason", ""),
                             "deltas": ev.get("deltas")}
            snapshot(None, f"draw ({ev.get('reason', '')})")
        elif typ == "end_kyoku":
            cur.pop("reach_pending", None)
    if not hands:
        raise InvalidHandError("record: no hands in it", reason="bad_record")
    rated = _rate_riichi(decisions, rules, opts)
    return _answer(kind, rules.name, players, names, hands, rated, opts)


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
    concealed: list[list[int]] = [[], [], [], []]
    sets: list[list[str]] = [[], [], [], []]
    bonus: list[list[int]] = [[], [], [], []]
    rivers: list[list[dict[str, Any]]] = [[], [], [], []]
    cur: dict[str, Any] = {"label": h.label, "round_wind": WINDS[h.game.prevailing_wind],
                           "dealer": 0, "scores": [], "steps": [], "result": None}
    decisions: list[dict[str, Any]] = []
    turn = 0

    def name(k: int) -> str:
        return f"{k - 33}f" if k >= 34 else tile_name(k)

    def text_of(seat: int) -> str:
        from ..tiles import format_tiles

        parts = [format_tiles(sorted(concealed[seat]))] + sets[seat]
        if bonus[seat]:
            parts.append("".join(name(b) for b in bonus[seat]))
        return " ".join(p for p in parts if p)

    def snapshot(actor: int | None, action: str) -> None:
        from ..tiles import format_tiles

        cur["steps"].append({
            "actor": actor, "action": action,
            "hands": [format_tiles(sorted(concealed[s])) for s in range(4)],
            "melds": [sets[s] + (["".join(name(b) for b in bonus[s])] if bonus[s] else [])
                      for s in range(4)],
            "rivers": [[{"tile": name(t["id"]), **({"called": True} if t.get("called") else {})}
                        for t in rivers[s]] for s in range(4)],
            "dora_indicators": []})

    def take(seat: int, kinds: list[int]) -> None:
        for k in kinds:
            if k not in concealed[seat]:
                raise InvalidHandError(f"record: seat {seat} does not hold {name(k)}",
                                       reason="bad_record")
            concealed[seat].remove(k)

    def seen_by(seat: int) -> list[int]:
        out = [t["id"] for s in range(4) for t in rivers[s] if not t.get("called")]
        for s in range(4):
            if s != seat:
                for tok in sets[s]:
                    from ..tiles import parse_kinds

                    out.extend(parse_kinds(tok.split(":", 1)[1].split("<")[0]))
        return [k for k in out if k < 34]

    def set_text(kinds: list[int]) -> str:
        from ..tiles import format_tiles

        return format_tiles(sorted(kinds))

    for ev in rep.events:
        typ = ev["type"]
        s = ev.get("seat")
        if typ == "deal":
            for i, hand in enumerate(ev["hands"]):
                concealed[i] = [k for k in hand if k < 34]
                bonus[i] = [k for k in hand if k >= 34]
            snapshot(None, f"{h.label}: deal")
        elif typ in ("draw", "loose"):
            assert s is not None
            if ev["tile"] < 34:     # a bonus tile drawn is set aside by the next event
                concealed[s].append(ev["tile"])
            if s == opts.seat:
                turn += 1
            snapshot(s, f"seat {s} draws {name(ev['tile'])}")
        elif typ == "bonus":
            assert s is not None
            if ev["tile"] in concealed[s]:
                concealed[s].remove(ev["tile"])
            if ev["tile"] not in bonus[s]:     # each bonus tile is unique (the deal's too)
                bonus[s].append(ev["tile"])
            snapshot(s, f"seat {s} sets aside {name(ev['tile'])}")
        elif typ == "discard":
            assert s is not None
            tile = ev["tile"]
            if s == opts.seat:
                hand = text_of(s).split(" ")
                hand_text = " ".join(p for p in hand if not p.endswith("f") or ":" in p)
                visible = set_text(seen_by(s))
                row = {"hand_index": 0, "step": len(cur["steps"]) - 1, "turn": turn,
                       "hand": hand_text, "discard": name(tile), "visible": visible,
                       "dora_indicators": "", "seat_wind": WINDS[s],
                       "round_wind": WINDS[h.game.prevailing_wind]}
                try:
                    row["efficiency"] = _efficiency(hand_text, visible, name(tile), h.rules)
                except InvalidHandError as err:
                    row["efficiency"] = {"error": str(err)}
                decisions.append(row)
            take(s, [tile])
            rivers[s].append({"id": tile})
            snapshot(s, f"seat {s} discards {name(tile)}")
        elif typ in ("chow", "pung", "kong"):
            assert s is not None
            tile = ev["tile"]
            if typ == "chow":
                low = tile - int(ev.get("form", 0))
                kinds = [low, low + 1, low + 2]
            else:
                kinds = [tile] * (3 if typ == "pung" else 4)
            rest = list(kinds)
            rest.remove(tile)
            take(s, rest)
            if rivers[ev["from"]]:
                rivers[ev["from"]][-1]["called"] = True
            prefix = {"chow": "chi", "pung": "pon", "kong": "kan"}[typ]
            sets[s].append(f"{prefix}:{set_text(kinds)}")
            snapshot(s, f"seat {s} claims {typ} on {name(tile)}")
        elif typ == "concealed_kong":
            assert s is not None
            take(s, [ev["tile"]] * 4)
            sets[s].append(f"ankan:{set_text([ev['tile']] * 4)}")
            snapshot(s, f"seat {s} concealed kong {name(ev['tile'])}")
        elif typ == "add_kong":
            assert s is not None
            take(s, [ev["tile"]])
            pung = f"pon:{set_text([ev['tile']] * 3)}"
            if pung in sets[s]:
                sets[s][sets[s].index(pung)] = f"kakan:{set_text([ev['tile']] * 4)}"
            snapshot(s, f"seat {s} adds to the pung of {name(ev['tile'])}")
        elif typ == "mahjong":
            assert s is not None
            src = ev.get("from")
            if src is not None and src != s:
                concealed[s].append(ev["tile"])
                if rivers[src]:
                    rivers[src][-1]["called"] = True
            how = "self-drawn" if src is None or src == s else f"on seat {src}'s discard"
            snapshot(s, f"seat {s} goes Mah-Jong ({how})")
    scores = {seat: sc.score for seat, sc in h.scores.items()}
    cur["result"] = {"type": "win" if h.finished else "draw",
                     "scores": [scores.get(i, 0) for i in range(4)],
                     "deltas": list(rep.net) if rep.net is not None
                     else list(h.settlement.net) if h.settlement else None,
                     "items": {str(seat): [str(i) for i in sc.items]
                               for seat, sc in sorted(h.scores.items())}}
    names = [n for _pid, n in h.players]
    return _answer("mjs", h.rules.name if hasattr(h.rules, "name") else "classical", 4, names,
                   [cur], decisions, opts)


Rater = Callable[[str, ReviewOptions], dict[str, Any]]
__all__ = ["ReviewOptions", "ReviewTimeout", "detect", "review"]
