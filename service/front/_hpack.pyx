"""Python surface of the HPACK decoder in hpack.h, for tests and measurements.

The HTTP/2 front calls hpack.h directly; this wrapper turns each header block into a list of
(name, value) byte pairs and each decoding error into HpackError (a ValueError).
"""
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize
from libc.stdint cimport uint8_t, uint32_t

from time import perf_counter_ns

# service/ is the source folder of mjcore.service: Cython finds the .pxd by that path
from service.front.hpack cimport (HPACK_E_HUFFMAN, HPACK_E_INDEX, HPACK_E_INTEGER,
                                  HPACK_E_NOMEM, HPACK_E_TABLE_SIZE, HPACK_E_TRUNCATED,
                                  HPACK_E_UNUSABLE, HPACK_OK, hpack__entry, hpack_decode_block,
                                  hpack_decoder, hpack_decoder_free, hpack_decoder_init,
                                  hpack_entry, hpack_strerror)


ERROR_CODES = {
    "HPACK_E_TRUNCATED": HPACK_E_TRUNCATED,
    "HPACK_E_INTEGER": HPACK_E_INTEGER,
    "HPACK_E_INDEX": HPACK_E_INDEX,
    "HPACK_E_HUFFMAN": HPACK_E_HUFFMAN,
    "HPACK_E_TABLE_SIZE": HPACK_E_TABLE_SIZE,
    "HPACK_E_NOMEM": HPACK_E_NOMEM,
    "HPACK_E_UNUSABLE": HPACK_E_UNUSABLE,
}


class HpackError(ValueError):
    """A header block that is not valid HPACK (an HTTP/2 COMPRESSION_ERROR).

    ``code`` is the negative HPACK_E_* value, ``name`` its name, ``offset`` the byte offset in
    the block of the representation that failed."""

    def __init__(self, code: int, offset: int) -> None:
        message = hpack_strerror(code).decode()
        self.code = code
        self.name = message.split(":", 1)[0]
        self.offset = offset
        super().__init__(f"{message} (field at byte {offset})")


cdef class HeaderDecoder:
    """One connection's HPACK decoding context (RFC 7541)."""

    cdef hpack_decoder _d
    cdef list _out
    cdef object _emit_error

    def __cinit__(self, uint32_t max_table_size=4096):
        if hpack_decoder_init(&self._d, max_table_size) != HPACK_OK:
            hpack_decoder_free(&self._d)
            raise MemoryError("hpack_decoder_init")

    def __dealloc__(self):
        hpack_decoder_free(&self._d)

    def decode(self, bytes block) -> list:
        """Decodes one complete header block into [(name, value), ...]."""
        self._out = []
        self._emit_error = None
        rc = hpack_decode_block(&self._d, <const uint8_t *>PyBytes_AS_STRING(block), len(block),
                                _collect, <void *>self)
        out, self._out = self._out, None
        if self._emit_error is not None:
            raise self._emit_error
        if rc != HPACK_OK:
            raise HpackError(rc, self._d.error_offset)
        return out

    @property
    def table_size(self) -> int:
        """Current dynamic table size (RFC 7541 4.1)."""
        return self._d.size

    @property
    def max_table_size(self) -> int:
        """Current maximum set by the last size update."""
        return self._d.max_size

    def dynamic_entries(self) -> list:
        """Dynamic table entries, newest first."""
        cdef uint32_t age
        cdef hpack_entry *e
        cdef const uint8_t *at
        entries = []
        for age in range(self._d.ents_len):
            e = hpack__entry(&self._d, age)
            if e.name_len + e.value_len == 0:
                entries.append((b"", b""))
                continue
            at = self._d.buf + <size_t>(e.pos - self._d.buf_origin)
            entries.append((PyBytes_FromStringAndSize(<const char *>at, e.name_len),
                            PyBytes_FromStringAndSize(<const char *>at + e.name_len,
                                                      e.value_len)))
        return entries


cdef void _collect(void *ctx, const uint8_t *name, size_t name_len, const uint8_t *value,
                   size_t value_len) noexcept:
    cdef HeaderDecoder decoder = <HeaderDecoder>ctx
    if decoder._emit_error is not None:
        return
    try:
        decoder._out.append((PyBytes_FromStringAndSize(<const char *>name, name_len),
                             PyBytes_FromStringAndSize(<const char *>value, value_len)))
    except BaseException as exc:
        decoder._emit_error = exc


cdef void _count(void *ctx, const uint8_t *name, size_t name_len, const uint8_t *value,
                 size_t value_len) noexcept nogil:
    (<size_t *>ctx)[0] += name_len + value_len


def bench_decode(bytes block, long iterations, list setup=None, bint fresh=False,
                 uint32_t max_table_size=4096) -> float:
    """Nanoseconds per decode of block, timed in a C loop. fresh: each iteration inits a
    decoder, decodes setup then block, and frees it; otherwise one decoder decodes setup once,
    then block `iterations` times (right for blocks that do not change the table)."""
    cdef hpack_decoder d
    cdef size_t sink = 0
    cdef long i
    cdef int rc = HPACK_OK
    cdef const uint8_t *data = <const uint8_t *>PyBytes_AS_STRING(block)
    cdef size_t n = len(block)
    cdef bytes b
    setup = setup or []
    if fresh and setup:
        raise ValueError("fresh runs time setup blocks too; pass them as one block")
    if not fresh:
        if hpack_decoder_init(&d, max_table_size) != HPACK_OK:
            raise MemoryError("hpack_decoder_init")
        for b in setup:
            rc = hpack_decode_block(&d, <const uint8_t *>PyBytes_AS_STRING(b), len(b), _count,
                                    &sink)
            if rc != HPACK_OK:
                hpack_decoder_free(&d)
                raise HpackError(rc, d.error_offset)
    start = perf_counter_ns()
    with nogil:
        for i in range(iterations):
            if fresh:
                rc = hpack_decoder_init(&d, max_table_size)
                if rc != HPACK_OK:
                    break
            rc = hpack_decode_block(&d, data, n, _count, &sink)
            if fresh:
                hpack_decoder_free(&d)
            if rc != HPACK_OK:
                break
    elapsed = perf_counter_ns() - start
    if not fresh:
        hpack_decoder_free(&d)
    if rc != HPACK_OK:
        raise HpackError(rc, d.error_offset)
    return elapsed / iterations
