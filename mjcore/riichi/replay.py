"""Replay a record through the engine and check that it agrees at every step.

A record (from an mjlog or an mjai file) is a list of events. :func:`replay_events` rebuilds
each hand's wall from the recorded draws, rinshan draws and indicators, then lets the engine
play the game while a decider takes every choice from the record. Every event the engine emits
must match the recorded one (draws, discards, calls, dora, riichi, each win and draw with its
score changes, and the final scores and points), and every recorded choice must be among the
legal actions the engine offered.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import RECORD_SLIPS, InvalidHandError, MjcoreError, slip_text
from ..errors import ReplayMismatch as ReplayMismatch  # declared there, re-exported
from .actions import (
    ANKAN,
    CHI,
    DAIMINKAN,
    DISCARD,
    DISCARD_ACTIONS,
    KAKAN,
    KITA,
    KYUUSHU,
    PASS,
    PON,
    RIICHI,
    RON,
    TENPAI,
    TILE_CLASS,
    TSUMO,
    Action,
)
from .events import MJAI_NAMES, Event, rules_name, tile_class
from .game import Game
from .rules import DEFAULT_RULES, RuleSet
from .wall import Wall


@dataclass
class ReplayReport:
    """The outcome of replaying a record through the engine: ``ok``, what was compared, and on a
    disagreement the ``message`` with the event ``index`` and the ``expected``/``got`` events.
    """
    ok: bool
    hands: int = 0
    events: int = 0
    decisions: int = 0
    message: str = ""
    index: int = -1
    expected: Event | None = None
    got: Event | None = None
    final_scores: list[int] | None = None
    final_points: list[float] | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    engine_events: list[Event] | None = None     # what the engine emitted


def _walls_from_record(events: list[Event], where: str) -> list[Wall]:
    walls: list[Wall] = []
    cur: dict[str, Any] | None = None

    def close() -> None:
        if cur is not None:
            walls.append(Wall.from_record(cur["oya"], cur["tehais"], cur["draws"],
                                          cur["rinshan"], cur["dora"], cur["ura"],
                                          where=f"{where} hand {len(walls) + 1}"))

    for ev in events:
        t = ev["type"]
        if t == "start_kyoku":
            close()
            cur = {"oya": ev["oya"], "tehais": ev["tehais"], "draws": [], "rinshan": [],
                   "dora": [ev["dora_marker"]], "ura": []}
        elif cur is None:
            continue
        elif t == "tsumo":
            (cur["rinshan"] if ev.get("rinshan") else cur["draws"]).append(ev["pai"])
        elif t == "dora":
            cur["dora"].append(ev["dora_marker"])
        elif t == "hora" and ev.get("uradora_markers") and not cur["ura"]:
            cur["ura"] = list(ev["uradora_markers"])
    close()
    return walls


def _classes(tiles: Any) -> list[int]:
    return sorted(tile_class(t) for t in tiles)


def _same(exp: Event, got: Event) -> str:
    """'' when the engine event matches the recorded one, else what differs."""
    t = exp["type"]
    if got["type"] != t:
        return f"event type {got['type']} instead of {t}"
    if t != "start_kyoku" and "actor" in exp and exp["actor"] != got.get("actor"):
        return f"actor {got.get('actor')} instead of {exp['actor']}"
    for check in _SAME_CHECKS.get(t, ()):
        diff = check(exp, got)
        if diff:
            return diff
    return ""


def _same_hand_start(exp: Event, got: Event) -> str:
    for k in ("bakaze", "kyoku", "honba", "kyotaku", "oya", "scores"):
        if exp[k] != got[k]:
            return f"{k} {got[k]} instead of {exp[k]}"
    return ""


def _same_tile(exp: Event, got: Event) -> str:
    if tile_class(exp["pai"]) != tile_class(got["pai"]):
        return f"tile {MJAI_NAMES[got['pai']]} instead of {MJAI_NAMES[exp['pai']]}"
    return ""


def _same_tsumogiri(exp: Event, got: Event) -> str:
    if bool(exp.get("tsumogiri")) != bool(got.get("tsumogiri")):
        return "tsumogiri flag differs"
    return ""


def _same_consumed(exp: Event, got: Event) -> str:
    if _classes(exp["consumed"]) != _classes(got["consumed"]):
        return "consumed tiles differ"
    return ""


def _same_target(exp: Event, got: Event) -> str:
    if exp["target"] != got["target"]:
        return f"target {got['target']} instead of {exp['target']}"
    return ""


def _same_dora(exp: Event, got: Event) -> str:
    if tile_class(exp["dora_marker"]) != tile_class(got["dora_marker"]):
        return "dora indicator differs"
    return ""


def _same_winner_target(exp: Event, got: Event) -> str:
    if exp["target"] != got["target"]:
        return f"won from {got['target']} instead of {exp['target']}"
    return ""


def _same_deltas(exp: Event, got: Event) -> str:
    if list(exp["deltas"]) != list(got["deltas"]):
        return f"score changes {got['deltas']} instead of {exp['deltas']}"
    return ""


def _same_draw_reason(exp: Event, got: Event) -> str:
    if exp["reason"] != got["reason"]:
        return f"draw {got['reason']} instead of {exp['reason']}"
    return ""


def _same_tenpais(exp: Event, got: Event) -> str:
    """The seats in tenpai, which only an exhaustive draw compares."""
    if exp["reason"] == "exhaustive" and list(exp["tenpais"]) != list(got["tenpais"]):
        return f"tenpai {got['tenpais']} instead of {exp['tenpais']}"
    return ""


def _same_game_end(exp: Event, got: Event) -> str:
    if exp.get("scores") is not None and list(exp["scores"]) != list(got["scores"]):
        return f"final scores {got['scores']} instead of {exp['scores']}"
    if exp.get("final_points") is not None and \
            [float(x) for x in exp["final_points"]] != [float(x) for x in got["final_points"]]:
        return f"final points {got['final_points']} instead of {exp['final_points']}"
    return ""


# what _same compares of each event type (after the type and the actor), in order
_SAME_CHECKS: dict[str, tuple[Callable[[Event, Event], str], ...]] = {
    "start_kyoku": (_same_hand_start,),
    "tsumo": (_same_tile,), "kita": (_same_tile,),
    "dahai": (_same_tile, _same_tsumogiri),
    "chi": (_same_tile, _same_consumed, _same_target),
    "pon": (_same_tile, _same_consumed, _same_target),
    "daiminkan": (_same_tile, _same_consumed, _same_target),
    "kakan": (_same_tile, _same_consumed), "ankan": (_same_consumed,),
    "dora": (_same_dora,), "hora": (_same_winner_target, _same_deltas),
    "ryukyoku": (_same_draw_reason, _same_deltas, _same_tenpais),
    "end_game": (_same_game_end,)}


# the record's calls of a discard as the engine's action types
_CALLS = {"chi": CHI, "pon": PON, "daiminkan": DAIMINKAN}


class _RecordEnd(Exception):
    """An incomplete record ran out; everything up to here agreed."""


class _RecordDriver:
    """Feeds recorded choices to the engine and checks each emitted event."""

    def __init__(self, record: list[Event]) -> None:
        self.rec = [ev for ev in record if ev["type"] != "start_game"]
        self.complete = any(ev["type"] == "end_game" for ev in self.rec)
        self.pos = 0
        self.decisions = 0

    def ran_out(self) -> None:
        if not self.complete:
            raise _RecordEnd()

    def fail(self, message: str, got: Event | None = None) -> ReplayMismatch:
        exp = self.rec[self.pos] if self.pos < len(self.rec) else None
        return ReplayMismatch(message, self.pos, exp, got)

    def on_event(self, ev: Event) -> None:
        if ev["type"] == "start_game":
            return
        if self.pos >= len(self.rec):
            self.ran_out()
            raise self.fail(f"the engine went on past the end of the record with {ev['type']}",
                            ev)
        exp = self.rec[self.pos]
        t = ev["type"]
        if (t == "tsumo" or t == "dahai") and (    # fast path for the common events
                exp["type"] == t and exp["actor"] == ev["actor"]
                and TILE_CLASS[exp["pai"]] == TILE_CLASS[ev["pai"]]
                and (t == "tsumo" or exp["tsumogiri"] == ev["tsumogiri"])):
            self.pos += 1
            return
        diff = _same(exp, ev)
        if diff:
            raise self.fail(f"event {self.pos}: {diff}", ev)
        self.pos += 1

    def _next_decision(self) -> int:
        i = self.pos
        while i < len(self.rec) and self.rec[i]["type"] in ("reach_accepted", "dora"):
            i += 1
        return i

    def __call__(self, seat: int, actions: list[Action]) -> Action:
        self.decisions += 1
        if actions[-1].type == DISCARD and self.pos < len(self.rec):
            # fast path: a recorded discard that the engine offers with the same tile copy
            # (one discard action per tile class, so it is the only match)
            ev = self.rec[self.pos]
            pai = ev.get("pai")
            if ev["type"] == "dahai" and ev.get("actor") == seat and type(pai) is int \
                    and 0 <= pai < 136:
                a = DISCARD_ACTIONS[1 if ev.get("tsumogiri") else 0][pai]
                if a in actions:
                    return a
        wanted = self._wanted(seat, actions)
        if wanted is PASS and actions[-1] is PASS:      # (PASS sorts last, offered once)
            return PASS
        wt, wg = wanted.type, wanted.tsumogiri
        wc = TILE_CLASS[wanted.tile] if wanted.tile >= 0 else -1
        for a in actions:
            if (a.type == wt and a.tsumogiri == wg
                    and (TILE_CLASS[a.tile] if a.tile >= 0 else -1) == wc
                    and (not a.consumed or _classes(a.consumed) == _classes(wanted.consumed))):
                return a
        raise self.fail(f"event {self.pos}: seat {seat} took {wanted}, which the engine did not "
                        f"offer (legal: {', '.join(str(a) for a in actions)})")

    def _wanted(self, seat: int, actions: list[Action]) -> Action:
        """The action the record takes: a tenpai declaration, a claim of a discard or the
        seat's own turn."""
        if actions[0].type == TENPAI:             # show or hide a tenpai hand at the draw
            i = self._next_decision()
            if i < len(self.rec) and self.rec[i]["type"] == "ryukyoku" and \
                    self.rec[i]["tenpais"][seat]:
                return actions[0]
            return PASS
        if actions[-1].type == PASS.type:         # a claim (PASS sorts last)
            return self._wanted_claim(seat, actions)
        return self._wanted_turn(seat)

    def _wanted_claim(self, seat: int, actions: list[Action]) -> Action:
        """A ron of the discard (or of the kan, the north), a call of it, or PASS."""
        rec = self.rec
        i = self._next_decision()
        j = i
        while j < len(rec) and rec[j]["type"] == "hora":
            if rec[j]["actor"] == seat:
                ron = next((a for a in actions if a.type == RON), None)
                return ron or Action(RON, rec[j]["pai"])
            j += 1
        if i >= len(rec):
            return PASS
        ev = rec[i]
        t = ev["type"]
        if t == "ryukyoku" and ev["reason"] == "sanchaho" and ev["tenpais"][seat]:
            ron = next((a for a in actions if a.type == RON), None)
            return ron or Action(RON)
        if t in ("chi", "pon", "daiminkan") and ev["actor"] == seat:
            return Action(_CALLS[t], ev["pai"], tuple(sorted(ev["consumed"])))
        return PASS

    def _wanted_turn(self, seat: int) -> Action:
        """What the seat does on its turn: the record's next event."""
        rec = self.rec
        if self.pos >= len(rec):
            self.ran_out()
            raise self.fail("the record ended while the engine expected a choice")
        ev = rec[self.pos]
        t = ev["type"]
        if ev.get("actor") != seat and t != "ryukyoku":
            raise self.fail(f"event {self.pos}: the engine asks seat {seat} to act, the record "
                            f"has {t} by seat {ev.get('actor')}")
        if t == "dahai":
            return Action(DISCARD, ev["pai"], (), bool(ev.get("tsumogiri")))
        if t == "reach":
            nxt = rec[self.pos + 1] if self.pos + 1 < len(rec) else None
            if nxt is None:
                self.ran_out()
            if nxt is None or nxt["type"] != "dahai":
                raise self.fail(f"event {self.pos}: riichi without a discard")
            return Action(RIICHI, nxt["pai"], (), bool(nxt.get("tsumogiri")))
        if t == "hora":
            return Action(TSUMO, ev["pai"])
        if t == "ankan":
            return Action(ANKAN, -1, tuple(sorted(ev["consumed"])))
        if t == "kakan":
            return Action(KAKAN, ev["pai"], tuple(ev["consumed"]))
        if t == "ryukyoku" and ev["reason"] == "kyushukyuhai":
            return Action(KYUUSHU)
        if t == "kita":
            return Action(KITA, ev["pai"])
        raise self.fail(f"event {self.pos}: the engine asks seat {seat} to act, the record has "
                        f"{t}")


