/* HPACK (RFC 7541) header-block decoder: header-only C99, libc only.
 *
 * One hpack_decoder per HTTP/2 connection (the peer's request headers). Not thread-safe; emit
 * must not call back into the same decoder. Every error is a COMPRESSION_ERROR: after one,
 * hpack_decode_block returns HPACK_E_UNUSABLE (free it; init makes a fresh one).
 *
 * max_table_size (init) is both the table's starting maximum and the limit for the peer's size
 * updates: our SETTINGS_HEADER_TABLE_SIZE. Keep it >= 4096 (the protocol default): a peer may
 * use 4096 before it sees our SETTINGS, and a decoder table larger than the encoder's is safe
 * (it holds the same newest entries under the same indexes), a smaller one is not.
 *
 * Dynamic table: entry bytes (name then value) live oldest first in one buffer at logical
 * offsets [head, tail); eviction advances head, an append that does not fit compacts or grows
 * the buffer (capacity at most 2 * max_table_size, so compaction is amortised O(1) per byte).
 * Entries' metadata sit in a power-of-two ring. Both grow on demand.
 */
#ifndef MJCORE_HPACK_H
#define MJCORE_HPACK_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define HPACK_OK 0
#define HPACK_E_TRUNCATED (-1)  /* input ends inside a field, integer or string */
#define HPACK_E_INTEGER (-2)    /* integer above 2^31-1 or longer than 5 continuation bytes */
#define HPACK_E_INDEX (-3)      /* index 0 or beyond the static + dynamic table */
#define HPACK_E_HUFFMAN (-4)    /* invalid code, EOS in a string, bad padding */
#define HPACK_E_TABLE_SIZE (-5) /* size update above the maximum or not at the block start */
#define HPACK_E_NOMEM (-6)      /* allocation failed */
#define HPACK_E_UNUSABLE (-7)   /* an earlier error (or a failed init) broke this decoder */

/* Called once per header field, in order; name and value are valid only during the call. */
typedef void (*hpack_emit_fn)(void *ctx, const uint8_t *name, size_t name_len,
                              const uint8_t *value, size_t value_len);

typedef struct hpack_entry {
    uint64_t pos; /* logical offset of the name; the value follows it */
    uint32_t name_len;
    uint32_t value_len;
} hpack_entry;

typedef struct hpack_decoder {
    uint8_t *buf;           /* entry bytes; buf[0] is at logical offset buf_origin */
    size_t buf_cap;
    uint64_t buf_origin;
    uint64_t head;          /* logical offset of the oldest entry */
    uint64_t tail;          /* logical offset just past the newest entry */
    hpack_entry *ents;      /* ring of entries, ents_cap a power of two (or 0) */
    uint32_t ents_cap;
    uint32_t ents_len;
    uint32_t ents_newest;   /* ring slot of the newest entry */
    uint32_t size;          /* RFC 7541 4.1 size: sum of name_len + value_len + 32 */
    uint32_t max_size;      /* current maximum, set by size updates */
    uint32_t max_size_limit; /* max_table_size given to init (our SETTINGS_HEADER_TABLE_SIZE) */
    uint8_t *scratch;       /* Huffman output and copied names */
    size_t scratch_cap;
    int failed;
    size_t error_offset;    /* offset in the block of the field that failed */
} hpack_decoder;

/* Huffman code (RFC 7541 Appendix B), canonical; generated from hpack.huffman_constants by
   tests/service/front/test_hpack.py (python tests/service/front/test_hpack.py --tables). */
