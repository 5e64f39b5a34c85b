"""The riichi referee of one hand: the turn loop's hooks and the updates of the state.

:class:`RiichiRound` holds the wall and every hidden tile. It asks a *decider* for each choice
(``decide(seat, actions) -> Action``, with ``actions`` sorted and never empty; a decider may
also carry ``choosers``, one ``actions -> Action`` per seat doing the same, which the turn loop
calls directly), emits events (see :mod:`mjcore.riichi.events`) to ``events`` and returns a
:class:`RoundResult`. The turn cycle, the claims and their priority, and robbing a kan are the
shared machinery of :mod:`mjcore.engine.turns`; riichi supplies its rooms: the state
(:mod:`.state`), the legal actions (:mod:`.legal`), scoring and the endings
(:mod:`.settlement`), and here the draws, discards, calls, kans, dora and furiten updates. The
per-turn kernels (discard choices, the bookkeeping of a discard, who may claim it) run in
:mod:`mjcore._core.engine_turn`.
"""
from __future__ import annotations

from .._core.engine_turn import may_claim, offered, take_discard, take_draw
from ..engine.handcalc import advance
from ..engine.turns import (
    Claimed,
    ClaimRanks,
    Decider,
    EngineError,
    Start,
    Step,
)
from ..melds import MeldKind
from .actions import (
    ANKAN,
    CHI,
    DAIMINKAN,
    KITA,
    KYUUSHU,
    PASS,
    PON,
    RIICHI,
    RON,
    Action,
    ActionType,
)
from .events import MJAI_NAMES, WIND_NAMES, Event
from .legal import LegalActions
from .state import CalledSet, RoundResult

_CALL_KINDS = {PON: MeldKind.PON, CHI: MeldKind.CHI, DAIMINKAN: MeldKind.KAN_OPEN}
_PON, _CHI = MeldKind.PON, MeldKind.CHI
_NO_SEAT_COUNTS = [bytearray(34)]
_DRAW, _REPLACEMENT, _CALLED = Start.DRAW, Start.REPLACEMENT, Start.CALLED
# the seats of a bitmask of seats (the claim candidates: every seat waiting on the discard
# is one)
_SEATS_IN = tuple(tuple(s for s in range(4) if m >> s & 1) for m in range(16))

# what each action type does on one's own turn (types never offered on a turn: END)
_TURN_STEPS = tuple(
    {ActionType.DISCARD: Step.DISCARD, ActionType.RIICHI: Step.DISCARD,
     ActionType.TSUMO: Step.WIN, ActionType.ANKAN: Step.KONG, ActionType.KAKAN: Step.KONG,
     ActionType.KITA: Step.KONG,        # like a kan: it may be robbed, then a replacement draw
     }.get(t, Step.END) for t in ActionType)
# ron over pon and daiminkan over chi; several rons stand, or (atamahane) the first
_CLAIM_RANKS = tuple(ClaimRanks.of(len(ActionType), {RON: 3, PON: 2, DAIMINKAN: 2, CHI: 1}.items(),
                                   3, several) for several in ("all", "first"))
# the caller's turn after a daiminkan (a rinshan draw) or a chi/pon (no draw), by seat
_AFTER_KAN = tuple(Claimed(s, _REPLACEMENT) for s in range(4))
_AFTER_CALL = tuple(Claimed(s, _CALLED) for s in range(4))


