"""A whole game: hand after hand until the end, then the final ranking and uma/oka.

:func:`play_game` runs a seeded self-play game with four agents (three under three-player
rules, ``players=3``: hands East 1-3 and South 1-3, West 1-3 in the extension);
:class:`Game` is the machinery it shares with replay (a wall source and a decider are all that
differ).

    >>> from mjcore.riichi.agents import EfficiencyAgent, RandomAgent
    >>> res = play_game([EfficiencyAgent(), RandomAgent(1), RandomAgent(2), RandomAgent(3)],
    ...                 seed=7)
    >>> sum(res.scores)
    100000
"""
from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..engine.table import Table, event_sink, run_game
from .actions import Action
from .agents import Agent
from .events import Event
from .round import EngineError, RiichiRound, RoundResult
from .rules import DEFAULT_RULES, RuleSet
from .view import PlayerView
from .wall import Wall

WallSource = Callable[[int, int], Wall]       # (round index, honba) -> wall


@dataclass
class GameResult:
    """The end of a game: final ``scores`` and ``ranks`` by seat, ``final_points`` after uma
    and oka, the events, and each hand's RoundResult.
    """
    scores: list[int]                 # final raw points (leftover sticks paid out)
    ranks: list[int]                  # 1..4 per seat
    final_points: list[float]         # after uma/oka, in thousands
    events: list[Event]
    n_hands: int
    hand_results: list[RoundResult] = field(default_factory=list)
    seed: int | None = None
    agent_of_seat: list[int] = field(default_factory=lambda: [0, 1, 2, 3])

    def agent_ranks(self) -> list[int]:
        """Rank of each agent (in the order the agents were given)."""
        out = [0] * len(self.ranks)
        for seat, agent in enumerate(self.agent_of_seat):
            out[agent] = self.ranks[seat]
        return out


def ranking(scores: Sequence[int]) -> list[int]:
    """Rank per seat (1 = first); ties go to the seat earlier in the first hand's order."""
    order = sorted(range(len(scores)), key=lambda s: (-scores[s], s))
    ranks = [0] * len(scores)
    for r, s in enumerate(order):
        ranks[s] = r + 1
    return ranks


def final_points(scores: Sequence[int], rules: RuleSet = DEFAULT_RULES) -> list[float]:
    """Points after uma and oka, in thousands; first place also gets the oka.

    With Tenhou rounding (``rules.final_rounding == "tenhou"``) every score but the first is
    first rounded to a whole thousand, halves away from zero (39 500 -> 40, -7 500 -> -8), and
    first place gets whatever makes the four results sum to zero."""
    ranks = ranking(scores)
    tenhou_rounding = rules.final_rounding == "tenhou"
    seats = range(len(scores))
    pts = [0.0] * len(scores)
    first = ranks.index(1)
    for s in seats:
        sc = scores[s]
        if tenhou_rounding and s != first:
            k = math.floor(abs(sc) / 1000 + 0.5)
            sc = 1000 * (k if sc >= 0 else -k)
        pts[s] = (sc - rules.target_points) / 1000 + rules.uma[ranks[s] - 1] / 1000
    if tenhou_rounding:
        pts[first] = -sum(pts[s] for s in seats if s != first)
    else:
        pts[first] += rules.oka / 1000
    return [round(p, 1) + 0.0 for p in pts]


