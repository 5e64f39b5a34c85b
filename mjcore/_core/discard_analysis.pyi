# Typed surface of the compiled dataset analysis pass (private; use
# mjcore.dataset.hands.analyze_hands).
from typing import TypeAlias

import numpy as np
import numpy.typing as npt

U8: TypeAlias = npt.NDArray[np.uint8]
I8: TypeAlias = npt.NDArray[np.int8]
I16: TypeAlias = npt.NDArray[np.int16]

SMALL_ROWS: dict[str, int]
WIDE_ROWS: dict[str, int]
MASK_ROWS: dict[str, int]
DISCARD_NOT_HELD: int
NOT_HELD_SHANTEN: int

def analyse(counts: U8, n_melds: U8, visible: U8, made: I16, forms: U8, status: I8, small: I8,
            wide: I16, masks: npt.NDArray[np.uint64], discard_shanten: I8, discard_ukeire: U8,
            n_threads: int) -> None: ...
