from collections.abc import Sequence
from typing import Any

import numpy as np

def evaluate_raw(counts: Sequence[int], red: Sequence[int],
                 melds: Sequence[tuple[int, int, int, int]], visible: Sequence[int],
                 visible_red: Sequence[int], dora: Sequence[int], seat_wind: int,
                 round_wind: int, kita: int, model: int, t_max: int, extra: int,
                 use_red: bool, use_ura: bool, shanten_down: bool, tegawari: bool,
                 max_shanten: int, max_nodes: int, max_seconds: float,
                 rules_params: tuple[Any, ...], keep_wins: bool = ...
                 ) -> tuple[Any, ...]: ...
def evaluate_arrays(counts: np.ndarray, red: np.ndarray, melds: np.ndarray,
                    visible: np.ndarray, visible_red: np.ndarray, dora: np.ndarray,
                    seat_wind: np.ndarray, round_wind: np.ndarray, kita: np.ndarray,
                    discard: np.ndarray, turn: int, model: int, t_max: int, extra: int,
                    use_red: bool, use_ura: bool, shanten_down: bool, tegawari: bool,
                    max_shanten: int, max_nodes: int, max_seconds: float,
                    rules_params: tuple[Any, ...], n_threads: int,
                    per_tile: bool, cpu_clock: bool = ...) -> dict[str, np.ndarray]: ...

BUILT_FOR: str


def release_work() -> None: ...
