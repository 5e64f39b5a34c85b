# Table-driven shanten, agari and advancing tiles. See shanten.pxd for the contract.

import os

from libc.string cimport memset

from mjcore._core.avx_upper cimport mj_zero_upper

from mjcore._core.types cimport (u8, i8, u16, u32, u64, PackedHand, ST_OK, ST_BAD_COUNT,
                                 ST_BAD_TOTAL, ST_BAD_MELDS, ST_NOT_IN_SANMA, FORM_STANDARD, FORM_SEVEN_PAIRS,
                                 FORM_ANY_PAIRS, FORM_ORPHANS, FORMS_RIICHI, FORMS_CLASSICAL,
                                 FORMS_CLASSICAL_PAIRS)


cdef GroupTable SUIT
cdef GroupTable HONOR
cdef object _keep = None      # owns the table memory

cdef u32 INVALID = 0xFFFFFFFFu


cdef inline const GroupTable* table_of(int g) noexcept nogil:
    return &HONOR if g == 3 else &SUIT


cdef extern from *:
    """
    #include <string.h>
    static inline unsigned long long mj_load8(const unsigned char* p) {
        unsigned long long x; memcpy(&x, p, 8); return x;
    }
    """
    u64 mj_load8(const u8* p) noexcept nogil
    int __builtin_ctz(unsigned int) noexcept nogil

cdef extern from "bits.h":
    int popcount32 "mj_popcount32"(u32 x) noexcept nogil
    int popcount64 "mj_popcount64"(u64 x) noexcept nogil

cdef u64 BYTES_GT4 = 0x7B7B7B7B7B7B7B7Bull
cdef u64 HIGH_BITS = 0x8080808080808080ull
cdef u64 BYTE_SUM = 0x0101010101010101ull
cdef u32 MASK3_SUIT = 0o111111111
cdef u32 MASK3_HONOR = 0o1111111
cdef u32 YAO_SUIT = 1u | (1u << 24)
cdef u64 YAO34 = (0x7Full << 27) | 0x4060301ull     # kinds 0, 8, 9, 17, 18, 26 and the honors
cdef u64 ALL34 = (1ull << 34) - 1


cdef inline u32 pack8(u64 x) noexcept nogil:
    # 8 bytes, each <= 7 -> 24 bits, 3 bits per byte
    x = (x | (x >> 5)) & 0x003F003F003F003Full
    x = (x | (x >> 10)) & 0x00000FFF00000FFFull
    x = (x | (x >> 20)) & 0xFFFFFFull
    return <u32>x


cdef int pack_counts(const u8* c, PackedHand* out) noexcept nogil:
    cdef u64 x0 = mj_load8(c), x1 = mj_load8(c + 9), x2 = mj_load8(c + 18)
    cdef u64 x3 = mj_load8(c + 26) >> 8
    if (((x0 + BYTES_GT4) | x0 | (x1 + BYTES_GT4) | x1 | (x2 + BYTES_GT4) | x2
         | (x3 + BYTES_GT4) | x3) & HIGH_BITS) or c[8] > 4 or c[17] > 4 or c[26] > 4:
        return ST_BAD_COUNT
    out.words[0] = pack8(x0) | (<u32>c[8] << 24)
    out.words[1] = pack8(x1) | (<u32>c[17] << 24)
    out.words[2] = pack8(x2) | (<u32>c[26] << 24)
    out.words[3] = pack8(x3)
    return <int>(((x0 + x1 + x2 + x3) * BYTE_SUM) >> 56) + c[8] + c[17] + c[26]


cdef inline u32 kinds_bits(u32 w) noexcept nogil:
    return (w | (w >> 1) | (w >> 2)) & MASK3_SUIT


cdef inline u32 pairs_bits(u32 w) noexcept nogil:
    return ((w >> 1) | (w >> 2)) & MASK3_SUIT


cdef inline u32 rank_in(const GroupTable* t, u32 word) noexcept nogil:
    cdef u32 lo = t.lo[word & t.lo_mask]
    if lo == INVALID:
        return INVALID
    cdef u32 hi = t.hi[(lo & 15) * t.hi_size + (word >> t.lo_bits)]
    if hi == INVALID:
        return INVALID
    return (lo >> 4) + hi


cdef int group_ranks(const PackedHand* h, u32* ranks) noexcept nogil:
    cdef int g
    for g in range(4):
        ranks[g] = rank_in(table_of(g), h.words[g])
        if ranks[g] == INVALID:
            return ST_BAD_TOTAL
    return ST_OK


cdef extern from "minplus.h":
    ctypedef struct mp_vec:
        pass
    mp_vec mp_load(const u8* p) noexcept nogil
    mp_vec mp_combine(mp_vec a, mp_vec b) noexcept nogil
    unsigned mp_optimal_lanes(mp_vec v, mp_vec rest_rev, int worth) noexcept nogil
    mp_vec mp_reverse(mp_vec rest, int M) noexcept nogil
    unsigned mp_or_improve(const u16* imp, unsigned lanes) noexcept nogil
    int mp_final_worth(mp_vec a, mp_vec b, int M) noexcept nogil
    void mp_store(u8* p, mp_vec v) noexcept nogil
    mp_vec mp_add_rev(mp_vec a, mp_vec rest_rev) noexcept nogil
    int mp_max_lane(mp_vec x) noexcept nogil
    unsigned mp_lanes_equal(mp_vec x, int worth) noexcept nogil
    mp_vec mp_reverse_to(mp_vec rest, int lane) noexcept nogil
    int MP_WORTH
    int MP_PAIR_LANE


