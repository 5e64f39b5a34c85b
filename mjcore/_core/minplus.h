/* Min-plus combination of per-group shanten distance vectors.
 *
 * A vector holds 16 bytes. Lanes 0-4: no pair, m = 0..4 sets; lanes 11-15: one pair,
 * m = 0..4 sets; lanes 5-10 are zero. Each lane stores the "worth" 64 - distance, so the
 * best (smallest) distance is the largest byte and shifted-in zero lanes are never chosen.
 * combine(a, b)[p, m] = max over splits of worth_a + worth_b - 64.
 * With SSSE3 this is a handful of byte shuffles per split; with SSE2 alone (the x86-64
 * baseline) the same with the broadcasts made from extracted words; otherwise a plain loop.
 */
#ifndef MJCORE_MINPLUS_H
#define MJCORE_MINPLUS_H

#include <stdint.h>
#include <string.h>

#define MP_WORTH 64
#define MP_PAIR_LANE 11

/* The pair lane M of combine(a, b) from the vectors' bytes: M sets split between a and b, the
 * pair on either side (a third of combine's work; for the paths without a byte shuffle). */
static inline int mp_final_worth_bytes(const uint8_t *a, const uint8_t *b, int M) {
    int best = 0;
    for (int m = 0; m <= M; m++) {
        int x = a[MP_PAIR_LANE + m] + b[M - m] - MP_WORTH;
        int y = a[m] + b[MP_PAIR_LANE + M - m] - MP_WORTH;
        if (x > best) best = x;
        if (y > best) best = y;
    }
    return best;
}

#if defined(__SSE2__)
#include <emmintrin.h>
#if defined(__SSSE3__)
#include <tmmintrin.h>
#include <smmintrin.h>
/* Lane k of v in every lane (k a constant). */
#define MP_BYTE(v, k) _mm_shuffle_epi8((v), _mm_set1_epi8(k))
#else
/* The x86-64 baseline has SSE2's saturating byte adds and max, but no byte shuffle. */
#define MP_BYTE(v, k) \
    _mm_set1_epi8((char)((_mm_extract_epi16((v), (k) >> 1) >> (8 * ((k) & 1))) & 0xFF))
#endif

typedef __m128i mp_vec;

static inline mp_vec mp_load(const uint8_t *p) { return _mm_loadu_si128((const __m128i *)p); }

static inline void mp_store(uint8_t *p, mp_vec v) { _mm_storeu_si128((__m128i *)p, v); }

/* The 64 is taken off once at the end: saturating subtraction commutes with max. */
#define MP_STEP(k)                                                                       \
    do {                                                                                 \
        __m128i b0 = MP_BYTE(b, k);                                                      \
        __m128i b1 = MP_BYTE(b, MP_PAIR_LANE + (k));                                     \
        __m128i t0 = _mm_adds_epu8(_mm_slli_si128(a, k), b0);                           \
        __m128i t1 = _mm_adds_epu8(_mm_slli_si128(a, MP_PAIR_LANE + (k)), b1);          \
        out = _mm_max_epu8(out, _mm_max_epu8(t0, t1));                                  \
    } while (0)

static inline mp_vec mp_combine(mp_vec a, mp_vec b) {
    const __m128i w = _mm_set1_epi8(MP_WORTH);
    const __m128i lanes = _mm_setr_epi8(-1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, -1, -1, -1, -1, -1);
    __m128i out = _mm_setzero_si128();
    MP_STEP(0);
    MP_STEP(1);
    MP_STEP(2);
    MP_STEP(3);
    MP_STEP(4);
    return _mm_and_si128(_mm_subs_epu8(out, w), lanes);
}

static inline int mp_lane(mp_vec v, int lane) {
    uint8_t tmp[16];
    _mm_storeu_si128((__m128i *)tmp, v);
    return tmp[lane];
}

/* Lanes j of v whose (p, m) together with rest's (1 - p, M - m) reach `worth`: a bit mask. */
static inline unsigned mp_optimal_lanes(mp_vec v, mp_vec rest_rev, int worth) {
    const __m128i w = _mm_set1_epi8(MP_WORTH);
    __m128i sum = _mm_subs_epu8(_mm_adds_epu8(v, rest_rev), w);
    return (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(sum, _mm_set1_epi8((char)worth)));
}

