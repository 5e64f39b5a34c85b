"""Riichi records in the extract: an mjlog (four or three players) or mjai JSON lines read
into events with the rules they were played under (the game registry's ``read_record``), and
their decisions as rows (``extract_events``: one handler per event)."""
from __future__ import annotations

import json
from bisect import insort
from collections.abc import Callable, Iterator
from typing import Any, ClassVar

from ..errors import InvalidHandError, MjcoreError
from ..riichi.events import Event
from .extraction import (
    ACTIONS,
    LIVE_WALL,
    LIVE_WALL_OF,
    WIN_FLAG_BITS,
    ParsedRecord,
    _Columns,
    meld_token,
)


def read_record(name: str, text: str) -> ParsedRecord | None:
    """The record ``text`` (file ``name``) when it is an mjlog or mjai JSON lines, else None;
    MjcoreError naming it when it is one but malformed."""
    from ..riichi.events import from_mjai_lines
    from ..riichi.mjlog import read_mjlog, rules_for_go_type, with_record_rounding
    from ..riichi.replay import _rules_from_events

    head = text.lstrip()[:1]
    if head == "<":
        game = read_mjlog(text, name)     # a sanma record: three seats, tenhou_sanma
        rules = with_record_rounding(rules_for_go_type(game.go_type), game.events)
        return ParsedRecord("mjlog", game.events, _rules_text(rules), extract_record)
    if head in ("{", "["):         # mjai JSON lines (a line that is no event object is named)
        events = from_mjai_lines(text.splitlines(), name)
        return ParsedRecord("mjai", events, _rules_text(_rules_from_events(events)),
                            extract_record)
    return None


def extract_record(rec: ParsedRecord, out: Any, *, source: str, game: int) -> bool:
    """Append the decision rows of a riichi record to ``out``; False when it stops before its
    game ends. A record without hands is an InvalidHandError (``no_hands``)."""
    events = rec.events
    if not any(ev["type"] == "start_kyoku" for ev in events):
        raise InvalidHandError("the record has no hands", reason="no_hands")
    extract_events(events, out, source=source, fmt=rec.format, game=game, rules=rec.rules)
    return any(ev["type"] == "end_game" for ev in events)


def _rules_text(rules: Any) -> str:
    """The options of ``rules`` that differ from the default rules, as JSON."""
    from ..riichi.rules import DEFAULT_RULES

    base = DEFAULT_RULES.to_dict()
    diff = {k: v for k, v in rules.to_dict().items() if base.get(k) != v}
    return json.dumps(diff, sort_keys=True, default=list)


def extract_events(events: list[Event], out: _Columns, *, source: str, fmt: str, game: int,
                   rules: str) -> int:
    """Append one row per decision of ``events`` to ``out``; returns the rows added.

    Raises MjcoreError naming the event when the record contradicts itself (the partial rows
    of the game are then the caller's to drop)."""
    hand = _HandExtractor(events, out, source=source, fmt=fmt, game=game, rules=rules)
    start_rows = len(out)
    numbered = enumerate(events)
    _visit(hand, numbered, _HandExtractor.BEFORE_HANDS, until_first_hand=True)
    _visit(hand, numbered, _HandExtractor.HANDLERS, until_first_hand=False)
    if hand.hand_rows_start < len(out):     # a truncated record: the last hand has no result
        hand.close_hand("unfinished", None)
    return len(out) - start_rows


def _visit(hand: _HandExtractor, numbered: Iterator[tuple[int, Event]],
           handlers: dict[str, Callable[[_HandExtractor, int, Event], None]], *,
           until_first_hand: bool) -> None:
    """Give the events of ``numbered`` to their handlers; with ``until_first_hand``, stop
    after the first ``start_kyoku``."""
    for i, ev in numbered:
        t = ev["type"]
        try:
            handler = handlers[t]
        except (KeyError, TypeError):   # an event the extract does not read (end_game, ...)
            continue
        try:
            handler(hand, i, ev)
        except MjcoreError:
            raise
        except (KeyError, ValueError, IndexError, TypeError, OverflowError) as exc:
            # OverflowError: a counter of a row (turn, melds, ...) beyond its column's type
            raise InvalidHandError(f"event {i} ({t}): {exc!r}", reason="bad_event") from None
        if until_first_hand and hand.hand_no >= 0:
            return