/* BEGIN HUFFMAN TABLES */
static const uint16_t hpack__huff_primary[256] = {
    0x0530, 0x0530, 0x0530, 0x0530, 0x0530, 0x0530, 0x0530, 0x0530, 0x0531, 0x0531, 0x0531, 0x0531,
    0x0531, 0x0531, 0x0531, 0x0531, 0x0532, 0x0532, 0x0532, 0x0532, 0x0532, 0x0532, 0x0532, 0x0532,
    0x0561, 0x0561, 0x0561, 0x0561, 0x0561, 0x0561, 0x0561, 0x0561, 0x0563, 0x0563, 0x0563, 0x0563,
    0x0563, 0x0563, 0x0563, 0x0563, 0x0565, 0x0565, 0x0565, 0x0565, 0x0565, 0x0565, 0x0565, 0x0565,
    0x0569, 0x0569, 0x0569, 0x0569, 0x0569, 0x0569, 0x0569, 0x0569, 0x056f, 0x056f, 0x056f, 0x056f,
    0x056f, 0x056f, 0x056f, 0x056f, 0x0573, 0x0573, 0x0573, 0x0573, 0x0573, 0x0573, 0x0573, 0x0573,
    0x0574, 0x0574, 0x0574, 0x0574, 0x0574, 0x0574, 0x0574, 0x0574, 0x0620, 0x0620, 0x0620, 0x0620,
    0x0625, 0x0625, 0x0625, 0x0625, 0x062d, 0x062d, 0x062d, 0x062d, 0x062e, 0x062e, 0x062e, 0x062e,
    0x062f, 0x062f, 0x062f, 0x062f, 0x0633, 0x0633, 0x0633, 0x0633, 0x0634, 0x0634, 0x0634, 0x0634,
    0x0635, 0x0635, 0x0635, 0x0635, 0x0636, 0x0636, 0x0636, 0x0636, 0x0637, 0x0637, 0x0637, 0x0637,
    0x0638, 0x0638, 0x0638, 0x0638, 0x0639, 0x0639, 0x0639, 0x0639, 0x063d, 0x063d, 0x063d, 0x063d,
    0x0641, 0x0641, 0x0641, 0x0641, 0x065f, 0x065f, 0x065f, 0x065f, 0x0662, 0x0662, 0x0662, 0x0662,
    0x0664, 0x0664, 0x0664, 0x0664, 0x0666, 0x0666, 0x0666, 0x0666, 0x0667, 0x0667, 0x0667, 0x0667,
    0x0668, 0x0668, 0x0668, 0x0668, 0x066c, 0x066c, 0x066c, 0x066c, 0x066d, 0x066d, 0x066d, 0x066d,
    0x066e, 0x066e, 0x066e, 0x066e, 0x0670, 0x0670, 0x0670, 0x0670, 0x0672, 0x0672, 0x0672, 0x0672,
    0x0675, 0x0675, 0x0675, 0x0675, 0x073a, 0x073a, 0x0742, 0x0742, 0x0743, 0x0743, 0x0744, 0x0744,
    0x0745, 0x0745, 0x0746, 0x0746, 0x0747, 0x0747, 0x0748, 0x0748, 0x0749, 0x0749, 0x074a, 0x074a,
    0x074b, 0x074b, 0x074c, 0x074c, 0x074d, 0x074d, 0x074e, 0x074e, 0x074f, 0x074f, 0x0750, 0x0750,
    0x0751, 0x0751, 0x0752, 0x0752, 0x0753, 0x0753, 0x0754, 0x0754, 0x0755, 0x0755, 0x0756, 0x0756,
    0x0757, 0x0757, 0x0759, 0x0759, 0x076a, 0x076a, 0x076b, 0x076b, 0x0771, 0x0771, 0x0776, 0x0776,
    0x0777, 0x0777, 0x0778, 0x0778, 0x0779, 0x0779, 0x077a, 0x077a, 0x0826, 0x082a, 0x082c, 0x083b,
    0x0858, 0x085a, 0x0000, 0x0000,
};
static const uint16_t hpack__huff_sorted[257] = {
    48, 49, 50, 97, 99, 101, 105, 111, 115, 116, 32, 37, 45, 46, 47, 51,
    52, 53, 54, 55, 56, 57, 61, 65, 95, 98, 100, 102, 103, 104, 108, 109,
    110, 112, 114, 117, 58, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76,
    77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 89, 106, 107, 113, 118,
    119, 120, 121, 122, 38, 42, 44, 59, 88, 90, 33, 34, 40, 41, 63, 39,
    43, 124, 35, 62, 0, 36, 64, 91, 93, 126, 94, 125, 60, 96, 123, 92,
    195, 208, 128, 130, 131, 162, 184, 194, 224, 226, 153, 161, 167, 172, 176, 177,
    179, 209, 216, 217, 227, 229, 230, 129, 132, 133, 134, 136, 146, 154, 156, 160,
    163, 164, 169, 170, 173, 178, 181, 185, 186, 187, 189, 190, 196, 198, 228, 232,
    233, 1, 135, 137, 138, 139, 140, 141, 143, 147, 149, 150, 151, 152, 155, 157,
    158, 165, 166, 168, 174, 175, 180, 182, 183, 188, 191, 197, 231, 239, 9, 142,
    144, 145, 148, 159, 171, 206, 215, 225, 236, 237, 199, 207, 234, 235, 192, 193,
    200, 201, 202, 205, 210, 213, 218, 219, 238, 240, 242, 243, 255, 203, 204, 211,
    212, 214, 221, 222, 223, 241, 244, 245, 246, 247, 248, 250, 251, 252, 253, 254,
    2, 3, 4, 5, 6, 7, 8, 11, 12, 14, 15, 16, 17, 18, 19, 20,
    21, 23, 24, 25, 26, 27, 28, 29, 30, 31, 127, 220, 249, 10, 13, 22,
    256,
};
static const uint32_t hpack__huff_first[31] = {
    0x0u, 0x0u, 0x0u, 0x0u, 0x0u, 0x0u, 0x14u, 0x5cu,
    0xf8u, 0x1fcu, 0x3f8u, 0x7fau, 0xffau, 0x1ff8u, 0x3ffcu, 0x7ffcu,
    0xfffeu, 0x1fffcu, 0x3fff8u, 0x7fff0u, 0xfffe6u, 0x1fffdcu, 0x3fffd2u, 0x7fffd8u,
    0xffffeau, 0x1ffffecu, 0x3ffffe0u, 0x7ffffdeu, 0xfffffe2u, 0x1ffffffeu, 0x3ffffffcu,
};
static const uint16_t hpack__huff_base[31] = {
    0, 0, 0, 0, 0, 0, 10, 36, 68, 74, 74, 79, 82, 84, 90, 92,
    95, 95, 95, 95, 98, 106, 119, 145, 174, 186, 190, 205, 224, 253, 253,
};
static const uint64_t hpack__huff_limit[31] = {
    0x0ull, 0x0ull, 0x0ull, 0x0ull,
    0x0ull, 0x50000000ull, 0xb8000000ull, 0xf8000000ull,
    0xfe000000ull, 0xfe000000ull, 0xff400000ull, 0xffa00000ull,
    0xffc00000ull, 0xfff00000ull, 0xfff80000ull, 0xfffe0000ull,
    0xfffe0000ull, 0xfffe0000ull, 0xfffe0000ull, 0xfffe6000ull,
    0xfffee000ull, 0xffff4800ull, 0xffffb000ull, 0xffffea00ull,
    0xfffff600ull, 0xfffff800ull, 0xfffffbc0ull, 0xfffffe20ull,
    0xfffffff0ull, 0xfffffff0ull, 0x100000000ull,
};
/* END HUFFMAN TABLES */

