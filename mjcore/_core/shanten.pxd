# Table-driven shanten, agari and advancing-tile kernels. The contract for every caller.
#
# A hand is a PackedHand (3 bits per kind; groups 0-2 suits, 3 honors) plus its number of
# called melds. Functions that take a PackedHand expect it valid (see pack_counts);
# functions that return int use negative Status codes for errors.

from mjcore._core.types cimport (u8, i8, u16, u32, u64, PackedHand, FORMS_RIICHI, ST_OK,
                                 ST_BAD_COUNT, ST_BAD_TOTAL, ST_BAD_MELDS)

cdef struct GroupTable:
    const u32* lo          # rank part for the low kinds, (rank << 4) | sum, or 0xFFFFFFFF
    const u32* hi          # rank part for the high kinds by low sum, or 0xFFFFFFFF
    u32 lo_mask
    u32 lo_bits
    u32 hi_size
    const u8* dist         # [rank] 16-byte min-plus vector (minplus.h)
    const u16* improve     # [rank][p*5+m]
    const u8* complete     # [rank] bit0 sets only, bit1 sets + pair

# counts[34] -> packed; returns the tile total, or ST_BAD_COUNT if any count > 4.
cdef int pack_counts(const u8* counts, PackedHand* out) noexcept nogil
# Pack and check one hand of counts with n_melds called melds: ST_BAD_MELDS (not 0-4),
# ST_BAD_COUNT, ST_BAD_TOTAL (want: 0 = 13-3k or 14-3k tiles, 13 or 14 = exactly that), ST_OK.
cdef inline int check_row(const u8* counts, int n_melds, PackedHand* h, int want) noexcept nogil:
    cdef int total
    if n_melds < 0 or n_melds > 4:
        return ST_BAD_MELDS
    total = pack_counts(counts, h)
    if total < 0:
        return ST_BAD_COUNT
    total += 3 * n_melds
    if want == 0:
        if total != 13 and total != 14:
            return ST_BAD_TOTAL
    elif total != want:
        return ST_BAD_TOTAL
    return ST_OK

# Ranks of the four groups; ST_BAD_TOTAL if a group holds more than 14 tiles.
cdef int group_ranks(const PackedHand* h, u32* ranks) noexcept nogil

# Shanten of each form for a hand of 13-3k or 14-3k tiles (k = n_melds, not checked here).
cdef int shanten_standard_ranks(const u32* ranks, int n_melds) noexcept nogil
cdef int shanten_chiitoitsu(const PackedHand* h) noexcept nogil
cdef int shanten_kokushi(const PackedHand* h) noexcept nogil

# The kernels below take `forms`, a types.Forms bit set: the winning forms that count (seven
# pairs and orphans only for a closed hand, n_melds == 0). Every game calls these same kernels.

# Raises ValueError unless forms is one of the sets the games use (FORMS_RIICHI,
# FORMS_CLASSICAL, FORMS_CLASSICAL_PAIRS); for entry points, before they pack anything.
cdef int check_forms(int forms) except -1

# Minimum shanten over the forms. out3 may be NULL; else receives standard, seven pairs,
# orphans (99 when the form is off or needs a closed hand).
cdef int shanten_forms(const PackedHand* h, int n_melds, int forms, int* out3) noexcept nogil

# 1 when the 14-3k tile hand is complete in one of the forms, 0 when not, negative on error.
cdef int agari_forms(const PackedHand* h, int n_melds, int forms) noexcept nogil

# For a 13-3k tile hand: its minimum shanten, and in *mask the 34-bit set of kinds whose draw
# lowers it (for a tenpai hand: the winning tiles). Negative Status on error.
cdef int advance_forms(const PackedHand* h, int n_melds, int forms, u64* mask) noexcept nogil

# For a 14-3k tile hand: shanten after each discard (127 for kinds not held) and the
# advancing mask of each resulting hand. Returns the best shanten after a discard. With
# best_only, masks are filled only where they can belong to a best discard (0 elsewhere).
cdef int ukeire_forms(const PackedHand* h, int n_melds, int forms, i8* after, u64* masks,
                      bint best_only) noexcept nogil


# For a 13-3k tile hand and n kinds to draw (each draw a valid hand): of the hand after
# drawing draws[k], the best shanten after a discard in shanten[k] and the kinds whose discard
# reaches it in best[k] (what ukeire_forms gives of each drawn hand, for a fraction of the work).
cdef int draw_discards_forms(const PackedHand* h, int n_melds, int forms, const u8* draws,
                             int n, i8* shanten, u64* best) noexcept nogil

# Riichi's forms (standard, chiitoitsu, kokushi) under the names riichi's callers use.
cdef inline int shanten_all(const PackedHand* h, int n_melds, int* out3) noexcept nogil:
    return shanten_forms(h, n_melds, FORMS_RIICHI, out3)

cdef inline int agari_packed(const PackedHand* h, int n_melds) noexcept nogil:
    return agari_forms(h, n_melds, FORMS_RIICHI)

cdef inline int advance_packed(const PackedHand* h, int n_melds, u64* mask) noexcept nogil:
    return advance_forms(h, n_melds, FORMS_RIICHI, mask)

cdef inline int ukeire_packed(const PackedHand* h, int n_melds, i8* after, u64* masks,
                              bint best_only) noexcept nogil:
    return ukeire_forms(h, n_melds, FORMS_RIICHI, after, masks, best_only)


# The rules mjcore.analysis last told the kernels (know_rules in shanten.pyx): True with their
# forms and absent kinds when a hand with n_melds called melds needs no check beyond the
# kernel's under ``rules`` (None: riichi, every kind); False: take the general path.
cdef bint rules_known(object rules, int n_melds, int* forms, u64* absent) noexcept
