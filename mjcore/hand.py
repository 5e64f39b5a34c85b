"""The hand value: closed tiles, red fives, called melds and bonus tiles.

Its text form is :mod:`mjcore.notation` (``Hand.parse`` / ``str(hand)``); melds are
:mod:`mjcore.melds`. ``Meld`` and ``MeldKind`` are importable from here as well.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from .errors import InvalidHandError
from .melds import Meld, MeldKind
from .notation import MAX_MELDS, format_hand, parse_plain, parse_tokens
from .tiles import (
    FIVES,
    MAX_COPIES,
    N_BONUS,
    N_KINDS,
    SUIT_LETTERS,
    TILE_NAMES,
    check_counts,
    kinds_from_136,
    parse_tile_red,
    to_136,
)

if TYPE_CHECKING:
    import numpy as np

__all__ = ["Hand", "Meld", "MeldKind", "as_hand", "check_copies", "copies_detail", "parse_counts"]


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
    _text: str

    def __init__(self, counts: Sequence[int] | np.ndarray, red: Sequence[int] = _ZERO_RED,
                 melds: Iterable[Meld] = (), bonus: Iterable[int] = (), *,
                 max_red: int | Sequence[int] = 1) -> None:
        counts_t = tuple(check_counts(counts, "hand counts"))
        try:
            red_t = tuple(int(r) for r in red)
        except (TypeError, ValueError):
            raise InvalidHandError(f"hand red fives {red!r}: expected 3 integers",
                                   reason="bad_red") from None
        if len(red_t) != 3:
            raise InvalidHandError(f"hand red fives {red!r}: expected 3 (m, p, s)",
                                   reason="bad_red")
        melds_t = tuple(melds)
        for m in melds_t:
            if not isinstance(m, Meld):
                raise InvalidHandError(f"hand melds: {m!r} is not a Meld", reason="bad_melds")
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
    def from_counts(cls, counts: Sequence[int] | np.ndarray, melds: Iterable[Meld] = (),
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
                                   reason="bad_shape")
        for k, r in zip(kinds, flags, strict=True):
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
                                   reason="tile_not_held")
        reds = list(self.red)
        if kind in FIVES:
            s = kind // 9
            if red:
                if not reds[s]:
                    raise InvalidHandError(f"hand '{self}': no red {TILE_NAMES[kind]} to remove",
                                           reason="tile_not_held")
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
        """Text form (see :mod:`mjcore.notation`). ``unicode=True`` gives Unicode tiles (closed,
        then bonus, then melds)."""
        return format_hand(self.counts, self.red, self.melds, self.bonus, self._packed,
                           letter_first, unicode)

    def __str__(self) -> str:
        try:
            return self._text
        except AttributeError:
            text = format_hand(self.counts, self.red, self.melds, self.bonus, self._packed)
            _hand_setattr(self, "_text", text)
            return text

    def __repr__(self) -> str:
        return f"Hand({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not Hand:
            return NotImplemented
        return (self.counts == other.counts and self.red == other.red
                and self.melds == other.melds and self.bonus == other.bonus)

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
        raise InvalidHandError(f"max_red {max_red!r}: one int or three (m, p, s)",
                               reason="bad_red")
    return lim[0], lim[1], lim[2]


def _check_hand(counts: tuple[int, ...], red: tuple[int, ...], melds: tuple[Meld, ...],
                max_red: int | Sequence[int]) -> None:
    if len(melds) > MAX_MELDS:
        raise InvalidHandError(f"hand: {len(melds)} melds (at most 4)", reason="bad_melds")
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


# the words check_copies' callers name their places with -> the input (InvalidHandError.part)
PARTS = {"the hand": "hand", "its melds": "melds", "dora indicators": "dora",
         "ura indicators": "ura", "the visible tiles": "visible",
         "the norths set aside": "kita"}


def copies_detail(places: Sequence[tuple[str, Sequence[int]]]) -> str | None:
    """"1z: 5 copies (2 in the hand, 3 in the visible tiles); at most 4" for the first kind
    of which ``places`` (``(where, 34 counts)``) hold more than 4 together; None when none."""
    found = _copies_over(places)
    return None if found is None else found[0]


def _copies_over(places: Sequence[tuple[str, Sequence[int]]]) -> tuple[str, str] | None:
    """``copies_detail`` and the place whose copies pass 4 (counting in the order given)."""
    totals = [sum(column) for column in zip(*(c for _, c in places), strict=True)]
    if not totals or max(totals) <= MAX_COPIES:
        return None
    for k in range(N_KINDS):
        total = sum(int(c[k]) for _, c in places)
        if total > MAX_COPIES:
            parts = ", ".join(f"{int(c[k])} in {where}" for where, c in places if c[k])
            return (f"{TILE_NAMES[k]}: {total} copies ({parts}); at most {MAX_COPIES}",
                    _passing(places, k, MAX_COPIES))
    return None


def _passing(places: Sequence[tuple[str, Sequence[int]]], index: int, limit: int) -> str:
    """The place where the running count of ``index`` first passes ``limit``."""
    seen = 0
    for where, counts in places:
        seen += int(counts[index])
        if seen > limit:
            return where
    return places[-1][0]


def check_copies(hand: Hand, *others: tuple[str, Iterable[int]],
                 red: Iterable[tuple[str, Iterable[int]]] = ()) -> None:
    """Raise InvalidHandError (reason ``too_many_copies``) naming the tile and where its
    copies are when ``hand`` (closed tiles and melds) and ``others`` (``(where, kinds)``, one
    kind per copy: indicators, visible tiles) hold more than 4 of a kind, or when the red
    fives of the hand and of ``red`` (``(where, suits 0-2)``) are more than 1 of a suit.
    The error's ``part`` is the input whose copies pass the limit (``PARTS``)."""
    places: list[tuple[str, list[int]]] = [("the hand", list(hand.counts))]
    hand_red = list(hand.red)      # the closed tiles' and the melds' red fives
    if hand.melds:
        in_melds = [0] * N_KINDS
        for m in hand.melds:
            for k in m.tiles:
                in_melds[k] += 1
            if m.red:
                hand_red[m.tiles[0] // 9] += m.red
        places.append(("its melds", in_melds))
    for where, kinds in others:
        counts = [0] * N_KINDS
        for k in kinds:
            counts[k] += 1
        places.append((where, counts))
    too_many = _copies_over(places)
    if too_many:
        message, where = too_many
        raise InvalidHandError(message, reason="too_many_copies", part=PARTS.get(where))
    red_places = [("the hand", hand_red)]
    for where, suits in red:
        counts = [0, 0, 0]
        for s in suits:
            counts[s] += 1
        red_places.append((where, counts))
    for s in range(3):
        total = sum(c[s] for _, c in red_places)
        if total > 1:
            parts = ", ".join(f"{c[s]} in {where}" for where, c in red_places if c[s])
            raise InvalidHandError(f"0{SUIT_LETTERS[s]}: {total} red fives ({parts}); at most 1",
                                   reason="too_many_copies",
                                   part=PARTS.get(_passing(red_places, s, 1)))


def _parse_hand(text: str, limits: tuple[int, int, int]) -> Hand:
    plain = parse_plain(text, limits)
    if plain is None:
        return Hand._trusted(*parse_tokens(text, limits))
    packed, red, canonical = plain
    h = _new_hand(Hand)
    _set_counts(h, tuple(packed))
    _set_red(h, red)
    _set_melds(h, ())
    _set_bonus(h, ())
    _set_n_melds(h, 0)
    _set_n_closed(h, sum(packed))
    _set_packed(h, packed)
    if canonical:
        _set_text(h, text)
    return h


def parse_counts(text: str, *, max_red: int | Sequence[int] = 1) -> tuple[list[int], int]:
    """Text -> (closed counts as a 34-list, number of melds); red fives count as fives.

    Plain mpsz hands take the parser's fast path; anything else (melds, letter-first, errors)
    goes through the parser, which raises InvalidHandError with the position.
    """
    if type(text) is str:
        limits = _red_limits(max_red)
        plain = parse_plain(text, limits)
        if plain is not None:
            return list(plain[0]), 0
        counts, _red, melds, _bonus = parse_tokens(text, limits)
        return list(counts), len(melds)
    hand = Hand.parse(text, max_red=max_red)  # not a str: a bad_type error
    return list(hand.counts), len(hand.melds)


@lru_cache(maxsize=4096)
def _parse_cached(text: str) -> Hand:
    return _parse_hand(text, _ONE_RED)


def as_hand(x: Hand | str) -> Hand:
    """A Hand as is, or an mpsz string parsed (cached). Anything else: InvalidHandError."""
    if x.__class__ is Hand:
        return x
    if isinstance(x, str):
        return _parse_cached(x)
    if isinstance(x, Hand):
        return x
    raise InvalidHandError(f"expected a Hand or an mpsz string, got {type(x).__name__}",
                           reason="bad_type")
