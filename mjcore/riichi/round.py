"""The riichi referee of one hand: turn machinery, legal actions, claims and settlement.

:class:`RiichiRound` holds the wall and every hidden tile. It asks a *decider* for each choice
(``decide(seat, actions) -> Action``, with ``actions`` sorted and never empty; a decider may
also carry ``choosers``, one ``actions -> Action`` per seat doing the same, which the turn loop
calls directly), emits events (see :mod:`.events`) to ``events`` and returns a
:class:`RoundResult`. The rule options come from a :class:`mjcore.rules.RuleSet`; wins are
scored by :func:`mjcore.scoring.score_counts`. The per-turn loops (discard choices, the
bookkeeping of a discard, who may claim it) run in :mod:`mjcore._core.engine_turn`.
"""
from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Callable
from functools import partial
from operator import itemgetter
from typing import NamedTuple

from .._core.engine_turn import (
    discard_choices,
    kind_counts,
    may_claim,
    offered,
    take_discard,
    take_draw,
)
from .._core.shanten import advance as _advance
from .._core.shanten import ukeire as _ukeire
from ..errors import MjcoreError
from .rules import RuleSet
from .scoring import (
    F_CHANKAN,
    F_CHIIHOU,
    F_DOUBLE_RIICHI,
    F_HAITEI,
    F_HOUTEI,
    F_IPPATSU,
    F_RENHOU,
    F_RIICHI,
    F_RINSHAN,
    F_TENHOU,
    F_TSUMO,
    score_counts,
)
from ..engine.actions import (
    ANKAN,
    CHI,
    DAIMINKAN,
    DISCARD_ACTIONS,
    KAKAN,
    KYUUSHU,
    PASS,
    PON,
    RIICHI,
    RIICHI_ACTIONS,
    RON,
    TENPAI,
    TSUMO,
    Action,
)
from ..engine.events import RED_IDS, WIND_NAMES, Event
from ..engine.handcalc import YAOCHUU_KINDS, advance, decompositions, ukeire
from ..engine.wall import Wall

Decider = Callable[[int, list[Action]], Action]

_MELD_CODE = {"chi": 0, "pon": 1, "daiminkan": 2, "ankan": 3, "kakan": 4}
_CALL_NAMES = {PON: "pon", CHI: "chi", DAIMINKAN: "daiminkan"}
_PLAIN_DISCARDS, _TSUMOGIRI_DISCARDS = DISCARD_ACTIONS
_YAOCHUU_COUNTS = itemgetter(*YAOCHUU_KINDS)      # counts -> the 13 terminal/honor counts
_IS_YAOCHUU = [k in YAOCHUU_KINDS for k in range(34)]


class EngineError(MjcoreError):
    """A decider returned an action that was not offered, or the referee reached a bad state."""


class Meld(NamedTuple):
    """A called set of the referee: ``type`` (chi, pon, daiminkan, ankan or kakan), all its
    ``tiles`` (136-ids), the ``called`` tile, the ``target`` seat called from and, for a
    kakan, the ``added`` tile."""
    type: str                 # chi, pon, daiminkan, ankan, kakan
    tiles: tuple[int, ...]    # every tile of the meld (136-ids), called/added ones included
    called: int               # the called tile (-1 for ankan); for kakan the pon's called tile
    target: int               # seat called from (own seat for ankan)
    added: int = -1           # kakan: the added tile


class RoundResult(NamedTuple):
    """How a hand (kyoku) ended: ``kind`` ("hora", "exhaustive" or an abortive-draw reason),
    ``deltas`` per seat (riichi deposits not included), whether the dealer keeps the deal
    (``renchan``), the next honba, the riichi sticks left and the ``winners``."""
    kind: str                 # "hora", "exhaustive" or an abortive-draw reason
    deltas: list[int]         # score change per seat (riichi deposits not included)
    renchan: bool             # the dealer keeps the deal
    honba_next: int
    sticks_left: int          # riichi sticks left on the table
    winners: tuple[int, ...] = ()


