"""The hand value: closed tiles, called melds and bonus tiles.

Text form (``Hand.parse`` / ``str(hand)``)::

    123m406p789s1122z                  closed tiles, mpsz (or letter-first m123p406s789z1122)
    23m406p789s11z15f chi:324m pon:555z<2
                                       then bonus tiles (f) and melds, separated by spaces

Meld tokens: ``chi:324m`` (the first tile written is the called one; chi is always called from
the left, 3), ``pon:555z<2``, ``kan:5555p<1`` (open kan), ``ankan:1111s``, ``kakan:7777z<3``
(a pon upgraded to a kan; ``kakan:777z<3`` is accepted too). ``<N`` is who the tile came from:
1 shimocha (right), 2 toimen (across), 3 kamicha (left); it defaults to 3. Red fives are ``0``.
Aliases: chow, pung, kong/minkan/daiminkan, shouminkan.
"""
from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from .errors import InvalidHandError
from .tiles import (
    _BONUS_BASE,
    FIVES,
    MAX_COPIES,
    N_BONUS,
    N_KINDS,
    SUIT_LETTERS,
    TILE_NAMES,
    UNICODE_BONUS,
    UNICODE_TILES,
    _fail,
    _scan,
    check_counts,
    format_bonus,
    format_counts,
    format_packed,
    format_tiles,
    kinds_from_136,
    parse_tile_red,
    to_136,
)

if TYPE_CHECKING:
    import numpy as np

__all__ = ["Hand", "Meld", "MeldKind", "as_hand", "parse_counts"]

MAX_MELDS = 4


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
        return _KIND_TOKEN[self]

    @property
    def is_kan(self) -> bool:
        """True for KAN_OPEN, KAN_CLOSED and KAN_ADDED."""
        return self >= MeldKind.KAN_OPEN

    @property
    def size(self) -> int:
        """Tiles in the set: 4 for a kan, else 3."""
        return 4 if self >= MeldKind.KAN_OPEN else 3


_KIND_TOKEN = {MeldKind.CHI: "chi", MeldKind.PON: "pon", MeldKind.KAN_OPEN: "kan",
               MeldKind.KAN_CLOSED: "ankan", MeldKind.KAN_ADDED: "kakan"}
_TOKEN_KIND = {
    "chi": MeldKind.CHI, "chow": MeldKind.CHI,
    "pon": MeldKind.PON, "pung": MeldKind.PON,
    "kan": MeldKind.KAN_OPEN, "minkan": MeldKind.KAN_OPEN, "daiminkan": MeldKind.KAN_OPEN,
    "kong": MeldKind.KAN_OPEN,
    "ankan": MeldKind.KAN_CLOSED,
    "kakan": MeldKind.KAN_ADDED, "shouminkan": MeldKind.KAN_ADDED,
}
_REL_NAMES = {0: "own", 1: "shimocha", 2: "toimen", 3: "kamicha"}


def _meld_error(text: str | None, reason: str, position: int | None, what: str) -> InvalidHandError:
    if text is None:
        return InvalidHandError(f"meld: {what}", reason=reason)
    return _fail(text, reason, position, what)


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
            raise _fail(text, "bad_meld", 0, "expected one meld token such as 'pon:555z<2'")
        return _parse_meld(token, text, text.index(token))

    @classmethod
    def from_136(cls, kind: MeldKind | str, ids: Sequence[int], called_id: int | None = None,
                 from_rel: int | None = None) -> Meld:
        """From Tenhou 136-ids. ``kind`` may be a MeldKind or a name (``'kan-open'`` etc.)."""
        mk = _coerce_kind(kind)
        id_list = list(ids)
        kinds, reds = kinds_from_136(id_list)
        called = called_red = None
        if mk == MeldKind.KAN_CLOSED:
            from_rel = None if from_rel == 0 else from_rel  # a called id, if given, is ignored
        elif called_id is not None:
            if called_id not in id_list:
                raise InvalidHandError(f"meld: called tile id {called_id} is not among {id_list}",
                                       reason="bad_meld")
            called = called_id >> 2
            called_red = reds[id_list.index(called_id)]
        return cls(mk, tuple(sorted(kinds)), called, from_rel, sum(reds), bool(called_red))

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

    def __str__(self) -> str:
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
        text = f"{self.kind.token}:{''.join(digits)}{suit}"
        if self.kind in (MeldKind.PON, MeldKind.KAN_OPEN, MeldKind.KAN_ADDED):
            text += f"<{self.from_rel}"
        return text

    def __repr__(self) -> str:
        return f"Meld({str(self)!r})"


