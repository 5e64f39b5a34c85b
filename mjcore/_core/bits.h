/* Bit helpers for 3-bit packed tile counts. */
#ifndef MJCORE_BITS_H
#define MJCORE_BITS_H

#include <stdint.h>

#if defined(__BMI2__)
#include <immintrin.h>
/* Bits at positions 3*i (i = 0..8) -> bits i. */
static inline uint32_t mj_compress3(uint32_t spaced) { return _pext_u32(spaced, 0111111111u); }
#else
static inline uint32_t mj_compress3(uint32_t spaced) {
    uint32_t out = 0;
    for (int i = 0; i < 9; i++) out |= ((spaced >> (3 * i)) & 1u) << i;
    return out;
}
#endif

#endif