/* RFC 7541 Appendix A. */
typedef struct hpack__static_entry {
    const char *name;
    const char *value;
    uint8_t name_len;
    uint8_t value_len;
} hpack__static_entry;

#define HPACK__S(n, v) { n, v, (uint8_t)(sizeof(n) - 1), (uint8_t)(sizeof(v) - 1) }
static const hpack__static_entry hpack__static_table[61] = {
    HPACK__S(":authority", ""), HPACK__S(":method", "GET"), HPACK__S(":method", "POST"),
    HPACK__S(":path", "/"), HPACK__S(":path", "/index.html"), HPACK__S(":scheme", "http"),
    HPACK__S(":scheme", "https"), HPACK__S(":status", "200"), HPACK__S(":status", "204"),
    HPACK__S(":status", "206"), HPACK__S(":status", "304"), HPACK__S(":status", "400"),
    HPACK__S(":status", "404"), HPACK__S(":status", "500"), HPACK__S("accept-charset", ""),
    HPACK__S("accept-encoding", "gzip, deflate"), HPACK__S("accept-language", ""),
    HPACK__S("accept-ranges", ""), HPACK__S("accept", ""),
    HPACK__S("access-control-allow-origin", ""), HPACK__S("age", ""), HPACK__S("allow", ""),
    HPACK__S("authorization", ""), HPACK__S("cache-control", ""),
    HPACK__S("content-disposition", ""), HPACK__S("content-encoding", ""),
    HPACK__S("content-language", ""), HPACK__S("content-length", ""),
    HPACK__S("content-location", ""), HPACK__S("content-range", ""),
    HPACK__S("content-type", ""), HPACK__S("cookie", ""), HPACK__S("date", ""),
    HPACK__S("etag", ""), HPACK__S("expect", ""), HPACK__S("expires", ""),
    HPACK__S("from", ""), HPACK__S("host", ""), HPACK__S("if-match", ""),
    HPACK__S("if-modified-since", ""), HPACK__S("if-none-match", ""), HPACK__S("if-range", ""),
    HPACK__S("if-unmodified-since", ""), HPACK__S("last-modified", ""), HPACK__S("link", ""),
    HPACK__S("location", ""), HPACK__S("max-forwards", ""), HPACK__S("proxy-authenticate", ""),
    HPACK__S("proxy-authorization", ""), HPACK__S("range", ""), HPACK__S("referer", ""),
    HPACK__S("refresh", ""), HPACK__S("retry-after", ""), HPACK__S("server", ""),
    HPACK__S("set-cookie", ""), HPACK__S("strict-transport-security", ""),
    HPACK__S("transfer-encoding", ""), HPACK__S("user-agent", ""), HPACK__S("vary", ""),
    HPACK__S("via", ""), HPACK__S("www-authenticate", ""),
};
#undef HPACK__S
#define HPACK__STATIC_LEN 61u
#define HPACK__MAX_INT 0x7fffffffu

