# The dataset analysis of a table of hands in one GIL-free pass: per row, shanten by form, the
# ukeire of a 13-3k tile hand and its waits, and for a 14-3k tile hand the shanten and ukeire
# after every discard, the efficiency-best discards and how the discard made compares. Ukeire
# counts the copies the player cannot see: 4 minus those in the hand and in `visible`, >= 0.
# Each row gets a status (0 = ok, a negative Status, or ST_DISCARD_NOT_HELD); a bad row never
# costs the results of the others.

from cython.parallel cimport prange
from libc.string cimport memcpy, memset

cdef extern from *:
    int __builtin_ctzll(unsigned long long) noexcept nogil
    int __builtin_popcountll(unsigned long long) noexcept nogil

# Two byte operations of pack_discards, with SSE2 and BMI2 where the build has them and a
# portable form everywhere: the 34-bit set of the kinds whose byte in a row is a value, and
# the bytes of the kinds in a set, in kind order (at most 8 bytes written past the last).
cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    #if defined(__SSE2__)
    #include <emmintrin.h>
    #endif
    #if defined(__BMI2__)
    #include <immintrin.h>
    #endif
    static inline uint64_t mj_kinds_equal(const int8_t* row, int value) {
        uint64_t tail = (uint64_t)(row[32] == (int8_t)value) |
                        (uint64_t)(row[33] == (int8_t)value) << 1;
    #if defined(__SSE2__)
        __m128i v = _mm_set1_epi8((char)value);
        uint64_t lo = (uint32_t)_mm_movemask_epi8(
            _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i*)row), v));
        uint64_t hi = (uint32_t)_mm_movemask_epi8(
            _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i*)(row + 16)), v));
        return lo | hi << 16 | tail << 32;
    #else
        uint64_t out = tail << 32;
        for (int g = 0; g < 4; g++) {          /* eight bytes at a time: a zero-byte test */
            uint64_t x, y, t;
            memcpy(&x, row + 8 * g, 8);
            y = x ^ ((uint64_t)(uint8_t)value * 0x0101010101010101ULL);
            t = ~((((y & 0x7F7F7F7F7F7F7F7FULL) + 0x7F7F7F7F7F7F7F7FULL) | y) |
                  0x7F7F7F7F7F7F7F7FULL);
            #if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            out |= (((t >> 7) * 0x0102040810204080ULL) >> 56) << (8 * g);
            #else
            for (int j = 0; j < 8; j++)
                out |= (uint64_t)(row[8 * g + j] == (int8_t)value) << (8 * g + j);
            #endif
        }
        return out;
    #endif
    }
    static inline uint8_t* mj_select_bytes(const uint8_t* src, uint64_t kinds, uint8_t* out) {
    #if defined(__BMI2__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        for (int g = 0; g < 5; g++) {
            uint64_t m = (kinds >> (8 * g)) & 0xFF, x = 0, picked;
            if (!m)
                continue;
            memcpy(&x, src + 8 * g, g < 4 ? 8 : 2);
            picked = _pext_u64(x, _pdep_u64(m, 0x0101010101010101ULL) * 0xFF);
            memcpy(out, &picked, 8);
            out += __builtin_popcountll(m);
        }
    #else
        while (kinds) {
            *out++ = src[__builtin_ctzll(kinds)];
            kinds &= kinds - 1;
        }
    #endif
        return out;
    }
    """
    u64 mj_kinds_equal(const i8* row, int value) noexcept nogil
    u8* mj_select_bytes(const u8* src, u64 kinds, u8* out) noexcept nogil

from mjcore._core.types cimport (PackedHand, i64, ST_OK, ST_BAD_TOTAL, ST_BAD_MELDS,
                                 ST_DISCARD_NOT_HELD)
from mjcore._core.shanten cimport (pack_counts, check_forms, shanten_forms, advance_forms,
                                   ukeire_forms)

cdef enum:
    NOT_HELD = 127               # discard_shanten of a kind not held

# rows of the `small` (int8) output
SMALL_ROWS = {"shanten": 0, "shanten_standard": 1, "shanten_chiitoitsu": 2,
              "shanten_kokushi": 3, "best_shanten": 4, "made_shanten": 5, "made_best": 6,
              "tiles": 7}
# rows of the `wide` (int16) output
WIDE_ROWS = {"ukeire": 0, "best_ukeire": 1, "made_ukeire": 2, "acceptance_lost": 3}
# rows of the `masks` (uint64, bit k = kind k) output
MASK_ROWS = {"waits": 0, "best_discards": 1}
DISCARD_NOT_HELD = ST_DISCARD_NOT_HELD
NOT_HELD_SHANTEN = NOT_HELD

# A 14-3k tile row's discards packed in PACKED_BYTES (pack_discards): the kinds held and
# those whose discard leaves the shanten one above the best (34-bit sets, 5 bytes each,
# little-endian), the best shanten (int8), the kind discarded (int8, -1 none) and the ukeire
# after discarding each held kind, in kind order (at most 14 kinds; the rest 0).
cdef enum:
    HELD_AT = 0
    WORSE_AT = 5
    BEST_AT = 10
    MADE_AT = 11
    UKEIRE_AT = 12
    MAX_HELD = 14
    PACKED = UKEIRE_AT + MAX_HELD
PACKED_BYTES = PACKED


cdef inline int weighted(u64 mask, u64 r1, u64 r2, u64 r4) noexcept nogil:
    """Sum of the remaining copies of the kinds in ``mask`` (remaining = r1 + 2 r2 + 4 r4)."""
    return (__builtin_popcountll(mask & r1) + 2 * __builtin_popcountll(mask & r2)
            + 4 * __builtin_popcountll(mask & r4))


cdef int analyse_row(const u8* counts, int n_melds, const u8* visible, int made, int forms,
                     i8* small, i16* wide, u64* masks, Py_ssize_t n, i8* d_shanten,
                     u8* d_ukeire) noexcept nogil:
    cdef PackedHand h
    cdef int f3[3]
    cdef i8 after[34]
    cdef u64 adv[34]
    cdef u64 r1 = 0, r2 = 0, r4 = 0, bit, mask = 0, held = 0, best = 0
    cdef int k, c, s, total = 0, best_key = 1 << 30
    memset(d_shanten, NOT_HELD, 34)
    memset(d_ukeire, 0, 34)
    for k in range(7):
        small[k * n] = 0
    for k in range(34):
        total += counts[k]
    small[7 * n] = <i8>(total if total < 127 else 127)     # closed tiles, also on bad rows
    for k in range(4):
        wide[k * n] = 0
    masks[0] = masks[1 * n] = 0
    small[6 * n] = -1
    if n_melds < 0 or n_melds > 4:
        return ST_BAD_MELDS
    total = pack_counts(counts, &h)
    if total < 0:
        return total
    total += 3 * n_melds
    if total != 13 and total != 14:
        return ST_BAD_TOTAL
    s = shanten_forms(&h, n_melds, forms, f3)
    if s < -1:
        return s
    small[0] = <i8>s
    small[1 * n] = <i8>f3[0]
    small[2 * n] = <i8>f3[1]
    small[3 * n] = <i8>f3[2]
    for k in range(34):                  # the unseen copies as three bit planes
        c = counts[k] + visible[k]
        c = 4 - c if c < 4 else 0
        bit = (<u64>1) << k
        if c & 1:
            r1 |= bit
        if c & 2:
            r2 |= bit
        if c & 4:
            r4 |= bit
    if total == 13:
        s = advance_forms(&h, n_melds, forms, &mask)
        if s < -1:
            return s
        wide[0] = <i16>weighted(mask, r1, r2, r4)
        if s == 0:
            masks[0] = mask
        return ST_OK
    s = ukeire_forms(&h, n_melds, forms, after, adv, False)
    if s < -1:
        return s
    for k in range(34):
        if after[k] == NOT_HELD:
            continue
        c = weighted(adv[k], r1, r2, r4)
        d_shanten[k] = after[k]
        d_ukeire[k] = <u8>c
        held |= (<u64>1) << k
        rank_one(k, after[k], c, &best_key, &best)
    return finish_rank(d_shanten, d_ukeire, held, best, best_key, made, small, wide, masks, n)


cdef inline void rank_one(int k, int shanten, int ukeire, int* best_key,
                          u64* best) noexcept nogil:
    """Rank the discard of kind ``k`` among those seen so far: smaller keys are better
    (shanten first, then more tiles); ``best`` collects the kinds of the best key."""
    cdef int key = shanten * 1024 - ukeire
    if key < best_key[0]:
        best_key[0] = key
        best[0] = 0
    if key == best_key[0]:
        best[0] |= (<u64>1) << k


cdef inline int finish_rank(const i8* d_shanten, const u8* d_ukeire, u64 held, u64 best,
                            int best_key, int made, i8* small, i16* wide, u64* masks,
                            Py_ssize_t n) noexcept nogil:
    """After ranking every held kind: the best discards, their shanten and ukeire, and how
    the discard ``made`` compares."""
    cdef int k, made_key
    small[5 * n] = 0
    small[6 * n] = -1
    wide[2 * n] = 0
    wide[3 * n] = 0
    masks[1 * n] = best
    if not best:
        return ST_BAD_TOTAL
    k = __builtin_ctzll(best)
    small[4 * n] = d_shanten[k]
    wide[1 * n] = d_ukeire[k]
    if made < 0:
        return ST_OK
    if made >= 34 or not (held >> made) & 1:
        return ST_DISCARD_NOT_HELD
    small[5 * n] = d_shanten[made]
    wide[2 * n] = d_ukeire[made]
    made_key = d_shanten[made] * 1024 - d_ukeire[made]
    small[6 * n] = made_key == best_key
    # acceptance given up: against the best line when the discard keeps its shanten, else all
    wide[3 * n] = wide[1 * n] - wide[2 * n] if d_shanten[made] == small[4 * n] else wide[1 * n]
    return ST_OK


def analyse(const u8[:, ::1] counts, const u8[::1] n_melds, const u8[:, ::1] visible,
            const i16[::1] made, const u8[::1] forms, i8[::1] status, i8[:, ::1] small,
            i16[:, ::1] wide, u64[:, ::1] masks, i8[:, ::1] discard_shanten,
            u8[:, ::1] discard_ukeire, int n_threads):
    """One pass over N rows. Inputs: closed counts (N, 34), called melds (N,), visible copies
    (N, 34), the discarded kind (N,; -1 none), the winning forms of each row (N,; types.Forms).
    Outputs, column-major so each field is contiguous: small (8, N) int8 and wide (4, N) int16
    by SMALL_ROWS / WIDE_ROWS, masks (2, N) uint64 by MASK_ROWS; discard_shanten (N, 34) int8
    (127 = not held) and discard_ukeire (N, 34) uint8; status (N,)."""
    cdef Py_ssize_t n = counts.shape[0], i
    cdef u64 seen[4]
    cdef int f
    if not (n_melds.shape[0] == visible.shape[0] == made.shape[0] == forms.shape[0] ==
            status.shape[0] == small.shape[1] == wide.shape[1] == masks.shape[1] ==
            discard_shanten.shape[0] == discard_ukeire.shape[0] == n):
        raise ValueError("analyse: every array needs one entry per row")
    if small.shape[0] != 8 or wide.shape[0] != 4 or masks.shape[0] != 2 or \
            visible.shape[1] != 34 or counts.shape[1] != 34 or \
            discard_shanten.shape[1] != 34 or discard_ukeire.shape[1] != 34:
        raise ValueError("analyse: an output array has the wrong shape")
    memset(seen, 0, sizeof(seen))
    for i in range(n):                  # every row's forms must be a set the games use
        seen[forms[i] >> 6] |= (<u64>1) << (forms[i] & 63)
    for f in range(256):
        if (seen[f >> 6] >> (f & 63)) & 1:
            check_forms(f)
    if n == 0:
        return
    with nogil:
        for i in prange(n, num_threads=n_threads, schedule="dynamic", chunksize=4096):
            status[i] = <i8>analyse_row(&counts[i, 0], n_melds[i], &visible[i, 0], made[i],
                                        forms[i], &small[0, i], &wide[0, i], &masks[0, i], n,
                                        &discard_shanten[i, 0], &discard_ukeire[i, 0])


cdef inline void put_bits(u8* at, u64 bits) noexcept nogil:
    cdef int j
    for j in range(5):
        at[j] = <u8>(bits >> (8 * j))


cdef inline u64 get_bits(const u8* at) noexcept nogil:
    cdef u64 bits = 0
    cdef int j
    for j in range(5):
        bits |= (<u64>at[j]) << (8 * j)
    return bits


cdef int pack_row(const i8* d_shanten, const u8* d_ukeire, int best, int made,
                  u8* o) noexcept nogil:
    """One row's discards for pack_discards; 0, or -1 when they do not fit."""
    cdef u64 held = ~mj_kinds_equal(d_shanten, NOT_HELD) & ((<u64>1 << 34) - 1)
    cdef u64 worse = mj_kinds_equal(d_shanten, best + 1) & held
    cdef u8 picked[MAX_HELD + 8]
    if __builtin_popcountll(held) > MAX_HELD or \
            held & ~(worse | mj_kinds_equal(d_shanten, best)):
        return -1
    put_bits(o + HELD_AT, held)
    put_bits(o + WORSE_AT, worse)
    o[BEST_AT] = <u8>best
    o[MADE_AT] = <u8>made
    memset(picked, 0, MAX_HELD)
    mj_select_bytes(d_ukeire, held, picked)
    memcpy(o + UKEIRE_AT, picked, MAX_HELD)
    return 0


