# HPACK (RFC 7541) header-block decoding for tests and tools (compiled: _hpack.pyx over hpack.h).
from typing import Self

from typing_extensions import disjoint_base

ERROR_CODES: dict[str, int]

class HpackError(ValueError):
    code: int
    name: str
    offset: int
    def __init__(self, code: int, offset: int) -> None: ...

@disjoint_base
class HeaderDecoder:
    def __new__(cls, max_table_size: int = ...) -> Self: ...  # (a __cinit__ at runtime)
    def decode(self, block: bytes) -> list[tuple[bytes, bytes]]: ...
    @property
    def table_size(self) -> int: ...
    @property
    def max_table_size(self) -> int: ...
    def dynamic_entries(self) -> list[tuple[bytes, bytes]]: ...

def bench_decode(block: bytes, iterations: int, setup: list[bytes] | None = ...,
                 fresh: bool = ..., max_table_size: int = ...) -> float: ...
