# What this CPU runs, asked of the CPU itself (cpuid, and XGETBV for the AVX registers). Built
# at the x86-64 baseline only, so that mjcore._core can ask it before it loads a higher level.

cdef extern from *:
    """
    /* What this CPU runs (checked at run time, whatever this file was compiled for). */
    #if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
    static int mj_cpu_runs_v2(void) {
        __builtin_cpu_init();
        return __builtin_cpu_supports("popcnt") && __builtin_cpu_supports("ssse3")
            && __builtin_cpu_supports("sse4.1") && __builtin_cpu_supports("sse4.2");
    }
    static int mj_cpu_runs_v3(void) {
        /* avx and avx2 are reported only when the OS saves the YMM registers (XGETBV) */
        return mj_cpu_runs_v2() && __builtin_cpu_supports("avx") && __builtin_cpu_supports("avx2")
            && __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2")
            && __builtin_cpu_supports("fma");
    }
    #else
    static int mj_cpu_runs_v2(void) { return 0; }
    static int mj_cpu_runs_v3(void) { return 0; }
    #endif
    """
    int mj_cpu_runs_v2() noexcept nogil
    int mj_cpu_runs_v3() noexcept nogil


def levels() -> list:
    """The x86-64 levels this CPU runs, lowest first ([] on another architecture)."""
    import platform

    if platform.machine().lower() not in ("x86_64", "amd64"):
        return []
    out = ["x86-64"]
    if mj_cpu_runs_v2():
        out.append("x86-64-v2")
    if mj_cpu_runs_v3():
        out.append("x86-64-v3")
    return out
