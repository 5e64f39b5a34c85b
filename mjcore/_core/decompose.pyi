from collections.abc import Sequence

def decompose_raw(
    counts: Sequence[int] | bytes,
    melds: Sequence[tuple[int, int, int, int]],
    win_tile: int,
    red: int = ...,
) -> tuple[int, list[tuple[int, int, tuple[tuple[int, int, int, int], ...], int, int]]]: ...

BUILT_FOR: str
