"""Small immutable result values returned by the single-hand API, and the base of the batch
results (per-row statuses, their errors)."""
from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter
from typing import TYPE_CHECKING, Self

from .errors import BatchError, InvalidHandError
from .status import BAD_COUNT, BAD_TOTAL, BY_CODE, reason_of, status_error

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    import numpy as np  # not at run time: `import mjcore` does not load numpy

_remaining_of = attrgetter("remaining")


class RowResults:
    """Base of the batch results (``mjcore.batch.BatchResult``, ``BatchScores``): ``status``
    per row from mjcore.status (0 ok, 1 no yaku, negative = the row is bad), and the bad rows
    as errors. Bad rows never cost the good ones."""

    status: np.ndarray
    # the character in the input text where each row went wrong (-1 unknown), or None
    error_positions: np.ndarray | None = None
    # what a bad row's own input says went wrong, as (row, status) -> "a fifth 1m" (None when
    # it cannot tell); the status's general message stands in otherwise
    row_detail: Callable[[int, int], str | None] | None = None

    def __len__(self) -> int:
        return int(self.status.shape[0])

    @property
    def bad_rows(self) -> np.ndarray:
        """Indices of the rows that could not be processed (negative status)."""
        return (self.status < 0).nonzero()[0]

    def errors(self) -> list[InvalidHandError]:
        """One InvalidHandError per bad row, in row order (``index`` the row, ``reason`` from
        mjcore.status, ``position`` the character in the input text when known); [] when
        every row is good."""
        return list(self.errors_by_row().values())

    def errors_by_row(self, offset: int = 0) -> dict[int, InvalidHandError]:
        """``errors()`` keyed by row index plus ``offset`` (a chunk's first row in a larger
        batch)."""
        positions = self.error_positions
        out = {}
        for i in self.bad_rows.tolist():
            pos = None
            if positions is not None and positions[i] >= 0:
                pos = int(positions[i])
            code = int(self.status[i])
            detail = self.row_detail(i, code) if self.row_detail is not None else None
            if detail:
                where = "" if pos is None else f" (at character {pos})"
                out[offset + i] = InvalidHandError(f"row {i}: {detail}{where}",
                                                   reason=reason_of(code), index=i, position=pos)
            else:
                out[offset + i] = status_error(code, f"row {i}", index=i, position=pos)
        return out

    def raise_for_errors(self) -> Self:
        """Return this result when every row is good, else raise BatchError with each bad
        row's error (by row) and this result as ``partial``."""
        errs = self.errors_by_row()
        if errs:
            raise BatchError(errs, partial=self)
        return self


# the parser's reasons for what the kernels call too_many_copies
_COPIES_REASONS = (reason_of(BAD_COUNT), "too_many_red", "bad_red")


def _held(n_tiles: int, n_melds: int) -> str:
    melds = f" with {n_melds} called meld(s)" if n_melds else ""
    return f"{BY_CODE[BAD_TOTAL].message}: the row holds {n_tiles}{melds}"


def counts_detail(counts: np.ndarray, n_melds: np.ndarray | None = None
                  ) -> Callable[[int, int], str | None]:
    """``row_detail`` of a batch of (N, 34) counts (and melds per row): the kind a
    too_many_copies row holds more than 4 of, the tiles of a wrong_tile_count row."""
    from .tiles import TILE_NAMES

    def detail(row: int, code: int) -> str | None:
        if code == BAD_TOTAL:
            return _held(int(counts[row].sum()), 0 if n_melds is None else int(n_melds[row]))
        if code != BAD_COUNT:
            return None
        for kind, n in enumerate(counts[row].tolist()):
            if n > 4:
                return f"a fifth {TILE_NAMES[kind]}" if n == 5 else \
                    f"{n} copies of {TILE_NAMES[kind]} (at most 4)"
        return None

    return detail


def lines_detail(data: bytes) -> Callable[[int, int], str | None]:
    """``row_detail`` of a batch of text lines: the parser's words for a too_many_copies line
    (the tile, or the red fives), the tiles of a wrong_tile_count line."""
    lines: list[bytes] = []

    def detail(row: int, code: int) -> str | None:
        from .hand import Hand

        if not lines:
            lines.extend(data.split(b"\n"))
        if row >= len(lines):
            return None
        text = lines[row].decode("utf-8", errors="replace").rstrip("\r")
        try:
            hand = Hand.parse(text)
        except InvalidHandError as err:
            if code == BAD_COUNT and err.reason in _COPIES_REASONS:
                message = str(err).removeprefix(f"hand '{text}': ")
                return message.rsplit(" at position ", 1)[0]
            return None
        return _held(hand.n_closed, len(hand.melds)) if code == BAD_TOTAL else None

    return detail