cdef inline mp_vec vec_of(const GroupTable* t, u32 rank) noexcept nogil:
    return mp_load(t.dist + (<Py_ssize_t>rank) * 16)


cdef int shanten_standard_ranks(const u32* ranks, int n_melds) noexcept nogil:
    cdef mp_vec ab = mp_combine(vec_of(&SUIT, ranks[0]), vec_of(&SUIT, ranks[1]))
    cdef mp_vec cd = mp_combine(vec_of(&SUIT, ranks[2]), vec_of(&HONOR, ranks[3]))
    return MP_WORTH - mp_final_worth(ab, cd, 4 - n_melds) - 1


cdef enum:
    FORMS_CLOSED = FORM_SEVEN_PAIRS | FORM_ANY_PAIRS | FORM_ORPHANS    # need a closed hand


cdef inline void closed_forms(const PackedHand* h, int forms, int* seven,
                              int* orphans) noexcept nogil:
    # seven pairs and thirteen orphans from one pass over the packed words (99: form off)
    cdef u32 k0 = kinds_bits(h.words[0]), k1 = kinds_bits(h.words[1])
    cdef u32 k2 = kinds_bits(h.words[2]), k3 = kinds_bits(h.words[3])
    cdef u32 p0 = pairs_bits(h.words[0]), p1 = pairs_bits(h.words[1])
    cdef u32 p2 = pairs_bits(h.words[2]), p3 = pairs_bits(h.words[3])
    cdef int kinds, pairs
    seven[0] = orphans[0] = 99
    if forms & FORM_SEVEN_PAIRS:
        kinds = (popcount32(k0) + popcount32(k1) + popcount32(k2)
                 + popcount32(k3))
        pairs = (popcount32(p0) + popcount32(p1) + popcount32(p2)
                 + popcount32(p3))
        seven[0] = 6 - pairs + (7 - kinds if kinds < 7 else 0)
    elif forms & FORM_ANY_PAIRS:
        seven[0] = 6 - any_pairs(h)
    if forms & FORM_ORPHANS:
        orphans[0] = (13 - popcount32((k0 | k1 << 1 | k2 << 2) & (YAO_SUIT * 7))
                      - popcount32(k3)
                      - (1 if ((p0 | p1 | p2) & YAO_SUIT) | p3 else 0))


cdef inline int any_pairs(const PackedHand* h) noexcept nogil:
    # pairs when four alike count as two: a count's bit 1 is one pair, its bit 2 two
    cdef int g, pairs = 0
    for g in range(4):
        pairs += (popcount32((h.words[g] >> 1) & MASK3_SUIT)
                  + 2 * popcount32((h.words[g] >> 2) & MASK3_SUIT))
    return pairs


cdef int shanten_chiitoitsu(const PackedHand* h) noexcept nogil:
    cdef int c, k
    closed_forms(h, FORM_SEVEN_PAIRS, &c, &k)
    return c


cdef int shanten_kokushi(const PackedHand* h) noexcept nogil:
    cdef int c, k
    closed_forms(h, FORM_ORPHANS, &c, &k)
    return k


# The kernels take forms at run time. Shanten and advance have inline bodies that the exported
# function calls once per form set, so the compiler folds the form tests away; ukeire's body is
# copied by Cython instead (see FormsCopy below).

cdef int shanten_forms(const PackedHand* h, int n_melds, int forms, int* out3) noexcept nogil:
    if forms == FORMS_RIICHI:
        return shanten_of(h, n_melds, FORMS_RIICHI, out3)
    if forms == FORMS_CLASSICAL:
        return shanten_of(h, n_melds, FORMS_CLASSICAL, out3)
    if forms == FORMS_CLASSICAL_PAIRS:
        return shanten_of(h, n_melds, FORMS_CLASSICAL_PAIRS, out3)
    return shanten_of(h, n_melds, forms, out3)


cdef inline int shanten_of(const PackedHand* h, int n_melds, int forms, int* out3) noexcept nogil:
    cdef u32 ranks[4]
    cdef int st = group_ranks(h, ranks)
    if st != ST_OK:
        return st
    cdef int s = shanten_standard_ranks(ranks, n_melds)
    cdef int c = 99, k = 99
    if n_melds == 0 and forms & FORMS_CLOSED:
        closed_forms(h, forms, &c, &k)
    if out3 != NULL:
        out3[0] = s
        out3[1] = c
        out3[2] = k
    if c < s:
        s = c
    if k < s:
        s = k
    return s


cdef int agari_forms(const PackedHand* h, int n_melds, int forms) noexcept nogil:
    cdef u32 ranks[4]
    cdef u8 b0, b1, b2, b3
    cdef u32 odd, four, middle
    cdef int st = group_ranks(h, ranks)
    if st != ST_OK:
        return st
    b0 = SUIT.complete[ranks[0]]
    b1 = SUIT.complete[ranks[1]]
    b2 = SUIT.complete[ranks[2]]
    b3 = HONOR.complete[ranks[3]]
    # all four groups in one test, not a chain of branches: one group alone is often complete
    # (the man suit of a sanma hand, 1m and 9m only, in 4 hands of 10), so a chain mispredicts
    if ((b0 != 0) & (b1 != 0) & (b2 != 0) & (b3 != 0)
            and ((b0 | b1 << 2 | b2 << 4 | b3 << 6) & 0xAA) != 0):
        if ((b0 >> 1) + (b1 >> 1) + (b2 >> 1) + (b3 >> 1)) == 1:
            return 1
    if n_melds != 0:
        return 0
    odd = (h.words[0] | h.words[1] | h.words[2] | h.words[3]) & MASK3_SUIT
    four = (h.words[0] | h.words[1] | h.words[2] | h.words[3]) & (MASK3_SUIT << 2)
    if odd == 0 and forms & (FORM_ANY_PAIRS | (FORM_SEVEN_PAIRS if four == 0 else 0)):
        return 1          # 14 tiles, every count even (distinct pairs: 0 or 2)
    middle = (h.words[0] | h.words[1] | h.words[2]) & ~(7u | (7u << 24))
    if forms & FORM_ORPHANS and middle == 0 and shanten_kokushi(h) == -1:
        return 1
    return 0


