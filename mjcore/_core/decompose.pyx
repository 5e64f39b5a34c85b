"""Enumerate the decompositions of a complete hand (bodies for decompose.pxd)."""
from libc.string cimport memcpy, memset

from .types cimport u8, i8, u32, u64, ST_OK, ST_BAD_COUNT, ST_BAD_TOTAL, ST_BAD_MELDS, ST_BAD_TILE
from .decompose cimport (
    MAX_DECOMP, FORM_STANDARD, FORM_CHIITOITSU, FORM_KOKUSHI,
    WAIT_RYANMEN, WAIT_KANCHAN, WAIT_PENCHAN, WAIT_SHANPON, WAIT_TANKI, WAIT_KOKUSHI,
    WAIT_KOKUSHI_13, SET_SEQ, SET_TRIPLET, SET_KAN,
    MK_CHI, MK_PON, MK_KAN_OPEN, MK_KAN_CLOSED, MK_KAN_ADDED,
    MeldC, HandC, SetC, Decomp,
)

cdef u8[13] YAOCHUU = [0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33]


cdef inline u64 _over4(u64 w) noexcept nogil:
    """Bit 7 of every byte >= 5: the low 7 bits + 123 reach bit 7 (no carry between bytes),
    or bit 7 already set."""
    return (((w & <u64>0x7F7F7F7F7F7F7F7F) + <u64>0x7B7B7B7B7B7B7B7B) | w) \
        & <u64>0x8080808080808080


cdef inline u64 _load8(const u8* p) noexcept nogil:
    cdef u64 w
    memcpy(&w, p, 8)
    return w


cdef int check_hand(const HandC* hand) noexcept nogil:
    cdef int k, t, total
    cdef u64 w0, w1, w2, w3, w4, over
    cdef u8 use[40]
    cdef const MeldC* m
    if hand.n_melds > 4:
        return ST_BAD_MELDS
    w0 = _load8(hand.counts)
    w1 = _load8(hand.counts + 8)
    w2 = _load8(hand.counts + 16)
    w3 = _load8(hand.counts + 24)
    w4 = _load8(hand.counts + 26) >> 48         # kinds 32, 33
    over = _over4(w0) | _over4(w1) | _over4(w2) | _over4(w3) | _over4(w4)
    if over:
        return ST_BAD_COUNT
    # counts <= 4: byte sums fit in a byte
    total = <int>(((w0 + w1 + w2 + w3 + w4) * <u64>0x0101010101010101) >> 56)
    if hand.red > hand.counts[4] + hand.counts[13] + hand.counts[22]:
        return ST_BAD_COUNT
    if hand.n_melds == 0:
        return ST_OK if total == 14 else ST_BAD_TOTAL
    # copies of each kind in the closed part and every meld (tiles >= 34 are rejected below)
    memcpy(use, hand.counts, 34)
    memset(use + 34, 0, 6)
    for k in range(hand.n_melds):
        m = &hand.melds[k]
        t = m.tile
        if t < 34:
            if m.kind == MK_CHI:
                use[t] += 1
                use[t + 1] += 1
                use[t + 2] += 1
            else:
                use[t] += 3 if m.kind == MK_PON else 4
    for k in range(hand.n_melds):
        m = &hand.melds[k]
        t = m.tile
        if t >= 34 or m.kind > MK_KAN_ADDED or m.from_rel > 3:
            return ST_BAD_MELDS
        if m.kind == MK_CHI:
            if t >= 27 or t % 9 > 6:
                return ST_BAD_MELDS
            if m.red > (1 if 2 <= t % 9 <= 4 else 0):
                return ST_BAD_COUNT
            if use[t] > 4 or use[t + 1] > 4 or use[t + 2] > 4:
                return ST_BAD_COUNT
        else:
            if m.red and (t >= 27 or t % 9 != 4 or m.red > (3 if m.kind == MK_PON else 4)):
                return ST_BAD_COUNT
            if use[t] > 4:
                return ST_BAD_COUNT
    if total != 14 - 3 * hand.n_melds:
        return ST_BAD_TOTAL
    return ST_OK