class Game:
    """Runs hands until the game ends. ``decide(seat, actions)`` picks every choice."""

    def __init__(self, rules: RuleSet, walls: WallSource,
                 decide: Callable[[int, list[Action]], Action], *,
                 names: Sequence[str] = ("", "", "", ""), seed: int | None = None,
                 on_event: Callable[[Event], None] | None = None,
                 on_round: Callable[[RiichiRound], None] | None = None,
                 max_hands: int = 1000) -> None:
        self.rules = rules
        self.walls = walls
        self.decide = decide
        self.names = list(names)
        self.seed = seed
        self.on_event = on_event
        self.on_round = on_round
        self.max_hands = max_hands
        self.events: list[Event] = []
        self.scores = [rules.start_points] * rules.players
        self.round: RiichiRound | None = None
        self.results: list[RoundResult] = []
        self.position = 0          # round wind * 4 + kyoku - 1
        self.honba = self.sticks = 0
        # the last position of the game's length, and of its extension
        self.last_position = (4 if rules.game_length == "hanchan" else 0) + rules.players - 1
        self.extension_end = self.last_position + (4 if rules.west_extension else 0)

    def run(self) -> GameResult:
        """Play hands until the game ends (riichi.md §15.4); emits ``start_game`` ...
        ``end_game`` through ``on_event`` and returns the scores, ranks and points."""
        rules = self.rules
        # "mjcore_rules", not "rules": other mjai tools give "rules" other meanings
        start: Event = {"type": "start_game", "names": self.names, "mjcore_rules": rules.name,
                        "rule_options": rules.to_dict()}
        if self.seed is not None:
            start["seed"] = self.seed
        end = run_game(event_sink(self.events, self.on_event), start, self.play_hand,
                       self.end_event, self.max_hands)
        return GameResult(list(self.scores), ranking(self.scores), end["final_points"],
                          self.events, len(self.results), self.results, self.seed)

    def play_hand(self, index: int) -> bool:
        """Play the hand at the current position; whether the game goes on (riichi.md
        §15.4)."""
        rules = self.rules
        position = self.position
        dealer = position % 4
        wall = self.walls(position, self.honba)
        rnd = RiichiRound(rules, wall, round_wind=position // 4, kyoku=position % 4 + 1,
                          dealer=dealer, honba=self.honba, sticks=self.sticks,
                          scores=self.scores, events=self.events, on_event=self.on_event)
        self.round = rnd
        if self.on_round is not None:
            self.on_round(rnd)
        res = rnd.play(self.decide)
        self.results.append(res)
        self.sticks = res.sticks_left
        self.honba = res.honba_next
        scores = self.scores
        if rules.tobi and min(scores) < 0:
            return False
        top = max(scores)
        last = self.last_position
        if res.renchan:
            if position > last and rules.west_sudden_death and top >= rules.target_points:
                # the extension ends after the first hand that leaves anyone at the
                # target, even when the dealer repeats (riichi.md §15.4 (4))
                return False
            # agari-yame / tenpai-yame in the last hand: the dealer won (or, with
            # tenpai_yame, was tenpai at the draw) and is now first with the target
            return not (position >= last and rules.agari_yame
                        and (res.kind == "hora" or (res.kind == "exhaustive"
                                                    and rules.tenpai_yame))
                        and ranking(scores)[dealer] == 1 and top >= rules.target_points)
        position += 1
        if position % 4 == rules.players:      # three players: no fourth hand of a wind
            position += 4 - rules.players
        self.position = position
        return not (position > last
                    and (top >= rules.target_points or position > self.extension_end))

    def end_event(self) -> Event:
        """The ``end_game`` event: leftover sticks to the first place (with
        ``leftover_sticks = first_place``), the final scores and points."""
        if self.sticks and self.rules.leftover_sticks == "first_place":
            first = ranking(self.scores).index(1)
            self.scores[first] += 1000 * self.sticks
        return {"type": "end_game", "scores": list(self.scores),
                "final_points": final_points(self.scores, self.rules)}


def seat_draw(seed: int) -> list[int]:
    """The seed's seat draw (riichi.md §2.3, as a uniform permutation): the index of the agent
    that sits at each seat; seat 0 is the first dealer (East)."""
    return seat_order(seed, 4)


def seat_order(seed: int, players: int) -> list[int]:
    """:func:`seat_draw` for ``players`` seats (three-player games draw among three)."""
    digest = hashlib.blake2b(f"mjcore-seating:{seed}".encode(), digest_size=8).digest()
    order = list(range(players))
    random.Random(int.from_bytes(digest, "little")).shuffle(order)
    return order


def play_game(agents: Sequence[Agent], seed: int = 0, rules: RuleSet | str | None = None,
              names: Sequence[str] | None = None,
              on_event: Callable[[Event], None] | None = None,
              on_round: Callable[[RiichiRound], None] | None = None,
              seating: str | None = None) -> GameResult:
    """Play one seeded game. The same seed, rules and agents give the same record.

    ``seating`` (default: the rules' ``seating`` option) is ``fixed`` (agent i sits at seat i)
    or ``wind_draw``/``random`` (seats drawn from the seed, see :func:`seat_draw`);
    ``GameResult.agent_of_seat`` tells who sat where, and ``ranks``/``scores`` are by seat."""
    ruleset: RuleSet = (RuleSet.preset(rules) if isinstance(rules, str)
                        else rules or DEFAULT_RULES)
    seating = seating or ruleset.seating
    n = ruleset.players
    if len(agents) != n:
        raise EngineError(f"{n}-player rules ({ruleset.name}) need {n} agents, not {len(agents)}")
    order = list(range(n)) if seating == "fixed" else seat_order(seed, n)
    given_names = list(names) if names else [getattr(a, "name", type(a).__name__)
                                             for a in agents]
    agents = [agents[i] for i in order]
    names = [given_names[i] for i in order]
    table = Table(agents, PlayerView)
    game = Game(ruleset, lambda pos, honba: Wall.from_seed(seed, pos, honba, n), table,
                names=names, seed=seed, on_event=table.listener(on_event))

    def round_hook(rnd: RiichiRound) -> None:
        table.attach(rnd, game.events)
        if on_round is not None:
            on_round(rnd)

    game.on_round = round_hook
    result = game.run()
    result.agent_of_seat = order
    return result


def describe(result: GameResult) -> dict[str, Any]:
    """A game's outcome as a plain dict (scores, ranks, final points, hands)."""
    return {"scores": result.scores, "ranks": result.ranks,
            "final_points": result.final_points, "hands": result.n_hands}
