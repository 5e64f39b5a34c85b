"""Conformance checks for classical self-play (``mjcore play --rules classical
--check-invariants``): after every discard, claim, kong and Mah-Jong the 144 tiles (136
without bonus tiles) are all accounted for (wall, hands, sets, bonus tiles, discards); every
finished
hand is legal (13 tiles a seat counting each set as three, the winner 14 and complete); every
settlement sums to zero and the scores keep their total; the same seed plays the same game;
the record, written as JSON lines and read back, replays to the same events."""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import compress
from operator import add
from typing import Any

from ...errors import InvariantError as InvariantError  # declared there, re-exported
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


def check_game(seed: int, names: Sequence[str], rules: ClassicalRules) -> tuple[int, GameResult]:
    """Play one game with every check on; (events checked, the result)."""
    state: dict[str, Any] = {"hand": None, "checked": 0, "index": -1}

    def where(ev: dict[str, Any]) -> str:
        return f"game seed {seed} hand {state['index']} event {ev['type']}"

    def on_hand(hand: ClassicalHand) -> None:
        state["hand"] = hand

    def hand_n(state: dict[str, Any]) -> int:
        return state["hand"].wall.n if state["hand"] is not None else 144

    def on_event(ev: dict[str, Any]) -> None:
        t = ev["type"]
        if t == "start_hand":
            state["index"] = ev["index"]
            state["total"] = sum(ev["scores"])
            state["winners"] = set()
            state["shared"] = None
            return
        full = _FULL_COUNTS[hand_n(state)]
        if t == "mahjong":
            if state["winners"] and ev["from"] != ev["seat"]:
                # multiple_mahjong = all: one discard completes every winner's hand
                state["shared"] = full = list(state["shared"] or full)
                full[ev["tile"]] += 1
            state["winners"].add(ev["seat"])
        elif state.get("shared"):
            full = state["shared"]
        hand = state["hand"]
        if hand is None or t in ("start_game", "end_game"):
            return
        state["checked"] += 1
        # (a draw is counted into the hand after its event; the next choice checks it)
        if t in _CHECKED and table_counts(hand) != full:
            tiles = table_tiles(hand)
            expected = Counter({k: n for k, n in enumerate(full) if n})
            diff = (tiles - expected) + (expected - tiles)
            raise InvariantError(f"{where(ev)}: the 144 tiles are not all accounted for "
                                 f"({dict(diff)})")
        if t == "end_hand":
            if sum(ev["net"]) != 0:
                raise InvariantError(f"{where(ev)}: the settlement {ev['net']} does not sum "
                                     "to zero")
            if sum(ev["scores"]) != state["total"]:
                raise InvariantError(f"{where(ev)}: the scores' total changed")
            winners = state["winners"]
            for s in range(4):
                n = sum(hand.counts[s]) + 3 * len(hand.melds[s])
                want = 14 if s in winners else 13
                if n != want:
                    raise InvariantError(f"{where(ev)}: seat {s} ends with {n} tiles (sets as "
                                         f"three), not {want}")
                if s in winners and not complete(bytes(hand.counts[s]), len(hand.melds[s]),
                                                 hand.forms):
                    raise InvariantError(f"{where(ev)}: the winner's hand is not complete")

    def game(checked: bool) -> GameResult:
        agents = [make_agent(n, seed * 4 + p) for p, n in enumerate(names)]
        try:
            if not checked:
                return play_game(agents, seed=seed, rules=rules)
            return play_game(agents, seed=seed, rules=rules, on_event=on_event,
                             on_hand=on_hand)
        finally:
            for a in agents:
                close = getattr(a, "close", None)
                if close:
                    close()

    result = game(True)
    again = game(False)
    if again.events != result.events:
        raise InvariantError(f"game seed {seed}: the same seed played a different game")
    events = read_lines(write_lines(result.events), f"game seed {seed}")
    replay_record(events, f"game seed {seed}")
    return state["checked"], result
