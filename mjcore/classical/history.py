"""Read J. Bradfield's Mah-Jong (``mj-server --hand-history``) hand histories.

One ``.mjs`` file is one hand: one protocol message a line (a line ending in ``\\`` goes on
on the next line). :func:`parse_history` turns one file's text into a :class:`HandHistory`;
:func:`read_histories` reads a file, a folder (every ``*.mjs`` below it, in game and hand
order) or a ``.tar.xz``/``.tar.gz``/``.tar`` archive of them.

Seats are 0 = East .. 3 = North of the hand; Bradfield's player ids (1..4) are kept in
``players`` and on each event. Tiles are tile codes: 0..33 the ordinary kinds of
``mjcore.tiles`` (``1C`` = ``1m``, ``1D`` = ``1p``, ``1B`` = ``1s``, ``EW`` = ``1z`` ..
``NW`` = ``4z``, ``WD`` = ``5z``, ``GD`` = ``6z``, ``RD`` = ``7z``) and 34..41 the bonus
tiles ``1f``..``8f`` (``1F``..``4F`` flowers, ``1S``..``4S`` seasons): code = 34 + bonus id.

What a hand history holds (all in :class:`HandHistory`):

- ``players``: ``(player id, name)`` by seat, from the ``Player`` lines (East first);
- ``game``: the ``Game`` line (prevailing wind, East's run of wins, scores before the hand);
- ``options``: the ``GameOption`` values by name and ``rules`` (a ``ClassicalRules``);
- ``wall``: every tile of the wall in drawing order;
- ``events``: every other message in order (:class:`Event`), the scoring ones included;
- ``scores``: each player's :class:`HandScore` (by seat; empty after a wash-out);
- ``settlement``: the :class:`Settlement` (None after a wash-out).

Malformed input raises :class:`HistoryError` naming the file, the line and the reason.
"""
from __future__ import annotations

import gc
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import NamedTuple

from ..errors import RECORD_SLIPS, HistoryError, MjcoreError, slip_text
from ..files import is_tar_name
from .rules import ClassicalRules
from .scoring import Payment  # a Settlement line reads into the scorer's own payments

BONUS_BASE = 34
N_TILE_CODES = 42
SEAT_NAMES = ("East", "South", "West", "North")
_WINDS = "ESWN"


def _tile_table() -> dict[str, int]:
    table: dict[str, int] = {}
    for suit, base in (("C", 0), ("D", 9), ("B", 18)):
        for n in range(1, 10):
            table[f"{n}{suit}"] = base + n - 1
    for i, w in enumerate(("EW", "SW", "WW", "NW", "WD", "GD", "RD")):
        table[w] = 27 + i
    for n in range(1, 5):
        table[f"{n}F"] = BONUS_BASE + n - 1
        table[f"{n}S"] = BONUS_BASE + 4 + n - 1
    return table


TILE_CODES: dict[str, int] = _tile_table()
TILE_TEXT: dict[int, str] = {v: k for k, v in TILE_CODES.items()}


def parse_tile(text: str) -> int:
    """Bradfield's tile name (``5D``, ``RD``, ``2S``) -> tile code; KeyError if unknown."""
    return TILE_CODES[text]


def tile_text(code: int) -> str:
    """Tile code -> Bradfield's tile name."""
    return TILE_TEXT[code]


class Event(NamedTuple):
    """One message of the hand: ``kind`` is the message name (``PlayerDiscards``,
    ``PlayerPungs``, ``PlayerMahJongs`` ...). ``player`` is the player id it is about and
    ``seat`` that player's seat (None for messages about no player); ``tile`` the tile it
    names (None if none; ``--`` is None); ``args`` the remaining fields as written;
    ``line`` the 1-based line number in the file. Immutable (a named tuple: a hand holds
    hundreds of events and a game thousands, so they must be cheap to build)."""

    kind: str
    player: int | None
    seat: int | None
    tile: int | None
    args: tuple[str, ...]
    line: int


