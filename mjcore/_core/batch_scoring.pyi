from typing import Any

import numpy as np

MELD_NONE: int

def encode_meld(kind: int, tile: int, red: int = ..., from_rel: int = ...) -> int: ...
def score_arrays(
    counts: np.ndarray,
    melds: np.ndarray,
    red: np.ndarray,
    win_tile: np.ndarray,
    flags: np.ndarray,
    seat_wind: np.ndarray,
    round_wind: np.ndarray,
    from_rel: np.ndarray,
    pao_rel: np.ndarray,
    dora: np.ndarray,
    ura: np.ndarray,
    honba: np.ndarray,
    riichi_sticks: np.ndarray,
    rules: tuple[int, ...],
    n_threads: int = ...,
    kita: np.ndarray | None = ...,
) -> dict[str, Any]: ...

BUILT_FOR: str
