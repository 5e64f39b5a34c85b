# Generates the per-group shanten tables (tomohxx's distance-table method, reimplemented).
#
# For every pattern of one group (a suit: 9 kinds, or the honors: 7 kinds, each count 0..4,
# total <= 14) and every target of m sets (0..4) with p pairs (0..1) inside that group:
#   dist[p*5+m]    = fewest tiles to draw so the group holds m sets + p pairs (counts <= 4)
#   improve[p*5+m] = bit k set when drawing kind k lowers dist[p*5+m] by one
# Patterns are numbered by a lexicographic rank; the rank of a packed group word (3 bits per
# kind) is split into a low-part and a high-part lookup (see shanten.pxd).
#
# The build runs write_tables() once (setup.py); shanten.pyx loads the file at import.

from libc.stdlib cimport malloc, free
from libc.string cimport memset
from libc.stdio cimport FILE, fopen, fwrite, fclose

from mjcore._core.types cimport u8, u16, u32

cdef enum:
    INF = 99
    MAXT = 14

cdef struct GroupSpec:
    int n          # kinds in the group
    int seq        # sequences allowed
    int lo_kinds   # kinds in the low lookup part
    u32 n_patterns
    u32 completions[10][MAXT + 2]   # completions[j][s]: fillings of kinds j..n-1 with sum <= 14-s


cdef void spec_init(GroupSpec* g, int n, int seq, int lo_kinds) noexcept nogil:
    cdef int j, s, v
    g.n = n
    g.seq = seq
    g.lo_kinds = lo_kinds
    for s in range(MAXT + 2):
        g.completions[n][s] = 1 if s <= MAXT else 0
    for j in range(n - 1, -1, -1):
        for s in range(MAXT + 2):
            g.completions[j][s] = 0
            if s > MAXT:
                continue
            for v in range(5):
                if s + v <= MAXT:
                    g.completions[j][s] += g.completions[j + 1][s + v]
    g.n_patterns = g.completions[0][0]


cdef u32 rank_of(const GroupSpec* g, const int* c) noexcept nogil:
    cdef u32 r = 0
    cdef int i, v, s = 0
    for i in range(g.n):
        for v in range(c[i]):
            r += g.completions[i + 1][s + v]
        s += c[i]
    return r


# DP state after some kinds: cost[carry][m][p]; carry = a*5+b with a = sequences started
# two kinds back, b = sequences started one kind back.
cdef void step(const GroupSpec* g, int i, int c, const u8* src, u8* dst) noexcept nogil:
    cdef int a, b, m, p, s, t, q, need, m2, cost, smax, draw
    cdef u8 cur
    memset(dst, INF, 25 * 10)
    for a in range(5):
        for b in range(5 - a):
            for m in range(5):
                for p in range(2):
                    cur = src[(a * 5 + b) * 10 + p * 5 + m]
                    if cur >= INF:
                        continue
                    smax = 0
                    if g.seq and i <= g.n - 3:
                        smax = 4 - a - b
                    for s in range(smax + 1):
                        for t in range(2):
                            for q in range(2 - p):
                                need = a + b + s + 3 * t + 2 * q
                                if need > 4:
                                    continue
                                m2 = m + s + t
                                if m2 > 4:
                                    continue
                                draw = need - c
                                if draw < 0:
                                    draw = 0
                                cost = cur + draw
                                if cost < dst[(b * 5 + s) * 10 + (p + q) * 5 + m2]:
                                    dst[(b * 5 + s) * 10 + (p + q) * 5 + m2] = <u8>cost


cdef void fill_dist(const GroupSpec* g, int i, int total, int* c, u8* states,
                    u8* dist, u32* next_rank) noexcept nogil:
    cdef int v, k
    cdef u8* leaf
    if i == g.n:
        leaf = states + i * 250
        for k in range(10):
            dist[next_rank[0] * 10 + k] = leaf[k]   # carry (0, 0)
        next_rank[0] += 1
        return
    for v in range(5):
        if total + v > MAXT:
            break
        c[i] = v
        step(g, i, v, states + i * 250, states + (i + 1) * 250)
        fill_dist(g, i + 1, total + v, c, states, dist, next_rank)
    c[i] = 0