static inline const char *hpack_strerror(int code)
{
    switch (code) {
    case HPACK_OK: return "HPACK_OK: success";
    case HPACK_E_TRUNCATED: return "HPACK_E_TRUNCATED: block ends inside a field, integer or string";
    case HPACK_E_INTEGER: return "HPACK_E_INTEGER: integer above 2^31-1 or too many continuation bytes";
    case HPACK_E_INDEX: return "HPACK_E_INDEX: index 0 or beyond the static and dynamic tables";
    case HPACK_E_HUFFMAN: return "HPACK_E_HUFFMAN: invalid Huffman code, EOS in a string or bad padding";
    case HPACK_E_TABLE_SIZE: return "HPACK_E_TABLE_SIZE: table size update above the maximum or after a field";
    case HPACK_E_NOMEM: return "HPACK_E_NOMEM: out of memory";
    case HPACK_E_UNUSABLE: return "HPACK_E_UNUSABLE: decoder failed earlier (HPACK errors are connection errors)";
    default: return "HPACK_E_UNKNOWN: unknown error code";
    }
}

static inline void hpack_decoder_free(hpack_decoder *d)
{
    free(d->buf);
    free(d->ents);
    free(d->scratch);
    d->buf = NULL;
    d->ents = NULL;
    d->scratch = NULL;
    d->buf_cap = d->scratch_cap = 0;
    d->ents_cap = d->ents_len = 0;
    d->size = 0;
    d->failed = 1;
}

static inline int hpack_decoder_init(hpack_decoder *d, uint32_t max_table_size)
{
    memset(d, 0, sizeof(*d));
    if (max_table_size > HPACK__MAX_INT) /* no size update could name more */
        max_table_size = HPACK__MAX_INT;
    d->max_size = d->max_size_limit = max_table_size;
    d->scratch_cap = 256;
    d->scratch = (uint8_t *)malloc(d->scratch_cap);
    if (d->scratch == NULL) {
        d->scratch_cap = 0;
        d->failed = 1;
        return HPACK_E_NOMEM;
    }
    return HPACK_OK;
}

/* Integer with an n-bit prefix (RFC 7541 5.1); *pp points at the prefix byte. */
static inline int hpack__read_int(const uint8_t **pp, const uint8_t *end, unsigned prefix_bits,
                                  uint32_t *out)
{
    const uint8_t *p = *pp;
    uint32_t mask = (1u << prefix_bits) - 1u;
    uint64_t value;
    unsigned shift = 0, i;
    if (p >= end)
        return HPACK_E_TRUNCATED;
    value = *p++ & mask;
    if (value == mask) {
        for (i = 0;; i++) {
            uint8_t b;
            if (i == 5)
                return HPACK_E_INTEGER;
            if (p >= end)
                return HPACK_E_TRUNCATED;
            b = *p++;
            value += (uint64_t)(b & 0x7fu) << shift;
            if (value > HPACK__MAX_INT)
                return HPACK_E_INTEGER;
            if (!(b & 0x80u))
                break;
            shift += 7;
        }
    }
    *pp = p;
    *out = (uint32_t)value;
    return HPACK_OK;
}

