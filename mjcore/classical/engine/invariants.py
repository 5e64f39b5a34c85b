"""Conformance checks for classical self-play (``mjcore play --rules classical
--check-invariants``): after every discard, claim, kong and Mah-Jong the 144 tiles (136
without bonus tiles) are all accounted for (wall, hands, sets, bonus tiles, discards); every
finished hand is legal (13 tiles a seat counting each set as three, the winner 14 and
complete); every settlement sums to zero and the scores keep their total
(:class:`InvariantChecker`). The harness both games share (:mod:`mjcore.engine.invariants`)
adds that the same seed plays the same game and that the record, written as JSON lines and
read back, replays to the same events."""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import compress
from operator import add
from typing import Any

from ...engine import invariants as harness
from ...engine.view import Event
from ...errors import InvariantError as InvariantError  # declared there, re-exported
from ...errors import RecordMismatch
from ..rules import ClassicalRules
from .agents import make_agent
from .game import GameResult, play_game
from .handcalc import complete
from .records import read_lines, replay_record, write_lines
from .referee import ClassicalHand


def table_tiles(hand: ClassicalHand) -> Counter[int]:
    """Every tile of the hand wherever it is: wall, hands, sets, bonus tiles, discards."""
    return Counter({code: n for code, n in enumerate(table_counts(hand)) if n})


_FLIP = bytes([1, 0]) + bytes(254)
_CHECKED = frozenset(("discard", "chow", "pung", "kong", "concealed_kong", "add_kong",
                      "mahjong", "washout", "end_hand"))
_FULL_COUNTS = {144: [4] * 34 + [1] * 8, 136: [4] * 34 + [0] * 8}


def table_counts(hand: ClassicalHand) -> list[int]:
    """:func:`table_tiles` as 42 counts by tile code."""
    wall = hand.wall
    c = [0] * 42
    for t in compress(wall.tiles, wall.taken.translate(_FLIP)):
        c[t] += 1
    for s in range(4):
        c[:34] = map(add, c[:34], hand.counts[s])
        for t in hand.bonus[s]:
            c[t] += 1
        for t in hand.discards[s]:
            c[t] += 1
        for m in hand.melds[s]:
            for k in m.tiles:
                c[k] += 1
    return c


class InvariantChecker:
    """The per-event checks of one game (see the module text); attach with ``on_hand`` and
    ``on_event`` (see :func:`~.game.play_game`); ``checked`` counts the events checked."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.hand: ClassicalHand | None = None
        self.checked = 0
        self.index = -1                 # the hand's index
        self.total = 0                  # the scores' total before it
        self.winners: set[int] = set()
        self.shared: list[int] | None = None    # the full counts with a shared winning discard

    def on_hand(self, hand: ClassicalHand) -> None:
        """Follow a new hand."""
        self.hand = hand

    def on_event(self, ev: Event) -> None:
        """Check the tiles after ``ev``, and the settlement and the hands at its end; raises
        InvariantError."""
        t = ev["type"]
        if t == "start_hand":
            self.index = ev["index"]
            self.total = sum(ev["scores"])
            self.winners = set()
            self.shared = None
            return
        if t == "mahjong":
            self.won(ev)
        hand = self.hand
        if hand is None or t in ("start_game", "end_game"):
            return
        self.checked += 1
        # (a draw is counted into the hand after its event; the next choice checks it)
        if t in _CHECKED:
            self.check_tiles(hand, ev)
        if t == "end_hand":
            self.check_end(hand, ev)

    def full_counts(self) -> list[int]:
        """Every tile code's copies in this hand's tile set (with a shared winning discard:
        one more of it per winner after the first)."""
        return self.shared or _FULL_COUNTS[self.hand.wall.n if self.hand is not None else 144]

    def won(self, ev: Event) -> None:
        """A seat's Mah-Jong; with multiple_mahjong = all one discard completes every
        winner's hand."""
        if self.winners and ev["from"] != ev["seat"]:
            self.shared = list(self.full_counts())
            self.shared[ev["tile"]] += 1
        self.winners.add(ev["seat"])

    def where(self, ev: Event) -> str:
        """The game, hand and event, for a message."""
        return f"game seed {self.seed} hand {self.index} event {ev['type']}"

    def check_tiles(self, hand: ClassicalHand, ev: Event) -> None:
        """Every tile of the hand's set is somewhere, once."""
        full = self.full_counts()
        if table_counts(hand) != full:
            tiles = table_tiles(hand)
            expected = Counter({k: n for k, n in enumerate(full) if n})
            diff = (tiles - expected) + (expected - tiles)
            raise InvariantError(f"{self.where(ev)}: the 144 tiles are not all accounted for "
                                 f"({dict(diff)})")

    def check_end(self, hand: ClassicalHand, ev: Event) -> None:
        """The settlement sums to zero, the scores keep their total, every seat holds 13
        tiles (sets as three) and each winner 14 in a complete hand."""
        if sum(ev["net"]) != 0:
            raise InvariantError(f"{self.where(ev)}: the settlement {ev['net']} does not sum "
                                 "to zero")
        if sum(ev["scores"]) != self.total:
            raise InvariantError(f"{self.where(ev)}: the scores' total changed")
        winners = self.winners
        for s in range(4):
            n = sum(hand.counts[s]) + 3 * len(hand.melds[s])
            want = 14 if s in winners else 13
            if n != want:
                raise InvariantError(f"{self.where(ev)}: seat {s} ends with {n} tiles (sets as "
                                     f"three), not {want}")
            if s in winners and not complete(bytes(hand.counts[s]), len(hand.melds[s]),
                                             hand.forms):
                raise InvariantError(f"{self.where(ev)}: the winner's hand is not complete")


def check_game(seed: int, names: Sequence[str], rules: ClassicalRules) -> tuple[int, GameResult]:
    """Play one game with every check on, again unchecked (the same game), and replay its
    record (:func:`mjcore.engine.invariants.check_game`); (events checked, the result)."""

    def play(agents: list[Any], checker: InvariantChecker | None) -> GameResult:
        if checker is None:
            return play_game(agents, seed=seed, rules=rules)
        return play_game(agents, seed=seed, rules=rules, on_event=checker.on_event,
                         on_hand=checker.on_hand)

    def replay(events: list[Event], where: str) -> str | None:
        try:
            replay_record(events, where)
        except RecordMismatch as exc:
            return str(exc)
        return None

    return harness.check_game(seed, names, make_agent, play, InvariantChecker(seed),
                              write=write_lines, read=read_lines, replay=replay)
