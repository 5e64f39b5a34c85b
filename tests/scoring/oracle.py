"""Run the PyPI ``mahjong`` package (2.x) on a RandomWin, with options aligned to a RuleSet."""
from __future__ import annotations

from typing import Any

from mahjong.hand_calculating.hand import HandCalculator
from mahjong.hand_calculating.hand_config import HandConfig, HandConstants, OptionalRules
from mahjong.meld import Meld

from .random_hands import CHI, KAN_CLOSED, PON, RandomWin

YAKU_ID = {
    "Tsumo": 0, "Riichi": 1, "Ippatsu": 2, "Chankan": 3, "Rinshan": 4, "Haitei": 5,
    "Houtei": 6, "Pinfu": 7, "Tanyao": 8, "Iipeiko": 9, "SeatWindEast": 10,
    "SeatWindSouth": 11, "SeatWindWest": 12, "SeatWindNorth": 13, "RoundWindEast": 14,
    "RoundWindSouth": 15, "RoundWindWest": 16, "RoundWindNorth": 17, "Haku": 18, "Hatsu": 19,
    "Chun": 20, "DaburuRiichi": 21, "Chiitoitsu": 22, "Chantai": 23, "Ittsu": 24,
    "Sanshoku": 25, "SanshokuDoukou": 26, "SanKantsu": 27, "Toitoi": 28, "Sanankou": 29,
    "Shosangen": 30, "Honroto": 31, "Ryanpeikou": 32, "Junchan": 33, "Honitsu": 34,
    "Chinitsu": 35, "Renhou": 36, "RenhouYakuman": 36, "Tenhou": 37, "Chiihou": 38,
    "Daisangen": 39, "Suuankou": 40, "SuuankouTanki": 41, "Tsuuiisou": 42, "Ryuuiisou": 43,
    "Chinroutou": 44, "ChuurenPoutou": 45, "DaburuChuurenPoutou": 46, "KokushiMusou": 47,
    "DaburuKokushiMusou": 48, "DaiSuushii": 49, "Shousuushii": 50, "Suukantsu": 51,
    "Dora": 52, "UraDora": 53, "AkaDora": 54,
}


def oracle_score(h: RandomWin, double_yakuman: bool = False, kazoe: bool = True,
                 kiriage: bool = False) -> Any:
    tiles = list(h.closed_ids)
    melds = []
    for kind, ids in h.melds:
        tiles += ids
        if kind == CHI:
            melds.append(Meld(meld_type=Meld.CHI, tiles=sorted(ids), opened=True))
        elif kind == PON:
            melds.append(Meld(meld_type=Meld.PON, tiles=sorted(ids), opened=True))
        else:
            melds.append(Meld(meld_type=Meld.KAN, tiles=sorted(ids), opened=kind != KAN_CLOSED))
    options = OptionalRules(
        has_open_tanyao=True, has_aka_dora=True, has_double_yakuman=double_yakuman,
        kazoe_limit=HandConstants.KAZOE_LIMITED if kazoe else HandConstants.KAZOE_SANBAIMAN,
        kiriage=kiriage, fu_for_open_pinfu=True, fu_for_pinfu_tsumo=False,
        renhou_as_yakuman=False)
    config = HandConfig(
        is_tsumo=h.tsumo, is_riichi=h.riichi, is_ippatsu=h.ippatsu, is_rinshan=h.rinshan,
        is_chankan=h.chankan, is_haitei=h.haitei, is_houtei=h.houtei,
        is_daburu_riichi=h.double_riichi, is_tenhou=h.tenhou, is_renhou=h.renhou,
        is_chiihou=h.chiihou, player_wind=27 + h.seat_wind, round_wind=27 + h.round_wind,
        kyoutaku_number=h.riichi_sticks, tsumi_number=h.honba, options=options)
    return HandCalculator.estimate_hand_value(
        sorted(tiles), h.win_id, melds, dora_indicators=h.dora_ids, config=config,
        ura_dora_indicators=h.ura_ids or None)
