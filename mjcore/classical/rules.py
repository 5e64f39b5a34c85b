"""Chinese classical rule options as one immutable value, with named presets.

Every option of chinese-classical.md §13 is a field of :class:`ClassicalRules`, plus the few
options of Bradfield's ``mj-server`` 1.11 that §13 does not name (``dead_wall="none"``,
``bonus_tiles``, ``add_to_claimed_pung``, ``show_on_washout``, ``losers_purity``). The
scorer, the batch kernel, the game engine and the service read their options from this one
value. Build one with :meth:`ClassicalRules.preset`, :meth:`ClassicalRules.replace` or
:meth:`ClassicalRules.from_bradfield_options` (the ``GameOption`` lines of a hand history).

| option | classical (default) | bradfield (mj-server 1.11) |
| --- | --- | --- |
| seating | dice | fixed (order of connection) |
| rounds / agreed_hands | 4 / 0 | 4 / 0 |
| wall_profile | seed003 | seed003 |
| dead_wall | 14_unreplenished | **14_replenished** |
| bonus_tiles | True | True |
| bonus_replacement | loose | **live_wall** |
| multiple_mahjong | first | first |
| rob_concealed_kong | never | **thirteen_wonders** |
| seven_pairs / seven_pairs_points | False / 20 | False / 20 |
| fishing_call | False | False |
| original_call | True | True |
| add_to_claimed_pung | False | **True** |
| minimum_doubles | 0 | 0 |
| washout_passes_deal | False | False |
| thirteenth_win_passes_deal | False | **True** |
| show_on_washout | False | False |
| start_points | 2000 | **0** |
| limit / no_limit | 1000 / False | 1000 / False |
| mahjong_points | 20 | 20 |
| own_bonus_double | both | both |
| bouquet_doubles | 1 | 1 |
| concealed_hand | fully_1 | fully_1 |
| kong_has_3_types | False | False |
| losers_purity | False | False |
| tile_specific_limits | plum_blossom, moon, carrying_pole, imperial_jade | the same |
| moon_on_last_discard | True | **False** |
| thirteenth_win_limit | True | True |
| wriggling_snake | False | False |
| losers_settle | True | True |
| east_doubles | True | True |
| discarder_pays_double | False | False |
| cannon_liability | False | **True** |
| false_mahjong_penalty | reject | reject |
| last_discard_claims | mahjong | **any** |
| loose_tile_wall_points | True | **False** |
| scholars_need_no_chows | False | **True** |
| buried_treasure_discard_pair | True | **False** |

Option values:

- ``seating``: "dice" (§2.1), "wind_discs", "fixed" (seats as given).
- ``rounds``: 1, 2 (East and South) or a multiple of 4; ``agreed_hands`` > 0 ends the game
  after that many hands instead.
- ``wall_profile``: "seed003" (break at the sum of both throws) or "seed001" (second throw).
- ``dead_wall``: "14_unreplenished" (seed 003, British), "14_replenished" (seed 001: two live
  tiles move onto the dead wall when the loose pair is used), "16_unreplenished"
  (Millington), "none" (every tile may be drawn; Bradfield's DeadWall unset).
- ``bonus_replacement``: "loose" (a loose tile) or "live_wall" (the next live tile).
- ``multiple_mahjong``: "first" / "last" claimant in turn order after the discarder, or
  "all" (every claimant wins, each paid by the discarder).
- ``rob_concealed_kong``: "never" or "thirteen_wonders" (mj-server: "Can only rob a closed kong
  for Thirteen Wonders").
- ``thirteenth_win_passes_deal``: after East's 13th consecutive Mah-Jong the deal passes to
  South (mj-server); off, East keeps it as after any win of his (§10).
- ``seven_pairs``: seven pairs is a winning hand, scoring ``seven_pairs_points`` on top of
  ``mahjong_points``.
- ``own_bonus_double``: "both" (own flower and own season together: 1 double) or "each"
  (each own bonus tile: 1 double). ``bouquet_doubles``: doubles for all four flowers, and
  again for all four seasons.
- ``concealed_hand``: "fully_1" (fully concealed winner: 1 double) or "fully_3_semi_1"
  (3 doubles; concealed until the winning discard: 1 double).
- ``tile_specific_limits``: the enabled subset of "plum_blossom", "moon", "carrying_pole",
  "imperial_jade"; ``thirteenth_win_limit`` and ``wriggling_snake`` are separate switches.
- ``moon_on_last_discard``: Catching the Moon also when the 1 of dots is the last discard
  (§11.7, as rules.txt says mj-server does); off, only as the last tile of the live wall.
  mj-server 1.11 scores it off: in the 300 shipped games all 3 wins on a last-discard 1 of
  dots are ordinary hands, and the one drawn as the last tile is the limit.
- ``limit``: the hand limit (any positive int; 1000, 500 and 300 are the usual ones).
  ``no_limit``: hands are not capped and ``limit`` is only the value of a limit hand (a hand
  still stops at 100,000,000 points, so that every settlement stays exact).
- ``false_mahjong_penalty``: "reject" (the engine refuses it) or "half_limit" (Harr).
- ``last_discard_claims``: what a discard made after the live wall ran out may be claimed for:
  "mahjong" only (§5.3) or "any" claim (mj-server lets a pung, kong or chow be claimed; the
  claimant then discards again).
- ``losers_purity`` (Bradfield's LosersPurity) is refused when True: not implemented.
- ``loose_tile_wall_points``: a winning loose tile also scores the 2 points for a tile drawn
  "from the wall" (§11.4); mj-server gives them only for a tile from the live wall.
- ``scholars_need_no_chows``: Three Great Scholars needs a hand without chows (Millington,
  and mj-server); §11.7 does not check it.
- ``buried_treasure_discard_pair``: Buried Treasure may be completed by a discard that makes
  the pair (§11.7); mj-server wants the whole hand concealed ("all concealed and no chows").
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple

from ..errors import InvalidRuleError
from ..options import RuleOptions, names_option

TILE_SPECIFIC_LIMITS = ("plum_blossom", "moon", "carrying_pole", "imperial_jade")

# The packed scoring parameters (``ClassicalRules.scoring_params``), in the field order of
# the C struct ``ClassicalRulesC`` (mjcore/_core/classical_scoring.pxd).
SCORING_PARAM_NAMES = (
    "limit", "no_limit", "mahjong_points", "seven_pairs", "seven_pairs_points",
    "own_each_doubles", "own_both_doubles", "bouquet_doubles", "concealed_fully_doubles",
    "concealed_almost_doubles", "kong_has_3_types", "limit_flags", "losers_settle",
    "east_doubles", "discarder_pays_double", "cannon_liability", "original_call",
    "loose_tile_wall_points", "scholars_need_no_chows", "buried_treasure_discard_pair",
    "moon_on_last_discard",
)

# bits of ``limit_flags``
LIMIT_PLUM_BLOSSOM = 1
LIMIT_MOON = 2
LIMIT_CARRYING_POLE = 4
LIMIT_IMPERIAL_JADE = 8
LIMIT_THIRTEENTH_WIN = 16
LIMIT_WRIGGLING_SNAKE = 32


# Upper bounds, so that scores and settlements stay exact in the kernel's 32-bit integers.
_MOST: dict[str, int] = {
    "start_points": 10**9, "limit": 10**7, "mahjong_points": 10**4, "seven_pairs_points": 10**4,
    "bouquet_doubles": 8, "agreed_hands": 10**4, "rounds": 64,
}


@dataclass(frozen=True, repr=False)
class ClassicalRules(RuleOptions):
    """Every Chinese classical rule option (chinese-classical.md §13). Immutable.

    >>> ClassicalRules.preset("bradfield").cannon_liability
    True
    >>> ClassicalRules.preset("classical").replace(seven_pairs=True).seven_pairs
    True
    """

    seating: str = "dice"
    rounds: int = 4
    agreed_hands: int = 0
    wall_profile: str = "seed003"
    dead_wall: str = "14_unreplenished"
    bonus_tiles: bool = True
    bonus_replacement: str = "loose"
    multiple_mahjong: str = "first"
    rob_concealed_kong: str = "never"
    seven_pairs: bool = False
    seven_pairs_points: int = 20
    fishing_call: bool = False
    original_call: bool = True
    add_to_claimed_pung: bool = False
    minimum_doubles: int = 0
    washout_passes_deal: bool = False
    thirteenth_win_passes_deal: bool = False
    show_on_washout: bool = False
    start_points: int = 2000
    limit: int = 1000
    no_limit: bool = False
    mahjong_points: int = 20
    own_bonus_double: str = "both"
    bouquet_doubles: int = 1
    concealed_hand: str = "fully_1"
    kong_has_3_types: bool = False
    losers_purity: bool = False
    tile_specific_limits: tuple[str, ...] = TILE_SPECIFIC_LIMITS
    moon_on_last_discard: bool = True
    thirteenth_win_limit: bool = True
    wriggling_snake: bool = False
    losers_settle: bool = True
    east_doubles: bool = True
    discarder_pays_double: bool = False
    cannon_liability: bool = False
    false_mahjong_penalty: str = "reject"
    last_discard_claims: str = "mahjong"
    loose_tile_wall_points: bool = True
    scholars_need_no_chows: bool = False
    buried_treasure_discard_pair: bool = True
    name: str = field(default="custom", compare=False)

    _LABEL: ClassVar[str] = "classical rule"
    _DEFAULT_PRESET: ClassVar[str] = "classical"
    _CHOICES: ClassVar[dict[str, tuple[Any, ...]]] = {
        "seating": ("dice", "wind_discs", "fixed"),
        "wall_profile": ("seed003", "seed001"),
        "dead_wall": ("14_unreplenished", "14_replenished", "16_unreplenished", "none"),
        "bonus_replacement": ("loose", "live_wall"),
        "multiple_mahjong": ("first", "last", "all"),
        "rob_concealed_kong": ("never", "thirteen_wonders"),
        "minimum_doubles": (0, 1),
        "own_bonus_double": ("both", "each"),
        "concealed_hand": ("fully_1", "fully_3_semi_1"),
        "false_mahjong_penalty": ("reject", "half_limit"),
        "last_discard_claims": ("mahjong", "any"),
    }
    _NON_NEGATIVE: ClassVar[tuple[str, ...]] = (
        "agreed_hands", "seven_pairs_points", "mahjong_points", "bouquet_doubles", "start_points")

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            if f.name in ("name", "tile_specific_limits"):
                continue
            value = getattr(self, f.name)
            if f.name in self._CHOICES:
                if value not in self._CHOICES[f.name] or type(value) is bool:
                    raise InvalidRuleError(
                        f"classical rule option {f.name}={value!r}: expected one of "
                        f"{', '.join(map(repr, self._CHOICES[f.name]))}")
            elif f.type in ("bool", bool):
                if not isinstance(value, bool):
                    raise InvalidRuleError(
                        f"classical rule option {f.name}={value!r}: expected True/False")
            elif not isinstance(value, int) or isinstance(value, bool):
                raise InvalidRuleError(f"classical rule option {f.name}={value!r}: expected an int")
        for name in self._NON_NEGATIVE:
            if getattr(self, name) < 0:
                raise InvalidRuleError(
                    f"classical rule option {name}={getattr(self, name)!r}: expected >= 0")
        for name, most in _MOST.items():
            if getattr(self, name) > most:
                raise InvalidRuleError(
                    f"classical rule option {name}={getattr(self, name)!r}: expected <= {most}")
        if self.limit <= 0:
            raise InvalidRuleError(f"classical rule option limit={self.limit!r}: expected > 0")
        if not (self.rounds in (1, 2) or (self.rounds > 0 and self.rounds % 4 == 0)):
            raise InvalidRuleError(
                f"classical rule option rounds={self.rounds!r}: expected 1, 2 or a multiple of 4")
        object.__setattr__(self, "tile_specific_limits", names_option(
            self._LABEL, "tile_specific_limits", self.tile_specific_limits,
            TILE_SPECIFIC_LIMITS))
        if self.losers_purity:
            raise InvalidRuleError(
                "classical rule option losers_purity=True is not implemented (Bradfield calls "
                "it an Americanism alien to Chinese Classical; chinese-classical.md has no such "
                "option)")
        object.__setattr__(self, "_scoring", self._pack_scoring())

    # -- construction -------------------------------------------------------------------

    @classmethod
    def from_bradfield_options(cls, options: Mapping[str, int | str]) -> ClassicalRules:
        """The rules of a Bradfield game from its ``GameOption`` values (name -> value, the
        raw integer of the VALUE field). Options not given keep their mj-server 1.11
        defaults. Unknown names, and values this library does not implement, raise
        InvalidRuleError naming them. ``Timeout``, ``TimeoutGrace`` and ``End`` are server
        housekeeping, not rules, and are ignored."""
        base = _PRESETS["bradfield"]
        unknown = sorted(set(options) - _BRADFIELD_NAMES)
        if unknown:
            raise InvalidRuleError(f"unknown Bradfield game option(s): {', '.join(unknown)}")
        opts: dict[str, Any] = {}
        for option in _BRADFIELD_OPTIONS:
            if any(n in options for n in option.names):
                value = option.read(options, *option.names)
                if value is not None:
                    opts[option.key] = value
        rules = base.replace(**opts)
        if rules == base:
            return base
        return rules

    # -- the scoring kernel's view ----------------------------------------------------------

    def _pack_scoring(self) -> tuple[int, ...]:
        """The scoring options as small ints, in the order of ``SCORING_PARAM_NAMES``."""
        flags = 0
        for name, bit in (("plum_blossom", LIMIT_PLUM_BLOSSOM), ("moon", LIMIT_MOON),
                          ("carrying_pole", LIMIT_CARRYING_POLE),
                          ("imperial_jade", LIMIT_IMPERIAL_JADE)):
            if name in self.tile_specific_limits:
                flags |= bit
        if self.thirteenth_win_limit:
            flags |= LIMIT_THIRTEENTH_WIN
        if self.wriggling_snake:
            flags |= LIMIT_WRIGGLING_SNAKE
        fully, almost = (1, 0) if self.concealed_hand == "fully_1" else (3, 1)
        each, both = (0, 1) if self.own_bonus_double == "both" else (1, 0)
        return (self.limit, int(self.no_limit), self.mahjong_points, int(self.seven_pairs),
                self.seven_pairs_points, each, both, self.bouquet_doubles, fully, almost,
                int(self.kong_has_3_types), flags, int(self.losers_settle),
                int(self.east_doubles), int(self.discarder_pays_double),
                int(self.cannon_liability), int(self.original_call),
                int(self.loose_tile_wall_points), int(self.scholars_need_no_chows),
                int(self.buried_treasure_discard_pair), int(self.moon_on_last_discard))


# ---- Bradfield's GameOption lines: a reader per option -----------------------------------

_Options = Mapping[str, int | str]


class _BradfieldOption(NamedTuple):
    """GameOption ``names`` read together, when any is given: ``read(options, *names)`` is
    the value of the field ``key`` (None keeps the preset's)."""

    names: tuple[str, ...]
    key: str
    read: Callable[..., object]


def _flag(options: _Options, name: str) -> bool:
    v = options[name]
    if v not in (0, 1):
        raise InvalidRuleError(f"Bradfield game option {name}={v!r}: expected 0 or 1")
    return bool(v)


def _score(options: _Options, name: str) -> tuple[int, int, int]:
    v = options[name]
    if not isinstance(v, int) or v < 0:
        raise InvalidRuleError(f"Bradfield game option {name}={v!r}: expected a score")
    return v // 1000000, v // 10000 % 100, v % 10000   # centi-limits, doubles, points


def _points_only(options: _Options, name: str) -> int:
    c, d, p = _score(options, name)
    if c or d:
        raise InvalidRuleError(
            f"Bradfield game option {name}={options[name]!r}: only points are supported")
    return p


def _doubles_only(options: _Options, name: str) -> int:
    c, d, p = _score(options, name)
    if c or p:
        raise InvalidRuleError(
            f"Bradfield game option {name}={options[name]!r}: only doubles are supported")
    return d


def _as_given(options: _Options, name: str) -> int | str:
    """The field's value as given (ClassicalRules checks it)."""
    return options[name]


def _bonus_replacement(options: _Options, name: str) -> str:
    """FlowersLoose: bonus tiles replaced by loose tiles, else from the live wall."""
    return "loose" if _flag(options, name) else "live_wall"


def _dead_wall(options: _Options, dead_wall: str, dead_wall16: str) -> str | None:
    """DeadWall 0: none; else DeadWall16 1: 16 tiles unreplenished, 0: 14 replenished."""
    present, sixteen = (_flag(options, n) if n in options else None
                        for n in (dead_wall, dead_wall16))
    if present is False:
        return "none"
    if sixteen is not None:
        return "16_unreplenished" if sixteen else "14_replenished"
    return None


def _doubles_pair(names: tuple[str, str], defaults: tuple[int, int], key: str,
                  values: dict[tuple[int, int], str]) -> _BradfieldOption:
    """Two options read together into the choice ``key``: their doubles (the default for
    one not given) must be one of the pairs ``values`` maps."""

    def read(options: _Options, first: str, second: str) -> str:
        pair = tuple(_doubles_only(options, n) if n in options else d
                     for n, d in zip((first, second), defaults, strict=True))
        if pair not in values:
            known = " and ".join(f"{a}/{b} ({key}={v!r})" for (a, b), v in values.items())
            raise InvalidRuleError(f"Bradfield game options {first}/{second} = "
                                   f"{pair[0]}/{pair[1]} doubles: only {known} are supported")
        return values[pair]

    return _BradfieldOption(names, key, read)


# in the order they are checked (the first bad option is the one named)
_BRADFIELD_OPTIONS = (
    *(_BradfieldOption((name,), key, _flag) for name, key in (
        ("NoLimit", "no_limit"), ("SevenPairs", "seven_pairs"), ("Flowers", "bonus_tiles"),
        ("KongHas3Types", "kong_has_3_types"), ("EastDoubles", "east_doubles"),
        ("LosersSettle", "losers_settle"), ("DiscDoubles", "discarder_pays_double"),
        ("ShowOnWashout", "show_on_washout"), ("LosersPurity", "losers_purity"))),
    _BradfieldOption(("ScoreLimit",), "limit", _as_given),
    _BradfieldOption(("MahJongScore",), "mahjong_points", _points_only),
    _BradfieldOption(("SevenPairsVal",), "seven_pairs_points", _points_only),
    _BradfieldOption(("FlowersLoose",), "bonus_replacement", _bonus_replacement),
    _BradfieldOption(("DeadWall", "DeadWall16"), "dead_wall", _dead_wall),
    _doubles_pair(("FlowersOwnEach", "FlowersOwnBoth"), (0, 1), "own_bonus_double",
                  {(0, 1): "both", (1, 0): "each"}),
    _BradfieldOption(("FlowersBouquet",), "bouquet_doubles", _doubles_only),
    _doubles_pair(("ConcealedFully", "ConcealedAlmost"), (1, 0), "concealed_hand",
                  {(1, 0): "fully_1", (3, 1): "fully_3_semi_1"}),
    _BradfieldOption(("NumRounds",), "rounds", _as_given),
)
# every GameOption name: the rules' and the server's housekeeping (ignored)
_BRADFIELD_NAMES = frozenset(("Timeout", "TimeoutGrace", "End")).union(
    *(option.names for option in _BRADFIELD_OPTIONS))

_PRESETS: dict[str, ClassicalRules] = {
    "classical": ClassicalRules(name="classical"),
    "bradfield": ClassicalRules(
        seating="fixed", dead_wall="14_replenished", bonus_replacement="live_wall",
        rob_concealed_kong="thirteen_wonders",
        add_to_claimed_pung=True, start_points=0, cannon_liability=True,
        loose_tile_wall_points=False, scholars_need_no_chows=True,
        buried_treasure_discard_pair=False, last_discard_claims="any",
        thirteenth_win_passes_deal=True, moon_on_last_discard=False, name="bradfield"),
}
ClassicalRules._PRESETS = _PRESETS


def winning_forms(rules: ClassicalRules) -> int:
    """The kernels' winning-form set of these rules (chinese-classical.md §7: four sets and a
    pair, Thirteen Unique Wonders, and any seven pairs with the ``seven_pairs`` option): the
    game registry's (``mjcore.games``) answer for a ClassicalRules."""
    from .._core.shanten import CLASSICAL, CLASSICAL_SEVEN_PAIRS

    return int(CLASSICAL_SEVEN_PAIRS if rules.seven_pairs else CLASSICAL)


def kinds_in_play(rules: ClassicalRules) -> int:
    """The tile kinds of the classical set (every one of the 34; the bonus tiles are apart)."""
    return (1 << 34) - 1
