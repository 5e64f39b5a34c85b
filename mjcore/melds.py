"""Called sets: the one meld vocabulary and the :class:`Meld` value.

A meld kind has one row in :data:`VOCABULARY`: its word in hand text (``pon:555z<2``), the
``type`` of its event in riichi game records (mjai, which the engine emits and replays), the
``type`` of a meld in the Tenhou scoring data set (shared/data/tenhou), its name in the Chinese
classical rules and records (chow, pung, kong: all three kans are a kong there) and the other
words hand text accepts.
The number of a kind (``MeldKind`` value) is what the batch arrays, the kernels' ``MK_*`` and
the gRPC API use.

Meld text: ``kind:tiles[<N]``. The first tile written is the called one (chi is always called
from the left, 3); ``<N`` is the seat it came from: 1 shimocha (right), 2 toimen (across),
3 kamicha (left), 3 by default; a closed kan has none. Red fives are ``0``. ``kakan:777z<3``
(three tiles) is accepted for ``kakan:7777z<3``.
"""
from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from .errors import InvalidHandError
from .tiles import (
    _BONUS_BASE,
    FIVES,
    N_KINDS,
    SUIT_LETTERS,
    _fail,
    _scan,
    format_tiles,
    kinds_from_136,
    parse_tile_red,
    to_136,
)

__all__ = ["RECORD_KIND", "TENHOU_KIND", "TOKEN_KIND", "VOCABULARY", "Meld", "MeldKind",
           "MeldWords"]


class MeldKind(enum.IntEnum):
    """The five kinds of called set. Values are stable (the batch and gRPC APIs use them)."""

    CHI = 0
    PON = 1
    KAN_OPEN = 2
    KAN_CLOSED = 3
    KAN_ADDED = 4

    @property
    def token(self) -> str:
        """The kind's word in hand text: chi, pon, kan, ankan or kakan."""
        return VOCABULARY[self].token

    @property
    def record(self) -> str:
        """The ``type`` of the kind's event in game records: chi, pon, daiminkan, ankan, kakan."""
        return VOCABULARY[self].record

    @property
    def tenhou(self) -> str:
        """The ``type`` of such a meld in the Tenhou scoring data set: chi, pon, kan-open,
        kan-closed, kakan."""
        return VOCABULARY[self].tenhou

    @property
    def classical(self) -> str:
        """The kind's name in the Chinese classical rules and game records: chow, pung or kong."""
        return VOCABULARY[self].classical

    @property
    def is_kan(self) -> bool:
        """True for KAN_OPEN, KAN_CLOSED and KAN_ADDED."""
        return self >= MeldKind.KAN_OPEN

    @property
    def is_open(self) -> bool:
        """True for every kind except KAN_CLOSED."""
        return self != MeldKind.KAN_CLOSED

    @property
    def size(self) -> int:
        """Tiles in the set: 4 for a kan, else 3."""
        return 4 if self >= MeldKind.KAN_OPEN else 3

    @classmethod
    def named(cls, word: object) -> MeldKind:
        """The kind of a MeldKind, its number 0..4 or any of its words (case, ``-`` and ``_``
        ignored: ``'kan-open'``, ``'daiminkan'``, ``'KAN_CLOSED'``); InvalidHandError otherwise.
        """
        if isinstance(word, MeldKind):
            return word
        if isinstance(word, str):
            kind = _ANY_WORD_KIND.get(word.lower().replace("-", "").replace("_", ""))
            if kind is not None:
                return kind
        if isinstance(word, int) and not isinstance(word, bool) and 0 <= word <= 4:
            return MeldKind(word)
        raise InvalidHandError(f"meld: unknown meld kind {word!r}", reason="bad_melds")


class MeldWords(NamedTuple):
    """A meld kind's words: ``token`` in hand text, ``record`` (the mjai event type), ``tenhou``
    (the Tenhou data set's meld type), ``classical`` (the Chinese classical name) and
    ``aliases`` hand text accepts as well."""

    token: str
    record: str
    tenhou: str
    classical: str
    aliases: tuple[str, ...] = ()