cdef inline u64 lanes_to_mask(unsigned lanes, const u16* imp, int g) noexcept nogil:
    # OR the improve masks of the optimal lanes, placed at the group's kinds
    return (<u64>mp_or_improve(imp, lanes)) << (9 * g)


# Standard form: shanten and advancing mask from the four group vectors.
cdef u64 standard_advance(const mp_vec* v, const u16** imp, int n_melds,
                          int* shanten_out) noexcept nogil:
    cdef int M = 4 - n_melds
    cdef mp_vec left = mp_combine(v[0], v[1])
    cdef mp_vec right = mp_combine(v[2], v[3])
    cdef mp_vec rest[4]
    cdef int g, worth
    cdef u64 mask = 0
    rest[0] = mp_combine(v[1], right)
    rest[1] = mp_combine(v[0], right)
    rest[2] = mp_combine(left, v[3])
    rest[3] = mp_combine(left, v[2])
    worth = mp_final_worth(left, right, M)
    shanten_out[0] = MP_WORTH - worth - 1
    for g in range(4):
        mask |= lanes_to_mask(mp_optimal_lanes(v[g], mp_reverse(rest[g], M), worth), imp[g], g)
    return mask


cdef extern from "bits.h":
    u32 mj_compress3(u32 spaced) noexcept nogil


cdef inline u64 dense_bits(u32 spaced, int g) noexcept nogil:
    # bits at 3*i of a packed word -> bits 9*g + i
    return (<u64>mj_compress3(spaced)) << (9 * g)


# Seven pairs and thirteen orphans on 34-bit masks of the kinds held, paired and held an odd
# number of times (bit = kind id): their shanten, and their share of the advancing tiles.
cdef struct ClosedKinds:
    u64 held        # count >= 1
    u64 paired      # count >= 2
    u64 odd         # count 1 or 3
    int pairs       # pairs when four alike count as two


cdef inline void closed_kinds(const PackedHand* h, int forms, ClosedKinds* ck) noexcept nogil:
    # odd and pairs only for any seven pairs
    cdef int g
    cdef u32 w
    ck.held = ck.paired = ck.odd = 0
    ck.pairs = 0
    for g in range(4):
        w = h.words[g]
        ck.held |= dense_bits(kinds_bits(w), g)
        ck.paired |= dense_bits(pairs_bits(w), g)
        if forms & FORM_ANY_PAIRS:
            ck.odd |= dense_bits(w & MASK3_SUIT, g)
            ck.pairs += (popcount32((w >> 1) & MASK3_SUIT)
                         + 2 * popcount32((w >> 2) & MASK3_SUIT))


cdef inline void closed_kinds_after_discard(const ClosedKinds* ck, int forms, int kind, int cnt,
                                            ClosedKinds* out) noexcept nogil:
    # ck with one copy of kind (held cnt times) taken out
    cdef u64 bit = (<u64>1) << kind
    out.held = ck.held ^ (bit if cnt == 1 else 0)
    out.paired = ck.paired ^ (bit if cnt == 2 else 0)
    if forms & FORM_ANY_PAIRS:
        out.odd = ck.odd ^ bit
        out.pairs = ck.pairs - (1 - (cnt & 1))


cdef inline void closed_forms_dense(const ClosedKinds* ck, int forms, int* seven,
                                    int* orphans) noexcept nogil:
    cdef int kinds
    seven[0] = orphans[0] = 99
    if forms & FORM_SEVEN_PAIRS:
        kinds = popcount64(ck.held)
        seven[0] = 6 - popcount64(ck.paired) + (7 - kinds if kinds < 7 else 0)
    elif forms & FORM_ANY_PAIRS:
        seven[0] = 6 - ck.pairs
    if forms & FORM_ORPHANS:
        orphans[0] = (13 - popcount64(ck.held & YAO34)
                      - (1 if ck.paired & YAO34 else 0))


cdef inline int closed_forms_mask(const ClosedKinds* ck, int forms, int s, int c, int k,
                                  u64* smask) noexcept nogil:
    # The minimum of the standard form's s and the closed forms' c and k; smask (the standard
    # form's advancing tiles) becomes the union over the forms that reach it.
    cdef int best = s
    if c < best:
        best = c
    if k < best:
        best = k
    if s != best:
        smask[0] = 0
    if c == best:
        if forms & FORM_SEVEN_PAIRS:    # singles become pairs; below 7 kinds, any new kind
            smask[0] |= ((ck.held & ~ck.paired)
                         | ((ALL34 & ~ck.held) if popcount64(ck.held) < 7 else 0))
        else:                           # any pairs: an odd count becomes even
            smask[0] |= ck.odd
    if k == best:        # missing orphans; without an orphan pair, any orphan held
        smask[0] |= (YAO34 & ~ck.held) | ((ck.held & YAO34) if (ck.paired & YAO34) == 0 else 0)
    return best


