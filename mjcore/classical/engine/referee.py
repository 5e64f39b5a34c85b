"""The referee of one Chinese classical hand (chinese-classical.md §3-§9, §12).

:class:`ClassicalHand` holds the wall and every hidden tile. It deals, replaces bonus tiles
(East, South, West, North), then runs the turns: a draw (with bonus tiles declared and replaced
at once), the player's choice (Mah-Jong, a concealed kong, adding to a pung, a discard, an
Original Call), the claims on a discard (Mah-Jong > pung = kong > chow, a chow only from the
left, several Mah-Jongs by ``multiple_mahjong``), robbing a kong, and the wash-out. Every choice
goes to a *decider* ``decide(seat, actions) -> Action`` with ``actions`` sorted and never empty;
the referee refuses anything not offered. It emits events (dicts, tiles as codes) to
``events`` and returns a :class:`HandResult` with everything the scorer needs.

The turn cycle, asking a seat, the claims and their priority and robbing a kong are the shared
machinery of :mod:`mjcore.engine.turns` (as for riichi); the classical hooks are in sections,
one module each, on the hand's state (:mod:`.hand_state`): :mod:`.bonus_tiles` the deal, bonus
tiles and loose tiles; :mod:`.mahjong` qualifying for and finishing on a Mah-Jong;
:mod:`.claims` the claims on a discard; :mod:`.kongs` kongs and robbing a kong; this module
the turn: the draw, the legal actions, the discard, the wash-out (§5.1, §8.2).

Seats are 0 = East .. 3 = North of this hand; tiles are codes (0..33 kinds, 34..41 bonus).
"""
from __future__ import annotations

from itertools import compress

from ..._core.engine_turn import offered
from ...engine.turns import Claimed, EngineError, Start, Step
from ...melds import MeldKind
from .actions import (
    ADD_KONG,
    CHOW,
    CONCEALED_KONG,
    DISCARD,
    FISHING,
    KONG,
    MAHJONG,
    MAHJONG_CLAIM,
    ORIGINAL_CALL,
    PASS,
    PUNG,
    Action,
    ActionType,
    CalledSet,
    HandResult,
    WinInfo,
)
from .bonus_tiles import BonusTiles
from .hand_state import Event
from .handcalc import USE_PAIR, complete, shanten, waits_mask
from .kongs import Kongs
from .wall import BONUS_BASE

_DISCARDS = tuple(Action(DISCARD, k) for k in range(34))
_CALLS = tuple(Action(ORIGINAL_CALL, k) for k in range(34))
_FISHING = tuple(Action(FISHING, k) for k in range(34))


# what each action type does on one's own turn (types never offered on a turn: END)
_TURN_STEPS = tuple(
    {DISCARD: Step.DISCARD, ORIGINAL_CALL: Step.DISCARD, FISHING: Step.DISCARD,
     MAHJONG: Step.WIN, CONCEALED_KONG: Step.KONG, ADD_KONG: Step.KONG}.get(t, Step.END)
    for t in ActionType)
_REPLACEMENT, _DEALT, _CALLED = Start.REPLACEMENT, Start.DEALT, Start.CALLED
_PON = MeldKind.PON