def replay_events(events: list[Event], rules: RuleSet = DEFAULT_RULES,
                  where: str = "record") -> ReplayReport:
    """Replay a whole-game record; never raises on disagreement (see the report)."""
    try:
        walls = _walls_from_record(events, where)
    except InvalidHandError as exc:
        return ReplayReport(False, message=f"bad record: {exc}")
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        return ReplayReport(False, message=f"bad record: malformed ({exc!r})")
    driver = _RecordDriver(events)
    counter = iter(range(len(walls) + 1))

    def wall_source(position: int, honba: int) -> Wall:
        i = next(counter)
        if i >= len(walls):
            driver.ran_out()
            raise driver.fail("the engine starts a hand the record does not have")
        return walls[i]

    names = next((ev.get("names") for ev in events if ev["type"] == "start_game"), None)
    game = Game(rules, wall_source, driver, names=names or [""] * rules.players,
                on_event=driver.on_event)
    try:
        result = game.run()
    except _RecordEnd:
        return ReplayReport(True, hands=sum(1 for ev in game.events
                                            if ev["type"] == "start_kyoku"),
                            events=driver.pos, decisions=driver.decisions,
                            extra={"incomplete": True})
    except ReplayMismatch as exc:
        return ReplayReport(False, hands=sum(1 for ev in game.events
                                             if ev["type"] == "start_kyoku"),
                            events=driver.pos,
                            decisions=driver.decisions, message=str(exc),
                            index=-1 if exc.index is None else exc.index,
                            expected=exc.expected, got=exc.got)
    except (MjcoreError, KeyError, IndexError, TypeError, ValueError) as exc:
        # a malformed record (or one the engine cannot follow) is a disagreement, not a crash
        what = str(exc) if isinstance(exc, MjcoreError) else f"malformed record ({exc!r})"
        return ReplayReport(False, events=driver.pos, decisions=driver.decisions,
                            message=f"event {driver.pos}: {what}", index=driver.pos,
                            expected=driver.rec[driver.pos] if driver.pos < len(driver.rec)
                            else None)
    if driver.pos != len(driver.rec):
        return ReplayReport(False, hands=result.n_hands, events=driver.pos,
                            decisions=driver.decisions,
                            message=f"the game ended at event {driver.pos} of {len(driver.rec)}",
                            index=driver.pos, expected=driver.rec[driver.pos])
    return ReplayReport(True, hands=result.n_hands, events=driver.pos,
                        decisions=driver.decisions, final_scores=result.scores,
                        final_points=result.final_points, engine_events=result.events)


