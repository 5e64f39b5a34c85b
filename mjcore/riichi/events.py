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
from collections.abc import Callable, Iterable, Iterator
from typing import Any, ClassVar

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
    reader = _MjaiReader()
    handlers = _MjaiReader.HANDLERS
    events = reader.events
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
        handler = handlers.get(t)
        if handler is not None:
            try:
                handler(reader, ev, pos)
            except (KeyError, TypeError, IndexError, StopIteration, AttributeError) as exc:
                raise InvalidHandError(f"{pos}: malformed {t} event ({exc!r})",
                                       reason="bad_event") from None
        events.append(ev)
    return events


class _MjaiReader:
    """What an mjai record's events say so far, one handler per event type (``HANDLERS``, each
    turning the event's tile names into 136-ids): the tiles handed out in the hand in play
    (``pool``), each seat's concealed tiles and called tiles, and the events read."""

    __slots__ = ("events", "pool", "ura", "hands", "meld_tiles")

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.pool = TilePool()
        self.ura: list[int] | None = None
        self.hands: list[list[int]] = [[], [], [], []]
        self.meld_tiles: list[list[int]] = [[], [], [], []]

    def own(self, seat: int, name: str, pos: str) -> int:
        """A 136-id of the named tile among ``seat``'s concealed tiles (the first one held)."""
        for t in self.hands[seat]:
            if MJAI_NAMES[t] == name:
                return t
        raise InvalidHandError(f"{pos}: seat {seat} does not hold {name}", reason="tile_not_held")

    def give_up(self, seat: int, name: str, pos: str) -> int:
        """The 136-id of the named tile, taken out of ``seat``'s concealed tiles."""
        tile = self.own(seat, name, pos)
        self.hands[seat].remove(tile)
        return tile

    def start_kyoku(self, ev: Event, pos: str) -> None:
        self.ura = None
        self.pool = pool = TilePool()
        self.hands = [[pool.take(x, pos) for x in h] for h in ev["tehais"]]
        self.meld_tiles = [[], [], [], []]
        ev["tehais"] = [list(h) for h in self.hands]
        ev["dora_marker"] = pool.take(ev["dora_marker"], pos)

    def tsumo(self, ev: Event, pos: str) -> None:
        tile = self.pool.take(ev["pai"], pos)
        self.hands[ev["actor"]].append(tile)
        ev["pai"] = tile

    def dahai(self, ev: Event, pos: str) -> None:
        a = ev["actor"]
        tile = self.own(a, ev["pai"], pos)
        hand = self.hands[a]
        if ev.get("tsumogiri") and hand and MJAI_NAMES[hand[-1]] == ev["pai"]:
            tile = hand[-1]
        hand.remove(tile)
        ev["pai"] = tile

    def call(self, ev: Event, pos: str) -> None:
        """chi, pon or an open kan of the target's last discard."""
        a = ev["actor"]
        called = events_last_discard(self.events, ev["target"], ev["pai"], pos)
        cons = [self.give_up(a, x, pos) for x in ev["consumed"]]
        ev["pai"] = called
        ev["consumed"] = cons
        self.meld_tiles[a].extend(cons + [called])

    def kakan(self, ev: Event, pos: str) -> None:
        a = ev["actor"]
        tile = self.give_up(a, ev["pai"], pos)
        cons: list[int] = []
        for x in ev["consumed"]:
            cons.append(next(m for m in self.meld_tiles[a] if MJAI_NAMES[m] == x
                             and m not in cons))
        ev["pai"] = tile
        ev["consumed"] = cons
        self.meld_tiles[a].append(tile)

    def kita(self, ev: Event, pos: str) -> None:
        ev["pai"] = self.give_up(ev["actor"], ev["pai"], pos)

    def ankan(self, ev: Event, pos: str) -> None:
        a = ev["actor"]
        ev["consumed"] = [self.give_up(a, x, pos) for x in ev["consumed"]]

    def dora(self, ev: Event, pos: str) -> None:
        ev["dora_marker"] = self.pool.take(ev["dora_marker"], pos)

    def hora(self, ev: Event, pos: str) -> None:
        ev["pai"] = _hora_tile(self.events, ev, self.hands, pos)
        if "uradora_markers" in ev:
            if self.ura is None:       # a double ron shows the same indicators twice
                self.ura = [self.pool.take(x, pos) for x in ev["uradora_markers"]]
            ev["uradora_markers"] = list(self.ura)
        ev.pop("hora_tehais", None)

    HANDLERS: ClassVar[dict[str, Callable[[_MjaiReader, Event, str], None]]] = {
        "start_kyoku": start_kyoku, "tsumo": tsumo, "dahai": dahai, "chi": call, "pon": call,
        "daiminkan": call, "kakan": kakan, "kita": kita, "ankan": ankan, "dora": dora,
        "hora": hora}


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