# The other forms' share of the advancing mask, given the standard form's shanten.
cdef inline int other_forms(const PackedHand* h, int forms, int s, u64* smask) noexcept nogil:
    cdef int c, k
    cdef ClosedKinds ck
    closed_forms(h, forms, &c, &k)
    if c > s and k > s:
        return s
    closed_kinds(h, forms, &ck)
    return closed_forms_mask(&ck, forms, s, c, k, smask)


# Minimum shanten of a 13-3k tile hand and the union of the advancing masks of the forms
# that reach it.
cdef inline int advance_vectors(const PackedHand* h, const mp_vec* v, const u16** imp,
                                int n_melds, int forms, u64* mask_out) noexcept nogil:
    cdef int s
    mask_out[0] = standard_advance(v, imp, n_melds, &s)
    if n_melds == 0 and forms & FORMS_CLOSED:
        return other_forms(h, forms, s, mask_out)
    return s


cdef inline int advance_ranks(const PackedHand* h, const u32* ranks, int n_melds, int forms,
                       u64* mask_out) noexcept nogil:
    cdef mp_vec v[4]
    cdef const u16* imp[4]
    cdef int g
    for g in range(4):
        v[g] = vec_of(table_of(g), ranks[g])
        imp[g] = table_of(g).improve + (<Py_ssize_t>ranks[g]) * 10
    return advance_vectors(h, v, imp, n_melds, forms, mask_out)


cdef int advance_forms(const PackedHand* h, int n_melds, int forms, u64* mask) noexcept nogil:
    cdef int s = advance_any(h, n_melds, forms, mask)
    mj_zero_upper()
    return s


cdef inline int advance_any(const PackedHand* h, int n_melds, int forms, u64* mask) noexcept nogil:
    cdef u32 ranks[4]
    cdef int st = group_ranks(h, ranks)
    if st != ST_OK:
        return st
    if forms == FORMS_RIICHI:
        return advance_ranks(h, ranks, n_melds, FORMS_RIICHI, mask)
    if forms == FORMS_CLASSICAL:
        return advance_ranks(h, ranks, n_melds, FORMS_CLASSICAL, mask)
    if forms == FORMS_CLASSICAL_PAIRS:
        return advance_ranks(h, ranks, n_melds, FORMS_CLASSICAL_PAIRS, mask)
    return advance_ranks(h, ranks, n_melds, forms, mask)


cdef inline int min3(int a, int b, int c) noexcept nogil:
    if b < a:
        a = b
    return c if c < a else a


# For a discard group g: the other three groups, and for each of them the remaining two.
cdef int OTHER_OF[4][3]
cdef int PAIR_A[4][4]
cdef int PAIR_B[4][4]


cdef void _init_group_order() noexcept nogil:
    cdef int g, hh, a, b, j
    for g in range(4):
        j = 0
        for hh in range(4):
            if hh == g:
                continue
            OTHER_OF[g][j] = hh
            j += 1
            a = 0
            while a == g or a == hh:
                a += 1
            b = a + 1
            while b == g or b == hh:
                b += 1
            PAIR_A[g][hh] = a
            PAIR_B[g][hh] = b


_init_group_order()


# When the discard group g's optimal lane is x, each other group hh's optimal lanes among the
# three groups other than g for the complement of x; packed 16 bits per hh (OTHER_OF order).
# A discard's advancing tiles in the other groups come from the union over its optimal lanes x,
# because the optimum over all four groups splits into an optimum of g's lane x and of the
# other three.
cdef inline u64 others_lanes(int g, int x, int M, const mp_vec* v, const mp_vec* pair_of,
                             const u8* rest_bytes) noexcept nogil:
    cdef int c, j, hh
    cdef u64 out = 0
    if x >= MP_PAIR_LANE:
        c = M - (x - MP_PAIR_LANE)              # x holds the pair: the rest holds none
    else:
        c = MP_PAIR_LANE + M - x                # the rest holds the pair
    if c < 0 or 4 < c < MP_PAIR_LANE or c > MP_PAIR_LANE + 4:
        return 0                                # x beyond M sets: no split; keeps reads in bounds
    cdef int target = rest_bytes[c]
    cdef mp_vec rest_rev
    for j in range(3):
        hh = OTHER_OF[g][j]
        rest_rev = mp_reverse_to(pair_of[PAIR_A[g][hh] * 4 + PAIR_B[g][hh]], c)
        out |= (<u64>mp_optimal_lanes(v[hh], rest_rev, target)) << (16 * j)
    return out


# closed_kinds of a hand whose closed forms count (closed), else all zero.
cdef inline void closed_kinds_if(const PackedHand* h, int forms, bint closed,
                                 ClosedKinds* ck) noexcept nogil:
    ck.held = ck.paired = ck.odd = 0
    ck.pairs = 0
    if closed:
        closed_kinds(h, forms, ck)


