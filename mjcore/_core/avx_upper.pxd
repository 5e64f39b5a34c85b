# mj_zero_upper(): vzeroupper in an AVX build, nothing otherwise (avx_upper.h says why). Call it
# on the single exit of a kernel that may run AVX2 code.
cdef extern from "avx_upper.h":
    void mj_zero_upper() noexcept nogil
