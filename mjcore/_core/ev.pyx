"""Expected value of discards (bodies for ev.pxd): mjcore/riichi/ev.md §2 (the graph) and §3 (the values).

A node is a hand (packed counts, the red fives held) with a riichi flag; draw nodes hold 3n+1
tiles, discard nodes 3n+2. The graph is built breadth first (nodes expanded in the order they were
made, so a level's nodes lie together) with one open-addressed table of
nodes, its edges (draw node -> discard node, "draw tile i") kept once; each winning edge is
scored once by the riichi scorer; the values run backwards over the turns in two flat layers.
"""
import numpy as np
from cython.parallel cimport prange, threadid
from libc.stdlib cimport malloc, calloc, realloc, free
from libc.string cimport memset, memcpy
from libc.math cimport NAN
from cpython.float cimport PyFloat_FromDouble
from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC, CLOCK_THREAD_CPUTIME_ID

from .types cimport (u8, i8, u16, u32, i32, u64, i64, PackedHand, FORMS_RIICHI, ST_OK,
                     ST_BAD_COUNT, ST_BAD_TOTAL, ST_BAD_MELDS, ST_BAD_TILE, ST_EV_SHANTEN,
                     ST_EV_NODES, ST_EV_DEADLINE, ST_EV_MEMORY, ST_EV_OPTION,
                     ST_DISCARD_NOT_HELD, ST_NOT_IN_SANMA)
from .shanten cimport (pack_counts, shanten_forms, advance_forms, ukeire_forms,
                       draw_discards_forms)
from .ev_layers cimport (ev_draw, ev_draw_of, ev_best_of_kids4, ev_draw_turn4, ev_draw_turn8,
                         ev_policy_of_kids8, ev_policy_of_kids4)
from .ev cimport (EvRequest, EvResult, EvCandidate, EvWin, EvWork, EV_MAX_TURNS, EV_N_TILES,
                  EV_COLUMNS, EV_COMPATIBLE, EV_CONSISTENT, EV_WORK_BUFFERS)
from .decompose cimport HandC, MeldC, MK_CHI, MK_PON, MK_KAN_OPEN, MK_KAN_CLOSED, MK_KAN_ADDED
from .scoring cimport (RulesC, Situation, ScoreOut, MAX_INDICATORS, F_TSUMO, F_RIICHI,
                       fill_situation, score_hand, score_points_by_ura,
                       fill_rules)

cdef enum:
    RIICHI_FLAG = 8         # Key.flags bit 3; bits 0-2 the red 5m 5p 5s held
    NO_NODE = -1

# Graph.necessary of a discard node: the kinds whose discard keeps its shanten, with this bit
# once known (given by the draw node that made it; else its expansion runs the ukeire kernel).
cdef u64 KEEP_KNOWN = (<u64>1) << 63
cdef u64 ALL_KINDS = ((<u64>1) << 34) - 1
# new draw nodes of a discard node from which one ukeire pass gives them all their shanten and
# necessary tiles (fewer: each its own advance_forms in _expand_draw)
cdef int UKEIRE_FOR_DRAWS = 8

cdef enum:                  # EvWork's buffers
    W_KEYS, W_SHANTEN, W_NECESSARY, W_IS_DRAW, W_DIST, W_TABLE, W_TABLE_NEXT, W_EDGES,
    W_INDEX, W_START, W_MARK, W_DRAW_OF, W_SORTED, W_PLAIN_AT, W_WIN_AT, W_PLAIN, W_WIN,
    W_WIN_SCORE, W_KIDS_AT, W_KIDS, W_TENPAI, W_WEIGHT_SUM, W_INTO_AT, W_INTO, W_DEPTH,
    W_DISC_ORDER, W_DRAW_CUR, W_DRAW_NXT, W_DISC_NXT, W_COUNT


cdef extern from "<sys/mman.h>" nogil:
    int madvise(void* addr, size_t length, int advice)
    int MADV_HUGEPAGE
cdef extern from "<stdlib.h>" nogil:
    int posix_memalign(void** p, size_t alignment, size_t size)

cdef size_t HUGE_PAGE = 2 << 20


cdef void* _buffer(EvWork* w, int slot, size_t size) noexcept nogil:
    """w's buffer slot with room for size bytes (what it held kept); NULL when out of memory.
    One of 2 MB or more is in whole huge pages where the system gives them (fewer TLB misses
    in the random lookups of large graphs)."""
    cdef void* p
    if size == 0:
        size = 1
    if w.cap[slot] < size:
        if size >= HUGE_PAGE:
            size = (size + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1)
            if posix_memalign(&p, HUGE_PAGE, size) != 0:
                return NULL
            madvise(p, size, MADV_HUGEPAGE)
            if w.buf[slot] != NULL:
                memcpy(p, w.buf[slot], w.cap[slot])
                free(w.buf[slot])
        else:
            p = realloc(w.buf[slot], size)
            if p == NULL:
                return NULL
        w.buf[slot] = p
        w.cap[slot] = size
    return w.buf[slot]


cdef void* _zeroed(EvWork* w, int slot, size_t size) noexcept nogil:
    """_buffer, its first size bytes zero."""
    cdef void* p = _buffer(w, slot, size)
    if p != NULL:
        memset(p, 0, size)
    return p

cdef struct Key:
    PackedHand hand
    u32 flags

cdef struct Edge:
    i32 x                   # draw node
    i32 d                   # discard node
    i32 weight              # unseen copies of the drawn tile in x's state

cdef struct Graph:
    const EvRequest* q
    EvWork* w               # where the arrays live
    Key* keys
    i8* shanten             # 99 until known
    u64* necessary          # draw nodes: the kinds whose draw lowers the shanten
    u8* is_draw
    u8* dist                # tiles held that the request's hand did not hold, over 37 kinds:
                            # a red five is its own kind, a five's kind its ordinary copies
    i64 n_nodes
    i64 cap_nodes
    i32* table              # open addressing: node id + 1, 0 empty
    u64 table_mask
    Edge* edges
    i64 n_edges
    i64 cap_edges
    int n_closed_melds      # melds that keep the hand closed (closed kans)
    int closed              # no open meld: riichi possible
    int s0                  # shanten of the request's hand
    int bound               # s0 + extra: a node leaves the greedy line while dist + s < bound
    u8 c0[34]
    u8 r0
    u8 ord0[34]             # the request's copies per kind, a red five apart (Graph.dist)
    i32 wall0[34]           # the start's unseen copies plus its held ones, per kind
    u8 indicated[34]        # the kind each indicator kind makes dora
    u8 meld_worth[34]       # dora an indicator kind would make in the melds and norths set aside
    double start
    int timed_out