# A hand's group vectors, each two combined (pair_of[a * 4 + b], a < b) and each three (the
# groups other than g, rest_excl[g]): what ukeire and draw_discards both start from.
cdef inline void combine_groups(const u32* ranks, mp_vec* v, mp_vec* pair_of,
                                mp_vec* rest_excl) noexcept nogil:
    cdef int a, b
    for a in range(4):
        v[a] = vec_of(table_of(a), ranks[a])
    for a in range(4):
        for b in range(a + 1, 4):
            pair_of[a * 4 + b] = mp_combine(v[a], v[b])
    rest_excl[0] = mp_combine(pair_of[1 * 4 + 2], v[3])
    rest_excl[1] = mp_combine(pair_of[0 * 4 + 2], v[3])
    rest_excl[2] = mp_combine(pair_of[0 * 4 + 1], v[3])
    rest_excl[3] = mp_combine(pair_of[0 * 4 + 1], v[2])


# Ukeire's body is too large for the compiler to inline once per form set, so Cython makes
# the copies: one with riichi's forms fixed (the form tests fold away), one for the others.
cdef struct RiichiForms:
    char unused
cdef struct OtherForms:
    char unused
ctypedef fused FormsCopy:
    RiichiForms
    OtherForms


cdef int ukeire_forms(const PackedHand* h, int n_melds, int forms, i8* after, u64* masks,
                      bint best_only) noexcept nogil:
    cdef int best
    if forms == FORMS_RIICHI:
        best = ukeire_of(<RiichiForms*>NULL, h, n_melds, forms, after, masks, best_only)
    else:
        best = ukeire_of(<OtherForms*>NULL, h, n_melds, forms, after, masks, best_only)
    mj_zero_upper()
    return best


cdef int ukeire_of(FormsCopy* copy, const PackedHand* h, int n_melds, int forms, i8* after,
                   u64* masks, bint best_only) noexcept nogil:
    if FormsCopy is RiichiForms:
        forms = FORMS_RIICHI
    # The other groups' vectors are combined once per hand; a discard only looks up its own
    # group's new vector, and the other groups' optimal lanes per optimal lane of it
    # (others_lanes) are computed once per hand and group, on first use. Seven pairs and
    # thirteen orphans work on 34-bit masks of the kinds held, paired and held an odd number
    # of times.
    cdef u32 ranks[4]
    cdef mp_vec v[4]
    cdef mp_vec pair_of[16]         # [a * 4 + b]: groups a and b combined
    cdef mp_vec rest_excl[4]
    cdef mp_vec rest_rev[4]
    cdef u8 rest_bytes[4][16]
    cdef u64 lane_others[4][16]     # others_lanes per group and lane (set in lane_known)
    cdef u32 lane_known[4]
    cdef unsigned last_lanes[4]     # the last discard's optimal lanes per group, and its share
    cdef u64 last_others[4]
    cdef mp_vec u, sums
    cdef const u16* imp[4]
    cdef const GroupTable* t
    cdef int M = 4 - n_melds
    cdef int st = group_ranks(h, ranks)
    cdef int kind, g, i, a, b, j, hh, x, worth, sbest, total, best = 127
    cdef int c = 99, k = 99
    cdef unsigned lanes, rest_lanes
    cdef u32 r, w, held
    cdef u64 other_lanes, smask
    cdef ClosedKinds ck, ck2
    cdef bint closed = n_melds == 0 and (forms & FORMS_CLOSED) != 0
    if st != ST_OK:
        return st
    memset(after, 127, 34)
    memset(masks, 0, 34 * sizeof(u64))
    closed_kinds_if(h, forms, closed, &ck)
    ck2 = ck
    combine_groups(ranks, v, pair_of, rest_excl)
    for g in range(4):
        imp[g] = table_of(g).improve + (<Py_ssize_t>ranks[g]) * 10
    for g in range(4):
        rest_rev[g] = mp_reverse(rest_excl[g], M)
        mp_store(rest_bytes[g], rest_excl[g])
        lane_known[g] = 0
        last_lanes[g] = 0
    for g in range(4):
        w = h.words[g]
        held = mj_compress3(kinds_bits(w))
        t = table_of(g)
        while held:
            i = __builtin_ctz(held)
            held &= held - 1
            kind = 9 * g + i
            r = rank_in(t, w - ((<u32>1) << (3 * i)))
            u = vec_of(t, r)
            sums = mp_add_rev(u, rest_rev[g])
            worth = mp_max_lane(sums)
            sbest = MP_WORTH - worth - 1
            total = sbest
            if closed:
                # seven pairs / thirteen orphans after the discard
                closed_kinds_after_discard(&ck, forms, kind, (w >> (3 * i)) & 7, &ck2)
                closed_forms_dense(&ck2, forms, &c, &k)
                total = min3(sbest, c, k)
            after[kind] = <i8>total
            if best_only and total > best:
                continue            # a summary needs the masks of the best discards only
            lanes = mp_lanes_equal(sums, worth)
            smask = lanes_to_mask(lanes, t.improve + (<Py_ssize_t>r) * 10, g)
            if lanes != last_lanes[g]:
                last_lanes[g] = lanes
                rest_lanes = lanes & ~lane_known[g]
                while rest_lanes:
                    x = __builtin_ctz(rest_lanes)
                    rest_lanes &= rest_lanes - 1
                    lane_others[g][x] = others_lanes(g, x, M, v, pair_of, rest_bytes[g])
                lane_known[g] |= lanes
                other_lanes = 0
                while lanes:
                    x = __builtin_ctz(lanes)
                    lanes &= lanes - 1
                    other_lanes |= lane_others[g][x]
                last_others[g] = 0
                for j in range(3):
                    hh = OTHER_OF[g][j]
                    last_others[g] |= lanes_to_mask(<unsigned>(other_lanes >> (16 * j)) & 0xFFFF,
                                                    imp[hh], hh)
            smask |= last_others[g]
            if closed:
                closed_forms_mask(&ck2, forms, sbest, c, k, &smask)
            masks[kind] = smask
            if total < best:
                best = total
    return best


