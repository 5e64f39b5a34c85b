"""The table both games seat their agents at (:mod:`mjcore.engine.table`) and the seat view's
base and masking (:mod:`mjcore.engine.view`), on a toy game."""
from __future__ import annotations

from typing import Any

import pytest

from mjcore.engine.table import Table, event_sink, run_game
from mjcore.engine.view import Hidden, SeatView, mask_event
from mjcore.errors import EngineError

TOY_MASKING = {
    "draw": Hidden(actor="who", field="tile"),
    "deal": Hidden(per_seat="hands"),
    "start": Hidden(dropped=("wall",)),
    "both": Hidden(actor="who", field="tile", dropped=("secret",)),
}


class ToyView(SeatView[dict[str, Any]]):
    """A seat's view of a toy hand (a dict)."""

    __slots__ = ()
    masking = TOY_MASKING

    @property
    def mine(self) -> int:
        return self._referee()["tiles"][self.seat]


class Toy:
    """Answers the last action, remembers what it observed and where it sat."""

    def __init__(self) -> None:
        self.seen: list[dict[str, Any]] = []
        self.seats: list[int] = []
        self.views: list[ToyView] = []

    def choose(self, view: ToyView, actions: list[Any]) -> Any:
        self.views.append(view)
        return actions[-1]

    def observe(self, ev: dict[str, Any]) -> None:
        self.seen.append(ev)

    def seated(self, seat: int) -> None:
        self.seats.append(seat)


class Quiet:
    """Chooses the first action and observes nothing."""

    def choose(self, view: ToyView, actions: list[Any]) -> Any:
        return actions[0]


def test_the_masking_table_hides_what_it_says_from_other_seats_only():
    draw = {"type": "draw", "who": 1, "tile": 7}
    assert mask_event(draw, 1, TOY_MASKING) is draw                 # the seat's own draw
    assert mask_event(draw, 0, TOY_MASKING) == {"type": "draw", "who": 1, "tile": -1}
    assert draw["tile"] == 7                                         # a copy was masked
    deal = {"type": "deal", "hands": [[1, 2], [3, 4, 5]]}
    assert mask_event(deal, 1, TOY_MASKING)["hands"] == [[-1, -1], [3, 4, 5]]
    assert mask_event({"type": "start", "wall": [1], "n": 2}, 0, TOY_MASKING) == \
        {"type": "start", "n": 2}
    both = {"type": "both", "who": 0, "tile": 3, "secret": 1}
    assert mask_event(both, 0, TOY_MASKING) == {"type": "both", "who": 0, "tile": 3}
    assert mask_event(both, 2, TOY_MASKING) == {"type": "both", "who": 0, "tile": -1}
    public = {"type": "discard", "who": 0, "tile": 3}
    assert mask_event(public, 2, TOY_MASKING) is public


def test_each_games_masking_is_declared_as_data():
    from mjcore.classical.engine.view import MASKING as CLASSICAL
    from mjcore.classical.engine.view import ClassicalView
    from mjcore.riichi.view import MASKING as RIICHI
    from mjcore.riichi.view import PlayerView

    assert PlayerView.masking is RIICHI and ClassicalView.masking is CLASSICAL
    assert mask_event({"type": "tsumo", "actor": 2, "pai": 5}, 0, RIICHI)["pai"] == -1
    start = {"type": "start_hand", "wall": [1], "tail": [2], "index": 0}
    assert mask_event(start, 0, CLASSICAL) == {"type": "start_hand", "index": 0}


def test_a_view_before_its_first_hand_says_so_and_gives_events_masked():
    view = ToyView(0)
    with pytest.raises(RuntimeError, match="not attached to a hand yet"):
        _ = view.mine
    events: list[dict[str, Any]] = [{"type": "draw", "who": 1, "tile": 7}]
    view.attach({"tiles": [4, 5]}, events)
    events.append({"type": "draw", "who": 0, "tile": 8})
    assert view.mine == 4
    assert view.events() == [{"type": "draw", "who": 1, "tile": -1},
                             {"type": "draw", "who": 0, "tile": 8}]