/* The symbol whose code starts at the top bit of acc, and the code's length: the 8-bit
   table for codes of up to 8 bits, the canonical limits for longer ones. */
static inline unsigned hpack__huff_symbol(uint64_t acc, unsigned *code_len)
{
    unsigned entry = hpack__huff_primary[acc >> 56];
    uint32_t window;
    unsigned n = 9;
    if (entry) {
        *code_len = entry >> 8;
        return entry & 0xffu;
    }
    window = (uint32_t)(acc >> 32);
    while (window >= hpack__huff_limit[n])
        n++;
    *code_len = n;
    return hpack__huff_sorted[hpack__huff_base[n] + ((window >> (32 - n)) - hpack__huff_first[n])];
}

/* Decodes len Huffman-coded bytes into dst, which has room for len * 8 / 5 bytes (the
   shortest code is 5 bits). 8-bit first-level table; longer codes by canonical limits.
   Bits wait left-aligned in acc; while 8 input bytes remain, refills are one unaligned load
   (bits past nbits are the next bytes' own bits, so ORing them in again is harmless). */
static inline int hpack__huff_decode(const uint8_t *src, size_t len, uint8_t *dst,
                                     size_t *out_len)
{
    const uint8_t *p = src, *end = src + len;
    uint8_t *o = dst;
    uint64_t acc = 0;
    unsigned nbits = 0, code_len, sym;
    while (end - p >= 8) {
        uint64_t word = 0;
        unsigned i;
        for (i = 0; i < 8; i++) /* big-endian load; compilers make it one load + bswap */
            word = word << 8 | p[i];
        acc |= word >> nbits;
        p += (63u - nbits) >> 3;
        nbits |= 56u;
        do { /* nbits >= 30: any code fits */
            sym = hpack__huff_symbol(acc, &code_len);
            if (sym == 256)
                return HPACK_E_HUFFMAN;
            *o++ = (uint8_t)sym;
            acc <<= code_len;
            nbits -= code_len;
        } while (nbits >= 30);
    }
    acc &= nbits ? ~(uint64_t)0 << (64 - nbits) : 0; /* drop bits past nbits: reloaded below */
    for (;;) {
        while (nbits <= 56 && p < end) {
            acc |= (uint64_t)*p++ << (56 - nbits);
            nbits += 8;
        }
        if (nbits == 0)
            break;
        sym = hpack__huff_symbol(acc, &code_len);
        if (code_len > nbits) {
            /* input ends inside a code: valid only as < 8 bits of EOS prefix (all ones) */
            if (nbits <= 7 && (acc >> (64 - nbits)) == (((uint64_t)1 << nbits) - 1u))
                break;
            return HPACK_E_HUFFMAN;
        }
        if (sym == 256)
            return HPACK_E_HUFFMAN;
        *o++ = (uint8_t)sym;
        acc <<= code_len;
        nbits -= code_len;
    }
    *out_len = (size_t)(o - dst);
    return HPACK_OK;
}

static inline int hpack__reserve_scratch(hpack_decoder *d, size_t need)
{
    size_t cap = d->scratch_cap ? d->scratch_cap : 256;
    uint8_t *grown;
    if (need <= d->scratch_cap)
        return HPACK_OK;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    grown = (uint8_t *)malloc(cap);
    if (grown == NULL)
        return HPACK_E_NOMEM;
    free(d->scratch);
    d->scratch = grown;
    d->scratch_cap = cap;
    return HPACK_OK;
}

static inline hpack_entry *hpack__entry(const hpack_decoder *d, uint32_t age)
{
    return &d->ents[(d->ents_newest - age) & (d->ents_cap - 1u)];
}

static inline void hpack__evict_oldest(hpack_decoder *d)
{
    const hpack_entry *e = hpack__entry(d, d->ents_len - 1u);
    d->size -= e->name_len + e->value_len + 32u;
    d->head = e->pos + e->name_len + e->value_len;
    d->ents_len--;
}

static inline void hpack__shrink_to(hpack_decoder *d, uint32_t max_size)
{
    while (d->size > max_size)
        hpack__evict_oldest(d);
}