cdef int unpack_row(const u8* p, i16* made, i8* d_shanten, u8* d_ukeire, i8* small,
                    i16* wide, u64* masks, Py_ssize_t n) noexcept nogil:
    """One row of unpack_discards; 0, or -1 for bytes that are not packed discards."""
    cdef u64 held = get_bits(p + HELD_AT), worse = get_bits(p + WORSE_AT), best = 0
    cdef int k, held_n = 0, best_key = 1 << 30
    if held >> 34 or worse & ~held or __builtin_popcountll(held) > MAX_HELD:
        return -1
    made[0] = <i8>p[MADE_AT]
    memset(d_shanten, NOT_HELD, 34)
    memset(d_ukeire, 0, 34)
    for k in range(34):
        if (held >> k) & 1:
            d_shanten[k] = <i8>p[BEST_AT] + <i8>((worse >> k) & 1)
            d_ukeire[k] = p[UKEIRE_AT + held_n]
            rank_one(k, d_shanten[k], d_ukeire[k], &best_key, &best)
            held_n += 1
    return -1 if finish_rank(d_shanten, d_ukeire, held, best, best_key, made[0], small, wide,
                             masks, n) != ST_OK else 0


def pack_discards(const i8[:, ::1] discard_shanten, const u8[:, ::1] discard_ukeire,
                  const i8[::1] best_shanten, const i16[::1] made, const u8[::1] packed,
                  u8[:, ::1] out):
    """Each row's discards in PACKED_BYTES of ``out`` when ``packed`` (an analysed 14-3k
    tile row); the other rows are left as they are. Returns -1, or the first row whose
    discards do not fit: more than 14 kinds held, or a discard leaving the shanten other than
    the best or one above (one exchange changes the shanten by at most one, so this does not
    happen)."""
    cdef Py_ssize_t n = out.shape[0], r, bad = -1
    if out.shape[1] != PACKED or discard_shanten.shape[0] != n or \
            discard_ukeire.shape[0] != n or best_shanten.shape[0] != n or \
            made.shape[0] != n or packed.shape[0] != n or \
            discard_shanten.shape[1] != 34 or discard_ukeire.shape[1] != 34:
        raise ValueError("pack_discards: arrays of different lengths")
    with nogil:
        for r in range(n):
            if packed[r] and pack_row(&discard_shanten[r, 0], &discard_ukeire[r, 0],
                                      best_shanten[r], made[r], &out[r, 0]) != 0:
                bad = r
                break
    return bad


