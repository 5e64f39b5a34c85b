"""The turn machinery both referees share (:mod:`mjcore.engine.turns`), on a toy game: the
seats it is given, claims ranked as data, a choice not among the legal actions."""
from __future__ import annotations

from typing import NamedTuple

import pytest

from mjcore.engine.turns import Claimed, ClaimRanks, EngineError, Start, Step, TurnReferee


class Toy(NamedTuple):
    type: int
    tile: int = -1


TOY_DISCARD, TOY_PASS, TOY_LOW, TOY_HIGH, TOY_WIN = range(5)


class ToyReferee(TurnReferee[Toy, str]):
    """Three seats draw from a list and discard what they drew; the others answer each discard
    as their ``answers`` say (default: pass)."""

    turn_steps = (Step.DISCARD, Step.END, Step.END, Step.END, Step.END)
    pass_type = TOY_PASS
    n_seats = 3

    def __init__(self, wall: list[int], answers: dict[int, int], several: str = "all") -> None:
        self.wall = list(wall)
        self.answers = answers
        self.log: list[tuple[int, int]] = []
        self.claim_ranks = ClaimRanks.of(5, {TOY_LOW: 1, TOY_HIGH: 2, TOY_WIN: 3}.items(), 3,
                                         several)
        self.set_decider(lambda seat, acts: acts[0])

    def first_turn(self) -> tuple[int, int]:
        return 0, Start.DRAW

    def draw(self, seat: int, start: int) -> int:
        return self.wall.pop(0) if self.wall else -1

    def exhausted(self, seat: int, start: int) -> str:
        return "exhausted"

    def turn_actions(self, seat: int, drawn: int, start: int) -> list[Toy]:
        return [Toy(TOY_DISCARD, drawn)]

    def discard(self, seat: int, choice: Toy, drawn: int) -> Claimed | str | None:
        self.log.append((seat, choice.tile))
        wins, best = self.claims(seat, choice.tile, self.offer,
                                 {"type": "discard", "tile": choice.tile})
        if wins:
            return "won by " + ",".join(str(s) for s, _ in wins)
        return None if best is None else f"claimed by {best[0]}"

    def offer(self, seat: int, discarder: int, tile: int) -> list[Toy]:
        answer = self.answers.get(seat)
        return [Toy(TOY_PASS)] if answer is None else [Toy(answer, tile), Toy(TOY_PASS)]


def test_turn_loop_passes_play_round_the_seats_it_is_given():
    ref = ToyReferee([10, 11, 12, 13], {})
    assert ref.play_turns() == "exhausted"
    assert ref.log == [(0, 10), (1, 11), (2, 12), (0, 13)]


def test_claims_rank_as_data_and_several_wins_by_option():
    assert ToyReferee([10], {1: TOY_LOW, 2: TOY_HIGH}).play_turns() == "claimed by 2"
    assert ToyReferee([10], {1: TOY_HIGH, 2: TOY_HIGH}).play_turns() == "claimed by 1"
    for several, winners in (("all", "1,2"), ("first", "1"), ("last", "2")):
        ref = ToyReferee([10], {1: TOY_WIN, 2: TOY_WIN}, several)
        assert ref.play_turns() == "won by " + winners
    with pytest.raises(EngineError, match="several_wins"):
        ClaimRanks.of(5, {}.items(), 3, "most")


def test_a_choice_not_offered_names_the_seat_what_it_chose_and_when():
    ref = ToyReferee([10, 11], {})
    ref.set_decider(lambda seat, acts: Toy(TOY_DISCARD, 99) if seat == 1 else acts[0])
    with pytest.raises(EngineError, match=r"seat 1 chose .*99.* in answer to its turn after "
                                          r"drawing 11, which is not one of the legal actions"):
        ref.play_turns()
    ref = ToyReferee([10], {2: TOY_LOW})
    ref.set_decider(lambda seat, acts: Toy(TOY_WIN) if seat == 2 else acts[0])
    with pytest.raises(EngineError, match=r"seat 2 chose .* in answer to event type=discard, "
                                          r"tile=10"):
        ref.play_turns()