class RiichiRound:
    """One hand of riichi. Build it, then call :meth:`play` once."""

    def __init__(self, rules: RuleSet, wall: Wall, *, round_wind: int, kyoku: int, dealer: int,
                 honba: int, sticks: int, scores: list[int], events: list[Event],
                 on_event: Callable[[Event], None] | None = None) -> None:
        self.rules = rules
        self.wall = wall
        self.round_wind = round_wind
        self.kyoku = kyoku
        self.dealer = dealer
        self.honba = honba
        self.sticks = sticks
        self.scores = scores
        self.events = events
        self.on_event = on_event
        if on_event is None:
            self.emit = events.append     # type: ignore[method-assign,assignment]
        else:
            append = events.append

            def emit(ev: Event) -> None:
                append(ev)
                on_event(ev)

            self.emit = emit              # type: ignore[method-assign]
        self.hands: list[list[int]] = [sorted(h) for h in wall.deal(dealer)]
        # bytearrays: bytes(counts) for the kernels is a copy, not a conversion
        self.counts = [kind_counts(h) for h in self.hands]
        self.melds: list[list[Meld]] = [[], [], [], []]
        self.n_open = [0, 0, 0, 0]
        self.pon_kinds = [0, 0, 0, 0]          # bitmask of the kinds of the seat's pons
        self.rivers: list[list[int]] = [[], [], [], []]
        self.river_called = [False] * 4        # one of the seat's discards was called
        self.disc_kinds = [0, 0, 0, 0]         # bitmask of kinds discarded (furiten)
        self.waits = [0, 0, 0, 0]              # winning kinds of the 13-3k hand (bitmask)
        self.shanten13 = [8, 8, 8, 8]             # exact when <= 1, else a lower bound
        self.riichi = [False] * 4
        self.double_riichi = [False] * 4
        self.ippatsu = [False] * 4
        self.furiten_temp = [False] * 4
        self.furiten_riichi = [False] * 4
        self.has_discarded = [False] * 4
        self.has_drawn = [False] * 4
        self.uninterrupted = True
        self.kan_owners: list[int] = []
        self.pending_dora = 0
        self.pao = [-1, -1, -1, -1]
        self.riichi_count = 0
        self._ukeire_cache: tuple[int, bytes, tuple[int, list[int], list[int]]] | None = None
        for s in range(4):
            self._update_waits(s)

    # ---- events -----------------------------------------------------------------------

    def emit(self, ev: Event) -> None:
        """Record an event and pass it to ``on_event`` when one was given."""
        self.events.append(ev)
        if self.on_event is not None:
            self.on_event(ev)

    # ---- hand helpers -----------------------------------------------------------------

    def n_melds(self, seat: int) -> int:
        """Number of called sets (kans included) of ``seat``."""
        return len(self.melds[seat])

    def _update_waits(self, seat: int) -> None:
        st, sh, mask = _advance(bytes(self.counts[seat]), len(self.melds[seat]))
        if st:
            advance(self.counts[seat], len(self.melds[seat]))   # raises with the details
        self.shanten13[seat] = sh
        self.waits[seat] = mask if sh == 0 else 0

    def tenpai_mask(self, seat: int) -> int:
        """Winning kinds of a 13-3k hand, without kinds of which the seat holds all four."""
        mask = self.waits[seat]
        if not mask:
            return 0
        held = self._held_counts(seat)
        for k in range(34):
            if (mask >> k) & 1 and held[k] >= 4:
                mask &= ~(1 << k)
        return mask

    def _held_counts(self, seat: int) -> list[int]:
        held = list(self.counts[seat])
        for m in self.melds[seat]:
            for t in m.tiles:
                held[t >> 2] += 1
        return held

    def _remove(self, seat: int, tile: int) -> None:
        self.hands[seat].remove(tile)
        self.counts[seat][tile >> 2] -= 1

    def _add(self, seat: int, tile: int) -> None:
        insort(self.hands[seat], tile)
        self.counts[seat][tile >> 2] += 1

    def furiten(self, seat: int) -> bool:
        """True when ``seat`` may not win by ron: temporary or riichi furiten, or one of its
        waits is among its own discards.
        """
        return (self.furiten_temp[seat] or self.furiten_riichi[seat]
                or bool(self.waits[seat] & self.disc_kinds[seat]))

    # ---- scoring ----------------------------------------------------------------------

    def score(self, seat: int, tile: int, target: int, *, rinshan: bool = False,
              chankan: bool = False, first_winner: bool = True, honba_anyway: bool = False):
        """Score seat's win on ``tile`` (already in hand for tsumo, not for ron)."""
        tsumo = target == seat
        counts = bytearray(self.counts[seat])
        if not tsumo:
            counts[tile >> 2] += 1
        red = sum(1 for t in self.hands[seat] if t in RED_IDS) + (
            0 if tsumo else tile in RED_IDS)
        melds = []
        for m in self.melds[seat]:
            melds.append((_MELD_CODE[m.type], min(m.tiles) >> 2,
                          sum(1 for t in m.tiles if t in RED_IDS),
                          (m.target - seat) % 4))
        remaining = self.wall.left
        flags = 0
        if tsumo:
            flags |= F_TSUMO
            if rinshan:
                flags |= F_RINSHAN
            elif remaining == 0:
                flags |= F_HAITEI
            if self.uninterrupted and not self.has_discarded[seat]:
                flags |= F_TENHOU if seat == self.dealer else F_CHIIHOU
        else:
            if chankan:
                flags |= F_CHANKAN
            elif remaining == 0:
                flags |= F_HOUTEI
            if (self.uninterrupted and not self.has_drawn[seat] and seat != self.dealer
                    and self.rules.renhou != "off"):
                flags |= F_RENHOU
        if self.riichi[seat]:
            flags |= F_DOUBLE_RIICHI if self.double_riichi[seat] else F_RIICHI
            if self.ippatsu[seat]:
                flags |= F_IPPATSU
        n_dora = self.wall.n_dora
        dora = [t >> 2 for t in self.wall.dora[:n_dora]]
        ura = [t >> 2 for t in self.wall.ura[:n_dora]] if self.riichi[seat] else []
        pao = self.pao[seat]
        return score_counts(
            bytes(counts), tile >> 2, melds=melds, red=red, flags=flags,
            seat_wind=(seat - self.dealer) % 4, round_wind=self.round_wind,
            from_rel=(target - seat) % 4, pao_rel=-1 if pao < 0 else (pao - seat) % 4,
            dora=dora, ura=ura, honba=self.honba if (first_winner or honba_anyway) else 0,
            riichi_sticks=self.sticks if first_winner else 0, rules=self.rules, winner=seat)

    def _can_win(self, seat: int, tile: int, target: int, **kw: bool) -> bool:
        if self.rules.ryanhan_shibari and self.honba >= 5:
            # at 5 honba or more a win needs 2 han of yaku (dora not counted) or a yakuman
            res = self.score(seat, tile, target, **kw)
            return bool(res.is_win) and (
                (res.yakuman > 0 and not res.is_kazoe)
                or res.han - res.dora - res.ura - res.aka >= 2)
        # A closed tsumo always has menzen tsumo and riichi is a yaku: skip the scorer then.
        if self.riichi[seat] or (target == seat and self.n_open[seat] == 0):
            return True
        return bool(self.score(seat, tile, target, **kw).is_win)

    # ---- legal actions ----------------------------------------------------------------

    def _discard_actions(self, seat: int, drawn: int, forbidden: int = 0,
                         riichi: bool = False) -> list[Action]:
        """One discard per tile class, the drawn tile as a separate tsumogiri action; in the
        sort order of actions (the hand is kept sorted, so equal classes are adjacent)."""
        table = RIICHI_ACTIONS if riichi else DISCARD_ACTIONS
        return discard_choices(self.hands[seat], drawn, table[0], table[1], forbidden)

    def turn_actions(self, seat: int, drawn: int, rinshan: bool = False) -> list[Action]:
        """Choices after a draw (``drawn`` >= 0), in sorted order."""
        counts = self.counts[seat]
        kind = drawn >> 2
        if self.riichi[seat]:
            acts = [DISCARD_ACTIONS[1][drawn]]
            if (self.waits[seat] >> kind) & 1 and self._can_win(seat, drawn, seat,
                                                               rinshan=rinshan):
                acts.append(Action(TSUMO, drawn))
            if (counts[kind] == 4 and len(self.kan_owners) < 4 and self.wall.left > 0
                    and self.rules.riichi_ankan != "never" and self._riichi_ankan_ok(seat, kind)):
                acts.append(Action(ANKAN, -1, tuple(t for t in self.hands[seat]
                                                    if t >> 2 == kind)))
            return acts
        # the discards: one per tile class, the drawn tile as its own (tsumogiri) action
        acts = discard_choices(self.hands[seat], drawn, _PLAIN_DISCARDS, _TSUMOGIRI_DISCARDS)
        if (self.shanten13[seat] <= 1 and self.n_open[seat] == 0 and self.wall.left >= 4
                and (self.scores[seat] >= 1000 or not self.rules.riichi_requires_1000)):
            acts.extend(self._riichi_actions(seat, drawn))
        if (self.waits[seat] >> kind) & 1 and self._can_win(seat, drawn, seat, rinshan=rinshan):
            acts.append(Action(TSUMO, drawn))
        if 4 in counts and len(self.kan_owners) < 4 and self.wall.left > 0:
            for k in range(34):
                if counts[k] == 4:
                    acts.append(Action(ANKAN, -1, tuple(
                        t for t in self.hands[seat] if t >> 2 == k)))
        if self.pon_kinds[seat] and len(self.kan_owners) < 4 and self.wall.left > 0:
            kakans = []
            for m in self.melds[seat]:
                if m.type == "pon" and counts[m.tiles[0] >> 2]:
                    added = next(t for t in self.hands[seat] if t >> 2 == m.tiles[0] >> 2)
                    kakans.append(Action(KAKAN, added, m.tiles))
            if kakans:
                kakans.sort()
                acts.extend(kakans)
        if (self.uninterrupted and not self.has_discarded[seat] and self.rules.kyuushu_kyuuhai
                and _YAOCHUU_COUNTS(counts).count(0) <= 4):     # nine kinds or more
            acts.append(Action(KYUUSHU))
        return acts

    def ukeire(self, seat: int) -> tuple[int, list[int], list[int]]:
        """Ukeire of seat's 14-3k hand (cached: riichi checks and agents share it)."""
        key = bytes(self.counts[seat])
        cached = self._ukeire_cache
        if cached is not None and cached[0] == seat and cached[1] == key:
            return cached[2]  # type: ignore[no-any-return]
        st, best, after, masks = _ukeire(key, len(self.melds[seat]))
        if st or after is None or masks is None:
            return ukeire(self.counts[seat], len(self.melds[seat]))   # raises with the details
        res = (best, after, masks)
        self._ukeire_cache = (seat, key, res)
        return res

    def _riichi_actions(self, seat: int, drawn: int) -> list[Action]:
        best, after, masks = self.ukeire(seat)
        if best > 0:
            return []
        held = self._held_counts(seat)
        ok = 0
        for k in range(34):
            if after[k] == 0:
                mask = masks[k]
                good = False
                for w in range(34):
                    if (mask >> w) & 1 and held[w] - (w == k) < 4:
                        good = True
                        break
                if good:
                    ok |= 1 << k
        if not ok:
            return []
        return self._discard_actions(seat, drawn, forbidden=~ok & ((1 << 34) - 1), riichi=True)

    def _riichi_ankan_ok(self, seat: int, kind: int) -> bool:
        """Closed kan in riichi: only with the drawn tile, waits unchanged, and (strict) the
        three held tiles a triplet in every reading of the hand."""
        counts = list(self.counts[seat])
        before = list(counts)
        before[kind] -= 1
        sh_b, waits_before = advance(before, len(self.melds[seat]))
        counts[kind] -= 4
        sh_a, waits_after = advance(counts, len(self.melds[seat]) + 1)
        if sh_b != 0 or sh_a != 0 or waits_before != waits_after:
            return False
        if self.rules.riichi_ankan == "strict":
            for w in range(34):
                if (waits_before >> w) & 1:
                    full = list(before)
                    full[w] += 1
                    for dec in decompositions(full):
                        if ("pon", kind) not in dec:
                            return False
        return True

    def claim_actions(self, seat: int, discarder: int, tile: int) -> list[Action]:
        """Choices of ``seat`` on the discard ``tile`` (PASS always included)."""
        kind = tile >> 2
        acts = []
        if ((self.waits[seat] >> kind) & 1 and not self.furiten(seat)
                and self._can_win(seat, tile, discarder)):
            acts.append(Action(RON, tile))
        if self.riichi[seat] or self.wall.left == 0:
            acts.append(PASS)
            return acts
        counts = self.counts[seat]
        c = counts[kind]
        hand = self.hands[seat]
        if c >= 2:
            # the hand is sorted: the copies of a kind are adjacent, lowest (red) first
            i = bisect_left(hand, kind << 2)
            same = hand[i:i + c]
            if self._kuikae_ok(seat, (kind,), (kind, kind)):
                for pair in _distinct_pairs(same):
                    acts.append(Action(PON, tile, pair))
            if c == 3 and len(self.kan_owners) < 4:
                acts.append(Action(DAIMINKAN, tile, tuple(same)))
        if seat == (discarder + 1) % 4 and kind < 27:
            for x, y, forbidden in _CHI_OPTIONS[kind]:
                if not (counts[x] and counts[y]):
                    continue
                if not self._kuikae_ok(seat, forbidden, (x, y)):
                    continue
                for a in _distinct_tiles(hand, x, counts[x]):
                    for b in _distinct_tiles(hand, y, counts[y]):
                        acts.append(Action(CHI, tile, (a, b)))
        acts.sort()
        acts.append(PASS)     # PASS sorts last
        return acts

    def _kuikae_ok(self, seat: int, forbidden: tuple[int, ...],
                   consumed: tuple[int, ...] | list[int]) -> bool:
        """After calling with the ``consumed`` kinds, is some discard left that kuikae allows
        (``forbidden``: the kinds it forbids)?"""
        counts = self.counts[seat]
        left = len(self.hands[seat]) - len(consumed)
        if self.rules.kuikae != "forbidden":
            return left > 0
        for k in forbidden:
            left -= counts[k] - consumed.count(k)
        return left > 0

    # ---- play -------------------------------------------------------------------------

    def play(self, decide: Decider) -> RoundResult:
        """Play the hand to its end and return its RoundResult. ``decide(seat, actions)`` chooses
        one of the legal actions for each decision; the events go to ``events`` and ``on_event``.
        """
        self.decide = decide
        self.emit({"type": "start_kyoku", "bakaze": WIND_NAMES[self.round_wind],
                   "kyoku": self.kyoku, "honba": self.honba, "kyotaku": self.sticks,
                   "oya": self.dealer, "scores": list(self.scores),
                   "dora_marker": self.wall.dora[0],
                   "tehais": [list(h) for h in self.hands]})
        # one chooser per seat: an AgentDecider has them (a call less per decision)
        choosers = getattr(decide, "choosers", None) or [partial(decide, s) for s in range(4)]
        seat = self.dealer
        rinshan = False
        forbidden = -1        # after chi/pon: the kinds kuikae forbids (a mask >= 0)
        wall = self.wall
        live = wall.live
        hands = self.hands
        counts = self.counts
        has_drawn = self.has_drawn
        emit = self.emit
        turn_actions = self.turn_actions
        discard = self._discard
        while True:
            if forbidden < 0:
                if rinshan:
                    tile = wall.draw_rinshan()
                    self._add(seat, tile)
                    emit({"type": "tsumo", "actor": seat, "pai": tile, "rinshan": True})
                else:
                    left = wall.left
                    if left <= 0:
                        return self._exhaustive()
                    pos = wall.pos
                    tile = live[pos]
                    wall.pos = pos + 1
                    wall.left = left - 1
                    take_draw(hands[seat], counts[seat], tile)
                    emit({"type": "tsumo", "actor": seat, "pai": tile})
                has_drawn[seat] = True
                acts = turn_actions(seat, tile, rinshan)
            else:
                tile = -1
                acts = self._discard_actions(seat, -1, forbidden=forbidden)
            act = choosers[seat](acts)
            if not offered(act, acts):
                act = self._check_choice(seat, act, acts)
            at = act.type
            if at > RIICHI:
                if at == TSUMO:
                    return self._settle_wins([seat], seat, tile, rinshan=rinshan)
                if at == KYUUSHU:
                    return self._abort("kyushukyuhai", reveal=[seat])
                # ANKAN or KAKAN
                res = self._kan(seat, act)
                if res is not None:
                    return res
                rinshan = True
                forbidden = -1
                continue
            # a discard (plain or with riichi)
            res = discard(seat, act, tile)
            if res is None:
                seat = (seat + 1) & 3
                rinshan = False
                forbidden = -1
                continue
            if isinstance(res, RoundResult):
                return res
            seat, call = res
            if call.type == DAIMINKAN:
                rinshan = True
                forbidden = -1
            else:
                rinshan = False
                forbidden = call.forbidden   # type: ignore[attr-defined]

    def _ask(self, seat: int, acts: list[Action]) -> Action:
        act = self.decide(seat, acts)
        if not offered(act, acts):
            act = self._check_choice(seat, act, acts)
        return act

    def _check_choice(self, seat: int, act: Action, acts: list[Action]) -> Action:
        """An agent may name another copy of an offered tile (the offered one is used); anything
        else is an error."""
        key = act.key() if isinstance(act, Action) else None
        for a in acts:
            if a.key() == key:
                return a
        raise EngineError(f"seat {seat} chose {act}, which is not among the legal actions "
                          f"{[str(a) for a in acts]}")

    def _reveal_dora(self) -> None:
        tile = self.wall.reveal_dora()
        self.emit({"type": "dora", "dora_marker": tile})

    def _kan(self, seat: int, act: Action) -> RoundResult | None:
        """Closed or added kan; returns a result if the kan is robbed."""
        immediate = self.rules.kan_dora_timing == "immediate"
        if act.type == ANKAN:
            for t in act.consumed:
                self._remove(seat, t)
            self.melds[seat].append(Meld("ankan", tuple(act.consumed), -1, seat))
            self.emit({"type": "ankan", "actor": seat, "consumed": list(act.consumed)})
            if self.pending_dora:         # the previous open kan's indicator comes first
                self.pending_dora = 0
                self._reveal_dora()
            if self.rules.kokushi_chankan_ankan:
                res = self._chankan(seat, act.consumed[0], kokushi_only=True)
                if res is not None:
                    return res
            self._reveal_dora()
        else:
            tile = act.tile
            idx = next(i for i, m in enumerate(self.melds[seat])
                       if m.type == "pon" and m.tiles[0] >> 2 == tile >> 2)
            pon = self.melds[seat][idx]
            self.emit({"type": "kakan", "actor": seat, "pai": tile,
                       "consumed": list(pon.tiles)})
            if self.pending_dora:
                self.pending_dora = 0
                self._reveal_dora()
            res = self._chankan(seat, tile)
            if res is not None:
                return res
            self._remove(seat, tile)
            self.melds[seat][idx] = Meld("kakan", pon.tiles + (tile,), pon.called, pon.target,
                                         tile)
            self.pon_kinds[seat] &= ~(1 << (tile >> 2))
            if immediate:
                self._reveal_dora()
            else:
                self.pending_dora = 1
        self.kan_owners.append(seat)
        self._interrupt()
        self._update_waits(seat)
        return None

    def _chankan(self, seat: int, tile: int, kokushi_only: bool = False) -> RoundResult | None:
        kind = tile >> 2
        rons = []
        for d in (1, 2, 3):
            s = (seat + d) % 4
            if not (self.waits[s] >> kind) & 1:
                continue
            if kokushi_only and not self._is_kokushi_wait(s):
                continue
            acts = [PASS]
            if not self.furiten(s) and self._can_win(s, tile, seat, chankan=True):
                acts.insert(0, Action(RON, tile))
            if len(acts) > 1 and self._ask(s, acts).type == RON:
                rons.append(s)
                continue
            self.furiten_temp[s] = True
            if self.riichi[s]:
                self.furiten_riichi[s] = True
        if rons:
            return self._resolve_rons(rons, seat, tile, chankan=True)
        return None

    def _claims(self, seat: int, tile: int,
                candidates: int) -> tuple[list[int], Action | None, int]:
        """Ask the ``candidates`` (a bitmask of seats, see :func:`may_claim`) about ``seat``'s
        discard ``tile`` in turn order: (seats that ron, the best call, its caller). A seat
        that passes a winning tile becomes furiten."""
        kind = tile >> 2
        waits = self.waits
        rons: list[int] = []
        best_call: Action | None = None
        caller = -1
        for s in _OTHER_SEATS[seat]:
            if not (candidates >> s) & 1:
                continue
            in_waits = (waits[s] >> kind) & 1
            acts = self.claim_actions(s, seat, tile)
            if len(acts) == 1:
                if in_waits:
                    self.furiten_temp[s] = True
                    if self.riichi[s]:
                        self.furiten_riichi[s] = True
                continue
            choice = self._ask(s, acts)
            if choice.type == RON:
                rons.append(s)
                continue
            if in_waits:
                self.furiten_temp[s] = True
                if self.riichi[s]:
                    self.furiten_riichi[s] = True
            if choice.type != PASS.type and (
                    best_call is None or (choice.type in (PON, DAIMINKAN)
                                          and best_call.type == CHI)):
                best_call, caller = choice, s
        return rons, best_call, caller

    def _is_kokushi_wait(self, seat: int) -> bool:
        """A closed 13-tile hand of terminals and honors only, 12 or 13 kinds: kokushi tenpai."""
        c = self.counts[seat]
        return (self.n_melds(seat) == 0 and sum(c[k] for k in YAOCHUU_KINDS) == 13
                and sum(1 for k in YAOCHUU_KINDS if c[k]) >= 12)

    def _interrupt(self) -> None:
        self.uninterrupted = False
        self.ippatsu = [False] * 4

    def _discard(self, seat: int, act: Action, drawn: int):
        """Discard, claims, riichi acceptance, abortive checks. Returns a RoundResult, None
        (no call) or (caller, call action)."""
        tile = act.tile
        riichi = self.riichi
        emit = self.emit
        declaring = act.type == RIICHI
        if declaring:
            emit({"type": "reach", "actor": seat})
            if self.uninterrupted and not self.has_discarded[seat]:
                self.double_riichi[seat] = True
        elif riichi[seat]:
            self.ippatsu[seat] = False
        kind = tile >> 2
        all_counts = self.counts
        waits = self.waits
        first_round = self.uninterrupted and not self.has_discarded[seat]
        # the tile to the river; the shanten and waits of the hand left (see take_discard)
        if take_discard(self.hands[seat], all_counts[seat], self.rivers[seat], tile, drawn,
                        len(self.melds[seat]), seat, self.shanten13, waits, self.disc_kinds,
                        self.furiten_temp, self.has_discarded):
            advance(all_counts[seat], len(self.melds[seat]))      # raises with the details
        emit({"type": "dahai", "actor": seat, "pai": tile, "tsumogiri": act.tsumogiri})
        if self.pending_dora:
            self.pending_dora = 0
            self._reveal_dora()
        # claims, asked of the seats that wait on the tile or could call it
        candidates = may_claim(all_counts, waits, riichi, seat, kind, self.wall.left > 0)
        if candidates:
            rons, best_call, caller = self._claims(seat, tile, candidates)
            if rons:
                return self._resolve_rons(rons, seat, tile)
        elif not declaring and not first_round and len(self.kan_owners) < 4:
            return None         # (no call, and none of the checks below can apply)
        else:
            best_call, caller = None, -1
        if declaring:
            riichi[seat] = True
            self.ippatsu[seat] = True
            self.scores[seat] -= 1000
            self.sticks += 1
            self.riichi_count += 1
            self.emit({"type": "reach_accepted", "actor": seat,
                       "scores": list(self.scores)})
        # abortive draws after the discard
        if first_round and seat == (self.dealer + 3) % 4 and self.rules.suufon_renda \
                and self.uninterrupted and best_call is None:
            firsts = [self.rivers[s][0] >> 2 for s in range(4) if self.rivers[s]]
            if len(firsts) == 4 and firsts[0] in (27, 28, 29, 30) and len(set(firsts)) == 1:
                return self._abort("suufonrenda")
        if declaring and self.riichi_count == 4 and self.rules.suucha_riichi:
            return self._abort("suuchariichi")
        if (len(self.kan_owners) == 4 and self.rules.suukaikan
                and len(set(self.kan_owners)) > 1):
            return self._abort("suukaikan")
        if best_call is None:
            return None
        return caller, self._apply_call(caller, seat, best_call)

    def _apply_call(self, caller: int, target: int, call: Action) -> _Call:
        tile = call.tile
        kind = tile >> 2
        self.rivers[target].pop()
        self.river_called[target] = True
        for t in call.consumed:
            self._remove(caller, t)
        tiles = tuple(sorted(call.consumed + (tile,)))
        typ = _CALL_NAMES[call.type]
        self.melds[caller].append(Meld(typ, tiles, tile, target))
        self.n_open[caller] += 1
        if call.type == PON:
            self.pon_kinds[caller] |= 1 << kind
        self.emit({"type": typ, "actor": caller, "target": target, "pai": tile,
                   "consumed": list(call.consumed)})
        self._interrupt()
        if call.type != CHI and kind >= 27 and self.pao[caller] < 0:
            self._check_pao(caller, target, kind)
        forbidden = 0
        if call.type == DAIMINKAN:
            self.kan_owners.append(caller)
            if self.rules.kan_dora_timing == "immediate":
                self._reveal_dora()
            else:
                self.pending_dora = 1
        else:
            forbidden = 1 << kind
            if self.rules.kuikae == "forbidden" and call.type == CHI:
                lo = min(tiles) >> 2
                n = kind % 9
                if lo == kind and n <= 5:
                    forbidden |= 1 << (kind + 3)
                elif lo == kind - 2 and n >= 3:
                    forbidden |= 1 << (kind - 3)
            elif self.rules.kuikae != "forbidden":
                forbidden = 0
        if call.type == DAIMINKAN:
            self._update_waits(caller)
        return _Call(call, forbidden)

    def _check_pao(self, caller: int, target: int, kind: int) -> None:
        sets = [m.tiles[0] >> 2 for m in self.melds[caller] if m.type != "chi"]
        dragons = sum(1 for k in sets if k >= 31)
        winds = sum(1 for k in sets if 27 <= k < 31)
        if (kind >= 31 and dragons == 3 and "daisangen" in self.rules.pao) or (
                27 <= kind < 31 and winds == 4 and "daisuushii" in self.rules.pao):
            self.pao[caller] = target

    # ---- endings ----------------------------------------------------------------------

    def _resolve_rons(self, rons: list[int], discarder: int, tile: int,
                      chankan: bool = False) -> RoundResult:
        rons.sort(key=lambda s: (s - discarder) % 4)
        mode = self.rules.multiple_ron
        if len(rons) == 3 and mode == "double" and self.rules.sanchahou:
            return self._abort("sanchaho", reveal=rons)
        if mode == "atamahane":
            rons = rons[:1]
        return self._settle_wins(rons, discarder, tile, chankan=chankan)

    def _settle_wins(self, winners: list[int], target: int, tile: int, *, rinshan: bool = False,
                     chankan: bool = False) -> RoundResult:
        # the winner nearest the discarder takes the sticks; honba too, or each winner gets
        # honba with multi_ron_sticks="each"
        honba_each = self.rules.multi_ron_sticks == "each"
        results = []
        for i, w in enumerate(winners):
            res = self.score(w, tile, target, rinshan=rinshan, chankan=chankan,
                             first_winner=i == 0, honba_anyway=honba_each)
            if not res.is_win:
                raise EngineError(f"seat {w} won without a valid hand ({res.status})")
            results.append(res)
        self.sticks = 0
        total = [0, 0, 0, 0]
        for w, res in zip(winners, results):
            deltas = list(res.deltas)
            for s in range(4):
                total[s] += deltas[s]
                self.scores[s] += deltas[s]
            ev: Event = {"type": "hora", "actor": w, "target": target, "pai": tile,
                         "deltas": deltas, "scores": list(self.scores), "fu": res.fu,
                         "fan": res.han, "hora_points": res.points,
                         "yakus": [[y[1], y[3]] for y in res.yaku]}
            if self.riichi[w]:
                ev["uradora_markers"] = list(self.wall.ura[:self.wall.n_dora])
            if self.pao[w] >= 0:
                ev["pao"] = self.pao[w]
            self.emit(ev)
        self.emit({"type": "end_kyoku"})
        renchan = self.dealer in winners
        return RoundResult("hora", total, renchan, self.honba + 1 if renchan else 0, 0,
                           tuple(winners))

    def _abort(self, reason: str, reveal: list[int] | None = None) -> RoundResult:
        tenpais = [False] * 4
        for s in reveal or ():
            tenpais[s] = True
        self.emit({"type": "ryukyoku", "reason": reason, "deltas": [0, 0, 0, 0],
                   "scores": list(self.scores), "tenpais": tenpais})
        self.emit({"type": "end_kyoku"})
        return RoundResult(reason, [0, 0, 0, 0], True, self.honba + 1, self.sticks)

    def _exhaustive(self) -> RoundResult:
        tenpai = [self.tenpai_mask(s) != 0 for s in range(4)]
        if self.rules.tenpai_declaration == "optional":
            # a tenpai hand not in riichi may be kept hidden (E, S, W, N from the dealer)
            for d in range(4):
                s = (self.dealer + d) % 4
                if tenpai[s] and not self.riichi[s]:
                    act = self._ask(s, [Action(TENPAI), PASS])
                    tenpai[s] = act.type == TENPAI
        deltas = [0, 0, 0, 0]
        nagashi = []
        if self.rules.nagashi_mangan != "off":
            for s in range(4):
                if self.rivers[s] and not self.river_called[s] and all(
                        _IS_YAOCHUU[t >> 2] for t in self.rivers[s]):
                    nagashi.append(s)
        reason = "exhaustive"
        if nagashi:
            reason = "nagashimangan"
            for s in nagashi:
                for p in range(4):
                    if p == s:
                        continue
                    pay = 4000 if (s == self.dealer or p == self.dealer) else 2000
                    if self.rules.nagashi_mangan == "mangan_tsumo":
                        pay += 100 * self.honba
                    deltas[p] -= pay
                    deltas[s] += pay
        else:
            n = sum(tenpai)
            if 0 < n < 4:
                for s in range(4):
                    deltas[s] = 3000 // n if tenpai[s] else -3000 // (4 - n)
        for s in range(4):
            self.scores[s] += deltas[s]
        self.emit({"type": "ryukyoku", "reason": reason, "deltas": deltas,
                   "scores": list(self.scores), "tenpais": tenpai})
        self.emit({"type": "end_kyoku"})
        renchan = tenpai[self.dealer] if self.rules.renchan == "tenpai" else False
        return RoundResult(reason, deltas, renchan, self.honba + 1, self.sticks)

    # ---- invariants -------------------------------------------------------------------

    def tile_census(self) -> list[int]:
        """Every one of the 136 tiles, wherever it is (hands, melds, rivers, wall)."""
        tiles: list[int] = []
        for s in range(4):
            tiles += self.hands[s]
            tiles += self.rivers[s]
            for m in self.melds[s]:
                tiles += m.tiles
        w = self.wall
        tiles += w.live[w.pos:]
        tiles += w.rinshan[w.n_rinshan:]
        tiles += w.dora + w.ura
        return tiles


