"""Game events: the record format of the engines.

An event is a small dict in the vocabulary of the mjai protocol (``start_game``, ``start_kyoku``,
``tsumo``, ``dahai``, ``chi``, ``pon``, ``daiminkan``, ``kakan``, ``ankan``, ``dora``, ``reach``,
``reach_accepted``, ``hora``, ``ryukyoku``, ``end_kyoku``, ``end_game``; with three players
``kita``, a north set aside: ``{"type": "kita", "actor": seat, "pai": "N"}``). Inside the
engine tiles are Tenhou 136-ids (so every physical tile is tracked); :func:`to_mjai` turns them
into mjai tile names (``5m``, ``5mr`` for a red five, ``E S W N P F C`` for honors) for
writing, and :class:`TilePool` turns names back into ids when reading.

A self-play record's ``start_game`` carries, beside mjai's ``names``, two extension keys:
``mjcore_rules`` (the preset name, or ``custom``) and ``rule_options`` (every option,
``RuleSet.to_dict``). Records written before the extension was renamed have ``rules``
instead of ``mjcore_rules``; a string there is still read (:func:`rules_name`).
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from ..errors import InvalidHandError

Event = dict[str, Any]

RED_IDS = frozenset((16, 52, 88))
_KIND_NAMES = ([f"{n}m" for n in range(1, 10)] + [f"{n}p" for n in range(1, 10)]
               + [f"{n}s" for n in range(1, 10)] + ["E", "S", "W", "N", "P", "F", "C"])
MJAI_NAMES: tuple[str, ...] = tuple(
    _KIND_NAMES[i // 4] + ("r" if i in RED_IDS else "") for i in range(136))
UNKNOWN = "?"
_NAME_TO_IDS: dict[str, tuple[int, ...]] = {}
for _i, _n in enumerate(MJAI_NAMES):
    _NAME_TO_IDS.setdefault(_n, ())
    _NAME_TO_IDS[_n] += (_i,)
WIND_NAMES = ("E", "S", "W", "N")

_TILE_KEYS = ("pai", "dora_marker")
_TILE_LIST_KEYS = ("consumed", "uradora_markers", "hora_tehais")


def rules_name(start: Event) -> str | None:
    """The rule preset a ``start_game`` names: ``mjcore_rules``, or ``rules`` as records
    written before the rename have it (only a string: other tools put other things there)."""
    for key in ("mjcore_rules", "rules"):
        if isinstance(start.get(key), str):
            return str(start[key])
    return None


def tile_class(tile: int) -> int:
    """Kind * 2 + red: the identity of a tile for the rules (copies other than red are equal)."""
    return (tile >> 2) * 2 + (tile in RED_IDS)


def to_mjai(event: Event) -> Event:
    """A copy of an engine event with mjai tile names instead of 136-ids."""
    out = dict(event)
    for key in _TILE_KEYS:
        v = out.get(key)
        if isinstance(v, int):
            out[key] = MJAI_NAMES[v] if v >= 0 else UNKNOWN
    for key in _TILE_LIST_KEYS:
        v = out.get(key)
        if v is not None:
            out[key] = [MJAI_NAMES[t] for t in v]
    if "tehais" in out:
        out["tehais"] = [[MJAI_NAMES[t] if t >= 0 else UNKNOWN for t in hand]
                         for hand in out["tehais"]]
    return out


class TilePool:
    """Hands out 136-ids for mjai tile names, each physical tile at most once."""

    def __init__(self) -> None:
        self._free = {name: list(ids) for name, ids in _NAME_TO_IDS.items()}
        self.given: dict[int, str] = {}

    def take(self, name: str, where: str = "") -> int:
        """A free 136-id for the mjai tile ``name``; InvalidHandError when none is left."""
        free = self._free.get(name)
        if free is None:
            raise InvalidHandError(f"{where}: unknown mjai tile {name!r}", reason="bad_tile")
        if not free:
            raise InvalidHandError(f"{where}: a fifth copy of {name!r}", reason="too_many_copies")
        return free.pop(0)


def from_mjai_lines(lines: Iterable[str], where: str = "record") -> list[Event]:
    """Parse mjai JSON lines into engine events (tiles as 136-ids).

    Tiles a player draws and later discards or calls keep the same id; each new tile seen gets a
    fresh id of its name. Raises InvalidHandError on malformed input.
    """
    events: list[Event] = []
    pool = TilePool()
    ura: list[int] | None = None
    hands: list[list[int]] = [[], [], [], []]
    meld_tiles: list[list[int]] = [[], [], [], []]

    def own(seat: int, name: str, pos: str) -> int:
        for t in hands[seat]:
            if MJAI_NAMES[t] == name:
                return t
        raise InvalidHandError(f"{pos}: seat {seat} does not hold {name}", reason="tile_not_held")

    for n, line in enumerate(lines, 1):
        line = line.strip()
        if not line:
            continue
        pos = f"{where} line {n}"
        try:
            ev = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InvalidHandError(f"{pos}: not JSON ({exc.msg})", reason="bad_json") from None
        except RecursionError:
            raise InvalidHandError(f"{pos}: not JSON (nested too deeply)",
                                   reason="bad_json") from None
        if not isinstance(ev, dict) or not isinstance(ev.get("type"), str):
            raise InvalidHandError(f"{pos}: an event must be an object with a 'type'",
                                   reason="bad_event")
        t = ev["type"]
        try:
            if t == "start_kyoku":
                ura = None
                pool = TilePool()
                hands = [[pool.take(x, pos) for x in h] for h in ev["tehais"]]
                meld_tiles = [[], [], [], []]
                ev["tehais"] = [list(h) for h in hands]
                ev["dora_marker"] = pool.take(ev["dora_marker"], pos)
            elif t == "tsumo":
                tile = pool.take(ev["pai"], pos)
                hands[ev["actor"]].append(tile)
                ev["pai"] = tile
            elif t == "dahai":
                a = ev["actor"]
                tile = own(a, ev["pai"], pos)
                if ev.get("tsumogiri") and hands[a] and MJAI_NAMES[hands[a][-1]] == ev["pai"]:
                    tile = hands[a][-1]
                hands[a].remove(tile)
                ev["pai"] = tile
            elif t in ("chi", "pon", "daiminkan"):
                a = ev["actor"]
                called = events_last_discard(events, ev["target"], ev["pai"], pos)
                cons = []
                for x in ev["consumed"]:
                    c = own(a, x, pos)
                    hands[a].remove(c)
                    cons.append(c)
                ev["pai"] = called
                ev["consumed"] = cons
                meld_tiles[a].extend(cons + [called])
            elif t == "kakan":
                a = ev["actor"]
                tile = own(a, ev["pai"], pos)
                hands[a].remove(tile)
                cons = []
                for x in ev["consumed"]:
                    m = next(m for m in meld_tiles[a] if MJAI_NAMES[m] == x and m not in cons)
                    cons.append(m)
                ev["pai"] = tile
                ev["consumed"] = cons
                meld_tiles[a].append(tile)
            elif t == "kita":
                a = ev["actor"]
                tile = own(a, ev["pai"], pos)
                hands[a].remove(tile)
                ev["pai"] = tile
            elif t == "ankan":
                a = ev["actor"]
                cons = []
                for x in ev["consumed"]:
                    c = own(a, x, pos)
                    hands[a].remove(c)
                    cons.append(c)
                ev["consumed"] = cons
            elif t == "dora":
                ev["dora_marker"] = pool.take(ev["dora_marker"], pos)
            elif t == "hora":
                ev["pai"] = _hora_tile(events, ev, hands, pos)
                if "uradora_markers" in ev:
                    if ura is None:       # a double ron shows the same indicators twice
                        ura = [pool.take(x, pos) for x in ev["uradora_markers"]]
                    ev["uradora_markers"] = list(ura)
                ev.pop("hora_tehais", None)
        except (KeyError, TypeError, IndexError, StopIteration, AttributeError) as exc:
            raise InvalidHandError(f"{pos}: malformed {t} event ({exc!r})",
                                   reason="bad_event") from None
        events.append(ev)
    return events


def events_last_discard(events: list[Event], target: int, name: str, pos: str) -> int:
    """The 136-id of ``target``'s last discard, which must be the named tile (a call)."""
    for ev in reversed(events):
        if ev["type"] == "dahai":
            if ev["actor"] == target and MJAI_NAMES[ev["pai"]] == name:
                return int(ev["pai"])
            break
    raise InvalidHandError(f"{pos}: the call does not take seat {target}'s last discard {name}",
                           reason="bad_call")


def _hora_tile(events: list[Event], ev: Event, hands: list[list[int]], pos: str) -> int:
    if ev["actor"] == ev["target"]:
        return hands[ev["actor"]][-1]
    for prev in reversed(events):
        if prev["type"] in ("dahai", "kakan", "ankan", "kita"):
            return int(prev["pai"]) if prev["type"] != "ankan" else int(prev["consumed"][0])
    raise InvalidHandError(f"{pos}: ron without a discard", reason="bad_event")


def write_mjai(events: Iterable[Event]) -> Iterator[str]:
    """mjai JSON lines of a record."""
    for ev in events:
        yield json.dumps(to_mjai(ev), separators=(",", ":"), ensure_ascii=False)