class _HandExtractor:
    """What a record's events say so far about the hand in play: one handler per event type
    (``HANDLERS``; before the first ``start_kyoku`` only ``BEFORE_HANDS``), the rows written
    by :meth:`row`."""

    __slots__ = (
        "events", "out", "source", "fmt", "game", "rules",
        "c_decision", "c_event", "c_seat", "c_player", "c_turn", "c_left", "c_nmelds",
        "c_kita", "c_riichi", "c_rseats", "c_action", "c_tile", "c_tsumogiri", "c_from",
        "c_flags", "player_codes", "action_codes", "action_code", "discard_code", "riichi_code",
        "closed_ids", "closed_offsets", "visible",
        "p_melds", "p_dora", "p_consumed", "p_ura", "r_melds", "r_dora", "r_consumed", "r_ura",
        "hands", "melds", "tokens", "dora_id", "seen", "dora_markers", "riichi", "riichi_bits",
        "ippatsu", "robbed_ippatsu", "pending_riichi", "double_riichi", "discarded", "turns",
        "norths", "draws", "players", "live_wall", "called_in_hand", "last_rinshan", "hand_no",
        "header", "scores", "hand_rows_start", "decision", "last_actor_event",
        "result_deltas", "winners", "result_kind", "names")

    def __init__(self, events: list[Event], out: _Columns, *, source: str, fmt: str,
                 game: int, rules: str) -> None:
        self.events, self.out = events, out
        self.source, self.fmt, self.game, self.rules = source, fmt, game, rules
        cols = out.cols
        (self.c_decision, self.c_event, self.c_seat, self.c_player, self.c_turn, self.c_left,
         self.c_nmelds, self.c_kita, self.c_riichi, self.c_rseats, self.c_action, self.c_tile,
         self.c_tsumogiri, self.c_from, self.c_flags) = (cols[n] for n in _Columns.PER_ROW)
        self.player_codes, self.action_codes = self.c_player.codes, self.c_action.codes
        self.action_code = {a: self.c_action.code(a) for a in ACTIONS}
        self.discard_code = self.action_code["discard"]
        self.riichi_code = self.action_code["riichi"]
        self.closed_ids, self.closed_offsets = out.closed.values, out.closed.offsets
        self.visible = out.visible
        self.p_melds, self.p_dora, self.p_consumed, self.p_ura = (out.pools[n]
                                                                 for n in _Columns.POOLED)
        self.r_melds, self.r_dora, self.r_consumed, self.r_ura = (
            p.rows for p in (self.p_melds, self.p_dora, self.p_consumed, self.p_ura))
        self.hands: list[list[int]] = [[], [], [], []]
        self.melds: list[list[list[Any]]] = [[], [], [], []]   # [kind, called, tiles, from_rel]
        self.tokens = [0, 0, 0, 0]      # pooled meld tokens of each seat
        self.dora_id = 0
        self.seen = bytearray(34)
        self.dora_markers: list[int] = []
        self.riichi = [False] * 4
        self.riichi_bits = 0
        self.ippatsu = [False] * 4
        self.robbed_ippatsu = self.ippatsu
        self.pending_riichi = -1
        self.double_riichi = [False] * 4
        self.discarded = [False] * 4    # seat has discarded in this hand
        self.turns = [0] * 4
        self.norths = [0] * 4           # norths each seat has set aside in this hand
        self.draws = 0
        self.players = 4                # seats dealt in: 3 in a sanma record
        self.live_wall = LIVE_WALL
        self.called_in_hand = False
        self.last_rinshan: Any = False  # the last draw's "rinshan" field, read as true or false
        self.hand_no = -1
        self.header: dict[str, Any] = {}
        self.scores: list[int] = []
        self.hand_rows_start = len(out)
        self.decision = 0
        self.last_actor_event: Event | None = None
        self.result_deltas = [0, 0, 0, 0]
        self.winners: set[int] = set()
        self.result_kind = ""
        self.names = [self.c_player.code(f"seat {s}") for s in range(4)]  # player column codes

    def row(self, i: int, seat: int, action: int, tile: int, tsumogiri: bool = False,
            consumed: list[int] | None = None, from_seat: int = -1,
            closed: list[int] | None = None, flags: int = 0) -> None:
        """One decision row: ``seat`` did ``action`` (its code in the action column, from
        ``action_code``) at event ``i``."""
        if seat >= self.players:
            raise InvalidHandError(f"event {i}: seat {seat} at a table of {self.players}",
                                   reason="bad_event")
        self.c_decision.append(self.decision)
        self.c_event.append(i)
        self.c_seat.append(seat)
        self.player_codes.append(self.names[seat])
        self.c_turn.append(self.turns[seat])
        self.c_left.append(self.live_wall - self.draws)
        closed_ids = self.closed_ids            # out.closed.add, inlined (hot)
        closed_ids.extend(self.hands[seat] if closed is None else closed)     # kept sorted
        self.closed_offsets.append(len(closed_ids))
        self.r_melds.append(self.tokens[seat])
        self.c_nmelds.append(len(self.melds[seat]))
        self.c_kita.append(self.norths[seat])
        self.visible += self.seen
        self.r_dora.append(self.dora_id)
        self.c_riichi.append(self.riichi[seat])
        self.c_rseats.append(self.riichi_bits)
        self.action_codes.append(action)
        self.c_tile.append(tile)
        self.c_tsumogiri.append(tsumogiri)
        self.r_consumed.append(self.p_consumed.intern(sorted(consumed)) if consumed else 0)
        self.c_from.append(from_seat)
        self.c_flags.append(flags)
        self.r_ura.append(0)
        self.decision += 1

    def win_row(self, i: int, seat: int, action: int, ev: Event, from_seat: int, flags: int,
                closed: list[int] | None) -> None:
        self.row(i, seat, action, ev["pai"], from_seat=from_seat, flags=flags, closed=closed)
        out = self.out
        r = len(out) - 1
        self.r_ura[r] = self.p_ura.intern(ev.get("uradora_markers") or ())
        out.set_win(r, (int(ev.get("pao", -1)), _win_han(ev), ev.get("fu"),
                        ev.get("hora_points", ev.get("points"))))

    def close_hand(self, result: str, deltas: list[int] | None) -> None:
        """The per-hand columns of the hand's rows."""
        start, header, winners = self.hand_rows_start, self.header, self.winners
        seats = self.c_seat[start:]
        self.out.fill_hand(start, {
            "source": self.source, "format": self.fmt, "game": self.game, "rules": self.rules,
            "players": self.players, "hand": self.hand_no,
            "round_wind": header["round_wind"], "kyoku": header["kyoku"],
            "honba": header["honba"], "riichi_sticks": header["sticks"],
            "dealer": header["dealer"], "hand_result": result,
            "hand_delta": [deltas[s] for s in seats] if deltas is not None else None,
            "hand_won": [s in winners for s in seats]}, self.scores)

    def _close_result(self) -> None:
        kind = self.result_kind
        self.close_hand(kind or "unfinished", self.result_deltas if kind else None)

    def _meld_tokens(self, a: int) -> None:
        self.tokens[a] = self.p_melds.intern(meld_token(*m) for m in self.melds[a])

    def tsumo(self, i: int, ev: Event) -> None:
        a = ev["actor"]
        insort(self.hands[a], ev["pai"])
        self.turns[a] += 1
        self.draws += 1
        self.last_rinshan = ev.get("rinshan")

    def dahai(self, i: int, ev: Event) -> None:
        a = ev["actor"]
        tile = ev["pai"]
        if self.pending_riichi == a:
            if not self.discarded[a] and not self.called_in_hand:
                self.double_riichi[a] = True
            self.row(i, a, self.riichi_code, tile, bool(ev.get("tsumogiri")))
        else:
            self.row(i, a, self.discard_code, tile, bool(ev.get("tsumogiri")))
        self.hands[a].remove(tile)
        self.seen[tile >> 2] += 1
        self.ippatsu[a] = False
        self.discarded[a] = True
        self.last_actor_event = ev

    def start_game(self, i: int, ev: Event) -> None:
        given = ev.get("names") or []
        code = self.c_player.code
        self.names = [code(str(given[s]) if s < len(given) and given[s] else f"seat {s}")
                      for s in range(4)]

    def start_kyoku(self, i: int, ev: Event) -> None:
        if self.hand_no >= 0 and self.hand_rows_start < len(self.out):
            self._close_result()
        self.hand_no += 1
        self.header = {"round_wind": "ESWN".index(ev["bakaze"]), "kyoku": ev["kyoku"],
                       "honba": ev["honba"], "sticks": ev["kyotaku"], "dealer": ev["oya"]}
        scores = [int(x) for x in ev["scores"]]
        players = len(ev["tehais"])
        if players not in LIVE_WALL_OF or len(scores) != players:
            raise InvalidHandError("start_kyoku: three or four hands and as many scores "
                                   "expected", reason="bad_event")
        self.players = players
        self.live_wall = LIVE_WALL_OF[players]
        self.scores = scores + [0] * (4 - players)     # a sanma record's empty fourth seat
        self.hands = [sorted(h) for h in ev["tehais"]] + [[]] * (4 - players)
        self.melds = [[], [], [], []]
        self.tokens = [0, 0, 0, 0]
        self.seen = bytearray(34)
        self.dora_markers = [ev["dora_marker"]]
        self.dora_id = self.p_dora.intern(self.dora_markers)
        self.seen[ev["dora_marker"] >> 2] += 1
        self.riichi = [False] * 4
        self.riichi_bits = 0
        self.ippatsu = [False] * 4
        self.double_riichi = [False] * 4
        self.pending_riichi = -1
        self.discarded = [False] * 4
        self.turns = [0] * 4
        self.norths = [0] * 4
        self.draws = 0
        self.called_in_hand = False
        self.last_rinshan = False
        self.hand_rows_start = len(self.out)
        self.result_deltas = [0, 0, 0, 0]
        self.winners = set()
        self.result_kind = ""
        self.last_actor_event = None

    def reach(self, i: int, ev: Event) -> None:
        self.pending_riichi = ev["actor"]

    def reach_accepted(self, i: int, ev: Event) -> None:
        a = ev["actor"]
        self.riichi[a] = True
        self.riichi_bits |= 1 << a
        self.ippatsu[a] = True
        self.pending_riichi = -1

    def call(self, i: int, ev: Event) -> None:
        """chi, pon or daiminkan: a discard called."""
        a = ev["actor"]
        cons = list(ev["consumed"])
        target = ev["target"]
        t = ev["type"]
        self.row(i, a, self.action_code[t], ev["pai"], consumed=cons, from_seat=target)
        hand, seen = self.hands[a], self.seen
        for c in cons:
            hand.remove(c)
            seen[c >> 2] += 1
        self.melds[a].append([t, ev["pai"], cons, (target - a) % self.players])
        self._meld_tokens(a)
        self.called_in_hand = True
        self.ippatsu = [False] * 4
        self.last_actor_event = ev

    def kakan(self, i: int, ev: Event) -> None:
        a = ev["actor"]
        tile = ev["pai"]
        self.row(i, a, self.action_code["kakan"], tile, consumed=list(ev["consumed"]))
        self.hands[a].remove(tile)
        self.seen[tile >> 2] += 1
        kind = tile >> 2
        pon = next((m for m in self.melds[a] if m[0] == "pon" and m[1] >> 2 == kind), None)
        if pon is None:
            raise InvalidHandError(f"event {i}: added kan without a pon", reason="bad_event")
        pon[0] = "kakan"
        pon[2] = pon[2] + [tile]
        self._meld_tokens(a)
        self.called_in_hand = True
        self.robbed_ippatsu = self.ippatsu     # a kan robbed by chankan never happened
        self.ippatsu = [False] * 4
        self.last_actor_event = ev

    def ankan(self, i: int, ev: Event) -> None:
        a = ev["actor"]
        cons = list(ev["consumed"])
        self.row(i, a, self.action_code["ankan"], cons[0], consumed=cons)
        hand, seen = self.hands[a], self.seen
        for c in cons:
            hand.remove(c)
            seen[c >> 2] += 1
        self.melds[a].append(["ankan", None, cons, 0])
        self._meld_tokens(a)
        self.called_in_hand = True
        self.ippatsu = [False] * 4
        self.last_actor_event = ev

    def kita(self, i: int, ev: Event) -> None:
        """A north set aside (sanma): a decision, as a call breaks ippatsu and the first
        go-around; a replacement draw comes next."""
        a = ev["actor"]
        tile = ev["pai"]
        self.row(i, a, self.action_code["kita"], tile)
        self.hands[a].remove(tile)
        self.seen[tile >> 2] += 1
        self.norths[a] += 1
        self.called_in_hand = True
        self.ippatsu = [False] * 4
        self.last_actor_event = ev

    def dora(self, i: int, ev: Event) -> None:
        self.dora_markers = self.dora_markers + [ev["dora_marker"]]
        self.dora_id = self.p_dora.intern(self.dora_markers)
        self.seen[ev["dora_marker"] >> 2] += 1

    def _riichi_flags(self, a: int, robbing: bool) -> int:
        if not self.riichi[a]:
            return 0
        flags = WIN_FLAG_BITS["riichi"]
        if (self.robbed_ippatsu if robbing else self.ippatsu)[a]:
            flags |= WIN_FLAG_BITS["ippatsu"]
        if self.double_riichi[a]:
            flags |= WIN_FLAG_BITS["double_riichi"]
        return flags

    def _tsumo_flags(self, a: int) -> int:
        flags = WIN_FLAG_BITS["tsumo"]
        if self.last_rinshan:
            flags |= WIN_FLAG_BITS["rinshan"]
        elif self.draws == self.live_wall:
            flags |= WIN_FLAG_BITS["haitei"]
        if not self.called_in_hand and not self.discarded[a]:
            flags |= WIN_FLAG_BITS["tenhou" if a == self.header["dealer"] else "chiihou"]
        return flags

    def _ron_flags(self) -> int:
        prev = self.last_actor_event
        if prev is not None and prev["type"] in ("kakan", "ankan"):
            return WIN_FLAG_BITS["chankan"]
        if self.draws == self.live_wall and (prev is None or prev["type"] != "kita"):
            return WIN_FLAG_BITS["houtei"]
        return 0

    def hora(self, i: int, ev: Event) -> None:
        a = ev["actor"]
        target = ev["target"]
        last = self.last_actor_event
        robbing = a != target and last is not None and last["type"] == "kakan"
        flags = self._riichi_flags(a, robbing)
        code = self.action_code
        if a == target:
            self.win_row(i, a, code["tsumo"], ev, a, flags | self._tsumo_flags(a), None)
        else:
            self.win_row(i, a, code["ron"], ev, target, flags | self._ron_flags(), self.hands[a])
        deltas = self.result_deltas
        for s in range(self.players):
            deltas[s] += int(ev["deltas"][s])
        self.winners.add(a)
        self.result_kind = "win"

    def ryukyoku(self, i: int, ev: Event) -> None:
        if ev.get("reason") == "kyushukyuhai":
            self.row(i, _kyuushu_seat(self.events, i), self.action_code["kyuushu"], -1)
        deltas = self.result_deltas
        for s in range(self.players):
            deltas[s] += int(ev["deltas"][s])
        self.result_kind = "draw:" + str(ev.get("reason", "exhaustive"))

    def end_kyoku(self, i: int, ev: Event) -> None:
        self._close_result()
        self.hand_rows_start = len(self.out)

    HANDLERS: ClassVar[dict[str, Callable[[_HandExtractor, int, Event], None]]] = {
        "tsumo": tsumo, "dahai": dahai, "start_game": start_game, "start_kyoku": start_kyoku,
        "reach": reach, "reach_accepted": reach_accepted, "chi": call, "pon": call,
        "daiminkan": call, "kakan": kakan, "ankan": ankan, "kita": kita, "dora": dora,
        "hora": hora, "ryukyoku": ryukyoku, "end_kyoku": end_kyoku}
    BEFORE_HANDS: ClassVar[dict[str, Callable[[_HandExtractor, int, Event], None]]] = {
        "start_game": start_game, "start_kyoku": start_kyoku}


def _win_han(ev: Event) -> int | None:
    if "fan" in ev:
        return int(ev["fan"])
    if ev.get("yakuman"):
        return 13 * len(ev["yakuman"])
    if "yaku" in ev:
        return sum(int(h) for _y, h in ev["yaku"])
    return None


def _kyuushu_seat(events: list[Event], i: int) -> int:
    for ev in reversed(events[:i]):
        if ev["type"] == "tsumo":
            return int(ev["actor"])
    raise InvalidHandError(f"event {i}: nine-terminals draw before any draw", reason="bad_event")