# the other seats in turn order after a discarder
_OTHER_SEATS = tuple(tuple((seat + d) % 4 for d in (1, 2, 3)) for seat in range(4))


def _chi_options(kind: int) -> tuple[tuple[int, int, tuple[int, ...]], ...]:
    """Each chi of ``kind``: the two other kinds and the kinds kuikae then forbids."""
    if kind >= 27:
        return ()
    n = kind % 9
    out = []
    for lo in (kind - 2, kind - 1, kind):
        if lo < kind - n or lo + 2 > kind - n + 8:
            continue
        x, y = [k for k in (lo, lo + 1, lo + 2) if k != kind]
        forbidden: tuple[int, ...] = (kind,)
        if lo == kind and n <= 5:
            forbidden = (kind, kind + 3)
        elif lo == kind - 2 and n >= 3:
            forbidden = (kind, kind - 3)
        out.append((x, y, forbidden))
    return tuple(out)


_CHI_OPTIONS = tuple(_chi_options(k) for k in range(34))


class _Call(NamedTuple):
    action: Action
    forbidden: int

    @property
    def type(self):
        return self.action.type


def _distinct_tiles(hand: list[int], kind: int, n: int) -> list[int]:
    """The first copy of ``kind`` in the sorted hand (it holds ``n``), and the first plain copy
    after it when the first is red."""
    i = bisect_left(hand, kind << 2)
    first = hand[i]
    if n > 1 and first in RED_IDS:
        return [first, hand[i + 1]]
    return [first]


def _distinct_pairs(same: list[int]) -> list[tuple[int, int]]:
    reds = [t for t in same if t in RED_IDS]
    plain = [t for t in same if t not in RED_IDS]
    out = []
    if len(plain) >= 2:
        out.append((plain[0], plain[1]))
    if reds and plain:
        out.append((min(reds[0], plain[0]), max(reds[0], plain[0])))
    return out