cdef inline double _now(const EvRequest* q) noexcept nogil:
    """Seconds on q's deadline clock: the thread's CPU time or the wall's."""
    cdef timespec ts
    clock_gettime(CLOCK_THREAD_CPUTIME_ID if q.cpu_clock else CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


cdef inline int _group(int i) noexcept nogil:
    return 3 if i >= 27 else i // 9


cdef inline int _shift(int i) noexcept nogil:
    return 3 * (i - 27 if i >= 27 else i % 9)


cdef inline int _count(const Key* k, int i) noexcept nogil:
    return (k.hand.words[_group(i)] >> _shift(i)) & 7


cdef inline int _five_suit(int i) noexcept nogil:
    """0, 1, 2 for 5m, 5p, 5s; -1 otherwise."""
    if i == 4:
        return 0
    if i == 13:
        return 1
    if i == 22:
        return 2
    return -1


cdef inline u64 _hash(const Key* k) noexcept nogil:
    cdef u64 h = (<u64>k.hand.words[0] * <u64>0x9E3779B97F4A7C15ULL) ^ k.hand.words[1]
    h = (h * <u64>0xC2B2AE3D27D4EB4FULL) ^ k.hand.words[2]
    h = (h * <u64>0x165667B19E3779F9ULL) ^ (<u64>k.hand.words[3] | (<u64>k.flags << 32))
    h = (h ^ (h >> 29)) * <u64>0xBF58476D1CE4E5B9ULL
    return h ^ (h >> 32)


cdef inline bint _same(const Key* a, const Key* b) noexcept nogil:
    return (a.hand.words[0] == b.hand.words[0] and a.hand.words[1] == b.hand.words[1]
            and a.hand.words[2] == b.hand.words[2] and a.hand.words[3] == b.hand.words[3]
            and a.flags == b.flags)


cdef int _grow_table(Graph* g) noexcept nogil:
    cdef u64 cap = (g.table_mask + 1) * 2, slot
    cdef i64 i
    cdef i32* t = <i32*>_zeroed(g.w, W_TABLE_NEXT, cap * sizeof(i32))
    cdef void* p
    cdef size_t c
    if t == NULL:
        return ST_EV_MEMORY
    for i in range(g.n_nodes):
        slot = _hash(&g.keys[i]) & (cap - 1)
        while t[slot]:
            slot = (slot + 1) & (cap - 1)
        t[slot] = <i32>(i + 1)
    p = g.w.buf[W_TABLE]                    # the old table becomes the spare
    c = g.w.cap[W_TABLE]
    g.w.buf[W_TABLE] = g.w.buf[W_TABLE_NEXT]
    g.w.cap[W_TABLE] = g.w.cap[W_TABLE_NEXT]
    g.w.buf[W_TABLE_NEXT] = p
    g.w.cap[W_TABLE_NEXT] = c
    g.table = t
    g.table_mask = cap - 1
    return ST_OK


cdef extern from *:
    void __builtin_prefetch(const void* p) noexcept nogil
    int __builtin_ctzll(unsigned long long x) noexcept nogil


cdef enum:
    MAX_CHILDREN = 40       # a node's draws (34 kinds and 3 red fives) or discards (14 x 2)


cdef inline void _prefetch(const Graph* g, const Key* keys, u64* hashes, int n) noexcept nogil:
    """Ask for the table slots of n keys, then for the keys those slots hold, before the
    lookups: the lookups' cache misses overlap instead of following one another."""
    cdef int j
    cdef i32 id
    for j in range(n):
        hashes[j] = _hash(&keys[j])
        __builtin_prefetch(&g.table[hashes[j] & g.table_mask])
    for j in range(n):
        id = g.table[hashes[j] & g.table_mask]
        if id:
            __builtin_prefetch(&g.keys[id - 1])


cdef int _node_arrays(Graph* g, i64 cap) noexcept nogil:
    """Room for cap nodes in the per-node arrays (what they hold kept)."""
    g.keys = <Key*>_buffer(g.w, W_KEYS, cap * sizeof(Key))
    g.shanten = <i8*>_buffer(g.w, W_SHANTEN, cap)
    g.is_draw = <u8*>_buffer(g.w, W_IS_DRAW, cap)
    g.necessary = <u64*>_buffer(g.w, W_NECESSARY, cap * sizeof(u64))
    g.dist = <u8*>_buffer(g.w, W_DIST, cap)
    if (g.keys == NULL or g.shanten == NULL or g.is_draw == NULL or g.necessary == NULL
            or g.dist == NULL):
        return ST_EV_MEMORY
    g.cap_nodes = cap
    return ST_OK


cdef i64 _node(Graph* g, const Key* k, bint draw) noexcept nogil:
    """The node of k, made when new (the build expands it in its turn); negative Status on failure."""
    return _node_at(g, k, _hash(k), draw)


cdef i64 _node_at(Graph* g, const Key* k, u64 h, bint draw) noexcept nogil:
    """_node with k's hash h."""
    cdef u64 slot = h & g.table_mask
    cdef i32 id
    while True:
        id = g.table[slot]
        if id == 0:
            break
        if _same(&g.keys[id - 1], k):
            return id - 1
        slot = (slot + 1) & g.table_mask
    if g.n_nodes >= g.q.max_nodes:
        return ST_EV_NODES
    if g.n_nodes == g.cap_nodes and _node_arrays(g, g.cap_nodes * 2) != ST_OK:
        return ST_EV_MEMORY
    id = <i32>g.n_nodes
    g.keys[id] = k[0]
    g.shanten[id] = 99
    g.necessary[id] = 0
    g.is_draw[id] = draw
    g.n_nodes += 1
    g.table[slot] = id + 1
    if <u64>g.n_nodes * 2 > g.table_mask:
        if _grow_table(g) != ST_OK:
            return ST_EV_MEMORY
    return id


cdef inline int _edge(Graph* g, i64 x, i64 d, int weight) noexcept nogil:
    cdef void* p
    if g.n_edges == g.cap_edges:
        g.cap_edges *= 2
        p = _buffer(g.w, W_EDGES, g.cap_edges * sizeof(Edge))
        if p == NULL:
            return ST_EV_MEMORY
        g.edges = <Edge*>p
    g.edges[g.n_edges].x = <i32>x
    g.edges[g.n_edges].d = <i32>d
    g.edges[g.n_edges].weight = weight
    g.n_edges += 1
    return ST_OK


cdef extern from "bits.h":
    u32 mj_compress3(u32 spaced) noexcept nogil


cdef inline u64 _held(const Key* k) noexcept nogil:
    """The kinds k holds, bit i for kind i."""
    cdef u64 out = 0
    cdef int grp
    cdef u32 w
    for grp in range(4):
        w = k.hand.words[grp]
        out |= (<u64>mj_compress3((w | (w >> 1) | (w >> 2)) & 0o111111111)) << (9 * grp)
    return out


cdef inline int _ord(const Graph* g, const Key* k, int i) noexcept nogil:
    """Copies of kind i in k, a red five apart (the kind Graph.dist counts)."""
    cdef int c = _count(k, i), suit = _five_suit(i)
    if suit >= 0:
        c -= (k.flags >> suit) & 1
    return c


cdef inline int _dist_step(const Graph* g, const Key* k, int i, int red, int sign) noexcept nogil:
    """Graph.dist's change when k draws (sign 1) or discards (sign -1) a copy of kind i, the
    red five when red: a copy the request's hand did not hold comes or goes."""
    cdef int suit
    if red:
        suit = _five_suit(i)
        return sign if (g.r0 >> suit) & 1 == 0 else 0
    if sign > 0:
        return 1 if _ord(g, k, i) >= g.ord0[i] else 0
    return -1 if _ord(g, k, i) > g.ord0[i] else 0


cdef inline void _unpack(const Key* k, u8* c) noexcept nogil:
    cdef int grp, j
    cdef u32 w
    for grp in range(4):
        w = k.hand.words[grp]
        for j in range(7 if grp == 3 else 9):
            c[9 * grp + j] = (w >> (3 * j)) & 7


cdef inline int _wall_red(const Graph* g, u32 flags, int suit) noexcept nogil:
    cdef int held = (flags >> suit) & 1, held0 = (g.r0 >> suit) & 1
    return g.q.wall_red[suit] - (held - held0)


cdef int _expand_draw(Graph* g, i64 x) noexcept nogil:
    """Draw node: an edge for each draw it makes (§2). Its shanten and necessary tiles are
    computed here (the request's hand's candidates have them from its ukeire pass); a drawn
    tile lowers the shanten exactly when it is necessary, which gives each new discard node
    its shanten, and one draw_discards pass gives the new ones their shanten-keeping discards."""
    cdef Key k = g.keys[x]
    cdef Key nk
    cdef Key kid[MAX_CHILDREN]
    cdef u64 kid_hash[MAX_CHILDREN]
    cdef int kid_weight[MAX_CHILDREN]
    cdef i8 kid_shanten[MAX_CHILDREN]
    cdef i32 kid_id[MAX_CHILDREN]
    cdef u8 kid_kind[MAX_CHILDREN]
    cdef u8 kid_dist[MAX_CHILDREN]
    cdef u8 new_kind[MAX_CHILDREN]
    cdef i8 new_shanten[MAX_CHILDREN]
    cdef u64 new_keep[MAX_CHILDREN]
    cdef u64 necessary
    cdef int s, i, w, wr, suit, grp, sh, riichi = (k.flags & RIICHI_FLAG) != 0, child, n = 0, j
    cdef int n_new, dist
    cdef i64 d, first_new
    cdef u64 todo
    cdef bint wide
    if g.shanten[x] == 99:
        necessary = 0
        s = advance_forms(&k.hand, g.q.n_melds, FORMS_RIICHI, &necessary)
        if s < -1:
            return s
        g.shanten[x] = <i8>s
        g.necessary[x] = necessary
    s = g.shanten[x]
    necessary = g.necessary[x]
    dist = g.dist[x]
    wide = g.q.tegawari and not riichi and dist + s < g.bound
    todo = ALL_KINDS if wide else necessary
    while todo:
        i = __builtin_ctzll(todo)
        todo &= todo - 1
        w = g.wall0[i] - _count(&k, i)
        if w <= 0:
            continue
        child = s - 1 if (necessary >> i) & 1 else s
        grp = i // 9
        sh = 3 * (i - 9 * grp)
        nk = k
        nk.hand.words[grp] += <u32>1 << sh
        suit = _five_suit(i) if g.q.use_red else -1
        if suit >= 0:
            wr = _wall_red(g, k.flags, suit)
            if wr > 0:
                kid[n] = nk
                kid[n].flags = k.flags | (1u << suit)
                kid_weight[n] = wr
                kid_shanten[n] = <i8>child
                kid_kind[n] = <u8>i
                kid_dist[n] = <u8>(dist + _dist_step(g, &k, i, 1, 1))
                n += 1
                w -= wr
            if w <= 0:
                continue
        kid[n] = nk
        kid_weight[n] = w
        kid_shanten[n] = <i8>child
        kid_kind[n] = <u8>i
        kid_dist[n] = <u8>(dist + _dist_step(g, &k, i, 0, 1))
        n += 1
    _prefetch(g, kid, kid_hash, n)
    first_new = g.n_nodes
    for j in range(n):
        d = _node_at(g, &kid[j], kid_hash[j], False)
        if d < 0 or _edge(g, x, d, kid_weight[j]) != ST_OK:
            return <int>d if d < 0 else ST_EV_MEMORY
        g.shanten[d] = kid_shanten[j]
        if d >= first_new:
            g.dist[d] = kid_dist[j]
        kid_id[j] = <i32>d
    # the new discard nodes' shanten-keeping discards, from this node's groups in one pass
    n_new = 0
    for j in range(n):
        if kid_id[j] >= first_new and kid_shanten[j] >= 0:
            i = kid_kind[j]
            if n_new == 0 or new_kind[n_new - 1] != i:     # a red five and its kind: one
                new_kind[n_new] = <u8>i
                n_new += 1
    if n_new:
        s = draw_discards_forms(&k.hand, g.q.n_melds, FORMS_RIICHI, new_kind, n_new,
                                new_shanten, new_keep)
        if s != ST_OK:
            return s
        n_new = 0
        for j in range(n):
            if kid_id[j] >= first_new and kid_shanten[j] >= 0:
                if new_kind[n_new] != kid_kind[j]:
                    n_new += 1
                if new_shanten[n_new] == kid_shanten[j]:
                    g.necessary[kid_id[j]] = new_keep[n_new] | KEEP_KNOWN
    return ST_OK


cdef inline int _drawn_kind(const Key* x, const Key* d) noexcept nogil:
    """The kind d holds one more of than x (d = x and one tile)."""
    cdef int grp, j
    cdef u32 diff
    for grp in range(4):
        diff = d.hand.words[grp] - x.hand.words[grp]
        if diff:
            j = 0
            while diff > 1:
                diff >>= 3
                j += 1
            return 9 * grp + j
    return -1


cdef int _expand_discard(Graph* g, i64 dnode) noexcept nogil:
    """Discard node: for each discard the edge that draws the tile back (§2). The draw node
    that made it gave its shanten-keeping discards; the request's hand has an ukeire pass,
    which also gives its draw nodes' necessary tiles."""
    cdef Key k = g.keys[dnode]
    cdef Key y
    cdef Key kid[MAX_CHILDREN]
    cdef u64 kid_hash[MAX_CHILDREN]
    cdef int kid_weight[MAX_CHILDREN]
    cdef u8 kid_tile[MAX_CHILDREN]
    cdef u8 kid_dist[MAX_CHILDREN]
    cdef i32 kid_id[MAX_CHILDREN]
    cdef i8 after[34]
    cdef u64 masks[34]
    cdef int s, i, suit, variant, red_held, w, riichi = (k.flags & RIICHI_FLAG) != 0, i_best = 0
    cdef int n = 0, j, dist, cnt, n_unknown = 0
    cdef bint wide, unnecessary, declares, known, ran = False
    cdef i64 yid, new
    cdef u64 keep, held, todo
    s = g.shanten[dnode]
    if s == 99:
        s = shanten_forms(&k.hand, g.q.n_melds, FORMS_RIICHI, NULL)
        if s < -1:
            return s
        g.shanten[dnode] = <i8>s
    dist = g.dist[dnode]
    wide = g.q.shanten_down and not riichi and dist + s < g.bound
    if not (s >= 0 or wide):
        return ST_OK
    held = _held(&k)
    keep = g.necessary[dnode]
    known = (keep & KEEP_KNOWN) != 0
    if not known:
        i_best = ukeire_forms(&k.hand, g.q.n_melds, FORMS_RIICHI, after, masks, not wide)
        if i_best < -1:
            return i_best
        ran = True
        keep = 0
        for i in range(34):
            if (held >> i) & 1 and after[i] == s:
                keep |= (<u64>1) << i
    if s < 0:
        keep = 0
    todo = held if wide else held & keep
    while todo:
        i = __builtin_ctzll(todo)
        todo &= todo - 1
        cnt = _count(&k, i)
        unnecessary = (keep >> i) & 1
        declares = riichi or (g.closed and s == 0 and unnecessary)
        suit = _five_suit(i) if g.q.use_red else -1
        red_held = (k.flags >> suit) & 1 if suit >= 0 else 0
        for variant in range(2):            # 0 the red five, 1 an ordinary tile of the kind
            if variant == 0 and not red_held:
                continue
            if variant == 1 and cnt <= red_held:
                continue
            y = k
            y.hand.words[_group(i)] -= <u32>1 << _shift(i)
            y.flags = (k.flags & ~(<u32>RIICHI_FLAG)) | (RIICHI_FLAG if declares else 0)
            if variant == 0:
                y.flags &= ~(1u << suit)
                w = _wall_red(g, y.flags, suit)
            else:
                w = g.wall0[i] - cnt + 1        # y holds one copy fewer
                if suit >= 0:
                    w -= _wall_red(g, y.flags, suit)
            kid[n] = y
            kid_weight[n] = w
            kid_tile[n] = <u8>i
            kid_dist[n] = <u8>(dist + _dist_step(g, &k, i, variant == 0, -1))
            n += 1
    _prefetch(g, kid, kid_hash, n)
    for j in range(n):
        new = g.n_nodes
        yid = _node_at(g, &kid[j], kid_hash[j], True)
        if yid < 0:
            return <int>yid
        if yid >= new:
            g.dist[yid] = kid_dist[j]
        if _edge(g, yid, dnode, kid_weight[j]) != ST_OK:
            return ST_EV_MEMORY
        kid_id[j] = <i32>yid
        n_unknown += g.shanten[yid] == 99
    # the new draw nodes' shanten and necessary tiles: one ukeire pass for them all (its masks
    # the best discards' only unless wide: the others are not expanded then)
    if n_unknown >= UKEIRE_FOR_DRAWS and not ran:
        i_best = ukeire_forms(&k.hand, g.q.n_melds, FORMS_RIICHI, after, masks, not wide)
        if i_best < -1:
            return i_best
        ran = True
    if ran:
        for j in range(n):
            yid = kid_id[j]
            i = kid_tile[j]
            if g.shanten[yid] == 99 and (wide or after[i] == i_best):
                g.shanten[yid] = after[i]
                g.necessary[yid] = masks[i]
    return ST_OK


cdef int _build(Graph* g) noexcept nogil:
    cdef i64 id
    cdef int st, done = 0
    id = 0
    while id < g.n_nodes:
        st = _expand_draw(g, id) if g.is_draw[id] else _expand_discard(g, id)
        if st != ST_OK:
            return st
        id += 1
        done += 1
        if (done & 1023) == 0 and g.q.max_seconds > 0 and _now(g.q) - g.start > g.q.max_seconds:
            return ST_EV_DEADLINE
    return ST_OK


cdef inline int _next_kind(int k, int players) noexcept nogil:
    """The kind an indicator k makes dora (three players: 1m points to 9m)."""
    if k < 27:
        if k % 9 == 8:
            return k - 8
        if players == 3 and k == 0:
            return 8
        return k + 1
    if k < 31:
        return 27 if k == 30 else k + 1
    return 31 if k == 33 else k + 1


cdef inline int _red_twin(const Graph* g, const Edge* edges, i64 e, i64 end, const Key* dk,
                          int drawn) noexcept nogil:
    """Whether the next edge of the same draw node wins with the same hand but for the red
    five of the drawn kind: 1 when the next one holds it, -1 when this one does, else 0."""
    cdef int suit = _five_suit(drawn) if g.q.use_red else -1
    cdef const Key* nk
    cdef u32 bit
    if suit < 0 or e + 1 >= end or g.shanten[edges[e + 1].d] != -1:
        return 0
    nk = &g.keys[edges[e + 1].d]
    bit = 1u << suit
    if (nk.hand.words[0] != dk.hand.words[0] or nk.hand.words[1] != dk.hand.words[1]
            or nk.hand.words[2] != dk.hand.words[2] or nk.hand.words[3] != dk.hand.words[3]
            or (nk.flags ^ dk.flags) != bit):
        return 0
    return 1 if nk.flags & bit else -1


cdef void _ura_setup(Graph* g) noexcept nogil:
    """What the ura expectation of every win shares: each indicator's dora kind, and the dora it
    would make in the melds and the norths set aside."""
    cdef const EvRequest* q = g.q
    cdef int i, j, c, nk
    for j in range(34):
        nk = _next_kind(j, q.rules.players)
        g.indicated[j] = <u8>nk
        g.meld_worth[j] = q.kita if nk == 30 else 0
        for i in range(q.n_melds):
            c = 3 if q.melds[i].kind == MK_CHI or q.melds[i].kind == MK_PON else 4
            if q.melds[i].kind == MK_CHI:
                if q.melds[i].tile <= nk <= q.melds[i].tile + 2:
                    g.meld_worth[j] += 1
            elif nk == q.melds[i].tile:
                g.meld_worth[j] += c


cdef double _score_win(const Graph* g, const Key* dk, int win_tile,
                       double* with_red) noexcept nogil:
    """The tsumo value of the complete hand dk won on win_tile (§1): 0 without a yaku; after
    riichi with ura dora on, the expectation over the ura indicators. With with_red, also the
    value of the same win with one red five more (a dora more: the readings are scored once)."""
    cdef const EvRequest* q = g.q
    cdef HandC hand
    cdef Situation sit
    cdef ScoreOut out
    cdef int i, j, w, u, c, n = q.n_dora, riichi = (dk.flags & RIICHI_FLAG) != 0, top
    cdef int group[5]             # unseen tiles by the ura each would make as an indicator
    cdef i32 points[4 * MAX_INDICATORS + 2]
    cdef double ways[MAX_INDICATORS + 1][4 * MAX_INDICATORS + 1]
    cdef double choose, all_ways, value
    cdef u64 packed
    _unpack(dk, hand.counts)
    hand.n_melds = q.n_melds
    for i in range(q.n_melds):
        hand.melds[i] = q.melds[i]
    hand.red = 0
    if q.use_red:
        for i in range(3):
            hand.red += (dk.flags >> i) & 1
    fill_situation(&sit, <u8>win_tile, F_TSUMO | (F_RIICHI if riichi else 0), q.seat_wind,
                   q.round_wind, 0, -1, 0, 0, q.kita)
    sit.n_dora = q.n_dora
    for i in range(q.n_dora):
        sit.dora_ind[i] = q.dora_ind[i]
    sit.n_ura = 0
    if not (riichi and q.use_ura and n):
        if with_red == NULL:
            return out.points if score_hand(&hand, &sit, &q.rules, &out) == ST_OK else 0.0
        if score_points_by_ura(&hand, &sit, &q.rules, 1, points) != ST_OK:
            with_red[0] = 0.0
            return 0.0
        with_red[0] = points[1]
        return points[0]
    # the unseen tiles by the dora each would make as an indicator (hand, melds, norths)
    packed = 0                  # group[w] in bits 8w..8w+7 (at most 136 unseen): a register sum
    for i in range(34):
        c = g.wall0[i] - hand.counts[i]
        if c > 0:
            w = hand.counts[g.indicated[i]] + g.meld_worth[i]
            packed += <u64>c << (8 * (w if w < 4 else 4))
    for w in range(5):
        group[w] = (packed >> (8 * w)) & 255
    # ways[j][u]: choices of j indicators among the unseen tiles that make u ura
    top = 4 * n
    for j in range(n + 1):
        for u in range(top + 1):
            ways[j][u] = 0.0
    ways[0][0] = 1.0
    for w in range(5):
        if not group[w]:
            continue
        if n == 1:              # one indicator: group[w] ways to make w ura
            ways[1][w] = group[w]
            continue
        for j in range(n, 0, -1):           # in place: j and u only grow
            for u in range(top, -1, -1):
                value = 0.0
                choose = 1.0
                for c in range(1, j + 1):
                    choose = choose * (group[w] - c + 1) / c
                    if choose == 0.0:
                        break
                    if u >= c * w:
                        value += ways[j - c][u - c * w] * choose
                ways[j][u] += value
    all_ways = 0.0
    c = 0
    for u in range(top + 1):
        all_ways += ways[n][u]
        if ways[n][u] != 0.0:
            c = u
    if all_ways <= 0.0:         # no tile left to indicate: no ura
        c = 0
        all_ways = ways[n][0] = 1.0
    if score_points_by_ura(&hand, &sit, &q.rules, c + (with_red != NULL), points) != ST_OK:
        if with_red != NULL:
            with_red[0] = 0.0
        return 0.0
    value = 0.0
    for u in range(c + 1):
        value += points[u] * ways[n][u]
    if with_red != NULL:
        choose = 0.0
        for u in range(c + 1):
            choose += points[u + 1] * ways[n][u]
        with_red[0] = choose / all_ways
    return value / all_ways


cdef inline void _emit(const EvResult* out, double* values, const double* draw_cur,
                       const i32* index, int T, int t, int stride, int best_of) noexcept nogil:
    """The candidates' five values at turn t from nodes of ``stride`` doubles: the first three
    are the node's; the best-of columns from lanes 3-4 (best_of 3: the consistent model), from
    lanes 0-1 (best_of 0: the compatible model, whose columns are each their own best) or none
    (best_of -1: NaN)."""
    cdef int k, c
    cdef const double* v
    for k in range(out.n_cand):
        if out.cand[k].evaluated:
            v = draw_cur + stride * index[out.cand[k].node]
            for c in range(EV_COLUMNS):
                values[(k * EV_COLUMNS + c) * T + t - 1] = (
                    v[c] if c < 3 else NAN if best_of < 0 else v[c - 3 + best_of])


cdef int _run_compatible(Graph* g, EvResult* out, const i64* nd_upto, const i64* nk_upto,
                         const u32* plain_at,
                         const ev_draw* plain, const u32* win_at, const ev_draw* win,
                         const double* win_score, const u32* kids_at, const i32* kids,
                         const u8* tenpai_node, const double* weight_sum,
                         const i32* index) noexcept nogil:
    """§3: each column maximised on its own, draws over S - t; the values four doubles a node
    (tenpai, win, score, unused); the best-of columns are the first two."""
    cdef const EvRequest* q = g.q
    cdef i64 nd = nd_upto[q.t_max], nk = nk_upto[q.t_max]
    cdef double* draw_cur = <double*>_buffer(g.w, W_DRAW_CUR, (nd + 1) * 4 * sizeof(double))
    cdef double* draw_nxt = <double*>_buffer(g.w, W_DRAW_NXT, (nd + 1) * 4 * sizeof(double))
    cdef double* disc_nxt = <double*>_buffer(g.w, W_DISC_NXT, (nk + 1) * 4 * sizeof(double))
    cdef double* tmp
    cdef double* v
    cdef i64 a
    cdef int t, T = q.t_max, st = ST_OK, o = (q.first_turn if q.first_turn else 1) - 1
    if draw_cur == NULL or draw_nxt == NULL or disc_nxt == NULL:
        st = ST_EV_MEMORY
    else:
        for t in range(T, o, -1):
            # discard nodes at t + 1: the best of their draw nodes, column by column
            if t < T:
                ev_best_of_kids4(draw_nxt, kids, kids_at, nk_upto[t - o], disc_nxt)
            # draw nodes at t: stay (weight S - t - W) or draw into a discard node
            if t == T:
                for a in range(nd_upto[T - 1 - o]):
                    v = draw_cur + 4 * a
                    v[0] = 1.0 if tenpai_node[a] else 0.0
                    v[1] = 0.0
                    v[2] = 0.0
                    v[3] = 0.0
            else:
                ev_draw_turn4(draw_nxt, disc_nxt, draw_cur, nd_upto[t - 1 - o], plain_at, plain,
                              win_at, win, win_score, tenpai_node, weight_sum,
                              out.total_unseen - t, 0)
            _emit(out, out.values, draw_cur, index, T, t, 4, 0)
            tmp = draw_cur
            draw_cur = draw_nxt
            draw_nxt = tmp
            if q.max_seconds > 0 and _now(q) - g.start > q.max_seconds:
                st = ST_EV_DEADLINE
                break
    return st


cdef int _run_consistent(Graph* g, EvResult* out, const i64* nd_upto, const i64* nk_upto,
                         const u32* plain_at,
                         const ev_draw* plain, const u32* win_at, const ev_draw* win,
                         const double* win_score, const u32* kids_at, const i32* kids,
                         const u8* tenpai_node, const double* weight_sum,
                         const i32* index) noexcept nogil:
    """The consistent model: a draw from the wall the state leaves (S, or S + 1 after the first
    discard of a 14-tile hand), so every value is a probability; one policy (the most score,
    then win, then tenpai) decides every discard and every win-or-play-on, and its three values
    stand beside the highest tenpai and win probabilities any policy reaches. Eight doubles a
    node: tenpai, win, score (the policy's), tenpai, win (the best of any); four with
    q.policy_only (the policy's three and a zero lane; the best-of columns NaN)."""
    cdef const EvRequest* q = g.q
    cdef i64 nd = nd_upto[q.t_max], nk = nk_upto[q.t_max]
    cdef int width = 4 if q.policy_only else 8
    cdef double* draw_cur = <double*>_buffer(g.w, W_DRAW_CUR, (nd + 1) * width * sizeof(double))
    cdef double* draw_nxt = <double*>_buffer(g.w, W_DRAW_NXT, (nd + 1) * width * sizeof(double))
    cdef double* disc_nxt = <double*>_zeroed(g.w, W_DISC_NXT,      # spare lanes stay 0
                                             (nk + 1) * width * sizeof(double))
    cdef double* tmp
    cdef double* v
    cdef double den
    cdef i64 a
    cdef int t, T = q.t_max, st = ST_OK, o = (q.first_turn if q.first_turn else 1) - 1
    den = out.total_unseen + (1 if out.cand[0].tile != 255 else 0)
    if draw_cur == NULL or draw_nxt == NULL or disc_nxt == NULL:
        st = ST_EV_MEMORY
    else:
        for t in range(T, o, -1):
            if t < T and width == 8:
                ev_policy_of_kids8(draw_nxt, kids, kids_at, nk_upto[t - o], disc_nxt)
            elif t < T:
                ev_policy_of_kids4(draw_nxt, kids, kids_at, nk_upto[t - o], disc_nxt)
            if t == T:
                for a in range(nd_upto[T - 1 - o]):
                    v = draw_cur + width * a
                    memset(v, 0, width * sizeof(double))
                    v[0] = 1.0 if tenpai_node[a] else 0.0
                    if width == 8:
                        v[3] = v[0]
            elif width == 8:
                ev_draw_turn8(draw_nxt, disc_nxt, draw_cur, nd_upto[t - 1 - o], plain_at, plain,
                              win_at, win, win_score, tenpai_node, weight_sum, den)
            else:
                ev_draw_turn4(draw_nxt, disc_nxt, draw_cur, nd_upto[t - 1 - o], plain_at, plain,
                              win_at, win, win_score, tenpai_node, weight_sum, den, 1)
            _emit(out, out.values, draw_cur, index, T, t, width, 3 if width == 8 else -1)
            tmp = draw_cur
            draw_cur = draw_nxt
            draw_nxt = tmp
            if q.max_seconds > 0 and _now(q) - g.start > q.max_seconds:
                st = ST_EV_DEADLINE
                break
    return st


cdef int _number_by_depth(Graph* g, const i64* start, const Edge* edges, i64 m,
                          i32* index, i32* draw_order, i64* nd_upto, i64* nk_upto,
                          int T) noexcept nogil:
    """Number the draw nodes and the discard nodes apart, each in order of depth (the draws
    from a candidate before a node can be reached; a discard node's draw nodes share its
    depth): a node of depth j has a value only from turn j + 1 on, so the pass at turn t
    runs over a prefix. nd_upto[j] and nk_upto[j] (j <= T) count the draw and the discard
    nodes of depth j or less; draw_order[a] is the draw node numbered a."""
    cdef i64 n = g.n_nodes, e, p, lo_d, hi_d, lo_k, nd = 0, nk = 0, x, d, y
    cdef i64* into_at = <i64*>_zeroed(g.w, W_INTO_AT, (n + 2) * sizeof(i64))
    cdef i32* into = <i32*>_buffer(g.w, W_INTO, (m + 1) * sizeof(i32))
    cdef i32* depth = <i32*>_buffer(g.w, W_DEPTH, (n + 1) * sizeof(i32))
    cdef i32* disc_order = <i32*>_buffer(g.w, W_DISC_ORDER, (n + 1) * sizeof(i32))
    cdef int j = 0, jj, st = ST_OK
    if into_at == NULL or into == NULL or depth == NULL or disc_order == NULL:
        st = ST_EV_MEMORY
    else:
        # each discard node's draw nodes (the edges into it)
        for e in range(m):
            into_at[edges[e].d + 2] += 1
        for x in range(n):
            into_at[x + 2] += into_at[x + 1]
        for e in range(m):
            into[into_at[edges[e].d + 1]] = edges[e].x
            into_at[edges[e].d + 1] += 1
        for x in range(n):
            depth[x] = -1
        depth[0] = 0
        if g.is_draw[0]:
            draw_order[nd] = 0
            nd += 1
        else:
            disc_order[nk] = 0
            nk += 1
            for e in range(into_at[0], into_at[1]):
                y = into[e]
                if depth[y] < 0:
                    depth[y] = 0
                    draw_order[nd] = <i32>y
                    nd += 1
        lo_d = 0
        while lo_d < nd:
            hi_d = nd
            if j <= T:
                nd_upto[j] = hi_d
                nk_upto[j] = nk
            lo_k = nk
            for p in range(lo_d, hi_d):
                x = draw_order[p]
                for e in range(start[x], start[x + 1]):
                    d = edges[e].d
                    if depth[d] < 0:
                        depth[d] = j + 1
                        disc_order[nk] = <i32>d
                        nk += 1
            for p in range(lo_k, nk):
                d = disc_order[p]
                for e in range(into_at[d], into_at[d + 1]):
                    y = into[e]
                    if depth[y] < 0:
                        depth[y] = j + 1
                        draw_order[nd] = <i32>y
                        nd += 1
            lo_d = hi_d
            j += 1
        for jj in range(j, T + 1):
            nd_upto[jj] = nd
            nk_upto[jj] = nk
        for x in range(n):                  # none expected: every node is reached
            if depth[x] < 0:
                if g.is_draw[x]:
                    draw_order[nd] = <i32>x
                    nd += 1
                else:
                    disc_order[nk] = <i32>x
                    nk += 1
        for p in range(nd):
            index[draw_order[p]] = <i32>p
        for p in range(nk):
            index[disc_order[p]] = <i32>p
    return st


cdef inline i64 _doubled(i64 start, i64 n) noexcept nogil:
    """The capacity that doubling from start reaches to hold n."""
    while start < n:
        start *= 2
    return start


cdef int _values(Graph* g, EvResult* out) noexcept nogil:
    """§3: the three values of every node, turn by turn backwards; the candidates' rows.
    Draw and discard nodes are numbered apart; each draw node's edges are grouped (each
    (x, d) once, winning draws after the others) and each discard node lists its draw nodes;
    values are four doubles a node (tenpai, win, expected score, unused) in two layers."""
    cdef const EvRequest* q = g.q
    cdef i64 n = g.n_nodes, m = g.n_edges, i, e, a, b, lo, hi
    cdef i64 nd = 0, nk = 0, n_plain = 0, n_win = 0
    cdef i64 nd_upto[EV_MAX_TURNS + 1]
    cdef i64 nk_upto[EV_MAX_TURNS + 1]
    cdef EvWork* w = g.w
    cdef i32* index = <i32*>_buffer(w, W_INDEX, (n if n else 1) * sizeof(i32))
    cdef i64* start = <i64*>_zeroed(w, W_START, (n + 1) * sizeof(i64))
    cdef i32* mark = <i32*>_zeroed(w, W_MARK, (n + 1) * sizeof(i32))
    cdef i32* draw_of = <i32*>_buffer(w, W_DRAW_OF, (n + 1) * sizeof(i32))
    cdef Edge* sorted_edges = <Edge*>_buffer(w, W_SORTED, (m if m else 1) * sizeof(Edge))
    cdef u32* plain_at = NULL
    cdef u32* win_at = NULL
    cdef ev_draw* plain = NULL
    cdef ev_draw* win = NULL
    cdef double* win_score = NULL
    cdef u32* kids_at = NULL
    cdef const i64* into_at
    cdef const i32* into
    cdef const i32* disc_order
    cdef i32* kids = NULL
    cdef u8* tenpai_node = NULL
    cdef double* weight_sum = NULL
    cdef int t, k, T = q.t_max, drawn = 0, st = ST_OK
    cdef Edge ed
    cdef Key dk, twin_key
    cdef int twin, twin_left = 0
    cdef i64 twin_at = -1
    cdef double twin_score = 0.0
    if index == NULL or start == NULL or sorted_edges == NULL or mark == NULL or draw_of == NULL:
        st = ST_EV_MEMORY
    else:
        # edges grouped by draw node, each (x, d) once
        for e in range(m):
            start[g.edges[e].x + 1] += 1
        for i in range(n):
            start[i + 1] += start[i]
        for e in range(m):
            sorted_edges[start[g.edges[e].x]] = g.edges[e]
            start[g.edges[e].x] += 1
        for i in range(n, 0, -1):
            start[i] = start[i - 1]
        start[0] = 0
        e = 0
        for i in range(n):
            lo = start[i]
            hi = start[i + 1]
            start[i] = e
            for a in range(lo, hi):
                ed = sorted_edges[a]
                if mark[ed.d] == i + 1:         # (x, d) kept already
                    continue
                mark[ed.d] = <i32>(i + 1)
                sorted_edges[e] = ed
                e += 1
                if g.shanten[ed.d] == -1:
                    n_win += 1
                else:
                    n_plain += 1
        start[n] = e
        m = e
        out.edges = m
        st = _number_by_depth(g, start, sorted_edges, m, index, draw_of, nd_upto, nk_upto, T)
        for i in range(n):
            if g.is_draw[i]:
                nd += 1
            else:
                nk += 1
    if st == ST_OK:
        plain_at = <u32*>_buffer(w, W_PLAIN_AT, (nd + 1) * sizeof(u32))
        win_at = <u32*>_buffer(w, W_WIN_AT, (nd + 1) * sizeof(u32))
        plain = <ev_draw*>_buffer(w, W_PLAIN, (n_plain + 1) * sizeof(ev_draw))
        win = <ev_draw*>_buffer(w, W_WIN, (n_win + 1) * sizeof(ev_draw))
        win_score = <double*>_buffer(w, W_WIN_SCORE, (n_win + 1) * sizeof(double))
        kids_at = <u32*>_buffer(w, W_KIDS_AT, (nk + 1) * sizeof(u32))
        kids = <i32*>_buffer(w, W_KIDS, (m + 1) * sizeof(i32))
        tenpai_node = <u8*>_buffer(w, W_TENPAI, nd + 1)
        weight_sum = <double*>_zeroed(w, W_WEIGHT_SUM, (nd + 1) * sizeof(double))
        if q.keep_wins:
            out.wins = <EvWin*>malloc((n_win + 1) * sizeof(EvWin))
        if (plain_at == NULL or win_at == NULL or plain == NULL or win == NULL
                or win_score == NULL or kids_at == NULL or kids == NULL or tenpai_node == NULL
                or weight_sum == NULL or (q.keep_wins and out.wins == NULL)):
            st = ST_EV_MEMORY
    if st == ST_OK:
        # the draws of each draw node, and each winning draw scored once
        n_plain = 0
        n_win = 0
        for a in range(nd):
            i = draw_of[a]
            plain_at[a] = <u32>n_plain
            win_at[a] = <u32>n_win
            tenpai_node[a] = g.shanten[i] == 0
            for e in range(start[i], start[i + 1]):
                ed = sorted_edges[e]
                weight_sum[a] += ed.weight
                if g.shanten[ed.d] != -1:
                    plain[n_plain] = ev_draw_of(index[ed.d], ed.weight)
                    n_plain += 1
                    continue
                dk = g.keys[ed.d]
                drawn = _drawn_kind(&g.keys[ed.x], &dk)
                win[n_win] = ev_draw_of(index[ed.d], ed.weight)
                if twin_left and twin_at == e:
                    win_score[n_win] = twin_score
                    twin_left = 0
                else:
                    twin = _red_twin(g, sorted_edges, e, start[i + 1], &dk, drawn)
                    if twin == 0:
                        win_score[n_win] = _score_win(g, &dk, drawn, NULL)
                    elif twin > 0:      # this win without its red five; the next one has it
                        win_score[n_win] = _score_win(g, &dk, drawn, &twin_score)
                        twin_left = 1
                        twin_at = e + 1
                    else:               # this win has the red five the next one lacks
                        twin_key = g.keys[sorted_edges[e + 1].d]
                        twin_score = _score_win(g, &twin_key, drawn, &win_score[n_win])
                        twin_left = 1
                        twin_at = e + 1
                if out.wins != NULL:
                    out.wins[n_win].hand = dk.hand
                    out.wins[n_win].flags = dk.flags
                    out.wins[n_win].tile = <u8>drawn
                    out.wins[n_win].score = win_score[n_win]
                n_win += 1
                out.win_edges += 1
                if (n_win & 255) == 0 and q.max_seconds > 0 and _now(q) - g.start > q.max_seconds:
                    st = ST_EV_DEADLINE
                    break
            if st != ST_OK:
                break
        plain_at[nd] = <u32>n_plain
        win_at[nd] = <u32>n_win
    if st == ST_OK:
        # each discard node's draw nodes, in the order of the numbering's lists of them
        into_at = <i64*>w.buf[W_INTO_AT]
        into = <i32*>w.buf[W_INTO]
        disc_order = <i32*>w.buf[W_DISC_ORDER]
        e = 0
        for a in range(nk):
            kids_at[a] = <u32>e
            i = disc_order[a]
            for b in range(into_at[i], into_at[i + 1]):
                kids[e] = index[into[b]]
                e += 1
        kids_at[nk] = <u32>e
        out.values = <double*>calloc(out.n_cand * EV_COLUMNS * T + 1, sizeof(double))
        if out.values == NULL:
            st = ST_EV_MEMORY
        else:
            for e in range(out.n_cand * EV_COLUMNS):     # the turns before first_turn: none
                for t in range(1, q.first_turn):
                    out.values[e * T + t - 1] = NAN
    if st == ST_OK:
        if q.model == EV_CONSISTENT:
            st = _run_consistent(g, out, nd_upto, nk_upto, plain_at, plain, win_at, win, win_score,
                                 kids_at, kids, tenpai_node, weight_sum, index)
        else:
            st = _run_compatible(g, out, nd_upto, nk_upto, plain_at, plain, win_at, win, win_score,
                                 kids_at, kids, tenpai_node, weight_sum, index)
    # what the call needs from empty buffers (a kept work area may be larger)
    out.bytes_peak = (_doubled(1024, g.n_nodes) * (sizeof(Key) + 3 + sizeof(u64))
                      + _doubled(4096, 2 * g.n_nodes + 1) * sizeof(i32)
                      + _doubled(4096, g.n_edges) * sizeof(Edge)
                      + m * (sizeof(Edge) + sizeof(ev_draw) + sizeof(i32))
                      + n * (sizeof(i32) + sizeof(i64))
                      + (2 * nd + nk + 3) * (8 if q.model == EV_CONSISTENT and not q.policy_only else 4)
                      * sizeof(double))
    return st


cdef int ev_fill_wall(EvRequest* q, const u8* visible, const u8* visible_red) noexcept nogil:
    cdef int seen[34]
    cdef int seen_red[3]
    cdef int i, k, t, suit, players = q.rules.players, has_red
    cdef MeldC m
    if q.n_melds > 4:
        return ST_BAD_MELDS
    for i in range(34):
        seen[i] = q.counts[i] + (visible[i] if visible != NULL else 0)
    for i in range(3):
        seen_red[i] = q.red[i] + (visible_red[i] if visible_red != NULL else 0)
    for i in range(q.n_melds):
        m = q.melds[i]
        if m.tile >= 34 or m.kind > MK_KAN_ADDED:
            return ST_BAD_MELDS
        if m.kind == MK_CHI:
            if m.tile >= 27 or m.tile % 9 > 6:
                return ST_BAD_MELDS
            for k in range(3):
                seen[m.tile + k] += 1
        else:
            seen[m.tile] += 3 if m.kind == MK_PON else 4
        if m.red and m.tile < 27:
            seen_red[m.tile // 9] += m.red
    for i in range(q.n_dora):
        if q.dora_ind[i] >= 34:
            return ST_BAD_TILE
        seen[q.dora_ind[i]] += 1
    if players == 3:
        seen[30] += q.kita
    for i in range(34):
        if seen[i] > 4:
            return ST_BAD_COUNT
        if players == 3 and 1 <= i <= 7 and seen[i]:
            return ST_NOT_IN_SANMA
        q.wall[i] = <u8>(4 - seen[i]) if not (players == 3 and 1 <= i <= 7) else 0
    for suit in range(3):
        if not q.use_red:
            q.red[suit] = 0
            q.wall_red[suit] = 0
            continue
        if seen_red[suit] > 1:
            return ST_BAD_COUNT
        # which suits hold a red five: 3 (or 4) every suit, 2 pin and sou (sanma)
        if suit:
            has_red = q.rules.red_fives >= 2
        else:
            has_red = q.rules.red_fives >= 3 and players == 4
        t = 4 + 9 * suit
        q.wall_red[suit] = 1 if has_red and seen_red[suit] == 0 and q.wall[t] > 0 else 0
    return ST_OK


cdef int ev_check(const EvRequest* q) noexcept nogil:
    cdef int i, total = 0, unseen = 0
    cdef PackedHand h
    if q.n_melds > 4:
        return ST_BAD_MELDS
    if (q.t_max < 1 or q.t_max > EV_MAX_TURNS or q.extra > 4 or q.max_nodes < 1
            or q.model > EV_CONSISTENT or q.first_turn > q.t_max):
        return ST_EV_OPTION
    if q.n_dora > MAX_INDICATORS or q.seat_wind > 3 or q.round_wind > 3:
        return ST_EV_OPTION
    for i in range(q.n_dora):
        if q.dora_ind[i] >= 34:
            return ST_BAD_TILE
    total = pack_counts(q.counts, &h)
    if total < 0:
        return ST_BAD_COUNT
    total += 3 * q.n_melds
    if total != 13 and total != 14:
        return ST_BAD_TOTAL
    for i in range(34):
        if q.wall[i] > 4 or q.wall[i] + q.counts[i] > 4:
            return ST_EV_OPTION
        unseen += q.wall[i]
    for i in range(3):
        if q.red[i] > 1 or q.wall_red[i] > 1 or q.red[i] + q.wall_red[i] > 1:
            return ST_EV_OPTION
        if q.red[i] > q.counts[4 + 9 * i] or q.wall_red[i] > q.wall[4 + 9 * i]:
            return ST_EV_OPTION
    # the wall must outlast the turns: S - t > 0 for every t
    if unseen <= q.t_max:
        return ST_EV_OPTION
    return ST_OK


cdef void ev_work_free(EvWork* work) noexcept nogil:
    cdef int i
    for i in range(EV_WORK_BUFFERS):
        free(work.buf[i])
        work.buf[i] = NULL
        work.cap[i] = 0


# Work areas kept between calls (taken and given back with the GIL held): the next call
# reuses their pages instead of faulting fresh ones in. At most SPARE_WORKS, each at most
# SPARE_WORK_BYTES; a larger one is freed when its call ends.
cdef enum:
    SPARE_WORKS = 2
cdef size_t SPARE_WORK_BYTES = 32 << 20
cdef EvWork _spare[SPARE_WORKS]
cdef int _n_spare = 0


cdef void _take_works(EvWork* works, int n):
    """works[0..n-1] from the spares (empty ones past them); the GIL held."""
    global _n_spare
    cdef int i
    memset(works, 0, n * sizeof(EvWork))
    for i in range(n):
        if _n_spare == 0:
            break
        _n_spare -= 1
        works[i] = _spare[_n_spare]


cdef void _give_back(EvWork* works, int n):
    """works[0..n-1] kept as spares while there is room and they are small enough, else freed;
    the GIL held."""
    global _n_spare
    cdef int i, j
    cdef size_t total
    for i in range(n):
        total = 0
        for j in range(EV_WORK_BUFFERS):
            total += works[i].cap[j]
        if _n_spare < SPARE_WORKS and total <= SPARE_WORK_BYTES:
            _spare[_n_spare] = works[i]
            _n_spare += 1
        else:
            ev_work_free(&works[i])


def release_work() -> None:
    """Free the work areas kept between calls (the next call allocates afresh)."""
    global _n_spare
    while _n_spare:
        _n_spare -= 1
        ev_work_free(&_spare[_n_spare])


cdef int ev_compute(const EvRequest* q, EvResult* out) noexcept nogil:
    cdef EvWork work
    cdef int st
    memset(&work, 0, sizeof(EvWork))
    st = ev_compute_in(q, out, &work)
    ev_work_free(&work)
    return st


cdef int ev_compute_in(const EvRequest* q, EvResult* out, EvWork* work) noexcept nogil:
    cdef Graph g
    cdef Key k, y
    cdef int st, i, variant, suit, red_held, n_total
    cdef i8 after[34]
    cdef u64 masks[34]
    cdef u64 mask
    cdef i64 root, found
    cdef u64 slot
    cdef i32 id
    memset(out, 0, sizeof(EvResult))
    memset(&g, 0, sizeof(Graph))
    st = ev_check(q)
    if st != ST_OK:
        out.status = st
        return st
    g.q = q
    g.start = _now(q)
    g.closed = 1
    for i in range(q.n_melds):
        if q.melds[i].kind != MK_KAN_CLOSED:
            g.closed = 0
    memcpy(g.c0, q.counts, 34)
    for i in range(34):
        g.wall0[i] = q.wall[i] + q.counts[i]
    for i in range(3):
        if q.use_red and q.red[i]:
            g.r0 |= 1 << i
    for i in range(34):
        suit = _five_suit(i)
        g.ord0[i] = q.counts[i] - (((g.r0 >> suit) & 1) if suit >= 0 else 0)
    memset(&k, 0, sizeof(Key))
    n_total = pack_counts(q.counts, &k.hand)
    k.flags = g.r0
    out.total_unseen = 0
    for i in range(34):
        out.total_unseen += q.wall[i]
    _ura_setup(&g)
    g.s0 = shanten_forms(&k.hand, q.n_melds, FORMS_RIICHI, NULL)
    out.shanten = <i8>g.s0
    g.bound = g.s0 + q.extra
    # the candidates and their necessary tiles (also for hands too far to search)
    if n_total + 3 * q.n_melds == 14:
        ukeire_forms(&k.hand, q.n_melds, FORMS_RIICHI, after, masks, False)     # checked hand
        for i in range(34):
            if not q.counts[i]:
                continue
            suit = _five_suit(i) if q.use_red else -1
            red_held = q.red[suit] if suit >= 0 else 0
            for variant in range(2):
                if variant == 0 and q.counts[i] <= red_held:
                    continue
                if variant == 1 and not red_held:
                    continue
                out.cand[out.n_cand].tile = <u8>(i if variant == 0 else 34 + suit)
                out.cand[out.n_cand].shanten = after[i]
                out.cand[out.n_cand].necessary = masks[i]
                out.cand[out.n_cand].node = NO_NODE
                out.n_cand += 1
    else:
        mask = 0
        advance_forms(&k.hand, q.n_melds, FORMS_RIICHI, &mask)
        out.cand[0].tile = 255
        out.cand[0].shanten = <i8>g.s0
        out.cand[0].necessary = mask
        out.cand[0].node = NO_NODE
        out.n_cand = 1
    # red candidates after the ordinary ones, in suit order (34, 35, 36)
    _sort_candidates(out)
    if g.s0 > q.max_shanten:
        out.status = ST_EV_SHANTEN
        return ST_EV_SHANTEN
    # the arrays start as large as work's buffers already are (a batch's rows reuse them)
    g.w = work
    g.cap_edges = max(4096, work.cap[W_EDGES] // sizeof(Edge))
    g.table = <i32*>_zeroed(work, W_TABLE, 4096 * sizeof(i32))
    g.table_mask = 4095
    g.edges = <Edge*>_buffer(work, W_EDGES, g.cap_edges * sizeof(Edge))
    if (_node_arrays(&g, max(1024, work.cap[W_KEYS] // sizeof(Key))) != ST_OK
            or g.table == NULL or g.edges == NULL):
        out.status = ST_EV_MEMORY
        return ST_EV_MEMORY
    root = _node(&g, &k, n_total + 3 * q.n_melds == 13)
    if root >= 0:
        g.dist[root] = 0
    st = _build(&g) if root >= 0 else <int>root
    if st == ST_OK:
        # each candidate's draw node, with the riichi flag its discard sets
        for i in range(out.n_cand):
            if out.cand[i].tile == 255:
                out.cand[i].node = <i32>root
                out.cand[i].evaluated = 1
                continue
            y = k
            variant = out.cand[i].tile
            suit = variant - 34 if variant >= 34 else -1
            if suit >= 0:
                variant = 4 + 9 * suit
                y.flags &= ~(1u << suit)
            y.hand.words[_group(variant)] -= <u32>1 << _shift(variant)
            if g.closed and g.s0 == 0 and out.cand[i].shanten == 0:
                y.flags |= RIICHI_FLAG
            slot = _hash(&y) & g.table_mask
            while True:
                id = g.table[slot]
                if id == 0:
                    break
                if _same(&g.keys[id - 1], &y):
                    out.cand[i].node = id - 1
                    out.cand[i].evaluated = 1
                    break
                slot = (slot + 1) & g.table_mask
        out.nodes = g.n_nodes
        st = _values(&g, out)
    out.nodes = g.n_nodes
    if st != ST_OK:
        ev_free(out)
    out.status = st
    return st


cdef void _sort_candidates(EvResult* out) noexcept nogil:
    """Candidates in tile order: the 34 kinds, then the red fives (mahjong-cpp's order)."""
    cdef int i, j
    cdef EvCandidate c
    for i in range(1, out.n_cand):
        c = out.cand[i]
        j = i
        while j > 0 and out.cand[j - 1].tile > c.tile:
            out.cand[j] = out.cand[j - 1]
            j -= 1
        out.cand[j] = c


cdef void ev_free(EvResult* out) noexcept nogil:
    free(out.values)
    out.values = NULL
    free(out.wins)
    out.wins = NULL


# ---- Python surface ----------------------------------------------------------------------

cdef void _options(EvRequest* q, int model, int t_max, int extra, bint use_red, bint use_ura,
                   bint shanten_down, bint tegawari, int max_shanten, i64 max_nodes,
                   double max_seconds, const RulesC* rules) noexcept nogil:
    q.t_max = <u8>t_max
    q.extra = <u8>extra
    q.use_red = use_red
    q.use_ura = use_ura
    q.shanten_down = shanten_down
    q.tegawari = tegawari
    q.model = <u8>model
    q.max_shanten = <i8>max_shanten
    q.max_nodes = max_nodes
    q.max_seconds = max_seconds
    q.rules = rules[0]
    if not use_red:
        q.rules.red_fives = 0


cdef tuple _floats(const double* p, int n):
    """p[0..n-1] as a tuple of floats."""
    cdef tuple out = PyTuple_New(n)
    cdef object f
    cdef int i
    for i in range(n):
        f = PyFloat_FromDouble(p[i])
        Py_INCREF(f)                        # PyTuple_SET_ITEM steals a reference
        PyTuple_SET_ITEM(out, i, f)
    return out


def evaluate_raw(counts, red, melds, visible, visible_red, dora, int seat_wind, int round_wind,
                 int kita, int model, int t_max, int extra, bint use_red, bint use_ura, bint shanten_down,
                 bint tegawari, int max_shanten, long long max_nodes, double max_seconds,
                 tuple rules_params, bint keep_wins=False):
    """One request from plain Python values (checked by mjcore.riichi.expected). Returns
    (status, shanten, nodes, edges, win_edges, total_unseen, bytes_peak, wall, candidates):
    wall the 34 unseen counts at the start, each candidate (tile, shanten, necessary mask,
    evaluated, values): values, when evaluated, EV_COLUMNS tuples of t_max floats (tenpai, win,
    expected score, the best tenpai and win of any policy; NaN before the first turn), else
    None. With keep_wins, a tenth item lists every winning draw as (34 counts, red fives held
    as bits, riichi, tile drawn, score)."""
    cdef EvRequest q
    cdef EvResult r
    cdef RulesC rules
    cdef u8 vis[34]
    cdef u8 vis_red[3]
    cdef int i, k, c, st
    memset(&q, 0, sizeof(EvRequest))
    if len(melds) > 4 or len(dora) > MAX_INDICATORS:
        return (ST_EV_OPTION, 0, 0, 0, 0, 0, 0, [0] * 34, [])
    for i in range(34):
        q.counts[i] = <u8>counts[i]
        vis[i] = <u8>visible[i]
    for i in range(3):
        q.red[i] = <u8>red[i]
        vis_red[i] = <u8>visible_red[i]
    q.n_melds = <u8>len(melds)
    for i, m in enumerate(melds):
        q.melds[i].kind = <u8>m[0]
        q.melds[i].tile = <u8>m[1]
        q.melds[i].red = <u8>m[2]
        q.melds[i].from_rel = <u8>m[3]
    q.n_dora = <u8>len(dora)
    for i, d in enumerate(dora):
        q.dora_ind[i] = <u8>d
    q.seat_wind = <u8>seat_wind
    q.round_wind = <u8>round_wind
    q.kita = <u8>kita
    fill_rules(&rules, rules_params)
    _options(&q, model, t_max, extra, use_red, use_ura, shanten_down, tegawari, max_shanten,
             max_nodes, max_seconds, &rules)
    q.keep_wins = keep_wins
    memset(&r, 0, sizeof(EvResult))
    cdef EvWork work
    _take_works(&work, 1)
    with nogil:
        st = ev_fill_wall(&q, vis, vis_red)
        if st == ST_OK:
            ev_compute_in(&q, &r, &work)
        else:
            r.status = st
    _give_back(&work, 1)
    cands = []
    for k in range(r.n_cand):
        if r.values != NULL and r.cand[k].evaluated:
            cands.append((r.cand[k].tile, r.cand[k].shanten, r.cand[k].necessary, True,
                          tuple([_floats(&r.values[(k * EV_COLUMNS + c) * t_max], t_max)
                                 for c in range(EV_COLUMNS)])))
        else:
            cands.append((r.cand[k].tile, r.cand[k].shanten, r.cand[k].necessary, False, None))
    wins = None
    cdef Key wk
    if r.wins != NULL:
        wins = []
        for k in range(r.win_edges):
            wk.hand = r.wins[k].hand
            wins.append((tuple(_count(&wk, i) for i in range(34)), r.wins[k].flags & 7,
                         bool(r.wins[k].flags & RIICHI_FLAG), r.wins[k].tile, r.wins[k].score))
    ev_free(&r)
    out = (r.status, r.shanten, r.nodes, r.edges, r.win_edges, r.total_unseen, r.bytes_peak,
           [q.wall[i] for i in range(34)], cands)
    return out + (wins,) if keep_wins else out


cdef struct _Batch:
    const u8* counts        # (N, 34)
    const u8* red           # (N, 3)
    const u16* melds        # (N, 4), encode_meld codes, 0xFFFF none
    const u8* visible       # (N, 34)
    const u8* visible_red   # (N, 3)
    const u8* dora          # (N, n_dora_cols), 255 none
    int n_dora_cols
    const u8* seat
    const u8* rnd
    const u8* kita
    const u8* discard       # (N,) the discard made, 0..36, 255 none
    int turn                # 1..t_max
    EvRequest proto         # options and rules shared by every row
    i32* status
    i8* shanten
    i64* nodes
    u8* best_tile
    double* best            # (N, 3): tenpai, win, expected score at the turn
    i8* discard_shanten
    double* made            # (N, 3): the same for the discard made
    double* per_tile        # (N, EV_N_TILES, 3) or NULL


cdef void _batch_row(const _Batch* b, Py_ssize_t i, EvWork* work) noexcept nogil:
    cdef EvRequest q = b.proto
    cdef EvResult r
    cdef int k, c, n = 0, st, best = -1, T = b.proto.t_max
    cdef u16 code
    cdef double nan = NAN
    cdef double* row
    memcpy(q.counts, b.counts + 34 * i, 34)
    memcpy(q.red, b.red + 3 * i, 3)
    for k in range(4):
        code = b.melds[4 * i + k]
        if code == 0xFFFF:
            continue
        q.melds[n].kind = code & 7
        q.melds[n].tile = (code >> 3) & 63
        q.melds[n].red = (code >> 9) & 7
        q.melds[n].from_rel = (code >> 12) & 3
        n += 1
    q.n_melds = <u8>n
    q.n_dora = 0
    for k in range(b.n_dora_cols):
        if b.dora[b.n_dora_cols * i + k] != 255 and q.n_dora < MAX_INDICATORS:
            q.dora_ind[q.n_dora] = b.dora[b.n_dora_cols * i + k]
            q.n_dora += 1
    q.seat_wind = b.seat[i]
    q.round_wind = b.rnd[i]
    q.kita = b.kita[i]
    for k in range(3):
        b.best[3 * i + k] = nan
        b.made[3 * i + k] = nan
    b.best_tile[i] = 255
    b.discard_shanten[i] = -128
    b.nodes[i] = 0
    b.shanten[i] = -128
    if b.per_tile != NULL:
        for k in range(EV_N_TILES * 3):
            b.per_tile[EV_N_TILES * 3 * i + k] = nan
    st = ev_fill_wall(&q, b.visible + 34 * i, b.visible_red + 3 * i)
    if st != ST_OK:
        b.status[i] = st
        return
    ev_compute_in(&q, &r, work)
    b.shanten[i] = r.shanten
    b.nodes[i] = r.nodes
    b.status[i] = r.status
    if r.status == ST_OK and b.discard[i] != 255:
        b.status[i] = ST_DISCARD_NOT_HELD
    for k in range(r.n_cand):
        if r.cand[k].tile == b.discard[i]:
            b.discard_shanten[i] = r.cand[k].shanten
            if r.status == ST_OK:
                b.status[i] = ST_OK
                if r.cand[k].evaluated:
                    for c in range(3):
                        b.made[3 * i + c] = r.values[(k * EV_COLUMNS + c) * T + b.turn - 1]
        if r.status != ST_OK or not r.cand[k].evaluated:
            continue
        if best < 0 or _ahead(&r, k, best, T, b.turn - 1):
            best = k
        if b.per_tile != NULL and r.cand[k].tile < EV_N_TILES:
            row = b.per_tile + (EV_N_TILES * i + r.cand[k].tile) * 3
            for c in range(3):
                row[c] = r.values[(k * EV_COLUMNS + c) * T + b.turn - 1]
    if best >= 0:
        b.best_tile[i] = r.cand[best].tile
        for c in range(3):
            b.best[3 * i + c] = r.values[(best * EV_COLUMNS + c) * T + b.turn - 1]
    ev_free(&r)


cdef inline bint _ahead(const EvResult* r, int a, int b, int T, int t) noexcept nogil:
    """Candidate a before b: higher expected score at turn t + 1, then win, then tenpai."""
    cdef int c
    cdef double x, y
    for c in range(2, -1, -1):
        x = r.values[(a * EV_COLUMNS + c) * T + t]
        y = r.values[(b * EV_COLUMNS + c) * T + t]
        if x != y:
            return x > y
    return False


def evaluate_arrays(const u8[:, ::1] counts, const u8[:, ::1] red, const u16[:, ::1] melds,
                    const u8[:, ::1] visible, const u8[:, ::1] visible_red,
                    const u8[:, ::1] dora, const u8[::1] seat_wind, const u8[::1] round_wind,
                    const u8[::1] kita, const u8[::1] discard, int turn, int model, int t_max,
                    int extra,
                    bint use_red, bint use_ura, bint shanten_down, bint tegawari,
                    int max_shanten, long long max_nodes, double max_seconds,
                    tuple rules_params, int n_threads, bint per_tile, bint cpu_clock=False):
    """The batch (mjcore.riichi.batch_expected checks the shapes): one GIL-free loop over the
    rows, each an ev_compute; cpu_clock: max_seconds is each row's CPU time. Returns a dict
    of arrays."""
    cdef Py_ssize_t n = counts.shape[0], i
    cdef _Batch b
    cdef RulesC rules
    status_a = np.empty(n, np.int32)
    shanten_a = np.empty(n, np.int8)
    nodes_a = np.empty(n, np.int64)
    best_tile_a = np.empty(n, np.uint8)
    best_a = np.empty((n, 3), np.float64)
    made_sh_a = np.empty(n, np.int8)
    made_a = np.empty((n, 3), np.float64)
    per_a = np.empty((n if per_tile else 0, EV_N_TILES, 3), np.float64)
    cdef i32[::1] status = status_a
    cdef i8[::1] shanten = shanten_a, made_sh = made_sh_a
    cdef i64[::1] nodes = nodes_a
    cdef u8[::1] best_tile = best_tile_a
    cdef double[:, ::1] best = best_a, made = made_a
    cdef double[:, :, ::1] per = per_a
    memset(&b, 0, sizeof(_Batch))
    fill_rules(&rules, rules_params)
    _options(&b.proto, model, t_max, extra, use_red, use_ura, shanten_down, tegawari, max_shanten,
             max_nodes, max_seconds, &rules)
    b.turn = turn
    b.proto.first_turn = <u8>turn if 1 <= turn <= t_max else 0
    b.proto.policy_only = model == EV_CONSISTENT     # the batch reads the policy's columns only
    b.proto.cpu_clock = cpu_clock
    b.n_dora_cols = dora.shape[1]
    if n == 0:
        return {"status": status_a, "shanten": shanten_a, "nodes": nodes_a,
                "best_tile": best_tile_a, "best": best_a, "discard_shanten": made_sh_a,
                "discard": made_a, "per_tile": per_a}
    b.counts = &counts[0, 0]
    b.red = &red[0, 0]
    b.melds = &melds[0, 0]
    b.visible = &visible[0, 0]
    b.visible_red = &visible_red[0, 0]
    b.dora = &dora[0, 0] if b.n_dora_cols else NULL
    b.seat = &seat_wind[0]
    b.rnd = &round_wind[0]
    b.kita = &kita[0]
    b.discard = &discard[0]
    b.status = &status[0]
    b.shanten = &shanten[0]
    b.nodes = &nodes[0]
    b.best_tile = &best_tile[0]
    b.best = &best[0, 0]
    b.discard_shanten = &made_sh[0]
    b.made = &made[0, 0]
    b.per_tile = &per[0, 0, 0] if per_tile else NULL
    # one EvWork a thread: a row reuses the buffers (and pages) of the thread's rows before it
    cdef int n_work = n_threads if n_threads > 1 else 1
    cdef EvWork* works = <EvWork*>calloc(n_work, sizeof(EvWork))
    if works == NULL:
        raise MemoryError("expected values: no memory for the batch's work buffers")
    _take_works(works, n_work)
    try:
        if n_threads <= 1:
            with nogil:
                for i in range(n):
                    _batch_row(&b, i, works)
        else:
            for i in prange(n, nogil=True, num_threads=n_threads, schedule="dynamic",
                            chunksize=1):
                _batch_row(&b, i, &works[threadid()])
    finally:
        _give_back(works, n_work)
        free(works)
    return {"status": status_a, "shanten": shanten_a, "nodes": nodes_a,
            "best_tile": best_tile_a, "best": best_a, "discard_shanten": made_sh_a,
            "discard": made_a, "per_tile": per_a}


from mjcore._core.level cimport MJCORE_BUILT_LEVEL

BUILT_FOR = MJCORE_BUILT_LEVEL.decode()   # the instruction-set level of this module's code
