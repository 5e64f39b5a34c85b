# Table-driven shanten, agari and advancing-tile kernels. The contract for every caller.
#
# A hand is a PackedHand (3 bits per kind; groups 0-2 suits, 3 honors) plus its number of
# called melds. Functions that take a PackedHand expect it valid (see pack_counts);
# functions that return int use negative Status codes for errors.

from mjcore._core.types cimport u8, i8, u16, u32, u64, PackedHand

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
# Ranks of the four groups; ST_BAD_TOTAL if a group holds more than 14 tiles.
cdef int group_ranks(const PackedHand* h, u32* ranks) noexcept nogil

# Shanten of each form for a hand of 13-3k or 14-3k tiles (k = n_melds, not checked here).
cdef int shanten_standard_ranks(const u32* ranks, int n_melds) noexcept nogil
cdef int shanten_chiitoitsu(const PackedHand* h) noexcept nogil
cdef int shanten_kokushi(const PackedHand* h) noexcept nogil
# Minimum over the forms allowed (chiitoitsu/kokushi only when n_melds == 0).
# out3 may be NULL; else receives standard, chiitoitsu, kokushi (99 when not applicable).
cdef int shanten_all(const PackedHand* h, int n_melds, int* out3) noexcept nogil

# 1 when the 14-3k tile hand is complete in any form, 0 when not, negative on error.
cdef int agari_packed(const PackedHand* h, int n_melds) noexcept nogil

# For a 13-3k tile hand: its minimum shanten, and in *mask the 34-bit set of kinds whose draw
# lowers it (for a tenpai hand: the winning tiles). Negative Status on error.
cdef int advance_packed(const PackedHand* h, int n_melds, u64* mask) noexcept nogil

# For a 14-3k tile hand: shanten after each discard (127 for kinds not held) and the
# advancing mask of each resulting hand. Returns the best shanten after a discard. With
# best_only, masks are filled only where they can belong to a best discard (0 elsewhere).
cdef int ukeire_packed(const PackedHand* h, int n_melds, i8* after, u64* masks,
                       bint best_only) noexcept nogil