@dataclass(frozen=True)
class GameInfo:
    """The ``Game`` line: the ids as listed, the prevailing wind (0 = East .. 3 = North),
    ``east_wins`` (the field after the wind: how many hands in a row the current East has
    won), the next field as written, the scores before this hand by player id, and the
    protocol version."""

    ids: tuple[int, int, int, int]
    prevailing_wind: int
    east_wins: int
    field7: int
    scores: dict[int, int]
    protocol: int


@dataclass(frozen=True)
class ScoreItem:
    """One line of a HandScore. ``label`` is what is scored (``RD+RD+RD``, ``basic``,
    ``extra``, ``3 specials``, ``Limit Hand``, or "" for a whole-hand double); exactly one of
    ``points``, ``doubles`` and ``limit`` is set (the others are 0); ``reason`` is the text in
    parentheses (``closed pung of majors``)."""

    label: str
    points: int
    doubles: int
    limit: int
    reason: str

    def __str__(self) -> str:
        if self.doubles:
            return f"{self.label} {self.doubles} dbl ({self.reason})".strip()
        return f"{self.label} {self.limit or self.points} ({self.reason})".strip()


@dataclass(frozen=True)
class HandScore:
    """One player's scored hand: the items in order, ``total_points``, ``total_doubles``
    (None for a limit hand), ``over_limit`` (the uncapped score when it exceeded the limit,
    else None) and ``score`` (the final SCORE)."""

    player: int
    seat: int
    items: tuple[ScoreItem, ...]
    total_points: int | None
    total_doubles: int | None
    over_limit: int | None
    score: int
    line: int


@dataclass(frozen=True)
class Settlement:
    """Net change of each seat (East first), the payments listed, and the seat that let off
    a cannon (None if nobody did)."""

    net: tuple[int, int, int, int]
    payments: tuple[Payment, ...]
    cannon: int | None
    line: int


@dataclass(frozen=True)
class HandHistory:
    """One hand of one game, as read from its ``.mjs`` file. ``game`` and ``hand`` number the
    hand when the file name says (``game-N/hand-KK.mjs``), else None."""

    source: str
    game_number: int | None
    hand_number: int | None
    players: tuple[tuple[int, str], ...]
    game: GameInfo
    options: dict[str, int | str]
    rules: ClassicalRules
    wall: tuple[int, ...]
    events: tuple[Event, ...]
    scores: dict[int, HandScore] = field(default_factory=dict)
    settlement: Settlement | None = None

    def seat_of(self, player: int) -> int:
        """The seat (0 = East) of a player id."""
        for seat, (pid, _) in enumerate(self.players):
            if pid == player:
                return seat
        raise KeyError(player)

    @property
    def east_streak(self) -> int:
        """East's run of wins before this hand: the Game line's count when that line lists
        this hand's East first. mj-server can leave the previous seating and count on the
        Game line after the deal has passed (seen in a fresh game: the count 12 kept for the
        new East, whose win it then scored as an ordinary hand); then the run is 0."""
        return self.game.east_wins if self.game.ids[0] == self.players[0][0] else 0

    @property
    def finished(self) -> bool:
        """True if somebody went Mah-Jong (a robbed kong is a Mah-Jong without the
        PlayerMahJongs message); a wash-out is not."""
        return any(e.kind in ("PlayerMahJongs", "PlayerRobsKong") for e in self.events)

    @property
    def label(self) -> str:
        """The hand as "game N hand K" when the file name numbers it, else its source."""
        if self.game_number is not None and self.hand_number is not None:
            return f"game {self.game_number} hand {self.hand_number}"
        return self.source


# ---------------------------------------------------------------------------------------

