"""Hand text: the one parser, its fast path, and the writer.

Text form (``Hand.parse`` / ``str(hand)``)::

    123m406p789s1122z                  closed tiles, mpsz (or letter-first m123p406s789z1122)
    23m406p789s11z15f chi:324m pon:555z<2
                                       then bonus tiles (f) and melds, separated by spaces

Meld tokens are described in :mod:`mjcore.melds`; tiles (mpsz, letter-first, Unicode) in
:mod:`mjcore.tiles`.

:func:`parse_tokens` reads every form and names the position of any error. :func:`parse_plain`
is its fast path for the common case, one token of mpsz digit groups; it returns None for
anything else (including every error), and the parser then runs, so both give one answer
(tests/core/test_notation.py checks this on random valid and invalid text).
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from .melds import Meld, parse_meld_token
from .tiles import (
    _BONUS_BASE,
    MAX_COPIES,
    N_KINDS,
    SUIT_LETTERS,
    TILE_NAMES,
    UNICODE_BONUS,
    UNICODE_TILES,
    _fail,
    _scan,
    format_bonus,
    format_counts,
    format_packed,
)

__all__ = ["MAX_MELDS", "ParsedHand", "format_hand", "parse_plain", "parse_tokens"]

MAX_MELDS = 4
MAX_PLAIN_CHARS = 255
"""Longer text skips the fast path (the parser reads any length)."""
ZERO_RED = (0, 0, 0)

ParsedHand = tuple[tuple[int, ...], tuple[int, ...], tuple[Meld, ...], tuple[int, ...]]
"""(closed counts, closed red fives per suit m/p/s, melds, sorted bonus ids)."""

# -- the parser ---------------------------------------------------------------------------------

_TOKEN_RE = re.compile(r"\S+")
# Meld tokens already parsed (the meld depends on the token alone; Melds are immutable, so
# hands share them) and their text by id. Valid tokens are few; the bound is for odd spellings.
_MELD_CACHE_SIZE = 8192
_MELD_OF_TOKEN: dict[str, Meld] = {}
_MELD_TEXT: dict[int, tuple[Meld, str]] = {}


def parse_tokens(text: str, limits: tuple[int, int, int], *, fast: bool = True) -> ParsedHand:
    """The parser: closed tiles, bonus tiles and melds, token by token. ``limits``: most red
    fives per suit. InvalidHandError names ``text``, the reason and the position.

    ``fast=False`` reads every token the long way: no :func:`parse_plain` for the first token
    and no cache of meld tokens (for tests that check the fast paths against it)."""
    counts = [0] * N_KINDS
    red = [0, 0, 0]
    bonus: list[int] = []
    melds: list[Meld] = []
    for match in _TOKEN_RE.finditer(text):
        token = match.group()
        start = match.start()
        if not start and fast and match.end() < len(text):
            # a plain first token before melds or bonus tiles (Hand.parse has tried the
            # fast path on a text that is one token)
            plain = parse_plain(token, limits)
            if plain is not None:  # a plain first token: its counts, nothing to check
                counts = list(plain[0])
                red = list(plain[1])
                continue
        if ":" not in token:
            _count_tiles(token, text, start, limits, counts, red, bonus)
            continue
        if len(melds) == MAX_MELDS:
            raise _fail(text, "bad_melds", start, "a fifth meld (at most 4)")
        meld = _MELD_OF_TOKEN.get(token) if fast else None
        if meld is None:
            meld = _new_meld(token, text, start, fast)
        melds.append(meld)
        for k in meld.tiles:
            counts[k] += 1
            if counts[k] > MAX_COPIES:
                raise _fail(text, "too_many_copies", start,
                            f"a fifth {TILE_NAMES[k]} (in the meld)")
        if meld.red:
            _count_meld_red(meld, text, start, limits, red)
    if not melds and not bonus and not any(counts):
        raise _fail(text, "missing_tile", None, "no tiles")
    # Meld tiles were counted above for the copy check; take them back out of the closed part.
    for m in melds:
        for k in m.tiles:
            counts[k] -= 1
        if m.red:
            red[m.tiles[0] // 9] -= m.red
    bonus.sort()
    return tuple(counts), tuple(red), tuple(melds), tuple(bonus)


def _new_meld(token: str, text: str, start: int, fast: bool) -> Meld:
    """The meld of a token at ``start`` of ``text`` not in the cache; kept there (``fast``)
    while the cache has room."""
    meld = parse_meld_token(token, text, start)
    if fast and len(_MELD_OF_TOKEN) < _MELD_CACHE_SIZE:
        _MELD_OF_TOKEN[token] = meld
        _MELD_TEXT[id(meld)] = (meld, str(meld))
    return meld


def _count_meld_red(meld: Meld, text: str, start: int, limits: tuple[int, int, int],
                    red: list[int]) -> None:
    """Count a meld's red fives in ``red`` (for the red check; the parser takes them back out
    of the closed part at the end)."""
    s = meld.tiles[0] // 9
    red[s] += meld.red
    if red[s] > limits[s]:
        raise _fail(text, "too_many_red", start, _red_what(s, limits[s]))


def _count_tiles(token: str, text: str, start: int, limits: tuple[int, int, int],
                 counts: list[int], red: list[int], bonus: list[int]) -> None:
    """Count the tiles of a token that is no meld: closed tiles in ``counts`` and ``red``,
    bonus tiles in ``bonus``."""
    for code, is_red, pos in _scan(token, text, start):
        if code >= _BONUS_BASE:
            b = code - _BONUS_BASE
            if b in bonus:
                raise _fail(text, "duplicate_bonus", pos,
                            f"a second {b + 1}f (each bonus tile exists once)")
            bonus.append(b)
            continue
        c = counts[code] + 1
        if c > MAX_COPIES:
            raise _fail(text, "too_many_copies", pos, f"a fifth {TILE_NAMES[code]}")
        counts[code] = c
        if is_red:
            s = code // 9
            red[s] += 1
            if red[s] > limits[s]:
                raise _fail(text, "too_many_red", pos, _red_what(s, limits[s]))


def _red_what(suit: int, limit: int) -> str:
    noun = "one" if limit == 1 else str(limit)
    return f"too many red fives 0{SUIT_LETTERS[suit]} (the set has {noun})"


# -- the fast path ------------------------------------------------------------------------------

# mpsz digit groups and nothing else (red fives allowed)
_PLAIN_RE = re.compile(r"(?:[0-9]+[mps]|[1-7]+z)+")
# the same without red fives
_PLAIN_NO_RED_RE = re.compile(r"(?:[1-9]+[mps]|[1-7]+z)+")
# mpsz without red fives, groups in m p s z order, digits ascending, at most 4 of each:
# what format_hand writes
_CANONICAL_RE = re.compile(
    "".join(f"(?:{''.join(f'{n}{{0,4}}+' for n in range(1, 10))}(?<=[1-9]){s})?+" for s in "mps")
    + f"(?:{''.join(f'{n}{{0,4}}+' for n in range(1, 8))}(?<=[1-7])z)?+")
_AT_MOST_FOUR = bytes(range(MAX_COPIES + 1))
# per suit letter (as a byte): a table from character byte to kind, -1 for the suit letters
_KIND_OF_BYTE: list[list[int]] = [[] for _ in range(128)]
for _suit, _base in zip("mpsz", (0, 9, 18, 27), strict=True):
    _table = [-1] * 128
    for _n in range(1, 8 if _suit == "z" else 10):
        _table[48 + _n] = _base + _n - 1
    if _suit != "z":
        _table[48] = _base + 4  # '0': the red five
    _KIND_OF_BYTE[ord(_suit)] = _table
_SUIT_OF_BYTE = {ord(s): i for i, s in enumerate("mps")}


def parse_plain(text: str, limits: tuple[int, int, int]
                ) -> tuple[bytes, tuple[int, ...], bool] | None:
    """The fast path of :func:`parse_tokens` for one token of mpsz digit groups: (closed counts
    as 34 bytes, red fives per suit, whether ``text`` is what :func:`format_hand` writes for
    them). None for anything else, a fifth copy or too many red fives: the parser answers."""
    if not text or len(text) > MAX_PLAIN_CHARS:
        return None
    tables = _KIND_OF_BYTE
    counts = bytearray(N_KINDS)
    if "0" not in text:
        canonical = _CANONICAL_RE.fullmatch(text) is not None
        if not canonical and _PLAIN_NO_RED_RE.fullmatch(text) is None:
            return None
        kind_of = tables[109]  # the text ends with a suit letter, which sets it
        for c in reversed(text.encode()):
            k = kind_of[c]
            if k < 0:
                kind_of = tables[c]
            else:
                counts[k] += 1
        packed = bytes(counts)
        if not canonical and packed.translate(None, _AT_MOST_FOUR):
            return None  # a fifth copy
        return packed, ZERO_RED, canonical
    # With red fives: the same count as above plus each suit's zeros (a loop of its own, so
    # the common text without red fives pays no per-digit test).
    if _PLAIN_RE.fullmatch(text) is None:
        return None
    red = [0, 0, 0]
    kind_of = tables[109]
    suit = 0
    for c in reversed(text.encode()):
        k = kind_of[c]
        if k < 0:
            kind_of = tables[c]
            suit = _SUIT_OF_BYTE.get(c, 3)
        else:
            counts[k] += 1
            if c == 48:
                red[suit] += 1
    packed = bytes(counts)
    if packed.translate(None, _AT_MOST_FOUR) or any(
            r > limit for r, limit in zip(red, limits, strict=True)):
        return None
    return packed, tuple(red), False


# -- the writer ---------------------------------------------------------------------------------

def format_hand(counts: Sequence[int], red: Sequence[int], melds: Sequence[Meld],
                bonus: Sequence[int], packed: bytes | None = None, letter_first: bool = False,
                unicode: bool = False) -> str:
    """Hand text: closed tiles, bonus tiles, then melds (``packed``: the counts as bytes, if at
    hand). ``unicode=True`` gives Unicode tiles (closed, then bonus, then melds)."""
    if unicode:
        closed_tiles = [k for k in range(N_KINDS) for _ in range(counts[k])]
        parts = ["".join(UNICODE_TILES[k] for k in closed_tiles)
                 + "".join(UNICODE_BONUS[b] for b in bonus)]
        parts += ["".join(UNICODE_TILES[k] for k in m.tiles) for m in melds]
        return " ".join(p for p in parts if p)
    if packed is not None and not letter_first and tuple(red) == ZERO_RED:
        closed = format_packed(packed)
    else:
        closed = format_counts(counts, red, letter_first=letter_first)
    if bonus:
        bonus_text = format_bonus(bonus)
        closed += ("f" + bonus_text[:-1]) if letter_first else bonus_text
    if not melds:
        return closed
    if letter_first:
        meld_texts = [m.format(letter_first=True) for m in melds]
    else:
        texts = _MELD_TEXT
        meld_texts = []
        for m in melds:
            known = texts.get(id(m))
            meld_texts.append(known[1] if known is not None and known[0] is m else str(m))
    return " ".join(([closed] if closed else []) + meld_texts)
