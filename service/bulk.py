"""Batches of hands (``mjcore.v1.PackedHands``, packed as ``mjcore.wire.packing`` describes)
decoded to numpy arrays. Batch-level problems raise ``RpcError``; problems of single hands are
returned by index so the good hands are still answered.
"""
from __future__ import annotations

import grpc
import numpy as np

from mjcore import batch as mj_batch
from mjcore import status
from mjcore.batch import BatchResult
from mjcore.errors import InvalidHandError
from mjcore.wire.layout import N_KINDS
from mjcore.wire.packing import (
    BYTES_PER_HAND,
    COUNTS_U8,
    PACKED_4BIT,
    TEXT_LINES,
    USED_BITS,
    unpack_4bit,
)
from mjcore.wire.v1 import types_pb2

from .errors import RpcError, invalid_argument

# a text line's size against its melds is checked by the operation, not by the decoding
_SIZE_REASONS = (status.reason_of(status.BAD_TOTAL), status.reason_of(status.BAD_MELDS))


class Batch:
    """A decoded batch: counts, meld counts, and the hands already known to be bad."""

    __slots__ = ("counts", "errors", "n_melds", "text_result")

    def __init__(self, counts: np.ndarray, n_melds: np.ndarray,
                 errors: dict[int, InvalidHandError],
                 text_result: BatchResult | None = None) -> None:
        self.counts = counts
        self.n_melds = n_melds
        self.errors = errors
        self.text_result = text_result

    def __len__(self) -> int:
        return self.counts.shape[0]


def _melds_for_total(total: int) -> int:
    k = (14 - total) // 3 if total % 3 == 2 else (13 - total) // 3
    return min(4, max(0, k))


_MELDS_FOR_TOTAL = np.array([_melds_for_total(t) for t in range(256)], dtype=np.uint8)


def derive_n_melds(counts: np.ndarray) -> np.ndarray:
    """Called melds implied by each hand's tile count (13 - 3k or 14 - 3k); 0 when neither.
    The uint8 sum only wraps for rows holding a count above 4, which the kernels reject."""
    flat = np.ascontiguousarray(counts, dtype=np.uint8).ravel()
    if not flat.size:
        return np.zeros(0, dtype=np.uint8)
    total = np.add.reduceat(flat, np.arange(0, flat.size, N_KINDS), dtype=np.uint8)
    return _MELDS_FOR_TOTAL[total]


def _size_checks(n: int, max_batch: int, batch_no: int) -> None:
    if n == 0:
        raise invalid_argument(f"batch {batch_no}: no hands", "EMPTY_BATCH", batch=batch_no)
    if n > max_batch:
        raise RpcError(grpc.StatusCode.RESOURCE_EXHAUSTED,
                       f"batch {batch_no}: {n} hands, the server accepts at most {max_batch}",
                       "BATCH_TOO_LARGE", batch=batch_no, limit=max_batch, size=n)


def _text(data: bytes, max_batch: int, batch_no: int) -> BatchResult:
    """Parse text lines with the library's text path (which also computes their shanten)."""
    lines = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    _size_checks(lines, max_batch, batch_no)
    result = mj_batch.shanten_text(data, keep_counts=True)
    _size_checks(len(result), max_batch, batch_no)
    return result


def decode(hands: types_pb2.PackedHands, max_batch: int, batch_no: int) -> Batch:
    """Validate the framing of one batch and decode it to (N, 34) counts and (N,) meld counts."""
    encoding = hands.encoding
    data = hands.data
    errors: dict[int, InvalidHandError] = {}
    text_result = None
    if encoding == TEXT_LINES:
        text_result = _text(data, max_batch, batch_no)
        counts = text_result.counts
        errors = {i: e for i, e in text_result.errors_by_row().items()
                  if e.reason not in _SIZE_REASONS}
    elif encoding in BYTES_PER_HAND:
        size = BYTES_PER_HAND[encoding]
        if len(data) % size:
            raise invalid_argument(
                f"batch {batch_no}: {len(data)} bytes is not a multiple of {size} "
                f"({types_pb2.HandEncoding.Name(encoding)})", "BAD_BATCH_LENGTH",
                batch=batch_no, bytes=len(data))
        n = len(data) // size
        _size_checks(n, max_batch, batch_no)
        if encoding == COUNTS_U8:
            counts = np.frombuffer(data, dtype=np.uint8).reshape(n, N_KINDS)
        elif encoding == PACKED_4BIT:
            counts = unpack_4bit(np.frombuffer(data, dtype=np.uint8).reshape(n, N_KINDS // 2))
        else:
            words = np.frombuffer(data, dtype="<u4").reshape(n, 4)
            counts = mj_batch.unpack(words)
            for i in np.flatnonzero((words & ~USED_BITS).any(axis=1)).tolist():
                errors[i] = InvalidHandError(
                    f"hand {i}: bits set outside the 3-bit fields", reason="bad_packing",
                    index=i)
    else:
        raise invalid_argument(f"batch {batch_no}: hands.encoding: {encoding} is not a "
                               "HandEncoding value accepted here", "BAD_ENCODING",
                               batch=batch_no, field="hands.encoding")
    n = counts.shape[0]
    if hands.n_melds:
        if len(hands.n_melds) != n:
            raise invalid_argument(
                f"batch {batch_no}: n_melds has {len(hands.n_melds)} entries for {n} hands",
                "BAD_N_MELDS", batch=batch_no)
        n_melds = np.frombuffer(hands.n_melds, dtype=np.uint8)
    else:
        n_melds = derive_n_melds(counts)
    if errors:
        # hands that failed framing are zeroed so the kernels report nothing else for them
        counts = counts.copy()
        counts[list(errors)] = 0
    return Batch(counts, n_melds, errors, text_result)