cdef int draw_discards_forms(const PackedHand* h, int n_melds, int forms, const u8* draws,
                             int n, i8* shanten, u64* best) noexcept nogil:
    cdef int st
    if forms == FORMS_RIICHI:
        st = draw_discards_of(h, n_melds, FORMS_RIICHI, draws, n, shanten, best)
    else:
        st = draw_discards_of(h, n_melds, forms, draws, n, shanten, best)
    mj_zero_upper()
    return st


cdef inline int draw_discards_of(const PackedHand* h, int n_melds, int forms, const u8* draws,
                                 int n, i8* shanten, u64* best) noexcept nogil:
    # The 13-3k tile hand's groups are combined once: the three groups other than each group
    # (for a discard from the drawn tile's group) and each two (with the drawn tile's new
    # group, for a discard from a third group). A drawn hand's shanten s comes first (its
    # standard form from its drawn group and the other three; 0 for a complete hand); a
    # discard then keeps s when a lane of its sums reaches s's worth (none can pass it), or a
    # closed form reaches s.
    cdef u32 ranks[4]
    cdef mp_vec v[4]
    cdef mp_vec pair_of[16]
    cdef mp_vec rest_rev[4]
    cdef mp_vec minus[34]           # the group of kind j with one copy of j taken out
    cdef mp_vec va, crev
    cdef const GroupTable* t
    cdef const GroupTable* tb
    cdef int M = 4 - n_melds
    cdef int st = group_ranks(h, ranks)
    cdef int k, g, a, j, i, ii, kind, cnt, std, low, target, c = 99, o = 99
    cdef u32 w, wa, held, r
    cdef u64 mask, bit
    cdef ClosedKinds ck, ckd, ck2
    cdef bint closed = n_melds == 0 and (forms & FORMS_CLOSED) != 0, by_std, by_closed
    if st != ST_OK:
        return st
    closed_kinds_if(h, forms, closed, &ck)
    ckd = ck
    combine_groups(ranks, v, pair_of, rest_rev)
    for g in range(4):
        rest_rev[g] = mp_reverse(rest_rev[g], M)
    for g in range(4):
        w = h.words[g]
        held = mj_compress3(kinds_bits(w))
        t = table_of(g)
        while held:
            i = __builtin_ctz(held)
            held &= held - 1
            r = rank_in(t, w - ((<u32>1) << (3 * i)))
            minus[9 * g + i] = vec_of(t, r)
    for k in range(n):
        kind = draws[k]
        a = 3 if kind >= 27 else kind // 9
        ii = kind - 9 * a
        wa = h.words[a] + ((<u32>1) << (3 * ii))
        t = table_of(a)
        r = rank_in(t, wa)
        if r == INVALID:
            return ST_BAD_COUNT
        va = vec_of(t, r)
        std = MP_WORTH - mp_max_lane(mp_add_rev(va, rest_rev[a])) - 1
        low = std
        if closed:
            cnt = (h.words[a] >> (3 * ii)) & 7
            bit = (<u64>1) << kind
            ckd.held = ck.held | bit
            ckd.paired = ck.paired | (bit if cnt >= 1 else 0)
            ckd.odd = ck.odd ^ bit
            ckd.pairs = ck.pairs + (cnt & 1)
            closed_forms_dense(&ckd, forms, &c, &o)
            low = min3(std, c, o)
        if low < 0:
            low = 0     # a complete hand: its discards that keep it tenpai
        by_std = std <= low
        by_closed = closed and (c <= low or o <= low)
        target = MP_WORTH - low - 1
        mask = 0
        for g in range(4):
            w = wa if g == a else h.words[g]
            held = mj_compress3(kinds_bits(w))
            if held == 0:
                continue
            tb = table_of(g)
            if by_std and g != a:
                crev = mp_reverse(mp_combine(va, pair_of[PAIR_A[a][g] * 4 + PAIR_B[a][g]]), M)
            while held:
                i = __builtin_ctz(held)
                held &= held - 1
                j = 9 * g + i
                if by_std:
                    if g == a:
                        r = rank_in(tb, wa - ((<u32>1) << (3 * i)))
                        if mp_lanes_equal(mp_add_rev(vec_of(tb, r), rest_rev[a]), target):
                            mask |= (<u64>1) << j
                            continue
                    elif mp_lanes_equal(mp_add_rev(minus[j], crev), target):
                        mask |= (<u64>1) << j
                        continue
                if by_closed:
                    closed_kinds_after_discard(&ckd, forms, j, (w >> (3 * i)) & 7, &ck2)
                    closed_forms_dense(&ck2, forms, &c, &o)
                    if c == low or o == low:
                        mask |= (<u64>1) << j
        shanten[k] = <i8>low
        best[k] = mask
    return ST_OK


cdef int _fill(GroupTable* t, const unsigned char* base, Py_ssize_t size,
               Py_ssize_t* off) except -1:
    cdef const u32* header = <const u32*>(base + off[0])
    cdef u32 npat = header[0], lo_size = header[1], hi_size = header[2], nsum = header[3]
    cdef Py_ssize_t need = 16 + 4 * lo_size + 4 * nsum * hi_size + 16 * npat + 20 * npat + npat
    if off[0] + need > size:
        raise RuntimeError("shanten table file is truncated")
    off[0] += 16
    t.lo = <const u32*>(base + off[0])
    off[0] += 4 * lo_size
    t.hi = <const u32*>(base + off[0])
    off[0] += 4 * nsum * hi_size
    t.dist = base + off[0]
    off[0] += 16 * npat
    t.improve = <const u16*>(base + off[0])
    off[0] += 20 * npat
    t.complete = base + off[0]
    off[0] += npat
    off[0] = (off[0] + 15) & ~15
    t.lo_mask = lo_size - 1
    t.lo_bits = 0
    while (1u << t.lo_bits) < lo_size:
        t.lo_bits += 1
    t.hi_size = hi_size
    return 0