class ClassicalHand(Kongs, BonusTiles):
    """One hand of classical mahjong. Build it, then call :meth:`play` once."""

    turn_steps = _TURN_STEPS
    pass_type = ActionType.PASS
    is_offered = staticmethod(offered)   # type: ignore[assignment]

    @staticmethod
    def tile_name(tile: int) -> str:
        """A tile code's name (as in the records)."""
        from .records import code_name

        return code_name(tile)

    def play(self) -> HandResult:
        """Deal, play the hand to its end and return its HandResult (events go to ``emit``)."""
        return self.play_turns()

    def first_turn(self) -> tuple[int, int]:
        """The deal; East plays first on his 14 dealt tiles."""
        self.deal()
        return 0, _DEALT

    def draw(self, seat: int, start: int) -> int:
        """A draw from the live wall (-1 when it ran out: a wash-out) or, after a kong, a loose
        tile; a bonus tile drawn is declared and replaced (-1 when no tile is left for it)."""
        wall = self.wall
        if start == _REPLACEMENT:
            drawn, self.loose = self._draw_loose(seat)
            if drawn < 0:
                return -1
            self.fresh = False
        else:
            if wall.live_remaining == 0:
                self.washout = True
                return -1
            drawn = wall.draw()
            emit = self.emit          # (see HandState.emit)
            emit({"type": "draw", "seat": seat, "tile": drawn})
            self.loose = False
            if drawn >= BONUS_BASE:
                drawn, self.loose = self._replace_bonus(seat, drawn)
                if drawn < 0:
                    return -1
            self.kongs = 0
            self.on_dealt_hand = False
            self.fresh = True
        self.counts[seat][drawn] += 1
        self.just_pung = -1
        return drawn

    def exhausted(self, seat: int, start: int) -> HandResult:
        """A wash-out, or the hand ends when a bonus tile finds no replacement."""
        if self.washout:
            self.emit({"type": "washout"})
        return self._finish(())

    def turn_actions(self, seat: int, drawn: int, start: int) -> list[Action]:
        """The legal choices on ``seat``'s turn, sorted (built in sorted order); with
        ``minimum_doubles`` a Mah-Jong only when it scores enough."""
        claimed = start == _CALLED
        c = self.counts[seat]
        ms = self.melds[seat]
        locked = self.called[seat]
        if locked and drawn >= 0:
            actions = [_DISCARDS[drawn]]
        else:
            actions = list(compress(_DISCARDS, c))
            if self.rules.original_call and not self.discards[seat] and not ms and not locked:
                actions.extend(_CALLS[k] for k in self._ready_discards(seat))
        # (fresh: ``drawn`` was added to the hand whose waits are known)
        if not claimed and (self.fishing[seat] or drawn < 0) and (
                self.waits[seat] >> drawn & 1 if self.fresh else
                complete(bytes(c), len(ms), self.forms)) and (
                not self.rules.minimum_doubles
                or self._qualifies(self._self_drawn(seat, drawn, claimed))):
            actions.append(Action(MAHJONG, self._winning_tile(drawn)))
        # kongs: concealed ones not right after a claim, added ones after a claim only to the
        # pung just claimed (add_to_claimed_pung)
        if not locked and self.wall.loose_remaining > 0:
            if not claimed and 4 in c:
                actions.extend(Action(CONCEALED_KONG, k) for k in range(34) if c[k] == 4)
            if ms:
                adds = sorted(m.tile for m in ms if m.kind == _PON and c[m.tile] and (
                    not claimed or (self.rules.add_to_claimed_pung and m.tile == self.just_pung)))
                actions.extend(Action(ADD_KONG, k) for k in adds)
        if not self.fishing[seat] and not (locked and drawn >= 0):
            # announcing "fishing" with a discard
            actions.extend(_FISHING[k] for k in self._ready_discards(seat))
        return actions

    def _ready_discards(self, seat: int) -> list[int]:
        """The kinds whose discard leaves ``seat``'s hand one tile from Mah-Jong (for an
        Original Call or announcing fishing)."""
        c = self.counts[seat]
        n_sets = len(self.melds[seat])
        ready = []
        for k in range(34):
            if c[k]:
                c[k] -= 1
                if shanten(bytes(c), n_sets, self.forms) == 0:
                    ready.append(k)
                c[k] += 1
        return ready

    def discard(self, seat: int, choice: Action, drawn: int) -> Claimed | HandResult | None:
        """A discard (announcing an Original Call or fishing) and the claims on it."""
        t = choice.type
        k = choice.tile
        self.counts[seat][k] -= 1
        self.public[k] += 1
        self.discards[seat].append(k)
        self.n_discards += 1
        event: Event = {"type": "discard", "seat": seat, "tile": k}
        if t == ORIGINAL_CALL:
            self.called[seat] = self.fishing[seat] = True
            event["original_call"] = True
        elif t == FISHING:
            self.fishing[seat] = True
            event["fishing"] = True
        emit = self.emit              # (see HandState.emit)
        emit(event)
        self.waits[seat] = waits_mask(bytes(self.counts[seat]), len(self.melds[seat]),
                                      self.forms)     # (_update_waits, a call less a turn)
        return self._claims(seat, k, self.wall.live_remaining == 0, event)


# ClassicalHand, and the actions, sets and results it deals in (their home is .actions)
__all__ = [
    "ADD_KONG",
    "CHOW",
    "CONCEALED_KONG",
    "DISCARD",
    "FISHING",
    "KONG",
    "MAHJONG",
    "MAHJONG_CLAIM",
    "ORIGINAL_CALL",
    "PASS",
    "PUNG",
    "USE_PAIR",
    "Action",
    "ActionType",
    "CalledSet",
    "ClassicalHand",
    "EngineError",
    "HandResult",
    "WinInfo",
]