/* Adds an entry (RFC 7541 4.4). name and value must not point into d->buf. */
static inline int hpack__insert(hpack_decoder *d, const uint8_t *name, size_t name_len,
                                const uint8_t *value, size_t value_len)
{
    uint64_t entry_size = (uint64_t)name_len + value_len + 32u;
    size_t bytes = name_len + value_len, used, at;
    hpack_entry *e;
    if (entry_size > d->max_size) {
        d->ents_len = 0;
        d->size = 0;
        d->head = d->tail;
        return HPACK_OK;
    }
    while ((uint64_t)d->size + entry_size > d->max_size)
        hpack__evict_oldest(d);
    if (d->ents_len == d->ents_cap) {
        uint32_t cap = d->ents_cap ? d->ents_cap * 2u : 16u, i;
        hpack_entry *ring = (hpack_entry *)malloc((size_t)cap * sizeof(hpack_entry));
        if (ring == NULL)
            return HPACK_E_NOMEM;
        for (i = 0; i < d->ents_len; i++) /* oldest first, newest at ents_len - 1 */
            ring[i] = *hpack__entry(d, d->ents_len - 1u - i);
        free(d->ents);
        d->ents = ring;
        d->ents_cap = cap;
        d->ents_newest = d->ents_len - 1u; /* wraps to cap - 1 when empty: masked on use */
    }
    used = (size_t)(d->tail - d->head);
    if ((size_t)(d->tail - d->buf_origin) + bytes > d->buf_cap) {
        size_t need = used + bytes, cap_max = (size_t)d->max_size_limit * 2u;
        if (d->buf_cap < cap_max && need > d->buf_cap / 2u) {
            size_t cap = d->buf_cap ? d->buf_cap * 2u : 256u;
            uint8_t *grown;
            while (cap < need * 2u)
                cap *= 2u;
            if (cap > cap_max)
                cap = cap_max;
            grown = (uint8_t *)malloc(cap);
            if (grown == NULL)
                return HPACK_E_NOMEM;
            if (used)
                memcpy(grown, d->buf + (size_t)(d->head - d->buf_origin), used);
            free(d->buf);
            d->buf = grown;
            d->buf_cap = cap;
        } else if (used) {
            memmove(d->buf, d->buf + (size_t)(d->head - d->buf_origin), used);
        }
        d->buf_origin = d->head;
    }
    at = (size_t)(d->tail - d->buf_origin);
    if (name_len)
        memcpy(d->buf + at, name, name_len);
    if (value_len)
        memcpy(d->buf + at + name_len, value, value_len);
    d->ents_newest = (d->ents_newest + 1u) & (d->ents_cap - 1u);
    e = &d->ents[d->ents_newest];
    e->pos = d->tail;
    e->name_len = (uint32_t)name_len;
    e->value_len = (uint32_t)value_len;
    d->ents_len++;
    d->tail += bytes;
    d->size += (uint32_t)entry_size;
    return HPACK_OK;
}

/* Looks up index (1-based, static then dynamic). Sets *dynamic when the strings live in d->buf. */
static inline int hpack__lookup(const hpack_decoder *d, uint32_t index, const uint8_t **name,
                                size_t *name_len, const uint8_t **value, size_t *value_len,
                                int *dynamic)
{
    if (index == 0)
        return HPACK_E_INDEX;
    if (index <= HPACK__STATIC_LEN) {
        const hpack__static_entry *s = &hpack__static_table[index - 1u];
        *name = (const uint8_t *)s->name;
        *name_len = s->name_len;
        *value = (const uint8_t *)s->value;
        *value_len = s->value_len;
        *dynamic = 0;
    } else {
        const hpack_entry *e;
        const uint8_t *at;
        index -= HPACK__STATIC_LEN + 1u;
        if (index >= d->ents_len)
            return HPACK_E_INDEX;
        e = hpack__entry(d, index);
        /* buf is still NULL while every entry so far was empty */
        at = d->buf ? d->buf + (size_t)(e->pos - d->buf_origin) : (const uint8_t *)"";
        *name = at;
        *name_len = e->name_len;
        *value = at + e->name_len;
        *value_len = e->value_len;
        *dynamic = 1;
    }
    return HPACK_OK;
}

/* String literal header (RFC 7541 5.2): H flag and length; the bytes stay in the block. */
static inline int hpack__read_string(const uint8_t **pp, const uint8_t *end, const uint8_t **str,
                                     size_t *len, int *huffman)
{
    uint32_t n;
    int rc;
    if (*pp >= end)
        return HPACK_E_TRUNCATED;
    *huffman = (**pp & 0x80u) != 0;
    rc = hpack__read_int(pp, end, 7, &n);
    if (rc)
        return rc;
    if (n > (size_t)(end - *pp))
        return HPACK_E_TRUNCATED;
    *str = *pp;
    *len = n;
    *pp += n;
    return HPACK_OK;
}

