"""What one seat may see, both games: the base of a seat's view and the masking of events.

A game's view subclasses :class:`SeatView` and adds the getters of its own hand and of the
public table; the base holds the seat, the hand it is attached to and the events, which it
gives as the seat saw them. Which event hides what from which seats is each game's data, a
:data:`Masking` table declared in its view module; :func:`mask_event` reads it.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

Event = dict[str, Any]
HandT = TypeVar("HandT")


@dataclass(frozen=True, slots=True)
class Hidden:
    """What one event type hides: ``field`` from every seat but the one its ``actor`` field
    names (seen as -1), the per-seat lists of ``per_seat`` but the seat's own (seen as -1s),
    and the ``dropped`` keys from every seat."""

    actor: str = ""
    field: str = ""
    per_seat: str = ""
    dropped: tuple[str, ...] = ()


Masking = Mapping[str, Hidden]       # event type -> what it hides; other types are public


def mask_event(ev: Event, seat: int, masking: Masking) -> Event:
    """``ev`` as ``seat`` sees it under the game's ``masking``: a masked copy, or ``ev`` itself
    when it hides nothing from that seat."""
    hidden = masking.get(ev["type"])
    if hidden is None:
        return ev
    other = hidden.field and ev[hidden.actor] != seat
    if not (other or hidden.per_seat or hidden.dropped):
        return ev
    out = dict(ev)
    if other:
        out[hidden.field] = -1
    if hidden.per_seat:
        out[hidden.per_seat] = [h if s == seat else [-1] * len(h)
                                for s, h in enumerate(ev[hidden.per_seat])]
    for key in hidden.dropped:
        out.pop(key, None)
    return out


class SeatView(Generic[HandT]):
    """What one seat may see of a hand: a subclass's getters read the referee it is attached
    to (:meth:`_referee`) without its hidden parts; ``masking`` is the game's table."""

    __slots__ = ("_attached_to", "_events", "seat")
    masking: ClassVar[Masking] = {}

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self._attached_to: HandT | None = None
        self._events: list[Event] = []

    def attach(self, hand: HandT, events: list[Event] | None = None) -> None:
        """Look at ``hand`` (its referee) from now on; ``events``: the game's record so far,
        which the game keeps adding to."""
        self._attached_to = hand
        if events is not None:
            self._events = events

    def _referee(self) -> HandT:
        """The hand's referee; a RuntimeError before the first :meth:`attach`."""
        if self._attached_to is None:
            raise RuntimeError("the view is not attached to a hand yet")
        return self._attached_to

    def events(self) -> list[Event]:
        """The record so far as this seat saw it (see the game's ``masking``)."""
        masking = self.masking
        seat = self.seat
        return [mask_event(ev, seat, masking) for ev in self._events]
