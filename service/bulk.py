"""Packed batches of hands (``mjcore.v1.PackedHands``) to and from numpy arrays.

Counts travel as ``HAND_ENCODING_COUNTS_U8`` (34 bytes a hand), ``HAND_ENCODING_PACKED_4BIT``
(17 bytes a hand, a nibble a kind), ``HAND_ENCODING_PACKED_3BIT`` (four little-endian uint32
words a hand, 3 bits a kind: man, pin, sou, honors) or ``HAND_ENCODING_TEXT_LINES`` (one mpsz
hand a line). Batch-level problems raise ``RpcError``; problems of single hands are returned
by index so the good hands are still answered.
"""
from __future__ import annotations

import grpc
import numpy as np

from mjcore import batch as mj_batch
from mjcore import status
from mjcore.batch import BatchResult
from mjcore.errors import InvalidHandError

from .errors import RpcError, invalid_argument
from .gen.mjcore.v1 import types_pb2

N_KINDS = 34
COUNTS_U8 = types_pb2.HAND_ENCODING_COUNTS_U8
PACKED_3BIT = types_pb2.HAND_ENCODING_PACKED_3BIT
TEXT_LINES = types_pb2.HAND_ENCODING_TEXT_LINES
PACKED_4BIT = types_pb2.HAND_ENCODING_PACKED_4BIT
BYTES_PER_HAND = {COUNTS_U8: N_KINDS, PACKED_3BIT: 16, PACKED_4BIT: N_KINDS // 2}

# a text line's size against its melds is checked by the operation, not by the decoding
_SIZE_REASONS = (status.reason_of(status.BAD_TOTAL), status.reason_of(status.BAD_MELDS))
_USED_BITS = np.array([(1 << 27) - 1] * 3 + [(1 << 21) - 1], dtype=np.uint32)
_SHIFTS = np.array([3 * i for i in range(9)], dtype=np.uint32)


def pack_3bit(counts: np.ndarray) -> np.ndarray:
    """(N, 34) uint8 counts of 0..7 -> (N, 4) little-endian uint32 words (any count, unlike
    ``mjcore.batch.pack``, so a client can send a bad row for the server to report)."""
    wide = counts.astype("<u4")
    words = np.empty((counts.shape[0], 4), dtype="<u4")
    for g in range(3):
        words[:, g] = (wide[:, 9 * g:9 * g + 9] << _SHIFTS).sum(axis=1, dtype="<u4")
    words[:, 3] = (wide[:, 27:34] << _SHIFTS[:7]).sum(axis=1, dtype="<u4")
    return words


def pack_4bit(counts: np.ndarray) -> np.ndarray:
    """(N, 34) uint8 counts of 0..15 -> (N, 17) uint8 nibble pairs (kind 2j low, 2j+1 high)."""
    pairs = np.ascontiguousarray(counts, dtype=np.uint8).view("<u2")
    return (pairs | (pairs >> 4)).astype(np.uint8)


def unpack_4bit(packed: np.ndarray) -> np.ndarray:
    """(N, 17) uint8 nibble pairs -> (N, 34) uint8 counts."""
    counts = np.empty((packed.shape[0], N_KINDS), dtype=np.uint8)
    counts[:, 0::2] = packed & 15
    counts[:, 1::2] = packed >> 4
    return counts


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
        errors = {int(e.index or 0): e for e in text_result.errors()
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
            for i in np.flatnonzero((words & ~_USED_BITS).any(axis=1)).tolist():
                errors[i] = InvalidHandError(
                    f"hand {i}: bits set outside the 3-bit fields", reason="bad_packing",
                    index=i)
    else:
        raise invalid_argument(f"batch {batch_no}: unknown hand encoding {encoding}",
                               "BAD_ENCODING", batch=batch_no)
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


def encode_into(target: types_pb2.PackedHands, counts: np.ndarray,
                n_melds: np.ndarray | None = None,
                encoding: types_pb2.HandEncoding = PACKED_4BIT) -> None:
    """Fill a PackedHands message (for example a request's ``hands``) from (N, 34) counts."""
    counts = np.ascontiguousarray(counts, dtype=np.uint8)
    if counts.ndim != 2 or counts.shape[1] != N_KINDS:
        raise ValueError(f"counts must have shape (N, 34), not {counts.shape}")
    limit = 7 if encoding == PACKED_3BIT else 15 if encoding == PACKED_4BIT else None
    if limit is not None and counts.size and counts.max() > limit:
        encoding = COUNTS_U8  # not representable; let the server report the rows
    if encoding == PACKED_3BIT:
        data = pack_3bit(counts).tobytes()
    elif encoding == PACKED_4BIT:
        data = pack_4bit(counts).tobytes()
    elif encoding == COUNTS_U8:
        data = counts.tobytes()
    else:
        raise ValueError(f"cannot encode counts as {encoding}")
    target.encoding = encoding
    target.data = data
    if n_melds is not None:
        target.n_melds = np.ascontiguousarray(n_melds, dtype=np.uint8).tobytes()


def encode(counts: np.ndarray, n_melds: np.ndarray | None = None,
           encoding: types_pb2.HandEncoding = PACKED_4BIT) -> types_pb2.PackedHands:
    """A new PackedHands message from (N, 34) counts."""
    hands = types_pb2.PackedHands()
    encode_into(hands, counts, n_melds, encoding)
    return hands
