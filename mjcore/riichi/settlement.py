"""Scoring and the endings of a riichi hand: wins (one or several), abortive and exhaustive
draws, and the payments of each. With three players seats are counted mod 3, the norths a
winner set aside are dora (``kita``), a tsumo is paid without the absent player's share (the
scorer's ``players=3``) and the noten payments come from a pool of 2,000."""
from __future__ import annotations

from .._core.scoring import ScoreResult
from ..engine.handcalc import YAOCHUU_KINDS
from ..engine.turns import EngineError
from .actions import PASS, TENPAI, Action
from .events import RED_IDS, Event
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
from .state import RoundResult, RoundState

_IS_YAOCHUU = [k in YAOCHUU_KINDS for k in range(34)]


class Settlement(RoundState):
    """The scorer's view of a win, and the results and payments of every ending."""

    def score(self, seat: int, tile: int, target: int, *, rinshan: bool = False,
              chankan: bool = False, first_winner: bool = True,
              honba_anyway: bool = False) -> ScoreResult:
        """Score seat's win on ``tile`` (already in hand for tsumo, not for ron)."""
        tsumo = target == seat
        n = self.n_seats
        counts = bytearray(self.counts[seat])
        if not tsumo:
            counts[tile >> 2] += 1
        red = sum(1 for t in self.hands[seat] if t in RED_IDS) + (
            0 if tsumo else tile in RED_IDS)
        melds = []
        for m in self.melds[seat]:
            melds.append((m.kind, min(m.tiles) >> 2,
                          sum(1 for t in m.tiles if t in RED_IDS),
                          (m.target - seat) % n))
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
            # (renhou: before one's first draw; uninterrupted, a seat that has drawn has
            # discarded, as no ron falls in the winner's own turn)
            if (self.uninterrupted and not self.has_discarded[seat] and seat != self.dealer
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
            seat_wind=(seat - self.dealer) % n, round_wind=self.round_wind,
            from_rel=(target - seat) % n, pao_rel=-1 if pao < 0 else (pao - seat) % n,
            dora=dora, ura=ura, honba=self.honba if (first_winner or honba_anyway) else 0,
            riichi_sticks=self.sticks if first_winner else 0, rules=self.rules, winner=seat,
            kita=len(self.kita[seat]))

    def _resolve_rons(self, rons: list[int], discarder: int, tile: int,
                      chankan: bool = False) -> RoundResult:
        """``rons``: the winners that stand (in turn order after the discarder; atamahane
        already kept the first). Three rons under ``double`` are sanchahou when it is on."""
        if len(rons) == 3 and self.rules.multiple_ron == "double" and self.rules.sanchahou:
            return self._abort("sanchaho", reveal=rons)
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
        n = self.n_seats
        total = [0] * n
        for w, res in zip(winners, results, strict=True):
            deltas = list(res.deltas)[:n]
            for s in range(n):
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
        n = self.n_seats
        tenpais = [False] * n
        for s in reveal or ():
            tenpais[s] = True
        self.emit({"type": "ryukyoku", "reason": reason, "deltas": [0] * n,
                   "scores": list(self.scores), "tenpais": tenpais})
        self.emit({"type": "end_kyoku"})
        return RoundResult(reason, [0] * n, True, self.honba + 1, self.sticks)

    def _exhaustive(self) -> RoundResult:
        n = self.n_seats
        seats = range(n)
        tenpai = [self.tenpai_mask(s) != 0 for s in seats]
        if self.rules.tenpai_declaration == "optional":
            # a tenpai hand not in riichi may be kept hidden (E, S, W, N from the dealer)
            for d in seats:
                s = (self.dealer + d) % n
                if tenpai[s] and not self.riichi[s]:
                    act = self.ask(s, [Action(TENPAI), PASS], "the exhaustive draw")
                    tenpai[s] = act.type == TENPAI
        deltas = [0] * n
        nagashi = []
        if self.rules.nagashi_mangan != "off":
            for s in seats:
                if self.rivers[s] and not self.river_called[s] and all(
                        _IS_YAOCHUU[t >> 2] for t in self.rivers[s]):
                    nagashi.append(s)
        reason = "exhaustive"
        if nagashi:
            reason = "nagashimangan"
            for s in nagashi:
                for p in seats:
                    if p == s:
                        continue
                    pay = 4000 if (s == self.dealer or p == self.dealer) else 2000
                    if self.rules.nagashi_mangan == "mangan_tsumo":
                        pay += 100 * self.honba
                    deltas[p] -= pay
                    deltas[s] += pay
        else:
            # noten payments: a pool of 1,000 per other player (3,000; 2,000 with three)
            pool = 1000 * (n - 1)
            n_tenpai = sum(tenpai)
            if 0 < n_tenpai < n:
                for s in seats:
                    deltas[s] = pool // n_tenpai if tenpai[s] else -pool // (n - n_tenpai)
        for s in seats:
            self.scores[s] += deltas[s]
        self.emit({"type": "ryukyoku", "reason": reason, "deltas": deltas,
                   "scores": list(self.scores), "tenpais": tenpai})
        self.emit({"type": "end_kyoku"})
        renchan = tenpai[self.dealer] if self.rules.renchan == "tenpai" else False
        return RoundResult(reason, deltas, renchan, self.honba + 1, self.sticks)

    # ---- invariants -------------------------------------------------------------------