/* rest_rev lane (p, m) = rest lane (1 - p, M - m), zero where M - m < 0. */
#if defined(__SSSE3__)
static inline mp_vec mp_reverse(mp_vec rest, int M) {
    static const int8_t idx[5][16] = {
        {11, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, -1, -1, -1, -1},
        {12, 11, -1, -1, -1, -1, -1, -1, -1, -1, -1, 1, 0, -1, -1, -1},
        {13, 12, 11, -1, -1, -1, -1, -1, -1, -1, -1, 2, 1, 0, -1, -1},
        {14, 13, 12, 11, -1, -1, -1, -1, -1, -1, -1, 3, 2, 1, 0, -1},
        {15, 14, 13, 12, 11, -1, -1, -1, -1, -1, -1, 4, 3, 2, 1, 0},
    };
    return _mm_shuffle_epi8(rest, _mm_loadu_si128((const __m128i *)idx[M]));
}
#else
static inline mp_vec mp_reverse(mp_vec rest, int M) {
    uint8_t in[16], out[16] = {0};
    _mm_storeu_si128((__m128i *)in, rest);
    for (int m = 0; m <= M; m++) {
        out[m] = in[MP_PAIR_LANE + M - m];
        out[MP_PAIR_LANE + m] = in[M - m];
    }
    return _mm_loadu_si128((const __m128i *)out);
}
#endif

/* Saturated lane sums x[j] = a[j] + rest_rev[j] - 64, with rest_rev from mp_reverse. */
static inline mp_vec mp_add_rev(mp_vec a, mp_vec rest_rev) {
    return _mm_subs_epu8(_mm_adds_epu8(a, rest_rev), _mm_set1_epi8(MP_WORTH));
}

/* The largest lane. */
static inline int mp_max_lane(mp_vec x) {
    x = _mm_max_epu8(x, _mm_srli_si128(x, 8));
    x = _mm_max_epu8(x, _mm_srli_si128(x, 4));
    x = _mm_max_epu8(x, _mm_srli_si128(x, 2));
    x = _mm_max_epu8(x, _mm_srli_si128(x, 1));
    return _mm_cvtsi128_si32(x) & 0xFF;
}

/* Worth of M sets and one pair over a and b: the pair-lane M of combine(a, b), cheaper. */
#if defined(__SSSE3__)
static inline int mp_final_worth(mp_vec a, mp_vec b, int M) {
    return mp_max_lane(mp_add_rev(a, mp_reverse(b, M)));
}
#else
static inline int mp_final_worth(mp_vec a, mp_vec b, int M) {
    uint8_t ab[16], bb[16];
    _mm_storeu_si128((__m128i *)ab, a);
    _mm_storeu_si128((__m128i *)bb, b);
    return mp_final_worth_bytes(ab, bb, M);
}
#endif

/* Lanes of x equal to worth: a bit mask. */
static inline unsigned mp_lanes_equal(mp_vec x, int worth) {
    return (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8((char)worth)));
}

/* Like mp_reverse, for any target lane (p, m): out lane (q, n) = rest lane (p - q, m - n),
 * zero where that is not a lane. */
