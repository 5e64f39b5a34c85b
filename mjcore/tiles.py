"""Tile kinds, notation and conversions.

Kinds are ints 0..33: 0-8 = 1-9m (characters), 9-17 = 1-9p (dots), 18-26 = 1-9s (bamboo),
27-33 = 1z-7z (East, South, West, North, White, Green, Red). Red fives are written ``0m 0p 0s``
and are kind 4, 13 or 22 with a red flag. Tenhou 136-ids are ``kind * 4 + copy``; the red fives
are ids 16, 52 and 88 (copy 0 of each five).

Bonus tiles of the 144-tile Chinese classical set: ``1f``-``4f`` are the flowers 1-4 (plum,
orchid, chrysanthemum, bamboo), ``5f``-``8f`` the seasons 1-4 (spring, summer, autumn, winter).
Bonus ids are 0..7 (``nf`` has id n-1) and the seat of bonus id b is ``b % 4`` (0 = East).

Notation:

- mpsz: digits, then the suit letter: ``123m406p789s1122z``; ``f`` for bonus tiles.
- letter-first (seed 000's figures): ``m123p406s789z1122``.
- Unicode mahjong tiles (U+1F000..U+1F029) for display; red fives display as plain fives.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, NamedTuple

from .errors import InvalidHandError

if TYPE_CHECKING:
    import numpy as np

N_KINDS = 34
N_SUIT_KINDS = 9
N_BONUS = 8
MAX_COPIES = 4

MAN, PIN, SOU, HONOR = 0, 9, 18, 27
EAST, SOUTH, WEST, NORTH, WHITE, GREEN, RED = range(27, 34)
WINDS = (EAST, SOUTH, WEST, NORTH)
DRAGONS = (WHITE, GREEN, RED)

SUIT_LETTERS = "mpsz"
BONUS_LETTER = "f"

FIVES = (4, 13, 22)
"""The kinds that have a red copy: 5m, 5p, 5s (suit index 0, 1, 2)."""
RED_136 = (16, 52, 88)
"""Tenhou 136-ids of the red fives 0m, 0p, 0s."""

TERMINALS = (0, 8, 9, 17, 18, 26)
HONORS = tuple(range(27, 34))
YAOCHUU = TERMINALS + HONORS
"""The 13 terminal-or-honor kinds (riichi.md §1.1), in kind order."""
YAOCHUU_SET = frozenset(YAOCHUU)
SIMPLES = tuple(k for k in range(27) if k not in YAOCHUU_SET)
GREENS = (19, 20, 21, 23, 25, GREEN)
"""2s 3s 4s 6s 8s and Green: the tiles of ryuuiisou."""

TILE_NAMES = tuple(f"{k % 9 + 1}{SUIT_LETTERS[k // 9]}" for k in range(N_KINDS))
BONUS_NAMES = tuple(f"{b + 1}f" for b in range(N_BONUS))

LONG_NAMES = (
    tuple(f"{n} of characters" for n in range(1, 10))
    + tuple(f"{n} of dots" for n in range(1, 10))
    + tuple(f"{n} of bamboo" for n in range(1, 10))
    + ("East wind", "South wind", "West wind", "North wind",
       "White dragon", "Green dragon", "Red dragon")
)
BONUS_LONG_NAMES = ("Plum", "Orchid", "Chrysanthemum", "Bamboo",
                    "Spring", "Summer", "Autumn", "Winter")

# Unicode block "Mahjong Tiles": 1F000-1F003 winds E S W N, 1F004 red dragon, 1F005 green,
# 1F006 white, 1F007-1F00F characters 1-9, 1F010-1F018 bamboo 1-9, 1F019-1F021 circles 1-9,
# 1F022 plum, 1F023 orchid, 1F024 bamboo, 1F025 chrysanthemum, 1F026-1F029 the seasons.
UNICODE_TILES = tuple(
    [chr(0x1F007 + n) for n in range(9)]
    + [chr(0x1F019 + n) for n in range(9)]
    + [chr(0x1F010 + n) for n in range(9)]
    + [chr(c) for c in (0x1F000, 0x1F001, 0x1F002, 0x1F003, 0x1F006, 0x1F005, 0x1F004)]
)
UNICODE_BONUS = tuple(chr(c) for c in (0x1F022, 0x1F023, 0x1F025, 0x1F024,
                                        0x1F026, 0x1F027, 0x1F028, 0x1F029))
UNICODE_BACK = "\U0001F02B"
_UNICODE_TO_CODE = {ch: k for k, ch in enumerate(UNICODE_TILES)}
_UNICODE_TO_CODE.update({ch: N_KINDS + b for b, ch in enumerate(UNICODE_BONUS)})

# Scanner codes: 0..33 tile kinds, 34..41 bonus tiles.
_BONUS_BASE = N_KINDS
_SUIT_BASE = {"m": 0, "p": 9, "s": 18, "z": 27, "f": _BONUS_BASE}
_DIGITS = frozenset("0123456789")


class TileList(NamedTuple):
    """Parsed tiles: kind ids in the order written and, for each, whether it is a red five."""

    kinds: list[int]
    reds: list[bool]


# -- predicates ---------------------------------------------------------------------------------

def is_honor(kind: int) -> bool:
    """True for winds and dragons (kinds 27..33)."""
    return kind >= HONOR


def is_terminal(kind: int) -> bool:
    """True for the ones and nines of the suits."""
    return kind < HONOR and kind % 9 in (0, 8)


def is_yaochuu(kind: int) -> bool:
    """True for terminals and honors."""
    return kind in YAOCHUU_SET


def is_simple(kind: int) -> bool:
    """True for suit tiles 2..8."""
    return kind < HONOR and kind % 9 not in (0, 8)


def is_wind(kind: int) -> bool:
    """True for East, South, West and North (kinds 27..30)."""
    return EAST <= kind <= NORTH


def is_dragon(kind: int) -> bool:
    """True for White, Green and Red (kinds 31..33)."""
    return kind >= WHITE


def suit_of(kind: int) -> int:
    """0 = man, 1 = pin, 2 = sou, 3 = honors."""
    return kind // 9


def number_of(kind: int) -> int:
    """1..9 for suit tiles, 1..7 for honors."""
    return kind % 9 + 1


def bonus_seat(bonus: int) -> int:
    """The seat (0 = East .. 3 = North) that bonus id ``bonus`` belongs to."""
    return bonus % 4


# -- single tiles -------------------------------------------------------------------------------

def _check_kind(kind: object, what: str = "tile") -> int:
    if type(kind) is not int:
        if isinstance(kind, bool) or not isinstance(kind, int):
            raise InvalidHandError(f"{what} {kind!r}: not a tile kind id (an int 0..33)",
                                   reason="bad_tile")
        kind = int(kind)
    if not 0 <= kind < N_KINDS:
        raise InvalidHandError(f"{what} {kind}: tile kind ids are 0..33", reason="bad_tile")
    return kind


def tile_name(kind: int, red: bool = False) -> str:
    """``4 -> '5m'``; with ``red=True`` a five is written ``'0m'``."""
    kind = _check_kind(kind)
    if red:
        if kind not in FIVES:
            raise InvalidHandError(f"tile {TILE_NAMES[kind]}: only fives can be red",
                                   reason="bad_red")
        return "0" + SUIT_LETTERS[kind // 9]
    return TILE_NAMES[kind]


def bonus_name(bonus: int) -> str:
    """The name of a bonus tile id (0..7); InvalidHandError for any other value."""
    if type(bonus) is not int or not 0 <= bonus < N_BONUS:
        raise InvalidHandError(f"bonus tile {bonus!r}: bonus ids are 0..7", reason="bad_bonus")
    return BONUS_NAMES[bonus]


def parse_tile_red(text: str) -> tuple[int, bool]:
    """One tile (``'5m'``, ``'0p'``, ``'m5'`` or a Unicode tile) -> ``(kind, is_red)``."""
    if not isinstance(text, str):
        raise InvalidHandError(f"tile {text!r}: not a string", reason="bad_type")
    codes = _scan(text, text, 0)
    if len(codes) != 1:
        raise InvalidHandError(f"tile '{text}': expected exactly one tile, found {len(codes)}",
                               reason="not_one_tile", position=0, text=text)
    code, red, pos = codes[0]
    if code >= _BONUS_BASE:
        raise InvalidHandError(f"tile '{text}': a bonus tile is not allowed here",
                               reason="bonus_not_allowed", position=pos, text=text)
    return code, red


def parse_tile(text: str | int) -> int:
    """``'5m' -> 4``, ``'0m' -> 4`` (red), ``'7z' -> 33``. An int kind id is checked and
    returned."""
    if isinstance(text, str):
        return parse_tile_red(text)[0]
    return _check_kind(text)


def parse_bonus(text: str | int) -> int:
    """``'1f' -> 0`` .. ``'8f' -> 7``; an int bonus id is checked and returned."""
    if not isinstance(text, str):
        bonus_name(text)
        return text
    ids = parse_bonus_tiles(text)
    if len(ids) != 1:
        raise InvalidHandError(f"bonus tile '{text}': expected exactly one tile",
                               reason="not_one_tile", position=0, text=str(text))
    return ids[0]


# -- scanning -----------------------------------------------------------------------------------

def _fail(text: str, reason: str, position: int | None, what: str) -> InvalidHandError:
    where = "" if position is None else f" at position {position}"
    return InvalidHandError(f"hand '{text}': {what}{where}", reason=reason,
                            position=position, text=text)


def _scan(token: str, text: str, offset: int) -> list[tuple[int, bool, int]]:
    """Scan one whitespace-free token of tiles into ``(code, is_red, position)`` triples.

    Codes 0..33 are kinds and 34..41 bonus tiles. ``text``/``offset`` place the token in the
    full input for error messages. Accepts mpsz, letter-first and Unicode tiles.
    """
    out: list[tuple[int, bool, int]] = []
    if not token:
        return out
    letter_first = token[0] in _SUIT_BASE
    pending: list[int] = []  # positions (in token) of digits waiting for their suit letter
    suit = ""
    suit_pos = 0
    suit_used = True
    for i, ch in enumerate(token):
        if ch in _DIGITS:
            if letter_first:
                out.append(_tile_code(suit, ch, text, offset + i))
                suit_used = True
            else:
                pending.append(i)
        elif ch in _SUIT_BASE:
            if letter_first:
                if not suit_used:
                    raise _fail(text, "suit_without_digits", offset + suit_pos,
                                f"suit letter '{suit}' without digits")
                suit, suit_pos, suit_used = ch, i, False
            else:
                if not pending:
                    raise _fail(text, "suit_without_digits", offset + i,
                                f"suit letter '{ch}' without digits")
                for j in pending:
                    out.append(_tile_code(ch, token[j], text, offset + j))
                pending.clear()
        elif ch in _UNICODE_TO_CODE:
            if pending or not suit_used:
                _check_closed(text, token, offset, pending, -1 if suit_used else suit_pos)
            suit_used = True
            out.append((_UNICODE_TO_CODE[ch], False, offset + i))
        else:
            raise _fail(text, "unknown_character", offset + i, f"unknown character {ch!r}")
    _check_closed(text, token, offset, pending, -1 if suit_used else suit_pos)
    return out


def _check_closed(text: str, token: str, offset: int, pending: list[int], open_suit: int,
                  ) -> None:
    """Where a group of tiles ends (a Unicode tile, the token's end): no digit still waiting for
    its suit letter (``pending``, mpsz), no suit letter without digits (letter-first;
    ``open_suit`` its position in ``token``, -1 for none)."""
    if pending:
        raise _fail(text, "digit_without_suit", offset + pending[0],
                    f"digit '{token[pending[0]]}' without a suit letter")
    if open_suit >= 0:
        raise _fail(text, "suit_without_digits", offset + open_suit,
                    f"suit letter '{token[open_suit]}' without digits")


def _tile_code(suit: str, digit: str, text: str, pos: int) -> tuple[int, bool, int]:
    n = ord(digit) - 48
    if suit == "z":
        if not 1 <= n <= 7:
            raise _fail(text, "bad_honor", pos, f"'{digit}z' is not a tile (honors are 1z-7z)")
        return 26 + n, False, pos
    if suit == "f":
        if not 1 <= n <= 8:
            raise _fail(text, "bad_bonus", pos,
                        f"'{digit}f' is not a bonus tile (bonus tiles are 1f-8f)")
        return _BONUS_BASE + n - 1, False, pos
    base = _SUIT_BASE[suit]
    if n == 0:
        return base + 4, True, pos
    return base + n - 1, False, pos


def scan_text(text: str) -> list[tuple[int, bool, int]]:
    """Every tile in ``text`` (whitespace separates groups) as ``(code, is_red, position)``.

    Codes 0..33 are tile kinds, 34..41 bonus tiles 1f..8f. Raises InvalidHandError.
    """
    out: list[tuple[int, bool, int]] = []
    pos = 0
    for token in text.split():
        pos = text.index(token, pos)
        out.extend(_scan(token, text, pos))
        pos += len(token)
    return out


def parse_tiles(text: str) -> TileList:
    """A tile string (mpsz, letter-first or Unicode; spaces allowed) -> kinds and red flags.

    Tiles keep the order written. Only checks notation, not copy counts (see ``Hand.parse``).
    """
    if not isinstance(text, str):
        raise InvalidHandError(f"tiles {text!r}: not a string", reason="bad_type")
    kinds: list[int] = []
    reds: list[bool] = []
    for code, red, pos in scan_text(text):
        if code >= _BONUS_BASE:
            raise _fail(text, "bonus_not_allowed", pos, "a bonus tile is not allowed here")
        kinds.append(code)
        reds.append(red)
    return TileList(kinds, reds)


def parse_bonus_tiles(text: str) -> list[int]:
    """``'15f'`` -> ``[0, 4]``; only bonus tiles are allowed."""
    if not isinstance(text, str):
        raise InvalidHandError(f"bonus tiles {text!r}: not a string", reason="bad_type")
    out = []
    for code, _red, pos in scan_text(text):
        if code < _BONUS_BASE:
            raise _fail(text, "not_bonus", pos, f"{TILE_NAMES[code]} is not a bonus tile")
        out.append(code - _BONUS_BASE)
    return out


def parse_kinds(tiles: str | int | Iterable[str | int]) -> list[int]:
    """Lenient tile-list input: an mpsz string, one kind id, or an iterable of names or ids."""
    if isinstance(tiles, str):
        return parse_tiles(tiles).kinds
    return parse_tile_list(tiles).kinds


def parse_tile_list(tiles: str | int | Iterable[str | int]) -> TileList:
    """``parse_kinds`` keeping which tiles are red fives: a name entry may be one (``'0p'``);
    a kind id never is."""
    if isinstance(tiles, str):
        return parse_tiles(tiles)
    if isinstance(tiles, int):
        return TileList([_check_kind(tiles)], [False])
    try:
        items = list(tiles)
    except TypeError:
        raise InvalidHandError(f"tiles {tiles!r}: expected a string, a kind id or a list of them",
                               reason="bad_type") from None
    kinds: list[int] = []
    reds: list[bool] = []
    for item in items:
        if isinstance(item, str):
            parsed = parse_tiles(item)
            kinds.extend(parsed.kinds)
            reds.extend(parsed.reds)
        else:
            kinds.append(_check_kind(item))
            reds.append(False)
    return TileList(kinds, reds)


# -- formatting ---------------------------------------------------------------------------------

def format_counts(counts: Sequence[int], red: Sequence[int] = (0, 0, 0),
                  *, letter_first: bool = False) -> str:
    """34 counts (+ red fives per suit m, p, s) -> ``'123m406p'``; red zeros sit where 5s sort."""
    parts = []
    for suit in range(4):
        base = suit * 9
        size = 7 if suit == 3 else 9
        digits = []
        for n in range(size):
            c = counts[base + n]
            if c:
                if n == 4 and suit < 3 and red[suit]:
                    r = red[suit]
                    digits.append("0" * r + "5" * (c - r))
                else:
                    digits.append(str(n + 1) * c)
        if digits:
            letter = SUIT_LETTERS[suit]
            group = "".join(digits)
            parts.append(letter + group if letter_first else group + letter)
    return "".join(parts)


def _digit_runs(first: int, size: int) -> dict[bytes, str]:
    # every run of ``size`` counts 0..4 -> its digits, starting at digit ``first``
    table = {b"": ""}
    for n in range(first, first + size):
        table = {key + bytes((c,)): text + str(n) * c
                 for key, text in table.items() for c in range(MAX_COPIES + 1)}
    return table


_RUNS: list[dict[bytes, str]] = []  # built on first use (~4 ms)


def format_packed(packed: bytes) -> str:
    """``format_counts`` of 34 counts 0..4 given as bytes, without red fives."""
    if not _RUNS:
        # digits 1-4 and 5-9 of a suit, 1-3 and 4-7 of the honors
        _RUNS.extend((_digit_runs(1, 4), _digit_runs(5, 5), _digit_runs(1, 3), _digit_runs(4, 4)))
    low, high, honor_low, honor_high = _RUNS
    try:
        m = low[packed[0:4]] + high[packed[4:9]]
        p = low[packed[9:13]] + high[packed[13:18]]
        s = low[packed[18:22]] + high[packed[22:27]]
        z = honor_low[packed[27:30]] + honor_high[packed[30:34]]
    except KeyError:  # a count above 4
        return format_counts(packed)
    return "".join((m, "m" if m else "", p, "p" if p else "", s, "s" if s else "",
                    z, "z" if z else ""))


def format_tiles(kinds: Iterable[int], reds: Iterable[bool] | None = None,
                 *, letter_first: bool = False, sort: bool = True) -> str:
    """Kinds (and red flags) -> mpsz. Sorted by default; ``sort=False`` keeps the order given,
    starting a new suit group whenever the suit changes."""
    kinds = [_check_kind(k) for k in kinds]
    flags = [False] * len(kinds) if reds is None else [bool(r) for r in reds]
    if len(flags) != len(kinds):
        raise InvalidHandError("format_tiles: kinds and reds differ in length", reason="bad_shape")
    for k, r in zip(kinds, flags, strict=True):
        if r and k not in FIVES:
            raise InvalidHandError(f"tile {TILE_NAMES[k]}: only fives can be red", reason="bad_red")
    if sort:
        counts = [0] * N_KINDS
        red = [0, 0, 0]
        for k, r in zip(kinds, flags, strict=True):
            counts[k] += 1
            if r:
                red[k // 9] += 1
        return format_counts(counts, red, letter_first=letter_first)
    out = []
    group: list[str] = []
    suit = -1
    for k, r in zip(kinds, flags, strict=True):
        s = k // 9
        if s != suit and group:
            out.append(_group(group, suit, letter_first))
            group = []
        suit = s
        group.append("0" if r else str(k % 9 + 1))
    if group:
        out.append(_group(group, suit, letter_first))
    return "".join(out)


def _group(digits: list[str], suit: int, letter_first: bool) -> str:
    letter = SUIT_LETTERS[suit]
    return letter + "".join(digits) if letter_first else "".join(digits) + letter


def format_bonus(bonus: Iterable[int]) -> str:
    """Bonus ids as hand text, e.g. ``[0, 4]`` -> ``'15f'`` ('' for none); InvalidHandError for
    an id outside 0..7.
    """
    ids = sorted(bonus)
    for b in ids:
        bonus_name(b)
    return "".join(str(b + 1) for b in ids) + "f" if ids else ""


def to_unicode(kinds: Iterable[int] | str, bonus: Iterable[int] = ()) -> str:
    """Kinds (or an mpsz string) -> Unicode mahjong tiles, in the order given."""
    if isinstance(kinds, str):
        codes = scan_text(kinds)
        return "".join(UNICODE_TILES[c] if c < _BONUS_BASE else UNICODE_BONUS[c - _BONUS_BASE]
                       for c, _r, _p in codes)
    out = "".join(UNICODE_TILES[_check_kind(k)] for k in kinds)
    return out + "".join(UNICODE_BONUS[parse_bonus(b)] for b in bonus)


def counts_to_unicode(counts: Sequence[int]) -> str:
    """34 counts as Unicode mahjong tile characters, in kind order."""
    return "".join(UNICODE_TILES[k] * counts[k] for k in range(N_KINDS))


# -- 34-count arrays ----------------------------------------------------------------------------

def counts_from_kinds(kinds: Iterable[int]) -> list[int]:
    """34 counts from tile kind ids; InvalidHandError for an id outside 0..33."""
    counts = [0] * N_KINDS
    for k in kinds:
        counts[_check_kind(k)] += 1
    return counts


def kinds_from_counts(counts: Sequence[int]) -> list[int]:
    """34 counts -> sorted kind list. Counts must be 0..4."""
    check_counts(counts)
    out: list[int] = []
    for k in range(N_KINDS):
        out.extend([k] * counts[k])
    return out


def check_counts(counts: Sequence[int] | np.ndarray, what: str = "counts") -> list[int]:
    """Validate a 34-count array (ints 0..4, numpy welcome); returns it as a list of ints."""
    try:
        values = counts.tolist() if hasattr(counts, "tolist") else list(counts)
    except TypeError:
        raise InvalidHandError(f"{what}: expected 34 integers", reason="bad_counts") from None
    if len(values) != N_KINDS:
        raise InvalidHandError(f"{what}: expected 34 counts, got {len(values)}",
                               reason="bad_counts")
    for i, c in enumerate(values):
        if type(c) is not int:
            if isinstance(c, bool) or not hasattr(c, "__index__"):
                raise InvalidHandError(f"{what}: {c!r} is not an integer count",
                                       reason="bad_counts")
            values[i] = c.__index__()
    if min(values) < 0 or max(values) > MAX_COPIES:
        for k, c in enumerate(values):
            if not 0 <= c <= MAX_COPIES:
                reason = "too_many_copies" if c > MAX_COPIES else "bad_counts"
                raise InvalidHandError(f"{what}: {c} copies of {TILE_NAMES[k]} (0..4 allowed)",
                                       reason=reason)
    return values


# -- Tenhou 136-ids -----------------------------------------------------------------------------

def kinds_from_136(ids: Iterable[int]) -> TileList:
    """136-ids -> kinds and red flags (ids 16, 52, 88 are red). Duplicates are an error."""
    kinds: list[int] = []
    reds: list[bool] = []
    seen: set[int] = set()
    for i in ids:
        if isinstance(i, bool) or not isinstance(i, int):
            try:
                ok = int(i) == i
            except (TypeError, ValueError):
                ok = False
            if not ok or isinstance(i, bool):
                raise InvalidHandError(f"tile id {i!r}: not an integer", reason="bad_tile")
            i = int(i)
        if not 0 <= i < 136:
            raise InvalidHandError(f"tile id {i}: 136-ids are 0..135", reason="bad_tile")
        if i in seen:
            raise InvalidHandError(f"tile id {i} ({TILE_NAMES[i // 4]}) appears twice",
                                   reason="duplicate_tile")
        seen.add(i)
        kinds.append(i >> 2)
        reds.append(i in RED_136)
    return TileList(kinds, reds)


def kind_from_136(tile_id: int) -> int:
    """The kind (0..33) of a 136-id; InvalidHandError for an id outside 0..135."""
    if type(tile_id) is not int or not 0 <= tile_id < 136:
        raise InvalidHandError(f"tile id {tile_id!r}: 136-ids are 0..135", reason="bad_tile")
    return tile_id >> 2


def to_136(kinds: Iterable[int], reds: Iterable[bool] | None = None,
           used: set[int] | None = None) -> list[int]:
    """Kinds (+ red flags) -> distinct 136-ids, sorted.

    A red five takes copy 0 (ids 16/52/88); other tiles take the lowest free copy, never copy 0
    of a five (that is the red one). ``used`` holds ids already taken elsewhere (e.g. by melds)
    and is updated.
    """
    kinds = [_check_kind(k) for k in kinds]
    flags = [False] * len(kinds) if reds is None else [bool(r) for r in reds]
    if len(flags) != len(kinds):
        raise InvalidHandError("to_136: kinds and reds differ in length", reason="bad_shape")
    taken = set() if used is None else used
    out: list[int] = []
    # Reds first so plain fives never take their copy.
    order = sorted(range(len(kinds)), key=lambda j: not flags[j])
    for j in order:
        k = kinds[j]
        if flags[j]:
            if k not in FIVES:
                raise InvalidHandError(f"tile {TILE_NAMES[k]}: only fives can be red",
                                       reason="bad_red")
            tid = k * 4
            if tid in taken:
                raise InvalidHandError(f"two red {TILE_NAMES[k]} (the set has one per suit)",
                                       reason="too_many_red")
        else:
            first = 1 if k in FIVES else 0
            tid = -1
            for copy in range(first, MAX_COPIES):
                if k * 4 + copy not in taken:
                    tid = k * 4 + copy
                    break
            if tid < 0:
                plain = MAX_COPIES - first
                raise InvalidHandError(
                    f"more than {plain} plain {TILE_NAMES[k]}"
                    + (" (copy 0 of a five is the red one)" if first else ""),
                    reason="too_many_copies")
        taken.add(tid)
        out.append(tid)
    out.sort()
    return out
