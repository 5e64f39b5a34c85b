# Typed surface of the compiled dataset analysis pass (private; use
# mjcore.dataset.hands.analyze_hands).
from typing import TypeAlias

import numpy as np
import numpy.typing as npt

_U8: TypeAlias = npt.NDArray[np.uint8]
_I8: TypeAlias = npt.NDArray[np.int8]
_I16: TypeAlias = npt.NDArray[np.int16]

SMALL_ROWS: dict[str, int]
WIDE_ROWS: dict[str, int]
MASK_ROWS: dict[str, int]
DISCARD_NOT_HELD: int
NOT_HELD_SHANTEN: int
PACKED_BYTES: int

def analyse(counts: _U8, n_melds: _U8, visible: _U8, made: _I16, forms: _U8, status: _I8,
            small: _I8, wide: _I16, masks: npt.NDArray[np.uint64], discard_shanten: _I8,
            discard_ukeire: _U8, n_threads: int) -> None: ...
def pack_discards(discard_shanten: _I8, discard_ukeire: _U8, best_shanten: _I8, made: _I16,
                  packed: _U8, out: _U8) -> int: ...
def unpack_discards(records: _U8, at: int, rows: npt.NDArray[np.int64], made: _I16,
                    discard_shanten: _I8, discard_ukeire: _U8, small: _I8, wide: _I16,
                    masks: npt.NDArray[np.uint64]) -> int: ...

BUILT_FOR: str
