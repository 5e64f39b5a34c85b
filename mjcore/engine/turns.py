"""The turn machinery every referee shares: asking a seat, claims on a discard, robbing a kong,
and the draw -> turn action -> discard -> claims cycle.

A game's referee subclasses :class:`TurnReferee` and supplies only what it owns, as hooks and
data: its legal actions, what each action type does on a turn (:attr:`TurnReferee.turn_steps`),
how claims rank (:class:`ClaimRanks`), its draws (bonus tiles, the dead wall), its scoring and
settlement. The seat count is data (``n_seats``): seats are ``0 .. n_seats - 1`` and play
passes to ``seat + 1``.

Actions are any tuples whose ``type`` field is an int (each game's own ``ActionType``); legal
actions are offered as a sorted, non-empty list, and a choice not among them is an
:class:`EngineError` naming the seat, what it answered, and the event it answered.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache, partial
from typing import Final, Generic, NamedTuple, Protocol, TypeVar

from ..errors import EngineError


class Choice(Protocol):
    """What the machinery needs of an action: its ``type`` (the game's action type)."""

    @property
    def type(self) -> int:
        """The action's type: an index into the game's ``turn_steps`` and claim ranks."""
        ...


ActionT = TypeVar("ActionT", bound=Choice)
ResultT = TypeVar("ResultT")
Chooser = Callable[[list[ActionT]], ActionT]


class Decider(Protocol[ActionT]):
    """Who chooses for every seat of a hand: ``decide(seat, actions)`` returns one of
    ``actions`` (sorted, never empty). It may carry ``choosers``, one ``actions -> action`` per
    seat (see :meth:`TurnReferee.set_decider`)."""

    def __call__(self, seat: int, actions: list[ActionT], /) -> ActionT: ...


class Offer(Protocol[ActionT]):
    """A game's choices on a discard or a kong: ``offer(seat, discarder, tile)`` gives ``seat``
    its sorted actions on ``tile`` of ``discarder`` (the konger when robbing), a pass among
    them."""

    def __call__(self, seat: int, discarder: int, tile: int, /) -> list[ActionT]: ...


class Start:
    """How a turn begins (plain ints: the turn loop compares them on every turn, and int
    comparisons stay on the interpreter's fast path where an IntEnum's do not)."""

    DRAW: Final = 0             # a draw from the live wall
    REPLACEMENT: Final = 1      # the replacement tile of a kong (loose tile, rinshan)
    DEALT: Final = 2            # the dealer's first turn on the dealt hand: no draw
    CALLED: Final = 3           # after a claimed chow or pung: no draw


class Step:
    """What an action chosen on one's own turn does (plain ints, as :class:`Start`)."""

    DISCARD: Final = 0          # a discard (possibly declaring something), then its claims
    WIN: Final = 1              # a self-drawn win: the hand ends
    KONG: Final = 2             # a concealed or added kong: robbing, then a replacement draw
    END: Final = 3              # any other end of the hand by the seat's choice (abortive)
    SET_ASIDE: Final = 4        # a tile set aside by choice (sanma's north): its replacement


class Claimed(NamedTuple):
    """A claim on a discard that the referee applied: the claimer's turn begins ``start``."""

    seat: int
    start: int


class ClaimRanks(NamedTuple):
    """The priority of claims on a discard, as data: ``ranks[action type]`` (0 for a pass or
    an action that is no claim; a higher rank wins, the earlier seat in turn order on a tie),
    the rank of a winning claim, and which of several winning claims stand (``all``, or only
    the ``first`` or ``last`` in turn order after the discarder)."""

    ranks: tuple[int, ...]
    win_rank: int
    several_wins: str = "all"

    @classmethod
    def of(cls, n_types: int, ranked: Iterable[tuple[int, int]], win_rank: int,
           several_wins: str = "all") -> ClaimRanks:
        """Ranks for ``n_types`` action types from (type, rank) pairs (other types rank 0)."""
        if several_wins not in ("all", "first", "last"):
            raise EngineError(f"several_wins must be all, first or last, not {several_wins!r}")
        by_type = dict(ranked)
        return cls(tuple(by_type.get(t, 0) for t in range(n_types)), win_rank, several_wins)


def describe(about: object) -> str:
    """The event or situation a seat answered, for an error message."""
    if isinstance(about, dict):
        return "event " + ", ".join(f"{k}={v}" for k, v in about.items()
                                    if k not in ("tehais", "hands", "wall", "tail"))
    return str(about)


class TurnReferee(Generic[ActionT, ResultT]):
    """The turn cycle of one hand; subclasses supply the game's hooks (see the module text).

    Data a subclass sets: ``turn_steps`` (the :class:`Step` of each action type that may be
    chosen on one's own turn), ``pass_type`` (the action type of a pass), ``claim_ranks``
    (per hand when the rules choose how several wins stand) and ``n_seats`` (4 unless set).
    :meth:`set_decider` comes before :meth:`play_turns`.
    """

    turn_steps: tuple[int, ...]
    claim_ranks: ClaimRanks
    pass_type: int
    n_seats: int = 4

    def set_decider(self, decide: Decider[ActionT]) -> None:
        """Route every choice to ``decide(seat, actions)``; a decider may carry ``choosers``,
        one ``actions -> action`` per seat doing the same, called directly (a call less)."""
        self.decide = decide
        choosers = getattr(decide, "choosers", None)
        self.choosers: list[Chooser[ActionT]] = (
            list(choosers) if choosers else [partial(decide, s) for s in range(self.n_seats)])
        self.others = _others(self.n_seats)

    # ---- asking a seat ----------------------------------------------------------------

    def ask(self, seat: int, actions: list[ActionT], about: object) -> ActionT:
        """The seat's choice among ``actions`` (``about``: what it answers, for errors);
        :meth:`accept` decides about anything else."""
        choice = self.choosers[seat](actions)
        if self.is_offered(choice, actions):
            return choice
        return self.accept(seat, choice, actions, about)

    def is_offered(self, choice: ActionT, actions: list[ActionT]) -> bool:
        """Whether ``choice`` is one of ``actions`` (a fast test a subclass may replace)."""
        return choice in actions

    def accept(self, seat: int, choice: object, actions: list[ActionT],
               about: object) -> ActionT:
        """A choice that is not offered: an EngineError (a subclass may map an equivalent
        choice to the offered one first and call this for the rest)."""
        if isinstance(about, _Turn):
            about = about.describe(self.tile_name)
        raise EngineError(
            f"seat {seat} chose {choice!s} in answer to {describe(about)}, which is not one of "
            f"the legal actions ({', '.join(str(a) for a in actions)})")

    @staticmethod
    def tile_name(tile: int) -> str:
        """A tile's name in error messages (a game gives its own notation)."""
        return str(tile)

    # ---- claims -----------------------------------------------------------------------

    def claims(self, discarder: int, tile: int, offer: Offer[ActionT], about: object,
               candidates: int = -1,
               ) -> tuple[list[tuple[int, ActionT]], tuple[int, ActionT] | None]:
        """Ask the other seats in turn order after ``discarder`` (those in the ``candidates``
        bitmask) what they claim of ``tile`` and resolve the claims by :attr:`claim_ranks`.

        ``offer(seat, discarder, tile)`` gives a seat's sorted choices, a pass among them; a
        seat offered nothing but the pass is not asked. ``answered`` sees each answer,
        ``about`` names the discard in errors. Returns (the winning claims that stand, in turn
        order), or when there are none ([], the best other claim: the highest rank, the
        earliest seat on a tie; None when every seat passed)."""
        ranks = self.claim_ranks
        rank = ranks.ranks
        win_rank = ranks.win_rank
        choosers = self.choosers
        is_offered = self.is_offered
        answered = self.answered
        wins: list[tuple[int, ActionT]] = []
        best: tuple[int, ActionT] | None = None
        best_rank = 0
        for seat in self.others[discarder]:
            if not (candidates >> seat) & 1:
                continue
            actions = offer(seat, discarder, tile)
            if len(actions) < 2:
                continue
            choice = choosers[seat](actions)
            if not is_offered(choice, actions):
                choice = self.accept(seat, choice, actions, about)
            if answered is not None:
                answered(seat, choice)
            r = rank[choice.type]
            if r == win_rank:
                wins.append((seat, choice))
            elif r > best_rank:
                best, best_rank = (seat, choice), r
        if wins:
            if ranks.several_wins == "first":
                del wins[1:]
            elif ranks.several_wins == "last":
                del wins[:-1]
            return wins, None
        return wins, best

    def robbing(self, konger: int, tile: int, offer: Offer[ActionT],
                about: object) -> list[tuple[int, ActionT]]:
        """Ask the other seats whether they rob ``konger``'s kong of ``tile`` (``offer`` gives
        only wins and a pass); the winning claims that stand, by ``claim_ranks``."""
        wins, _ = self.claims(konger, tile, offer, about)
        return wins

    # ``answered(seat, choice)``, when a game sets it: sees each answer to a discard or a kong
    # (a pass included) at once, before the next seat is asked
    answered: Callable[[int, ActionT], None] | None = None

    # ---- the turn cycle ---------------------------------------------------------------

    def play_turns(self) -> ResultT:
        """Run turns until a hook ends the hand: a draw that cannot be made, a self-drawn
        win, a robbed kong, a won discard or any other end the game's hooks return."""
        seat, start = self.first_turn()
        steps = self.turn_steps
        draw = self.draw
        turn_actions = self.turn_actions
        discard = self.discard
        choosers = self.choosers
        is_offered = self.is_offered
        following = _following(self.n_seats)
        draw_start, replacement_start = Start.DRAW, Start.REPLACEMENT   # (the draws: <= 1)
        discard_step, kong_step, win_step = Step.DISCARD, Step.KONG, Step.WIN
        while True:
            if start <= replacement_start:
                drawn = draw(seat, start)
                if drawn < 0:
                    return self.exhausted(seat, start)
            else:
                drawn = -1
            actions = turn_actions(seat, drawn, start)
            choice = choosers[seat](actions)
            if not is_offered(choice, actions):
                choice = self.accept(seat, choice, actions, _Turn(seat, drawn, start))
            step = steps[choice.type]
            if step == discard_step:
                outcome = discard(seat, choice, drawn)
                if outcome is None:
                    seat = following[seat]
                    start = draw_start
                elif isinstance(outcome, Claimed):
                    seat, start = outcome
                else:
                    return outcome
            elif step == kong_step:
                ended = self.kong(seat, choice, drawn)
                if ended is not None:
                    return ended
                start = replacement_start
            elif step == win_step:
                return self.self_win(seat, choice, drawn, start)
            elif step == Step.SET_ASIDE:
                ended = self.set_aside(seat, choice, drawn)
                if ended is not None:
                    return ended
                start = replacement_start
            else:
                return self.end_turn(seat, choice)

    # hooks of the turn cycle (every game supplies them)

    def first_turn(self) -> tuple[int, int]:
        """The seat that plays first and how its turn begins."""
        raise NotImplementedError

    def draw(self, seat: int, start: int) -> int:
        """Draw for ``seat`` (``start`` DRAW or REPLACEMENT): the tile now in its hand, or -1
        when no tile can be drawn (then :meth:`exhausted` ends the hand)."""
        raise NotImplementedError

    def exhausted(self, seat: int, start: int) -> ResultT:
        """The hand's result when :meth:`draw` found no tile for ``seat``."""
        raise NotImplementedError

    def turn_actions(self, seat: int, drawn: int, start: int) -> list[ActionT]:
        """The sorted legal choices on ``seat``'s turn (``drawn`` -1 without a draw)."""
        raise NotImplementedError

    def discard(self, seat: int, choice: ActionT, drawn: int) -> Claimed | ResultT | None:
        """Apply a discard and the claims on it: None (nobody claimed; the next seat draws),
        the applied claim, or the hand's result."""
        raise NotImplementedError

    def kong(self, seat: int, choice: ActionT, drawn: int) -> ResultT | None:
        """Declare a concealed or added kong: the result when it is robbed, else None (the
        replacement draw follows)."""
        raise NotImplementedError

    def set_aside(self, seat: int, choice: ActionT, drawn: int) -> ResultT | None:
        """Set a tile aside (step SET_ASIDE): the result when that ends the hand (a win on
        it), else None (the replacement draw follows)."""
        raise EngineError(f"seat {seat} chose {choice!s}, which sets nothing aside in this game")

    def self_win(self, seat: int, choice: ActionT, drawn: int, start: int) -> ResultT:
        """The hand's result after a self-drawn win."""
        raise NotImplementedError

    def end_turn(self, seat: int, choice: ActionT) -> ResultT:
        """The hand's result after a turn choice of step END."""
        raise EngineError(f"seat {seat} chose {choice!s}, which ends nothing in this game")


@cache
def _following(n_seats: int) -> tuple[int, ...]:
    """By seat: the seat that plays after it."""
    return tuple((s + 1) % n_seats for s in range(n_seats))


@cache
def _others(n_seats: int) -> tuple[tuple[int, ...], ...]:
    """By seat: the other seats in turn order after it."""
    return tuple(tuple((s + d) % n_seats for d in range(1, n_seats)) for s in range(n_seats))


class _Turn(NamedTuple):
    """A seat's own turn, as an error message names it."""

    seat: int
    drawn: int
    start: int

    def describe(self, tile_name: Callable[[int], str]) -> str:
        """E.g. ``its turn after drawing 5m``."""
        if self.start == Start.DEALT:
            return "its turn on the dealt hand"
        if self.start == Start.CALLED:
            return "its turn after a claim"
        replacement = "the replacement tile " if self.start == Start.REPLACEMENT else ""
        return f"its turn after drawing {replacement}{tile_name(self.drawn)}"


__all__ = [
    "Choice",
    "ClaimRanks",
    "Claimed",
    "Decider",
    "EngineError",
    "Offer",
    "Start",
    "Step",
    "TurnReferee",
    "describe",
]
