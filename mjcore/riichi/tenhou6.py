"""tenhou.net/6 records: the JSON export of a game's events and the reader back into events.

:func:`to_tenhou6` (and :func:`dumps_tenhou6`) writes the engine's events (see :mod:`.events`)
as a tenhou.net/6 JSON document, one ``log`` entry per hand; :func:`read_tenhou6` reads such a
document back into events, a hand's takes and discards turn by turn.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, ClassVar

from ..errors import InvalidHandError
from .events import WIND_NAMES, Event, rules_name

# ---- export ----------------------------------------------------------------------------------

def _t6(tile: int) -> int:
    """tenhou.net/6 tile code: 11-19 man, 21-29 pin, 31-39 sou, 41-47 honors, 51-53 red fives."""
    if tile in (16, 52, 88):
        return 51 + tile // 36
    kind = tile >> 2
    return (kind // 9 + 1) * 10 + kind % 9 + 1


def _side(target: int, seat: int, players: int) -> int:
    """Where ``target`` sits for ``seat``: 1 right (shimocha), 2 across, 3 left (kamicha);
    with three players the seat before is the left one."""
    rel = (target - seat) % players
    return 3 if rel == players - 1 else rel


def _meld_str(ev: Event, seat: int, pon_rel: int = 3, players: int = 4) -> str:
    """tenhou.net/6 call string: ``c`` chi, ``p`` pon, ``m`` open kan, ``k`` added kan, ``a``
    closed kan; the marked tile sits where the player it came from sits (left: first,
    across: second, right: last)."""
    t = ev["type"]
    cons = [str(_t6(x)) for x in ev["consumed"]]
    if t == "ankan":
        return "".join(cons[:3]) + "a" + cons[3]
    pai = str(_t6(ev["pai"]))
    if t == "chi":
        return "c" + pai + "".join(cons)
    if t == "kakan":
        rel = pon_rel
        letter = "k"
    else:
        rel = _side(ev["target"], seat, players)
        letter = "p" if t == "pon" else "m"
    idx = {3: 0, 2: 1, 1: len(cons)}[rel]
    cons.insert(idx, letter + pai)
    return "".join(cons)


def to_tenhou6(events: list[Event], names: list[str] | None = None,
               rule_name: str = "mjcore") -> dict[str, Any]:
    """Export a record as tenhou.net/6 JSON (one entry of ``log`` per hand). A three-player
    record keeps tenhou.net/6's four columns with the fourth empty (no tiles, 0 points) and
    writes a north set aside as ``"f44"`` among the discards."""
    writer = _T6Writer(names, rule_name)
    handlers = _T6Writer.HANDLERS
    for ev in events:
        t = ev["type"]
        try:
            handler = handlers[t]
        except (KeyError, TypeError):     # an event tenhou.net/6 does not write
            continue
        if writer.entry is not None or t in _WRITTEN_OUTSIDE_HANDS:
            handler(writer, ev)
    return {"title": ["", ""], "name": writer.names, "rule": writer.rule, "log": writer.logs,
            "sc": writer.final}


# events written outside a hand (the rest only between start_kyoku and end_kyoku)
_WRITTEN_OUTSIDE_HANDS = frozenset({"start_game", "start_kyoku", "end_game"})


class _T6Writer:
    """A record's events as tenhou.net/6 ``log`` entries, one handler per event type
    (``HANDLERS``): the entry of the hand in play (``entry``, None between hands) and each
    seat's haipai, takes and discards, written into the entry at the hand's first result."""

    __slots__ = ("logs", "players", "entry", "columns_written", "haipai", "takes", "discards",
                 "riichi_pending", "pon_rel", "names", "rule", "final")

    def __init__(self, names: list[str] | None, rule_name: str) -> None:
        self.logs: list[list[Any]] = []
        self.players = 4
        self.entry: list[Any] | None = None
        self.columns_written = False
        self.haipai: list[list[int]] = []
        self.takes: list[list[Any]] = []
        self.discards: list[list[Any]] = []
        self.riichi_pending = [False] * 4
        self.pon_rel: dict[tuple[int, int], int] = {}
        self.names = names or ["", "", "", ""]
        self.rule: dict[str, Any] = {"disp": rule_name, "aka": 1}
        self.final: list[Any] = []

    def start_game(self, ev: Event) -> None:
        self.names = list(ev.get("names") or self.names)
        if isinstance(ev.get("rule_options"), dict):     # read back by read_tenhou6
            self.rule["aka"] = int(ev["rule_options"].get("red_fives", 3) > 0)
            self.rule["preset"] = rules_name(ev) or "custom"
            self.rule["mjcore"] = ev["rule_options"]

    def start_kyoku(self, ev: Event) -> None:
        wind = WIND_NAMES.index(ev["bakaze"])
        round_no = wind * 4 + ev["kyoku"] - 1
        self.players = players = len(ev["tehais"])
        # tenhou.net/6 lists hands in seat order relative to the first dealer (seat 0)
        self.haipai = [sorted(ev["tehais"][s]) if s < players else [] for s in range(4)]
        self.takes = [[], [], [], []]
        self.discards = [[], [], [], []]
        self.riichi_pending = [False] * 4
        self.pon_rel = {}
        self.entry = [[round_no, ev["honba"], ev["kyotaku"]], _four(ev["scores"], 0),
                      [_t6(ev["dora_marker"])], []]
        self.columns_written = False

    def end_game(self, ev: Event) -> None:
        scores = ev.get("scores") or []
        pts = ev.get("final_points") or [0.0] * len(scores)
        self.final = [x for s in range(len(scores)) for x in (scores[s], pts[s])]
        self.final += [0, 0.0] * (4 - len(scores))

    def tsumo(self, ev: Event) -> None:
        self.takes[ev["actor"]].append(_t6(ev["pai"]))

    def dahai(self, ev: Event) -> None:
        a = ev["actor"]
        code: Any = 60 if ev.get("tsumogiri") else _t6(ev["pai"])
        if self.riichi_pending[a]:
            code = "r" + str(code)
            self.riichi_pending[a] = False
        self.discards[a].append(code)

    def reach(self, ev: Event) -> None:
        self.riichi_pending[ev["actor"]] = True

    def kita(self, ev: Event) -> None:
        self.discards[ev["actor"]].append(T6_KITA)

    def call(self, ev: Event) -> None:
        """chi, pon or an open kan: among the takes (an open kan's discard is a 0)."""
        a, t = ev["actor"], ev["type"]
        if t == "pon":
            self.pon_rel[(a, ev["pai"] >> 2)] = _side(ev["target"], a, self.players)
        self.takes[a].append(_meld_str(ev, a, players=self.players))
        if t == "daiminkan":
            self.discards[a].append(0)

    def kan_from_hand(self, ev: Event) -> None:
        """An added or a closed kan: among the discards."""
        a = ev["actor"]
        kind = (ev["pai"] if ev["type"] == "kakan" else ev["consumed"][0]) >> 2
        self.discards[a].append(_meld_str(ev, a, self.pon_rel.get((a, kind), 3)))

    def dora(self, ev: Event) -> None:
        assert self.entry is not None
        self.entry[2].append(_t6(ev["dora_marker"]))

    def _result_entry(self) -> list[Any]:
        """The hand's entry, with the seats' columns written at its first result."""
        entry = self.entry
        assert entry is not None
        if not self.columns_written:
            self.columns_written = True
            for s in range(4):
                entry.extend([[_t6(x) for x in self.haipai[s]], self.takes[s],
                              self.discards[s]])
            entry.append(None)
        return entry

    def hora(self, ev: Event) -> None:
        entry = self._result_entry()
        ura = [_t6(x) for x in ev.get("uradora_markers", [])]
        if ura:          # (a double ron's second winner may not be in riichi)
            entry[3] = ura
        if entry[-1] is None:
            entry[-1] = ["和了"]
        entry[-1].extend([_four(ev["deltas"], 0), [ev["actor"], ev["target"],
                          ev.get("pao", ev["actor"]), _hora_text(ev)]])

    def ryukyoku(self, ev: Event) -> None:
        self._result_entry()[-1] = [_draw_name(ev["reason"]), _four(ev["deltas"], 0)]

    def end_kyoku(self, ev: Event) -> None:
        if self.columns_written:
            assert self.entry is not None
            self.logs.append(self.entry)
        self.entry = None

    HANDLERS: ClassVar[dict[str, Callable[[_T6Writer, Event], None]]] = {
        "start_game": start_game, "start_kyoku": start_kyoku, "end_game": end_game,
        "tsumo": tsumo, "dahai": dahai, "reach": reach, "kita": kita, "chi": call, "pon": call,
        "daiminkan": call, "kakan": kan_from_hand, "ankan": kan_from_hand, "dora": dora,
        "hora": hora, "ryukyoku": ryukyoku, "end_kyoku": end_kyoku}


T6_KITA = "f44"          # tenhou.net/6: a north set aside, among the discards


def _four(values: list[Any], empty: Any) -> list[Any]:
    """Per-seat values in tenhou.net/6's four columns (a three-player record's fourth empty)."""
    return list(values) + [empty] * (4 - len(values))


def _hora_text(ev: Event) -> str:
    pts = ev.get("hora_points", ev.get("points", 0))
    fu = ev.get("fu", 0)
    han = ev.get("fan", 0)
    return f"{fu}符{han}飜{pts}点" if fu else f"{pts}点"


def _draw_name(reason: str) -> str:
    return {"exhaustive": "流局", "kyushukyuhai": "九種九牌", "suufonrenda": "四風連打",
            "suuchariichi": "四家立直", "sanchaho": "三家和了", "suukaikan": "四槓散了",
            "nagashimangan": "流し満貫"}.get(reason, reason)


def dumps_tenhou6(events: list[Event], names: list[str] | None = None) -> str:
    """A record as tenhou.net/6 JSON text (read back by :func:`read_tenhou6`)."""
    return json.dumps(to_tenhou6(events, names), ensure_ascii=False, separators=(",", ":"))


# ---- import ----------------------------------------------------------------------------------

_T6_DRAWS = {v: k for k, v in {"exhaustive": "流局", "kyushukyuhai": "九種九牌",
                               "suufonrenda": "四風連打", "suuchariichi": "四家立直",
                               "sanchaho": "三家和了", "suukaikan": "四槓散了",
                               "nagashimangan": "流し満貫"}.items()}
_T6_CALL = re.compile(r"^(\d*)([cpmka])(\d\d)(\d*)$")


def _t6_name(code: Any, where: str) -> str:
    """The mjai name of a tenhou.net/6 tile code."""
    if isinstance(code, int) and not isinstance(code, bool):
        if code in (51, 52, 53):
            return "5" + "mps"[code - 51] + "r"
        suit, num = divmod(code, 10)
        if 1 <= suit <= 3 and 1 <= num <= 9:
            return f"{num}{'mps'[suit - 1]}"
        if suit == 4 and 1 <= num <= 7:
            return "ESWNPFC"[num - 1]
    raise InvalidHandError(f"{where}: {code!r} is not a tenhou.net/6 tile code",
                           reason="bad_tenhou6")


def _t6_kind(code: int) -> int:
    if code in (51, 52, 53):
        return (code - 51) * 9 + 4
    suit, num = divmod(code, 10)
    return (suit - 1) * 9 + num - 1


def _t6_call(text: str, seat: int, where: str,
             players: int = 4) -> tuple[str, int, list[int], int]:
    """(event type, called or added tile, other tiles, seat called from) of a call string."""
    m = _T6_CALL.match(text)
    if m is None or len(m.group(1)) % 2 or len(m.group(4)) % 2:
        raise InvalidHandError(f"{where}: {text!r} is not a tenhou.net/6 call",
                               reason="bad_tenhou6")
    before, letter, pai, after = m.groups()
    others = [int(before[i:i + 2]) for i in range(0, len(before), 2)] + \
        [int(after[i:i + 2]) for i in range(0, len(after), 2)]
    typ = {"c": "chi", "p": "pon", "m": "daiminkan", "k": "kakan", "a": "ankan"}[letter]
    if letter == "a":
        return typ, int(pai), others, seat
    rel = 3 if not before else (1 if not after else 2)    # left, right or across
    if letter == "c":
        rel = 3
    if players == 3:
        rel = {1: 1, 3: 2}.get(rel, 0)       # no one sits across
        if rel == 0:
            raise InvalidHandError(f"{where}: {text!r} calls from across a three-player table",
                                   reason="bad_tenhou6")
    return typ, int(pai), others, (seat + rel) % players


def _t6_hand(entry: list[Any], where: str, immediate: bool = False) -> list[Event]:
    """The mjai-named events of one ``log`` entry; ``immediate``: kan dora shows at the kan
    (the ``kan_dora_timing`` option), else after the next discard."""
    hand = _T6Hand(entry, where, immediate)
    takes = hand.takes
    while hand.ti[hand.cur] < len(takes[hand.cur]):
        cur = hand.cur
        take = takes[cur][hand.ti[cur]]
        hand.ti[cur] += 1
        if not hand.take(cur, take):
            continue                              # a kan from a discard: its draw comes next
        if hand.di[cur] >= len(hand.discards[cur]):
            break                                 # a win or a draw on this take
        d = hand.discards[cur][hand.di[cur]]
        hand.di[cur] += 1
        if d == T6_KITA and hand.players == 3:
            hand.kita(cur)
        elif isinstance(d, str) and ("a" in d or "k" in d):
            hand.kan_from_hand(cur, d)
        else:
            hand.discard(cur, d)
    hand.result()
    return hand.out


class _T6Hand:
    """One tenhou.net/6 ``log`` entry read turn by turn: the seat to play (``cur``), the next
    take and discard of each seat, the tiles held, and the events so far."""

    def __init__(self, entry: list[Any], where: str, immediate: bool) -> None:
        (round_no, honba, sticks), scores, dora, ura = entry[0], entry[1], entry[2], entry[3]
        # a three-player hand leaves the fourth column empty
        self.players = players = 3 if not (entry[13] or entry[14] or entry[15]) else 4
        self.seats = seats = range(players)
        haipai = [list(entry[4 + 3 * s]) for s in seats]
        self.takes = [entry[5 + 3 * s] for s in seats]
        self.discards = [entry[6 + 3 * s] for s in seats]
        self.result_entry = entry[16]
        self.ura = ura
        self.where, self.immediate = where, immediate
        dealer = round_no % 4
        if dealer >= players:
            raise InvalidHandError(f"{where}: round {round_no} has no dealer among {players} "
                                   "seats", reason="bad_tenhou6")
        self.scores = list(scores)[:players]
        self.out: list[Event] = [{
            "type": "start_kyoku", "bakaze": WIND_NAMES[round_no // 4],
            "kyoku": round_no % 4 + 1, "honba": honba, "kyotaku": sticks, "oya": dealer,
            "scores": list(self.scores), "dora_marker": self.name(dora[0]),
            "tehais": [[self.name(c) for c in h] for h in haipai]}]
        self.kan_dora = iter(dora[1:])
        self.held = [[0] * 34 for _ in seats]          # concealed tiles
        self.melded = [[0] * 34 for _ in seats]
        self.n_melds = [0, 0, 0, 0]
        for s in seats:
            for c in haipai[s]:
                self.held[s][_t6_kind(c)] += 1
        self.ti, self.di = [0, 0, 0, 0], [0, 0, 0, 0]
        self.last_draw = [0, 0, 0, 0]
        self.pending_dora = self.rinshan = False
        self.last_discard = (-1, 0)
        self.cur = dealer

    def name(self, code: Any) -> str:
        return _t6_name(code, self.where)

    def reveal(self) -> None:
        self.out.append({"type": "dora", "dora_marker": self.name(next(self.kan_dora))})

    def meld(self, seat: int, codes: list[int]) -> None:
        for c in codes:
            self.held[seat][_t6_kind(c)] -= 1
            self.melded[seat][_t6_kind(c)] += 1

    def take(self, cur: int, take: Any) -> bool:
        """A draw or a call of the last discard; False after an open kan (its replacement
        draw is the seat's next take)."""
        if not isinstance(take, str):
            self.out.append({"type": "tsumo", "actor": cur, "pai": self.name(take),
                             **({"rinshan": True} if self.rinshan else {})})
            self.held[cur][_t6_kind(take)] += 1
            self.last_draw[cur] = take
            self.rinshan = False
            return True
        typ, pai, others, target = _t6_call(take, cur, self.where, self.players)
        if target != self.last_discard[0]:
            raise InvalidHandError(f"{self.where}: seat {cur} calls {take!r} from seat "
                                   f"{target}, but seat {self.last_discard[0]} discarded last",
                                   reason="bad_tenhou6")
        self.out.append({"type": typ, "actor": cur, "target": target, "pai": self.name(pai),
                         "consumed": [self.name(c) for c in others]})
        self.meld(cur, others)
        self.melded[cur][_t6_kind(pai)] += 1
        self.n_melds[cur] += 1
        if typ != "daiminkan":
            return True
        self.rinshan = True
        if self.immediate:
            self.reveal()
        else:
            self.pending_dora = True
        self.di[cur] += 1                         # the 0 that stands for the kan's discard
        return False

    def kita(self, cur: int) -> None:
        """A north set aside (three players; no replacement draw in the record: it was
        robbed, or the next take is it)."""
        self.out.append({"type": "kita", "actor": cur, "pai": "N"})
        self.held[cur][_t6_kind(44)] -= 1
        self.melded[cur][_t6_kind(44)] += 1
        if self.pending_dora:                     # a north shows a pending kan dora
            self.reveal()
            self.pending_dora = False
        self.last_discard = (cur, 44)
        self.rinshan = True

    def kan_from_hand(self, cur: int, d: str) -> None:
        """A closed or added kan in the discard column (the replacement draw is the seat's
        next take, or none when the kan was robbed)."""
        typ, pai, others, _ = _t6_call(d, cur, self.where, self.players)
        if typ == "ankan":
            self.out.append({"type": "ankan", "actor": cur,
                             "consumed": [self.name(c) for c in [pai] + others]})
            self.meld(cur, [pai] + others)
            self.n_melds[cur] += 1
            if self.pending_dora:
                self.reveal()
            self.pending_dora = False
            self.reveal()
        else:
            self.out.append({"type": "kakan", "actor": cur, "pai": self.name(pai),
                             "consumed": [self.name(c) for c in others]})
            self.meld(cur, [pai])
            if self.pending_dora:
                self.reveal()
            self.pending_dora = not self.immediate
            if self.immediate and self.ti[cur] < len(self.takes[cur]):    # (not when robbed)
                self.reveal()
        self.last_discard = (cur, pai)
        self.rinshan = True

    def discard(self, cur: int, d: Any) -> None:
        """A discard (with riichi when written ``r``), then who plays next."""
        riichi = isinstance(d, str) and d.startswith("r")
        code = int(d[1:]) if riichi else d
        tsumogiri = code == 60
        tile = self.last_draw[cur] if tsumogiri else code
        if riichi:
            self.out.append({"type": "reach", "actor": cur})
        self.out.append({"type": "dahai", "actor": cur, "pai": self.name(tile),
                         "tsumogiri": tsumogiri})
        self.held[cur][_t6_kind(tile)] -= 1
        if self.pending_dora:
            self.reveal()
            self.pending_dora = False
        self.last_discard = (cur, tile)
        result = self.result_entry
        ronned = (result[0] == "和了" and result[2][1] == cur and result[2][0] != cur
                  and all(self.ti[s] >= len(self.takes[s]) for s in self.seats))
        if riichi and not ronned:
            self.scores[cur] -= 1000
            self.out.append({"type": "reach_accepted", "actor": cur,
                             "scores": list(self.scores)})
        self.cur = self._next_seat(cur, tile)

    def _next_seat(self, cur: int, tile: Any) -> int:
        """The seat after ``cur`` discarded ``tile``: a caller of it (pon or kan before chi),
        else the next seat."""
        nxt = (cur + 1) % self.players
        for s in sorted(self.seats, key=lambda s: (s == nxt, s)):   # pon or kan before chi
            takes = self.takes[s]
            if s != cur and self.ti[s] < len(takes) and isinstance(takes[self.ti[s]], str):
                typ, pai, _, target = _t6_call(takes[self.ti[s]], s, self.where, self.players)
                if target == cur and _t6_kind(pai) == _t6_kind(tile) and \
                        (typ != "chi" or s == nxt):
                    return s
        return nxt

    def result(self) -> None:
        """The hand's wins or its draw, then end_kyoku."""
        result, players = self.result_entry, self.players
        if not isinstance(result, list) or not result:
            raise InvalidHandError(f"{self.where}: the hand has no result",
                                   reason="bad_tenhou6")
        if result[0] == "和了":
            for i in range(1, len(result) - 1, 2):
                deltas, info = result[i], result[i + 1]
                ev: Event = {"type": "hora", "actor": info[0], "target": info[1],
                             "deltas": list(deltas)[:players]}
                if self.ura:
                    ev["uradora_markers"] = [self.name(c) for c in self.ura]
                self.out.append(ev)
        else:
            reason = _T6_DRAWS.get(result[0], result[0])
            deltas = list(result[1])[:players] if len(result) > 1 else [0] * players
            tenpais = [d > 0 for d in deltas]
            if reason == "sanchaho":
                tenpais = [s != self.last_discard[0] for s in self.seats]
            elif reason == "exhaustive" and not any(deltas):
                # all four tenpai or none: the hands tell (a hidden tenpai, with the optional
                # declaration, is not in this format)
                tenpais = [all(self._tenpai(s) for s in self.seats)] * players
            self.out.append({"type": "ryukyoku", "reason": reason, "deltas": deltas,
                             "tenpais": tenpais})
        self.out.append({"type": "end_kyoku"})

    def _tenpai(self, s: int) -> bool:
        from ..engine.handcalc import advance

        held, melded = self.held[s], self.melded[s]
        sh, mask = advance(held, self.n_melds[s])
        return sh == 0 and any((mask >> k) & 1 and held[k] + melded[k] < 4 for k in range(34))


def read_tenhou6(text: str, where: str = "tenhou6") -> list[Event]:
    """Read a tenhou.net/6 JSON record (as :func:`dumps_tenhou6` writes it) into engine
    events, so that every record format mjcore writes, it reads. Raises InvalidHandError."""
    from .events import from_mjai_lines

    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidHandError(f"{where}: not JSON ({exc.msg})", reason="bad_json") from None
    except RecursionError:
        raise InvalidHandError(f"{where}: not JSON (nested too deeply)",
                               reason="bad_json") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("log"), list):
        raise InvalidHandError(f"{where}: not a tenhou.net/6 record (no 'log' list)",
                               reason="bad_tenhou6")
    rule: dict[str, Any] = doc["rule"] if isinstance(doc.get("rule"), dict) else {}
    start: Event = {"type": "start_game", "names": list(doc.get("name") or [""] * 4)}
    if isinstance(rule.get("mjcore"), dict):
        start["mjcore_rules"] = rule.get("preset", "custom")
        start["rule_options"] = rule["mjcore"]
    events: list[Event] = [start]
    immediate = start.get("rule_options", {}).get("kan_dora_timing") == "immediate"
    for i, entry in enumerate(doc["log"]):
        pos = f"{where} hand {i + 1}"
        try:
            events += _t6_hand(entry, pos, immediate)
        except (KeyError, IndexError, TypeError, ValueError, StopIteration) as exc:
            if isinstance(exc, InvalidHandError):
                raise
            raise InvalidHandError(f"{pos}: malformed hand ({exc!r})",
                                   reason="bad_tenhou6") from None
    players = next((len(ev["tehais"]) for ev in events if ev["type"] == "start_kyoku"), 4)
    start["names"] = start["names"][:players]
    sc = doc.get("sc")
    if isinstance(sc, list) and len(sc) == 8:
        if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in sc):
            raise InvalidHandError(f"{where}: sc {sc!r}: expected 8 numbers (score and points "
                                   "of each seat)", reason="bad_tenhou6")
        events.append({"type": "end_game", "scores": sc[0::2][:players],
                       "final_points": [float(x) for x in sc[1::2][:players]]})
    return from_mjai_lines((json.dumps(ev) for ev in events), where)
