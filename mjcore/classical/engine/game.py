"""A full classical game: seating, hand after hand, scoring and settlement, dealer rotation,
the prevailing wind, the end after the rounds the rules set (chinese-classical.md §2, §10).

``players`` are indices 0..3 into the agents; each hand maps its seats (0 = East) to players:
seat s is player ``(east + s) % 4``, so South sits on East's right. East keeps the deal when
he wins (not after his 13th consecutive win with ``thirteenth_win_passes_deal``) and after a
wash-out unless ``washout_passes_deal``; otherwise it passes to South (:func:`pass_deal`).
The prevailing wind moves on when the first East of the game is East again.
"""
from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import chain, repeat
from typing import Any

from ...engine.seeds import hand_seed
from ...engine.table import Table, event_sink, run_game
from ...engine.view import Event
from ...errors import MjcoreError
from ...melds import MeldKind
from ..rules import ClassicalRules
from .handcalc import USE_NAMES, USE_PUNG
from .referee import ClassicalHand, EngineError, HandResult, WinInfo
from .view import ClassicalView
from .wall import BONUS_BASE, ClassicalWall

_CLAIM_OF_USE = {"lower": "chow", "middle": "chow", "upper": "chow", "pung": "pung",
                 "pair": "pair", "special": "any"}
_CHI = MeldKind.CHI


def dead_kinds(result: HandResult, win: WinInfo) -> frozenset[int]:
    """Kinds whose four copies are all on the table: unclaimed discards and declared sets
    (a claimed discard counts once, in its set)."""
    seen = [0] * 34
    for s in range(4):
        for t in result.discards[s]:
            seen[t] += 1
        for m in result.melds[s]:
            for k in m.tiles:
                seen[k] += 1
    return frozenset(k for k in range(34) if seen[k] >= 4)


def deal_of(result: HandResult, win: WinInfo, prevailing: int, *, east_streak: int = 0,
            cannon: int | None = None, pair: int | None = None) -> Any:
    """The scorer's :class:`~mjcore.classical.scoring.Deal` of a finished hand (``pair``: the
    pair the winner declared, when he chose one; else the scorer takes the best reading)."""
    from ..scoring import Deal, PlayerHand

    hands = []
    for s in range(4):
        concealed = tuple(chain.from_iterable(map(repeat, range(34), result.concealed[s])))
        hands.append(PlayerHand(concealed, tuple(m.meld(s) for m in result.melds[s]),
                                tuple(b - BONUS_BASE for b in result.bonus[s])))
    how = set()
    if win.discarder < 0:
        how.add("self_drawn")
    if win.loose:
        how.add("loose_tile")
        if win.kongs_in_a_row >= 2:
            how.add("kong_upon_kong")
    for name, on in (("last_tile", win.last_tile), ("last_discard", win.last_discard),
                     ("robbed_kong", win.robbed_kong), ("original_call", win.original_call),
                     ("heaven", win.heaven), ("earth", win.earth)):
        if on:
            how.add(name)
    if win.seat == 0 and east_streak >= 12:
        how.add("thirteenth_win")
    claim = "any" if win.discarder < 0 else _CLAIM_OF_USE[USE_NAMES[win.use]]
    return Deal(tuple(hands), prevailing, win.seat, win.tile, frozenset(how),  # type: ignore[arg-type]
                None if win.discarder < 0 else win.discarder, claim, cannon,
                dead_kinds(result, win), pair=pair)


