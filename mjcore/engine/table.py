"""The table both games seat their agents at, and the loop of hands.

A :class:`Table` seats the agents (by player) and owns their views; as a decider it routes
each seat's choice to the agent sitting there with that agent's view, and it passes every
event, masked for each observing agent's seat, to the agents that observe. :func:`run_game`
is the game loop: ``start_game``, hand after hand until the game says it is over (at most
``max_hands``), ``end_game``. Each game keeps its rules of what a hand is, when the game ends
and the scores.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, Generic, TypeVar

from ..errors import EngineError
from .view import Event, SeatView, mask_event

ViewT = TypeVar("ViewT", bound=SeatView[Any])
Listener = Callable[[Event], None]


class Table(Generic[ViewT]):
    """The agents of one game (``choose(view, actions)``; optionally ``chooser(view)``,
    ``observe(event)`` and ``seated(seat)``), each with its ``view_type`` view.

    ``players`` by seat and ``seat_of`` by player say who sits where (at first player i at
    seat i; :meth:`seat` changes it); ``choosers`` are the seats' ``actions -> action`` (the
    referee's turn loop calls them directly, see :class:`~.turns.TurnReferee`)."""

    def __init__(self, agents: Sequence[Any], view_type: type[ViewT]) -> None:
        self.agents = list(agents)
        self.views: list[ViewT] = [view_type(p) for p in range(len(self.agents))]
        self.masking = view_type.masking
        self.observers: list[tuple[int, Listener]] = [
            (p, a.observe) for p, a in enumerate(self.agents) if hasattr(a, "observe")]
        # an agent may offer its own ``actions -> action`` for its view as ``chooser(view)``
        self._player_choosers = [a.chooser(v) if hasattr(a, "chooser") else partial(a.choose, v)
                                 for a, v in zip(self.agents, self.views, strict=True)]
        self.players: list[int] = []
        self.seat_of: list[int] = []
        self.choosers: list[Callable[[list[Any]], Any]] = []
        self.seat(range(len(self.agents)))

    def seat(self, players: Sequence[int]) -> None:
        """Seat ``players`` (player indices by seat): each view learns its seat, each agent
        that asks (``seated``) is told it, and the seats' choices go to them."""
        self.players = list(players)
        self.seat_of = [0] * len(self.players)
        for s, p in enumerate(self.players):
            self.seat_of[p] = s
            self.views[p].seat = s
            seated = getattr(self.agents[p], "seated", None)
            if seated is not None:
                seated(s)
        self.choosers = [self._player_choosers[p] for p in self.players]

    def attach(self, hand: Any, events: list[Event] | None = None) -> None:
        """Point every view at a new hand (``events``: the game's record, see
        :meth:`SeatView.attach`)."""
        for v in self.views:
            v.attach(hand, events)

    def observe(self, ev: Event) -> None:
        """Pass ``ev``, masked for each seat, to the agents that observe."""
        masking = self.masking
        seat_of = self.seat_of
        for p, observe in self.observers:
            observe(mask_event(ev, seat_of[p], masking))

    def listener(self, on_event: Listener | None = None) -> Listener | None:
        """What to call with each event: ``on_event``, then :meth:`observe` when an agent
        observes; None when neither wants events."""
        if not self.observers:
            return on_event
        if on_event is None:
            return self.observe
        observe = self.observe

        def both(ev: Event) -> None:
            on_event(ev)
            observe(ev)
        return both

    def __call__(self, seat: int, actions: list[Any]) -> Any:
        """The choice among ``actions`` of the agent at ``seat``."""
        return self.choosers[seat](actions)


def event_sink(events: list[Event] | None, listener: Listener | None) -> Listener:
    """Where a game's events go: appended to ``events`` (None: not kept), then passed to
    ``listener`` (when there is one)."""
    if listener is None:
        return events.append if events is not None else _drop
    if events is None:
        return listener
    append = events.append

    def emit(ev: Event) -> None:
        append(ev)
        listener(ev)
    return emit


def _drop(ev: Event) -> None:
    """An event nobody keeps or hears."""


def run_game(emit: Listener, start: Event, play_hand: Callable[[int], bool],
             end: Callable[[], Event], max_hands: int) -> Event:
    """The game loop: emit ``start``, play hand after hand (``play_hand(index)`` returns
    whether the game goes on), then emit and return ``end()``. An EngineError when the game
    has not ended after ``max_hands`` hands."""
    emit(start)
    index = 0
    while True:
        if index >= max_hands:
            raise EngineError(f"the game did not end within {max_hands} hands")
        goes_on = play_hand(index)
        index += 1
        if not goes_on:
            break
    last = end()
    emit(last)
    return last
