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
machinery of :mod:`mjcore.engine.turns` (as for riichi); this module supplies the classical
hooks: the draws with bonus tiles and loose tiles, the legal actions, kongs, the wash-out.

Seats are 0 = East .. 3 = North of this hand; tiles are codes (0..33 kinds, 34..41 bonus).
"""
from __future__ import annotations

from collections.abc import Callable
from itertools import compress
from typing import Any

from ..._core.engine_turn import offered
from ...engine.turns import Claimed, ClaimRanks, EngineError, Start, Step, TurnReferee
from ...melds import MeldKind
from ..rules import ClassicalRules
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
    Decider,
    HandResult,
    WinInfo,
)
from .handcalc import (
    USE_NAMES,
    USE_PAIR,
    USE_SPECIAL,
    complete,
    forms_of,
    mahjong_uses,
    shanten,
    waits_mask,
)
from .wall import BONUS_BASE, ClassicalWall

Event = dict[str, Any]


_DISCARDS = tuple(Action(DISCARD, k) for k in range(34))
_CALLS = tuple(Action(ORIGINAL_CALL, k) for k in range(34))
_FISHING = tuple(Action(FISHING, k) for k in range(34))


# what each action type does on one's own turn (types never offered on a turn: END)
_TURN_STEPS = tuple(
    {DISCARD: Step.DISCARD, ORIGINAL_CALL: Step.DISCARD, FISHING: Step.DISCARD,
     MAHJONG: Step.WIN, CONCEALED_KONG: Step.KONG, ADD_KONG: Step.KONG}.get(t, Step.END)
    for t in ActionType)
# Mah-Jong over pung and kong over a chow (§5.3); several Mah-Jongs by ``multiple_mahjong``
_CLAIM_RANKS = {mode: ClaimRanks.of(len(ActionType), {MAHJONG_CLAIM: 3, PUNG: 2, KONG: 2,
                                                       CHOW: 1}.items(), 3, mode)
                for mode in ("first", "last", "all")}
_REPLACEMENT, _DEALT, _CALLED = Start.REPLACEMENT, Start.DEALT, Start.CALLED
# the claimer's turn after a claimed kong (a loose tile) or a chow or pung (no draw), by seat
_AFTER_KONG = tuple(Claimed(s, _REPLACEMENT) for s in range(4))
_AFTER_CALL = tuple(Claimed(s, _CALLED) for s in range(4))


_CHI, _PON, _KAN_OPEN, _KAN_CLOSED, _KAN_ADDED = MeldKind
# the set a claim makes (a chow, a pung, an exposed kong), by action type
_CLAIMED_KIND = {CHOW: _CHI, PUNG: _PON, KONG: _KAN_OPEN}


class ClassicalHand(TurnReferee[Action, HandResult]):
    """One hand of classical mahjong. Build it, then call :meth:`play` once."""

    turn_steps = _TURN_STEPS
    pass_type = ActionType.PASS
    is_offered = staticmethod(offered)   # type: ignore[assignment]

    def __init__(self, rules: ClassicalRules, wall: ClassicalWall, decide: Decider, *,
                 prevailing: int = 0, emit: Callable[[Event], None] | None = None) -> None:
        """``emit`` receives every event; without it they collect in :attr:`events`."""
        self.rules = rules
        self.wall = wall
        self.prevailing = prevailing
        self.events: list[Event] = []
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
        self.claim_ranks = _CLAIM_RANKS[rules.multiple_mahjong]
        self.set_decider(decide)

    @staticmethod
    def tile_name(tile: int) -> str:
        """A tile code's name (as in the records)."""
        from .records import code_name

        return code_name(tile)

    # ---- tiles ------------------------------------------------------------------------

    def _update_waits(self, seat: int) -> None:
        self.waits[seat] = waits_mask(bytes(self.counts[seat]), len(self.melds[seat]),
                                      self.forms)

    def _declare_bonus(self, seat: int, tile: int) -> int:
        """Declare a bonus tile and draw its replacement (the live wall or a loose tile, by
        ``bonus_replacement``); -1 when no tile is left."""
        wall = self.wall
        self.bonus[seat].append(tile)
        self.emit({"type": "bonus", "seat": seat, "tile": tile})
        if not self.loose_from_bonus and wall.live_remaining:
            tile = wall.draw()
            self.emit({"type": "draw", "seat": seat, "tile": tile})
            self.last_loose = False
        elif wall.loose_remaining:
            tile = wall.draw_loose()
            self.emit({"type": "loose", "seat": seat, "tile": tile})
            self.last_loose = True
        else:
            return -1
        return tile

    def _replace_bonus(self, seat: int, tile: int) -> tuple[int, bool]:
        """Declare the bonus tile just drawn and replace it (again while the replacement is a
        bonus tile). Returns (the first non-bonus tile or -1, it was a loose tile)."""
        while tile >= BONUS_BASE:
            tile = self._declare_bonus(seat, tile)
        return tile, self.last_loose

    def _draw_loose(self, seat: int) -> tuple[int, bool]:
        tile = self.wall.draw_loose()
        self.emit({"type": "loose", "seat": seat, "tile": tile})
        if tile >= BONUS_BASE:
            return self._replace_bonus(seat, tile)
        return tile, True

    # ---- the hand ---------------------------------------------------------------------

    def deal(self) -> None:
        """Deal the four hands (a ``deal`` event), then declare and replace each seat's bonus
        tiles, East first.
        """
        hands = self.wall.deal()
        self.emit({"type": "deal", "hands": [list(h) for h in hands]})
        for seat in range(4):
            c = self.counts[seat]
            for t in hands[seat]:
                if t < BONUS_BASE:
                    c[t] += 1
        self.east_last = [t for t in hands[0] if t < BONUS_BASE][-1]
        # bonus tiles exposed and replaced: East, South, West, North (§4.1), each seat's in
        # the order dealt, a bonus replacement after them
        for seat in range(4):
            queue = [t for t in hands[seat] if t >= BONUS_BASE]
            while queue:
                t = queue.pop(0)
                rep = self._declare_bonus(seat, t)
                if rep >= BONUS_BASE:
                    queue.append(rep)
                elif rep >= 0:
                    self.counts[seat][rep] += 1
                    if seat == 0:
                        self.east_last = rep
        for seat in range(1, 4):
            self._update_waits(seat)

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
            emit = self.emit          # (an instance attribute: LOAD_ATTR specializes on it)
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

    def _self_drawn(self, seat: int, drawn: int, claimed: bool) -> WinInfo:
        last_tile = not claimed and drawn >= 0 and self.wall.live_remaining == 0
        heaven = self.on_dealt_hand and seat == 0 and self.n_discards == 0 and self.kongs == 0
        return WinInfo(seat, self._winning_tile(drawn), -1, -1, self.loose,
                       self.kongs if self.loose else 0, last_tile, False, False, heaven, False,
                       self.called[seat])

    def _winning_tile(self, drawn: int) -> int:
        """The tile a self-drawn Mah-Jong names: the drawn tile, or on East's dealt hand
        (nothing drawn: Heaven's Blessing) the last tile dealt to him."""
        return drawn if drawn >= 0 else self.east_last

    def self_win(self, seat: int, choice: Action, drawn: int, start: int) -> HandResult:
        """Mah-Jong on one's own draw (or on the dealt hand)."""
        return self._finish((self._self_drawn(seat, drawn, start == _CALLED),))

    def kong(self, seat: int, choice: Action, drawn: int) -> HandResult | None:
        """A concealed kong or a tile added to a pung; the hand's result when it is robbed."""
        t = choice.type
        k = choice.tile
        c = self.counts[seat]
        if t == CONCEALED_KONG:
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
            self.public[k] -= 1 if t == ADD_KONG else 4
            self.melds[seat], back = _robbed(self.melds[seat], k)
            c[k] += back
            for s, use in robbers:       # the kong is undone, then the Mah-Jong
                self.counts[s][k] += 1
                self.emit({"type": "mahjong", "seat": s, "tile": k, "from": seat,
                           "use": USE_NAMES[use], "robbed": True})
            return self._finish(tuple(
                WinInfo(s, k, seat, use, False, 0, False, False, True, False, False,
                        self.called[s]) for s, use in robbers))
        self.kongs += 1
        return None

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
        emit = self.emit              # (see draw)
        emit(event)
        self.waits[seat] = waits_mask(bytes(self.counts[seat]), len(self.melds[seat]),
                                      self.forms)     # (_update_waits, a call less a turn)
        last = self.wall.live_remaining == 0
        outcome = self._claims(seat, k, last, event)
        if outcome is None:
            return None
        self.on_dealt_hand = False
        self.fresh = False
        if isinstance(outcome, list):        # Mah-Jong claims
            earth = self.n_discards == 1 and seat == 0 and self.n_claims == 0
            return self._finish(tuple(
                WinInfo(s, k, seat, use, False, 0, False, last, False, False, earth,
                        self.called[s]) for s, use in outcome))
        claimer, call = outcome
        self.n_claims += 1
        self.kongs = 0
        self.just_pung = -1
        self.loose = False
        if call.type == KONG:
            self.kongs = 1
            return _AFTER_KONG[claimer]
        if call.type == PUNG:
            self.just_pung = k
        return _AFTER_CALL[claimer]

    # ---- choices ----------------------------------------------------------------------

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
                for k in range(34):
                    if c[k]:
                        c[k] -= 1
                        if shanten(bytes(c), 0, self.forms) == 0:
                            actions.append(_CALLS[k])
                        c[k] += 1
        # (fresh: ``drawn`` was added to the hand whose waits are known)
        if not claimed and (self.fishing[seat] or drawn < 0) and (
                self.waits[seat] >> drawn & 1 if self.fresh else
                complete(bytes(c), len(ms), self.forms)) and (
                not self.rules.minimum_doubles
                or self._qualifies(self._self_drawn(seat, drawn, claimed))):
            actions.append(Action(MAHJONG, self._winning_tile(drawn)))
        if not locked and self.wall.loose_remaining > 0:
            if not claimed and 4 in c:
                actions.extend(Action(CONCEALED_KONG, k) for k in range(34) if c[k] == 4)
            if ms:
                adds = sorted(m.tile for m in ms if m.kind == _PON and c[m.tile] and (
                    not claimed or (self.rules.add_to_claimed_pung and m.tile == self.just_pung)))
                actions.extend(Action(ADD_KONG, k) for k in adds)
        if not self.fishing[seat] and not (locked and drawn >= 0):
            for k in range(34):                  # announcing "fishing" with a discard
                if c[k]:
                    c[k] -= 1
                    if shanten(bytes(c), len(ms), self.forms) == 0:
                        actions.append(_FISHING[k])
                    c[k] += 1
        return actions

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

    def _claims(self, discarder: int, k: int, last: bool, about: Event,
                ) -> list[tuple[int, int]] | tuple[int, Action] | None:
        """Ask the other seats; apply the winning claim. Returns the winning Mah-Jong claims
        as a list of (seat, use), (claimer, action) for a set claim, or None."""
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
            self.discards[discarder].pop()       # the claimed tile leaves the river
            self.public[k] -= 1
            for s, a in wins:
                self.counts[s][k] += 1
                self.emit({"type": "mahjong", "seat": s, "tile": k, "from": discarder,
                           "use": USE_NAMES[a.form]})
            return [(s, a.form) for s, a in wins]
        if best is None:
            return None
        self.discards[discarder].pop()
        self._apply_call(best[0], discarder, best[1])
        return best

    def answered(self, seat: int, choice: Action) -> None:
        """A claim is announced as it is made."""
        if choice.type != ActionType.PASS:
            emit = self.emit          # (see draw)
            emit({"type": "claim", "seat": seat, "tile": self.claim_tile,
                       "call": choice.type.name.lower(), **_form_field(choice)})

    def _apply_call(self, seat: int, discarder: int, a: Action) -> None:
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
        emit = self.emit              # (see draw)
        emit(event)

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

    def _qualifies(self, win: WinInfo) -> bool:
        """``minimum_doubles``: does this Mah-Jong score enough doubles (a limit hand does)?"""
        from ..scoring import score_deal
        from .game import deal_of

        counts = [bytearray(c) for c in self.counts]
        melds = list(self.melds)
        if win.discarder >= 0:
            counts[win.seat][win.tile] += 1
        if win.robbed_kong:                 # as the hand will be: the kong undone
            melds[win.discarder], back = _robbed(melds[win.discarder], win.tile)
            counts[win.discarder][win.tile] += back
        result = HandResult((win,), tuple(tuple(c) for c in counts),
                            tuple(tuple(m) for m in melds),
                            tuple(tuple(b) for b in self.bonus),
                            tuple(tuple(d) for d in self.discards))
        p = score_deal(deal_of(result, win, self.prevailing), self.rules).players[win.seat]
        return p.limit_hand or p.doubles >= self.rules.minimum_doubles

    def _finish(self, wins: tuple[WinInfo, ...]) -> HandResult:
        for w in wins:
            if w.discarder < 0:
                self.emit({"type": "mahjong", "seat": w.seat, "tile": w.tile, "from": w.seat})
        return HandResult(
            wins,
            tuple(tuple(c) for c in self.counts),
            tuple(tuple(m) for m in self.melds),
            tuple(tuple(b) for b in self.bonus),
            tuple(tuple(d) for d in self.discards))


def _robbed(sets: list[CalledSet], k: int) -> tuple[list[CalledSet], int]:
    """A seat's sets once its kong of ``k`` is robbed (an added kong is a pung again, a
    concealed kong is gone) and the tiles that go back to its hand (3 of a concealed kong)."""
    out = []
    back = 0
    for m in sets:
        if m.tile == k and m.kind == _KAN_ADDED:
            m = CalledSet(_PON, k, m.claimed_from)
        elif m.tile == k and m.kind == _KAN_CLOSED:
            back = 3
            continue
        out.append(m)
    return out, back


def _form_field(a: Action) -> dict[str, Any]:
    if a.form < 0:
        return {}
    if a.type == MAHJONG_CLAIM:
        return {"use": USE_NAMES[a.form]}
    return {"form": a.form}


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