_NAME_RE = re.compile(r"game-(\d+)[/\\]hand-(\d+)\.mjs$")
_ITEM_RE = re.compile(r"^(?P<label>.*?)\s*(?P<n>-?\d+)(?P<dbl> dbls?)? \((?P<reason>[^()]*)\)$")
# Events whose second field is a player id, and which of their fields is a tile (by index
# after the player id); the others are kept in ``args``.
_TILE_FIELD = {
    "PlayerDraws": 0, "PlayerDrawsLoose": 0, "PlayerDeclaresSpecial": 0, "PlayerDiscards": 0,
    "PlayerChows": 0, "PlayerPungs": 0, "PlayerKongs": 0, "PlayerPairs": 0,
    "PlayerDeclaresClosedKong": 0, "PlayerAddsToPung": 0, "PlayerRobsKong": 0,
    "PlayerMahJongs": 0, "PlayerFormsClosedChow": 0, "PlayerFormsClosedPung": 0,
    "PlayerFormsClosedPair": 0, "PlayerFormsClosedKong": 0, "PlayerFormsClosedSpecialSet": None,
    "PlayerShowsTiles": None, "PlayerClaimsChow": None, "PlayerClaimsPung": None,
    "PlayerClaimsKong": None, "PlayerClaimsMahJong": None, "PlayerDoesntClaim": None,
    "PlayerReady": None, "DangerousDiscard": None, "PlayerSpecialSet": None,
    "PlayerPairsSpecial": None,
}


def _physical_lines(text: str) -> list[str]:
    """The lines of ``text`` split at LF, each without one trailing CR."""
    if "\r" not in text:
        return text.split("\n")
    lines = text.split("\r\n")
    if len(lines) == text.count("\n") + 1:       # every LF follows a CR (the shipped files)
        if lines[-1][-1:] == "\r":
            lines[-1] = lines[-1][:-1]
        return lines
    text = text.replace("\r\n", "\n")
    return (text[:-1] if text[-1:] == "\r" else text).split("\n")


def _logical_lines(text: str) -> Iterable[tuple[int, str]]:
    """Join continued lines; each result keeps the number of its first physical line. A line
    loses one trailing carriage return (the shipped histories end their lines with CR LF)."""
    lines = _physical_lines(text)
    # the lines before the first backslash need no work (in a history: all up to the scores)
    first = text.find("\\")
    if first < 0:
        return enumerate(lines, 1)
    plain = text.count("\n", 0, first)
    out: list[tuple[int, str]] = []
    buf: list[str] = []
    start = 0
    for i in range(plain, len(lines)):
        raw = lines[i]
        if raw[-1:] == "\\":
            if not buf:
                start = i + 1
            buf.append(raw[:-1])
        elif buf:
            buf.append(raw)
            out.append((start, "\n".join(buf)))
            buf = []
        else:
            out.append((i + 1, raw))
    if buf:
        out.append((start, "\n".join(buf)))
    return chain(enumerate(lines[:plain], 1), out)


