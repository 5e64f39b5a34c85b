from collections.abc import Sequence
from typing import Any, NamedTuple

from typing_extensions import disjoint_base

N_YAKU_IDS: int
MAX_FU_ITEM_COUNT: int
MAX_INDICATOR_COUNT: int
YAKU_NAMES: tuple[tuple[str, str], ...]
LIMIT_NAMES: tuple[str, ...]
FU_ITEM_NAMES: tuple[str, ...]
WAIT_NAMES: tuple[str, ...]

class Yaku(NamedTuple):
    id: int
    name: str
    name_ja: str
    han: int

class FuEntry(NamedTuple):
    item: str
    tile: int | str | None
    fu: int

@disjoint_base
class ScoreResult:
    @property
    def winner(self) -> int: ...
    @property
    def status(self) -> str: ...
    @property
    def status_code(self) -> int: ...
    @property
    def is_win(self) -> bool: ...
    @property
    def han(self) -> int: ...
    @property
    def fu(self) -> int: ...
    @property
    def yaku(self) -> tuple[Yaku, ...]: ...
    @property
    def yaku_mask(self) -> int: ...
    @property
    def yaku_han(self) -> tuple[int, ...]: ...
    @property
    def dora(self) -> int: ...
    @property
    def ura(self) -> int: ...
    @property
    def aka(self) -> int: ...
    @property
    def yakuman(self) -> int: ...
    @property
    def is_kazoe(self) -> bool: ...
    @property
    def limit(self) -> int: ...
    @property
    def limit_name(self) -> str: ...
    @property
    def basic(self) -> int: ...
    @property
    def points(self) -> int: ...
    @property
    def fu_items(self) -> tuple[FuEntry, ...]: ...
    @property
    def deltas(self) -> tuple[int, int, int, int]: ...
    @property
    def payments(self) -> tuple[int, int, int, int]: ...
    @property
    def players(self) -> int: ...
    @property
    def decomposition_index(self) -> int: ...
    @property
    def n_decompositions(self) -> int: ...
    @property
    def wait(self) -> str: ...
    @property
    def decomposition(self) -> Any: ...
    def to_dict(self) -> dict[str, Any]: ...

def score_raw(
    counts: Sequence[int] | bytes,
    melds: Sequence[tuple[int, int, int, int]],
    red: int,
    win_tile: int,
    flags: int,
    seat_wind: int,
    round_wind: int,
    from_rel: int,
    pao_rel: int,
    dora: Sequence[int],
    ura: Sequence[int],
    honba: int,
    riichi_sticks: int,
    rules: tuple[int, ...],
    winner: int = ...,
    kita: int = ...,
) -> ScoreResult: ...
def score_plain(
    counts: bytes,
    melds: Sequence[tuple[int, int, int, int]],
    red: int,
    win_tile: int,
    flags: int,
    seat_wind: int,
    round_wind: int,
    from_rel: int,
    dora: object,
    ura: object,
    honba: int,
    riichi_sticks: int,
    rules: tuple[int, ...],
    kita: int = ...,
) -> ScoreResult | None: ...

BUILT_FOR: str