def _load(str path) -> None:
    """Map the generated tables (mjcore/_core/shanten_tables.bin) into the kernels."""
    global _keep
    with open(path, "rb") as fh:
        raw = fh.read()
    if len(raw) < 8 or raw[:8] != b"MJST0003":
        raise RuntimeError(f"{path}: not a shanten table file of this version; rebuild mjcore")
    cdef const unsigned char* base = raw
    cdef Py_ssize_t off = 16
    _fill(&SUIT, base, len(raw), &off)
    _fill(&HONOR, base, len(raw), &off)
    if off != len(raw):
        raise RuntimeError(f"{path}: unexpected size")
    _keep = raw


def _init() -> None:
    from mjcore._core import HERE     # the tables sit in the package folder, whatever the level
    here = str(HERE)
    path = os.path.join(here, "shanten_tables.bin")
    if not os.path.exists(path):
        # A build without the generated file (should not happen with setup.py): make it once.
        from mjcore._core import tablegen
        tablegen.write_tables(here)
    _load(path)


_init()


# ---- thin Python entry points over one hand (used by mjcore.analysis) ----
# Each takes the winning forms and ``absent``, the kinds the rules' tile set lacks (0: none;
# sanma: 2m-8m); a hand holding one of them is ST_NOT_IN_SANMA.

cdef int check_forms(int forms) except -1:
    if forms != FORMS_RIICHI and forms != FORMS_CLASSICAL and forms != FORMS_CLASSICAL_PAIRS:
        raise ValueError(f"forms {forms}: not a known set of winning forms")
    return 0


cdef inline u64 held_kinds(const PackedHand* h) noexcept nogil:
    # the 34-bit set of the kinds a packed hand holds
    return (dense_bits(kinds_bits(h.words[0]), 0) | dense_bits(kinds_bits(h.words[1]), 1)
            | dense_bits(kinds_bits(h.words[2]), 2) | dense_bits(kinds_bits(h.words[3]), 3))


cdef inline int _checked(bytes counts, int n_melds, int forms, u64 absent, PackedHand* h,
                         int want) except -100:
    """Pack a 34-byte count string; want = 0 (13-3k or 14-3k tiles), 13 or 14. ``absent``:
    the kinds the rules' tile set lacks (bit k = kind k); a hand holding one is
    ST_NOT_IN_SANMA, whatever else is wrong with it (as in the batch kernels)."""
    cdef const unsigned char* p = counts
    cdef int k, st
    if len(counts) != 34:
        raise ValueError("counts must be 34 bytes")
    check_forms(forms)
    st = check_row(p, n_melds, h, want)
    if absent == 0:
        return st
    if absent & ~ALL34:
        raise ValueError(f"absent has bits beyond the 34 kinds: {absent:#x}")
    if st == ST_OK:
        return ST_NOT_IN_SANMA if held_kinds(h) & absent else ST_OK
    for k in range(34):
        if p[k] and (absent >> k) & 1:
            return ST_NOT_IN_SANMA
    return st


def forms(bytes counts, int n_melds, int forms=FORMS_RIICHI, u64 absent=0):
    """(status, standard, seven pairs, orphans) of a 13-3k or 14-3k tile hand (99: form off)."""
    cdef PackedHand h
    cdef int out3[3]
    cdef int st = _checked(counts, n_melds, forms, absent, &h, 0)
    if st != ST_OK:
        return st, 0, 0, 0
    st = shanten_forms(&h, n_melds, forms, out3)
    if st < -1:
        return st, 0, 0, 0
    return ST_OK, out3[0], out3[1], out3[2]


cdef int _agari(bytes counts, int n_melds, int forms, u64 absent) except -100:
    cdef PackedHand h
    cdef int st = _checked(counts, n_melds, forms, absent, &h, 14)
    if st != ST_OK:
        return st
    return agari_forms(&h, n_melds, forms)


def agari(bytes counts, int n_melds, int forms=FORMS_RIICHI, u64 absent=0):
    """Status (< 0) or 0/1 for a 14-3k tile hand."""
    return _agari(counts, n_melds, forms, absent)


def advance(bytes counts, int n_melds, int forms=FORMS_RIICHI, u64 absent=0):
    """(status, shanten, mask) for a 13-3k tile hand: the kinds whose draw lowers the shanten."""
    cdef PackedHand h
    cdef u64 mask = 0
    cdef int s, st = _checked(counts, n_melds, forms, absent, &h, 13)
    if st != ST_OK:
        return st, 0, 0
    s = advance_forms(&h, n_melds, forms, &mask)
    if s < -1:
        return s, 0, 0
    return ST_OK, s, mask


