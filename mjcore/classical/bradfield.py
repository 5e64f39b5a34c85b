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
from dataclasses import dataclass, replace
from typing import Any

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
    seats = [_Seat() for _ in range(4)]
    last_discard: tuple[int, int, int] | None = None     # seat, tile, serial
    last_draw_loose = [False] * 4
    kong_chain = [0] * 4          # kongs declared in a row, each on the previous loose tile
    discards = Counter[int]()
    discards_by_east = 0
    first_discard_done = False
    winner = win_tile = None
    self_drawn = robbed = False
    claim = "any"
    discarder: int | None = None
    serial = None
    cannon: int | None = None
    live = _LIVE_TILES[h.rules.dead_wall]        # tiles left in the live wall
    replenished = h.rules.dead_wall == "14_replenished"
    loose_drawn = 0
    last_tile = False
    won_on_east_first = False
    kong_on_kong = False
    declared_pair: int | None = None
    dangerous: dict[str, int | None] = {}      # discard serial -> discarder, when dangerous
    live_at: dict[str, int] = {}               # discard serial -> live tiles left then
    claimed_by: dict[str, int] = {}            # discard serial -> the seat that claimed it
    e = None
    try:
        for e in h.events:
            k, s, t = e.kind, e.seat, e.tile
            if k in ("PlayerDraws", "PlayerDrawsLoose"):
                assert s is not None and t is not None
                seats[s].concealed[t] += 1
                if k == "PlayerDrawsLoose":
                    last_draw_loose[s] = True
                    loose_drawn += 1
                    if replenished and loose_drawn % 2 == 0:
                        live -= min(2, live)       # two live tiles move onto the dead wall
                else:
                    live -= 1
                    last_draw_loose[s] = False
                    kong_chain[s] = 0
            elif k == "PlayerDeclaresSpecial":
                if t is not None:
                    assert s is not None
                    _take(seats[s], t, 1, h, e.line)
                    seats[s].bonus.append(t - BONUS_BASE)
            elif k == "PlayerDiscards":
                assert s is not None and t is not None
                _take(seats[s], t, 1, h, e.line)
                discards[t] += 1
                last_discard = (s, t, int(e.args[0]) if e.args else 0)
                if e.args:
                    live_at[e.args[0]] = live
                if s == 0 and not first_discard_done:
                    discards_by_east = 1
                first_discard_done = True
                kong_chain[s] = 0
            elif k in ("PlayerChows", "PlayerPungs", "PlayerKongs", "PlayerPairs") and \
                    winner is None:
                assert s is not None and t is not None and last_discard is not None
                discards[t] -= 1
                if k == "PlayerChows":
                    low = t - {"Lower": 0, "Middle": 1, "Upper": 2}[e.args[0]]
                    for x in (low, low + 1, low + 2):
                        if x != t:
                            _take(seats[s], x, 1, h, e.line)
                    seats[s].melds.append(Meld(MeldKind.CHI, (low, low + 1, low + 2), t))
                elif k == "PlayerPungs":
                    _take(seats[s], t, 2, h, e.line)
                    seats[s].melds.append(Meld(MeldKind.PON, (t,) * 3, t))
                elif k == "PlayerKongs":
                    _take(seats[s], t, 3, h, e.line)
                    seats[s].melds.append(Meld(MeldKind.KAN_OPEN, (t,) * 4, t))
                else:
                    raise HistoryError(h.source, e.line, "a pair claimed without Mah-Jong")
                claimed_by[str(last_discard[2])] = s
                last_discard = None
            elif k == "PlayerDeclaresClosedKong":
                assert s is not None and t is not None
                _take(seats[s], t, 4, h, e.line)
                seats[s].melds.append(Meld(MeldKind.KAN_CLOSED, (t,) * 4, None))
                kong_chain[s] = kong_chain[s] + 1 if last_draw_loose[s] else 1
            elif k == "PlayerAddsToPung":
                assert s is not None and t is not None
                _take(seats[s], t, 1, h, e.line)
                for i, m in enumerate(seats[s].melds):
                    if m.kind == MeldKind.PON and m.first == t:
                        seats[s].melds[i] = Meld(MeldKind.KAN_ADDED, (t,) * 4, t)
                        break
                else:
                    raise HistoryError(h.source, e.line, "added to a pung the player does not have")
                last_discard = (s, t, int(e.args[0]) if e.args else 0)
                if e.args:
                    live_at[e.args[0]] = live
                kong_chain[s] = kong_chain[s] + 1 if last_draw_loose[s] else 1
            elif k == "PlayerRobsKong":
                assert s is not None and t is not None and last_discard is not None
                robbed = True
                victim = last_discard[0]
                winner, win_tile, discarder, serial = s, t, victim, last_discard[2]
                last_tile = live <= 0
                for i, m in enumerate(seats[victim].melds):
                    if m.kind == MeldKind.KAN_ADDED and m.first == t:
                        seats[victim].melds[i] = Meld(MeldKind.PON, (t,) * 3, t)
                        break
                seats[s].concealed[t] += 1
            elif k == "PlayerMahJongs":
                assert s is not None
                winner = s
                if t is not None:
                    self_drawn = True
                    win_tile = t
                    last_tile = live <= 0
                    kong_on_kong = last_draw_loose[s] and kong_chain[s] >= 2
                else:
                    if last_discard is None:
                        raise HistoryError(h.source, e.line,
                                           "Mah-Jong on a discard, but no discard")
                    discarder, win_tile, serial = last_discard
                    last_tile = live <= 0
                    won_on_east_first = discarder == 0 and discards_by_east == 1 and serial == 1
            elif winner is not None and s == winner and k in ("PlayerChows", "PlayerPungs") \
                    and not self_drawn:
                claim = {"PlayerChows": "chow", "PlayerPungs": "pung"}[k]
                if not robbed:
                    seats[s].concealed[win_tile] += 1   # type: ignore[index]
                    discards[win_tile] -= 1             # type: ignore[index]
            elif k in ("PlayerFormsClosedPair", "PlayerPairs") and s is not None and s == winner:
                declared_pair = t
                if k == "PlayerPairs" and not self_drawn:
                    claim = "pair"
                    if not robbed:
                        seats[s].concealed[win_tile] += 1   # type: ignore[index]
                        discards[win_tile] -= 1             # type: ignore[index]
            elif k == "DangerousDiscard":
                # the server flags a dangerous discard (last field 0: the discarder had a choice)
                # after the claim it gave; the discarder is liable if its claimer goes Mah-Jong
                if len(e.args) >= 2 and e.args[1] == "0":
                    dangerous[e.args[0]] = e.seat
            elif k in ("PlayerDiscards", "PlayerAddsToPung"):
                pass
    except RECORD_SLIPS as exc:          # a malformed field: name its line
        where = e.line if e is not None else None
        what = e.kind if e is not None else "event"
        raise HistoryError(h.source, where, f"{what}: malformed ({slip_text(exc)})") from None
    if winner is None or win_tile is None:
        raise HistoryError(h.source, None, "no Mah-Jong in this hand (a wash-out)")
    if serial is not None:
        claimed_by[str(serial)] = winner
    cannon_live: int | None = None
    for ser, liable in dangerous.items():          # in discard order: the latest counts
        if claimed_by.get(ser) == winner and liable != winner:
            cannon, cannon_live = liable, live_at.get(ser)
    how = set()
    if self_drawn:
        how.add("self_drawn")
        if last_draw_loose[winner]:
            how.add("loose_tile")
        if last_tile:
            how.add("last_tile")
        if kong_on_kong:
            how.add("kong_upon_kong")
        if winner == 0 and not first_discard_done and not any(s.melds for s in seats):
            how.add("heaven")
    else:
        if robbed:
            how.add("robbed_kong")
        elif last_tile:
            how.add("last_discard")
        if won_on_east_first:
            how.add("earth")
    if winner == 0 and h.east_streak >= 12:
        how.add("thirteenth_win")
    # kinds whose four copies are all visible: unclaimed discards and every declared set
    visible = Counter[int]()
    for t, n in discards.items():
        visible[t] += n
    for st in seats:
        for m in st.melds:
            for x in m.tiles:
                visible[x] += 1
    dead = frozenset(t for t, n in visible.items() if n >= 4)
    hands = tuple(PlayerHand(tuple(sorted(st.concealed.elements())), tuple(st.melds),
                             tuple(sorted(st.bonus))) for st in seats)
    deal = Deal(hands=hands, prevailing=h.game.prevailing_wind, winner=winner,  # type: ignore[arg-type]
                win_tile=win_tile, how=frozenset(how),
                discarder=None if self_drawn else discarder,
                claim=claim, cannon=None, dead_kinds=dead, pair=declared_pair)
    if cannon is not None and (last_tiles_danger(cannon_live)
                               or warned_hand(score_deal(deal, h.rules).players[winner])):
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