@dataclass
class RecordOutcome:
    """The outcome of one record file: ``status`` is agree, disagree, skipped or error, with a
    ``detail`` for the last three.
    """
    name: str
    status: str            # "agree", "disagree", "skipped", "error"
    detail: str = ""
    hands: int = 0
    incomplete: bool = False


def replay_source(name: str, data: bytes | MjcoreError,
                  rules: RuleSet | None = None) -> RecordOutcome:
    """Parse one record (mjlog XML or mjai JSON lines) and replay it; ``data`` may be the
    error that kept it from being read (``skipped`` when it is not a regular file)."""
    if isinstance(data, MjcoreError):
        return RecordOutcome(name, "skipped" if getattr(data, "reason", "") == "not_a_file"
                             else "error", str(data))
    from .events import from_mjai_lines
    from .mjlog import _decode, read_mjlog, rules_for_mjlog
    from .tenhou6 import read_tenhou6

    try:
        text = _decode(data, name)
        if text.lstrip().startswith("<"):
            game = read_mjlog(text, name)
            events = game.events
            use = rules or rules_for_mjlog(game)
        else:
            events = (read_tenhou6(text, name) if _is_tenhou6(text)
                      else from_mjai_lines(text.splitlines(), name))
            use = rules or _rules_from_events(events)
    except InvalidHandError as exc:
        return RecordOutcome(name, "error", str(exc))
    except _BAD_RECORD as exc:              # a reader's slip on a malformed record
        return RecordOutcome(name, "error", f"{name}: malformed record ({slip_text(exc)})")
    try:
        return _replay_parsed(name, events, use)
    except _BAD_RECORD as exc:              # the engine refused what the record did
        return RecordOutcome(name, "error", f"{name}: the replay stopped on a malformed "
                             f"record ({slip_text(exc)})")


