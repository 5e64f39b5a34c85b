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
| ``discard`` | ``seat``, ``tile``, ``original_call`` (only when declared) |
| ``claim`` | ``seat``, ``tile``, ``call`` (chow, pung, kong, mahjong_claim), ``form``/``use`` |
| ``chow`` / ``pung`` / ``kong`` | ``seat``, ``tile``, ``from`` (the discarder), ``form`` (chow) |
| ``concealed_kong`` / ``add_kong`` | ``seat``, ``tile`` (robbing may follow an added kong) |
| ``mahjong`` | ``seat``, ``tile``, ``from`` (own seat when self-drawn), ``use``, ``robbed`` |
| ``washout`` | |

Seats are 0 = East .. 3 = North of the hand; ``start_hand`` maps them to players.
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from ...errors import InvalidHandError
from ...tiles import BONUS_NAMES, TILE_NAMES

CODE_NAMES: tuple[str, ...] = tuple(TILE_NAMES) + tuple(BONUS_NAMES)
NAME_CODES: dict[str, int] = {n: i for i, n in enumerate(CODE_NAMES)}
_TILE_KEYS = ("tile",)
_TILE_LIST_KEYS = ("wall",)


def code_name(code: int) -> str:
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
        raise InvalidHandError(f"{where}: unknown tile {exc}", reason="unknown_tile") from None
    return out


def write_lines(events: Iterable[dict[str, Any]]) -> Iterator[str]:
    for ev in events:
        yield json.dumps(to_json(ev), separators=(",", ":"))


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
        if not isinstance(ev, dict) or not isinstance(ev.get("type"), str):
            raise InvalidHandError(f"{where} line {n}: an event must be an object with a "
                                   "'type'", reason="bad_event")
        ev = from_json(ev, f"{where} line {n}")
        ev["_line"] = n
        events.append(ev)
    return events