def _int(source: str, line: int, text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise HistoryError(source, line, f"{what} {text!r} is not a number") from None


def _tile(source: str, line: int, text: str) -> int:
    try:
        return TILE_CODES[text]
    except KeyError:
        raise HistoryError(source, line, f"unknown tile {text!r}") from None


_HEADER_LINES = frozenset(("Player", "Game", "GameOption", "Wall", "NewHand", "HandScore",
                           "Settlement"))
# GameOption lines and the rules they make repeat from hand to hand: read each once
_OPTION_CACHE: dict[str, tuple[str, int | str]] = {}
_RULES_CACHE: dict[tuple[tuple[str, int | str], ...], ClassicalRules] = {}


def _option(source: str, lineno: int, rest: str) -> tuple[str, int | str]:
    """(name, value) of a GameOption line (``rest``: the fields after ``GameOption``)."""
    f = rest.split()
    if len(f) < 6:
        raise HistoryError(source, lineno, "malformed GameOption line")
    name, kind, value = f[1], f[2], f[5]
    return name, (value if kind == "string"
                  else _int(source, lineno, value, f"option {name} value"))


class _Headers:
    """The header lines of one history (Player, Game, GameOption, Wall, NewHand, HandScore,
    Settlement) as they are read; ``seat_of`` checks them once all are in."""

    __slots__ = ("east_id", "game", "options", "players", "score_lines", "settlement_line",
                 "source", "wall")

    def __init__(self, source: str) -> None:
        self.source = source
        self.players: list[tuple[int, str]] = []
        self.game: GameInfo | None = None
        self.options: dict[str, int | str] = {}
        self.wall: tuple[int, ...] | None = None
        self.score_lines: list[tuple[int, str]] = []
        self.settlement_line: tuple[int, str] | None = None
        self.east_id: int | None = None

    def read(self, head: str, lineno: int, rest: str) -> None:
        if head == "Player":
            f = rest.split(" ", 1)
            pid = _int(self.source, lineno, f[0], "player id")
            self.players.append((pid, f[1] if len(f) > 1 else ""))
        elif head == "Game":
            self.game = _game_info(self.source, lineno, rest)
        elif head == "GameOption":
            option = _OPTION_CACHE.get(rest)
            if option is None:
                option = _option(self.source, lineno, rest)
                if len(_OPTION_CACHE) < _EVENT_CACHE_MAX:
                    _OPTION_CACHE[rest] = option
            self.options[option[0]] = option[1]
        elif head == "Wall":
            try:
                self.wall = tuple(map(TILE_CODES.__getitem__, rest.split()))
            except KeyError as e:
                raise HistoryError(self.source, lineno, f"unknown tile {e.args[0]!r}") from None
        elif head == "NewHand":
            f = rest.split()
            if not f:
                raise HistoryError(self.source, lineno, "malformed NewHand line")
            self.east_id = _int(self.source, lineno, f[0], "player id")
        elif head == "HandScore":
            self.score_lines.append((lineno, rest))
        elif head == "Settlement":
            self.settlement_line = (lineno, rest)

    def seat_of(self) -> dict[int, int]:
        """Each player id's seat; raises unless there are four distinct players, a Game and a
        Wall line, and NewHand's East is the first player."""
        source, players = self.source, self.players
        if len(players) != 4:
            raise HistoryError(source, None, f"expected 4 Player lines, found {len(players)}")
        if self.game is None:
            raise HistoryError(source, None, "no Game line")
        if self.wall is None:
            raise HistoryError(source, None, "no Wall line")
        if self.east_id is not None and players[0][0] != self.east_id:
            raise HistoryError(source, None, f"the first Player line ({players[0][0]}) is not "
                                             f"NewHand's East ({self.east_id})")
        seat_of = {pid: seat for seat, (pid, _) in enumerate(players)}
        if len(seat_of) != 4:
            raise HistoryError(source, None, "player ids are not distinct")
        return seat_of


def _game_info(source: str, lineno: int, rest: str) -> GameInfo:
    """A Game line (``rest``: the fields after ``Game``)."""
    f = rest.split()
    if len(f) < 12 or f[4] not in _WINDS or len(f[4]) != 1:
        raise HistoryError(source, lineno, "malformed Game line")
    ids = tuple(_int(source, lineno, x, "player id") for x in f[:4])
    before = [_int(source, lineno, x, "score") for x in f[7:11]]
    return GameInfo(ids=ids, prevailing_wind=_WINDS.index(f[4]),  # type: ignore[arg-type]
                    east_wins=_int(source, lineno, f[5], "field"),
                    field7=_int(source, lineno, f[6], "field"),
                    scores=dict(zip(ids, before, strict=True)),
                    protocol=_int(source, lineno, f[11], "protocol"))


def _rules_of(source: str, options: dict[str, int | str]) -> ClassicalRules:
    """The rules of a hand's GameOption lines (the same options make the same rules)."""
    rules_key = tuple(options.items())
    rules = _RULES_CACHE.get(rules_key)
    if rules is None:
        try:
            rules = ClassicalRules.from_bradfield_options(options)
        except MjcoreError as e:
            raise HistoryError(source, None, f"game options: {e}") from None
        if len(_RULES_CACHE) < 1000:
            _RULES_CACHE[rules_key] = rules
    return rules


def parse_history(text: str, source: str = "<history>") -> HandHistory:
    """Parse one hand history (the text of one ``.mjs`` file)."""
    headers = _Headers(source)
    raw_events: list[tuple[int, str | _EventFields]] = []   # the line, or its fields if known
    known = _EVENT_CACHE
    for lineno, line in _logical_lines(text):
        fields = known.get(line)
        if fields is not None:                # an event line read before
            raw_events.append((lineno, fields))
            continue
        head, _, rest = line.partition(" ")
        if head in _HEADER_LINES:
            headers.read(head, lineno, rest)
            if head == "NewHand":             # also an event
                raw_events.append((lineno, line))
        elif line and not line.isspace():
            raw_events.append((lineno, line))
    seat_of = headers.seat_of()
    assert headers.game is not None and headers.wall is not None
    events = _events(source, raw_events, seat_of)
    scores: dict[int, HandScore] = {}
    for lineno, rest in headers.score_lines:
        hs = _hand_score(source, lineno, rest, seat_of)
        scores[hs.seat] = hs
    settlement_line = headers.settlement_line
    settlement = (_settlement(source, settlement_line[0], settlement_line[1])
                  if settlement_line else None)
    rules = _rules_of(source, headers.options)
    m = _NAME_RE.search(source.replace("\\", "/"))
    return HandHistory(
        source=source, game_number=int(m.group(1)) if m else None,
        hand_number=int(m.group(2)) if m else None, players=tuple(headers.players),
        game=headers.game, options=headers.options, rules=rules, wall=headers.wall,
        events=events, scores=scores, settlement=settlement)


# An event line's fields without its seat, by the line's text: the same lines come back in
# every hand (38,819 distinct among the 2.1 M of the 300 shipped games), so each is read once.
_EventFields = tuple[str, "int | None", "int | None", "tuple[str, ...]"]
_EVENT_CACHE: dict[str, _EventFields] = {}
_EVENT_CACHE_MAX = 200_000
_new_event = tuple.__new__


def _events(source: str, raw: list[tuple[int, str | _EventFields]], seat_of: dict[int, int]
            ) -> tuple[Event, ...]:
    cache = _EVENT_CACHE
    out: list[Event] = []
    append = out.append
    for lineno, line in raw:
        if type(line) is str:
            fields = _event_fields(source, lineno, line)
            if fields[0] != "NewHand":        # NewHand is also read as a header line
                if len(cache) >= _EVENT_CACHE_MAX:
                    cache.clear()
                cache[line] = fields
        else:
            fields = line  # type: ignore[assignment]
        kind, pid, tile, args = fields
        if pid is None:
            seat = None
        else:
            seat = seat_of.get(pid)
            if seat is None:
                raise HistoryError(source, lineno, f"{kind}: unknown player id {pid}")
        append(_new_event(Event, (kind, pid, seat, tile, args, lineno)))
    return tuple(out)


def _event_fields(source: str, lineno: int, line: str) -> _EventFields:
    """(kind, player id, tile, other fields) of one event line; raises on a malformed one."""
    f = line.split()
    kind = f[0]
    if kind not in _TILE_FIELD:
        return kind, None, None, tuple(f[1:])
    if len(f) < 2:
        raise HistoryError(source, lineno, f"{kind}: missing player id")
    pid = _int(source, lineno, f[1], "player id")
    rest = f[2:]
    tile = None
    idx = _TILE_FIELD[kind]
    if idx is not None:
        if len(rest) <= idx:
            raise HistoryError(source, lineno, f"{kind}: missing tile")
        if rest[idx] != "--":
            tile = _tile(source, lineno, rest[idx])
        rest = rest[:idx] + rest[idx + 1:]
    elif kind == "PlayerShowsTiles":
        for t in rest:
            _tile(source, lineno, t)
    return kind, pid, tile, tuple(rest)


def _hand_score(source: str, lineno: int, rest: str, seat_of: dict[int, int]) -> HandScore:
    parts = rest.split("\n")
    head = parts[0].split(None, 2)
    if len(head) < 2:
        raise HistoryError(source, lineno, "malformed HandScore line")
    pid = _int(source, lineno, head[0], "player id")
    if pid not in seat_of:
        raise HistoryError(source, lineno, f"HandScore: unknown player id {pid}")
    listed = _int(source, lineno, head[1], "score")
    parts[0] = head[2] if len(head) > 2 else ""
    items: list[ScoreItem] = []
    total_points = total_doubles = over = final = None
    for k, part in enumerate(parts):
        text = part.strip()
        at = lineno + k
        if not text:
            continue
        if text.startswith("total pts"):
            total_points = _int(source, at, text[9:].strip(), "total points")
        elif text.startswith("total dbls"):
            total_doubles = _int(source, at, text[10:].strip(), "total doubles")
        elif text.startswith("SCORE:"):
            final = _int(source, at, text[6:].strip(), "SCORE")
        elif text.startswith("score:"):
            over = _int(source, at, text[6:].split("(")[0].strip(), "score")
        else:
            m = _ITEM_RE.match(text)
            if not m:
                raise HistoryError(source, at, f"unreadable HandScore item {text!r}")
            n = int(m.group("n"))
            label = m.group("label")
            if m.group("dbl"):
                items.append(ScoreItem(label, 0, n, 0, m.group("reason")))
            elif label == "Limit Hand":
                items.append(ScoreItem(label, 0, 0, n, m.group("reason")))
            else:
                items.append(ScoreItem(label, n, 0, 0, m.group("reason")))
    if final is None:
        raise HistoryError(source, lineno, "HandScore without SCORE")
    if final != listed:
        raise HistoryError(source, lineno, f"HandScore lists {listed} but SCORE is {final}")
    return HandScore(pid, seat_of[pid], tuple(items), total_points, total_doubles, over, final,
                     lineno)


_PAY_RE = re.compile(r"^(\w+)\s+pays\s+(\w+)\s*(?:\(for (\w+)\s*\))?\s+(\d+)$")


def _seat_name(source: str, lineno: int, name: str) -> int:
    try:
        return SEAT_NAMES.index(name)
    except ValueError:
        raise HistoryError(source, lineno, f"unknown seat {name!r} in Settlement") from None


def _settlement(source: str, lineno: int, rest: str) -> Settlement:
    parts = rest.split("\n")
    head = parts[0].split(None, 4)
    if len(head) < 4:
        raise HistoryError(source, lineno, "malformed Settlement line")
    net = tuple(_int(source, lineno, x, "net change") for x in head[:4])
    parts[0] = head[4] if len(head) > 4 else ""
    payments: list[Payment] = []
    cannon = None
    for k, part in enumerate(parts):
        text = part.strip()
        at = lineno + k
        if not text:
            continue
        m = _PAY_RE.match(text)
        if m:
            payments.append(Payment(
                _seat_name(source, at, m.group(1)), _seat_name(source, at, m.group(2)),
                int(m.group(4)),
                _seat_name(source, at, m.group(3)) if m.group(3) else None))
        elif text.endswith("let off a cannon"):
            cannon = _seat_name(source, at, text.split()[0])
        elif re.match(r"^\w+\s+(GAINS|LOSES)\s+\d+$", text) or re.match(
                r"^\w+\s+and\s+\w+\s+are even$", text):
            continue
        else:
            raise HistoryError(source, at, f"unreadable Settlement line {text!r}")
    if sum(net) != 0:
        raise HistoryError(source, lineno, f"Settlement {net} does not sum to zero")
    return Settlement(net, tuple(payments), cannon, lineno)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------

def _sort_key(name: str) -> tuple[int | str, ...]:
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name))