VOCABULARY: dict[MeldKind, MeldWords] = {
    MeldKind.CHI: MeldWords("chi", "chi", "chi", "chow", ("chow",)),
    MeldKind.PON: MeldWords("pon", "pon", "pon", "pung", ("pung",)),
    MeldKind.KAN_OPEN: MeldWords("kan", "daiminkan", "kan-open", "kong",
                                 ("minkan", "daiminkan", "kong")),
    MeldKind.KAN_CLOSED: MeldWords("ankan", "ankan", "kan-closed", "kong"),
    MeldKind.KAN_ADDED: MeldWords("kakan", "kakan", "kakan", "kong", ("shouminkan",)),
}
"""Every meld kind's words, one row per kind."""

TOKEN_KIND: dict[str, MeldKind] = {
    word: kind for kind, words in VOCABULARY.items() for word in (words.token, *words.aliases)}
"""Hand-text word (lower case) -> kind."""
RECORD_KIND: dict[str, MeldKind] = {words.record: kind for kind, words in VOCABULARY.items()}
"""Game-record event type -> kind."""
TENHOU_KIND: dict[str, MeldKind] = {words.tenhou: kind for kind, words in VOCABULARY.items()}
"""Tenhou data-set meld type -> kind."""
_ANY_WORD_KIND = {
    word.replace("-", "").replace("_", "").lower(): kind
    for kind, words in VOCABULARY.items()
    for word in (kind.name, words.token, words.record, words.tenhou, *words.aliases)}


