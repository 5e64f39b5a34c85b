# Typed surface of the compiled batch kernels (private; use mjcore.batch).
# `forms`: the winning forms (mjcore._core.shanten.RIICHI, CLASSICAL or CLASSICAL_SEVEN_PAIRS).
from typing import TypeAlias

import numpy as np
import numpy.typing as npt

U8: TypeAlias = npt.NDArray[np.uint8]
I8: TypeAlias = npt.NDArray[np.int8]

STATUS_CODES: dict[str, int]

def shanten(counts: U8, n_melds: U8, forms: int, out: I8, status: I8, by_form: I8,
            n_threads: int) -> None: ...
def is_agari(counts: U8, n_melds: U8, forms: int, out: U8, status: I8, n_threads: int) -> None: ...
def advance(counts: U8, n_melds: U8, forms: int, masks: npt.NDArray[np.uint64], shanten_out: I8,
            status: I8, n_threads: int) -> None: ...
def ukeire(counts: U8, n_melds: U8, forms: int, after: I8, masks: npt.NDArray[np.uint64],
           best_shanten: I8, best_discard: I8, best_count: npt.NDArray[np.uint16], status: I8,
           n_threads: int) -> None: ...
def line_chunks(data: U8, n_threads: int = ...) -> tuple[int, npt.NDArray[np.int64]]: ...
def text_shanten(data: U8, plan: npt.NDArray[np.int64], forms: int, out: I8, status: I8,
                 err_pos: npt.NDArray[np.int32], counts_out: U8, n_threads: int) -> None: ...