_BAD_RECORD: tuple[type[Exception], ...] = (MjcoreError, *RECORD_SLIPS)


def _replay_parsed(name: str, events: list[Event], use: RuleSet) -> RecordOutcome:
    start = next((ev for ev in events if ev["type"] == "start_kyoku"), None)
    if start is None:
        return RecordOutcome(name, "error", "no hands in the record")
    players = len(start.get("tehais") or ())
    if players != use.players:
        return RecordOutcome(name, "error", f"a {_PLAYER_WORDS.get(players, str(players))}-"
                             f"player record cannot replay under {use.players}-player rules "
                             f"({use.name})")
    rep = replay_events(events, use, where=name)
    if rep.ok:
        return RecordOutcome(name, "agree", hands=rep.hands,
                             incomplete=bool(rep.extra.get("incomplete")))
    return RecordOutcome(name, "disagree", rep.message, hands=rep.hands)


def _is_tenhou6(text: str) -> bool:
    """A tenhou.net/6 record is one JSON object with a ``log``; mjai is one event a line."""
    import json

    try:
        doc = json.loads(text)
    except (ValueError, RecursionError):
        return False
    return isinstance(doc, dict) and "log" in doc


_PLAYER_WORDS = {3: "three", 4: "four"}


def _rules_from_events(events: list[Event]) -> RuleSet:
    """The rules a self-play record names (its option values, else its preset name); a record
    that names none: ``tenhou``, or ``tenhou_sanma`` when it deals three hands."""
    for ev in events:
        if ev["type"] != "start_game":
            continue
        name = rules_name(ev)
        try:
            if isinstance(ev.get("rule_options"), dict):
                rules = RuleSet.from_dict(ev["rule_options"])
                if name is not None and name != "custom":
                    preset: RuleSet = RuleSet.preset(name)
                    if preset == rules:
                        return preset
                return rules
            if name is not None:
                named: RuleSet = RuleSet.preset(name)
                return named
        except (MjcoreError, TypeError):
            break
    start = next((ev for ev in events if ev["type"] == "start_kyoku"), {})
    if len(start.get("tehais") or ()) == 3:
        return RuleSet.preset("tenhou_sanma")
    return DEFAULT_RULES
