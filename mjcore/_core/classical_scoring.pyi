from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

ITEM_NAMES: tuple[str, ...]

def score_deal_raw(
    seats: Sequence[tuple[Sequence[int], Sequence[tuple[int, int]], int]],
    prevailing: int,
    winner: int,
    win_tile: int,
    win_claim: int,
    win_pair: int,
    win_flags: int,
    discarder: int,
    cannon: int,
    dead_kinds: int,
    params: Sequence[int],
    hidden: int = ...,
) -> tuple[int, Any, Any, Any, int]: ...
def score_deals(
    counts: npt.NDArray[np.uint8],
    melds: npt.NDArray[np.uint8],
    n_melds: npt.NDArray[np.uint8],
    bonus: npt.NDArray[np.uint8],
    info: npt.NDArray[np.int16],
    dead_kinds: npt.NDArray[np.uint64],
    params: Sequence[int],
    score: npt.NDArray[np.int32],
    points: npt.NDArray[np.int32],
    doubles: npt.NDArray[np.int32],
    limit_hand: npt.NDArray[np.uint8],
    net: npt.NDArray[np.int32],
    status: npt.NDArray[np.int8],
    n_threads: int = ...,
) -> None: ...

BUILT_FOR: str
