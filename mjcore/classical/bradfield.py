"""Score Bradfield hand histories and compare with the server's own scores.

:func:`deal_from_history` rebuilds a finished hand from its events alone (every player's
concealed tiles, declared sets and bonus tiles; the winning tile, how it was won, what the
winning discard was claimed for, who discarded it, cannon liability, the tiles whose four
copies were visible). :func:`bradfield_items` writes our items the way Bradfield's
``HandScore`` lines do, and :func:`compare_hand` lists every difference between our
:class:`~mjcore.classical.scoring.DealScore` and the recorded ``HandScore`` and
``Settlement`` lines.

What mj-server 1.11 does, as its records show (and the ``bradfield`` preset or this rebuild
follows):

- It scores the arrangement each player declares (``PlayerFormsClosed*``). Losers' declarations
  always equal the best arrangement here; the winner's pair is passed on as ``Deal.pair``, and
  what the winning discard was claimed for as ``Deal.claim``.
- A loose tile that wins gets the loose-tile double but not the 2 points "from the wall"
  (``loose_tile_wall_points=False``).
- Three Great Scholars needs no chow; Buried Treasure needs the pair concealed too
  (``scholars_need_no_chows``, ``buried_treasure_discard_pair=False``).
- The live wall is 130 tiles; every second loose tile moves two live tiles onto the dead wall.
  Winning on the last discard is written "winning with last tile", like the last tile.
- Cannon: a discard the server flags ``DangerousDiscard ... 0`` (the discarder had a choice)
  makes its discarder pay every loser's debt to the winner if the player who claimed it goes
  Mah-Jong (on that discard or later, even self-drawn), and either it was discarded among the
  last four tiles (four or fewer left in the live wall, :func:`last_tiles_danger`) or the
  winner's hand is what the danger warned of, a limit hand, one suit only or three dragons
  (:func:`warned_hand`). In the 300 shipped games 10 winners claimed such a discard made
  earlier: the 4 with one suit only or a limit were charged, the 6 with less (one suit with
  honours, or no suit double) were not; fresh games add little three dragons (charged) and
  one suit with honours at the limit by doubles (not charged). The latest such discard counts,
  and the losers then do not settle among themselves.
- A robbed kong is a Mah-Jong without ``PlayerMahJongs`` (``PlayerRobsKong`` instead); the
  robbed kong scores as the pung it was.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from ..errors import RECORD_SLIPS, MjcoreError, slip_text
from ..melds import Meld, MeldKind
from .history import BONUS_BASE, SEAT_NAMES, HandHistory, HistoryError, tile_text
from .scoring import (
    _REASONS,
    SF_ADDED,
    SF_KONG,
    Deal,
    DealScore,
    Item,
    PlayerHand,
    PlayerScore,
    score_deal,
)

# Tiles that end the live wall: 144 less the 14-tile dead wall, which Bradfield keeps at 14
# by moving live tiles onto it (dead_wall="14_replenished").
_LIVE_TILES = {"14_replenished": 130, "14_unreplenished": 130, "16_unreplenished": 128,
               "none": 144}


class _Seat:
    def __init__(self) -> None:
        self.concealed: Counter[int] = Counter()
        self.melds: list[Meld] = []
        self.bonus: list[int] = []


def _take(seat: _Seat, tile: int, n: int, h: HandHistory, line: int) -> None:
    if seat.concealed[tile] < n:
        raise HistoryError(h.source, line, f"the player does not hold {n} x {tile_text(tile)}")
    seat.concealed[tile] -= n
    if not seat.concealed[tile]:
        del seat.concealed[tile]


# A flagged discard with this many live tiles left or fewer is a "last four tiles" danger.
LAST_TILES_DANGER = 4


def last_tiles_danger(live_left: int | None) -> bool:
    """A dangerous discard made with ``live_left`` tiles left in the live wall (after the
    discarder's draw; None if not known) is charged whatever the winner makes."""
    return live_left is not None and live_left <= LAST_TILES_DANGER


# Doubles that make the hand an earlier dangerous discard warned of (limit hands do too).
_WARNED_OF = frozenset({"one_suit_only", "little_three_dragons", "big_three_dragons"})


def warned_hand(winner: PlayerScore) -> bool:
    """The winner made the hand an earlier dangerous discard warned of: a limit hand, one
    suit only, or three dragon sets (little or big). mj-server does not charge it for less:
    one suit with honours, or a hand that reaches the limit by its doubles, is not enough."""
    return winner.limit_hand or any(i.name in _WARNED_OF for i in winner.items)


def deal_from_history(h: HandHistory) -> Deal:
    """The finished deal of a hand history (HistoryError if it was a wash-out or does not
    add up)."""
    reader = _DealReader(h)
    e = None
    try:
        for e in h.events:
            handler = _DealReader.HANDLERS.get(e.kind)
            if handler is not None:
                handler(reader, e)
    except RECORD_SLIPS as exc:          # a malformed field: name its line
        where = e.line if e is not None else None
        what = e.kind if e is not None else "event"
        raise HistoryError(h.source, where, f"{what}: malformed ({slip_text(exc)})") from None
    return reader.deal()


class _DealReader:
    """What a hand's events say so far, one handler per event kind (``HANDLERS``)."""

    def __init__(self, h: HandHistory) -> None:
        self.h = h
        self.seats = [_Seat() for _ in range(4)]
        self.last_discard: tuple[int, int, int] | None = None     # seat, tile, serial
        self.last_draw_loose = [False] * 4
        self.kong_chain = [0] * 4     # kongs declared in a row, each on the previous loose tile
        self.discards = Counter[int]()
        self.discards_by_east = 0
        self.first_discard_done = False
        self.winner: int | None = None
        self.win_tile: int | None = None
        self.self_drawn = self.robbed = False
        self.claim = "any"
        self.discarder: int | None = None
        self.serial: int | None = None
        self.live = _LIVE_TILES[h.rules.dead_wall]        # tiles left in the live wall
        self.replenished = h.rules.dead_wall == "14_replenished"
        self.loose_drawn = 0
        self.last_tile = False
        self.won_on_east_first = False
        self.kong_on_kong = False
        self.declared_pair: int | None = None
        self.dangerous: dict[str, int | None] = {}   # discard serial -> discarder, when dangerous
        self.live_at: dict[str, int] = {}            # discard serial -> live tiles left then
        self.claimed_by: dict[str, int] = {}         # discard serial -> the seat that claimed it

    def _error(self, e: Any, detail: str) -> HistoryError:
        return HistoryError(self.h.source, e.line, detail)

    def draw(self, e: Any) -> None:
        s, t = e.seat, e.tile
        assert s is not None and t is not None
        self.seats[s].concealed[t] += 1
        if e.kind == "PlayerDrawsLoose":
            self.last_draw_loose[s] = True
            self.loose_drawn += 1
            if self.replenished and self.loose_drawn % 2 == 0:
                self.live -= min(2, self.live)       # two live tiles move onto the dead wall
        else:
            self.live -= 1
            self.last_draw_loose[s] = False
            self.kong_chain[s] = 0

    def bonus(self, e: Any) -> None:
        if e.tile is not None:
            assert e.seat is not None
            _take(self.seats[e.seat], e.tile, 1, self.h, e.line)
            self.seats[e.seat].bonus.append(e.tile - BONUS_BASE)

    def _offered(self, e: Any) -> None:
        """A discard or an added kong: a tile others may claim."""
        self.last_discard = (e.seat, e.tile, int(e.args[0]) if e.args else 0)
        if e.args:
            self.live_at[e.args[0]] = self.live

    def discard(self, e: Any) -> None:
        s, t = e.seat, e.tile
        assert s is not None and t is not None
        _take(self.seats[s], t, 1, self.h, e.line)
        self.discards[t] += 1
        self._offered(e)
        if s == 0 and not self.first_discard_done:
            self.discards_by_east = 1
        self.first_discard_done = True
        self.kong_chain[s] = 0

    def claim_discard(self, e: Any) -> None:
        """A chow, pung, kong or pair of the last discard: a set before the Mah-Jong, the
        winner's claim after it."""
        if self.winner is not None:
            self._winning_claim(e)
            return
        k, s, t = e.kind, e.seat, e.tile
        assert s is not None and t is not None and self.last_discard is not None
        self.discards[t] -= 1
        seat = self.seats[s]
        if k == "PlayerChows":
            low = t - {"Lower": 0, "Middle": 1, "Upper": 2}[e.args[0]]
            for x in (low, low + 1, low + 2):
                if x != t:
                    _take(seat, x, 1, self.h, e.line)
            seat.melds.append(Meld(MeldKind.CHI, (low, low + 1, low + 2), t))
        elif k == "PlayerPungs":
            _take(seat, t, 2, self.h, e.line)
            seat.melds.append(Meld(MeldKind.PON, (t,) * 3, t))
        elif k == "PlayerKongs":
            _take(seat, t, 3, self.h, e.line)
            seat.melds.append(Meld(MeldKind.KAN_OPEN, (t,) * 4, t))
        else:
            raise self._error(e, "a pair claimed without Mah-Jong")
        self.claimed_by[str(self.last_discard[2])] = e.seat
        self.last_discard = None

    def _winning_claim(self, e: Any) -> None:
        """After the Mah-Jong: what the winner claimed the winning discard for, and the pair
        it declares."""
        if e.seat is None or e.seat != self.winner:
            return
        if e.kind == "PlayerPairs":
            self.declared_pair = e.tile
        if self.self_drawn or e.kind == "PlayerKongs":
            return
        self.claim = {"PlayerChows": "chow", "PlayerPungs": "pung", "PlayerPairs": "pair"}[e.kind]
        if not self.robbed:
            self.seats[e.seat].concealed[self.win_tile] += 1
            self.discards[self.win_tile] -= 1                  # type: ignore[index]

    def closed_pair(self, e: Any) -> None:
        if e.seat is not None and e.seat == self.winner:
            self.declared_pair = e.tile

    def closed_kong(self, e: Any) -> None:
        s, t = e.seat, e.tile
        assert s is not None and t is not None
        _take(self.seats[s], t, 4, self.h, e.line)
        self.seats[s].melds.append(Meld(MeldKind.KAN_CLOSED, (t,) * 4, None))
        self.kong_chain[s] = self.kong_chain[s] + 1 if self.last_draw_loose[s] else 1

    def added_kong(self, e: Any) -> None:
        s, t = e.seat, e.tile
        assert s is not None and t is not None
        _take(self.seats[s], t, 1, self.h, e.line)
        melds = self.seats[s].melds
        for i, m in enumerate(melds):
            if m.kind == MeldKind.PON and m.first == t:
                melds[i] = Meld(MeldKind.KAN_ADDED, (t,) * 4, t)
                break
        else:
            raise self._error(e, "added to a pung the player does not have")
        self._offered(e)
        self.kong_chain[s] = self.kong_chain[s] + 1 if self.last_draw_loose[s] else 1

    def rob_kong(self, e: Any) -> None:
        s, t = e.seat, e.tile
        assert s is not None and t is not None and self.last_discard is not None
        self.robbed = True
        victim = self.last_discard[0]
        self.winner, self.win_tile, self.discarder = s, t, victim
        self.serial = self.last_discard[2]
        self.last_tile = self.live <= 0
        melds = self.seats[victim].melds
        for i, m in enumerate(melds):
            if m.kind == MeldKind.KAN_ADDED and m.first == t:
                melds[i] = Meld(MeldKind.PON, (t,) * 3, t)
                break
        self.seats[s].concealed[t] += 1

    def mahjong(self, e: Any) -> None:
        s, t = e.seat, e.tile
        assert s is not None
        self.winner = s
        self.last_tile = self.live <= 0
        if t is not None:
            self.self_drawn = True
            self.win_tile = t
            self.kong_on_kong = self.last_draw_loose[s] and self.kong_chain[s] >= 2
            return
        if self.last_discard is None:
            raise self._error(e, "Mah-Jong on a discard, but no discard")
        self.discarder, self.win_tile, self.serial = self.last_discard
        self.won_on_east_first = (self.discarder == 0 and self.discards_by_east == 1
                                  and self.serial == 1)

    def danger(self, e: Any) -> None:
        # the server flags a dangerous discard (last field 0: the discarder had a choice)
        # after the claim it gave; the discarder is liable if its claimer goes Mah-Jong
        if len(e.args) >= 2 and e.args[1] == "0":
            self.dangerous[e.args[0]] = e.seat

    HANDLERS: ClassVar[dict[str, Callable[[_DealReader, Any], None]]] = {
        "PlayerDraws": draw, "PlayerDrawsLoose": draw, "PlayerDeclaresSpecial": bonus,
        "PlayerDiscards": discard, "PlayerChows": claim_discard, "PlayerPungs": claim_discard,
        "PlayerKongs": claim_discard, "PlayerPairs": claim_discard,
        "PlayerFormsClosedPair": closed_pair, "PlayerDeclaresClosedKong": closed_kong,
        "PlayerAddsToPung": added_kong, "PlayerRobsKong": rob_kong, "PlayerMahJongs": mahjong,
        "DangerousDiscard": danger,
    }

    def _how(self) -> frozenset[str]:
        winner = self.winner
        assert winner is not None
        how = set()
        if self.self_drawn:
            how.add("self_drawn")
            if self.last_draw_loose[winner]:
                how.add("loose_tile")
            if self.last_tile:
                how.add("last_tile")
            if self.kong_on_kong:
                how.add("kong_upon_kong")
            if winner == 0 and not self.first_discard_done and not any(
                    s.melds for s in self.seats):
                how.add("heaven")
        else:
            if self.robbed:
                how.add("robbed_kong")
            elif self.last_tile:
                how.add("last_discard")
            if self.won_on_east_first:
                how.add("earth")
        if winner == 0 and self.h.east_streak >= 12:
            how.add("thirteenth_win")
        return frozenset(how)

    def _dead_kinds(self) -> frozenset[int]:
        """Kinds whose four copies are all visible: unclaimed discards and every declared set."""
        visible = Counter[int]()
        for t, n in self.discards.items():
            visible[t] += n
        for st in self.seats:
            for m in st.melds:
                for x in m.tiles:
                    visible[x] += 1
        return frozenset(t for t, n in visible.items() if n >= 4)

    def deal(self) -> Deal:
        """The deal once every event is read."""
        winner = self.winner
        if winner is None or self.win_tile is None:
            raise HistoryError(self.h.source, None, "no Mah-Jong in this hand (a wash-out)")
        if self.serial is not None:
            self.claimed_by[str(self.serial)] = winner
        cannon: int | None = None
        cannon_live: int | None = None
        for ser, liable in self.dangerous.items():      # in discard order: the latest counts
            if self.claimed_by.get(ser) == winner and liable != winner:
                cannon, cannon_live = liable, self.live_at.get(ser)
        hands = tuple(PlayerHand(tuple(sorted(st.concealed.elements())), tuple(st.melds),
                                 tuple(sorted(st.bonus))) for st in self.seats)
        deal = Deal(hands=hands, prevailing=self.h.game.prevailing_wind,  # type: ignore[arg-type]
                    winner=winner, win_tile=self.win_tile, how=self._how(),
                    discarder=None if self.self_drawn else self.discarder,
                    claim=self.claim, cannon=None, dead_kinds=self._dead_kinds(),
                    pair=self.declared_pair)
        if cannon is not None and (last_tiles_danger(cannon_live) or warned_hand(
                score_deal(deal, self.h.rules).players[winner])):
            deal = replace(deal, cannon=cannon)
        return deal


# -- Bradfield's way of writing items ----------------------------------------------------

# Where Bradfield's wording differs from the library's (``scoring._REASONS``, used otherwise).
_BF_REASON = {
    "mahjong": "going Mah Jong", "from_wall": "winning from wall",
    "little_three_dragons": "Little Three Dragons", "big_three_dragons": "Big Three Dragons",
    "little_four_winds": "Little Four Joys", "big_four_winds": "Big Four Joys",
    "semi_concealed_hand": "almost concealed hand",
    "loose_tile": "winning with loose tile", "last_tile": "winning with last tile",
    "last_discard": "winning with last tile",   # Bradfield writes the last discard so too
    "four_blessings": "Four Blessing o'er the Door", "four_kongs": "Fourfold Plenty",
    "thirteenth_win": "East's 13th consecutive win",
    "plum_blossom": "Gathering Plum Blossom from the Roof",
}
_BF_LABEL = {"mahjong": "basic", "from_wall": "extra", "only_place": "extra",
             "fishing_eyes": "extra", "seven_pairs": "extra"}


def _bf_reason(name: str) -> str:
    return _BF_REASON.get(name) or _REASONS[name]


def _set_label(it: Item) -> str:
    name = tile_text(it.tile or 0)
    if it.name == "pair":
        sep = "+" if it.concealed else "-"
        return f"{name}{sep}{name}"
    if it.flags & SF_KONG:
        if it.concealed:
            return "+".join([name] * 4)
        if it.flags & SF_ADDED:
            return "-".join([name] * 4)
        return "-".join([name] * 3) + "+" + name      # claimed: the fourth tile was concealed
    return ("+" if it.concealed else "-").join([name] * 3)


def bradfield_items(p: PlayerScore) -> list[tuple[str, int, int, int, str]]:
    """Our items as Bradfield writes them: (label, points, doubles, limit, reason)."""
    out = []
    for it in p.items:
        if it.limit:
            out.append(("Limit Hand", 0, 0, p.score, _bf_reason(it.name)))
        elif it.name in ("set", "pair"):
            reason = it.reason.replace("exposed", "open").replace("concealed", "closed")
            out.append((_set_label(it), it.points, 0, 0, reason))
        elif it.name in ("dragon_set", "own_wind_set", "prevailing_wind_set"):
            flags = it.flags
            fake = Item("set", it.tile, flags)
            out.append((_set_label(fake), 0, it.doubles, 0, _bf_reason(it.name)))
        elif it.name == "bonus":
            n = it.tile or 0
            out.append((f"{n} special{'s' if n != 1 else ''}", it.points, 0, 0,
                        "flowers and seasons"))
        else:
            out.append((_BF_LABEL.get(it.name, ""), it.points, it.doubles, 0,
                        _bf_reason(it.name)))
    return out


@dataclass(frozen=True)
class Difference:
    """One disagreement: the seat (None for the settlement), what differs, ours, theirs."""

    seat: int | None
    what: str
    ours: object
    theirs: object

    def __str__(self) -> str:
        who = SEAT_NAMES[self.seat] if self.seat is not None else "settlement"
        if self.what == "items":
            def show(items: Any) -> str:
                return "; ".join(f"{label} {'limit' if limit else f'{d} dbl' if d else p} "
                                 f"({reason})".strip() for label, p, d, limit, reason in items) \
                    or "nothing"
            return f"{who}: items only we score: {show(self.ours)}; only Bradfield: " \
                   f"{show(self.theirs)}"
        return f"{who}: {self.what}: ours {self.ours}, Bradfield {self.theirs}"


def compare_hand(h: HandHistory, result: DealScore) -> list[Difference]:
    """Every difference between our scores and the history's HandScore and Settlement."""
    diffs: list[Difference] = []
    for seat in range(4):
        theirs = h.scores.get(seat)
        ours = result.players[seat]
        if theirs is None:
            diffs.append(Difference(seat, "HandScore", "scored", "missing"))
            continue
        if ours.score != theirs.score:
            diffs.append(Difference(seat, "score", ours.score, theirs.score))
        if not ours.limit_hand and theirs.total_points is not None and \
                ours.points != theirs.total_points:
            diffs.append(Difference(seat, "points", ours.points, theirs.total_points))
        if not ours.limit_hand and theirs.total_doubles is not None and \
                ours.doubles != theirs.total_doubles:
            diffs.append(Difference(seat, "doubles", ours.doubles, theirs.total_doubles))
        mine = Counter(bradfield_items(ours))
        recorded = Counter((i.label, i.points, i.doubles, i.limit, i.reason) for i in theirs.items)
        if mine != recorded:
            extra = sorted((mine - recorded).elements())
            missing = sorted((recorded - mine).elements())
            diffs.append(Difference(seat, "items", extra, missing))
    st = h.settlement
    if st is None:
        diffs.append(Difference(None, "Settlement", "settled", "missing"))
        return diffs
    if tuple(result.net) != tuple(st.net):
        diffs.append(Difference(None, "net", tuple(result.net), tuple(st.net)))
    mine_p = Counter((p.payer, p.payee, p.amount, p.for_seat) for p in result.payments)
    theirs_p = Counter((p.payer, p.payee, p.amount, p.for_seat) for p in st.payments)
    if mine_p != theirs_p:
        diffs.append(Difference(None, "payments", sorted((mine_p - theirs_p).elements(), key=str),
                                sorted((theirs_p - mine_p).elements(), key=str)))
    if result.cannon != st.cannon:
        diffs.append(Difference(None, "cannon", result.cannon, st.cannon))
    return diffs


def check_history(h: HandHistory) -> tuple[DealScore | None, list[Difference]]:
    """Rebuild, score under the history's own rules, compare. A hand that cannot be rebuilt
    or scored is one difference saying why."""
    try:
        deal = deal_from_history(h)
        result = score_deal(deal, h.rules)
    except MjcoreError as e:
        return None, [Difference(None, "error", str(e), "scored")]
    except RECORD_SLIPS as e:              # a malformed field the reader let through
        return None, [Difference(None, "error", f"{h.source}: malformed history "
                                 f"({slip_text(e)})", "scored")]
    return result, compare_hand(h, result)
