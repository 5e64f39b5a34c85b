"""The conformance harness both games run (``mjcore play --check-invariants``): one seeded game
with the game's checks after every event, the same game again unchecked (the same seed gives
the same record), and the record written, read back and replayed to the same game.

Each game gives its checks (the tile census, the points) as a checker and its play, record and
replay functions; the InvariantErrors of the harness are written here.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol, TypeVar

from ..errors import InvariantError
from .agents import closing_agents
from .view import Event


class Checker(Protocol):
    """A game's per-event checks: ``checked`` counts the events they looked at."""

    checked: int


class Played(Protocol):
    """What the harness reads of a played game: its record."""

    events: list[Event]


CheckerT = TypeVar("CheckerT", bound=Checker)
ResultT = TypeVar("ResultT", bound=Played)


def check_game(seed: int, agent_names: Sequence[str], make_agent: Callable[[str, int], Any],
               play: Callable[[list[Any], CheckerT | None], ResultT], checker: CheckerT, *,
               write: Callable[[list[Event]], Iterable[str]],
               read: Callable[[list[str], str], list[Event]],
               replay: Callable[[list[Event], str], str | None]) -> tuple[int, ResultT]:
    """Play game ``seed`` between agents ``make_agent(name, seed * 4 + i)`` with
    ``play(agents, checker)`` (the game hooks the checker's checks to its events), play it
    again with ``play(agents, None)``, and replay its record (``write`` it as lines, ``read``
    them back, ``replay`` gives the disagreement, or None). Returns (events checked, the
    game); an InvariantError on a check, a different record or one that does not replay."""
    where = f"game seed {seed}"
    result = _play_seeded(seed, agent_names, make_agent, lambda agents: play(agents, checker))
    again = _play_seeded(seed, agent_names, make_agent, lambda agents: play(agents, None))
    if again.events != result.events:
        raise InvariantError(f"{where}: the same seed gave a different record")
    problem = replay(read(list(write(result.events)), where), where)
    if problem is not None:
        raise InvariantError(f"{where}: the record does not replay: {problem}")
    return checker.checked, result


def _play_seeded(seed: int, agent_names: Sequence[str], make_agent: Callable[[str, int], Any],
                 play: Callable[[list[Any]], ResultT]) -> ResultT:
    """``play(agents)`` between freshly made seeded agents, closed after it."""
    with closing_agents([make_agent(n, seed * 4 + i)
                         for i, n in enumerate(agent_names)]) as agents:
        return play(agents)