def unpack_discards(const u8[:, ::1] records, Py_ssize_t at, const i64[::1] rows,
                    i16[::1] made, i8[:, ::1] discard_shanten, u8[:, ::1] discard_ukeire,
                    i8[:, ::1] small, i16[:, ::1] wide, u64[:, ::1] masks):
    """The inverse of pack_discards: for each row of ``rows``, from bytes ``at`` ..
    of its record, the made discard, discard_shanten and discard_ukeire, and the best and made
    discard fields ranked as analyse ranks them (outputs laid out as analyse's). Returns -1,
    or the first row whose bytes are not packed discards."""
    cdef Py_ssize_t m = rows.shape[0], j, bad = -1, r, n = discard_shanten.shape[0]
    if records.shape[0] != n or at < 0 or records.shape[1] < at + PACKED or \
            made.shape[0] != n or discard_ukeire.shape[0] != n or small.shape[1] != n or \
            wide.shape[1] != n or masks.shape[1] != n or small.shape[0] != 8 or \
            wide.shape[0] != 4 or masks.shape[0] != 2 or discard_shanten.shape[1] != 34 or \
            discard_ukeire.shape[1] != 34:
        raise ValueError("unpack_discards: arrays of different lengths")
    with nogil:
        for j in range(m):
            r = rows[j]
            if r < 0 or r >= n or \
                    unpack_row(&records[r, at], &made[r], &discard_shanten[r, 0],
                               &discard_ukeire[r, 0], &small[0, r], &wide[0, r], &masks[0, r],
                               n) != 0:
                bad = r
                break
    return bad


from mjcore._core.level cimport MJCORE_BUILT_LEVEL

BUILT_FOR = MJCORE_BUILT_LEVEL.decode()   # the instruction-set level of this module's code
