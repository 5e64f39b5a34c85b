/* The instruction-set level this translation unit is compiled for, read from the compiler's own
   predefined macros (so a module can never claim another level than its code uses). */
#ifndef MJCORE_LEVEL_H
#define MJCORE_LEVEL_H
#if defined(__AVX2__) && defined(__BMI2__) && defined(__FMA__)
#define MJCORE_BUILT_LEVEL "x86-64-v3"
#elif defined(__POPCNT__) && defined(__SSSE3__) && defined(__SSE4_2__)
#define MJCORE_BUILT_LEVEL "x86-64-v2"
#elif defined(__x86_64__) || defined(_M_X64)
#define MJCORE_BUILT_LEVEL "x86-64"
#else
#define MJCORE_BUILT_LEVEL "portable"
#endif

#endif