def _decode(data: bytes, source: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise HistoryError(source, None, f"not UTF-8 text (byte {e.start})") from None


MAX_HISTORY_BYTES = 1 << 20
"""The largest hand-history file read (one hand's history is a few kilobytes)."""
MAX_ARCHIVE_BYTES = 1 << 30
"""The most bytes of wanted members read from one archive (they are held in memory)."""


def read_limited(path: Path) -> bytes:
    """The bytes of a history file of at most :data:`MAX_HISTORY_BYTES`; HistoryError if
    it is larger, not a regular file or cannot be read."""
    for _name, data in _sources([path], lambda n: True):
        if isinstance(data, HistoryError):
            raise data
        return data
    raise HistoryError(str(path), None, "cannot read it", reason="unreadable")


def _sources(paths: Iterable[str | Path], wanted: Callable[[str], bool]
             ) -> Iterator[tuple[str, bytes | HistoryError]]:
    """(name, bytes or the HistoryError of why not) of the files under ``paths`` that
    ``wanted`` accepts, through the walk every reader shares (:func:`mjcore.files.walk_inputs`:
    regular files only, archives read forward, sizes bounded); folders in game and hand order,
    each archive's members too."""
    from ..files import walk_inputs

    for p in paths:
        pending: list[tuple[str, bytes | HistoryError]] = []
        archive = is_tar_name(str(p))
        for name, data, _done in walk_inputs([p], wanted, max_bytes=MAX_HISTORY_BYTES,
                                             max_archive_bytes=MAX_ARCHIVE_BYTES,
                                             order=_sort_key):
            item = (name, data if isinstance(data, bytes) else HistoryError(
                name, None, _without(str(data), name), reason=data.reason))
            if archive:
                pending.append(item)
            else:
                yield item
        yield from sorted(pending, key=lambda f: _sort_key(f[0]))


def _without(text: str, name: str) -> str:
    return text[len(name) + 2:] if text.startswith(name + ": ") else text


def iter_histories(paths: str | Path | Iterable[str | Path]
                   ) -> Iterator[HandHistory | HistoryError]:
    """Every hand history under ``paths`` (as :func:`read_histories`), a history that cannot be
    read or parsed coming as its HistoryError (naming its file) in its place."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    for name, data in _sources(paths, lambda n: n.endswith(".mjs")):
        if isinstance(data, HistoryError):
            yield data
            continue
        try:
            yield parse_history(_decode(data, name), name)
        except HistoryError as e:
            yield e
        except RECORD_SLIPS as e:             # a malformed field the parser let through
            yield HistoryError(name, None, f"malformed history ({slip_text(e)})")


def read_histories(paths: str | Path | Iterable[str | Path]) -> Iterator[HandHistory]:
    """Every hand history under ``paths``: ``.mjs`` files, folders (searched recursively)
    and ``.tar``/``.tar.xz``/``.tar.gz`` archives, each in game and hand order. Raises the
    HistoryError of the first history that cannot be read (see :func:`iter_histories`)."""
    for h in iter_histories(paths):
        if isinstance(h, HistoryError):
            raise h
        yield h


def archive_files(path: str | Path, wanted: Callable[[str], bool]) -> list[tuple[str, bytes]]:
    """(member name, bytes) of every file in a tar archive (plain or compressed) whose name
    ``wanted`` accepts, in archive order, in one forward pass. HistoryError for a member over
    :data:`MAX_HISTORY_BYTES` or wanted members over :data:`MAX_ARCHIVE_BYTES` in all."""
    from ..files import walk_inputs

    files: list[tuple[str, bytes]] = []
    prefix = f"{path}:"
    for name, data, _done in walk_inputs([path], wanted, max_bytes=MAX_HISTORY_BYTES,
                                         max_archive_bytes=MAX_ARCHIVE_BYTES):
        if not isinstance(data, bytes):
            raise HistoryError(name, None, _without(str(data), name), reason=data.reason)
        files.append((name[len(prefix):] if name.startswith(prefix) else name, data))
    return files


@contextmanager
def fewer_collections(young: int = 100_000) -> Iterator[None]:
    """For a batch of many histories: the cyclic garbage collector looks at its youngest
    generation every ``young`` allocations instead of every 700 (a hand makes hundreds of
    small tuples, none of them cyclic; this saves about a sixth of a replay). The
    collector's thresholds are restored on leaving."""
    before = gc.get_threshold()
    gc.set_threshold(max(young, before[0]), *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)


def read_history_text(text: str | bytes, source: str = "<history>") -> HandHistory:
    """Parse one history given as text or bytes."""
    if isinstance(text, bytes):
        text = _decode(text, source)
    return parse_history(text, source)


__all__ = [
    "BONUS_BASE",
    "MAX_ARCHIVE_BYTES",
    "MAX_HISTORY_BYTES",
    "SEAT_NAMES",
    "TILE_CODES",
    "Event",
    "GameInfo",
    "HandHistory",
    "HandScore",
    "HistoryError",
    "Payment",
    "ScoreItem",
    "Settlement",
    "fewer_collections",
    "iter_histories",
    "parse_history",
    "parse_tile",
    "read_histories",
    "read_history_text",
    "read_limited",
    "tile_text",
]
