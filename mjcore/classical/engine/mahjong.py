"""Mah-Jong in a classical hand: how it was made, whether it qualifies, the hand's result
(chinese-classical.md §8.1, §9.1-§9.2; ``minimum_doubles`` of §13).

:class:`MahJong` finishes the hand on a self-drawn Mah-Jong (on East's dealt hand too:
Heaven's Blessing), builds every hand's :class:`~.actions.HandResult` and, under
``minimum_doubles``, scores a Mah-Jong before offering it.
"""
from __future__ import annotations

from ...engine.turns import Start
from ...melds import MeldKind
from .actions import Action, CalledSet, HandResult, WinInfo
from .hand_state import HandState

_PON, _KAN_CLOSED, _KAN_ADDED = MeldKind.PON, MeldKind.KAN_CLOSED, MeldKind.KAN_ADDED


class MahJong(HandState):
    """Mah-Jong and the end of a hand (see the module text)."""

    def self_win(self, seat: int, choice: Action, drawn: int, start: int) -> HandResult:
        """Mah-Jong on one's own draw (or on the dealt hand)."""
        return self._finish((self._self_drawn(seat, drawn, start == Start.CALLED),))

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

    def _qualifies(self, win: WinInfo) -> bool:
        """``minimum_doubles``: does this Mah-Jong score enough doubles (a limit hand does)?"""
        from ..scoring import score_deal
        from .game import deal_of

        counts = [bytearray(c) for c in self.counts]
        melds = list(self.melds)
        if win.discarder >= 0:
            counts[win.seat][win.tile] += 1
        if win.robbed_kong:                 # as the hand will be: the kong undone
            melds[win.discarder], back = robbed_sets(melds[win.discarder], win.tile)
            counts[win.discarder][win.tile] += back
        result = HandResult((win,), tuple(tuple(c) for c in counts),
                            tuple(tuple(m) for m in melds),
                            tuple(tuple(b) for b in self.bonus),
                            tuple(tuple(d) for d in self.discards))
        p = score_deal(deal_of(result, win, self.prevailing), self.rules).players[win.seat]
        return p.limit_hand or p.doubles >= self.rules.minimum_doubles

    def _finish(self, wins: tuple[WinInfo, ...]) -> HandResult:
        """The hand's result (a wash-out without ``wins``); a self-drawn Mah-Jong is declared
        here, one on a discard or a kong when it is claimed."""
        for w in wins:
            if w.discarder < 0:
                self.emit({"type": "mahjong", "seat": w.seat, "tile": w.tile, "from": w.seat})
        return HandResult(
            wins,
            tuple(tuple(c) for c in self.counts),
            tuple(tuple(m) for m in self.melds),
            tuple(tuple(b) for b in self.bonus),
            tuple(tuple(d) for d in self.discards))


def robbed_sets(sets: list[CalledSet], k: int) -> tuple[list[CalledSet], int]:
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
