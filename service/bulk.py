"""The bulk calls' batches of hands, and the bulk analysis RPCs both games answer.

A batch (``mjcore.v1.PackedHands``, packed as ``mjcore.wire.packing`` describes) is decoded to
numpy arrays: batch-level problems raise ``RpcError``; problems of single hands are returned by
index so the good hands are still answered. StreamShanten, StreamWaits and StreamAgari run a
batch through the library's batch kernel under the rules of either game, chunk by chunk, so a
cancelled or expired call stops within one chunk of kernel work.
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import numpy as np

from mjcore import batch as mj_batch
from mjcore import status
from mjcore.batch import BatchResult
from mjcore.errors import InvalidHandError
from mjcore.wire import layout
from mjcore.wire.layout import N_KINDS
from mjcore.wire.packing import (
    BYTES_PER_HAND,
    COUNTS_U8,
    PACKED_4BIT,
    TEXT_LINES,
    USED_BITS,
    unpack_4bit,
)
from mjcore.wire.v1 import analysis_service_pb2 as pb
from mjcore.wire.v1 import types_pb2

from .errors import RpcError, invalid_argument
from .requests import (
    NOT_IN_SANMA_REASON,
    batch_limit,
    check_deadline,
    chunks,
    hand_errors,
    not_in_play_row,
    stream_rules,
)

BAD_I8 = layout.BAD_SHANTEN

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


# -- the bulk analysis RPCs -----------------------------------------------------------------------

def batches(servicer: Any, request_iterator: Iterator[Any], context: Any,
            out_bytes: Callable[[Any], int]) -> Iterator[tuple[int, Any, Batch]]:
    """Decode each request batch; ``out_bytes(request)`` is the answer's size per hand,
    so a batch whose answer could not be sent is refused up front."""
    for batch_no, request in enumerate(request_iterator):
        check_deadline(context)
        yield batch_no, request, decode(request.hands, batch_limit(servicer, out_bytes(request)),
                                        batch_no)


def run(kernel: Callable[..., BatchResult], batch: Batch, context: Any,
        fields: dict[str, np.ndarray], n_threads: int) -> dict[int, InvalidHandError] | None:
    """Run ``kernel`` over the batch chunk by chunk, copying each result array named in
    ``fields`` into it; the bad rows by index, or None when the call went away."""
    found: dict[int, InvalidHandError] = {}
    n = len(batch)
    for start, stop in chunks(n, context):
        result = kernel(batch.counts[start:stop], batch.n_melds[start:stop],
                        n_threads=n_threads)
        for name, out in fields.items():
            out[start:stop] = getattr(result, name)
        if result.status.any():
            found.update(result.errors_by_row(start))
    if not context.is_active():
        return None
    for i, err in found.items():
        if err.reason == NOT_IN_SANMA_REASON:
            found[i] = not_in_play_row(batch.counts[i], i)
    found.update(batch.errors)  # framing and parse errors explain a row best
    return found


def stream_shanten(servicer: Any, request_iterator: Iterator[Any], context: Any
                   ) -> Iterator[pb.StreamShantenResponse]:
    for batch_no, request, batch in batches(servicer, request_iterator, context, _shanten_out):
        n = len(batch)
        rules = stream_rules(request, batch_no)
        if batch.text_result is not None and not request.per_form and rules is None:
            errors = batch.text_result.errors_by_row()
            out = batch.text_result.shanten
            forms = None
        else:
            out = np.empty(n, dtype=np.int8)
            fields: dict[str, np.ndarray] = {"shanten": out}
            forms = None
            kernel = functools.partial(mj_batch.shanten, rules=rules)
            if request.per_form:
                forms = np.empty((n, 3), dtype=np.int8)
                fields["forms"] = forms
                kernel = functools.partial(mj_batch.shanten, forms=True, rules=rules)
            found = run(kernel, batch, context, fields, servicer.kernel_threads)
            if found is None:
                return
            errors = found
        if errors:
            bad = sorted(errors)
            out[bad] = BAD_I8
            if forms is not None:
                forms[bad] = BAD_I8
        response = pb.StreamShantenResponse(batch=batch_no, hand_count=n, shanten=out.tobytes(),
                                            errors=hand_errors(errors))
        if forms is not None:
            response.standard = forms[:, 0].tobytes()
            response.chiitoitsu = forms[:, 1].tobytes()
            response.kokushi = forms[:, 2].tobytes()
        yield response


def stream_waits(servicer: Any, request_iterator: Iterator[Any], context: Any
                 ) -> Iterator[pb.StreamWaitsResponse]:
    for batch_no, request, batch in batches(servicer, request_iterator, context, _waits_out):
        n = len(batch)
        masks = np.empty(n, dtype="<u8")
        advance = np.empty(n, dtype="<u8")
        shanten = np.empty(n, dtype=np.int8)
        kernel = functools.partial(mj_batch.waits, rules=stream_rules(request, batch_no))
        errors = run(kernel, batch, context,
                     {"mask": masks, "advance_mask": advance, "shanten": shanten},
                     servicer.kernel_threads)
        if errors is None:
            return
        if errors:
            bad = sorted(errors)
            masks[bad] = 0
            advance[bad] = 0
            shanten[bad] = BAD_I8
        yield pb.StreamWaitsResponse(batch=batch_no, hand_count=n, masks=masks.tobytes(),
                                     shanten=shanten.tobytes(),
                                     advance_masks=advance.tobytes(),
                                     errors=hand_errors(errors))


def stream_agari(servicer: Any, request_iterator: Iterator[Any], context: Any
                 ) -> Iterator[pb.StreamAgariResponse]:
    for batch_no, request, batch in batches(servicer, request_iterator, context, _agari_out):
        n = len(batch)
        agari = np.empty(n, dtype=np.bool_)
        kernel = functools.partial(mj_batch.is_agari, rules=stream_rules(request, batch_no))
        errors = run(kernel, batch, context, {"agari": agari}, servicer.kernel_threads)
        if errors is None:
            return
        if errors:
            agari[sorted(errors)] = False
        yield pb.StreamAgariResponse(batch=batch_no, hand_count=n,
                                     agari=agari.view(np.uint8).tobytes(),
                                     errors=hand_errors(errors))


def _shanten_out(request: Any) -> int:
    forms = layout.SHANTEN_FORM_ARRAYS if request.per_form else {}
    return layout.row_bytes(layout.SHANTEN_RESPONSE_ARRAYS, forms)


def _waits_out(request: Any) -> int:
    return layout.row_bytes(layout.WAITS_RESPONSE_ARRAYS)


def _agari_out(request: Any) -> int:
    return layout.row_bytes(layout.AGARI_RESPONSE_ARRAYS)
