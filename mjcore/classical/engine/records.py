"""Classical game records: one JSON object a line.

The first line of a game is ``{"type": "start_game", ...}`` with the rules, the seed and the
agents; each hand begins with ``start_hand`` (hand index, prevailing wind, East's player, the
scores before the hand and the whole wall in drawing order with its replacement order) and
ends with ``end_hand`` (the scores of all four hands and the settlement); the last line is
``end_game`` with the final scores. The events between are the referee's (tiles written in
mpsz notation, bonus tiles ``1f``..``8f``):

| event | fields |
| --- | --- |
| ``deal`` | ``hands``: the tiles dealt to each seat (East first) |
| ``draw`` / ``loose`` | ``seat``, ``tile``: a live-wall draw / a loose (replacement) tile |
| ``bonus`` | ``seat``, ``tile``: a bonus tile declared (a replacement follows) |
| ``discard`` | ``seat``, ``tile``, ``original_call`` / ``fishing`` (only when declared) |
| ``claim`` | ``seat``, ``tile``, ``call`` (chow, pung, kong, mahjong_claim), ``form``/``use`` |
| ``chow`` / ``pung`` / ``kong`` | ``seat``, ``tile``, ``from`` (the discarder), ``form`` (chow) |
| ``concealed_kong`` / ``add_kong`` | ``seat``, ``tile`` (robbing may follow an added kong) |
| ``mahjong`` | ``seat``, ``tile``, ``from`` (own seat when self-drawn), ``use``, ``robbed`` |
| ``washout`` | |

Seats are 0 = East .. 3 = North of the hand; ``start_hand`` maps them to players.
"""
from __future__ import annotations

import io
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ...errors import InvalidHandError, MjcoreError
from ...errors import RecordMismatch as RecordMismatch  # declared there, re-exported
from ...tiles import BONUS_NAMES, TILE_NAMES

CODE_NAMES: tuple[str, ...] = tuple(TILE_NAMES) + tuple(BONUS_NAMES)
NAME_CODES: dict[str, int] = {n: i for i, n in enumerate(CODE_NAMES)}
_TILE_KEYS = ("tile",)


def record_kind(name: str, head: str) -> tuple[str, str] | None:
    """``("bradfield", ...)`` (a Bradfield hand history) or ``("classical", ...)`` (our
    JSON-lines record), the kind and its words, when ``head``, the first 4 KiB of file
    ``name``, is one, else None (a Bradfield game's ``final.txt`` is no record)."""
    from .bradfield import is_bradfield_text

    if is_bradfield_text(head):
        return "bradfield", "Bradfield hand histories"
    if head.startswith('{"type":"start_game"') and '"dead_wall"' in head:
        return "classical", "classical records"
    return None
_TILE_LIST_KEYS = ("wall",)


def code_name(code: int) -> str:
    """The name of a tile code: a kind (0..33) as mpsz, a bonus tile (34..41) as 1f..8f."""
    return CODE_NAMES[code]


def to_json(ev: dict[str, Any]) -> dict[str, Any]:
    """A copy of an event with tile names instead of codes (hidden tiles: null)."""
    out = dict(ev)
    t = out.get("tile")
    if isinstance(t, int):
        out["tile"] = CODE_NAMES[t] if t >= 0 else None
    if "hands" in out:
        out["hands"] = [[CODE_NAMES[x] if x >= 0 else None for x in h] for h in out["hands"]]
    if "wall" in out:
        out["wall"] = [CODE_NAMES[x] for x in out["wall"]]
    return out


def from_json(ev: dict[str, Any], where: str) -> dict[str, Any]:
    """An event read from a record, tile names turned back into codes."""
    out = dict(ev)
    try:
        t = out.get("tile")
        if isinstance(t, str):
            out["tile"] = NAME_CODES[t]
        if "hands" in out:
            out["hands"] = [[NAME_CODES[x] for x in h] for h in out["hands"]]
        if "wall" in out:
            out["wall"] = [NAME_CODES[x] for x in out["wall"]]
    except (KeyError, TypeError) as exc:
        raise InvalidHandError(f"{where}: unknown tile {exc}", reason="bad_tile") from None
    return out


