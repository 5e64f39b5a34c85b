"""The review of a Chinese classical record: a Bradfield hand history replayed with the four
concealed hands, the rated seat's discards by tile efficiency (the classical game has no
expected-value model)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import InvalidHandError
from ..tiles import tile_name
from .review import WINDS, ReviewOptions, efficiency_of, review_answer


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
            row["efficiency"] = efficiency_of(hand_text, visible, _classical_name(tile),
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


def review_classical(text: str, opts: ReviewOptions) -> dict[str, Any] | None:
    """The review of a Bradfield hand history (the registry's ``review``), None when ``text``
    is none."""
    from ..classical.engine.bradfield import replay_hand
    from ..classical.history import read_history_text
    from ..dataset.classical import is_history

    if not is_history(text):
        return None
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
    return review_answer("mjs", h.rules.name if hasattr(h.rules, "name") else "classical", 4, names,
                   [replay.cur], replay.decisions, opts, ev=False)

