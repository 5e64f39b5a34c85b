"""Kongs declared on one's own turn in a classical hand, and robbing them (chinese-classical.md
§6; ``rob_concealed_kong`` of §13).

A seat declares a concealed kong of four tiles it holds, or adds a tile it holds to one of its
exposed pungs (when they are offered: see :meth:`~.referee.ClassicalHand.turn_actions`). The
other seats may then rob the kong for Mah-Jong: an added kong always, a concealed kong only by
``rob_concealed_kong`` (for Thirteen Unique Wonders). A robbed kong is undone and the robbers go
Mah-Jong on its tile; else a loose tile follows.
"""
from __future__ import annotations

from ...melds import MeldKind
from .actions import (
    CONCEALED_KONG,
    MAHJONG_CLAIM,
    PASS,
    Action,
    CalledSet,
    HandResult,
    WinInfo,
)
from .claims import DiscardClaims
from .hand_state import Event
from .handcalc import USE_NAMES, USE_SPECIAL, mahjong_uses
from .mahjong import robbed_sets

_PON, _KAN_CLOSED, _KAN_ADDED = MeldKind.PON, MeldKind.KAN_CLOSED, MeldKind.KAN_ADDED


class Kongs(DiscardClaims):
    """The kongs of one's own turn and robbing them (see the module text)."""

    def kong(self, seat: int, choice: Action, drawn: int) -> HandResult | None:
        """A concealed kong or a tile added to a pung; the hand's result when it is robbed."""
        k = choice.tile
        c = self.counts[seat]
        concealed = choice.type == CONCEALED_KONG
        if concealed:
            c[k] -= 4
            self.public[k] += 4
            self.melds[seat].append(CalledSet(_KAN_CLOSED, k))
            declared: Event = {"type": "concealed_kong", "seat": seat, "tile": k}
            self.emit(declared)
            robbers = (self._robbers(seat, k, True, declared)
                       if self.rules.rob_concealed_kong != "never" else [])
        else:
            c[k] -= 1
            self.public[k] += 1
            ms = self.melds[seat]
            for i, m in enumerate(ms):
                if m.kind == _PON and m.tile == k:
                    ms[i] = CalledSet(_KAN_ADDED, k, m.claimed_from)
                    break
            declared = {"type": "add_kong", "seat": seat, "tile": k}
            self.emit(declared)
            robbers = self._robbers(seat, k, False, declared)
        if robbers:
            return self._robbed_kong(seat, k, concealed, robbers)
        self.kongs += 1
        return None

    def _robbers(self, konger: int, k: int, concealed: bool,
                 about: Event) -> list[tuple[int, int]]:
        """Ask the other seats whether they rob the kong of ``k``; the winning claims as
        (seat, use) (the caller undoes the kong and declares them)."""
        self.claim_tile, self.rob_concealed = k, concealed
        return [(s, a.form) for s, a in self.robbing(konger, k, self._rob_offer, about)]

    def _rob_offer(self, seat: int, konger: int, k: int) -> list[Action]:
        if not (self.waits[seat] >> k) & 1 or not self.fishing[seat]:
            return [PASS]
        uses = mahjong_uses(self.counts[seat], len(self.melds[seat]), k, self.forms)
        if self.rob_concealed:
            uses = [u for u in uses if u == USE_SPECIAL and not self.melds[seat]]
        if self.rules.minimum_doubles:
            uses = [u for u in uses if self._qualifies(WinInfo(
                seat, k, konger, u, False, 0, False, False, True, False, False,
                self.called[seat]))]
        return [PASS] + [Action(MAHJONG_CLAIM, k, u) for u in uses]

    def _robbed_kong(self, konger: int, k: int, concealed: bool,
                     robbers: list[tuple[int, int]]) -> HandResult:
        """The kong of ``k`` undone, then the robbers' Mah-Jongs (``robbers``: (seat, use)):
        the hand's result."""
        self.public[k] -= 4 if concealed else 1
        self.melds[konger], back = robbed_sets(self.melds[konger], k)
        self.counts[konger][k] += back
        for s, use in robbers:
            self.counts[s][k] += 1
            self.emit({"type": "mahjong", "seat": s, "tile": k, "from": konger,
                       "use": USE_NAMES[use], "robbed": True})
        return self._finish(tuple(
            WinInfo(s, k, konger, use, False, 0, False, False, True, False, False,
                    self.called[s]) for s, use in robbers))