def write_lines(events: Iterable[dict[str, Any]]) -> Iterator[str]:
    """Events as compact JSON lines (tile names, see :func:`to_json`), without newlines."""
    for ev in events:
        yield json.dumps(to_json(ev), separators=(",", ":"))


def read_record(path: Path) -> list[dict[str, Any]]:
    """The events of a record file (see :func:`read_lines`); InvalidHandError if it is over
    ``mjcore.engine.sources.MAX_RECORD_BYTES``, not a regular file, unreadable or not UTF-8."""
    from ...engine.sources import iter_record_sources

    for name, data in iter_record_sources([str(path)]):
        if not isinstance(data, bytes):
            raise data
        return record_events(name, data)
    raise InvalidHandError(f"{path}: no record", reason="unreadable")


def record_events(path: str, data: bytes) -> list[dict[str, Any]]:
    """The events of a record's bytes (see :func:`read_lines`)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidHandError(f"{path}: not UTF-8 text (byte {exc.start})",
                               reason="bad_json") from None
    return read_lines(io.StringIO(text, newline=None), str(path))


def read_lines(lines: Iterable[str], where: str = "record") -> list[dict[str, Any]]:
    """Parse a JSON-lines record; malformed lines raise InvalidHandError naming the line."""
    events = []
    for n, line in enumerate(lines, 1):
        line = line.strip()
        if not line:
            continue
        try:
            ev = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InvalidHandError(f"{where} line {n}: not JSON ({exc.msg})",
                                   reason="bad_json") from None
        except RecursionError:
            raise InvalidHandError(f"{where} line {n}: not JSON (nested too deeply)",
                                   reason="bad_json") from None
        if not isinstance(ev, dict) or not isinstance(ev.get("type"), str):
            raise InvalidHandError(f"{where} line {n}: an event must be an object with a "
                                   "'type'", reason="bad_event")
        ev = from_json(ev, f"{where} line {n}")
        ev["_line"] = n
        events.append(ev)
    return events


def replay_record(events: list[dict[str, Any]], where: str = "record") -> int:
    """Replay a game record (engine events, tiles as codes) through the referee: each hand
    from its recorded wall, with the recorded choices; every event must come out the same.
    Returns the number of events compared; raises RecordMismatch at the first difference."""
    from ..rules import ClassicalRules

    rules = None
    compared = 0
    i = 0
    n = len(events)
    while i < n:
        ev = events[i]
        t = ev["type"]
        if t == "start_game":
            try:
                rules = ClassicalRules.from_dict(ev["rules"])
            except (KeyError, TypeError, ValueError) as exc:
                raise RecordMismatch(f"{where}: start_game has no valid rules ({exc})",
                                     reason="bad_record") from None
            i += 1
            continue
        if t != "start_hand":
            i += 1
            continue
        if rules is None:
            raise RecordMismatch(f"{where}: a hand before start_game", reason="bad_record")
        j = i + 1
        while j < n and events[j]["type"] not in ("end_hand", "start_hand", "end_game"):
            j += 1
        body = events[i + 1:j]
        label = f"{where} hand {ev.get('index', '?')}"
        try:
            produced, result = _replay_hand(rules, ev, body, label)
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise RecordMismatch(f"{label}: malformed event ({exc!r})",
                                 reason="bad_record") from None
        recorded = [{k: v for k, v in e.items() if k != "_line"} for e in body]
        for k, (mine, theirs) in enumerate(zip(produced, recorded, strict=False)):
            if mine != theirs:
                raise RecordMismatch(f"{label} event {k + 1}: replayed {to_json(mine)}, "
                                     f"recorded {to_json(theirs)}", reason="mismatch")
        if len(produced) != len(recorded):
            raise RecordMismatch(f"{label}: replayed {len(produced)} events, recorded "
                                 f"{len(recorded)}", reason="mismatch")
        compared += len(produced)
        if j < n and events[j]["type"] == "end_hand":
            _check_settlement(rules, ev, result, events[j], label)
        i = j
    return compared


def _check_settlement(rules: Any, start: dict[str, Any], result: Any, end: dict[str, Any],
                      label: str) -> None:
    """The hand scored again must settle as the record's ``end_hand`` says."""
    from .game import let_off_cannon, score_result

    cannon = (let_off_cannon(result, result.wins[0])
              if rules.cannon_liability and len(result.wins) == 1 else None)
    try:
        net, _ = score_result(result, rules, start["prevailing"],
                              east_streak=start.get("east_streak", 0), cannon=cannon)
    except MjcoreError as exc:
        raise RecordMismatch(f"{label}: scoring the replayed hand: {exc}",
                             reason="mismatch") from None
    if net != end.get("net"):
        raise RecordMismatch(f"{label}: the replayed hand settles {net}, the record says "
                             f"{end.get('net')}", reason="mismatch")