def ukeire(bytes counts, int n_melds, int forms=FORMS_RIICHI, u64 absent=0):
    """(status, best, after[34], masks[34]) for a 14-3k tile hand (after = 127: not held)."""
    cdef PackedHand h
    cdef i8 after[34]
    cdef u64 masks[34]
    cdef int best, st = _checked(counts, n_melds, forms, absent, &h, 14)
    if st != ST_OK:
        return st, 0, None, None
    best = ukeire_forms(&h, n_melds, forms, after, masks, False)
    if best < -1:
        return best, 0, None, None
    return ST_OK, best, [after[i] for i in range(34)], [masks[i] for i in range(34)]


def draw_discards(bytes counts, int n_melds, bytes draws, int forms=FORMS_RIICHI, u64 absent=0):
    """(status, [(shanten, best discards mask)] per draw) for a 13-3k tile hand and the kinds
    it draws (each must leave a valid hand)."""
    cdef PackedHand h
    cdef i8 sh[34]
    cdef u64 best[34]
    cdef int k, n = len(draws), st = _checked(counts, n_melds, forms, absent, &h, 13)
    if st != ST_OK:
        return st, None
    if n > 34:
        raise ValueError(f"at most 34 draws, got {n}")
    for k in range(n):
        if draws[k] >= 34 or counts[draws[k]] >= 4:
            raise ValueError(f"draw {k}: kind {draws[k]} cannot be drawn into this hand")
    st = draw_discards_forms(&h, n_melds, forms, draws, n, sh, best)
    if st != ST_OK:
        return st, None
    return ST_OK, [(sh[k], best[k]) for k in range(n)]


cdef int _forms_index(bytes counts, int n_melds, int forms, u64 absent) except -100:
    cdef PackedHand h
    cdef int out3[3]
    cdef int st = _checked(counts, n_melds, forms, absent, &h, 0)
    if st != ST_OK:
        return st
    st = shanten_forms(&h, n_melds, forms, out3)
    if st < -1:
        return st
    return (((out3[0] + 1) * 9 + (8 if out3[1] == 99 else out3[1] + 1)) * 16
            + (15 if out3[2] == 99 else out3[2] + 1))


def forms_index(bytes counts, int n_melds, int forms=FORMS_RIICHI, u64 absent=0):
    """A small index of (standard, seven pairs, orphans) for the result cache in
    mjcore.analysis, or a negative Status: ((s + 1) * 9 + c + 1) * 16 + k + 1, where c = 7 and
    k = 14 stand for "not applicable" (form off, or called melds)."""
    return _forms_index(counts, n_melds, forms, absent)


# ---- the same, for a rules value (mjcore.analysis's shanten and is_agari) ----
# analysis resolves a rules value once and tells these entry points (``know_rules``) its forms,
# absent kinds and which hands Python must check beyond the kernel; they remember the last one,
# so a call under it costs one identity test here. None is riichi's forms, every kind in play.
# Anything else (other rules, a hand Python must check) answers ASK_CALLER: take the general
# path (analysis resolves the rules, checks the hand, and calls the entry points above).

ASK_CALLER = -99
CHECK_NONE, CHECK_MELDED, CHECK_EVERY = 0, 1, 2

cdef object _UNSET = object()
cdef object _known_rules = _UNSET
cdef int _known_forms = FORMS_RIICHI
cdef u64 _known_absent = 0
cdef int _known_check = CHECK_NONE


def know_rules(object rules, int forms, u64 absent, int check):
    """Remember ``rules``: its winning forms, absent kinds, and the hands its own check must
    see first (CHECK_NONE, CHECK_MELDED: hands with called melds, CHECK_EVERY)."""
    global _known_rules, _known_forms, _known_absent, _known_check
    check_forms(forms)
    if absent & ~ALL34:
        raise ValueError(f"absent has bits beyond the 34 kinds: {absent:#x}")
    if check != CHECK_NONE and check != CHECK_MELDED and check != CHECK_EVERY:
        raise ValueError(f"check {check}: not CHECK_NONE, CHECK_MELDED or CHECK_EVERY")
    cdef object previous = _known_rules    # freed (finalizers may run) only after the update
    _known_rules = _UNSET
    _known_forms, _known_absent, _known_check = forms, absent, check
    _known_rules = rules


cdef bint rules_known(object rules, int n_melds, int* forms, u64* absent) noexcept:
    if rules is None:
        forms[0], absent[0] = FORMS_RIICHI, 0
        return True
    if rules is not _known_rules or _known_check == CHECK_EVERY or (
            n_melds and _known_check == CHECK_MELDED):
        return False
    forms[0], absent[0] = _known_forms, _known_absent
    return True


def forms_index_for(bytes counts, int n_melds, object rules):
    """``forms_index`` under ``rules`` if known (see ``know_rules``), else ASK_CALLER."""
    cdef int forms
    cdef u64 absent
    if not rules_known(rules, n_melds, &forms, &absent):
        return ASK_CALLER
    return _forms_index(counts, n_melds, forms, absent)


def agari_for(bytes counts, int n_melds, object rules):
    """``agari`` under ``rules`` if known (see ``know_rules``), else ASK_CALLER."""
    cdef int forms
    cdef u64 absent
    if not rules_known(rules, n_melds, &forms, &absent):
        return ASK_CALLER
    return _agari(counts, n_melds, forms, absent)


# The winning-form sets, for the Python layer.
RIICHI = FORMS_RIICHI
CLASSICAL = FORMS_CLASSICAL
CLASSICAL_SEVEN_PAIRS = FORMS_CLASSICAL_PAIRS


from mjcore._core.level cimport MJCORE_BUILT_LEVEL

BUILT_FOR = MJCORE_BUILT_LEVEL.decode()   # the instruction-set level of this module's code