/* Literal header field (RFC 7541 6.2); *pp points at its first byte. */
static inline int hpack__literal(hpack_decoder *d, const uint8_t **pp, const uint8_t *end,
                                 unsigned prefix_bits, int indexing, hpack_emit_fn emit,
                                 void *ctx)
{
    const uint8_t *name = NULL, *value = NULL, *unused_value;
    size_t name_len = 0, value_len = 0, unused_len, need = 0, off = 0;
    int name_huff = 0, value_huff = 0, name_dynamic = 0, rc;
    uint32_t index;
    rc = hpack__read_int(pp, end, prefix_bits, &index);
    if (rc)
        return rc;
    if (index == 0)
        rc = hpack__read_string(pp, end, &name, &name_len, &name_huff);
    else
        rc = hpack__lookup(d, index, &name, &name_len, &unused_value, &unused_len, &name_dynamic);
    if (rc)
        return rc;
    rc = hpack__read_string(pp, end, &value, &value_len, &value_huff);
    if (rc)
        return rc;
    if (name_huff)
        need += name_len / 5u * 8u + name_len % 5u * 8u / 5u;
    if (indexing && name_dynamic)
        need += name_len;
    if (value_huff)
        need += value_len / 5u * 8u + value_len % 5u * 8u / 5u;
    if (need) {
        rc = hpack__reserve_scratch(d, need);
        if (rc)
            return rc;
    }
    if (name_huff) {
        rc = hpack__huff_decode(name, name_len, d->scratch, &name_len);
        if (rc)
            return rc;
        name = d->scratch;
        off = name_len;
    } else if (indexing && name_dynamic) {
        /* inserting may evict and move the entry this name points into */
        memcpy(d->scratch, name, name_len);
        name = d->scratch;
        off = name_len;
    }
    if (value_huff) {
        rc = hpack__huff_decode(value, value_len, d->scratch + off, &value_len);
        if (rc)
            return rc;
        value = d->scratch + off;
    }
    emit(ctx, name, name_len, value, value_len);
    return indexing ? hpack__insert(d, name, name_len, value, value_len) : HPACK_OK;
}

static inline int hpack_decode_block(hpack_decoder *d, const uint8_t *block, size_t len,
                                     hpack_emit_fn emit, void *ctx)
{
    const uint8_t *p = block, *end = block + len;
    int fields = 0, rc = HPACK_OK;
    if (d->failed)
        return HPACK_E_UNUSABLE;
    if (len == 0)
        return HPACK_OK;
    while (p < end) {
        const uint8_t *start = p;
        uint8_t b = *p;
        if (b & 0x80u) { /* indexed (6.1) */
            const uint8_t *name, *value;
            size_t name_len, value_len;
            uint32_t index;
            int dynamic;
            rc = hpack__read_int(&p, end, 7, &index);
            if (rc == HPACK_OK)
                rc = hpack__lookup(d, index, &name, &name_len, &value, &value_len, &dynamic);
            if (rc == HPACK_OK)
                emit(ctx, name, name_len, value, value_len);
            fields = 1;
        } else if (b & 0x40u) { /* literal with incremental indexing (6.2.1) */
            rc = hpack__literal(d, &p, end, 6, 1, emit, ctx);
            fields = 1;
        } else if (b & 0x20u) { /* dynamic table size update (6.3) */
            uint32_t size = 0;
            rc = fields ? HPACK_E_TABLE_SIZE : hpack__read_int(&p, end, 5, &size);
            if (rc == HPACK_OK && size > d->max_size_limit)
                rc = HPACK_E_TABLE_SIZE;
            if (rc == HPACK_OK) {
                d->max_size = size;
                hpack__shrink_to(d, size);
            }
        } else { /* literal without indexing (6.2.2) or never indexed (6.2.3) */
            rc = hpack__literal(d, &p, end, 4, 0, emit, ctx);
            fields = 1;
        }
        if (rc) {
            d->failed = 1;
            d->error_offset = (size_t)(start - block);
            return rc;
        }
    }
    return HPACK_OK;
}

#endif /* MJCORE_HPACK_H */
