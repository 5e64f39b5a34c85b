from collections.abc import Sequence
from typing import Any, TypeAlias

_Candidate: TypeAlias = tuple[int, int, int, list[list[float]] | None]

def evaluate_raw(counts: Sequence[int], red: Sequence[int],
                 melds: Sequence[tuple[int, int, int, int]], wall: Sequence[int],
                 wall_red: Sequence[int], dora: Sequence[int], seat_wind: int, round_wind: int,
                 kita: int, t_max: int, extra: int, use_red: bool, use_ura: bool,
                 shanten_down: bool, tegawari: bool, max_shanten: int, max_nodes: int,
                 max_seconds: float, rules_params: tuple[Any, ...]
                 ) -> tuple[int, int, int, int, int, int, int, list[_Candidate]]: ...