class RiichiRound(LegalActions):
    """One hand of riichi. Build it, then call :meth:`play` once."""

    turn_steps = _TURN_STEPS
    pass_type = ActionType.PASS
    is_offered = staticmethod(offered)   # type: ignore[assignment]

    @staticmethod
    def tile_name(tile: int) -> str:
        """The mjai name of a 136-id."""
        return MJAI_NAMES[tile]

    # ---- play -------------------------------------------------------------------------

    def play(self, decide: Decider[Action]) -> RoundResult:
        """Play the hand to its end and return its RoundResult. ``decide(seat, actions)`` chooses
        one of the legal actions for each decision; the events go to ``events`` and ``on_event``.
        """
        self.set_decider(decide)
        return self.play_turns()

    def set_decider(self, decide: Decider[Action]) -> None:
        """Route every choice to ``decide`` (see :meth:`TurnReferee.set_decider`); several rons
        stand by ``multiple_ron`` (atamahane: the first in turn order)."""
        self.claim_ranks = _CLAIM_RANKS[self.rules.multiple_ron == "atamahane"]
        super().set_decider(decide)

    def accept(self, seat: int, choice: object, actions: list[Action],
               about: object) -> Action:
        """An agent may name another copy of an offered tile (the offered one is used); anything
        else is an error."""
        key = choice.key() if isinstance(choice, Action) else None
        for a in actions:
            if a.key() == key:
                return a
        return super().accept(seat, choice, actions, about)

    def first_turn(self) -> tuple[int, int]:
        """The deal as a ``start_kyoku`` event; the dealer draws first."""
        self.emit({"type": "start_kyoku", "bakaze": WIND_NAMES[self.round_wind],
                   "kyoku": self.kyoku, "honba": self.honba, "kyotaku": self.sticks,
                   "oya": self.dealer, "scores": list(self.scores),
                   "dora_marker": self.wall.dora[0],
                   "tehais": [list(h) for h in self.hands]})
        return self.dealer, _DRAW

    def draw(self, seat: int, start: int) -> int:
        """A draw from the live wall (-1 when it is empty) or, after a kan, from the dead
        wall."""
        wall = self.wall
        if start == _REPLACEMENT:
            tile = wall.draw_rinshan()
            self._add(seat, tile)
            self.emit({"type": "tsumo", "actor": seat, "pai": tile, "rinshan": True})
        else:
            left = wall.left
            if left <= 0:
                return -1
            pos = wall.pos
            tile = wall.live[pos]
            wall.pos = pos + 1
            wall.left = left - 1
            take_draw(self.hands[seat], self.counts[seat], tile)
            emit = self.emit          # (an instance attribute: LOAD_ATTR specializes on it)
            emit({"type": "tsumo", "actor": seat, "pai": tile})
        return tile

    def exhausted(self, seat: int, start: int) -> RoundResult:
        """The exhaustive draw."""
        return self._exhaustive()

    def self_win(self, seat: int, choice: Action, drawn: int, start: int) -> RoundResult:
        """Tsumo."""
        return self._settle_wins([seat], seat, drawn, rinshan=start == _REPLACEMENT)

    def end_turn(self, seat: int, choice: Action) -> RoundResult:
        """Kyuushu kyuuhai, the only turn choice that ends the hand without a win."""
        if choice.type != KYUUSHU:
            return super().end_turn(seat, choice)
        return self._abort("kyushukyuhai", reveal=[seat])

    def _reveal_dora(self) -> None:
        tile = self.wall.reveal_dora()
        self.emit({"type": "dora", "dora_marker": tile})

    # ---- kans -------------------------------------------------------------------------

    def kong(self, seat: int, choice: Action, drawn: int = -1) -> RoundResult | None:
        """Closed or added kan, or a north set aside; returns a result if it is robbed."""
        act = choice
        if act.type == KITA:
            return self._kita(seat, act.tile)
        immediate = self.rules.kan_dora_timing == "immediate"
        if act.type == ANKAN:
            for t in act.consumed:
                self._remove(seat, t)
            ankan = CalledSet(MeldKind.KAN_CLOSED, tuple(act.consumed), -1, seat)
            self.melds[seat].append(ankan)
            self.emit({"type": ankan.kind.record, "actor": seat, "consumed": list(act.consumed)})
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
                       if m.kind is _PON and m.tiles[0] >> 2 == tile >> 2)
            pon = self.melds[seat][idx]
            self.emit({"type": MeldKind.KAN_ADDED.record, "actor": seat, "pai": tile,
                       "consumed": list(pon.tiles)})
            if self.pending_dora:
                self.pending_dora = 0
                self._reveal_dora()
            res = self._chankan(seat, tile)
            if res is not None:
                return res
            self._remove(seat, tile)
            self.melds[seat][idx] = CalledSet(MeldKind.KAN_ADDED, pon.tiles + (tile,), pon.called,
                                              pon.target, tile)
            self.pon_kinds[seat] &= ~(1 << (tile >> 2))
            if immediate:
                self._reveal_dora()
            else:
                self.pending_dora = 1
        self.kan_owners.append(seat)
        self._interrupt()
        self._update_waits(seat)
        return None

    def _kita(self, seat: int, tile: int) -> RoundResult | None:
        """Set a north aside (three players, nukidora): it shows a pending kan dora as a kan
        would, may be robbed by ron (not chankan), and interrupts like a call (ippatsu, the
        first go-around); the replacement draw follows."""
        self._remove(seat, tile)
        self.kita[seat].append(tile)
        ev: Event = {"type": "kita", "actor": seat, "pai": tile}
        self.emit(ev)
        if self.pending_dora:
            self.pending_dora = 0
            self._reveal_dora()
        rons = self.robbing(seat, tile, self._kita_offer, ev)
        if rons:
            return self._resolve_rons([s for s, _ in rons], seat, tile)
        self._interrupt()
        self._update_waits(seat)
        return None

    def _kita_offer(self, seat: int, declarer: int, tile: int) -> list[Action]:
        """Ron on a north set aside (not chankan), when ``seat`` waits on it."""
        return self._robbing_offer(seat, declarer, tile, chankan=False)

    def _chankan(self, seat: int, tile: int, kokushi_only: bool = False) -> RoundResult | None:
        """Chankan: the seats waiting on ``tile`` may rob ``seat``'s kan (only a kokushi wait
        for a closed kan)."""
        self.chankan_kokushi_only = kokushi_only
        rons = self.robbing(seat, tile, self._chankan_offer, self.events[-1])
        if rons:
            return self._resolve_rons([s for s, _ in rons], seat, tile, chankan=True)
        return None

    def _chankan_offer(self, seat: int, konger: int, tile: int) -> list[Action]:
        """Ron on the kan tile, when ``seat`` waits on it (only a kokushi wait for a closed
        kan when that option is on)."""
        if self.chankan_kokushi_only and not self._is_kokushi_wait(seat):
            return [PASS]
        return self._robbing_offer(seat, konger, tile, chankan=True)

    def _robbing_offer(self, seat: int, konger: int, tile: int, chankan: bool) -> list[Action]:
        """Ron on a kan tile or a north set aside, when ``seat`` waits on it (a seat that waits
        and does not rob it becomes furiten; when it robs, the hand ends)."""
        if not (self.waits[seat] >> (tile >> 2)) & 1:
            return [PASS]
        ron = not self.furiten(seat) and self._can_win(seat, tile, konger, chankan=chankan)
        self._pass_winning_tile(seat)
        return [Action(RON, tile), PASS] if ron else [PASS]

    # ---- discards and claims ----------------------------------------------------------

    def _pass_winning_tile(self, seat: int) -> None:
        self.furiten_temp[seat] = True
        if self.riichi[seat]:
            self.furiten_riichi[seat] = True

    def _interrupt(self) -> None:
        self.uninterrupted = False
        self.ippatsu = [False] * self.n_seats

    def discard(self, seat: int, choice: Action, drawn: int) -> Claimed | RoundResult | None:
        """Discard, claims, riichi acceptance, abortive checks. Returns a RoundResult, None
        (no call) or the applied call."""
        tile = choice.tile
        riichi = self.riichi
        emit = self.emit
        declaring = choice.type == RIICHI
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
        dahai: Event = {"type": "dahai", "actor": seat, "pai": tile,
                        "tsumogiri": choice.tsumogiri}
        emit(dahai)
        if self.pending_dora:
            self.pending_dora = 0
            self._reveal_dora()
        # claims, asked of the seats that wait on the tile or could call it
        if self.n_seats == 4:
            candidates = may_claim(all_counts, waits, riichi, seat, kind, self.wall.left > 0)
        else:       # (the kernel takes four seats: an empty fourth claims nothing)
            candidates = may_claim(all_counts + _NO_SEAT_COUNTS, waits + [0], riichi + [False],
                                   seat, kind, self.wall.left > 0)
        best: tuple[int, Action] | None
        if candidates:
            rons, best = self.claims(seat, tile, self.claim_actions, dahai, candidates)
            if rons:
                return self._resolve_rons([s for s, _ in rons], seat, tile)
            for s in _SEATS_IN[candidates]:      # passing a winning tile: furiten
                if (waits[s] >> kind) & 1:
                    self._pass_winning_tile(s)
        elif not declaring and not first_round and len(self.kan_owners) < 4:
            return None         # (no call, and none of the checks below can apply)
        else:
            best = None
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
                and self.uninterrupted and best is None:
            firsts = [self.rivers[s][0] >> 2 for s in range(4) if self.rivers[s]]
            if len(firsts) == 4 and firsts[0] in (27, 28, 29, 30) and len(set(firsts)) == 1:
                return self._abort("suufonrenda")
        if declaring and self.riichi_count == 4 and self.rules.suucha_riichi:
            return self._abort("suuchariichi")
        if (len(self.kan_owners) == 4 and self.rules.suukaikan
                and len(set(self.kan_owners)) > 1):
            return self._abort("suukaikan")
        if best is None:
            return None
        caller, call = best
        return self._apply_call(caller, seat, call)

    def _apply_call(self, caller: int, target: int, call: Action) -> Claimed:
        tile = call.tile
        kind = tile >> 2
        self.rivers[target].pop()
        self.river_called[target] = True
        hand = self.hands[caller]
        counts = self.counts[caller]
        for t in call.consumed:
            hand.remove(t)
            counts[t >> 2] -= 1
        tiles = tuple(sorted(call.consumed + (tile,)))
        meld_kind = _CALL_KINDS[call.type]
        self.melds[caller].append(CalledSet(meld_kind, tiles, tile, target))
        self.n_open[caller] += 1
        if call.type == PON:
            self.pon_kinds[caller] |= 1 << kind
        self.emit({"type": meld_kind.record, "actor": caller, "target": target, "pai": tile,
                   "consumed": list(call.consumed)})
        self._interrupt()
        if call.type != CHI and kind >= 27 and self.pao[caller] < 0:
            self._check_pao(caller, target, kind)
        if call.type == DAIMINKAN:
            self.kan_owners.append(caller)
            if self.rules.kan_dora_timing == "immediate":
                self._reveal_dora()
            else:
                self.pending_dora = 1
            self._update_waits(caller)
            return _AFTER_KAN[caller]
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
        self.forbidden = forbidden
        return _AFTER_CALL[caller]

    def _check_pao(self, caller: int, target: int, kind: int) -> None:
        sets = [m.tiles[0] >> 2 for m in self.melds[caller] if m.kind is not _CHI]
        dragons = sum(1 for k in sets if k >= 31)
        winds = sum(1 for k in sets if 27 <= k < 31)
        if (kind >= 31 and dragons == 3 and "daisangen" in self.rules.pao) or (
                27 <= kind < 31 and winds == 4 and "daisuushii" in self.rules.pao):
            self.pao[caller] = target

__all__ = ["CalledSet", "Decider", "EngineError", "RiichiRound", "RoundResult"]
