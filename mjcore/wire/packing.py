"""Hands packed into ``mjcore.v1.PackedHands`` (the client) and unpacked (the service).

Counts travel as ``HAND_ENCODING_COUNTS_U8`` (34 bytes a hand), ``HAND_ENCODING_PACKED_4BIT``
(17 bytes a hand, a nibble a kind), ``HAND_ENCODING_PACKED_3BIT`` (four little-endian uint32
words a hand, 3 bits a kind: man, pin, sou, honors) or ``HAND_ENCODING_TEXT_LINES`` (one mpsz
hand a line).
"""
from __future__ import annotations

import numpy as np

from .layout import N_KINDS
from .v1 import types_pb2

COUNTS_U8 = types_pb2.HAND_ENCODING_COUNTS_U8
PACKED_3BIT = types_pb2.HAND_ENCODING_PACKED_3BIT
TEXT_LINES = types_pb2.HAND_ENCODING_TEXT_LINES
PACKED_4BIT = types_pb2.HAND_ENCODING_PACKED_4BIT
BYTES_PER_HAND = {COUNTS_U8: N_KINDS, PACKED_3BIT: 16, PACKED_4BIT: N_KINDS // 2}
# the client's names of the encodings
ENCODINGS = {"nibble": PACKED_4BIT, "packed": PACKED_3BIT, "counts": COUNTS_U8}

USED_BITS = np.array([(1 << 27) - 1] * 3 + [(1 << 21) - 1], dtype=np.uint32)
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
    packed: np.ndarray = (pairs | (pairs >> 4)).astype(np.uint8)
    return packed


def unpack_4bit(packed: np.ndarray) -> np.ndarray:
    """(N, 17) uint8 nibble pairs -> (N, 34) uint8 counts."""
    counts = np.empty((packed.shape[0], N_KINDS), dtype=np.uint8)
    counts[:, 0::2] = packed & 15
    counts[:, 1::2] = packed >> 4
    return counts


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


__all__ = ["BYTES_PER_HAND", "COUNTS_U8", "ENCODINGS", "PACKED_3BIT", "PACKED_4BIT",
           "TEXT_LINES", "USED_BITS", "encode", "encode_into", "pack_3bit", "pack_4bit",
           "unpack_4bit"]
