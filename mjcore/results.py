"""Small immutable result values returned by the single-hand API, and the base of the batch
results (per-row statuses, their errors)."""
from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter
from typing import TYPE_CHECKING, Self

from .errors import BatchError, InvalidHandError
from .status import status_error

if TYPE_CHECKING:
    from collections.abc import Iterator

    import numpy as np  # not at run time: `import mjcore` does not load numpy

_remaining_of = attrgetter("remaining")


class RowResults:
    """Base of the batch results (``mjcore.batch.BatchResult``, ``BatchScores``): ``status``
    per row from mjcore.status (0 ok, 1 no yaku, negative = the row is bad), and the bad rows
    as errors. Bad rows never cost the good ones."""

    status: np.ndarray
    # the character in the input text where each row went wrong (-1 unknown), or None
    error_positions: np.ndarray | None = None

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
            out[offset + i] = status_error(int(self.status[i]), f"row {i}", index=i,
                                           position=pos, detail=self._row_detail(i))
        return out

    def _row_detail(self, row: int) -> str | None:
        """What only this result knows about a bad row (appended to its error), or None."""
        return None

    def raise_for_errors(self) -> Self:
        """Return this result when every row is good, else raise BatchError with each bad
        row's error (by row) and this result as ``partial``."""
        errs = self.errors_by_row()
        if errs:
            raise BatchError(errs, partial=self)
        return self


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
