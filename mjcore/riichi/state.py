"""The state of one riichi hand (kyoku) and what can be read off it.

:class:`RoundState` holds the wall and every hidden tile: hands and their kind counts, melds,
rivers, riichi and furiten flags, waits, kans and pao; the referee's rooms build on it
(:mod:`.legal` the legal actions, :mod:`.settlement` scoring and the endings, :mod:`.round`
the turn loop and the updates of the state), as Mortal's ``state/{getter,action,update}.rs``
split one struct.
"""
from __future__ import annotations

from bisect import insort
from collections.abc import Callable
from typing import NamedTuple

from .._core.engine_turn import kind_counts
from .._core.shanten import advance as _advance
from ..engine.handcalc import YAOCHUU_KINDS, advance
from ..engine.table import event_sink
from ..engine.turns import EngineError, TurnReferee
from ..melds import MeldKind
from .actions import Action
from .events import Event
from .rules import RuleSet
from .wall import Wall

NORTH = 30           # the kind of North: set aside as nukidora with three players


class CalledSet(NamedTuple):
    """A called set of the referee: its ``kind`` (a :class:`~mjcore.melds.MeldKind`; its event
    in the record is ``kind.record``), all its ``tiles`` (136-ids), the ``called`` tile, the
    ``target`` seat called from and, for a kakan, the ``added`` tile."""
    kind: MeldKind
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


class RoundState(TurnReferee[Action, RoundResult]):
    """The state of one hand and its getters; see the module text."""

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
        # every event goes to ``emit``: recorded, and passed to ``on_event`` when one is given
        # (an instance attribute the hot paths read; no method of that name shadows it)
        self.emit: Callable[[Event], None] = event_sink(events, on_event)
        # the seat count is the rules' (three-player riichi: seats 0-2, a 108-tile wall)
        self.n_seats = n = rules.players
        if wall.players != n:
            raise EngineError(f"a {wall.players}-player wall for {n}-player rules")
        self.hands: list[list[int]] = [sorted(h) for h in wall.deal(dealer)]
        # bytearrays: bytes(counts) for the kernels is a copy, not a conversion
        self.counts = [kind_counts(h) for h in self.hands]
        self.melds: list[list[CalledSet]] = [[] for _ in range(n)]
        self.kita: list[list[int]] = [[] for _ in range(n)]   # norths set aside (nukidora)
        self.n_open = [0] * n
        self.pon_kinds = [0] * n               # bitmask of the kinds of the seat's pons
        self.rivers: list[list[int]] = [[] for _ in range(n)]
        self.river_called = [False] * n        # one of the seat's discards was called
        self.disc_kinds = [0] * n              # bitmask of kinds discarded (furiten)
        self.waits = [0] * n                   # winning kinds of the 13-3k hand (bitmask)
        self.shanten13 = [8] * n               # exact when <= 1, else a lower bound
        self.riichi = [False] * n
        self.double_riichi = [False] * n
        self.ippatsu = [False] * n
        self.furiten_temp = [False] * n
        self.furiten_riichi = [False] * n
        self.has_discarded = [False] * n
        self.uninterrupted = True
        self.kan_owners: list[int] = []
        self.pending_dora = 0
        self.pao = [-1] * n
        self.riichi_count = 0
        self._ukeire_cache: tuple[int, bytes, tuple[int, list[int], list[int]]] | None = None
        self.forbidden = 0                     # after chi/pon: the kinds kuikae forbids (mask)
        self.chankan_kokushi_only = False      # a closed kan: only kokushi may rob it
        for s in range(n):
            self._update_waits(s)

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
        held[NORTH] += len(self.kita[seat])
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

    def _is_kokushi_wait(self, seat: int) -> bool:
        """A closed 13-tile hand of terminals and honors only, 12 or 13 kinds: kokushi tenpai."""
        c = self.counts[seat]
        return (self.n_melds(seat) == 0 and sum(c[k] for k in YAOCHUU_KINDS) == 13
                and sum(1 for k in YAOCHUU_KINDS if c[k]) >= 12)

    # ---- invariants -------------------------------------------------------------------

    def tile_census(self) -> list[int]:
        """Every one of the 136 tiles (108 with three players), wherever it is (hands, melds,
        norths set aside, rivers, wall)."""
        tiles: list[int] = []
        for s in range(self.n_seats):
            tiles += self.hands[s]
            tiles += self.rivers[s]
            tiles += self.kita[s]
            for m in self.melds[s]:
                tiles += m.tiles
        tiles += self.wall.unseen_tiles()
        return tiles


