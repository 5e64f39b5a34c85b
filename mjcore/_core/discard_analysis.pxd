# The dataset analysis of one hand (see discard_analysis.pyx). `small`, `wide` and `masks`
# point at the row's entry of their first field; field j lies j * n entries further
# (SMALL_ROWS, WIDE_ROWS, MASK_ROWS). Returns 0, a negative Status or ST_DISCARD_NOT_HELD.

from mjcore._core.types cimport u8, i8, i16, u64

cdef int analyse_row(const u8* counts, int n_melds, const u8* visible, int made, int forms,
                     i8* small, i16* wide, u64* masks, Py_ssize_t n, i8* d_shanten,
                     u8* d_ukeire) noexcept nogil