#if defined(__SSSE3__)
static inline mp_vec mp_reverse_to(mp_vec rest, int lane) {
    static const int8_t idx_np[5][16] = {
        {0, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
        {1, 0, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
        {2, 1, 0, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
        {3, 2, 1, 0, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
        {4, 3, 2, 1, 0, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
    };
    if (lane >= MP_PAIR_LANE) return mp_reverse(rest, lane - MP_PAIR_LANE);
    return _mm_shuffle_epi8(rest, _mm_loadu_si128((const __m128i *)idx_np[lane]));
}
#else
static inline mp_vec mp_reverse_to(mp_vec rest, int lane) {
    uint8_t in[16], out[16] = {0};
    int p = lane >= MP_PAIR_LANE, m = lane - p * MP_PAIR_LANE;
    _mm_storeu_si128((__m128i *)in, rest);
    for (int q = 0; q <= p; q++)
        for (int n = 0; n <= m; n++)
            out[q * MP_PAIR_LANE + n] = in[(p - q) * MP_PAIR_LANE + m - n];
    return _mm_loadu_si128((const __m128i *)out);
}
#endif

static inline int mp_equal(mp_vec a, mp_vec b) {
    return _mm_movemask_epi8(_mm_cmpeq_epi8(a, b)) == 0xFFFF;
}

#else /* portable fallback (no SSE2: not x86-64) */

typedef struct { uint8_t b[16]; } mp_vec;

static inline mp_vec mp_load(const uint8_t *p) { mp_vec v; memcpy(v.b, p, 16); return v; }

static inline void mp_store(uint8_t *p, mp_vec v) { memcpy(p, v.b, 16); }

static inline int mp_valid_lane(int j) { return j < 5 || j >= MP_PAIR_LANE; }

static inline mp_vec mp_combine(mp_vec a, mp_vec b) {
    mp_vec out;
    memset(out.b, 0, 16);
    for (int pa = 0; pa < 2; pa++)
        for (int pb = 0; pb < 2 - pa; pb++)
            for (int ma = 0; ma < 5; ma++)
                for (int mb = 0; ma + mb < 5; mb++) {
                    int x = a.b[pa * MP_PAIR_LANE + ma] + b.b[pb * MP_PAIR_LANE + mb] - MP_WORTH;
                    int j = (pa + pb) * MP_PAIR_LANE + ma + mb;
                    if (x < 0) x = 0;
                    if (x > out.b[j]) out.b[j] = (uint8_t)x;
                }
    return out;
}

static inline int mp_lane(mp_vec v, int lane) { return v.b[lane]; }

static inline unsigned mp_optimal_lanes(mp_vec v, mp_vec rest_rev, int worth) {
    unsigned bits = 0;
    for (int j = 0; j < 16; j++) {
        int x = v.b[j] + rest_rev.b[j] - MP_WORTH;
        if (x < 0) x = 0;
        if (x == worth) bits |= 1u << j;
    }
    return bits;
}

static inline mp_vec mp_reverse(mp_vec rest, int M) {
    mp_vec out;
    memset(out.b, 0, 16);
    for (int m = 0; m <= M; m++) {
        out.b[m] = rest.b[MP_PAIR_LANE + M - m];
        out.b[MP_PAIR_LANE + m] = rest.b[M - m];
    }
    return out;
}

static inline mp_vec mp_add_rev(mp_vec a, mp_vec rest_rev) {
    mp_vec out;
    for (int j = 0; j < 16; j++) {
        int x = a.b[j] + rest_rev.b[j] - MP_WORTH;
        out.b[j] = (uint8_t)(x < 0 ? 0 : x);
    }
    return out;
}

static inline int mp_max_lane(mp_vec x) {
    int best = 0;
    for (int j = 0; j < 16; j++) if (x.b[j] > best) best = x.b[j];
    return best;
}

static inline unsigned mp_lanes_equal(mp_vec x, int worth) {
    unsigned bits = 0;
    for (int j = 0; j < 16; j++) if (x.b[j] == worth) bits |= 1u << j;
    return bits;
}

static inline mp_vec mp_reverse_to(mp_vec rest, int lane) {
    mp_vec out;
    int p = lane >= MP_PAIR_LANE, m = lane - p * MP_PAIR_LANE;
    memset(out.b, 0, 16);
    for (int q = 0; q <= p; q++)
        for (int n = 0; n <= m; n++)
            out.b[q * MP_PAIR_LANE + n] = rest.b[(p - q) * MP_PAIR_LANE + m - n];
    return out;
}

#endif

/* OR of the improve masks (10 u16 per table entry: no-pair m = 0..4, pair m = 0..4) at the
 * optimal lanes. The AVX2 path loads 16 u16: the 6 past the entry are masked off, and the
 * table file keeps at least that many bytes after the last entry. */
#if defined(__AVX2__)
#include <immintrin.h>
static inline unsigned mp_or_improve(const uint16_t *imp, unsigned lanes) {
#if defined(__BMI2__)
    unsigned sel = _pext_u32(lanes, 0x1Fu | 0x1Fu << MP_PAIR_LANE);
#else
    unsigned sel = (lanes & 0x1Fu) | ((lanes >> MP_PAIR_LANE) & 0x1Fu) << 5;
#endif
    if (!sel) return 0;
    const __m256i bit = _mm256_setr_epi16(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048,
                                          4096, 8192, 16384, (short)32768);
    __m256i on = _mm256_cmpeq_epi16(_mm256_and_si256(_mm256_set1_epi16((short)sel), bit), bit);
    __m256i v = _mm256_and_si256(_mm256_loadu_si256((const __m256i *)imp), on);
    __m128i x = _mm_or_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    x = _mm_or_si128(x, _mm_srli_si128(x, 8));
    x = _mm_or_si128(x, _mm_srli_si128(x, 4));
    x = _mm_or_si128(x, _mm_srli_si128(x, 2));
    return (unsigned)_mm_extract_epi16(x, 0);
}
#else
static inline unsigned mp_or_improve(const uint16_t *imp, unsigned lanes) {
    unsigned out = 0;
    for (int j = 0; j < 5; j++) {
        if (lanes >> j & 1u) out |= imp[j];
        if (lanes >> (MP_PAIR_LANE + j) & 1u) out |= imp[5 + j];
    }
    return out;
}
#endif

#if !defined(__SSE2__)
static inline int mp_equal(mp_vec a, mp_vec b) { return memcmp(a.b, b.b, 16) == 0; }

static inline int mp_final_worth(mp_vec a, mp_vec b, int M) {
    return mp_final_worth_bytes(a.b, b.b, M);
}
#endif


#endif
