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


cdef int check_hand(const HandC* hand) noexcept nogil:
    cdef int i, k, t, n, total = 0
    cdef u64 w, over = 0
    cdef u8 buf[40]
    cdef const MeldC* m
    if hand.n_melds > 4:
        return ST_BAD_MELDS
    memcpy(buf, hand.counts, 34)
    memset(buf + 34, 0, 6)
    for i in range(5):
        memcpy(&w, buf + 8 * i, 8)
        # bytes >= 5: the low 7 bits + 123 reach bit 7 (no carry between bytes), or bit 7 set
        over |= (((w & <u64>0x7F7F7F7F7F7F7F7F) + <u64>0x7B7B7B7B7B7B7B7B) | w) \
            & <u64>0x8080808080808080
        total += <int>((w * <u64>0x0101010101010101) >> 56)     # counts <= 4: no overflow
    if over:
        return ST_BAD_COUNT
    if hand.red > hand.counts[4] + hand.counts[13] + hand.counts[22]:
        return ST_BAD_COUNT
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
            for i in range(t, t + 3):
                if _meld_use(hand, i) > 4:
                    return ST_BAD_COUNT
        else:
            if m.red and (t >= 27 or t % 9 != 4 or m.red > (3 if m.kind == MK_PON else 4)):
                return ST_BAD_COUNT
            if _meld_use(hand, t) > 4:
                return ST_BAD_COUNT
    if total != 14 - 3 * hand.n_melds:
        return ST_BAD_TOTAL
    return ST_OK


cdef inline int _meld_use(const HandC* hand, int tile) noexcept nogil:
    """Copies of ``tile`` in the closed part and in every meld."""
    cdef int k, t, n = hand.counts[tile]
    for k in range(hand.n_melds):
        t = hand.melds[k].tile
        if hand.melds[k].kind == MK_CHI:
            if t <= tile <= t + 2:
                n += 1
        elif t == tile:
            n += 3 if hand.melds[k].kind == MK_PON else 4
    return n


cdef struct _Enum:
    u8 c[34]
    u32 w[4]            # closed counts packed 3 bits per kind: man, pin, sou, honors
    int order[4]        # groups in the order they are split (the pair's group first)
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
    #else
    static int MJ_CTZ32(unsigned int x) { int n = 0; while (!(x & 1u)) { x >>= 1; n++; } return n; }
    #endif
    """
    int MJ_CTZ32(unsigned int x) noexcept nogil


cdef inline u32 _pack9(const u8* c) noexcept nogil:
    return (<u32>c[0] | (<u32>c[1] << 3) | (<u32>c[2] << 6) | (<u32>c[3] << 9)
            | (<u32>c[4] << 12) | (<u32>c[5] << 15) | (<u32>c[6] << 18) | (<u32>c[7] << 21)
            | (<u32>c[8] << 24))


cdef inline int _sum_fields(u32 w) noexcept nogil:
    """Sum of the nine 3-bit fields of a packed group (each at most 4)."""
    cdef u32 t = (w & <u32>0o707070707) + ((w >> 3) & <u32>0o707070707)   # 6-bit fields
    return <int>(((t * <u32>0x1041041) >> 24) & 63)


cdef void _rec(_Enum* e, int k) noexcept nogil:
    """Split the packed groups e.w[e.order[k..3]] (3 bits per kind) into sets, lowest kind
    first; the pair's group comes first so that a wrong pair fails before other work."""
    cdef SetC* s
    cdef u32 x
    cdef int i, sh, g
    while k < 4 and e.w[e.order[k]] == 0:
        k += 1
    if k == 4:
        if e.n_sets == 4:
            _emit(e)
        return
    if e.n_sets >= 4:
        return
    g = e.order[k]
    x = e.w[g]
    sh = MJ_CTZ32(x)
    sh -= sh % 3
    i = sh // 3
    s = &e.sets[e.n_sets]
    s.concealed = 1
    s.meld = 0
    s.tile = <u8>(9 * g + i)
    if (x >> sh) & 7 >= 3:
        e.w[g] = x - ((<u32>3) << sh)
        s.kind = SET_TRIPLET
        e.n_sets += 1
        _rec(e, k)
        e.n_sets -= 1
        e.w[g] = x
    if g < 3 and i <= 6 and (x >> (sh + 3)) & 7 and (x >> (sh + 6)) & 7:
        e.w[g] = x - ((<u32>0x49) << sh)
        s.kind = SET_SEQ
        s.tile = <u8>(9 * g + i)
        s.concealed = 1
        s.meld = 0
        e.n_sets += 1
        _rec(e, k)
        e.n_sets -= 1
        e.w[g] = x


cdef int decompose_hand(const HandC* hand, int win_tile, Decomp* out, int cap) noexcept nogil:
    cdef _Enum e
    cdef int i, k, g, st, n_pairs, ok, honors_ok, n_simple, suit_sum[4]
    cdef const MeldC* m
    cdef Decomp* d
    st = check_hand(hand)
    if st != ST_OK:
        return st
    if win_tile < 0 or win_tile >= 34 or hand.counts[win_tile] == 0:
        return ST_BAD_TILE
    memcpy(e.c, hand.counts, 34)
    e.n_melds = hand.n_melds
    e.win = win_tile
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
    e.n_sets = hand.n_melds

    # Packed groups and their tile sums; no honor may be single or a quad.
    for k in range(3):
        e.w[k] = _pack9(e.c + 9 * k)
        suit_sum[k] = _sum_fields(e.w[k])
    e.w[3] = 0
    suit_sum[3] = 0
    honors_ok = 1
    for i in range(7):
        e.w[3] |= (<u32>e.c[27 + i]) << (3 * i)
        suit_sum[3] += e.c[27 + i]
        honors_ok &= e.c[27 + i] != 1 and e.c[27 + i] != 4

    # Standard form: the pair lies in the one group whose tile sum is 2 mod 3.
    g = -1
    for k in range(4):
        if suit_sum[k] % 3 == 2:
            g = k if g < 0 else 4
        elif suit_sum[k] % 3 == 1:
            g = 4
    if honors_ok and 0 <= g < 4:
        e.order[0] = g
        k = 1
        for i in range(4):
            if i != g:
                e.order[k] = i
                k += 1
        for i in range(9 * g, 9 * g + (7 if g == 3 else 9)):
            if e.c[i] < 2:
                continue
            k = 3 * (i - 9 * g)
            e.w[g] -= (<u32>2) << k
            e.pair = i
            _rec(&e, 0)
            e.w[g] += (<u32>2) << k

    if hand.n_melds == 0:
        n_pairs = 0
        ok = 1              # every count is 0 or 2
        for i in range(34):
            if e.c[i] == 2:
                n_pairs += 1
            elif e.c[i] != 0:
                ok = 0
                break
        n_simple = 14       # tiles outside the 13 terminal/honor kinds
        for i in range(13):
            n_simple -= e.c[YAOCHUU[i]]
        # Seven pairs: seven different kinds, two each.
        if ok and n_pairs == 7:
            if e.n < cap:
                d = &out[e.n]
                d.form = FORM_CHIITOITSU
                d.pair = <u8>win_tile
                d.n_sets = 0
                d.wait = WAIT_TANKI
                d.win_set = -1
            e.n += 1
        # Thirteen orphans: every terminal/honor kind, one of them twice.
        if n_simple == 0:
            ok = 1
            k = -1
            for i in range(13):
                if e.c[YAOCHUU[i]] == 0:
                    ok = 0
                    break
                if e.c[YAOCHUU[i]] == 2:
                    k = YAOCHUU[i]
            if ok and k >= 0:
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