def let_off_cannon(result: HandResult, win: WinInfo) -> int | None:
    """The discarder, when the discard that gave the Mah-Jong was dangerous (§9.3, Harr): the
    winner already showed 9 or more tiles of one suit and wins with that suit alone (honours
    allowed), or 9 or more major tiles and wins an all-major hand; or showed two dragon sets
    and the discard makes the third, or three wind sets and the discard makes the fourth."""
    if win.discarder < 0:
        return None
    shown = result.melds[win.seat]
    per_suit = [0, 0, 0]
    majors = 0
    dragons = winds = 0
    for m in shown:
        n = m.kind.size
        if m.tile < 27:
            per_suit[m.tile // 9] += n
        if m.kind != _CHI and (m.tile >= 27 or m.tile % 9 in (0, 8)):
            majors += n
        if m.kind != _CHI and m.tile >= 31:
            dragons += 1
        elif m.kind != _CHI and m.tile >= 27:
            winds += 1
    held = list(result.concealed[win.seat])
    for m in shown:
        for k in set(m.tiles):      # the kinds shown
            held[k] += 1
    kinds = [k for k in range(34) if held[k]]
    makes_set = win.use == USE_PUNG
    for suit in range(3):
        if per_suit[suit] >= 9 and all(k >= 27 or k // 9 == suit for k in kinds):
            return win.discarder
    if majors >= 9 and all(k >= 27 or k % 9 in (0, 8) for k in kinds):
        return win.discarder
    if makes_set and win.tile >= 31 and dragons == 2:
        return win.discarder
    if makes_set and 27 <= win.tile < 31 and winds == 3:
        return win.discarder
    return None


def score_result(result: HandResult, rules: ClassicalRules, prevailing: int, *,
                 east_streak: int = 0, cannon: int | None = None,
                 pair: int | None = None) -> tuple[list[int], Any]:
    """(net change by seat, the scorer's DealScore or None) of a finished hand. A wash-out
    scores nothing; with several winners (``multiple_mahjong = all``) each winner's hand is
    scored alone and the discarder pays each what he would pay that winner (§5.3)."""
    if not result.wins:
        return [0, 0, 0, 0], None
    from ..scoring import score_deal

    net = [0, 0, 0, 0]
    last = None
    if len(result.wins) == 1:
        last = score_deal(deal_of(result, result.wins[0], prevailing, east_streak=east_streak,
                                  cannon=cannon, pair=pair), rules)
        return list(last.net), last
    for win in result.wins:                 # multiple_mahjong = all: the discarder pays each
        alone = _without(result, [w for w in result.wins if w is not win])
        last = score_deal(deal_of(alone, win, prevailing, east_streak=east_streak), rules)
        paid = sum(p.amount for p in last.payments
                   if p.payer == win.discarder and p.payee == win.seat)
        net[win.seat] += paid
        net[win.discarder] -= paid
    return net, last


def _without(result: HandResult, others: Sequence[WinInfo]) -> HandResult:
    """The hand as if only one of several winners had claimed the tile."""
    concealed = [list(c) for c in result.concealed]
    for w in others:
        concealed[w.seat][w.tile] -= 1
    return result._replace(concealed=tuple(tuple(c) for c in concealed))


@dataclass
class HandRecord:
    """One hand of a game: its ``index``, the prevailing wind, the player who was East, the
    referee's HandResult, ``net`` change by seat, the scores by player after it and the
    (last) winner's DealScore, or None.
    """
    index: int
    prevailing: int
    east: int                   # player who is East
    result: HandResult
    net: list[int]              # by seat
    scores_after: list[int]     # by player
    score: Any = None           # the scorer's DealScore of the (last) winner


@dataclass
class GameResult:
    """A played game: final scores by player, each hand's HandRecord and every event."""
    scores: list[int]                       # by player
    hands: list[HandRecord] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)


def pass_deal(rules: ClassicalRules, east_won: bool, anyone_won: bool,
              streak: int) -> tuple[bool, int]:
    """After a hand: (the deal passes to South, East's run of consecutive wins now), from
    East's run before it (``streak``). East keeps the deal when he wins, except after his
    13th consecutive win when ``thirteenth_win_passes_deal``; after a wash-out he keeps it
    unless ``washout_passes_deal`` (§10)."""
    if east_won:
        if streak >= 12 and rules.thirteenth_win_passes_deal:
            return True, 0
        return False, streak + 1
    if anyone_won or rules.washout_passes_deal:
        return True, 0
    return False, streak


def seating(rules: ClassicalRules, seed: int) -> int:
    """The player who is East in the first hand (§2.1): the highest of two dice each, ties
    throwing again (``dice``), a wind drawn at random (``wind_discs``), or player 0
    (``fixed``)."""
    if rules.seating == "fixed":
        return 0
    rng = random.Random(hand_seed(seed, -1, 0))
    if rules.seating == "wind_discs":
        return rng.randrange(4)
    throwing = [0, 1, 2, 3]
    while True:
        rolls = {p: rng.randint(1, 6) + rng.randint(1, 6) for p in throwing}
        top = max(rolls.values())
        throwing = [p for p in throwing if rolls[p] == top]
        if len(throwing) == 1:
            return throwing[0]


def play_game(agents: Sequence[Any], *, seed: int = 0,
              rules: ClassicalRules | str = "classical",
              on_event: Callable[[Event], None] | None = None,
              keep_events: bool = True, max_hands: int = 10000,
              on_hand: Callable[[ClassicalHand], None] | None = None) -> GameResult:
    """Play one game between four agents (``choose(view, actions)``; agents with
    ``observe(event)`` get every event as their seat sees it). Events go to ``on_event`` and,
    with ``keep_events``, to the result; ``on_hand`` sees each hand's referee before it
    plays (the invariant checker's hook). A game not over after ``max_hands`` hands is an
    EngineError."""
    if isinstance(rules, str):
        rules = ClassicalRules.preset(rules)
    if len(agents) != 4:
        raise MjcoreError(f"a classical game needs 4 players, got {len(agents)}")
    game = _Game(agents, seed, rules, on_event, keep_events, on_hand)
    game.play(max_hands)
    return game.out


class _Game:
    """One game in play: the scores, the deal (East, the round, East's streak), the table of
    agents and where the events go."""

    def __init__(self, agents: Sequence[Any], seed: int, rules: ClassicalRules,
                 on_event: Callable[[Event], None] | None, keep_events: bool,
                 on_hand: Callable[[ClassicalHand], None] | None) -> None:
        self.seed = seed
        self.rules = rules
        self.keep_events = keep_events
        self.on_hand = on_hand
        self.scores = [rules.start_points] * 4
        self.first_east = self.east = seating(rules, seed)
        self.rounds_done = 0
        self.streak = 0
        self.out = GameResult(self.scores)
        self.table = Table(agents, ClassicalView)
        self.emit = event_sink(self.out.events if keep_events else None,
                               self.table.listener(on_event))

    def play(self, max_hands: int) -> None:
        """Play the game to its end (the rules' rounds or agreed hands)."""
        rules = self.rules
        run_game(self.emit, {"type": "start_game", "seed": self.seed, "rules": rules.to_dict(),
                             "preset": rules.name, "first_east": self.first_east},
                 self.play_hand, self.end_event, max_hands)

    def end_event(self) -> Event:
        """The ``end_game`` event: the final scores by player."""
        return {"type": "end_game", "scores": list(self.scores)}

    def play_hand(self, index: int) -> bool:
        """Deal hand ``index``, play it, settle it and pass the deal on (or not); whether the
        game goes on."""
        rules, seed, scores, emit, table = self.rules, self.seed, self.scores, self.emit, self.table
        prevailing = self.rounds_done % 4
        wall = ClassicalWall.from_seed(seed, index, wall_profile=rules.wall_profile,
                                       dead_wall=rules.dead_wall, bonus_tiles=rules.bonus_tiles)
        players = self.seat_players()
        for p, observe in table.observers:
            observe({"type": "seat", "seat": table.seat_of[p]})
        emit({"type": "start_hand", "index": index, "prevailing": prevailing,
              "players": players, "scores": [scores[p] for p in players],
              "east_streak": self.streak, "dice": list(wall.dice), "wall": list(wall.tiles),
              "tail": list(wall.tail)})
        hand = ClassicalHand(rules, wall, table, prevailing=prevailing, emit=emit)
        if self.on_hand is not None:
            self.on_hand(hand)
        hand_scores = [scores[p] for p in players]
        table.attach(hand, self.out.events)
        for v in table.views:
            v.scores = list(hand_scores)
        try:
            result = hand.play()
        except EngineError as exc:
            raise EngineError(f"game seed {seed} hand {index}{self.last_event_text()}: "
                              f"{exc}") from None
        cannon = (let_off_cannon(result, result.wins[0])
                  if rules.cannon_liability and len(result.wins) == 1 else None)
        net, score = score_result(result, rules, prevailing, east_streak=self.streak,
                                  cannon=cannon)
        for s in range(4):
            scores[players[s]] += net[s]
        emit({"type": "end_hand", "net": net, "scores": [scores[p] for p in players],
              "score": score.to_dict() if score is not None else None})
        self.out.hands.append(HandRecord(index, prevailing, self.east, result, net,
                                         list(scores), score))
        passes, self.streak = pass_deal(rules, any(w.seat == 0 for w in result.wins),
                                        bool(result.wins), self.streak)
        if passes:
            self.east = (self.east + 1) % 4
            if self.east == self.first_east:
                self.rounds_done += 1
        if rules.agreed_hands:
            return index + 1 < rules.agreed_hands
        return self.rounds_done < rules.rounds

    def seat_players(self) -> list[int]:
        """The players by seat this hand (East first), seated at the table."""
        players = [(self.east + s) % 4 for s in range(4)]
        self.table.seat(players)
        return players

    def last_event_text(self) -> str:
        """`` after event TYPE of seat N`` for an error's message, when events are kept."""
        events = self.out.events
        if not (self.keep_events and events):
            return ""
        last = events[-1]
        return f" after event {last['type']}" + (
            f" of seat {last['seat']}" if "seat" in last else "")
