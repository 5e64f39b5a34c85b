"""Claims on a discard in a classical hand (chinese-classical.md §5.3, §9.2): what each seat
is offered, which claim wins, and what it does.

Any other seat may claim a discard for Mah-Jong (once fishing, under ``fishing_call``), a pung
or an exposed kong (while loose tiles are left), the next seat also for a chow; a seat that
made an Original Call only for Mah-Jong, and a discard made after the live wall ran out only
for Mah-Jong unless ``last_discard_claims`` is "any". Mah-Jong beats a pung or a kong, which
beat a chow; several Mah-Jongs stand by ``multiple_mahjong``. Asking the seats and ranking
their claims is :meth:`~mjcore.engine.turns.TurnReferee.claims`; this section offers and
applies: a Mah-Jong ends the hand, a chow or pung gives the claimer his turn without a draw,
an exposed kong with a loose tile.
"""
from __future__ import annotations

from typing import Any

from ...engine.turns import Claimed, ClaimRanks, Start
from ...melds import MeldKind
from .actions import (
    CHOW,
    KONG,
    MAHJONG_CLAIM,
    PASS,
    PUNG,
    Action,
    ActionType,
    CalledSet,
    HandResult,
    WinInfo,
)
from .hand_state import Event
from .handcalc import USE_NAMES, mahjong_uses
from .mahjong import MahJong

# Mah-Jong over pung and kong over a chow (§5.3); several Mah-Jongs by ``multiple_mahjong``
_CLAIM_RANKS = {mode: ClaimRanks.of(len(ActionType), {MAHJONG_CLAIM: 3, PUNG: 2, KONG: 2,
                                                       CHOW: 1}.items(), 3, mode)
                for mode in ("first", "last", "all")}
# the claimer's turn after a claimed kong (a loose tile) or a chow or pung (no draw), by seat
_AFTER_KONG = tuple(Claimed(s, Start.REPLACEMENT) for s in range(4))
_AFTER_CALL = tuple(Claimed(s, Start.CALLED) for s in range(4))
_CHI = MeldKind.CHI
# the set a claim makes (a chow, a pung, an exposed kong), by action type
_CLAIMED_KIND = {CHOW: _CHI, PUNG: MeldKind.PON, KONG: MeldKind.KAN_OPEN}


class DiscardClaims(MahJong):
    """The claims on a discard (see the module text)."""

    claim_ranks_of = _CLAIM_RANKS

    def _claims(self, discarder: int, k: int, last: bool, about: Event,
                ) -> Claimed | HandResult | None:
        """Ask the other seats what they claim of the discard ``k`` (``last``: made after the
        live wall ran out) and apply the winning claim: the hand's result on Mah-Jong, the
        claimer's turn on a set, None when nobody claims it."""
        self.claim_tile, self.claim_last = k, last
        # who could claim at all: a pair of the tile, a wait on it, a neighbour for a chow
        counts = self.counts
        waits = self.waits
        bit = 1 << k
        left = self.others[discarder][0]
        candidates = 0
        for s in self.others[discarder]:
            c = counts[s]
            if c[k] >= 2 or waits[s] & bit or (s == left and k < 27 and (
                    (c[k - 1] if k % 9 else 0) or (c[k + 1] if k % 9 != 8 else 0))):
                candidates |= 1 << s
        if not candidates:
            return None
        wins, best = self.claims(discarder, k, self._claim_actions, about, candidates)
        if wins:
            return self._mahjong_on_discard(discarder, k, wins)
        if best is None:
            return None
        return self._apply_call(best[0], discarder, best[1])

    def _claim_actions(self, seat: int, discarder: int, k: int) -> list[Action]:
        """``seat``'s choices on the discard of ``k`` being claimed, sorted."""
        last = self.claim_last
        actions = [PASS]
        c = self.counts[seat]
        n_sets = len(self.melds[seat])
        if (self.waits[seat] >> k) & 1 and self.fishing[seat]:
            earth = self.n_discards == 1 and discarder == 0 and self.n_claims == 0
            for use in mahjong_uses(c, n_sets, k, self.forms):
                if not self.rules.minimum_doubles or self._qualifies(WinInfo(
                        seat, k, discarder, use, False, 0, False, last, False, False, earth,
                        self.called[seat])):
                    actions.append(Action(MAHJONG_CLAIM, k, use))
        if self.called[seat] or (last and not self.last_any):
            return actions
        n = c[k]
        if n >= 2:
            actions.append(Action(PUNG, k))
            if n >= 3 and self.wall.loose_remaining > 0:
                actions.append(Action(KONG, k))
        if k < 27 and seat == (discarder + 1) % 4:
            r = k % 9
            if r <= 6 and c[k + 1] and c[k + 2]:
                actions.append(Action(CHOW, k, 0))
            if 1 <= r <= 7 and c[k - 1] and c[k + 1]:
                actions.append(Action(CHOW, k, 1))
            if r >= 2 and c[k - 2] and c[k - 1]:
                actions.append(Action(CHOW, k, 2))
        actions.sort()
        return actions

    def answered(self, seat: int, choice: Action) -> None:
        """A claim is announced as it is made."""
        if choice.type != ActionType.PASS:
            emit = self.emit          # (see HandState.emit)
            emit({"type": "claim", "seat": seat, "tile": self.claim_tile,
                       "call": choice.type.name.lower(), **_form_field(choice)})

    def _mahjong_on_discard(self, discarder: int, k: int,
                            wins: list[tuple[int, Action]]) -> HandResult:
        """The Mah-Jong claims on the discard ``k`` that stand, declared: the hand's result."""
        self.discards[discarder].pop()       # the claimed tile leaves the river
        self.public[k] -= 1
        for s, a in wins:
            self.counts[s][k] += 1
            self.emit({"type": "mahjong", "seat": s, "tile": k, "from": discarder,
                       "use": USE_NAMES[a.form]})
        self.on_dealt_hand = False
        self.fresh = False
        earth = self.n_discards == 1 and discarder == 0 and self.n_claims == 0
        return self._finish(tuple(
            WinInfo(s, k, discarder, a.form, False, 0, False, self.claim_last, False, False,
                    earth, self.called[s]) for s, a in wins))

    def _apply_call(self, seat: int, discarder: int, a: Action) -> Claimed:
        """``seat``'s chow, pung or kong on the discard: the set declared, then his turn."""
        self.discards[discarder].pop()
        k = a.tile
        c = self.counts[seat]
        kind = _CLAIMED_KIND[a.type]
        made = CalledSet(kind, k - a.form if kind == _CHI else k, discarder)
        taken = list(made.tiles)
        taken.remove(k)                 # the discard; the others come from the hand
        for j in taken:
            c[j] -= 1
            self.public[j] += 1
        self.melds[seat].append(made)
        event: Event = {"type": kind.classical, "seat": seat, "tile": k, "from": discarder}
        if kind == _CHI:
            event["form"] = a.form
        emit = self.emit              # (see HandState.emit)
        emit(event)
        self.on_dealt_hand = False
        self.fresh = False
        self.n_claims += 1
        self.kongs = 0
        self.just_pung = -1
        self.loose = False
        if a.type == KONG:
            self.kongs = 1
            return _AFTER_KONG[seat]
        if a.type == PUNG:
            self.just_pung = k
        return _AFTER_CALL[seat]


def _form_field(a: Action) -> dict[str, Any]:
    if a.form < 0:
        return {}
    if a.type == MAHJONG_CLAIM:
        return {"use": USE_NAMES[a.form]}
    return {"form": a.form}
