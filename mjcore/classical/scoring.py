"""Chinese classical scoring (chinese-classical.md §11): all four hands of a finished deal,
itemised, and the settlement.

Build a :class:`Deal` (each seat's concealed tiles, declared sets and bonus tiles; who won,
on which tile and how) and call :func:`score_deal`. The compiled kernel
(``mjcore._core.classical_scoring``) does the work, for one deal here and for arrays of deals
in :mod:`mjcore.classical.batch`, so both give the same numbers.

- The winner's hand is split by the shared decomposition kernel; the reading that scores
  highest is kept (``win_claim`` restricts the readings to the set the winning discard was
  claimed for, as Bradfield's server does).
- Each loser's concealed tiles are arranged for the best score: every kind held three or
  more times is a concealed pung and every honour pair a pair (more than one pair allowed).
- Settlement: every loser pays the winner, losers pay each other the differences, East pays
  and receives double, with the options of §11.8 and cannon liability (the cannon-letter
  pays every loser's debt to the winner and the losers do not settle; Bradfield's rule).
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._core import classical_scoring as _k
from ..errors import InvalidHandError, InvalidRuleError
from ..melds import Meld
from ..status import BAD_COUNT, reason_of, status_error
from ..tiles import N_KINDS, format_tiles, parse_bonus_tiles, tile_name
from .rules import ClassicalRules

ITEM_NAMES: tuple[str, ...] = _k.ITEM_NAMES
_FIRST_DOUBLE = ITEM_NAMES.index("dragon_set")
_FIRST_LIMIT = ITEM_NAMES.index("heavens_blessing")

# set flags (classical_scoring.pxd SF_* / PAIR_*)
SF_CONCEALED, SF_KONG, SF_ADDED, SF_CLAIMED_KONG = 1, 2, 4, 8
PAIR_DRAGON, PAIR_OWN, PAIR_PREVAILING = 16, 32, 64

# how the hand was won (DealC.win_flags)
WIN_FLAGS = {
    "self_drawn": 1, "loose_tile": 2, "last_tile": 4, "last_discard": 8, "robbed_kong": 16,
    "original_call": 32, "heaven": 64, "earth": 128, "kong_upon_kong": 256,
    "thirteenth_win": 512,
}
CLAIMS = ("any", "pair", "chow", "pung")

_REASONS = {
    "mahjong": "going Mah-Jong", "seven_pairs": "seven pairs", "bonus": "flowers and seasons",
    "from_wall": "winning from the wall", "only_place": "filling the only place",
    "fishing_eyes": "fishing the eyes", "dragon_set": "pung/kong of dragons",
    "own_wind_set": "pung/kong of own wind", "prevailing_wind_set": "pung/kong of prevailing wind",
    "little_three_dragons": "little three dragons", "big_three_dragons": "big three dragons",
    "little_four_winds": "little four winds", "big_four_winds": "big four winds",
    "three_concealed_pungs": "three concealed pungs", "own_bonus": "own flower or season",
    "own_flower_and_season": "own flower and season", "all_four_flowers": "all four flowers",
    "all_four_seasons": "all four seasons", "no_score_hand": "no score hand",
    "no_chows": "no chows", "concealed_hand": "concealed hand",
    "semi_concealed_hand": "semi-concealed hand", "one_suit_with_honours": "one suit with honours",
    "one_suit_only": "one suit only", "all_majors": "all majors",
    "loose_tile": "winning with a loose tile", "last_tile": "winning with the last tile",
    "last_discard": "winning on the last discard", "robbing_kong": "robbing a kong",
    "original_call": "completing Original Call", "heavens_blessing": "Heaven's Blessing",
    "earths_blessing": "Earth's Blessing", "thirteen_unique_wonders": "Thirteen Unique Wonders",
    "nine_gates": "Nine Gates", "wriggling_snake": "Wriggling Snake",
    "buried_treasure": "Buried Treasure", "concealed_clear_suit": "Concealed Clear Suit",
    "four_kongs": "Four Kongs", "three_great_scholars": "Three Great Scholars",
    "four_blessings": "Four Blessings o'er the Door", "all_honours": "All Honours",
    "heads_and_tails": "Heads and Tails", "imperial_jade": "Imperial Jade",
    "kong_upon_kong": "Kong upon Kong", "plum_blossom": "Gathering the Plum Blossom from the Roof",
    "catching_the_moon": "Catching the Moon from the Bottom of the Sea",
    "carrying_pole": "Scratching a Carrying Pole",
    "thirteenth_win": "East's 13th consecutive Mah-Jong",
}


def _major(kind: int) -> bool:
    return kind >= 27 or kind % 9 in (0, 8)


@dataclass(frozen=True)
class PlayerHand:
    """One seat's tiles: ``concealed`` tile kinds (the winner's include the winning tile),
    declared ``melds`` (chows, pungs, kongs; a concealed kong is ``MeldKind.KAN_CLOSED``)
    and ``bonus`` tile ids (0..7 = ``1f``..``8f``)."""

    concealed: tuple[int, ...]
    melds: tuple[Meld, ...] = ()
    bonus: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        for pos, k in enumerate(self.concealed):
            if type(k) is not int or not 0 <= k < N_KINDS:
                raise InvalidHandError(f"concealed tile {k!r} (at {pos}): expected a kind 0..33",
                                       reason="bad_tile", position=pos)
        for m in self.melds:
            if not isinstance(m, Meld):
                raise InvalidHandError(f"set {m!r}: expected a Meld", reason="bad_melds")
        for b in self.bonus:
            if type(b) is not int or not 0 <= b < 8:
                raise InvalidHandError(f"bonus tile {b!r}: expected a bonus id 0..7 (1f..8f)",
                                       reason="bad_bonus")
        if len(set(self.bonus)) != len(self.bonus):
            raise InvalidHandError("a bonus tile is held twice", reason=reason_of(BAD_COUNT))

    @classmethod
    def parse(cls, text: str) -> PlayerHand:
        """``"123m455p 6z6z6z pon:777z ankan:1111s 1f5f"``: concealed tiles (mpsz), meld
        tokens (``chi:``, ``pon:``, ``kan:``, ``ankan:``, ``kakan:``), bonus tiles (``f``)."""
        from ..tiles import parse_tiles
        concealed: list[int] = []
        melds: list[Meld] = []
        bonus: list[int] = []
        for token in text.split():
            if ":" in token:
                melds.append(Meld.parse(token))
            elif token.endswith("f") and not any(c in token for c in "mpsz"):
                bonus.extend(parse_bonus_tiles(token))
            else:
                tl = parse_tiles(token)
                concealed.extend(tl.kinds)
        return cls(tuple(sorted(concealed)), tuple(melds), tuple(bonus))

    def counts(self) -> list[int]:
        """The concealed tiles as 34 counts."""
        c = [0] * N_KINDS
        for k in self.concealed:
            c[k] += 1
        return c

    def __str__(self) -> str:
        from ..tiles import format_bonus
        parts = [format_tiles(self.concealed)] if self.concealed else []
        parts += [str(m) for m in self.melds]
        if self.bonus:
            parts.append(format_bonus(self.bonus))
        return " ".join(parts)


@dataclass(frozen=True)
class Deal:
    """A finished hand: the four seats' hands (0 = East), the prevailing wind (0 = East),
    the winner's seat, the winning tile, how it was won (``how``: names of ``WIN_FLAGS``),
    the discarder's seat (None for a self-drawn win), what the discard was claimed for
    (``claim``: any/pair/chow/pung), the seat liable for letting off a cannon (or None) and
    the kinds whose four copies are all visible (they are not "available" places).
    ``pair``, when given, is the pair the winner declared: only readings with that pair are
    scored (Bradfield scores the arrangement the player declares; §11.2 the best one).
    ``hidden``: losers whose hands were not shown; they hold what ``hands`` gives them
    (fewer tiles allowed, usually none) and score only that, but still settle."""

    hands: tuple[PlayerHand, PlayerHand, PlayerHand, PlayerHand]
    prevailing: int
    winner: int
    win_tile: int
    how: frozenset[str] = frozenset()
    discarder: int | None = None
    claim: str = "any"
    cannon: int | None = None
    dead_kinds: frozenset[int] = frozenset()
    pair: int | None = None
    hidden: frozenset[int] = frozenset()

    def __post_init__(self) -> None:
        unknown = set(self.how) - set(WIN_FLAGS)
        if unknown:
            raise InvalidHandError(f"unknown win condition(s): {', '.join(sorted(unknown))}",
                                   reason="bad_win")
        if self.claim not in CLAIMS:
            raise InvalidHandError(f"claim {self.claim!r}: expected one of {', '.join(CLAIMS)}",
                                   reason="bad_win")
        if len(self.hands) != 4 or not all(isinstance(h, PlayerHand) for h in self.hands):
            raise InvalidHandError("a deal has four PlayerHand values", reason="bad_deal")
        for name, seat in (("winner", self.winner), ("discarder", self.discarder),
                           ("cannon", self.cannon), ("prevailing", self.prevailing)):
            if seat is not None and (type(seat) is not int or not 0 <= seat <= 3):
                raise InvalidHandError(f"{name} {seat!r}: expected a seat 0..3",
                                       reason="bad_seats")
        if "self_drawn" not in self.how and self.discarder is None:
            raise InvalidHandError("a win on a discard needs the discarder's seat",
                                   reason="bad_win")
        if self.winner in self.hidden or not set(self.hidden) <= {0, 1, 2, 3}:
            raise InvalidHandError("only losers' hands can be hidden", reason="bad_seats")
        if self.pair is not None and (type(self.pair) is not int or not 0 <= self.pair < N_KINDS):
            raise InvalidHandError(f"pair {self.pair!r}: expected a kind 0..33", reason="bad_tile")
        if type(self.win_tile) is not int or not 0 <= self.win_tile < N_KINDS:
            raise InvalidHandError(f"winning tile {self.win_tile!r}: expected a kind 0..33",
                                   reason="bad_tile")
        for k in self.dead_kinds:
            if type(k) is not int or not 0 <= k < N_KINDS:
                raise InvalidHandError(f"dead_kinds {k!r}: expected kinds 0..33",
                                       reason="bad_tile")

    def kernel_args(self) -> tuple[Any, ...]:
        """The arguments of the compiled kernel (without the rules)."""
        seats = []
        for h in self.hands:
            bits = 0
            for b in h.bonus:
                bits |= 1 << b
            melds = [(int(m.kind), m.first) for m in h.melds]
            seats.append((h.counts(), melds, bits))
        flags = 0
        for name in self.how:
            flags |= WIN_FLAGS[name]
        dead = 0
        for k in self.dead_kinds:
            dead |= 1 << k
        return (seats, self.prevailing, self.winner, self.win_tile, CLAIMS.index(self.claim),
                255 if self.pair is None else self.pair, flags,
                -1 if self.discarder is None else self.discarder,
                -1 if self.cannon is None else self.cannon, dead)


@dataclass(frozen=True)
class Item:
    """One scored item: ``name`` (see ``ITEM_NAMES``), what it is about (``tile``: a set's or
    pair's kind, the number of bonus tiles, or the bonus id; None for the whole hand),
    ``flags`` (SF_*/PAIR_*), and its ``points``, ``doubles`` or ``limit`` (one is set)."""

    name: str
    tile: int | None
    flags: int
    points: int = 0
    doubles: int = 0
    limit: bool = False

    @property
    def concealed(self) -> bool:
        """True when the item's set is concealed (the SF_CONCEALED flag)."""
        return bool(self.flags & SF_CONCEALED)

    @property
    def subject(self) -> str:
        """The tiles the item is about, in our notation (``777z``, ``[555p]`` for exposed)."""
        if self.tile is None:
            return ""
        if self.name == "bonus":
            return f"{self.tile} bonus tile{'s' if self.tile != 1 else ''}"
        if self.name == "own_bonus":
            return f"{self.tile + 1}f"
        if self.name in ("fishing_eyes",):
            return tile_name(self.tile)
        n = 2 if self.name == "pair" else 4 if self.flags & SF_KONG else 3
        name = tile_name(self.tile)
        text = name[0] * n + name[1]
        return text if self.concealed else f"[{text}]"

    @property
    def reason(self) -> str:
        """What the item scores for, in words, e.g. "concealed pung of majors"."""
        if self.name == "set":
            kind = "kong" if self.flags & SF_KONG else "pung"
            return (f"{'concealed' if self.concealed else 'exposed'} {kind} of "
                    f"{'majors' if _major(self.tile or 0) else 'minors'}")
        if self.name == "pair":
            if self.flags & PAIR_DRAGON:
                return "pair of dragons"
            if self.flags & PAIR_OWN and self.flags & PAIR_PREVAILING:
                return "pair of own and prevailing wind"
            return "pair of own wind" if self.flags & PAIR_OWN else "pair of prevailing wind"
        return _REASONS[self.name]

    def __str__(self) -> str:
        value = ("limit" if self.limit else f"{self.doubles} dbl" if self.doubles
                 else f"{self.points}")
        subject = self.subject
        return f"{subject + '  ' if subject else ''}{value}  ({self.reason})"

    def to_dict(self) -> dict[str, Any]:
        """The item as a JSON-ready dict: item, reason, tiles (when about tiles) and its limit,
        doubles or points.
        """
        return item_dict(self.name, self.reason, self.subject, self.limit, self.doubles,
                         self.points)


@dataclass(frozen=True)
class PlayerScore:
    """One hand's score: the items, basic ``points``, ``doubles``, ``uncapped`` (points x
    2^doubles, or the limit for a limit hand), ``score`` (capped at the limit) and whether
    it is a ``limit_hand``."""

    seat: int
    winner: bool
    items: tuple[Item, ...]
    points: int
    doubles: int
    uncapped: int
    score: int
    limit_hand: bool

    def to_dict(self) -> dict[str, Any]:
        """The score as a JSON-ready dict, with its items."""
        return player_dict(self, [i.to_dict() for i in self.items])


@dataclass(frozen=True)
class Payment:
    """``payer`` pays ``payee`` ``amount``; ``for_seat`` when paying another's debt."""

    payer: int
    payee: int
    amount: int
    for_seat: int | None = None


@dataclass(frozen=True)
class DealScore:
    """All four hands (by seat), the payments and each seat's net change (sums to zero)."""

    players: tuple[PlayerScore, PlayerScore, PlayerScore, PlayerScore]
    payments: tuple[Payment, ...]
    net: tuple[int, int, int, int]
    cannon: int | None
    rules: ClassicalRules = field(compare=False)

    def to_dict(self) -> dict[str, Any]:
        """The deal as a JSON-ready dict: players, payments (``for`` when one pays another's
        debt), net, cannon and the rules' name.
        """
        return deal_dict([p.to_dict() for p in self.players],
                         [payment_dict(p.payer, p.payee, p.amount, p.for_seat)
                          for p in self.payments],
                         self.net, self.cannon, self.rules.name)

    def to_json(self) -> str:
        """:meth:`to_dict` as a JSON string."""
        return json.dumps(self.to_dict())


# -- the JSON layout of a deal's score (DealScore.to_dict; the client builds it from the wire) --

_PLAYER_FIELDS = ("seat", "winner", "points", "doubles", "uncapped", "score", "limit_hand")


def item_dict(name: str, reason: str, tiles: str, limit: bool, doubles: int, points: int,
              ) -> dict[str, Any]:
    """An item: its name, reason, ``tiles`` (when it is about tiles, else "") and its limit,
    doubles or points."""
    d: dict[str, Any] = {"item": name, "reason": reason}
    if tiles:
        d["tiles"] = tiles
    if limit:
        d["limit"] = True
    elif doubles:
        d["doubles"] = doubles
    else:
        d["points"] = points
    return d


def player_dict(player: Any, items: list[dict[str, Any]]) -> dict[str, Any]:
    """A hand's score: the fields of ``PlayerScore`` read from ``player`` (a PlayerScore or
    its message), with ``items`` (``item_dict`` each)."""
    return {**{name: getattr(player, name) for name in _PLAYER_FIELDS}, "items": items}


def payment_dict(payer: int, payee: int, amount: int, for_seat: int | None) -> dict[str, Any]:
    """A payment; ``for`` only when the payer pays another's debt."""
    d: dict[str, Any] = {"payer": payer, "payee": payee, "amount": amount}
    if for_seat is not None:
        d["for"] = for_seat
    return d


def deal_dict(players: list[dict[str, Any]], payments: list[dict[str, Any]],
              net: Iterable[int], cannon: int | None, rules: str) -> dict[str, Any]:
    """A deal's score: players (``player_dict`` each), payments (``payment_dict`` each), net,
    cannon and the rules' name."""
    return {"players": players, "payments": payments, "net": list(net), "cannon": cannon,
            "rules": rules}


def _item(code: int, tile: int, flags: int, value: int) -> Item:
    name = ITEM_NAMES[code]
    t = None if tile == 255 else tile
    if code >= _FIRST_LIMIT:
        return Item(name, t, flags, limit=True)
    if code >= _FIRST_DOUBLE:
        return Item(name, t, flags, doubles=value)
    return Item(name, t, flags, points=value)


def classical_rules(rules: object) -> ClassicalRules:
    """The ClassicalRules of a preset name or a ClassicalRules; anything else is an
    InvalidRuleError."""
    if isinstance(rules, str):
        return ClassicalRules.preset(rules)
    if not isinstance(rules, ClassicalRules):
        raise InvalidRuleError(f"rules {rules!r}: expected a classical preset name or "
                               "ClassicalRules")
    return rules


def score_deal(deal: Deal, rules: ClassicalRules | str = "classical") -> DealScore:
    """Score all four hands of a finished deal and settle (§11). Raises InvalidHandError
    (with ``reason``) for an impossible deal or a winner whose hand is not complete."""
    rules = classical_rules(rules)
    (seats, prevailing, winner, win_tile, claim, pair, flags, discarder, cannon_seat,
     dead) = deal.kernel_args()
    status, players, owed, net, cannon = _k.score_deal_raw(
        seats, prevailing, winner, win_tile, claim, pair, flags, discarder, cannon_seat, dead,
        rules.scoring_params, sum(1 << s for s in deal.hidden))
    if status < 0:
        raise status_error(status, "classical deal")
    return _result(deal.winner, players, owed, net, cannon, rules)


def _result(winner: int, players: Sequence[Any], owed: Sequence[Sequence[int]],
            net: Sequence[int], cannon: int, rules: ClassicalRules) -> DealScore:
    scores = tuple(
        PlayerScore(seat=s, winner=s == winner,
                    items=tuple(_item(*it) for it in p[5]), points=p[0], doubles=p[1],
                    uncapped=p[2], score=p[3], limit_hand=bool(p[4]))
        for s, p in enumerate(players))
    payments: list[Payment] = []
    for s in range(4):
        if s != winner and owed[s][winner]:
            if cannon >= 0:
                payments.append(Payment(cannon, winner, owed[s][winner],
                                        None if s == cannon else s))
            else:
                payments.append(Payment(s, winner, owed[s][winner]))
    if cannon < 0:
        for a in range(4):
            for b in range(4):
                if a != winner and b != winner and owed[a][b]:
                    payments.append(Payment(a, b, owed[a][b]))
    return DealScore(scores, tuple(payments), tuple(net),  # type: ignore[arg-type]
                     None if cannon < 0 else cannon, rules)


def format_deal_score(result: DealScore, names: Iterable[str] = ("East", "South", "West",
                                                                  "North")) -> str:
    """A readable breakdown: each hand item by item, then the payments and net changes."""
    names = list(names)
    lines: list[str] = []
    for p in result.players:
        lines.append(f"{names[p.seat]}{' (winner)' if p.winner else ''}:")
        for it in p.items:
            lines.append(f"    {it}")
        if p.limit_hand:
            lines.append(f"    limit hand: {p.score}")
        else:
            over = (f", {p.uncapped} over the limit" if p.uncapped != p.score else "")
            lines.append(f"    {p.points} points x 2^{p.doubles} = {p.score}{over}")
    lines.append("Payments:")
    for pay in result.payments:
        extra = f" (for {names[pay.for_seat]})" if pay.for_seat is not None else ""
        lines.append(f"    {names[pay.payer]} pays {names[pay.payee]} {pay.amount}{extra}")
    lines.append("Net: " + ", ".join(f"{names[s]} {v:+d}" for s, v in enumerate(result.net)))
    return "\n".join(lines)


__all__ = [
    "CLAIMS",
    "ITEM_NAMES",
    "WIN_FLAGS",
    "Deal",
    "DealScore",
    "Item",
    "Payment",
    "PlayerHand",
    "PlayerScore",
    "deal_dict",
    "format_deal_score",
    "item_dict",
    "payment_dict",
    "player_dict",
    "score_deal",
]
