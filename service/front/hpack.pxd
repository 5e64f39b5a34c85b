# The HPACK decoder in hpack.h (header-only C), declared once for the front's compiled modules.
from libc.stdint cimport uint8_t, uint32_t, uint64_t


cdef extern from "hpack.h":
    # called in the context of hpack_decode_block's caller: a nogil caller passes a nogil
    # callback (the HTTP/2 connection's); the tests' decoder holds the GIL and builds objects
    ctypedef void (*hpack_emit_fn)(void *ctx, const uint8_t *name, size_t name_len,
                                   const uint8_t *value, size_t value_len) noexcept


cdef extern from "hpack.h" nogil:
    ctypedef struct hpack_entry:
        uint64_t pos
        uint32_t name_len
        uint32_t value_len
    ctypedef struct hpack_decoder:
        uint8_t *buf
        uint64_t buf_origin
        uint32_t ents_len
        uint32_t size
        uint32_t max_size
        uint32_t max_size_limit
        size_t error_offset

    int HPACK_OK
    int HPACK_E_TRUNCATED
    int HPACK_E_INTEGER
    int HPACK_E_INDEX
    int HPACK_E_HUFFMAN
    int HPACK_E_TABLE_SIZE
    int HPACK_E_NOMEM
    int HPACK_E_UNUSABLE

    int hpack_decoder_init(hpack_decoder *d, uint32_t max_table_size)
    void hpack_decoder_free(hpack_decoder *d)
    int hpack_decode_block(hpack_decoder *d, const uint8_t *block, size_t length,
                           hpack_emit_fn emit, void *ctx)
    const char *hpack_strerror(int code)
    hpack_entry *hpack__entry(const hpack_decoder *d, uint32_t age)