@dataclass(frozen=True, slots=True)
class Meld:
    """A called (or concealed-kan) set.

    ``tiles``: sorted kind ids (3, or 4 for a kan). ``called``: the kind taken from another
    player (None for a closed kan). ``from_rel``: 0 own, 1 shimocha, 2 toimen, 3 kamicha.
    ``red``: red fives among the tiles. ``called_red``: the called tile itself was the red five.
    """

    kind: MeldKind
    tiles: tuple[int, ...]
    called: int | None = None
    from_rel: int | None = None
    red: int = 0
    called_red: bool = False

    def __post_init__(self) -> None:
        _validate_meld(self, None, None)

    # -- constructors --------------------------------------------------------------------------

    @classmethod
    def chi(cls, tiles: str | Iterable[int], called: int | str | None = None) -> Meld:
        """``Meld.chi('324m')`` (first written is called) or ``Meld.chi([1, 2, 3], called=2)``."""
        return _meld_from_args(MeldKind.CHI, tiles, called, 3)

    @classmethod
    def pon(cls, tile: int | str, from_rel: int = 3, red: int = 0) -> Meld:
        """``Meld.pon('5m')``: a pon of one kind; ``from_rel`` is the seat called from (1 shimocha,
        2 toimen, 3 kamicha), ``red`` the red fives among its tiles.
        """
        return _same_meld(MeldKind.PON, tile, from_rel, red)

    @classmethod
    def kan(cls, tile: int | str, from_rel: int = 3, red: int = 0) -> Meld:
        """An open kan (daiminkan)."""
        return _same_meld(MeldKind.KAN_OPEN, tile, from_rel, red)

    @classmethod
    def ankan(cls, tile: int | str, red: int = 0) -> Meld:
        """A concealed kan of one kind (``red``: red fives among its four tiles)."""
        return _same_meld(MeldKind.KAN_CLOSED, tile, 0, red)

    @classmethod
    def kakan(cls, tile: int | str, from_rel: int = 3, red: int = 0) -> Meld:
        """A pon upgraded to a kan; ``from_rel`` is where the pon came from."""
        return _same_meld(MeldKind.KAN_ADDED, tile, from_rel, red)

    @classmethod
    def parse(cls, text: str) -> Meld:
        """One meld token, e.g. ``'pon:555z<2'``."""
        if not isinstance(text, str):
            raise InvalidHandError(f"meld {text!r}: not a string", reason="bad_type")
        token = text.strip()
        if not token or any(c.isspace() for c in token):
            raise _fail(text, "bad_melds", 0, "expected one meld token such as 'pon:555z<2'")
        return parse_meld_token(token, text, text.index(token))

    @classmethod
    def from_136(cls, kind: MeldKind | str, ids: Sequence[int], called_id: int | None = None,
                 from_rel: int | None = None) -> Meld:
        """From Tenhou 136-ids. ``kind`` may be a MeldKind or any of its words (see
        :meth:`MeldKind.named`)."""
        mk = MeldKind.named(kind)
        id_list = list(ids)
        kinds, reds = kinds_from_136(id_list)
        called = None
        called_red = False
        if mk == MeldKind.KAN_CLOSED:
            from_rel = None if from_rel == 0 else from_rel  # a called id, if given, is ignored
        elif called_id is not None:
            if called_id not in id_list:
                raise InvalidHandError(f"meld: called tile id {called_id} is not among {id_list}",
                                       reason="bad_melds")
            called = called_id >> 2
            called_red = reds[id_list.index(called_id)]
        return cls(mk, tuple(sorted(kinds)), called, from_rel, sum(reds), called_red)

    # -- views ---------------------------------------------------------------------------------

    @property
    def is_open(self) -> bool:
        """True for every meld except a concealed kan."""
        return self.kind != MeldKind.KAN_CLOSED

    @property
    def is_kan(self) -> bool:
        """True for open, concealed and added kans."""
        return self.kind >= MeldKind.KAN_OPEN

    @property
    def first(self) -> int:
        """The lowest tile kind (the set's identity for pon/kan: its tile)."""
        return self.tiles[0]

    def to_136(self, used: set[int] | None = None) -> list[int]:
        """Distinct 136-ids for the meld's tiles (its red fives take copy 0); ``used`` holds ids
        already taken elsewhere and is updated (see :func:`mjcore.tiles.to_136`).
        """
        return to_136(self.tiles, self._red_flags(), used)

    def _red_flags(self) -> list[bool]:
        flags = [False] * len(self.tiles)
        left = self.red
        for i, k in enumerate(self.tiles):
            if left and k in FIVES:
                flags[i] = True
                left -= 1
        return flags

    def format(self, *, letter_first: bool = False) -> str:
        """The meld token: ``pon:555z<2``, or ``pon:z555<2`` with ``letter_first``."""
        suit = SUIT_LETTERS[self.tiles[0] // 9]
        rest = list(self.tiles)
        digits = []
        reds_left = self.red
        if self.called is not None:
            rest.remove(self.called)
            if self.called_red:
                digits.append("0")
                reds_left -= 1
            else:
                digits.append(str(self.called % 9 + 1))
        for k in rest:
            if reds_left and k in FIVES:
                digits.append("0")
                reds_left -= 1
            else:
                digits.append(str(k % 9 + 1))
        body = suit + "".join(digits) if letter_first else "".join(digits) + suit
        text = f"{self.kind.token}:{body}"
        if self.kind in (MeldKind.PON, MeldKind.KAN_OPEN, MeldKind.KAN_ADDED):
            text += f"<{self.from_rel}"
        return text

    def __str__(self) -> str:
        return self.format()

    def __repr__(self) -> str:
        return f"Meld({str(self)!r})"


def _meld_error(text: str | None, reason: str, position: int | None, what: str) -> InvalidHandError:
    if text is None:
        return InvalidHandError(f"meld: {what}", reason=reason)
    return _fail(text, reason, position, what)


def _validate_meld(m: Meld, text: str | None, pos: int | None) -> None:
    """Check and normalise a Meld in place (it is frozen, so via object.__setattr__)."""
    kind = MeldKind.named(m.kind)
    tiles = _meld_kinds(m.tiles, kind, text, pos)
    called, from_rel = _called_and_seat(kind, tiles, m.called, m.from_rel, text, pos)
    called_red = _called_red(kind, tiles, called, m.red, m.called_red, text, pos)
    setattr_ = object.__setattr__
    setattr_(m, "kind", kind)
    setattr_(m, "tiles", tiles)
    setattr_(m, "called", called)
    setattr_(m, "from_rel", from_rel)
    setattr_(m, "called_red", called_red)


def _meld_kinds(tiles: tuple[int, ...], kind: MeldKind, text: str | None,
                pos: int | None) -> tuple[int, ...]:
    """A meld's tile kinds, sorted, once they make a set of ``kind``."""
    if not isinstance(tiles, tuple):
        try:
            tiles = tuple(tiles)
        except TypeError:
            raise _meld_error(text, "bad_melds", pos,
                              f"tiles {tiles!r} are not a sequence") from None
    for k in tiles:
        if type(k) is not int or not 0 <= k < N_KINDS:
            raise _meld_error(text, "bad_melds", pos, f"{k!r} is not a tile kind id")
    tiles = tuple(sorted(tiles))
    n = len(tiles)
    name = kind.token
    if n != kind.size:
        raise _meld_error(text, "bad_melds", pos,
                          f"{name} needs {kind.size} tiles, got {n} ({format_tiles(tiles)})")
    if kind == MeldKind.CHI:
        first = tiles[0]
        if first >= 27:
            raise _meld_error(text, "bad_melds", pos,
                              f"chi of honors ({format_tiles(tiles)}) is not a set")
        if first // 9 != tiles[2] // 9 or tiles[1] != first + 1 or tiles[2] != first + 2:
            raise _meld_error(text, "bad_melds", pos, f"chi {format_tiles(tiles)} is not "
                              "three consecutive tiles of one suit")
    elif tiles[0] != tiles[-1]:
        raise _meld_error(text, "bad_melds", pos,
                          f"{name} {format_tiles(tiles)} is not {n} of the same tile")
    return tiles


def _called_and_seat(kind: MeldKind, tiles: tuple[int, ...], called: int | None,
                     from_rel: int | None, text: str | None,
                     pos: int | None) -> tuple[int | None, int]:
    """A meld's called tile and the seat it came from, each defaulted when not given: a
    closed kan's none and 0, else the middle of a chi or the pon's (kan's) tile, from the
    left (3)."""
    if kind == MeldKind.KAN_CLOSED:
        if called is not None:
            raise _meld_error(text, "bad_melds", pos, "a closed kan has no called tile")
        if from_rel not in (None, 0):
            raise _meld_error(text, "bad_relative_seat", pos,
                              f"a closed kan comes from no one (from_rel 0), not {from_rel!r}")
        return None, 0
    if called is None:
        called = tiles[1] if kind == MeldKind.CHI else tiles[0]
    elif called not in tiles:
        raise _meld_error(text, "bad_melds", pos, f"called tile {called!r} is not part of "
                          f"{kind.token} {format_tiles(tiles)}")
    if from_rel is None:
        from_rel = 3
    if type(from_rel) is not int or not 1 <= from_rel <= 3:
        raise _meld_error(text, "bad_relative_seat", pos,
                          f"an open meld comes from seat 1, 2 or 3 (relative), not {from_rel!r}")
    if kind == MeldKind.CHI and from_rel != 3:
        raise _meld_error(text, "bad_relative_seat", pos,
                          f"chi is always called from the left (3), not {from_rel}")
    return called, from_rel


def _called_red(kind: MeldKind, tiles: tuple[int, ...], called: int | None, red: int,
                called_red: bool, text: str | None, pos: int | None) -> bool:
    """Whether the called tile is a red five, once the meld's count of red fives fits its
    fives (every five red: the called one too)."""
    fives = sum(1 for k in tiles if k in FIVES)
    if type(red) is not int or not 0 <= red <= fives:
        raise _meld_error(text, "too_many_red", pos, f"{red!r} red fives in {kind.token} "
                          f"{format_tiles(tiles)} (it has {fives} fives)")
    called_red = bool(called_red)
    if called in FIVES and red > fives - 1:
        called_red = True  # every five of the meld is red, the called one too
    if called_red and (red == 0 or called not in FIVES):
        raise _meld_error(text, "bad_red", pos,
                          "the called tile is marked red but is not a red five")
    return called_red


def _meld_from_args(kind: MeldKind, tiles: str | Iterable[int], called: int | str | None,
                    from_rel: int) -> Meld:
    red = 0
    called_red = False
    if isinstance(tiles, str):
        text = f"{kind.token}:{tiles}"
        m = parse_meld_token(text, text, 0)
        if called is None:
            return m
        kinds, red = list(m.tiles), m.red
    else:
        kinds = list(tiles)
    if isinstance(called, str):
        called, called_red = parse_tile_red(called)
        red = max(red, int(called_red))
    return Meld(kind, tuple(kinds), called, from_rel, red, called_red)


def _same_meld(kind: MeldKind, tile: int | str, from_rel: int, red: int) -> Meld:
    called_red = False
    if isinstance(tile, str):
        tile, called_red = parse_tile_red(tile)
        red = max(red, int(called_red))
    n = kind.size
    return Meld(kind, (tile,) * n, None if kind == MeldKind.KAN_CLOSED else tile, from_rel, red,
                called_red)


def parse_meld_token(token: str, text: str, offset: int) -> Meld:
    """Parse the meld token ``kind:tiles[<N]`` found at ``offset`` of ``text`` (errors name
    ``text`` and the position in it)."""
    colon = token.find(":")
    if colon < 0:
        raise _fail(text, "bad_melds", offset,
                    f"'{token}' is not a meld (write kind:tiles, e.g. pon:555z<2)")
    kind = TOKEN_KIND.get(token[:colon].lower())
    if kind is None:
        raise _fail(text, "bad_melds", offset,
                    f"unknown meld kind '{token[:colon]}' (chi, pon, kan, ankan, kakan)")
    body = token[colon + 1:]
    body_pos = offset + colon + 1
    from_rel: int | None = None
    lt = body.find("<")
    if lt >= 0:
        rel_text = body[lt + 1:]
        rel_pos = body_pos + lt  # the '<'
        if len(rel_text) != 1 or rel_text not in "0123":
            raise _fail(text, "bad_relative_seat", rel_pos,
                        f"'<{rel_text}' is not a relative seat (<1, <2 or <3)")
        from_rel = int(rel_text)
        if kind == MeldKind.KAN_CLOSED:
            raise _fail(text, "bad_relative_seat", rel_pos,
                        "a closed kan comes from no one; drop the '<N'")
        if from_rel == 0:
            raise _fail(text, "bad_relative_seat", rel_pos,
                        f"an open {kind.token} comes from another seat (<1, <2 or <3), not <0")
        if kind == MeldKind.CHI and from_rel != 3:
            raise _fail(text, "bad_relative_seat", rel_pos,
                        f"chi is always called from the left (<3), not <{from_rel}")
        body = body[:lt]
    if not body:
        raise _fail(text, "bad_melds", body_pos - 1, f"{kind.token} without tiles")
    codes = _scan(body, text, body_pos)
    for code, _red, pos in codes:
        if code >= _BONUS_BASE:
            raise _fail(text, "bad_melds", pos,
                        f"bonus tile {code - _BONUS_BASE + 1}f cannot be part of a set")
    if kind == MeldKind.KAN_ADDED and len(codes) == 3:
        codes.append((codes[0][0], False, codes[-1][2]))
    kinds = [c[0] for c in codes]
    red = sum(1 for c in codes if c[1])
    called = None if kind == MeldKind.KAN_CLOSED else codes[0][0] if codes else None
    called_red = kind != MeldKind.KAN_CLOSED and bool(codes) and codes[0][1]
    meld = object.__new__(Meld)
    setattr_ = object.__setattr__
    setattr_(meld, "kind", kind)
    setattr_(meld, "tiles", tuple(kinds))
    setattr_(meld, "called", called)
    setattr_(meld, "from_rel", from_rel)
    setattr_(meld, "red", red)
    setattr_(meld, "called_red", called_red)
    _validate_meld(meld, text, offset)
    return meld
