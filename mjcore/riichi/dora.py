"""Dora: indicator -> dora (riichi.md §3.4), counting dora, ura dora and red fives (§8), and
the seat's own bonus tiles of Chinese classical mahjong (chinese-classical.md §1.2)."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..errors import InvalidHandError
from ..hand import Hand, as_hand
from ..tiles import N_BONUS, N_KINDS, TILE_NAMES, parse_bonus_tiles, parse_tiles

__all__ = ["DORA_OF", "DoraCount", "count_dora", "dora_from_indicator", "own_bonus"]


def _next_in_cycle(kind: int) -> int:
    if kind < 27:  # suits: n -> n+1, 9 -> 1
        return kind + 1 if kind % 9 != 8 else kind - 8
    if kind <= 30:  # winds: E -> S -> W -> N -> E
        return 27 + (kind - 27 + 1) % 4
    return 31 + (kind - 31 + 1) % 3  # dragons: White -> Green -> Red -> White


DORA_OF: tuple[int, ...] = tuple(_next_in_cycle(k) for k in range(N_KINDS))
"""``DORA_OF[indicator] = dora`` for every kind."""


def _indicator_kinds(indicators: object, what: str) -> list[int]:
    """Indicators as kinds: an mpsz string, one kind id, or a list of names / ids."""
    if indicators is None:
        return []
    if isinstance(indicators, str):
        return parse_tiles(indicators).kinds
    if isinstance(indicators, int) and not isinstance(indicators, bool):
        return [_kind(indicators, what)]
    if not isinstance(indicators, Iterable):
        raise InvalidHandError(f"{what} {indicators!r}: expected tiles (e.g. '3m' or [2])",
                               reason="bad_tile")
    out: list[int] = []
    for item in indicators:
        if isinstance(item, str):
            out.extend(parse_tiles(item).kinds)
        else:
            out.append(_kind(item, what))
    return out


def _kind(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < N_KINDS:
        raise InvalidHandError(f"{what} {value!r}: not a tile kind id 0..33", reason="bad_tile")
    return int(value)


def dora_from_indicator(indicator: int | str) -> int:
    """The dora kind an indicator points to: ``'2m' -> 3m``, ``'9p' -> 1p``, ``'4z' -> 1z``."""
    kinds = _indicator_kinds(indicator, "dora indicator")
    if len(kinds) != 1:
        raise InvalidHandError(f"dora indicator {indicator!r}: expected exactly one tile",
                               reason="not_one_tile")
    return DORA_OF[kinds[0]]


@dataclass(frozen=True, slots=True)
class DoraCount:
    """Han from dora, ura dora and red fives; ``total`` is their sum."""

    dora: int
    ura: int
    red: int

    @property
    def total(self) -> int:
        """All the dora together: dora + ura + red."""
        return self.dora + self.ura + self.red

    def __repr__(self) -> str:
        return f"DoraCount(dora={self.dora}, ura={self.ura}, red={self.red}, total={self.total})"


def _count(all_counts: tuple[int, ...], indicators: list[int]) -> int:
    return sum(all_counts[DORA_OF[k]] for k in indicators)


def count_dora(hand: Hand | str, indicators: object = (), ura_indicators: object = (), *,
               red: bool = True) -> DoraCount:
    """Count dora in the closed tiles and the melds (every copy, every indicator).

    Indicators (kan dora included) may be an mpsz string (``'3m6z'``), one kind id, or a list of
    names or ids. Two indicators for the same dora count twice. ``red=False`` ignores red fives.
    """
    h = as_hand(hand)
    counts = h.all_counts
    dora = _count(counts, _indicator_kinds(indicators, "dora indicator"))
    ura = _count(counts, _indicator_kinds(ura_indicators, "ura dora indicator"))
    return DoraCount(dora, ura, h.red_total if red else 0)


def own_bonus(bonus: Iterable[int | str] | str | Hand, seat: int) -> tuple[int, ...]:
    """The bonus ids among ``bonus`` that belong to ``seat`` (0 East .. 3 North).

    Bonus tile ``nf`` (id n-1) belongs to seat ``(n-1) % 4``: flower and season of the same
    number share a seat. ``bonus`` may be ids, ``'15f'``-style text, or a Hand.
    """
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < 4:
        raise InvalidHandError(f"seat {seat!r}: seats are 0 (East) .. 3 (North)",
                               reason="bad_seats")
    if isinstance(bonus, Hand):
        ids: list[int] = list(bonus.bonus)
    elif isinstance(bonus, str):
        ids = parse_bonus_tiles(bonus)
    else:
        ids = []
        for b in bonus:
            if isinstance(b, str):
                ids.extend(parse_bonus_tiles(b))
            elif isinstance(b, bool) or not isinstance(b, int) or not 0 <= b < N_BONUS:
                raise InvalidHandError(f"bonus tile {b!r}: bonus ids are 0..7",
                                       reason="bad_bonus")
            else:
                ids.append(b)
    return tuple(sorted(b for b in set(ids) if b % 4 == seat))


def describe_indicators(indicators: object) -> str:
    """``'3m6z' -> '3m->4m 6z->7z'`` for display."""
    kinds = _indicator_kinds(indicators, "dora indicator")
    return " ".join(f"{TILE_NAMES[k]}->{TILE_NAMES[DORA_OF[k]]}" for k in kinds)