cdef void fill_improve(const GroupSpec* g, int i, int total, int* c, const u8* dist,
                       u16* improve, u8* complete, u32* next_rank) noexcept nogil:
    # improve[r], and complete[r]: bit0 = the group is exactly sets, bit1 = sets + one pair
    cdef int v, k, mp
    cdef u32 r, r2
    cdef u8 bits
    if i == g.n:
        r = next_rank[0]
        next_rank[0] += 1
        bits = 0
        if total % 3 == 0 and dist[r * 10 + total // 3] == 0:
            bits |= 1
        if total % 3 == 2 and dist[r * 10 + 5 + total // 3] == 0:
            bits |= 2
        complete[r] = bits
        for mp in range(10):
            improve[r * 10 + mp] = 0
        if total >= MAXT:
            return
        for k in range(g.n):
            if c[k] >= 4:
                continue
            c[k] += 1
            r2 = rank_of(g, c)
            c[k] -= 1
            for mp in range(10):
                if dist[r2 * 10 + mp] < dist[r * 10 + mp]:
                    improve[r * 10 + mp] |= <u16>(1 << k)
        return
    for v in range(5):
        if total + v > MAXT:
            break
        c[i] = v
        fill_improve(g, i + 1, total + v, c, dist, improve, complete, next_rank)
    c[i] = 0


cdef void fill_rank_parts(const GroupSpec* g, u32* lo_table, u32* hi_table) noexcept nogil:
    # lo_table[word & lo_mask] = (partial rank << 4) | sum, or 0xFFFFFFFF when invalid
    # hi_table[sum * hi_size + (word >> lo_bits)] = partial rank, or 0xFFFFFFFF when invalid
    cdef int lo_k = g.lo_kinds, hi_k = g.n - g.lo_kinds
    cdef u32 lo_size = 1u << (3 * lo_k), hi_size = 1u << (3 * hi_k)
    cdef u32 w, r
    cdef int s, s0
    for w in range(lo_size):
        s = 0
        r = _word_rank(g, w, 0, lo_k, &s)
        if r != 0xFFFFFFFFu:
            r = (r << 4) | <u32>s
        lo_table[w] = r
    for s0 in range(MAXT + 1):
        for w in range(hi_size):
            s = s0
            hi_table[s0 * hi_size + w] = _word_rank(g, w, lo_k, hi_k, &s)


cdef inline u32 _word_rank(const GroupSpec* g, u32 w, int first, int n_kinds,
                           int* total) noexcept nogil:
    # The partial rank of kinds first .. first + n_kinds - 1 whose counts w packs (3 bits
    # each), after *total tiles of the kinds before; *total becomes the tiles so far.
    # 0xFFFFFFFF when a count is over 4 or the total over MAXT.
    cdef u32 r = 0
    cdef int i, v
    for i in range(n_kinds):
        v = (w >> (3 * i)) & 7
        if v > 4 or total[0] + v > MAXT:
            return 0xFFFFFFFFu
        r += _partial(g, first + i, total[0], v)
        total[0] += v
    return r


cdef inline u32 _partial(const GroupSpec* g, int i, int s, int v) noexcept nogil:
    cdef u32 r = 0
    cdef int x
    for x in range(v):
        r += g.completions[i + 1][s + x]
    return r


cdef int write_group(FILE* f, int n, int seq, int lo_kinds) except -1:
    cdef GroupSpec g
    spec_init(&g, n, seq, lo_kinds)
    cdef u32 npat = g.n_patterns
    cdef u32 lo_size = 1u << (3 * lo_kinds)
    cdef u32 hi_size = 1u << (3 * (n - lo_kinds))
    cdef u8* dist = <u8*>malloc(npat * 10)
    cdef u16* improve = <u16*>malloc(npat * 10 * sizeof(u16))
    cdef u8* complete = <u8*>malloc(npat)
    cdef u32* lo_table = <u32*>malloc(lo_size * sizeof(u32))
    cdef u32* hi_table = <u32*>malloc((MAXT + 1) * hi_size * sizeof(u32))
    cdef u8 states[11 * 250]
    cdef int c[10]
    cdef u32 next_rank = 0, r, header[4]
    cdef u8 pad[16]
    memset(pad, 0, 16)
    cdef int k, tot
    if not dist or not improve or not complete or not lo_table or not hi_table:
        free(dist); free(improve); free(complete); free(lo_table); free(hi_table)
        raise MemoryError()
    try:
        with nogil:
            memset(states, INF, sizeof(states))
            states[0] = 0          # carry (0,0), p=0, m=0
            memset(c, 0, sizeof(c))
            fill_dist(&g, 0, 0, c, states, dist, &next_rank)
            next_rank = 0
            fill_improve(&g, 0, 0, c, dist, improve, complete, &next_rank)
            fill_rank_parts(&g, lo_table, hi_table)
        header[0] = npat
        header[1] = lo_size
        header[2] = hi_size
        header[3] = MAXT + 1
        fwrite(header, sizeof(u32), 4, f)
        fwrite(lo_table, sizeof(u32), lo_size, f)
        fwrite(hi_table, sizeof(u32), (MAXT + 1) * hi_size, f)
        _write_worth(f, dist, npat)
        fwrite(improve, sizeof(u16), npat * 10, f)
        fwrite(complete, 1, npat, f)
        fwrite(pad, 1, (16 - (21 * npat) % 16) % 16, f)  # next group starts 16-byte aligned
    finally:
        free(dist); free(improve); free(complete); free(lo_table); free(hi_table)
    return 0


cdef int _write_worth(FILE* f, const u8* dist, u32 npat) except -1:
    # 16-byte min-plus vectors (see minplus.h): lanes 0-4 no pair, 11-15 one pair, 64 - dist
    cdef u8 vec[16]
    cdef u32 r
    cdef int m
    for r in range(npat):
        memset(vec, 0, 16)
        for m in range(5):
            vec[m] = 64 - dist[r * 10 + m]
            vec[11 + m] = 64 - dist[r * 10 + 5 + m]
        fwrite(vec, 1, 16, f)
    return 0


TABLE_FILE = "shanten_tables.bin"
MAGIC = b"MJST0003"


def write_tables(str directory) -> str:
    """Generate the suit and honor tables into DIRECTORY/shanten_tables.bin; return the path."""
    import os

    path = os.path.join(directory, TABLE_FILE)
    tmp = path + ".tmp"
    cdef bytes bpath = tmp.encode()
    cdef char zeros[8]
    memset(zeros, 0, 8)
    cdef FILE* f = fopen(bpath, b"wb")
    if f == NULL:
        raise OSError(f"cannot write {tmp}")
    try:
        fwrite(<const char*>MAGIC, 1, 8, f)
        fwrite(zeros, 1, 8, f)                           # header padding to 16 bytes
        write_group(f, 9, 1, 5)
        write_group(f, 7, 0, 4)
    finally:
        fclose(f)
    os.replace(tmp, path)
    return path
