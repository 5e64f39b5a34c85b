from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class HandEncoding(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    HAND_ENCODING_UNSPECIFIED: _ClassVar[HandEncoding]
    HAND_ENCODING_COUNTS_U8: _ClassVar[HandEncoding]
    HAND_ENCODING_PACKED_3BIT: _ClassVar[HandEncoding]
    HAND_ENCODING_TEXT_LINES: _ClassVar[HandEncoding]
    HAND_ENCODING_PACKED_4BIT: _ClassVar[HandEncoding]

class Wind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    WIND_UNSPECIFIED: _ClassVar[Wind]
    WIND_EAST: _ClassVar[Wind]
    WIND_SOUTH: _ClassVar[Wind]
    WIND_WEST: _ClassVar[Wind]
    WIND_NORTH: _ClassVar[Wind]
HAND_ENCODING_UNSPECIFIED: HandEncoding
HAND_ENCODING_COUNTS_U8: HandEncoding
HAND_ENCODING_PACKED_3BIT: HandEncoding
HAND_ENCODING_TEXT_LINES: HandEncoding
HAND_ENCODING_PACKED_4BIT: HandEncoding
WIND_UNSPECIFIED: Wind
WIND_EAST: Wind
WIND_SOUTH: Wind
WIND_WEST: Wind
WIND_NORTH: Wind

class TileCount(_message.Message):
    __slots__ = ("kind", "tile", "remaining_count")
    KIND_FIELD_NUMBER: _ClassVar[int]
    TILE_FIELD_NUMBER: _ClassVar[int]
    REMAINING_COUNT_FIELD_NUMBER: _ClassVar[int]
    kind: int
    tile: str
    remaining_count: int
    def __init__(self, kind: _Optional[int] = ..., tile: _Optional[str] = ..., remaining_count: _Optional[int] = ...) -> None: ...

class PackedHands(_message.Message):
    __slots__ = ("encoding", "data", "n_melds")
    ENCODING_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    N_MELDS_FIELD_NUMBER: _ClassVar[int]
    encoding: HandEncoding
    data: bytes
    n_melds: bytes
    def __init__(self, encoding: _Optional[_Union[HandEncoding, str]] = ..., data: _Optional[bytes] = ..., n_melds: _Optional[bytes] = ...) -> None: ...

class HandError(_message.Message):
    __slots__ = ("index", "reason", "message")
    INDEX_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    index: int
    reason: str
    message: str
    def __init__(self, index: _Optional[int] = ..., reason: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...