def _coerce_kind(kind: Any) -> MeldKind:
    if isinstance(kind, MeldKind):
        return kind
    if isinstance(kind, str):
        name = kind.lower().replace("-", "").replace("_", "")
        aliases = {"kanopen": MeldKind.KAN_OPEN, "kanclosed": MeldKind.KAN_CLOSED,
                   "kanadded": MeldKind.KAN_ADDED}
        if name in aliases:
            return aliases[name]
        if name in _TOKEN_KIND:
            return _TOKEN_KIND[name]
    if isinstance(kind, int) and not isinstance(kind, bool) and 0 <= kind <= 4:
        return MeldKind(kind)
    raise InvalidHandError(f"meld: unknown meld kind {kind!r}", reason="bad_meld")


def _validate_meld(m: Meld, text: str | None, pos: int | None) -> None:
    """Check and normalise a Meld in place (it is frozen, so via object.__setattr__)."""
    kind = _coerce_kind(m.kind)
    tiles = m.tiles
    if not isinstance(tiles, tuple):
        try:
            tiles = tuple(tiles)
        except TypeError:
            raise _meld_error(text, "bad_meld", pos, f"tiles {m.tiles!r} are not a sequence") from None
    for k in tiles:
        if type(k) is not int or not 0 <= k < N_KINDS:
            raise _meld_error(text, "bad_meld", pos, f"{k!r} is not a tile kind id")
    tiles = tuple(sorted(tiles))
    n = len(tiles)
    name = kind.token

    def written() -> str:
        return format_tiles(tiles)

    if n != kind.size:
        raise _meld_error(text, "bad_meld", pos,
                          f"{name} needs {kind.size} tiles, got {n} ({written()})")
    if kind == MeldKind.CHI:
        first = tiles[0]
        if first >= 27:
            raise _meld_error(text, "bad_meld", pos, f"chi of honors ({written()}) is not a set")
        if first // 9 != tiles[2] // 9 or tiles[1] != first + 1 or tiles[2] != first + 2:
            raise _meld_error(text, "bad_meld", pos,
                              f"chi {written()} is not three consecutive tiles of one suit")
    elif tiles[0] != tiles[-1]:
        raise _meld_error(text, "bad_meld", pos, f"{name} {written()} is not {n} of the same tile")
    called = m.called
    from_rel = m.from_rel
    if kind == MeldKind.KAN_CLOSED:
        if called is not None:
            raise _meld_error(text, "bad_meld", pos, "a closed kan has no called tile")
        if from_rel not in (None, 0):
            raise _meld_error(text, "bad_relative_seat", pos,
                              f"a closed kan comes from no one (from_rel 0), not {from_rel!r}")
        from_rel = 0
    else:
        if called is None:
            called = tiles[1] if kind == MeldKind.CHI else tiles[0]
        elif called not in tiles:
            raise _meld_error(text, "bad_meld", pos,
                              f"called tile {called!r} is not part of {name} {written()}")
        if from_rel is None:
            from_rel = 3
        if type(from_rel) is not int or not 1 <= from_rel <= 3:
            raise _meld_error(text, "bad_relative_seat", pos,
                              f"an open meld comes from seat 1, 2 or 3 (relative), not {from_rel!r}")
        if kind == MeldKind.CHI and from_rel != 3:
            raise _meld_error(text, "bad_relative_seat", pos,
                              f"chi is always called from the left (3), not {from_rel}")
    red = m.red
    fives = sum(1 for k in tiles if k in FIVES)
    if type(red) is not int or not 0 <= red <= fives:
        raise _meld_error(text, "too_many_red", pos,
                          f"{red!r} red fives in {name} {written()} (it has {fives} fives)")
    called_red = bool(m.called_red)
    if called in FIVES and red > fives - 1:
        called_red = True  # every five of the meld is red, the called one too
    if called_red and (red == 0 or called not in FIVES):
        raise _meld_error(text, "bad_red", pos, "the called tile is marked red but is not a red five")
    setattr_ = object.__setattr__
    setattr_(m, "kind", kind)
    setattr_(m, "tiles", tiles)
    setattr_(m, "called", called)
    setattr_(m, "from_rel", from_rel)
    setattr_(m, "called_red", called_red)


