from mjcore.wire.v1 import types_pb2 as _types_pb2
from mjcore.wire.v1 import scoring_pb2 as _scoring_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ExpectedValueModel(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EXPECTED_VALUE_MODEL_UNSPECIFIED: _ClassVar[ExpectedValueModel]
    EXPECTED_VALUE_MODEL_CONSISTENT: _ClassVar[ExpectedValueModel]
    EXPECTED_VALUE_MODEL_COMPATIBLE: _ClassVar[ExpectedValueModel]

class ExpectedValueStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EXPECTED_VALUE_STATUS_UNSPECIFIED: _ClassVar[ExpectedValueStatus]
    EXPECTED_VALUE_STATUS_OK: _ClassVar[ExpectedValueStatus]
    EXPECTED_VALUE_STATUS_SHANTEN_TOO_HIGH: _ClassVar[ExpectedValueStatus]
    EXPECTED_VALUE_STATUS_NODE_BUDGET: _ClassVar[ExpectedValueStatus]
    EXPECTED_VALUE_STATUS_DEADLINE: _ClassVar[ExpectedValueStatus]
    EXPECTED_VALUE_STATUS_OUT_OF_MEMORY: _ClassVar[ExpectedValueStatus]
EXPECTED_VALUE_MODEL_UNSPECIFIED: ExpectedValueModel
EXPECTED_VALUE_MODEL_CONSISTENT: ExpectedValueModel
EXPECTED_VALUE_MODEL_COMPATIBLE: ExpectedValueModel
EXPECTED_VALUE_STATUS_UNSPECIFIED: ExpectedValueStatus
EXPECTED_VALUE_STATUS_OK: ExpectedValueStatus
EXPECTED_VALUE_STATUS_SHANTEN_TOO_HIGH: ExpectedValueStatus
EXPECTED_VALUE_STATUS_NODE_BUDGET: ExpectedValueStatus
EXPECTED_VALUE_STATUS_DEADLINE: ExpectedValueStatus
EXPECTED_VALUE_STATUS_OUT_OF_MEMORY: ExpectedValueStatus

class AnalyzeHandRequest(_message.Message):
    __slots__ = ("hand", "visible", "rules")
    HAND_FIELD_NUMBER: _ClassVar[int]
    VISIBLE_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    hand: str
    visible: str
    rules: _scoring_pb2.RuleSelection
    def __init__(self, hand: _Optional[str] = ..., visible: _Optional[str] = ..., rules: _Optional[_Union[_scoring_pb2.RuleSelection, _Mapping]] = ...) -> None: ...

class ShantenInfo(_message.Message):
    __slots__ = ("shanten", "standard", "chiitoitsu", "kokushi")
    SHANTEN_FIELD_NUMBER: _ClassVar[int]
    STANDARD_FIELD_NUMBER: _ClassVar[int]
    CHIITOITSU_FIELD_NUMBER: _ClassVar[int]
    KOKUSHI_FIELD_NUMBER: _ClassVar[int]
    shanten: int
    standard: int
    chiitoitsu: int
    kokushi: int
    def __init__(self, shanten: _Optional[int] = ..., standard: _Optional[int] = ..., chiitoitsu: _Optional[int] = ..., kokushi: _Optional[int] = ...) -> None: ...

class WaitsInfo(_message.Message):
    __slots__ = ("tenpai", "tiles", "remaining_count")
    TENPAI_FIELD_NUMBER: _ClassVar[int]
    TILES_FIELD_NUMBER: _ClassVar[int]
    REMAINING_COUNT_FIELD_NUMBER: _ClassVar[int]
    tenpai: bool
    tiles: _containers.RepeatedCompositeFieldContainer[_types_pb2.TileCount]
    remaining_count: int
    def __init__(self, tenpai: _Optional[bool] = ..., tiles: _Optional[_Iterable[_Union[_types_pb2.TileCount, _Mapping]]] = ..., remaining_count: _Optional[int] = ...) -> None: ...

class UkeireOption(_message.Message):
    __slots__ = ("discard", "shanten", "tiles", "remaining_count")
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    SHANTEN_FIELD_NUMBER: _ClassVar[int]
    TILES_FIELD_NUMBER: _ClassVar[int]
    REMAINING_COUNT_FIELD_NUMBER: _ClassVar[int]
    discard: str
    shanten: int
    tiles: _containers.RepeatedCompositeFieldContainer[_types_pb2.TileCount]
    remaining_count: int
    def __init__(self, discard: _Optional[str] = ..., shanten: _Optional[int] = ..., tiles: _Optional[_Iterable[_Union[_types_pb2.TileCount, _Mapping]]] = ..., remaining_count: _Optional[int] = ...) -> None: ...

class UkeireInfo(_message.Message):
    __slots__ = ("shanten", "options")
    SHANTEN_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    shanten: int
    options: _containers.RepeatedCompositeFieldContainer[UkeireOption]
    def __init__(self, shanten: _Optional[int] = ..., options: _Optional[_Iterable[_Union[UkeireOption, _Mapping]]] = ...) -> None: ...

class AnalyzeHandResponse(_message.Message):
    __slots__ = ("hand", "closed_tile_count", "meld_count", "shanten", "agari", "waits", "ukeire")
    HAND_FIELD_NUMBER: _ClassVar[int]
    CLOSED_TILE_COUNT_FIELD_NUMBER: _ClassVar[int]
    MELD_COUNT_FIELD_NUMBER: _ClassVar[int]
    SHANTEN_FIELD_NUMBER: _ClassVar[int]
    AGARI_FIELD_NUMBER: _ClassVar[int]
    WAITS_FIELD_NUMBER: _ClassVar[int]
    UKEIRE_FIELD_NUMBER: _ClassVar[int]
    hand: str
    closed_tile_count: int
    meld_count: int
    shanten: ShantenInfo
    agari: bool
    waits: WaitsInfo
    ukeire: UkeireInfo
    def __init__(self, hand: _Optional[str] = ..., closed_tile_count: _Optional[int] = ..., meld_count: _Optional[int] = ..., shanten: _Optional[_Union[ShantenInfo, _Mapping]] = ..., agari: _Optional[bool] = ..., waits: _Optional[_Union[WaitsInfo, _Mapping]] = ..., ukeire: _Optional[_Union[UkeireInfo, _Mapping]] = ...) -> None: ...

class DecomposeRequest(_message.Message):
    __slots__ = ("hand", "win_tile")
    HAND_FIELD_NUMBER: _ClassVar[int]
    WIN_TILE_FIELD_NUMBER: _ClassVar[int]
    hand: str
    win_tile: str
    def __init__(self, hand: _Optional[str] = ..., win_tile: _Optional[str] = ...) -> None: ...

class DecomposeResponse(_message.Message):
    __slots__ = ("hand", "decompositions")
    HAND_FIELD_NUMBER: _ClassVar[int]
    DECOMPOSITIONS_FIELD_NUMBER: _ClassVar[int]
    hand: str
    decompositions: _containers.RepeatedCompositeFieldContainer[_scoring_pb2.Decomposition]
    def __init__(self, hand: _Optional[str] = ..., decompositions: _Optional[_Iterable[_Union[_scoring_pb2.Decomposition, _Mapping]]] = ...) -> None: ...

class ListRulePresetsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListRulePresetsResponse(_message.Message):
    __slots__ = ("presets", "default_preset")
    PRESETS_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_PRESET_FIELD_NUMBER: _ClassVar[int]
    presets: _containers.RepeatedCompositeFieldContainer[_scoring_pb2.RulePreset]
    default_preset: str
    def __init__(self, presets: _Optional[_Iterable[_Union[_scoring_pb2.RulePreset, _Mapping]]] = ..., default_preset: _Optional[str] = ...) -> None: ...

class StreamShantenRequest(_message.Message):
    __slots__ = ("hands", "per_form", "rules")
    HANDS_FIELD_NUMBER: _ClassVar[int]
    PER_FORM_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    hands: _types_pb2.PackedHands
    per_form: bool
    rules: _scoring_pb2.RuleSelection
    def __init__(self, hands: _Optional[_Union[_types_pb2.PackedHands, _Mapping]] = ..., per_form: _Optional[bool] = ..., rules: _Optional[_Union[_scoring_pb2.RuleSelection, _Mapping]] = ...) -> None: ...

class StreamShantenResponse(_message.Message):
    __slots__ = ("batch", "hand_count", "shanten", "standard", "chiitoitsu", "kokushi", "errors")
    BATCH_FIELD_NUMBER: _ClassVar[int]
    HAND_COUNT_FIELD_NUMBER: _ClassVar[int]
    SHANTEN_FIELD_NUMBER: _ClassVar[int]
    STANDARD_FIELD_NUMBER: _ClassVar[int]
    CHIITOITSU_FIELD_NUMBER: _ClassVar[int]
    KOKUSHI_FIELD_NUMBER: _ClassVar[int]
    ERRORS_FIELD_NUMBER: _ClassVar[int]
    batch: int
    hand_count: int
    shanten: bytes
    standard: bytes
    chiitoitsu: bytes
    kokushi: bytes
    errors: _containers.RepeatedCompositeFieldContainer[_types_pb2.HandError]
    def __init__(self, batch: _Optional[int] = ..., hand_count: _Optional[int] = ..., shanten: _Optional[bytes] = ..., standard: _Optional[bytes] = ..., chiitoitsu: _Optional[bytes] = ..., kokushi: _Optional[bytes] = ..., errors: _Optional[_Iterable[_Union[_types_pb2.HandError, _Mapping]]] = ...) -> None: ...

class StreamWaitsRequest(_message.Message):
    __slots__ = ("hands", "rules")
    HANDS_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    hands: _types_pb2.PackedHands
    rules: _scoring_pb2.RuleSelection
    def __init__(self, hands: _Optional[_Union[_types_pb2.PackedHands, _Mapping]] = ..., rules: _Optional[_Union[_scoring_pb2.RuleSelection, _Mapping]] = ...) -> None: ...

class StreamWaitsResponse(_message.Message):
    __slots__ = ("batch", "hand_count", "masks", "shanten", "advance_masks", "errors")
    BATCH_FIELD_NUMBER: _ClassVar[int]
    HAND_COUNT_FIELD_NUMBER: _ClassVar[int]
    MASKS_FIELD_NUMBER: _ClassVar[int]
    SHANTEN_FIELD_NUMBER: _ClassVar[int]
    ADVANCE_MASKS_FIELD_NUMBER: _ClassVar[int]
    ERRORS_FIELD_NUMBER: _ClassVar[int]
    batch: int
    hand_count: int
    masks: bytes
    shanten: bytes
    advance_masks: bytes
    errors: _containers.RepeatedCompositeFieldContainer[_types_pb2.HandError]
    def __init__(self, batch: _Optional[int] = ..., hand_count: _Optional[int] = ..., masks: _Optional[bytes] = ..., shanten: _Optional[bytes] = ..., advance_masks: _Optional[bytes] = ..., errors: _Optional[_Iterable[_Union[_types_pb2.HandError, _Mapping]]] = ...) -> None: ...

class StreamAgariRequest(_message.Message):
    __slots__ = ("hands", "rules")
    HANDS_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    hands: _types_pb2.PackedHands
    rules: _scoring_pb2.RuleSelection
    def __init__(self, hands: _Optional[_Union[_types_pb2.PackedHands, _Mapping]] = ..., rules: _Optional[_Union[_scoring_pb2.RuleSelection, _Mapping]] = ...) -> None: ...

class StreamAgariResponse(_message.Message):
    __slots__ = ("batch", "hand_count", "agari", "errors")
    BATCH_FIELD_NUMBER: _ClassVar[int]
    HAND_COUNT_FIELD_NUMBER: _ClassVar[int]
    AGARI_FIELD_NUMBER: _ClassVar[int]
    ERRORS_FIELD_NUMBER: _ClassVar[int]
    batch: int
    hand_count: int
    agari: bytes
    errors: _containers.RepeatedCompositeFieldContainer[_types_pb2.HandError]
    def __init__(self, batch: _Optional[int] = ..., hand_count: _Optional[int] = ..., agari: _Optional[bytes] = ..., errors: _Optional[_Iterable[_Union[_types_pb2.HandError, _Mapping]]] = ...) -> None: ...

class StreamScoreRequest(_message.Message):
    __slots__ = ("hands", "win_tile", "melds", "red", "flags", "seat_wind", "round_wind", "from_rel", "pao_rel", "dora", "dora_slot_count", "ura", "ura_slot_count", "honba", "riichi_sticks", "rules", "details", "kita")
    HANDS_FIELD_NUMBER: _ClassVar[int]
    WIN_TILE_FIELD_NUMBER: _ClassVar[int]
    MELDS_FIELD_NUMBER: _ClassVar[int]
    RED_FIELD_NUMBER: _ClassVar[int]
    FLAGS_FIELD_NUMBER: _ClassVar[int]
    SEAT_WIND_FIELD_NUMBER: _ClassVar[int]
    ROUND_WIND_FIELD_NUMBER: _ClassVar[int]
    FROM_REL_FIELD_NUMBER: _ClassVar[int]
    PAO_REL_FIELD_NUMBER: _ClassVar[int]
    DORA_FIELD_NUMBER: _ClassVar[int]
    DORA_SLOT_COUNT_FIELD_NUMBER: _ClassVar[int]
    URA_FIELD_NUMBER: _ClassVar[int]
    URA_SLOT_COUNT_FIELD_NUMBER: _ClassVar[int]
    HONBA_FIELD_NUMBER: _ClassVar[int]
    RIICHI_STICKS_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    DETAILS_FIELD_NUMBER: _ClassVar[int]
    KITA_FIELD_NUMBER: _ClassVar[int]
    hands: _types_pb2.PackedHands
    win_tile: bytes
    melds: bytes
    red: bytes
    flags: bytes
    seat_wind: bytes
    round_wind: bytes
    from_rel: bytes
    pao_rel: bytes
    dora: bytes
    dora_slot_count: int
    ura: bytes
    ura_slot_count: int
    honba: bytes
    riichi_sticks: bytes
    rules: _scoring_pb2.RuleSelection
    details: bool
    kita: bytes
    def __init__(self, hands: _Optional[_Union[_types_pb2.PackedHands, _Mapping]] = ..., win_tile: _Optional[bytes] = ..., melds: _Optional[bytes] = ..., red: _Optional[bytes] = ..., flags: _Optional[bytes] = ..., seat_wind: _Optional[bytes] = ..., round_wind: _Optional[bytes] = ..., from_rel: _Optional[bytes] = ..., pao_rel: _Optional[bytes] = ..., dora: _Optional[bytes] = ..., dora_slot_count: _Optional[int] = ..., ura: _Optional[bytes] = ..., ura_slot_count: _Optional[int] = ..., honba: _Optional[bytes] = ..., riichi_sticks: _Optional[bytes] = ..., rules: _Optional[_Union[_scoring_pb2.RuleSelection, _Mapping]] = ..., details: _Optional[bool] = ..., kita: _Optional[bytes] = ...) -> None: ...

class StreamScoreResponse(_message.Message):
    __slots__ = ("batch", "hand_count", "status", "han", "fu", "limit", "yakuman", "basic", "points", "yaku_mask", "dora_ura_aka", "deltas", "payments", "decomposition_index", "yaku_han", "fu_items", "n_fu_items", "errors")
    BATCH_FIELD_NUMBER: _ClassVar[int]
    HAND_COUNT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    HAN_FIELD_NUMBER: _ClassVar[int]
    FU_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    YAKUMAN_FIELD_NUMBER: _ClassVar[int]
    BASIC_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    YAKU_MASK_FIELD_NUMBER: _ClassVar[int]
    DORA_URA_AKA_FIELD_NUMBER: _ClassVar[int]
    DELTAS_FIELD_NUMBER: _ClassVar[int]
    PAYMENTS_FIELD_NUMBER: _ClassVar[int]
    DECOMPOSITION_INDEX_FIELD_NUMBER: _ClassVar[int]
    YAKU_HAN_FIELD_NUMBER: _ClassVar[int]
    FU_ITEMS_FIELD_NUMBER: _ClassVar[int]
    N_FU_ITEMS_FIELD_NUMBER: _ClassVar[int]
    ERRORS_FIELD_NUMBER: _ClassVar[int]
    batch: int
    hand_count: int
    status: bytes
    han: bytes
    fu: bytes
    limit: bytes
    yakuman: bytes
    basic: bytes
    points: bytes
    yaku_mask: bytes
    dora_ura_aka: bytes
    deltas: bytes
    payments: bytes
    decomposition_index: bytes
    yaku_han: bytes
    fu_items: bytes
    n_fu_items: bytes
    errors: _containers.RepeatedCompositeFieldContainer[_types_pb2.HandError]
    def __init__(self, batch: _Optional[int] = ..., hand_count: _Optional[int] = ..., status: _Optional[bytes] = ..., han: _Optional[bytes] = ..., fu: _Optional[bytes] = ..., limit: _Optional[bytes] = ..., yakuman: _Optional[bytes] = ..., basic: _Optional[bytes] = ..., points: _Optional[bytes] = ..., yaku_mask: _Optional[bytes] = ..., dora_ura_aka: _Optional[bytes] = ..., deltas: _Optional[bytes] = ..., payments: _Optional[bytes] = ..., decomposition_index: _Optional[bytes] = ..., yaku_han: _Optional[bytes] = ..., fu_items: _Optional[bytes] = ..., n_fu_items: _Optional[bytes] = ..., errors: _Optional[_Iterable[_Union[_types_pb2.HandError, _Mapping]]] = ...) -> None: ...

class StreamScoreClassicalRequest(_message.Message):
    __slots__ = ("counts", "melds", "n_melds", "bonus", "info", "dead_kinds", "rules")
    COUNTS_FIELD_NUMBER: _ClassVar[int]
    MELDS_FIELD_NUMBER: _ClassVar[int]
    N_MELDS_FIELD_NUMBER: _ClassVar[int]
    BONUS_FIELD_NUMBER: _ClassVar[int]
    INFO_FIELD_NUMBER: _ClassVar[int]
    DEAD_KINDS_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    counts: bytes
    melds: bytes
    n_melds: bytes
    bonus: bytes
    info: bytes
    dead_kinds: bytes
    rules: _scoring_pb2.RuleSelection
    def __init__(self, counts: _Optional[bytes] = ..., melds: _Optional[bytes] = ..., n_melds: _Optional[bytes] = ..., bonus: _Optional[bytes] = ..., info: _Optional[bytes] = ..., dead_kinds: _Optional[bytes] = ..., rules: _Optional[_Union[_scoring_pb2.RuleSelection, _Mapping]] = ...) -> None: ...

class StreamScoreClassicalResponse(_message.Message):
    __slots__ = ("batch", "deal_count", "status", "score", "points", "doubles", "limit_hand", "net", "errors")
    BATCH_FIELD_NUMBER: _ClassVar[int]
    DEAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    DOUBLES_FIELD_NUMBER: _ClassVar[int]
    LIMIT_HAND_FIELD_NUMBER: _ClassVar[int]
    NET_FIELD_NUMBER: _ClassVar[int]
    ERRORS_FIELD_NUMBER: _ClassVar[int]
    batch: int
    deal_count: int
    status: bytes
    score: bytes
    points: bytes
    doubles: bytes
    limit_hand: bytes
    net: bytes
    errors: _containers.RepeatedCompositeFieldContainer[_types_pb2.HandError]
    def __init__(self, batch: _Optional[int] = ..., deal_count: _Optional[int] = ..., status: _Optional[bytes] = ..., score: _Optional[bytes] = ..., points: _Optional[bytes] = ..., doubles: _Optional[bytes] = ..., limit_hand: _Optional[bytes] = ..., net: _Optional[bytes] = ..., errors: _Optional[_Iterable[_Union[_types_pb2.HandError, _Mapping]]] = ...) -> None: ...

class ExpectedValueOptions(_message.Message):
    __slots__ = ("model", "max_turn", "extra", "red", "ura", "shanten_down", "tegawari", "max_shanten", "max_node_count")
    MODEL_FIELD_NUMBER: _ClassVar[int]
    MAX_TURN_FIELD_NUMBER: _ClassVar[int]
    EXTRA_FIELD_NUMBER: _ClassVar[int]
    RED_FIELD_NUMBER: _ClassVar[int]
    URA_FIELD_NUMBER: _ClassVar[int]
    SHANTEN_DOWN_FIELD_NUMBER: _ClassVar[int]
    TEGAWARI_FIELD_NUMBER: _ClassVar[int]
    MAX_SHANTEN_FIELD_NUMBER: _ClassVar[int]
    MAX_NODE_COUNT_FIELD_NUMBER: _ClassVar[int]
    model: ExpectedValueModel
    max_turn: int
    extra: int
    red: bool
    ura: bool
    shanten_down: bool
    tegawari: bool
    max_shanten: int
    max_node_count: int
    def __init__(self, model: _Optional[_Union[ExpectedValueModel, str]] = ..., max_turn: _Optional[int] = ..., extra: _Optional[int] = ..., red: _Optional[bool] = ..., ura: _Optional[bool] = ..., shanten_down: _Optional[bool] = ..., tegawari: _Optional[bool] = ..., max_shanten: _Optional[int] = ..., max_node_count: _Optional[int] = ...) -> None: ...

class ExpectedValuesRequest(_message.Message):
    __slots__ = ("hand", "dora_indicators", "round_wind", "seat_wind", "visible", "rules", "kita_count", "options")
    HAND_FIELD_NUMBER: _ClassVar[int]
    DORA_INDICATORS_FIELD_NUMBER: _ClassVar[int]
    ROUND_WIND_FIELD_NUMBER: _ClassVar[int]
    SEAT_WIND_FIELD_NUMBER: _ClassVar[int]
    VISIBLE_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    KITA_COUNT_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    hand: str
    dora_indicators: str
    round_wind: _types_pb2.Wind
    seat_wind: _types_pb2.Wind
    visible: str
    rules: _scoring_pb2.RuleSelection
    kita_count: int
    options: ExpectedValueOptions
    def __init__(self, hand: _Optional[str] = ..., dora_indicators: _Optional[str] = ..., round_wind: _Optional[_Union[_types_pb2.Wind, str]] = ..., seat_wind: _Optional[_Union[_types_pb2.Wind, str]] = ..., visible: _Optional[str] = ..., rules: _Optional[_Union[_scoring_pb2.RuleSelection, _Mapping]] = ..., kita_count: _Optional[int] = ..., options: _Optional[_Union[ExpectedValueOptions, _Mapping]] = ...) -> None: ...

class DiscardValue(_message.Message):
    __slots__ = ("tile", "shanten", "necessary", "necessary_count", "evaluated", "tenpai", "win", "ev", "max_tenpai", "max_win")
    TILE_FIELD_NUMBER: _ClassVar[int]
    SHANTEN_FIELD_NUMBER: _ClassVar[int]
    NECESSARY_FIELD_NUMBER: _ClassVar[int]
    NECESSARY_COUNT_FIELD_NUMBER: _ClassVar[int]
    EVALUATED_FIELD_NUMBER: _ClassVar[int]
    TENPAI_FIELD_NUMBER: _ClassVar[int]
    WIN_FIELD_NUMBER: _ClassVar[int]
    EV_FIELD_NUMBER: _ClassVar[int]
    MAX_TENPAI_FIELD_NUMBER: _ClassVar[int]
    MAX_WIN_FIELD_NUMBER: _ClassVar[int]
    tile: str
    shanten: int
    necessary: _containers.RepeatedCompositeFieldContainer[_types_pb2.TileCount]
    necessary_count: int
    evaluated: bool
    tenpai: _containers.RepeatedScalarFieldContainer[float]
    win: _containers.RepeatedScalarFieldContainer[float]
    ev: _containers.RepeatedScalarFieldContainer[float]
    max_tenpai: _containers.RepeatedScalarFieldContainer[float]
    max_win: _containers.RepeatedScalarFieldContainer[float]
    def __init__(self, tile: _Optional[str] = ..., shanten: _Optional[int] = ..., necessary: _Optional[_Iterable[_Union[_types_pb2.TileCount, _Mapping]]] = ..., necessary_count: _Optional[int] = ..., evaluated: _Optional[bool] = ..., tenpai: _Optional[_Iterable[float]] = ..., win: _Optional[_Iterable[float]] = ..., ev: _Optional[_Iterable[float]] = ..., max_tenpai: _Optional[_Iterable[float]] = ..., max_win: _Optional[_Iterable[float]] = ...) -> None: ...

class ExpectedValuesResponse(_message.Message):
    __slots__ = ("hand", "shanten", "discards", "status", "message", "node_count", "edge_count", "win_edge_count", "unseen_count", "seconds", "peak_byte_count", "max_turn", "model")
    HAND_FIELD_NUMBER: _ClassVar[int]
    SHANTEN_FIELD_NUMBER: _ClassVar[int]
    DISCARDS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    NODE_COUNT_FIELD_NUMBER: _ClassVar[int]
    EDGE_COUNT_FIELD_NUMBER: _ClassVar[int]
    WIN_EDGE_COUNT_FIELD_NUMBER: _ClassVar[int]
    UNSEEN_COUNT_FIELD_NUMBER: _ClassVar[int]
    SECONDS_FIELD_NUMBER: _ClassVar[int]
    PEAK_BYTE_COUNT_FIELD_NUMBER: _ClassVar[int]
    MAX_TURN_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    hand: str
    shanten: int
    discards: _containers.RepeatedCompositeFieldContainer[DiscardValue]
    status: ExpectedValueStatus
    message: str
    node_count: int
    edge_count: int
    win_edge_count: int
    unseen_count: int
    seconds: float
    peak_byte_count: int
    max_turn: int
    model: ExpectedValueModel
    def __init__(self, hand: _Optional[str] = ..., shanten: _Optional[int] = ..., discards: _Optional[_Iterable[_Union[DiscardValue, _Mapping]]] = ..., status: _Optional[_Union[ExpectedValueStatus, str]] = ..., message: _Optional[str] = ..., node_count: _Optional[int] = ..., edge_count: _Optional[int] = ..., win_edge_count: _Optional[int] = ..., unseen_count: _Optional[int] = ..., seconds: _Optional[float] = ..., peak_byte_count: _Optional[int] = ..., max_turn: _Optional[int] = ..., model: _Optional[_Union[ExpectedValueModel, str]] = ...) -> None: ...

class StreamExpectedValuesRequest(_message.Message):
    __slots__ = ("hands", "red", "melds", "visible", "visible_red", "dora", "dora_slot_count", "seat_wind", "round_wind", "kita", "discard", "turn", "rules", "options")
    HANDS_FIELD_NUMBER: _ClassVar[int]
    RED_FIELD_NUMBER: _ClassVar[int]
    MELDS_FIELD_NUMBER: _ClassVar[int]
    VISIBLE_FIELD_NUMBER: _ClassVar[int]
    VISIBLE_RED_FIELD_NUMBER: _ClassVar[int]
    DORA_FIELD_NUMBER: _ClassVar[int]
    DORA_SLOT_COUNT_FIELD_NUMBER: _ClassVar[int]
    SEAT_WIND_FIELD_NUMBER: _ClassVar[int]
    ROUND_WIND_FIELD_NUMBER: _ClassVar[int]
    KITA_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    hands: _types_pb2.PackedHands
    red: bytes
    melds: bytes
    visible: bytes
    visible_red: bytes
    dora: bytes
    dora_slot_count: int
    seat_wind: bytes
    round_wind: bytes
    kita: bytes
    discard: bytes
    turn: int
    rules: _scoring_pb2.RuleSelection
    options: ExpectedValueOptions
    def __init__(self, hands: _Optional[_Union[_types_pb2.PackedHands, _Mapping]] = ..., red: _Optional[bytes] = ..., melds: _Optional[bytes] = ..., visible: _Optional[bytes] = ..., visible_red: _Optional[bytes] = ..., dora: _Optional[bytes] = ..., dora_slot_count: _Optional[int] = ..., seat_wind: _Optional[bytes] = ..., round_wind: _Optional[bytes] = ..., kita: _Optional[bytes] = ..., discard: _Optional[bytes] = ..., turn: _Optional[int] = ..., rules: _Optional[_Union[_scoring_pb2.RuleSelection, _Mapping]] = ..., options: _Optional[_Union[ExpectedValueOptions, _Mapping]] = ...) -> None: ...

class StreamExpectedValuesResponse(_message.Message):
    __slots__ = ("batch", "hand_count", "status", "shanten", "nodes", "best_tile", "best_tenpai", "best_win", "best_ev", "discard_shanten", "discard_tenpai", "discard_win", "discard_ev", "errors")
    BATCH_FIELD_NUMBER: _ClassVar[int]
    HAND_COUNT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    SHANTEN_FIELD_NUMBER: _ClassVar[int]
    NODES_FIELD_NUMBER: _ClassVar[int]
    BEST_TILE_FIELD_NUMBER: _ClassVar[int]
    BEST_TENPAI_FIELD_NUMBER: _ClassVar[int]
    BEST_WIN_FIELD_NUMBER: _ClassVar[int]
    BEST_EV_FIELD_NUMBER: _ClassVar[int]
    DISCARD_SHANTEN_FIELD_NUMBER: _ClassVar[int]
    DISCARD_TENPAI_FIELD_NUMBER: _ClassVar[int]
    DISCARD_WIN_FIELD_NUMBER: _ClassVar[int]
    DISCARD_EV_FIELD_NUMBER: _ClassVar[int]
    ERRORS_FIELD_NUMBER: _ClassVar[int]
    batch: int
    hand_count: int
    status: bytes
    shanten: bytes
    nodes: bytes
    best_tile: bytes
    best_tenpai: bytes
    best_win: bytes
    best_ev: bytes
    discard_shanten: bytes
    discard_tenpai: bytes
    discard_win: bytes
    discard_ev: bytes
    errors: _containers.RepeatedCompositeFieldContainer[_types_pb2.HandError]
    def __init__(self, batch: _Optional[int] = ..., hand_count: _Optional[int] = ..., status: _Optional[bytes] = ..., shanten: _Optional[bytes] = ..., nodes: _Optional[bytes] = ..., best_tile: _Optional[bytes] = ..., best_tenpai: _Optional[bytes] = ..., best_win: _Optional[bytes] = ..., best_ev: _Optional[bytes] = ..., discard_shanten: _Optional[bytes] = ..., discard_tenpai: _Optional[bytes] = ..., discard_win: _Optional[bytes] = ..., discard_ev: _Optional[bytes] = ..., errors: _Optional[_Iterable[_Union[_types_pb2.HandError, _Mapping]]] = ...) -> None: ...