def _replay_hand(rules: Any, ev: dict[str, Any], body: list[dict[str, Any]],
                 label: str) -> tuple[list[dict[str, Any]], Any]:
    """Play one recorded hand again from its wall and choices: the events it produces and
    its result."""
    from .handcalc import USE_NAMES
    from .referee import (
        ADD_KONG,
        CHOW,
        CONCEALED_KONG,
        DISCARD,
        FISHING,
        KONG,
        MAHJONG,
        MAHJONG_CLAIM,
        ORIGINAL_CALL,
        PASS,
        PUNG,
        Action,
        ActionType,
        ClassicalHand,
    )
    from .wall import ClassicalWall

    calls = {"chow": CHOW, "pung": PUNG, "kong": KONG, "mahjong_claim": MAHJONG_CLAIM}
    turns: list[list[Action]] = [[], [], [], []]
    claims: dict[tuple[int, int], Action] = {}
    serial = 0
    for e in body:
        et = e["type"]
        if et in ("discard", "concealed_kong", "add_kong"):
            serial += 1
            kind = {"discard": ORIGINAL_CALL if e.get("original_call") else
                    FISHING if e.get("fishing") else DISCARD,
                    "concealed_kong": CONCEALED_KONG, "add_kong": ADD_KONG}[et]
            turns[e["seat"]].append(Action(kind, e["tile"]))
        elif et == "claim":
            form = e.get("form", -1)
            if "use" in e:
                form = USE_NAMES.index(e["use"])
            claims[(serial, e["seat"])] = Action(calls[e["call"]], e["tile"], form)
        elif et == "mahjong" and e["from"] == e["seat"]:
            turns[e["seat"]].append(Action(MAHJONG, e["tile"]))
    pos = [0, 0, 0, 0]
    state = {"serial": 0}

    def decide(seat: int, actions: list[Action]) -> Action:
        if actions[0].type == ActionType.PASS:
            return claims.get((state["serial"], seat), PASS)
        if pos[seat] >= len(turns[seat]):
            raise RecordMismatch(f"{label}: seat {seat} must act but the record has no "
                                 "more choices for it", reason="bad_record")
        a = turns[seat][pos[seat]]
        pos[seat] += 1
        return a

    produced: list[dict[str, Any]] = []

    def observe(e: dict[str, Any]) -> None:
        if e["type"] in ("discard", "concealed_kong", "add_kong"):
            state["serial"] += 1
        produced.append(e)

    try:
        wall = ClassicalWall(ev["wall"], ev["tail"], rules.dead_wall, tuple(ev["dice"]),
                             where=label)
        hand = ClassicalHand(rules, wall, decide, prevailing=ev["prevailing"],
                             emit=observe)
        result = hand.play()
    except (KeyError, TypeError) as exc:
        raise RecordMismatch(f"{label}: malformed start_hand ({exc!r})",
                             reason="bad_record") from None
    except MjcoreError as exc:
        raise RecordMismatch(f"{label}: {exc}", reason="bad_record") from None
    return produced, result
