"""Riichi rule options as one immutable value, with named presets.

Every option of riichi.md §16 is a field of :class:`RuleSet`. The scoring kernel, the
game engine and the gRPC service all read their options from this one object.

| option | tenhou (default) | ema | wrc |
| --- | --- | --- | --- |
| players | 4 | 4 | 4 |
| nukidora | False | False | False |
| seating | wind_draw | wind_draw | wind_draw |
| red_fives | 3 | 0 | 0 |
| kuitan | True | True | True |
| atozuke | True | True | True |
| kuikae | forbidden | forbidden | forbidden |
| multiple_ron | double | triple | atamahane |
| multi_ron_sticks | nearest | nearest | nearest |
| kazoe | True | False (sanbaiman cap) | False (sanbaiman cap) |
| kiriage | False | False | True |
| yakuman_stacking | composite | single | single |
| renhou | off | mangan | mangan |
| double_wind_pair_fu | 4 | 4 | 4 |
| rinshan_tsumo_fu | True | True | True |
| open_pinfu_30fu | True | True | True |
| kan_dora_timing | tenhou | immediate | tenhou |
| kokushi_chankan_ankan | False | False | False |
| riichi_requires_1000 | True | True | True |
| riichi_ankan | strict | strict | strict |
| kyuushu_kyuuhai, suufon_renda, suucha_riichi, suukaikan, sanchahou | True | False | False |
| nagashi_mangan | draw_settlement | off | off |
| pao | daisangen, daisuushii | daisangen, daisuushii | daisangen, daisuushii |
| renchan | tenpai | tenpai | tenpai |
| tenpai_declaration | automatic | optional | automatic |
| chombo | reverse_mangan | points_20000 | points_20000 |
| ryanhan_shibari | False | False | False |
| game_length | hanchan | hanchan | hanchan |
| start_points / target_points | 25000 / 30000 | 30000 / 30000 | 30000 / 30000 |
| tobi | True | False | True |
| agari_yame | True | False | False |
| tenpai_yame | True | False | False |
| west_extension | True | False | False |
| west_sudden_death | True | True | True |
| leftover_sticks | first_place | first_place | lost |
| uma / oka | (20000, 10000, -10000, -20000) / 20000 | (15000, 5000, -5000, -15000) / 0 | as ema |
| final_rounding | tenhou | exact | exact |
| ryuuiisou_needs_hatsu | False | False | False |

``tenhou_sanma`` (three-player riichi as Tenhou plays it, checked against 534 real games; see
mjcore/riichi/sanma.md) is ``tenhou`` with these options changed:

| option | tenhou_sanma |
| --- | --- |
| players | 3 |
| nukidora | True |
| red_fives | 2 |
| suufon_renda, suucha_riichi, sanchahou | False (they need four players) |
| start_points / target_points | 35000 / 40000 |
| uma / oka | (20000, 0, -20000, 0) / 15000 |

Option values: ``multiple_ron`` "double" (two winners; a triple ron is sanchahou when that
draw is on, else allowed), "triple" (two or three winners), "atamahane" (nearest claimant
only); ``players`` 4, or 3 for three-player riichi (sanma: no 2m-8m, no chi, a tsumo paid by
the two others without the absent player's share, honba 100 per payer, dora indicator 1m points
to 9m; see mjcore/riichi/sanma.md); ``nukidora`` (sanma only): north is set aside as a bonus
dora; ``red_fives`` 2 is sanma's one red 5p and one red 5s; ``yakuman_stacking``
"composite" (different yakuman add up), "single" (one yakuman at
most), "double" (composite, and 13-wait kokushi, suuankou tanki, junsei chuuren and
daisuushii count double); ``renhou`` "off", "mangan" (a 5-han yaku), "yakuman";
``tenpai_yame`` (with ``agari_yame``): a dealer tenpai and first at the all-last
exhaustive draw also ends the game (Tenhou's 2009-2010 lobbies played on). ``west_sudden_death``:
the extension ends after the first hand that leaves anyone at the target, even when the dealer
repeats (riichi.md §15.4 (4)); False plays a dealer repeat on, as Tenhou's lobbies do.
``nagashi_mangan`` "draw_settlement", "mangan_tsumo" (paid like a mangan tsumo with honba),
"off"; ``pao`` a subset of {"daisangen", "daisuushii", "suukantsu"}; ``final_rounding``
"tenhou" (every final score but first place's rounded to a whole thousand, halves away from
zero; first place takes the balance, which includes the oka) or "exact". ``atozuke`` is True
only (False is refused as not implemented). ``chombo`` is kept for records: the engine offers
only legal declarations, so it never produces a chombo.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..errors import InvalidRuleError
from ..options import RuleOptions, names_option

_PAO_NAMES = ("daisangen", "daisuushii", "suukantsu")


@dataclass(frozen=True, repr=False)
class RuleSet(RuleOptions):
    """Every riichi rule option (riichi.md §16). Build with :meth:`preset` and :meth:`replace`."""

    players: int = 4
    nukidora: bool = False        # sanma: north set aside as dora (players=3 only)
    seating: str = "wind_draw"
    red_fives: int = 3
    kuitan: bool = True
    atozuke: bool = True
    kuikae: str = "forbidden"
    multiple_ron: str = "double"
    multi_ron_sticks: str = "nearest"
    kazoe: bool = True
    kiriage: bool = False
    yakuman_stacking: str = "composite"
    renhou: str = "off"
    double_wind_pair_fu: int = 4
    rinshan_tsumo_fu: bool = True
    open_pinfu_30fu: bool = True
    kan_dora_timing: str = "tenhou"
    kokushi_chankan_ankan: bool = False
    riichi_requires_1000: bool = True
    riichi_ankan: str = "strict"
    kyuushu_kyuuhai: bool = True
    suufon_renda: bool = True
    suucha_riichi: bool = True
    suukaikan: bool = True
    sanchahou: bool = True
    nagashi_mangan: str = "draw_settlement"
    pao: tuple[str, ...] = ("daisangen", "daisuushii")
    renchan: str = "tenpai"
    tenpai_declaration: str = "automatic"
    chombo: str = "reverse_mangan"
    ryanhan_shibari: bool = False
    game_length: str = "hanchan"
    start_points: int = 25000
    target_points: int = 30000
    tobi: bool = True
    agari_yame: bool = True
    tenpai_yame: bool = True      # with agari_yame: a tenpai dealer at a draw ends it too
    west_extension: bool = True
    west_sudden_death: bool = True   # False: a dealer repeat in the extension plays on
    leftover_sticks: str = "first_place"
    uma: tuple[int, int, int, int] = (20000, 10000, -10000, -20000)
    oka: int = 20000
    final_rounding: str = "tenhou"
    ryuuiisou_needs_hatsu: bool = False
    name: str = field(default="custom", compare=False)

    _LABEL: ClassVar[str] = "rule"
    _DEFAULT_PRESET: ClassVar[str] = "tenhou"
    _CHOICES: ClassVar[dict[str, tuple[Any, ...]]] = {
        "seating": ("wind_draw", "random", "fixed"),
        "players": (3, 4),
        "red_fives": (0, 2, 3, 4),
        "kuikae": ("forbidden", "allowed"),
        "multiple_ron": ("double", "triple", "atamahane"),
        "multi_ron_sticks": ("nearest", "each"),
        "yakuman_stacking": ("composite", "single", "double"),
        "renhou": ("off", "mangan", "yakuman"),
        "double_wind_pair_fu": (2, 4),
        "kan_dora_timing": ("tenhou", "immediate"),
        "riichi_ankan": ("strict", "waits_unchanged", "never"),
        "nagashi_mangan": ("draw_settlement", "mangan_tsumo", "off"),
        "renchan": ("tenpai", "agari"),
        "tenpai_declaration": ("automatic", "optional"),
        "chombo": ("reverse_mangan", "points_20000"),
        "game_length": ("hanchan", "tonpuusen"),
        "leftover_sticks": ("first_place", "lost"),
        "final_rounding": ("tenhou", "exact"),
    }

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            if f.name == "name":
                continue
            value = getattr(self, f.name)
            if f.name in self._CHOICES:
                if value not in self._CHOICES[f.name] or type(value) is bool:
                    raise InvalidRuleError(
                        f"rule option {f.name}={value!r}: expected one of "
                        f"{', '.join(map(repr, self._CHOICES[f.name]))}")
            elif f.type in ("bool", bool) and not isinstance(value, bool):
                raise InvalidRuleError(f"rule option {f.name}={value!r}: expected True/False")
            elif f.name in ("start_points", "target_points", "oka") and (
                    not isinstance(value, int) or isinstance(value, bool) or value < 0):
                raise InvalidRuleError(
                    f"rule option {f.name}={value!r}: expected a non-negative int")
        if self.players == 3 and self.red_fives not in (0, 2):
            raise InvalidRuleError(
                f"rule option red_fives={self.red_fives!r} with players=3: sanma has no 5m, "
                "so 0 or 2 (one red 5p, one red 5s)")
        if self.players == 4 and self.red_fives == 2:
            raise InvalidRuleError("rule option red_fives=2 is sanma's (players=3) only")
        if self.nukidora and self.players != 3:
            raise InvalidRuleError("rule option nukidora=True needs players=3")
        if self.atozuke is False:
            raise InvalidRuleError(
                "rule option atozuke=False is not implemented: the engine lets the winning tile "
                "complete the yaku (riichi.md §16 lists 'off' as an alternative only)")
        object.__setattr__(self, "pao", names_option(self._LABEL, "pao", self.pao, _PAO_NAMES))
        uma = self.uma
        values = tuple(uma) if isinstance(uma, Iterable) and not isinstance(uma, (str, bytes)) \
            else ()
        if len(values) != 4 or not all(isinstance(u, int) and not isinstance(u, bool)
                                       for u in values):
            raise InvalidRuleError(f"rule option uma={uma!r}: expected four ints")
        object.__setattr__(self, "uma", values)
        object.__setattr__(self, "_scoring", self._pack_scoring())

    def _pack_scoring(self) -> tuple[int, ...]:
        """The scoring-relevant options as small ints, in the field order of the C struct
        ``RulesC`` (mjcore/_core/scoring.pxd)."""
        pao_bits = sum(1 << i for i, p in enumerate(_PAO_NAMES) if p in self.pao)
        return (
            int(self.kuitan),
            self.red_fives,
            int(self.kazoe),
            int(self.kiriage),
            ("single", "composite", "double").index(self.yakuman_stacking),
            ("off", "mangan", "yakuman").index(self.renhou),
            self.double_wind_pair_fu,
            2 if self.rinshan_tsumo_fu else 0,
            int(self.open_pinfu_30fu),
            int(self.ryuuiisou_needs_hatsu),
            pao_bits,
            self.players,
            int(self.nukidora),
        )


_ABORTIVE_OFF: dict[str, Any] = {"kyuushu_kyuuhai": False, "suufon_renda": False,
                                 "suucha_riichi": False, "suukaikan": False, "sanchahou": False}

_PRESETS: dict[str, RuleSet] = {
    "tenhou": RuleSet(name="tenhou"),
    "ema": RuleSet(
        name="ema", red_fives=0, multiple_ron="triple", kazoe=False, yakuman_stacking="single",
        renhou="mangan", kan_dora_timing="immediate", nagashi_mangan="off",
        tenpai_declaration="optional", chombo="points_20000", start_points=30000,
        target_points=30000, tobi=False, agari_yame=False, tenpai_yame=False,
        west_extension=False, uma=(15000, 5000, -5000, -15000), oka=0, final_rounding="exact",
        **_ABORTIVE_OFF),
    "wrc": RuleSet(
        name="wrc", red_fives=0, multiple_ron="atamahane", kazoe=False, kiriage=True,
        yakuman_stacking="single", renhou="mangan", nagashi_mangan="off",
        chombo="points_20000", start_points=30000, target_points=30000, agari_yame=False,
        tenpai_yame=False, west_extension=False, leftover_sticks="lost",
        uma=(15000, 5000, -5000, -15000), oka=0,
        final_rounding="exact", **_ABORTIVE_OFF),
    "tenhou_sanma": RuleSet(
        name="tenhou_sanma", players=3, nukidora=True, red_fives=2, suufon_renda=False,
        suucha_riichi=False, sanchahou=False, start_points=35000, target_points=40000,
        uma=(20000, 0, -20000, 0), oka=15000),
}
RuleSet._PRESETS = _PRESETS

DEFAULT_RULES = _PRESETS["tenhou"]


def winning_forms(rules: RuleSet) -> int:
    """The kernels' winning-form set of riichi (standard, chiitoitsu, kokushi): the game
    registry's (``mjcore.games``) answer for a RuleSet."""
    from .._core.shanten import RIICHI

    return int(RIICHI)


# the 34 tile kinds as bits (bit k = kind k); three-player riichi has no 2m-8m (kinds 1..7)
ALL_KINDS = (1 << 34) - 1
SANMA_KINDS = ALL_KINDS & ~(0x7F << 1)


def kinds_in_play(rules: RuleSet) -> int:
    """The tile kinds of the rules' set (the game registry's answer for a RuleSet): every
    kind, or without 2m-8m for three players."""
    return SANMA_KINDS if rules.players == 3 else ALL_KINDS


__all__ = ["ALL_KINDS", "DEFAULT_RULES", "SANMA_KINDS", "RuleSet", "kinds_in_play",
           "winning_forms"]
