# Typed surface of the compiled batch kernels (private; use mjcore.batch).
# `forms`: the winning forms (mjcore._core.shanten.RIICHI, CLASSICAL or CLASSICAL_SEVEN_PAIRS).
from typing import TypeAlias

import numpy as np
import numpy.typing as npt

_U8: TypeAlias = npt.NDArray[np.uint8]
_I8: TypeAlias = npt.NDArray[np.int8]

STATUS_CODES: dict[str, int]

def shanten(counts: _U8, n_melds: _U8, forms: int, out: _I8, status: _I8, by_form: _I8,
            n_threads: int, in_play: int = ...) -> None: ...
def is_agari(counts: _U8, n_melds: _U8, forms: int, out: _U8, status: _I8,
             n_threads: int, in_play: int = ...) -> None: ...
def advance(counts: _U8, n_melds: _U8, forms: int, masks: npt.NDArray[np.uint64], shanten_out: _I8,
            status: _I8, n_threads: int, in_play: int = ...) -> None: ...
def ukeire(counts: _U8, n_melds: _U8, forms: int, after: _I8, masks: npt.NDArray[np.uint64],
           best_shanten: _I8, best_discard: _I8, best_count: npt.NDArray[np.uint16], status: _I8,
           n_threads: int, in_play: int = ...) -> None: ...
def line_chunks(data: _U8, n_threads: int = ...) -> tuple[int, npt.NDArray[np.int64]]: ...
def text_shanten(data: _U8, plan: npt.NDArray[np.int64], forms: int, out: _I8, status: _I8,
                 err_pos: npt.NDArray[np.int32], counts_out: _U8, n_threads: int,
                 in_play: int = ...) -> None: ...

BUILT_FOR: str
