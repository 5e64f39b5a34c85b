"""The names of the riichi scoring kernel's codes, one table each, indexed by the code
(mjcore/_core/scoring.pxd): tenhou yaku ids (romaji, Japanese), limits, fu items, and the
multiplied-yakuman words. The kernel's Python surface reads its names from here only."""
from __future__ import annotations

from ..decomposition import WAITS as WAIT_NAMES

YAKU_NAMES: tuple[tuple[str, str], ...] = (
    ("menzen tsumo", "門前清自摸和"), ("riichi", "立直"), ("ippatsu", "一発"),
    ("chankan", "槍槓"), ("rinshan kaihou", "嶺上開花"), ("haitei raoyue", "海底摸月"),
    ("houtei raoyui", "河底撈魚"), ("pinfu", "平和"), ("tanyao", "断幺九"),
    ("iipeikou", "一盃口"), ("seat wind east", "自風 東"), ("seat wind south", "自風 南"),
    ("seat wind west", "自風 西"), ("seat wind north", "自風 北"),
    ("round wind east", "場風 東"), ("round wind south", "場風 南"),
    ("round wind west", "場風 西"), ("round wind north", "場風 北"),
    ("haku", "役牌 白"), ("hatsu", "役牌 發"), ("chun", "役牌 中"),
    ("double riichi", "両立直"), ("chiitoitsu", "七対子"), ("chanta", "混全帯幺九"),
    ("ittsu", "一気通貫"), ("sanshoku doujun", "三色同順"), ("sanshoku doukou", "三色同刻"),
    ("sankantsu", "三槓子"), ("toitoi", "対々和"), ("sanankou", "三暗刻"),
    ("shousangen", "小三元"), ("honroutou", "混老頭"), ("ryanpeikou", "二盃口"),
    ("junchan", "純全帯幺九"), ("honitsu", "混一色"), ("chinitsu", "清一色"),
    ("renhou", "人和"), ("tenhou", "天和"), ("chiihou", "地和"), ("daisangen", "大三元"),
    ("suuankou", "四暗刻"), ("suuankou tanki", "四暗刻単騎"), ("tsuuiisou", "字一色"),
    ("ryuuiisou", "緑一色"), ("chinroutou", "清老頭"), ("chuuren poutou", "九蓮宝燈"),
    ("junsei chuuren poutou", "純正九蓮宝燈"), ("kokushi musou", "国士無双"),
    ("kokushi musou 13-sided", "国士無双１３面"), ("daisuushii", "大四喜"),
    ("shousuushii", "小四喜"), ("suukantsu", "四槓子"), ("dora", "ドラ"),
    ("ura dora", "裏ドラ"), ("aka dora", "赤ドラ"),
)
LIMIT_NAMES: tuple[str, ...] = ("", "mangan", "haneman", "baiman", "sanbaiman", "yakuman")
FU_ITEM_NAMES: tuple[str, ...] = ("base", "chiitoitsu", "menzen ron", "tsumo", "set", "pair",
                                  "wait", "open pinfu", "rounding")
MULTI_YAKUMAN_NAMES: tuple[str, ...] = (
    "yakuman", "double yakuman", "triple yakuman", "quadruple yakuman", "quintuple yakuman",
    "sextuple yakuman")

__all__ = ["FU_ITEM_NAMES", "LIMIT_NAMES", "MULTI_YAKUMAN_NAMES", "WAIT_NAMES", "YAKU_NAMES"]
