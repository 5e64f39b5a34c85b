"""The legal actions of a riichi hand: the choices after a draw (discards, riichi, tsumo, kans,
kyuushu, and with three players a north set aside) and the claims on a discard (ron, pon,
daiminkan, chi; no chi with three players), each list sorted."""
from __future__ import annotations

from bisect import bisect_left
from operator import itemgetter

from .._core.engine_turn import discard_choices
from .._core.shanten import ukeire as _ukeire
from ..engine.handcalc import YAOCHUU_KINDS, advance, decompositions, ukeire
from ..engine.turns import Start
from ..melds import MeldKind
from .actions import (
    ANKAN,
    CHI,
    DAIMINKAN,
    DISCARD_ACTIONS,
    KAKAN,
    KITA,
    KYUUSHU,
    PASS,
    PON,
    RIICHI_ACTIONS,
    RON,
    TSUMO,
    Action,
)
from .events import RED_IDS
from .settlement import Settlement
from .state import NORTH

_PLAIN_DISCARDS, _TSUMOGIRI_DISCARDS = DISCARD_ACTIONS
_YAOCHUU_COUNTS = itemgetter(*YAOCHUU_KINDS)      # counts -> the 13 terminal/honor counts
_CALLED, _REPLACEMENT = Start.CALLED, Start.REPLACEMENT
_PON = MeldKind.PON


class LegalActions(Settlement):
    """The sorted legal choices of a seat on its turn and on another seat's discard."""

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

    def turn_actions(self, seat: int, drawn: int, start: int = Start.DRAW) -> list[Action]:
        """Choices on ``seat``'s turn, in sorted order: after a draw of ``drawn`` (``start``
        DRAW or REPLACEMENT), or the discards kuikae allows after a call (CALLED)."""
        if start == _CALLED:
            return self._discard_actions(seat, -1, forbidden=self.forbidden)
        counts = self.counts[seat]
        if self.riichi[seat]:
            kind = drawn >> 2
            acts = [DISCARD_ACTIONS[1][drawn]]
            if (self.waits[seat] >> kind) & 1 and self._can_win(
                    seat, drawn, seat, rinshan=start == _REPLACEMENT):
                acts.append(Action(TSUMO, drawn))
            if (counts[kind] == 4 and len(self.kan_owners) < 4 and self.wall.left > 0
                    and self.rules.riichi_ankan != "never" and self._riichi_ankan_ok(seat, kind)):
                acts.append(Action(ANKAN, -1, tuple(t for t in self.hands[seat]
                                                    if t >> 2 == kind)))
            if kind == NORTH and self.rules.nukidora and self.wall.left > 0:
                acts.append(Action(KITA, drawn))      # the drawn north, set aside
            return acts
        # the discards: one per tile class, the drawn tile as its own (tsumogiri) action
        acts = discard_choices(self.hands[seat], drawn, _PLAIN_DISCARDS, _TSUMOGIRI_DISCARDS)
        if self.shanten13[seat] <= 1:       # (the waits are 0 unless the 13 tiles are tenpai)
            # riichi needs a draw of one's own left: a tile for each seat
            if (self.n_open[seat] == 0 and self.wall.left >= self.n_seats
                    and (self.scores[seat] >= 1000 or not self.rules.riichi_requires_1000)):
                acts.extend(self._riichi_actions(seat, drawn))
            if (self.waits[seat] >> (drawn >> 2)) & 1 and self._can_win(
                    seat, drawn, seat, rinshan=start == _REPLACEMENT):
                acts.append(Action(TSUMO, drawn))
        if 4 in counts and len(self.kan_owners) < 4 and self.wall.left > 0:
            for k in range(34):
                if counts[k] == 4:
                    acts.append(Action(ANKAN, -1, tuple(
                        t for t in self.hands[seat] if t >> 2 == k)))
        if self.pon_kinds[seat] and len(self.kan_owners) < 4 and self.wall.left > 0:
            kakans = []
            for m in self.melds[seat]:
                if m.kind is _PON and counts[m.tiles[0] >> 2]:
                    added = next(t for t in self.hands[seat] if t >> 2 == m.tiles[0] >> 2)
                    kakans.append(Action(KAKAN, added, m.tiles))
            if kakans:
                kakans.sort()
                acts.extend(kakans)
        if (self.uninterrupted and not self.has_discarded[seat] and self.rules.kyuushu_kyuuhai
                and _YAOCHUU_COUNTS(counts).count(0) <= 4):     # nine kinds or more
            acts.append(Action(KYUUSHU))
        if self.rules.nukidora and counts[NORTH] and self.wall.left > 0:
            # one north set aside (the drawn one when it is a north; copies are alike)
            acts.append(Action(KITA, drawn if drawn >> 2 == NORTH else next(
                t for t in self.hands[seat] if t >> 2 == NORTH)))
        return acts

    def ukeire(self, seat: int) -> tuple[int, list[int], list[int]]:
        """Ukeire of seat's 14-3k hand (cached: riichi checks and agents share it)."""
        key = bytes(self.counts[seat])
        cached = self._ukeire_cache
        if cached is not None and cached[0] == seat and cached[1] == key:
            return cached[2]
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
        # kuikae: a call must leave a discard the rules allow right after it (with "forbidden",
        # none of the called kind nor, after a chi, of the kind at the run's other end)
        strict = self.rules.kuikae == "forbidden"
        if c >= 2:
            # the hand is sorted: the copies of a kind are adjacent, lowest (red) first
            i = bisect_left(hand, kind << 2)
            same = hand[i:i + c]
            if len(hand) > (c if strict else 2):
                for pair in _distinct_pairs(same):
                    acts.append(Action(PON, tile, pair))
            if c == 3 and len(self.kan_owners) < 4:
                acts.append(Action(DAIMINKAN, tile, tuple(same)))
        if seat == (discarder + 1) % 4 and kind < 27 and self.n_seats == 4:
            spare = len(hand) - 2 - (counts[kind] if strict else 0)    # tiles left to discard
            for x, y, other_end in _CHI_OPTIONS[kind]:
                if not (counts[x] and counts[y]):
                    continue
                if spare <= (counts[other_end] if strict and other_end >= 0 else 0):
                    continue
                for a in _distinct_tiles(hand, x, counts[x]):
                    for b in _distinct_tiles(hand, y, counts[y]):
                        acts.append(Action(CHI, tile, (a, b)))
        acts.sort()
        acts.append(PASS)     # PASS sorts last
        return acts

    # ---- play -------------------------------------------------------------------------

def _chi_options(kind: int) -> tuple[tuple[int, int, int], ...]:
    """Each chi of ``kind``: the two other kinds, and the kind at the run's other end that
    kuikae forbids besides ``kind`` (-1 when none)."""
    if kind >= 27:
        return ()
    n = kind % 9
    out = []
    for lo in (kind - 2, kind - 1, kind):
        if lo < kind - n or lo + 2 > kind - n + 8:
            continue
        x, y = [k for k in (lo, lo + 1, lo + 2) if k != kind]
        other_end = -1
        if lo == kind and n <= 5:
            other_end = kind + 3
        elif lo == kind - 2 and n >= 3:
            other_end = kind - 3
        out.append((x, y, other_end))
    return tuple(out)


_CHI_OPTIONS = tuple(_chi_options(k) for k in range(34))

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