def _meld_from_args(kind: MeldKind, tiles: str | Iterable[int], called: int | str | None,
                    from_rel: int) -> Meld:
    red = 0
    called_red = False
    if isinstance(tiles, str):
        text = f"{kind.token}:{tiles}"
        m = _parse_meld(text, text, 0)
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


def _parse_meld(token: str, text: str, offset: int) -> Meld:
    """Parse ``kind:tiles[<N]`` found at ``offset`` of ``text``."""
    colon = token.find(":")
    if colon < 0:
        raise _fail(text, "bad_meld", offset,
                    f"'{token}' is not a meld (write kind:tiles, e.g. pon:555z<2)")
    name = token[:colon].lower()
    kind = _TOKEN_KIND.get(name)
    if kind is None:
        raise _fail(text, "bad_meld", offset,
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
        raise _fail(text, "bad_meld", body_pos - 1, f"{kind.token} without tiles")
    codes = _scan(body, text, body_pos)
    for code, _red, pos in codes:
        if code >= _BONUS_BASE:
            raise _fail(text, "bad_meld", pos,
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


# -- Hand ---------------------------------------------------------------------------------------

_ZERO_RED = (0, 0, 0)
_ONE_RED = (1, 1, 1)
_hand_setattr = object.__setattr__


class Hand:
    """An immutable hand: closed tiles as 34 counts, red fives, called melds, bonus tiles.

    ``counts``: closed-tile counts (red fives counted as fives); ``red``: red fives among the
    closed tiles per suit (m, p, s); ``melds``: called sets; ``bonus``: sorted bonus ids.
    ``_packed`` (34 bytes of ``counts``) and ``n_melds`` are what the compiled kernels read.
    Build with ``Hand.parse``, ``Hand.from_counts``, ``Hand.from_136`` or ``Hand.from_tiles``.
    """

    __slots__ = (
        "_array",
        "_hash",
        "_packed",
        "_text",
        "bonus",
        "counts",
        "melds",
        "n_closed",
        "n_melds",
        "red",
    )

    counts: tuple[int, ...]
    red: tuple[int, int, int]
    melds: tuple[Meld, ...]
    bonus: tuple[int, ...]
    n_melds: int
    n_closed: int
    _packed: bytes

    def __init__(self, counts: Sequence[int], red: Sequence[int] = _ZERO_RED,
                 melds: Iterable[Meld] = (), bonus: Iterable[int] = (), *,
                 max_red: int | Sequence[int] = 1) -> None:
        counts_t = tuple(check_counts(counts, "hand counts"))
        try:
            red_t = tuple(int(r) for r in red)
        except (TypeError, ValueError):
            raise InvalidHandError(f"hand red fives {red!r}: expected 3 integers",
                                   reason="bad_red") from None
        if len(red_t) != 3:
            raise InvalidHandError(f"hand red fives {red!r}: expected 3 (m, p, s)", reason="bad_red")
        melds_t = tuple(melds)
        for m in melds_t:
            if not isinstance(m, Meld):
                raise InvalidHandError(f"hand melds: {m!r} is not a Meld", reason="bad_meld")
        bonus_l = []
        for b in bonus:
            if type(b) is not int or not 0 <= b < N_BONUS:
                raise InvalidHandError(f"hand bonus tiles: {b!r} is not a bonus id 0..7",
                                       reason="bad_bonus")
            bonus_l.append(b)
        bonus_t = tuple(sorted(bonus_l))
        for i in range(1, len(bonus_t)):
            if bonus_t[i] == bonus_t[i - 1]:
                raise InvalidHandError(f"hand bonus tiles: a second {bonus_t[i] + 1}f (each "
                                       "bonus tile exists once)", reason="duplicate_bonus")
        _check_hand(counts_t, red_t, melds_t, max_red)
        self._init(counts_t, red_t, melds_t, bonus_t)

    def _init(self, counts: tuple[int, ...], red: tuple[int, ...], melds: tuple[Meld, ...],
              bonus: tuple[int, ...]) -> None:
        s = _hand_setattr
        s(self, "counts", counts)
        s(self, "red", red)
        s(self, "melds", melds)
        s(self, "bonus", bonus)
        s(self, "n_melds", len(melds))
        s(self, "n_closed", sum(counts))
        s(self, "_packed", bytes(counts))

    @classmethod
    def _trusted(cls, counts: tuple[int, ...], red: tuple[int, ...], melds: tuple[Meld, ...],
                 bonus: tuple[int, ...] = ()) -> Hand:
        """Build without validation (the caller has checked everything)."""
        self = object.__new__(cls)
        self._init(counts, red, melds, bonus)
        return self

    # -- constructors --------------------------------------------------------------------------

    @classmethod
    def parse(cls, text: str, *, max_red: int | Sequence[int] = 1) -> Hand:
        """Parse mpsz / letter-first / Unicode text with optional bonus tiles and melds."""
        if not isinstance(text, str):
            raise InvalidHandError(f"hand {text!r}: not a string", reason="bad_type")
        return _parse_hand(text, _red_limits(max_red))

    @classmethod
    def from_counts(cls, counts: Sequence[int], melds: Iterable[Meld] = (),
                    red: Sequence[int] = _ZERO_RED, bonus: Iterable[int] = (), *,
                    max_red: int | Sequence[int] = 1) -> Hand:
        """From 34 closed counts (numpy arrays welcome)."""
        return cls(counts, red, melds, bonus, max_red=max_red)

    @classmethod
    def from_tiles(cls, kinds: Iterable[int], reds: Iterable[bool] | None = None,
                   melds: Iterable[Meld] = (), bonus: Iterable[int] = (), *,
                   max_red: int | Sequence[int] = 1) -> Hand:
        """From closed tile kind ids (0..33, repeats allowed); ``reds`` flags which of them
        are red fives (same length as ``kinds``). ``max_red``: most red fives per suit (one int or
        three for m, p, s). Raises InvalidHandError naming the bad tile.
        """
        counts = [0] * N_KINDS
        red = [0, 0, 0]
        kinds = list(kinds)
        flags = [False] * len(kinds) if reds is None else list(reds)
        if len(flags) != len(kinds):
            raise InvalidHandError("Hand.from_tiles: kinds and reds differ in length",
                                   reason="bad_input")
        for k, r in zip(kinds, flags):
            if type(k) is not int or not 0 <= k < N_KINDS:
                raise InvalidHandError(f"hand tiles: {k!r} is not a tile kind id 0..33",
                                       reason="bad_tile")
            counts[k] += 1
            if r:
                if k not in FIVES:
                    raise InvalidHandError(f"hand tiles: {TILE_NAMES[k]} cannot be red",
                                           reason="bad_red")
                red[k // 9] += 1
        return cls(counts, red, melds, bonus, max_red=max_red)

    @classmethod
    def from_136(cls, ids: Iterable[int], melds: Iterable[Meld] = (), bonus: Iterable[int] = (),
                 *, max_red: int | Sequence[int] = 1) -> Hand:
        """From Tenhou 136-ids of the closed tiles (16, 52, 88 are the red fives)."""
        kinds, reds = kinds_from_136(ids)
        return cls.from_tiles(kinds, reds, melds, bonus, max_red=max_red)

    # -- views ---------------------------------------------------------------------------------

    def counts_array(self) -> np.ndarray:
        """The closed counts as a read-only numpy ``(34,)`` uint8 array (cached)."""
        arr = getattr(self, "_array", None)
        if arr is None:
            import numpy as np

            arr = np.frombuffer(self._packed, dtype=np.uint8)
            _hand_setattr(self, "_array", arr)
        return arr

    @property
    def tiles(self) -> tuple[int, ...]:
        """The closed tiles as sorted kind ids."""
        out: list[int] = []
        for k, c in enumerate(self.counts):
            if c:
                out.extend((k,) * c)
        return tuple(out)

    @property
    def all_counts(self) -> tuple[int, ...]:
        """Counts of closed and meld tiles together."""
        if not self.melds:
            return self.counts
        counts = list(self.counts)
        for m in self.melds:
            for k in m.tiles:
                counts[k] += 1
        return tuple(counts)

    @property
    def n_tiles(self) -> int:
        """Closed tiles plus meld tiles (a kan counts 4)."""
        return self.n_closed + sum(len(m.tiles) for m in self.melds)

    @property
    def is_closed(self) -> bool:
        """No open melds (closed kans allowed): menzen."""
        return all(m.kind == MeldKind.KAN_CLOSED for m in self.melds)

    @property
    def n_kans(self) -> int:
        """Number of kans among the melds (open, closed and added)."""
        return sum(1 for m in self.melds if m.kind >= MeldKind.KAN_OPEN)

    @property
    def red_total(self) -> int:
        """Red fives among closed and meld tiles."""
        return sum(self.red) + sum(m.red for m in self.melds)

    def require_tiles(self, *totals: int) -> int:
        """Check the closed size is ``T - 3 * n_melds`` for one of ``totals`` (e.g. 13, 14).

        Returns the matching total; raises InvalidHandError (``wrong_tile_count``) otherwise.
        """
        if not totals:
            totals = (13, 14)
        k3 = 3 * len(self.melds)
        for t in totals:
            if self.n_closed == t - k3:
                return t
        want = " or ".join(str(t - k3) for t in totals)
        raise InvalidHandError(
            f"hand '{self}': {self.n_closed} closed tiles with {len(self.melds)} meld(s); "
            f"expected {want} ({' or '.join(f'{t}-3x{len(self.melds)}' for t in totals)})",
            reason="wrong_tile_count", text=str(self))

    # -- derived hands -------------------------------------------------------------------------

    def add(self, tile: int | str) -> Hand:
        """This hand with one more closed tile (``'0p'`` adds a red five)."""
        kind, red = _tile_arg(tile)
        counts = list(self.counts)
        counts[kind] += 1
        reds = list(self.red)
        if red:
            reds[kind // 9] += 1
        return Hand(counts, reds, self.melds, self.bonus, max_red=MAX_COPIES)

    def remove(self, tile: int | str) -> Hand:
        """This hand without one closed copy of ``tile``.

        Removing a plain five keeps the red one when there is a plain copy; ``'0m'`` removes
        the red five.
        """
        kind, red = _tile_arg(tile)
        if not self.counts[kind]:
            raise InvalidHandError(f"hand '{self}': no {TILE_NAMES[kind]} to remove",
                                   reason="tile_not_in_hand")
        reds = list(self.red)
        if kind in FIVES:
            s = kind // 9
            if red:
                if not reds[s]:
                    raise InvalidHandError(f"hand '{self}': no red {TILE_NAMES[kind]} to remove",
                                           reason="tile_not_in_hand")
                reds[s] -= 1
            elif reds[s] == self.counts[kind]:
                reds[s] -= 1
        counts = list(self.counts)
        counts[kind] -= 1
        return Hand._trusted(tuple(counts), tuple(reds), self.melds, self.bonus)

    def with_melds(self, melds: Iterable[Meld]) -> Hand:
        """A new hand with these closed tiles, red fives and bonus tiles and ``melds`` in place of
        the current melds (checked again, without the red-five limit).
        """
        return Hand(self.counts, self.red, melds, self.bonus, max_red=MAX_COPIES)

    # -- conversions ---------------------------------------------------------------------------

    def to_136(self) -> list[int]:
        """Distinct 136-ids for the closed tiles (copies chosen so melds can take the rest)."""
        kinds = self.tiles
        flags = []
        left = list(self.red)
        for k in kinds:
            if k in FIVES and left[k // 9]:
                left[k // 9] -= 1
                flags.append(True)
            else:
                flags.append(False)
        return to_136(kinds, flags)

    def format(self, *, letter_first: bool = False, unicode: bool = False) -> str:
        """Text form. ``unicode=True`` gives Unicode tiles (closed, then bonus, then melds)."""
        if unicode:
            parts = ["".join(UNICODE_TILES[k] for k in self.tiles)
                     + "".join(UNICODE_BONUS[b] for b in self.bonus)]
            parts += ["".join(UNICODE_TILES[k] for k in m.tiles) for m in self.melds]
            return " ".join(p for p in parts if p)
        if self.red == _ZERO_RED and not letter_first:
            closed = format_packed(self._packed)
        else:
            closed = format_counts(self.counts, self.red, letter_first=letter_first)
        if self.bonus:
            bonus = format_bonus(self.bonus)
            closed += ("f" + bonus[:-1]) if letter_first else bonus
        if not self.melds:
            return closed
        texts = _MELD_TEXT
        melds = []
        for m in self.melds:
            known = texts.get(id(m))
            melds.append(known[1] if known is not None and known[0] is m else str(m))
        if letter_first:
            melds = [_letter_first_meld(s) for s in melds]
        return " ".join(([closed] if closed else []) + melds)

    def __str__(self) -> str:
        try:
            return self._text  # type: ignore[attr-defined]
        except AttributeError:
            text = self.format()
            _hand_setattr(self, "_text", text)
            return text

    def __repr__(self) -> str:
        return f"Hand({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not Hand:
            return NotImplemented
        return (self.counts == other.counts and self.red == other.red  # type: ignore[attr-defined]
                and self.melds == other.melds and self.bonus == other.bonus)  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        h = getattr(self, "_hash", None)
        if h is None:
            h = hash((self.counts, self.red, self.melds, self.bonus))
            _hand_setattr(self, "_hash", h)
        return h

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Hand is immutable (cannot set {name!r})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"Hand is immutable (cannot delete {name!r})")

    def __reduce__(self) -> tuple[Any, ...]:
        return (Hand._trusted, (self.counts, self.red, self.melds, self.bonus))

    def __copy__(self) -> Hand:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> Hand:
        return self


# Slot setters of Hand: the fast constructors fill the slots without object.__setattr__.
_new_hand = object.__new__
_set_counts, _set_red, _set_melds, _set_bonus, _set_n_melds, _set_n_closed, _set_packed, \
    _set_text = (Hand.__dict__[name].__set__ for name in (
        "counts", "red", "melds", "bonus", "n_melds", "n_closed", "_packed", "_text"))


def _letter_first_meld(text: str) -> str:
    name, rest = text.split(":", 1)
    rel = ""
    if "<" in rest:
        rest, rel = rest.split("<")
        rel = "<" + rel
    return f"{name}:{rest[-1]}{rest[:-1]}{rel}"


def _tile_arg(tile: int | str) -> tuple[int, bool]:
    if isinstance(tile, str):
        return parse_tile_red(tile)
    if type(tile) is not int or not 0 <= tile < N_KINDS:
        raise InvalidHandError(f"tile {tile!r}: not a tile kind id 0..33", reason="bad_tile")
    return tile, False


def _red_limits(max_red: int | Sequence[int]) -> tuple[int, int, int]:
    if max_red == 1:
        return _ONE_RED
    if isinstance(max_red, int):
        return (max_red, max_red, max_red)
    lim = tuple(int(x) for x in max_red)
    if len(lim) != 3:
        raise InvalidHandError(f"max_red {max_red!r}: one int or three (m, p, s)", reason="bad_red")
    return lim  # type: ignore[return-value]


def _check_hand(counts: tuple[int, ...], red: tuple[int, ...], melds: tuple[Meld, ...],
                max_red: int | Sequence[int]) -> None:
    if len(melds) > MAX_MELDS:
        raise InvalidHandError(f"hand: {len(melds)} melds (at most 4)", reason="too_many_melds")
    limits = _red_limits(max_red)
    meld_red = [0, 0, 0]
    if melds:
        total = list(counts)
        for m in melds:
            for k in m.tiles:
                total[k] += 1
            if m.red:
                meld_red[m.tiles[0] // 9] += m.red
        for k, c in enumerate(total):
            if c > MAX_COPIES:
                raise InvalidHandError(
                    f"hand: {c} copies of {TILE_NAMES[k]} counting melds (at most 4)",
                    reason="too_many_copies")
    if red == _ZERO_RED and not melds:
        return
    for s in range(3):
        r = red[s]
        if r < 0 or r > counts[FIVES[s]]:
            raise InvalidHandError(
                f"hand: {r} red {TILE_NAMES[FIVES[s]]} among {counts[FIVES[s]]} closed fives",
                reason="bad_red")
        if r + meld_red[s] > limits[s]:
            raise InvalidHandError(
                f"hand: {r + meld_red[s]} red 0{SUIT_LETTERS[s]} (the set has {limits[s]})",
                reason="too_many_red")


_TOKEN_RE = re.compile(r"\S+")


def _parse_hand(text: str, limits: tuple[int, int, int]) -> Hand:
    if "0" not in text:
        hand = _plain_hand(text)
        if hand is not None:
            return hand
    plain = _plain_counts(text, limits)
    if plain is not None:
        return Hand._trusted(tuple(plain[0]), tuple(plain[1]), ())
    return _parse_tokens(text, limits)


# Meld tokens already parsed (the meld depends on the token alone; Melds are immutable, so the
# hands share them). Valid tokens are few; the size bound only matters for odd spellings.
_MELD_OF_TOKEN: dict[str, Meld] = {}
_MELD_TEXT: dict[int, tuple[Meld, str]] = {}  # by id: those melds' str()


def _parse_tokens(text: str, limits: tuple[int, int, int]) -> Hand:
    """The general parser: closed tiles, bonus tiles and melds, token by token."""
    counts = [0] * N_KINDS
    red = [0, 0, 0]
    bonus: list[int] = []
    melds: list[Meld] = []
    for match in _TOKEN_RE.finditer(text):
        token = match.group()
        start = match.start()
        if not start and "0" not in token:
            plain = _plain_packed(token)
            if plain is not None:  # a plain first token: its counts, nothing to check
                counts = list(plain[0])
                continue
        if ":" in token:
            if len(melds) == MAX_MELDS:
                raise _fail(text, "too_many_melds", start, "a fifth meld (at most 4)")
            meld = _MELD_OF_TOKEN.get(token)
            if meld is None:
                meld = _parse_meld(token, text, start)
                if len(_MELD_OF_TOKEN) < 8192:
                    _MELD_OF_TOKEN[token] = meld
                    _MELD_TEXT[id(meld)] = (meld, str(meld))
            melds.append(meld)
            red_seen = 0
            for k in meld.tiles:
                counts[k] += 1
                if counts[k] > MAX_COPIES:
                    raise _fail(text, "too_many_copies", start,
                                f"a fifth {TILE_NAMES[k]} (in the meld)")
            if meld.red:
                s = meld.tiles[0] // 9
                red[s] += meld.red
                red_seen = red[s]
                if red_seen > limits[s]:
                    raise _fail(text, "too_many_red", start, _red_what(s, limits[s]))
            continue
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
    if not melds and not bonus and not any(counts):
        raise _fail(text, "empty", None, "no tiles")
    # Meld tiles were counted above for the copy check; take them back out of the closed part.
    closed_red = red
    if melds:
        closed_red = list(red)
        for m in melds:
            for k in m.tiles:
                counts[k] -= 1
            if m.red:
                closed_red[m.tiles[0] // 9] -= m.red
    bonus.sort()
    return Hand._trusted(tuple(counts), tuple(closed_red), tuple(melds), tuple(bonus))


def _red_what(suit: int, limit: int) -> str:
    noun = "one" if limit == 1 else str(limit)
    return f"too many red fives 0{SUIT_LETTERS[suit]} (the set has {noun})"


# -- fast paths ---------------------------------------------------------------------------------

_PLAIN_RE = re.compile(r"(?:[0-9]+[mps]|[1-7]+z)+")
_GROUP_RE = re.compile(r"([0-9]+)([mpsz])")
_KIND_OF = {
    suit: {str(n): base + (4 if n == 0 else n - 1) for n in range(10 if suit != "z" else 8)}
    for suit, base in (("m", 0), ("p", 9), ("s", 18), ("z", 27))
}
_SUIT_INDEX = {"m": 0, "p": 1, "s": 2}


# mpsz without red fives, groups in m p s z order, digits ascending, at most 4 of each:
# str(hand) gives it back
_CANONICAL_RE = re.compile(
    "".join(f"(?:{''.join(f'{n}{{0,4}}+' for n in range(1, 10))}(?<=[1-9]){s})?+" for s in "mps")
    + f"(?:{''.join(f'{n}{{0,4}}+' for n in range(1, 8))}(?<=[1-7])z)?+")
_AT_MOST_FOUR = bytes(range(MAX_COPIES + 1))
_PLAIN_NO_RED_RE = re.compile(r"(?:[1-9]+[mps]|[1-7]+z)+")
# per suit letter (as a byte): a table from character byte to kind, -1 for the suit letters
_KIND_OF_BYTE: list[list[int] | None] = [None] * 128
for _suit, _base in (("m", 0), ("p", 9), ("s", 18), ("z", 27)):
    _table = [-1] * 128
    for _n in range(1, 8 if _suit == "z" else 10):
        _table[48 + _n] = _base + _n - 1
    _KIND_OF_BYTE[ord(_suit)] = _table


def _plain_packed(text: str) -> tuple[bytes, bool] | None:
    """Closed counts (34 bytes) of plain mpsz without red fives and whether ``text`` is how
    ``str`` writes them, or None: not plain, or a fifth copy."""
    if not text or len(text) > 255:
        return None
    canonical = _CANONICAL_RE.fullmatch(text) is not None
    if not canonical and _PLAIN_NO_RED_RE.fullmatch(text) is None:
        return None
    counts = bytearray(N_KINDS)
    tables = _KIND_OF_BYTE
    kind_of = tables[109]  # the text ends with a suit letter, which sets it
    for c in reversed(text.encode()):
        k = kind_of[c]  # type: ignore[index]
        if k < 0:
            kind_of = tables[c]
        else:
            counts[k] += 1
    packed = bytes(counts)
    if not canonical and packed.translate(None, _AT_MOST_FOUR):
        return None  # a fifth copy
    return packed, canonical


def _plain_hand(text: str) -> Hand | None:
    """A closed hand written in plain mpsz without red fives, or None (other parsers run)."""
    plain = _plain_packed(text)
    if plain is None:
        return None
    packed, canonical = plain
    h = _new_hand(Hand)
    _set_counts(h, tuple(packed))
    _set_red(h, _ZERO_RED)
    _set_melds(h, ())
    _set_bonus(h, ())
    _set_n_melds(h, 0)
    _set_n_closed(h, sum(packed))
    _set_packed(h, packed)
    if canonical:
        _set_text(h, text)
    return h


def _plain_counts(text: str, limits: tuple[int, int, int]) -> tuple[list[int], list[int]] | None:
    """Counts and red fives of a plain valid mpsz hand, or None (then the full parser runs)."""
    if not _PLAIN_RE.fullmatch(text):
        return None
    counts = [0] * N_KINDS
    red = [0, 0, 0]
    for digits, suit in _GROUP_RE.findall(text):
        kind_of = _KIND_OF[suit]
        for ch in digits:
            counts[kind_of[ch]] += 1
        if "0" in digits:
            s = _SUIT_INDEX[suit]
            red[s] += digits.count("0")
            if red[s] > limits[s]:
                return None
    if max(counts) > MAX_COPIES:
        return None
    return counts, red


def parse_counts(text: str, *, max_red: int | Sequence[int] = 1) -> tuple[list[int], int]:
    """Text -> (closed counts as a 34-list, number of melds); red fives count as fives.

    Plain mpsz hands take a fast path; anything else (melds, letter-first, errors) goes
    through ``Hand.parse``, which raises InvalidHandError with the position.
    """
    if type(text) is str:
        plain = _plain_counts(text, _red_limits(max_red))
        if plain is not None:
            return plain[0], 0
    hand = Hand.parse(text, max_red=max_red)
    return list(hand.counts), len(hand.melds)


@lru_cache(maxsize=4096)
def _parse_cached(text: str) -> Hand:
    return _parse_hand(text, (1, 1, 1))


def as_hand(x: Hand | str) -> Hand:
    """A Hand as is, or an mpsz string parsed (cached). Anything else: InvalidHandError."""
    if x.__class__ is Hand:
        return x  # type: ignore[return-value]
    if isinstance(x, str):
        return _parse_cached(x)
    if isinstance(x, Hand):
        return x
    raise InvalidHandError(f"expected a Hand or an mpsz string, got {type(x).__name__}",
                           reason="bad_type")

