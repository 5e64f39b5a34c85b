# The level a kernel module is compiled for (level.h): every kernel exposes it as BUILT_FOR.
cdef extern from "level.h":
    const char *MJCORE_BUILT_LEVEL
