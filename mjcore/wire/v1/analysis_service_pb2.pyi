from mjcore.wire.v1 import types_pb2 as _types_pb2
from mjcore.wire.v1 import scoring_pb2 as _scoring_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

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
    __slots__ = ("batch", "hand_count", "masks", "shanten", "errors")
    BATCH_FIELD_NUMBER: _ClassVar[int]
    HAND_COUNT_FIELD_NUMBER: _ClassVar[int]
    MASKS_FIELD_NUMBER: _ClassVar[int]
    SHANTEN_FIELD_NUMBER: _ClassVar[int]
    ERRORS_FIELD_NUMBER: _ClassVar[int]
    batch: int
    hand_count: int
    masks: bytes
    shanten: bytes
    errors: _containers.RepeatedCompositeFieldContainer[_types_pb2.HandError]
    def __init__(self, batch: _Optional[int] = ..., hand_count: _Optional[int] = ..., masks: _Optional[bytes] = ..., shanten: _Optional[bytes] = ..., errors: _Optional[_Iterable[_Union[_types_pb2.HandError, _Mapping]]] = ...) -> None: ...

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
