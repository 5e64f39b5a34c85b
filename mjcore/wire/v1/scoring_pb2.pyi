from mjcore.wire.v1 import types_pb2 as _types_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class HandForm(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    HAND_FORM_UNSPECIFIED: _ClassVar[HandForm]
    HAND_FORM_STANDARD: _ClassVar[HandForm]
    HAND_FORM_CHIITOITSU: _ClassVar[HandForm]
    HAND_FORM_KOKUSHI: _ClassVar[HandForm]

class SetKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SET_KIND_UNSPECIFIED: _ClassVar[SetKind]
    SET_KIND_CHI: _ClassVar[SetKind]
    SET_KIND_PON: _ClassVar[SetKind]
    SET_KIND_KAN: _ClassVar[SetKind]

class WaitShape(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    WAIT_SHAPE_UNSPECIFIED: _ClassVar[WaitShape]
    WAIT_SHAPE_RYANMEN: _ClassVar[WaitShape]
    WAIT_SHAPE_KANCHAN: _ClassVar[WaitShape]
    WAIT_SHAPE_PENCHAN: _ClassVar[WaitShape]
    WAIT_SHAPE_SHANPON: _ClassVar[WaitShape]
    WAIT_SHAPE_TANKI: _ClassVar[WaitShape]
    WAIT_SHAPE_KOKUSHI: _ClassVar[WaitShape]
    WAIT_SHAPE_KOKUSHI_13_SIDED: _ClassVar[WaitShape]

class WinMethod(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    WIN_METHOD_UNSPECIFIED: _ClassVar[WinMethod]
    WIN_METHOD_TSUMO: _ClassVar[WinMethod]
    WIN_METHOD_RON: _ClassVar[WinMethod]

class Limit(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    LIMIT_UNSPECIFIED: _ClassVar[Limit]
    LIMIT_NONE: _ClassVar[Limit]
    LIMIT_MANGAN: _ClassVar[Limit]
    LIMIT_HANEMAN: _ClassVar[Limit]
    LIMIT_BAIMAN: _ClassVar[Limit]
    LIMIT_SANBAIMAN: _ClassVar[Limit]
    LIMIT_YAKUMAN: _ClassVar[Limit]

class FuItemKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FU_ITEM_KIND_UNSPECIFIED: _ClassVar[FuItemKind]
    FU_ITEM_KIND_BASE: _ClassVar[FuItemKind]
    FU_ITEM_KIND_CHIITOITSU: _ClassVar[FuItemKind]
    FU_ITEM_KIND_MENZEN_RON: _ClassVar[FuItemKind]
    FU_ITEM_KIND_TSUMO: _ClassVar[FuItemKind]
    FU_ITEM_KIND_SET: _ClassVar[FuItemKind]
    FU_ITEM_KIND_PAIR: _ClassVar[FuItemKind]
    FU_ITEM_KIND_WAIT: _ClassVar[FuItemKind]
    FU_ITEM_KIND_OPEN_PINFU: _ClassVar[FuItemKind]
    FU_ITEM_KIND_ROUNDING: _ClassVar[FuItemKind]

class ScoreStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SCORE_STATUS_UNSPECIFIED: _ClassVar[ScoreStatus]
    SCORE_STATUS_WIN: _ClassVar[ScoreStatus]
    SCORE_STATUS_NO_YAKU: _ClassVar[ScoreStatus]

class ClassicalWinCondition(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CLASSICAL_WIN_CONDITION_UNSPECIFIED: _ClassVar[ClassicalWinCondition]
    CLASSICAL_WIN_CONDITION_SELF_DRAWN: _ClassVar[ClassicalWinCondition]
    CLASSICAL_WIN_CONDITION_LOOSE_TILE: _ClassVar[ClassicalWinCondition]
    CLASSICAL_WIN_CONDITION_LAST_TILE: _ClassVar[ClassicalWinCondition]
    CLASSICAL_WIN_CONDITION_LAST_DISCARD: _ClassVar[ClassicalWinCondition]
    CLASSICAL_WIN_CONDITION_ROBBED_KONG: _ClassVar[ClassicalWinCondition]
    CLASSICAL_WIN_CONDITION_ORIGINAL_CALL: _ClassVar[ClassicalWinCondition]
    CLASSICAL_WIN_CONDITION_HEAVEN: _ClassVar[ClassicalWinCondition]
    CLASSICAL_WIN_CONDITION_EARTH: _ClassVar[ClassicalWinCondition]
    CLASSICAL_WIN_CONDITION_KONG_UPON_KONG: _ClassVar[ClassicalWinCondition]
    CLASSICAL_WIN_CONDITION_THIRTEENTH_WIN: _ClassVar[ClassicalWinCondition]

class ClassicalClaim(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CLASSICAL_CLAIM_UNSPECIFIED: _ClassVar[ClassicalClaim]
    CLASSICAL_CLAIM_PAIR: _ClassVar[ClassicalClaim]
    CLASSICAL_CLAIM_CHOW: _ClassVar[ClassicalClaim]
    CLASSICAL_CLAIM_PUNG: _ClassVar[ClassicalClaim]
HAND_FORM_UNSPECIFIED: HandForm
HAND_FORM_STANDARD: HandForm
HAND_FORM_CHIITOITSU: HandForm
HAND_FORM_KOKUSHI: HandForm
SET_KIND_UNSPECIFIED: SetKind
SET_KIND_CHI: SetKind
SET_KIND_PON: SetKind
SET_KIND_KAN: SetKind
WAIT_SHAPE_UNSPECIFIED: WaitShape
WAIT_SHAPE_RYANMEN: WaitShape
WAIT_SHAPE_KANCHAN: WaitShape
WAIT_SHAPE_PENCHAN: WaitShape
WAIT_SHAPE_SHANPON: WaitShape
WAIT_SHAPE_TANKI: WaitShape
WAIT_SHAPE_KOKUSHI: WaitShape
WAIT_SHAPE_KOKUSHI_13_SIDED: WaitShape
WIN_METHOD_UNSPECIFIED: WinMethod
WIN_METHOD_TSUMO: WinMethod
WIN_METHOD_RON: WinMethod
LIMIT_UNSPECIFIED: Limit
LIMIT_NONE: Limit
LIMIT_MANGAN: Limit
LIMIT_HANEMAN: Limit
LIMIT_BAIMAN: Limit
LIMIT_SANBAIMAN: Limit
LIMIT_YAKUMAN: Limit
FU_ITEM_KIND_UNSPECIFIED: FuItemKind
FU_ITEM_KIND_BASE: FuItemKind
FU_ITEM_KIND_CHIITOITSU: FuItemKind
FU_ITEM_KIND_MENZEN_RON: FuItemKind
FU_ITEM_KIND_TSUMO: FuItemKind
FU_ITEM_KIND_SET: FuItemKind
FU_ITEM_KIND_PAIR: FuItemKind
FU_ITEM_KIND_WAIT: FuItemKind
FU_ITEM_KIND_OPEN_PINFU: FuItemKind
FU_ITEM_KIND_ROUNDING: FuItemKind
SCORE_STATUS_UNSPECIFIED: ScoreStatus
SCORE_STATUS_WIN: ScoreStatus
SCORE_STATUS_NO_YAKU: ScoreStatus
CLASSICAL_WIN_CONDITION_UNSPECIFIED: ClassicalWinCondition
CLASSICAL_WIN_CONDITION_SELF_DRAWN: ClassicalWinCondition
CLASSICAL_WIN_CONDITION_LOOSE_TILE: ClassicalWinCondition
CLASSICAL_WIN_CONDITION_LAST_TILE: ClassicalWinCondition
CLASSICAL_WIN_CONDITION_LAST_DISCARD: ClassicalWinCondition
CLASSICAL_WIN_CONDITION_ROBBED_KONG: ClassicalWinCondition
CLASSICAL_WIN_CONDITION_ORIGINAL_CALL: ClassicalWinCondition
CLASSICAL_WIN_CONDITION_HEAVEN: ClassicalWinCondition
CLASSICAL_WIN_CONDITION_EARTH: ClassicalWinCondition
CLASSICAL_WIN_CONDITION_KONG_UPON_KONG: ClassicalWinCondition
CLASSICAL_WIN_CONDITION_THIRTEENTH_WIN: ClassicalWinCondition
CLASSICAL_CLAIM_UNSPECIFIED: ClassicalClaim
CLASSICAL_CLAIM_PAIR: ClassicalClaim
CLASSICAL_CLAIM_CHOW: ClassicalClaim
CLASSICAL_CLAIM_PUNG: ClassicalClaim

class TileSet(_message.Message):
    __slots__ = ("kind", "tiles", "first_kind", "concealed", "called")
    KIND_FIELD_NUMBER: _ClassVar[int]
    TILES_FIELD_NUMBER: _ClassVar[int]
    FIRST_KIND_FIELD_NUMBER: _ClassVar[int]
    CONCEALED_FIELD_NUMBER: _ClassVar[int]
    CALLED_FIELD_NUMBER: _ClassVar[int]
    kind: SetKind
    tiles: str
    first_kind: int
    concealed: bool
    called: bool
    def __init__(self, kind: _Optional[_Union[SetKind, str]] = ..., tiles: _Optional[str] = ..., first_kind: _Optional[int] = ..., concealed: _Optional[bool] = ..., called: _Optional[bool] = ...) -> None: ...

class Decomposition(_message.Message):
    __slots__ = ("form", "sets", "pair", "wait", "win_set", "text")
    FORM_FIELD_NUMBER: _ClassVar[int]
    SETS_FIELD_NUMBER: _ClassVar[int]
    PAIR_FIELD_NUMBER: _ClassVar[int]
    WAIT_FIELD_NUMBER: _ClassVar[int]
    WIN_SET_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    form: HandForm
    sets: _containers.RepeatedCompositeFieldContainer[TileSet]
    pair: str
    wait: WaitShape
    win_set: int
    text: str
    def __init__(self, form: _Optional[_Union[HandForm, str]] = ..., sets: _Optional[_Iterable[_Union[TileSet, _Mapping]]] = ..., pair: _Optional[str] = ..., wait: _Optional[_Union[WaitShape, str]] = ..., win_set: _Optional[int] = ..., text: _Optional[str] = ...) -> None: ...

class StringList(_message.Message):
    __slots__ = ("values",)
    VALUES_FIELD_NUMBER: _ClassVar[int]
    values: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, values: _Optional[_Iterable[str]] = ...) -> None: ...

class IntList(_message.Message):
    __slots__ = ("values",)
    VALUES_FIELD_NUMBER: _ClassVar[int]
    values: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, values: _Optional[_Iterable[int]] = ...) -> None: ...

class RuleOption(_message.Message):
    __slots__ = ("name", "bool_value", "int_value", "string_value", "string_list", "int_list")
    NAME_FIELD_NUMBER: _ClassVar[int]
    BOOL_VALUE_FIELD_NUMBER: _ClassVar[int]
    INT_VALUE_FIELD_NUMBER: _ClassVar[int]
    STRING_VALUE_FIELD_NUMBER: _ClassVar[int]
    STRING_LIST_FIELD_NUMBER: _ClassVar[int]
    INT_LIST_FIELD_NUMBER: _ClassVar[int]
    name: str
    bool_value: bool
    int_value: int
    string_value: str
    string_list: StringList
    int_list: IntList
    def __init__(self, name: _Optional[str] = ..., bool_value: _Optional[bool] = ..., int_value: _Optional[int] = ..., string_value: _Optional[str] = ..., string_list: _Optional[_Union[StringList, _Mapping]] = ..., int_list: _Optional[_Union[IntList, _Mapping]] = ...) -> None: ...

class RulePreset(_message.Message):
    __slots__ = ("name", "description", "options")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    options: _containers.RepeatedCompositeFieldContainer[RuleOption]
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., options: _Optional[_Iterable[_Union[RuleOption, _Mapping]]] = ...) -> None: ...

class RuleSelection(_message.Message):
    __slots__ = ("preset", "options")
    PRESET_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    preset: str
    options: _containers.RepeatedCompositeFieldContainer[RuleOption]
    def __init__(self, preset: _Optional[str] = ..., options: _Optional[_Iterable[_Union[RuleOption, _Mapping]]] = ...) -> None: ...

class Situation(_message.Message):
    __slots__ = ("riichi", "double_riichi", "ippatsu", "rinshan", "chankan", "haitei", "houtei", "tenhou", "chiihou", "renhou")
    RIICHI_FIELD_NUMBER: _ClassVar[int]
    DOUBLE_RIICHI_FIELD_NUMBER: _ClassVar[int]
    IPPATSU_FIELD_NUMBER: _ClassVar[int]
    RINSHAN_FIELD_NUMBER: _ClassVar[int]
    CHANKAN_FIELD_NUMBER: _ClassVar[int]
    HAITEI_FIELD_NUMBER: _ClassVar[int]
    HOUTEI_FIELD_NUMBER: _ClassVar[int]
    TENHOU_FIELD_NUMBER: _ClassVar[int]
    CHIIHOU_FIELD_NUMBER: _ClassVar[int]
    RENHOU_FIELD_NUMBER: _ClassVar[int]
    riichi: bool
    double_riichi: bool
    ippatsu: bool
    rinshan: bool
    chankan: bool
    haitei: bool
    houtei: bool
    tenhou: bool
    chiihou: bool
    renhou: bool
    def __init__(self, riichi: _Optional[bool] = ..., double_riichi: _Optional[bool] = ..., ippatsu: _Optional[bool] = ..., rinshan: _Optional[bool] = ..., chankan: _Optional[bool] = ..., haitei: _Optional[bool] = ..., houtei: _Optional[bool] = ..., tenhou: _Optional[bool] = ..., chiihou: _Optional[bool] = ..., renhou: _Optional[bool] = ...) -> None: ...

class ScoreRequest(_message.Message):
    __slots__ = ("hand", "win_tile", "win_method", "seat_wind", "round_wind", "dealer", "dora_indicators", "ura_indicators", "honba_count", "riichi_stick_count", "situation", "winner", "discarder", "liable", "rules", "kita_count")
    HAND_FIELD_NUMBER: _ClassVar[int]
    WIN_TILE_FIELD_NUMBER: _ClassVar[int]
    WIN_METHOD_FIELD_NUMBER: _ClassVar[int]
    SEAT_WIND_FIELD_NUMBER: _ClassVar[int]
    ROUND_WIND_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    DORA_INDICATORS_FIELD_NUMBER: _ClassVar[int]
    URA_INDICATORS_FIELD_NUMBER: _ClassVar[int]
    HONBA_COUNT_FIELD_NUMBER: _ClassVar[int]
    RIICHI_STICK_COUNT_FIELD_NUMBER: _ClassVar[int]
    SITUATION_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    DISCARDER_FIELD_NUMBER: _ClassVar[int]
    LIABLE_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    KITA_COUNT_FIELD_NUMBER: _ClassVar[int]
    hand: str
    win_tile: str
    win_method: WinMethod
    seat_wind: _types_pb2.Wind
    round_wind: _types_pb2.Wind
    dealer: int
    dora_indicators: str
    ura_indicators: str
    honba_count: int
    riichi_stick_count: int
    situation: Situation
    winner: int
    discarder: int
    liable: int
    rules: RuleSelection
    kita_count: int
    def __init__(self, hand: _Optional[str] = ..., win_tile: _Optional[str] = ..., win_method: _Optional[_Union[WinMethod, str]] = ..., seat_wind: _Optional[_Union[_types_pb2.Wind, str]] = ..., round_wind: _Optional[_Union[_types_pb2.Wind, str]] = ..., dealer: _Optional[int] = ..., dora_indicators: _Optional[str] = ..., ura_indicators: _Optional[str] = ..., honba_count: _Optional[int] = ..., riichi_stick_count: _Optional[int] = ..., situation: _Optional[_Union[Situation, _Mapping]] = ..., winner: _Optional[int] = ..., discarder: _Optional[int] = ..., liable: _Optional[int] = ..., rules: _Optional[_Union[RuleSelection, _Mapping]] = ..., kita_count: _Optional[int] = ...) -> None: ...

class Yaku(_message.Message):
    __slots__ = ("tenhou_id", "name", "name_japanese", "han")
    TENHOU_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    NAME_JAPANESE_FIELD_NUMBER: _ClassVar[int]
    HAN_FIELD_NUMBER: _ClassVar[int]
    tenhou_id: int
    name: str
    name_japanese: str
    han: int
    def __init__(self, tenhou_id: _Optional[int] = ..., name: _Optional[str] = ..., name_japanese: _Optional[str] = ..., han: _Optional[int] = ...) -> None: ...

class FuItem(_message.Message):
    __slots__ = ("kind", "tile", "wait", "fu")
    KIND_FIELD_NUMBER: _ClassVar[int]
    TILE_FIELD_NUMBER: _ClassVar[int]
    WAIT_FIELD_NUMBER: _ClassVar[int]
    FU_FIELD_NUMBER: _ClassVar[int]
    kind: FuItemKind
    tile: str
    wait: WaitShape
    fu: int
    def __init__(self, kind: _Optional[_Union[FuItemKind, str]] = ..., tile: _Optional[str] = ..., wait: _Optional[_Union[WaitShape, str]] = ..., fu: _Optional[int] = ...) -> None: ...

class ScoreResponse(_message.Message):
    __slots__ = ("win", "status", "yaku", "dora_count", "ura_dora_count", "red_dora_count", "han", "fu", "fu_items", "limit", "limit_name", "kazoe", "yakuman_multiplier", "basic_points", "points", "deltas", "payments", "decomposition", "decomposition_index", "decomposition_count")
    WIN_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    YAKU_FIELD_NUMBER: _ClassVar[int]
    DORA_COUNT_FIELD_NUMBER: _ClassVar[int]
    URA_DORA_COUNT_FIELD_NUMBER: _ClassVar[int]
    RED_DORA_COUNT_FIELD_NUMBER: _ClassVar[int]
    HAN_FIELD_NUMBER: _ClassVar[int]
    FU_FIELD_NUMBER: _ClassVar[int]
    FU_ITEMS_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    LIMIT_NAME_FIELD_NUMBER: _ClassVar[int]
    KAZOE_FIELD_NUMBER: _ClassVar[int]
    YAKUMAN_MULTIPLIER_FIELD_NUMBER: _ClassVar[int]
    BASIC_POINTS_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    DELTAS_FIELD_NUMBER: _ClassVar[int]
    PAYMENTS_FIELD_NUMBER: _ClassVar[int]
    DECOMPOSITION_FIELD_NUMBER: _ClassVar[int]
    DECOMPOSITION_INDEX_FIELD_NUMBER: _ClassVar[int]
    DECOMPOSITION_COUNT_FIELD_NUMBER: _ClassVar[int]
    win: bool
    status: ScoreStatus
    yaku: _containers.RepeatedCompositeFieldContainer[Yaku]
    dora_count: int
    ura_dora_count: int
    red_dora_count: int
    han: int
    fu: int
    fu_items: _containers.RepeatedCompositeFieldContainer[FuItem]
    limit: Limit
    limit_name: str
    kazoe: bool
    yakuman_multiplier: int
    basic_points: int
    points: int
    deltas: _containers.RepeatedScalarFieldContainer[int]
    payments: _containers.RepeatedScalarFieldContainer[int]
    decomposition: Decomposition
    decomposition_index: int
    decomposition_count: int
    def __init__(self, win: _Optional[bool] = ..., status: _Optional[_Union[ScoreStatus, str]] = ..., yaku: _Optional[_Iterable[_Union[Yaku, _Mapping]]] = ..., dora_count: _Optional[int] = ..., ura_dora_count: _Optional[int] = ..., red_dora_count: _Optional[int] = ..., han: _Optional[int] = ..., fu: _Optional[int] = ..., fu_items: _Optional[_Iterable[_Union[FuItem, _Mapping]]] = ..., limit: _Optional[_Union[Limit, str]] = ..., limit_name: _Optional[str] = ..., kazoe: _Optional[bool] = ..., yakuman_multiplier: _Optional[int] = ..., basic_points: _Optional[int] = ..., points: _Optional[int] = ..., deltas: _Optional[_Iterable[int]] = ..., payments: _Optional[_Iterable[int]] = ..., decomposition: _Optional[_Union[Decomposition, _Mapping]] = ..., decomposition_index: _Optional[int] = ..., decomposition_count: _Optional[int] = ...) -> None: ...

class ScoreClassicalDealRequest(_message.Message):
    __slots__ = ("hands", "prevailing_wind", "winner", "win_tile", "conditions", "discarder", "claim", "cannon", "dead_tiles", "pair", "hidden", "rules")
    HANDS_FIELD_NUMBER: _ClassVar[int]
    PREVAILING_WIND_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    WIN_TILE_FIELD_NUMBER: _ClassVar[int]
    CONDITIONS_FIELD_NUMBER: _ClassVar[int]
    DISCARDER_FIELD_NUMBER: _ClassVar[int]
    CLAIM_FIELD_NUMBER: _ClassVar[int]
    CANNON_FIELD_NUMBER: _ClassVar[int]
    DEAD_TILES_FIELD_NUMBER: _ClassVar[int]
    PAIR_FIELD_NUMBER: _ClassVar[int]
    HIDDEN_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    hands: _containers.RepeatedScalarFieldContainer[str]
    prevailing_wind: _types_pb2.Wind
    winner: int
    win_tile: str
    conditions: _containers.RepeatedScalarFieldContainer[ClassicalWinCondition]
    discarder: int
    claim: ClassicalClaim
    cannon: int
    dead_tiles: str
    pair: str
    hidden: _containers.RepeatedScalarFieldContainer[int]
    rules: RuleSelection
    def __init__(self, hands: _Optional[_Iterable[str]] = ..., prevailing_wind: _Optional[_Union[_types_pb2.Wind, str]] = ..., winner: _Optional[int] = ..., win_tile: _Optional[str] = ..., conditions: _Optional[_Iterable[_Union[ClassicalWinCondition, str]]] = ..., discarder: _Optional[int] = ..., claim: _Optional[_Union[ClassicalClaim, str]] = ..., cannon: _Optional[int] = ..., dead_tiles: _Optional[str] = ..., pair: _Optional[str] = ..., hidden: _Optional[_Iterable[int]] = ..., rules: _Optional[_Union[RuleSelection, _Mapping]] = ...) -> None: ...

class ClassicalItem(_message.Message):
    __slots__ = ("item", "reason", "tiles", "points", "doubles", "limit")
    ITEM_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    TILES_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    DOUBLES_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    item: str
    reason: str
    tiles: str
    points: int
    doubles: int
    limit: bool
    def __init__(self, item: _Optional[str] = ..., reason: _Optional[str] = ..., tiles: _Optional[str] = ..., points: _Optional[int] = ..., doubles: _Optional[int] = ..., limit: _Optional[bool] = ...) -> None: ...

class ClassicalPlayerScore(_message.Message):
    __slots__ = ("seat", "winner", "points", "doubles", "uncapped", "score", "limit_hand", "items")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    DOUBLES_FIELD_NUMBER: _ClassVar[int]
    UNCAPPED_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    LIMIT_HAND_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    winner: bool
    points: int
    doubles: int
    uncapped: int
    score: int
    limit_hand: bool
    items: _containers.RepeatedCompositeFieldContainer[ClassicalItem]
    def __init__(self, seat: _Optional[int] = ..., winner: _Optional[bool] = ..., points: _Optional[int] = ..., doubles: _Optional[int] = ..., uncapped: _Optional[int] = ..., score: _Optional[int] = ..., limit_hand: _Optional[bool] = ..., items: _Optional[_Iterable[_Union[ClassicalItem, _Mapping]]] = ...) -> None: ...

class ClassicalPayment(_message.Message):
    __slots__ = ("payer", "payee", "amount", "for_seat")
    PAYER_FIELD_NUMBER: _ClassVar[int]
    PAYEE_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    FOR_SEAT_FIELD_NUMBER: _ClassVar[int]
    payer: int
    payee: int
    amount: int
    for_seat: int
    def __init__(self, payer: _Optional[int] = ..., payee: _Optional[int] = ..., amount: _Optional[int] = ..., for_seat: _Optional[int] = ...) -> None: ...

class ScoreClassicalDealResponse(_message.Message):
    __slots__ = ("players", "payments", "net", "cannon", "rules")
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    PAYMENTS_FIELD_NUMBER: _ClassVar[int]
    NET_FIELD_NUMBER: _ClassVar[int]
    CANNON_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    players: _containers.RepeatedCompositeFieldContainer[ClassicalPlayerScore]
    payments: _containers.RepeatedCompositeFieldContainer[ClassicalPayment]
    net: _containers.RepeatedScalarFieldContainer[int]
    cannon: int
    rules: str
    def __init__(self, players: _Optional[_Iterable[_Union[ClassicalPlayerScore, _Mapping]]] = ..., payments: _Optional[_Iterable[_Union[ClassicalPayment, _Mapping]]] = ..., net: _Optional[_Iterable[int]] = ..., cannon: _Optional[int] = ..., rules: _Optional[str] = ...) -> None: ...
