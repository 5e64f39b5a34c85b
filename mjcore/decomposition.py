"""Every decomposition of a complete hand, with the wait shape of each winning-tile reading.

``decompose(hand, win_tile)`` returns one :class:`Decomposition` per way of splitting the hand
into four sets and a pair (called melds kept as they are) and per set the winning tile can
complete, plus the seven-pairs and thirteen-orphans forms. An empty tuple means the hand is
not complete. The hand includes the winning tile (14 - 3k closed tiles for k called melds).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._core import decompose as _dec
from .errors import InvalidHandError
from .hand import Hand
from .status import status_error
from .tiles import tile_name

FORMS = ("standard", "chiitoitsu", "kokushi")
WAITS = ("ryanmen", "kanchan", "penchan", "shanpon", "tanki", "kokushi", "kokushi 13-sided")
SET_KINDS = ("chi", "pon", "kan")


@dataclass(frozen=True)
class TileSet:
    """One set of a decomposition: ``kind`` chi/pon/kan, ``tile`` its lowest kind,
    ``concealed`` (closed-part set or closed kan), ``called`` (a called meld or closed kan)."""

    kind: str
    tile: int
    concealed: bool
    called: bool

    @property
    def tiles(self) -> tuple[int, ...]:
        """The kind ids of the set's tiles (3, or 4 for a kan)."""
        if self.kind == "chi":
            return (self.tile, self.tile + 1, self.tile + 2)
        return (self.tile,) * (4 if self.kind == "kan" else 3)

    def __str__(self) -> str:
        digits = "".join(tile_name(t)[0] for t in self.tiles)
        text = digits + tile_name(self.tile)[1]
        return f"[{text}]" if self.called else text


@dataclass(frozen=True)
class Decomposition:
    """A reading of a complete hand: ``form`` standard/chiitoitsu/kokushi, ``sets``, ``pair``
    (kind id; for kokushi the doubled kind), ``wait`` (ryanmen, kanchan, penchan, shanpon,
    tanki, kokushi, kokushi 13-sided) and ``win_set`` (index of the set the winning tile
    completes, or None when it completes the pair or the form is not standard)."""

    form: str
    sets: tuple[TileSet, ...]
    pair: int
    wait: str
    win_set: int | None

    @classmethod
    def _from_raw(cls, raw: tuple[Any, ...]) -> Decomposition:
        """From the kernel's tuple; called melds first (as given), then closed sets by tile."""
        form, pair, sets, wait, win_set = raw
        order = [j for j in range(len(sets)) if sets[j][3]] + sorted(
            (j for j in range(len(sets)) if not sets[j][3]), key=lambda j: (sets[j][1], sets[j][0]))
        return cls(
            FORMS[form],
            tuple(TileSet(SET_KINDS[sets[j][0]], sets[j][1], bool(sets[j][2]), bool(sets[j][3]))
                  for j in order),
            pair, WAITS[wait], None if win_set < 0 else order.index(win_set))

    def __str__(self) -> str:
        if self.form == "standard":
            body = " ".join(str(s) for s in self.sets) + " " + tile_name(self.pair) * 2
        elif self.form == "chiitoitsu":
            body = "seven pairs"
        else:
            body = f"kokushi ({tile_name(self.pair)} pair)"
        return f"{body}, {self.wait}"

    def __repr__(self) -> str:
        return f"Decomposition({self})"


def _hand_values(hand: Any) -> tuple[list[int] | bytes, list[tuple[int, int, int, int]], int]:
    """(closed counts, melds as (kind, tile, red, from_rel), closed red fives) of a Hand."""
    if isinstance(hand, str):
        hand = Hand.parse(hand)
    elif not isinstance(hand, Hand):
        raise InvalidHandError(f"expected a Hand or an mpsz string, got {type(hand).__name__}",
                               reason="bad_type")
    melds = [(int(m.kind), m.tiles[0], m.red, m.from_rel or 0) for m in hand.melds]
    return hand._packed, melds, sum(hand.red)


def _win_kind(win_tile: int | str) -> int:
    from .tiles import parse_tile

    if isinstance(win_tile, bool):
        raise InvalidHandError(f"winning tile {win_tile!r}: not a tile", reason="bad_tile")
    if isinstance(win_tile, int):
        if not 0 <= win_tile < 34:
            raise InvalidHandError(f"winning tile {win_tile}: kind ids are 0..33",
                                   reason="bad_tile")
        return win_tile
    return parse_tile(win_tile)


def decompose(hand: Any, win_tile: int | str) -> tuple[Decomposition, ...]:
    """All decompositions of a complete hand (``hand`` includes ``win_tile``)."""
    counts, melds, red = _hand_values(hand)
    win = _win_kind(win_tile)
    status, raw = _dec.decompose_raw(list(counts), melds, win, red)
    if status < 0:
        raise status_error(status, f"hand {hand}")
    return tuple(Decomposition._from_raw(r) for r in raw)


__all__ = ["FORMS", "WAITS", "Decomposition", "TileSet", "decompose"]