class Shanten(int):
    """The minimum shanten over the winning forms; an ``int`` carrying each form.

    ``chiitoitsu`` and ``kokushi`` are None for hands with called melds (those forms need a
    closed hand) and for a form the rules do not have (classical seven pairs with its option
    off). -1 means complete.
    """

    standard: int
    chiitoitsu: int | None
    kokushi: int | None

    def __new__(cls, standard: int, chiitoitsu: int | None,  # noqa: PYI034
                kokushi: int | None) -> Shanten:
        best = standard
        if chiitoitsu is not None and chiitoitsu < best:
            best = chiitoitsu
        if kokushi is not None and kokushi < best:
            best = kokushi
        self = int.__new__(cls, best)
        self.standard = standard
        self.chiitoitsu = chiitoitsu
        self.kokushi = kokushi
        return self

    @property
    def seven_pairs(self) -> int | None:
        """The seven-pairs form (``chiitoitsu``); None when the rules or melds rule it out."""
        return self.chiitoitsu

    @property
    def thirteen_orphans(self) -> int | None:
        """Thirteen orphans (``kokushi``; classical: Thirteen Unique Wonders)."""
        return self.kokushi

    def __repr__(self) -> str:
        return (f"Shanten({int(self)}, standard={self.standard}, "
                f"chiitoitsu={self.chiitoitsu}, kokushi={self.kokushi})")

    def __reduce__(self) -> tuple[type[Shanten], tuple[int, int | None, int | None]]:
        return (Shanten, (self.standard, self.chiitoitsu, self.kokushi))


@dataclass(frozen=True, slots=True)
class Wait:
    """A tile that completes (or advances) the hand and how many copies remain unseen."""

    tile: int
    remaining: int

    def __repr__(self) -> str:
        from .tiles import tile_name

        return f"Wait({tile_name(self.tile)}, remaining={self.remaining})"


@dataclass(frozen=True, slots=True)
class Waits:
    """The winning tiles of a hand. Empty when the hand is not tenpai."""

    shanten: int
    tiles: tuple[Wait, ...]

    @property
    def tenpai(self) -> bool:
        """True when the hand is one tile from winning and has at least one winning tile."""
        return self.shanten == 0 and bool(self.tiles)

    @property
    def remaining(self) -> int:
        """Unseen copies of all the winning tiles together."""
        return sum(map(_remaining_of, self.tiles))

    def __iter__(self) -> Iterator[Wait]:
        return iter(self.tiles)

    def __len__(self) -> int:
        return len(self.tiles)

    def __repr__(self) -> str:
        from .tiles import tile_name

        inner = " ".join(f"{tile_name(w.tile)}x{w.remaining}" for w in self.tiles)
        return f"Waits(shanten={self.shanten}, [{inner}], remaining={self.remaining})"


@dataclass(frozen=True, slots=True)
class UkeireOption:
    """One discard (None for a 13-tile hand) with the shanten after it and its advancing tiles."""

    discard: int | None
    shanten: int
    tiles: tuple[Wait, ...]

    @property
    def remaining(self) -> int:
        """Unseen copies of all the advancing tiles together."""
        return sum(map(_remaining_of, self.tiles))

    def __repr__(self) -> str:
        from .tiles import tile_name

        d = "-" if self.discard is None else tile_name(self.discard)
        inner = "".join(tile_name(w.tile) for w in self.tiles)
        return (f"UkeireOption(discard={d}, shanten={self.shanten}, tiles={inner}, "
                f"remaining={self.remaining})")


@dataclass(frozen=True, slots=True)
class Ukeire:
    """Tile efficiency of a hand, best option first (lowest shanten, then most tiles)."""

    shanten: int
    options: tuple[UkeireOption, ...]

    def __iter__(self) -> Iterator[UkeireOption]:
        return iter(self.options)

    def __len__(self) -> int:
        return len(self.options)

    @property
    def best(self) -> UkeireOption:
        """The first option: the discard with the lowest shanten and the most tiles that advance."""
        return self.options[0]