def test_the_table_routes_each_seat_to_its_agent_and_masks_events_for_observers():
    first, last = Toy(), Toy()
    table = Table([first, Quiet(), last], ToyView)
    assert first.seats == [0] and last.seats == [2]
    table.seat([2, 0, 1])                  # player 2 at seat 0, player 0 at seat 1
    assert table.seat_of == [1, 2, 0] and [v.seat for v in table.views] == [1, 2, 0]
    assert last.seats == [2, 0]
    assert table(0, ["a", "b"]) == "b" and last.views == [table.views[2]]
    assert table.choosers[2](["a", "b"]) == "a"           # player 1, the quiet one
    table.observe({"type": "draw", "who": 0, "tile": 9})
    assert last.seen == [{"type": "draw", "who": 0, "tile": 9}]     # its own draw
    assert first.seen == [{"type": "draw", "who": 0, "tile": -1}]
    hand = {"tiles": [1, 2, 3]}
    table.attach(hand)
    assert [v.mine for v in table.views] == [2, 3, 1]


def test_the_listener_and_the_sink():
    heard: list[Any] = []
    assert Table([Quiet()], ToyView).listener(None) is None
    assert Table([Quiet()], ToyView).listener(heard.append) == heard.append
    toy = Toy()
    listener = Table([toy], ToyView).listener(heard.append)
    assert listener is not None
    kept: list[Any] = []
    emit = event_sink(kept, listener)
    emit({"type": "draw", "who": 1, "tile": 4})
    assert kept == heard == [{"type": "draw", "who": 1, "tile": 4}]
    assert toy.seen == [{"type": "draw", "who": 1, "tile": -1}]
    assert event_sink(kept, None) == kept.append
    event_sink(None, None)({"type": "x"})                 # kept nowhere, heard by nobody


def test_the_game_loop_plays_hands_until_the_game_ends():
    events: list[Any] = []
    played: list[int] = []

    def play_hand(index: int) -> bool:
        played.append(index)
        events.append({"type": "hand", "index": index})
        return index < 2

    end = run_game(events.append, {"type": "start_game"}, play_hand,
                   lambda: {"type": "end_game", "hands": len(played)}, max_hands=3)
    assert played == [0, 1, 2] and end == {"type": "end_game", "hands": 3}
    assert [e["type"] for e in events] == ["start_game", "hand", "hand", "hand", "end_game"]


def test_a_game_not_over_after_max_hands_is_an_engine_error_naming_the_limit():
    played: list[int] = []

    def never_ends(index: int) -> bool:
        played.append(index)
        return True

    with pytest.raises(EngineError, match="did not end within 4 hands"):
        run_game(lambda ev: None, {"type": "start_game"}, never_ends,
                 lambda: {"type": "end_game"}, max_hands=4)
    assert played == [0, 1, 2, 3]


@pytest.mark.parametrize("game", ["riichi", "classical"])
def test_both_games_raise_past_max_hands(game: str):
    from mjcore.engine.agents import RandomAgent

    agents = [RandomAgent(s) for s in range(4)]
    if game == "riichi":
        from mjcore.riichi.game import Game
        from mjcore.riichi.rules import DEFAULT_RULES
        from mjcore.riichi.view import PlayerView
        from mjcore.riichi.wall import Wall

        riichi = Game(DEFAULT_RULES, lambda pos, honba: Wall.from_seed(1, pos, honba),
                      Table(agents, PlayerView), max_hands=2)
        play = riichi.run
    else:
        from mjcore.classical.engine.game import play_game

        def play() -> Any:
            return play_game(agents, seed=1, max_hands=2)
    with pytest.raises(EngineError, match="did not end within 2 hands"):
        play()
