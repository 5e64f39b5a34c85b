/* Clear the upper halves of the ymm registers on leaving an AVX2 kernel. GCC 12 leaves the
   vzeroupper out of some return paths at -march=x86-64-v3 (advance_forms, ukeire_forms, ...),
   and the SSE code that runs next (the interpreter's) then pays a state-transition or
   false-dependency penalty on every instruction: a one-hand call ran 3x slower. Nothing below
   AVX. */
#ifndef MJCORE_AVX_UPPER_H
#define MJCORE_AVX_UPPER_H
#if defined(__AVX__)
#include <immintrin.h>
static inline void mj_zero_upper(void) { _mm256_zeroupper(); }
#else
static inline void mj_zero_upper(void) {}
#endif
#endif
