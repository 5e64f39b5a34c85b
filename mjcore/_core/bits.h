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

/* Set bits: the POPCNT instruction where the build has it; else shifts and a multiply inline
   (GCC's own fallback is a libgcc call per count, which the x86-64 baseline paid). */
static inline int mj_popcount64(uint64_t x) {
#if defined(__POPCNT__)
    return __builtin_popcountll(x);
#else
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return (int)((x * 0x0101010101010101ull) >> 56);
#endif
}

static inline int mj_popcount32(uint32_t x) { return mj_popcount64(x); }

#endif
