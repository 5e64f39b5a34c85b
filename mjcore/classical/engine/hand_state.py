"""The state of one Chinese classical hand, which the referee's sections build on.

:class:`HandState` holds the wall and every hidden tile: each seat's kind counts, declared
sets, bonus tiles and discards, the waits of each waiting hand, the Original Call and fishing
flags, and the flags of the turn and of the tile being claimed. Each section of the referee is
a class on it, one module each (as riichi's ``state``, ``legal``, ``settlement``, ``round``):
:mod:`.bonus_tiles` the deal, bonus tiles and loose tiles; :mod:`.mahjong` qualifying for and
finishing on a Mah-Jong; :mod:`.claims` the claims on a discard; :mod:`.kongs` kongs and
robbing a kong; :mod:`.referee` the turn (:class:`~.referee.ClassicalHand`).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from ...engine.turns import ClaimRanks, TurnReferee
from ..rules import ClassicalRules
from .actions import Action, CalledSet, Decider, HandResult
from .handcalc import forms_of, waits_mask
from .wall import ClassicalWall

Event = dict[str, Any]


class HandState(TurnReferee[Action, HandResult]):
    """The state of one hand (see the module text); build a :class:`~.referee.ClassicalHand`."""

    # the priority of claims under each ``multiple_mahjong`` (:class:`~.claims.DiscardClaims`)
    claim_ranks_of: ClassVar[Mapping[str, ClaimRanks]]

    def __init__(self, rules: ClassicalRules, wall: ClassicalWall, decide: Decider, *,
                 prevailing: int = 0, emit: Callable[[Event], None] | None = None) -> None:
        """``emit`` receives every event; without it they collect in :attr:`events`."""
        self.rules = rules
        self.wall = wall
        self.prevailing = prevailing
        self.events: list[Event] = []
        # an instance attribute: the hot paths read it into a local (``emit = self.emit``, a
        # LOAD_ATTR, which specializes on it) before calling it
        self.emit = self.events.append if emit is None else emit
        self.forms = forms_of(rules)
        self.counts = [bytearray(34) for _ in range(4)]
        self.melds: list[list[CalledSet]] = [[], [], [], []]
        self.bonus: list[list[int]] = [[], [], [], []]
        self.discards: list[list[int]] = [[], [], [], []]
        self.public = [0] * 34             # tiles on the table: unclaimed discards and sets
        self.waits = [0, 0, 0, 0]          # winning kinds of each 13-3k hand
        self.called = [False] * 4          # Original Call declared
        self.fishing = [not rules.fishing_call] * 4   # may go Mah-Jong (fishing announced)
        self.n_discards = 0
        self.n_claims = 0               # discards claimed (a kong from the hand is no claim)
        self.east_last = -1             # the last tile dealt to East (bonus replacements too)
        self.last_loose = False
        self.loose_from_bonus = rules.bonus_replacement == "loose"
        self.last_any = rules.last_discard_claims == "any"
        # the turn: successive kongs, the drawn tile was a loose tile, the pung just claimed
        # (add_to_claimed_pung), no draw or claim yet since the deal, the waits of the hand
        # before the drawn tile are known, the live wall ran out (a wash-out)
        self.kongs = 0
        self.loose = False
        self.just_pung = -1
        self.on_dealt_hand = True
        self.fresh = False
        self.washout = False
        self.claim_tile = -1            # the discard or kong tile being claimed
        self.claim_last = False         # ... the last discard
        self.rob_concealed = False      # ... a concealed kong
        self.claim_ranks = self.claim_ranks_of[rules.multiple_mahjong]
        self.set_decider(decide)

    def _update_waits(self, seat: int) -> None:
        self.waits[seat] = waits_mask(bytes(self.counts[seat]), len(self.melds[seat]),
                                      self.forms)