cdef struct _Enum:
    u32 w[4]            # closed counts packed 3 bits per kind: man, pin, sou, honors
    SetC sets[4]
    int n_sets
    int n_melds
    int pair
    int win
    Decomp* out
    int cap
    int n


cdef inline int _seq_wait(int tile, int win) noexcept nogil:
    cdef int pos = win - tile
    if pos == 1:
        return WAIT_KANCHAN
    if pos == 0:
        return WAIT_PENCHAN if tile % 9 == 6 else WAIT_RYANMEN
    return WAIT_PENCHAN if tile % 9 == 0 else WAIT_RYANMEN


cdef void _push(_Enum* e, int wait, int win_set) noexcept nogil:
    cdef Decomp* d
    if e.n >= e.cap:
        e.n += 1            # counted, not written: the caller sees the overflow
        return
    d = &e.out[e.n]
    d.form = FORM_STANDARD
    d.pair = <u8>e.pair
    d.n_sets = 4
    memcpy(d.sets, e.sets, sizeof(SetC) * 4)
    d.wait = <u8>wait
    d.win_set = <i8>win_set
    e.n += 1


cdef void _emit(_Enum* e) noexcept nogil:
    cdef int j, k, dup, w = e.win
    cdef SetC* s
    if e.pair == w:
        _push(e, WAIT_TANKI, -1)
    for j in range(e.n_melds, 4):
        s = &e.sets[j]
        if s.kind == SET_SEQ:
            if w < s.tile or w > s.tile + 2:
                continue
        elif s.tile != w:
            continue
        dup = 0
        for k in range(e.n_melds, j):
            if e.sets[k].kind == s.kind and e.sets[k].tile == s.tile:
                dup = 1
                break
        if dup:
            continue
        if s.kind == SET_SEQ:
            _push(e, _seq_wait(s.tile, w), j)
        else:
            _push(e, WAIT_SHANPON, j)


cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define MJ_CTZ32(x) __builtin_ctz(x)
    #define MJ_POPCOUNT32(x) __builtin_popcount(x)
    #else
    static int MJ_CTZ32(unsigned int x) { int n = 0; while (!(x & 1u)) { x >>= 1; n++; } return n; }
    static int MJ_POPCOUNT32(unsigned int x) { int n = 0; while (x) { x &= x - 1u; n++; } return n; }
    #endif
    """
    int MJ_CTZ32(unsigned int x) noexcept nogil
    int MJ_POPCOUNT32(unsigned int x) noexcept nogil


cdef inline u32 _pack8(u64 w) noexcept nogil:
    """Eight byte counts (each < 8) -> eight 3-bit fields."""
    w = (w | (w >> 5)) & <u64>0x003F003F003F003F
    w = (w | (w >> 10)) & <u64>0x00000FFF00000FFF
    return <u32>((w | (w >> 20)) & 0xFFFFFF)


# ---- Suit table: every complete single-suit pattern -> its readings as sets (+ pair) ----
# A group reading is a u32: bits 0-2 number of sets, 3-6 pair offset (15 = none), then
# 5 bits per set (offset | 16 for a triplet), in the order of a lowest-kind-first search
# (triplet before sequence; pair kinds ascending), which fixes the order of decompositions.
cdef enum:
    _TABLE_BITS = 15
    _TABLE_SIZE = 1 << 15
    _MAX_READINGS = 1 << 15
    _NO_PAIR = 15

cdef u64 _PAIR_FLAG = (<u64>1) << 60    # table entry of a pattern with a pair

cdef u64 _table[_TABLE_SIZE]        # 0 empty, else key | start << 32 | count << 56 | flag
cdef u32 _readings[_MAX_READINGS]
cdef int _n_readings = 0


cdef inline u32 _slot(u32 key) noexcept nogil:
    return (key * <u32>0x9E3779B1) >> (32 - _TABLE_BITS)


cdef inline u64 _find(u32 key) noexcept nogil:
    cdef u32 i = _slot(key)
    cdef u64 e
    while True:
        e = _table[i]
        if e == 0 or <u32>e == key:
            return e
        i = (i + 1) & (_TABLE_SIZE - 1)


cdef void _search(int* c, int i, u32 code, int n_sets) noexcept nogil:
    global _n_readings
    while i < 9 and c[i] == 0:
        i += 1
    if i == 9:
        if _n_readings < _MAX_READINGS:
            _readings[_n_readings] = code | <u32>n_sets
        _n_readings += 1
        return
    if n_sets >= 4:
        return
    if c[i] >= 3:
        c[i] -= 3
        _search(c, i, code | (<u32>(i | 16) << (7 + 5 * n_sets)), n_sets + 1)
        c[i] += 3
    if i <= 6 and c[i + 1] and c[i + 2]:
        c[i] -= 1
        c[i + 1] -= 1
        c[i + 2] -= 1
        _search(c, i, code | (<u32>i << (7 + 5 * n_sets)), n_sets + 1)
        c[i] += 1
        c[i + 1] += 1
        c[i + 2] += 1


cdef void _insert(int* c) noexcept nogil:
    cdef u32 key = 0, i, start = _n_readings
    cdef int k, total = 0
    for k in range(9):
        key |= (<u32>c[k]) << (3 * k)
        total += c[k]
    i = _slot(key)
    while _table[i] != 0:
        if <u32>_table[i] == key:
            return
        i = (i + 1) & (_TABLE_SIZE - 1)
    if total % 3 == 2:
        for k in range(9):
            if c[k] >= 2:
                c[k] -= 2
                _search(c, 0, <u32>k << 3, 0)
                c[k] += 2
    else:
        _search(c, 0, <u32>_NO_PAIR << 3, 0)
    _table[i] = key | (<u64>start << 32) | (<u64>(_n_readings - start) << 56) \
        | (_PAIR_FLAG if total % 3 == 2 else 0)


cdef void _add_sets(int* c, int first, int left) noexcept nogil:
    """Every multiset of at most ``left`` more sets (types >= first), with and without a pair."""
    cdef int t, k
    _insert(c)
    for k in range(9):
        if c[k] <= 2:
            c[k] += 2
            _insert(c)
            c[k] -= 2
    if left == 0:
        return
    for t in range(first, 16):
        if t < 9:
            if c[t] > 1:
                continue
            c[t] += 3
            _add_sets(c, t, left - 1)
            c[t] -= 3
        else:
            k = t - 9
            if c[k] > 3 or c[k + 1] > 3 or c[k + 2] > 3:
                continue
            c[k] += 1
            c[k + 1] += 1
            c[k + 2] += 1
            _add_sets(c, t, left - 1)
            c[k] -= 1
            c[k + 1] -= 1
            c[k + 2] -= 1


cdef int _build_table() except -1:
    cdef int c[9]
    cdef int k
    for k in range(9):
        c[k] = 0
    _add_sets(c, 0, 4)
    if _n_readings > _MAX_READINGS:
        raise RuntimeError("decomposition table overflow")
    return 0


_build_table()


cdef inline void _append_group(_Enum* e, u32 code, int base) noexcept nogil:
    cdef int j, n = code & 7, v
    cdef SetC* s
    if ((code >> 3) & 15) != _NO_PAIR:
        e.pair = base + ((code >> 3) & 15)
    code >>= 7
    for j in range(n):
        v = code & 31
        code >>= 5
        s = &e.sets[e.n_sets]
        s.kind = SET_TRIPLET if v & 16 else SET_SEQ
        s.tile = <u8>(base + (v & 15))
        s.concealed = 1
        s.meld = 0
        e.n_sets += 1


cdef int decompose_hand(const HandC* hand, int win_tile, Decomp* out, int cap) noexcept nogil:
    cdef _Enum e
    cdef int i, k, g, st, n_groups, j
    cdef u32 hw, x, any_w, twos, honor_code
    cdef u64 entry
    cdef const MeldC* m
    cdef Decomp* d
    cdef u64 entries[3]
    cdef int n_pairs
    cdef const u32* lists[4]
    cdef int counts[4]
    cdef int bases[4]
    cdef int idx[4]
    st = check_hand(hand)
    if st != ST_OK:
        return st
    if win_tile < 0 or win_tile >= 34 or hand.counts[win_tile] == 0:
        return ST_BAD_TILE
    e.n_melds = hand.n_melds
    e.win = win_tile
    e.pair = -1
    e.out = out
    e.cap = cap
    e.n = 0
    for k in range(hand.n_melds):
        m = &hand.melds[k]
        e.sets[k].tile = m.tile
        e.sets[k].meld = 1
        e.sets[k].concealed = 1 if m.kind == MK_KAN_CLOSED else 0
        if m.kind == MK_CHI:
            e.sets[k].kind = SET_SEQ
        elif m.kind == MK_PON:
            e.sets[k].kind = SET_TRIPLET
        else:
            e.sets[k].kind = SET_KAN

    # Packed groups (3 bits per kind) and their tile sums.
    for k in range(3):
        e.w[k] = _pack8(_load8(hand.counts + 9 * k)) | (<u32>hand.counts[9 * k + 8] << 24)
    hw = _pack8(_load8(hand.counts + 26)) >> 3
    e.w[3] = hw

    # Standard form: every group splits into sets (+ a pair) and exactly one holds the pair;
    # honors are triplets or the pair (no single, no quad: fields 001 and 1xx).
    twos = (hw >> 1) & ~hw & <u32>0o1111111             # honor fields holding exactly 2
    if (hw & <u32>0o4444444) == 0 and (hw & ~(hw >> 1) & <u32>0o1111111) == 0 \
            and (twos & (twos - 1)) == 0:
        g = 3 if twos else -1
        n_pairs = twos != 0
        for k in range(3):
            entries[k] = 0
            if e.w[k]:
                entries[k] = _find(e.w[k])
                if entries[k] == 0:
                    n_pairs = -9
                    break
                if entries[k] & _PAIR_FLAG:
                    g = k
                    n_pairs += 1
        if n_pairs == 1:
            n_groups = 0
            honor_code = 0
            if hw:
                # honors as one group reading (triplets ascending, pair offset)
                honor_code = <u32>_NO_PAIR << 3
                if twos:
                    honor_code = <u32>(MJ_CTZ32(twos) // 3) << 3
                x = hw & ~(twos << 1)
                j = 0
                while x:
                    i = MJ_CTZ32(x) // 3
                    x &= ~((<u32>7) << (3 * i))
                    honor_code |= <u32>(i | 16) << (7 + 5 * j)
                    j += 1
                honor_code |= <u32>j
            for k in range(-1, 4):
                # the pair's group first, then the others in order
                if k == -1:
                    i = g
                elif k == g:
                    continue
                else:
                    i = k
                if e.w[i] == 0:
                    continue
                if i == 3:
                    lists[n_groups] = &honor_code
                    counts[n_groups] = 1
                else:
                    entry = entries[i]
                    lists[n_groups] = &_readings[(entry >> 32) & 0xFFFFFF]
                    counts[n_groups] = <int>((entry >> 56) & 15)
                bases[n_groups] = 9 * i
                idx[n_groups] = 0
                n_groups += 1
            while True:
                e.n_sets = e.n_melds
                for j in range(n_groups):
                    _append_group(&e, lists[j][idx[j]], bases[j])
                _emit(&e)
                j = n_groups - 1
                while j >= 0:
                    idx[j] += 1
                    if idx[j] < counts[j]:
                        break
                    idx[j] = 0
                    j -= 1
                if j < 0:
                    break

    if hand.n_melds == 0:
        any_w = e.w[0] | e.w[1] | e.w[2] | hw
        # Seven pairs: seven different kinds, two each (every field 0 or 2).
        if (any_w & <u32>0o555555555) == 0 and MJ_POPCOUNT32(e.w[0]) + MJ_POPCOUNT32(e.w[1]) \
                + MJ_POPCOUNT32(e.w[2]) + MJ_POPCOUNT32(hw) == 7:
            if e.n < cap:
                d = &out[e.n]
                d.form = FORM_CHIITOITSU
                d.pair = <u8>win_tile
                d.n_sets = 0
                d.wait = WAIT_TANKI
                d.win_set = -1
            e.n += 1
        # Thirteen orphans: every terminal/honor kind, one of them twice (14 tiles).
        if ((e.w[0] | e.w[1] | e.w[2]) & <u32>0o077777770) == 0:
            k = -1
            for i in range(13):
                if hand.counts[YAOCHUU[i]] == 0:
                    k = -2
                    break
                if hand.counts[YAOCHUU[i]] == 2:
                    k = YAOCHUU[i]
            if k >= 0:
                if e.n < cap:
                    d = &out[e.n]
                    d.form = FORM_KOKUSHI
                    d.pair = <u8>k
                    d.n_sets = 0
                    d.wait = WAIT_KOKUSHI_13 if k == win_tile else WAIT_KOKUSHI
                    d.win_set = -1
                e.n += 1
    if e.n > cap:
        return ST_BAD_TOTAL
    return e.n


# ---- Python surface (used by mjcore.decomposition) --------------------------------------

cdef int fill_hand(HandC* h, object counts, object melds, int red) except -1:
    """counts: 34 ints; melds: iterable of (kind, tile, red, from_rel)."""
    cdef int i, k = 0
    cdef const unsigned char[:] view
    if isinstance(counts, bytes) and len(<bytes>counts) == 34:
        view = <bytes>counts
        for i in range(34):
            h.counts[i] = view[i] if view[i] <= 4 else 5
    elif len(counts) != 34:
        raise ValueError("counts must have 34 entries")
    else:
        for i in range(34):
            v = counts[i]
            if v < 0 or v > 4:
                h.counts[i] = 5           # rejected by check_hand
            else:
                h.counts[i] = <u8>v
    for mk in melds:
        if k >= 4:
            h.n_melds = 5
            return 0
        h.melds[k].kind = <u8>mk[0]
        h.melds[k].tile = <u8>mk[1]
        h.melds[k].red = <u8>mk[2]
        h.melds[k].from_rel = <u8>mk[3]
        k += 1
    h.n_melds = <u8>k
    h.red = <u8>red
    return 0


def decompose_raw(counts, melds, int win_tile, int red=0):
    """Return (status, list of (form, pair, sets, wait, win_set)); sets are
    (kind, tile, concealed, meld) tuples. status < 0 is an error code."""
    cdef HandC h
    cdef Decomp out[MAX_DECOMP]
    cdef int n, i, j
    fill_hand(&h, counts, melds, red)
    n = decompose_hand(&h, win_tile, out, MAX_DECOMP)
    if n < 0:
        return n, []
    res = []
    for i in range(n):
        sets = tuple((out[i].sets[j].kind, out[i].sets[j].tile, out[i].sets[j].concealed,
                      out[i].sets[j].meld) for j in range(out[i].n_sets))
        res.append((out[i].form, out[i].pair, sets, out[i].wait, out[i].win_set))
    return 0, res


from mjcore._core.level cimport MJCORE_BUILT_LEVEL

BUILT_FOR = MJCORE_BUILT_LEVEL.decode()   # the instruction-set level of this module's code
