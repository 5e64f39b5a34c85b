"""Riichi scoring kernel (bodies for scoring.pxd) and its thin Python surface."""
from libc.string cimport memset, memcpy

from mjcore._core.avx_upper cimport mj_zero_upper

from .types cimport (u8, i8, u16, u32, i32, u64, ST_OK, ST_BAD_COUNT, ST_BAD_TILE, ST_NOT_AGARI,
                     ST_NO_YAKU, ST_BAD_SITUATION, ST_BAD_SEATS, ST_NOT_IN_SANMA)
from .decompose cimport (
    MAX_DECOMP, FORM_STANDARD, FORM_CHIITOITSU, FORM_KOKUSHI,
    WAIT_RYANMEN, WAIT_KANCHAN, WAIT_PENCHAN, WAIT_SHANPON, WAIT_TANKI, WAIT_KOKUSHI,
    WAIT_KOKUSHI_13, SET_SEQ, SET_TRIPLET, SET_KAN,
    MK_CHI, MK_PON, MK_KAN_OPEN, MK_KAN_CLOSED, MK_KAN_ADDED,
    MeldC, HandC, SetC, Decomp, decompose_hand,
)
from .decompose cimport fill_hand
from .scoring cimport (
    N_YAKU, MAX_FU_ITEMS, MAX_INDICATORS, RulesC, Situation, FuItem, ScoreOut, fill_situation,
    F_TSUMO, F_RIICHI, F_DOUBLE_RIICHI, F_IPPATSU, F_RINSHAN, F_CHANKAN, F_HAITEI, F_HOUTEI,
    F_TENHOU, F_CHIIHOU, F_RENHOU,
    LIMIT_NONE, LIMIT_MANGAN, LIMIT_HANEMAN, LIMIT_BAIMAN, LIMIT_SANBAIMAN, LIMIT_YAKUMAN,
    FU_BASE, FU_CHIITOITSU, FU_MENZEN_RON, FU_TSUMO, FU_SET, FU_PAIR, FU_WAIT, FU_OPEN_PINFU,
    FU_ROUNDING,
)

# Tenhou yaku ids.
cdef enum:
    Y_TSUMO = 0
    Y_RIICHI = 1
    Y_IPPATSU = 2
    Y_CHANKAN = 3
    Y_RINSHAN = 4
    Y_HAITEI = 5
    Y_HOUTEI = 6
    Y_PINFU = 7
    Y_TANYAO = 8
    Y_IIPEIKOU = 9
    Y_SEAT_WIND = 10
    Y_ROUND_WIND = 14
    Y_HAKU = 18
    Y_DOUBLE_RIICHI = 21
    Y_CHIITOITSU = 22
    Y_CHANTA = 23
    Y_ITTSU = 24
    Y_SANSHOKU = 25
    Y_SANSHOKU_DOUKOU = 26
    Y_SANKANTSU = 27
    Y_TOITOI = 28
    Y_SANANKOU = 29
    Y_SHOUSANGEN = 30
    Y_HONROUTOU = 31
    Y_RYANPEIKOU = 32
    Y_JUNCHAN = 33
    Y_HONITSU = 34
    Y_CHINITSU = 35
    Y_RENHOU = 36
    Y_TENHOU = 37
    Y_CHIIHOU = 38
    Y_DAISANGEN = 39
    Y_SUUANKOU = 40
    Y_SUUANKOU_TANKI = 41
    Y_TSUUIISOU = 42
    Y_RYUUIISOU = 43
    Y_CHINROUTOU = 44
    Y_CHUUREN = 45
    Y_JUNSEI_CHUUREN = 46
    Y_KOKUSHI = 47
    Y_KOKUSHI_13 = 48
    Y_DAISUUSHII = 49
    Y_SHOUSUUSHII = 50
    Y_SUUKANTSU = 51
    Y_DORA = 52
    Y_URA = 53
    Y_AKA = 54

cdef u64 ONE = 1
cdef int NORTH = 30

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define MJ_POPCOUNT64(x) __builtin_popcountll(x)
    #define MJ_CTZ64(x) __builtin_ctzll(x)
    #else
    static int MJ_POPCOUNT64(unsigned long long x) { int n = 0; while (x) { x &= x - 1; n++; } return n; }
    static int MJ_CTZ64(unsigned long long x) { int n = 0; while (!(x & 1ull)) { x >>= 1; n++; } return n; }
    #endif
    """
    int _popcount64 "MJ_POPCOUNT64"(unsigned long long x) noexcept nogil
    int _ctz64 "MJ_CTZ64"(unsigned long long x) noexcept nogil
cdef u64 YAKUMAN_MASK = ((ONE << 52) - 1) & ~((ONE << 36) - 1)


cdef struct _Ctx:
    u8 all[34]              # every tile of the hand (kans count 4)
    u64 present             # bit i: kind i is in the hand
    int menzen
    int tsumo
    int n_melds
    int win
    int seat_tile
    int round_tile
    int dealer
    u32 flags
    int dora
    int ura
    int aka
    # decomposition-independent yaku
    u64 base_mask
    int base_total
    u64 base_yakuman_mask
    const RulesC* rules


cdef struct _Cand:
    u64 mask
    int han                 # yaku han (no dora)
    int yakuman             # multiplier
    int fu
    int n_fu_items
    FuItem fu_items[MAX_FU_ITEMS]
    int basic
    int limit
    int kazoe


cdef void rules_default(RulesC* r) noexcept nogil:
    r.kuitan = 1
    r.red_fives = 3
    r.kazoe = 1
    r.kiriage = 0
    r.yakuman_stacking = 1
    r.renhou = 0
    r.double_wind_pair_fu = 4
    r.rinshan_tsumo_fu = 2
    r.open_pinfu_30fu = 1
    r.ryuuiisou_needs_hatsu = 0
    r.pao_mask = 3
    r.players = 4
    r.nukidora = 0


cdef u64 MAN_BITS = 0x1FF
cdef u64 HONOR_BITS = (<u64>0x7F) << 27
cdef u64 TERMINAL_BITS = (ONE << 0) | (ONE << 8) | (ONE << 9) | (ONE << 17) | (ONE << 18) | (ONE << 26)
cdef u64 SIMPLE_BITS = ((ONE << 27) - 1) & ~TERMINAL_BITS
cdef u64 YAOCHUU_BITS = TERMINAL_BITS | HONOR_BITS
# sequences made of a terminal: 123 and 789 of each suit
cdef u32 SEQ_YAOCHUU_BITS = (1 << 0) | (1 << 6) | (1 << 9) | (1 << 15) | (1 << 18) | (1 << 24)
cdef u64 GREEN_BITS = (ONE << 19) | (ONE << 20) | (ONE << 21) | (ONE << 23) | (ONE << 25) | (ONE << 32)


cdef inline u64 _bytes_nonzero(const u8* p) noexcept nogil:
    """8 bits, bit k set when p[k] != 0 (each byte at most 128)."""
    cdef u64 w
    memcpy(&w, p, 8)
    w = ((w + <u64>0x7F7F7F7F7F7F7F7F) & <u64>0x8080808080808080) >> 7
    return (w * <u64>0x0102040810204080) >> 56


cdef inline u64 _presence(const u8* counts) noexcept nogil:
    """Bit i set when kind i has at least one tile (counts are at most 7)."""
    return (_bytes_nonzero(counts) | (_bytes_nonzero(counts + 8) << 8)
            | (_bytes_nonzero(counts + 16) << 16) | (_bytes_nonzero(counts + 24) << 24)
            | ((_bytes_nonzero(counts + 26) >> 6) << 32))


# Dora indicated by each kind (riichi.md §3.4: 9 wraps to 1, E>S>W>N>E, White>Green>Red>White).
cdef u8[34] DORA_OF = [1, 2, 3, 4, 5, 6, 7, 8, 0, 10, 11, 12, 13, 14, 15, 16, 17, 9,
                       19, 20, 21, 22, 23, 24, 25, 26, 18, 28, 29, 30, 27, 32, 33, 31]


cdef inline int _dora_of(int ind) noexcept nogil:
    return DORA_OF[ind]


cdef inline int _indicated(const u8* indicators, int n, const u8* all_tiles, int players,
                           int n_kita) noexcept nogil:
    """The tiles of the hand that ``n`` indicators make dora (three players: 1m indicates 9m;
    the norths set aside count again for every indicator pointing to north)."""
    cdef int i, t, total = 0
    for i in range(n):
        t = _dora_of(indicators[i])
        if t == 1 and players == 3:
            t = 8
        total += all_tiles[t] + (n_kita if t == NORTH else 0)
    return total


cdef inline bint _is_yaochuu(int t) noexcept nogil:
    return (YAOCHUU_BITS >> t) & 1


cdef inline void _add(u64* mask, int* total, int yid, int han) noexcept nogil:
    mask[0] |= ONE << yid
    total[0] += han


cdef inline int _fu_item(FuItem* items, int n, int code, int tile, int fu) noexcept nogil:
    """Write item n (at most 10 items arise: base, ron/tsumo, 4 sets, pair, wait, rounding,
    open pinfu) and return n + 1."""
    items[n].code = <u8>code
    items[n].tile = <u8>tile
    items[n].fu = <u8>fu
    return n + 1


cdef inline int _ceil100(int x) noexcept nogil:
    return (x + 99) // 100 * 100


# Yakuman that count double under yakuman_stacking == 2 (composite + double forms).
cdef u64 DOUBLE_FORMS = (ONE << 41) | (ONE << 46) | (ONE << 48) | (ONE << 49)

# Han of the ordinary yaku (tenhou ids 0..35), closed and open.
cdef u8[36] HAN_CLOSED = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                          2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 6]
cdef u8[36] HAN_OPEN = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                        2, 2, 1, 1, 1, 2, 2, 2, 2, 2, 2, 3, 2, 2, 5]


cdef inline int _yakuman_mult(int yid, int stacking) noexcept nogil:
    return 2 if stacking == 2 and DOUBLE_FORMS & (ONE << yid) else 1


cdef int _yakuman_value(u64 mask, int stacking) noexcept nogil:
    cdef u64 m = mask & YAKUMAN_MASK
    cdef int v
    if stacking == 0:
        return 1 if m else 0
    v = _popcount64(m)
    if stacking == 2:
        v += _popcount64(m & DOUBLE_FORMS)
    return v


# han per yaku id 0..51 by [menzen][yakuman_stacking] (yakuman ids: the multiplier)
cdef u8 HAN_TABLE[2][3][52]


cdef void _fill_han_table() noexcept nogil:
    cdef int z, st, i
    for z in range(2):
        for st in range(3):
            for i in range(52):
                if i < 36:
                    HAN_TABLE[z][st][i] = HAN_CLOSED[i] if z else HAN_OPEN[i]
                else:
                    HAN_TABLE[z][st][i] = <u8>_yakuman_mult(i, st)


_fill_han_table()


cdef inline void _fill_han(ScoreOut* out, int menzen, int renhou_rule, int stacking,
                           int yakuman_hand) noexcept nogil:
    """yaku_han from the yaku mask (dora/ura/aka entries are set by the caller)."""
    cdef u64 m = out.yaku_mask & ((ONE << 52) - 1)
    cdef const u8* han = HAN_TABLE[1 if menzen else 0][stacking if stacking <= 2 else 1]
    cdef int i
    memset(out.yaku_han, 0, N_YAKU)
    while m:
        i = _ctz64(m)
        m &= m - 1
        out.yaku_han[i] = han[i]
    if out.yaku_mask & (ONE << 36) and not yakuman_hand:
        out.yaku_han[36] = 5                        # renhou as a mangan yaku


# Situational yaku by flag bits 1..7 (riichi, double riichi, ippatsu, rinshan, chankan, haitei,
# houtei): their mask and han; double riichi replaces riichi.
cdef u64 SIT_MASK[128]
cdef int SIT_HAN[128]


cdef void _fill_situation_table() noexcept nogil:
    cdef int k, f
    cdef u64 m
    cdef int h
    for k in range(128):
        f = k << 1
        m = 0
        h = 0
        if f & F_DOUBLE_RIICHI:
            _add(&m, &h, Y_DOUBLE_RIICHI, 2)
        elif f & F_RIICHI:
            _add(&m, &h, Y_RIICHI, 1)
        if f & F_IPPATSU:
            _add(&m, &h, Y_IPPATSU, 1)
        if f & F_CHANKAN:
            _add(&m, &h, Y_CHANKAN, 1)
        if f & F_RINSHAN:
            _add(&m, &h, Y_RINSHAN, 1)
        if f & F_HAITEI:
            _add(&m, &h, Y_HAITEI, 1)
        if f & F_HOUTEI:
            _add(&m, &h, Y_HOUTEI, 1)
        SIT_MASK[k] = m
        SIT_HAN[k] = h


_fill_situation_table()


cdef void _prepare(const HandC* hand, const Situation* sit, const RulesC* rules,
                   _Ctx* x) noexcept nogil:
    """Hand-wide facts and the yaku that do not depend on the decomposition."""
    cdef int i, k, t, n_suits, has_honor, has_term, has_simple, all_green, chuuren, suit
    cdef u64 pres
    cdef int seen_suit[3]
    cdef const MeldC* m
    cdef u32 f = sit.flags
    memcpy(x.all, hand.counts, 34)
    x.menzen = 1
    x.aka = hand.red
    for k in range(hand.n_melds):
        m = &hand.melds[k]
        t = m.tile
        x.aka += m.red
        if m.kind == MK_CHI:
            x.all[t] += 1
            x.all[t + 1] += 1
            x.all[t + 2] += 1
        elif m.kind == MK_PON:
            x.all[t] += 3
        else:
            x.all[t] += 4
        if m.kind != MK_KAN_CLOSED:
            x.menzen = 0
    if rules.red_fives == 0:
        x.aka = 0
    x.n_melds = hand.n_melds
    x.tsumo = 1 if f & F_TSUMO else 0
    x.win = sit.win_tile
    x.seat_tile = 27 + sit.seat_wind
    x.round_tile = 27 + sit.round_wind
    x.dealer = sit.seat_wind == 0
    x.flags = f
    x.rules = rules
    # Sanma: indicator 1m points to 9m (2m-8m do not exist); each north set aside is a dora
    # itself and counts again for every indicator pointing to north.
    x.dora = sit.n_kita + _indicated(sit.dora_ind, sit.n_dora, x.all, rules.players, sit.n_kita)
    x.ura = 0
    if f & (F_RIICHI | F_DOUBLE_RIICHI):
        x.ura = sit.ura_han + _indicated(sit.ura_ind, sit.n_ura, x.all, rules.players,
                                         sit.n_kita)

    x.base_yakuman_mask = 0
    # Situational yaku (riichi .. houtei from one table).
    x.base_mask = SIT_MASK[(f >> 1) & 127]
    x.base_total = SIT_HAN[(f >> 1) & 127]
    if x.menzen and x.tsumo:
        _add(&x.base_mask, &x.base_total, Y_TSUMO, 1)
    if f & F_RENHOU and rules.renhou == 1:
        _add(&x.base_mask, &x.base_total, Y_RENHOU, 5)

    # Tile-content yaku, from the set of kinds present.
    pres = _presence(x.all)
    x.present = pres
    seen_suit[0] = (pres & MAN_BITS) != 0
    seen_suit[1] = (pres & (MAN_BITS << 9)) != 0
    seen_suit[2] = (pres & (MAN_BITS << 18)) != 0
    has_honor = (pres & HONOR_BITS) != 0
    has_term = (pres & TERMINAL_BITS) != 0
    has_simple = (pres & SIMPLE_BITS) != 0
    all_green = (pres & ~GREEN_BITS) == 0
    n_suits = seen_suit[0] + seen_suit[1] + seen_suit[2]
    if not has_honor and not has_term and (x.menzen or rules.kuitan):
        _add(&x.base_mask, &x.base_total, Y_TANYAO, 1)
    if n_suits == 1:
        if has_honor:
            _add(&x.base_mask, &x.base_total, Y_HONITSU, 3 if x.menzen else 2)
        else:
            _add(&x.base_mask, &x.base_total, Y_CHINITSU, 6 if x.menzen else 5)
    if not has_simple and has_honor and has_term:
        _add(&x.base_mask, &x.base_total, Y_HONROUTOU, 2)

    # Yakuman that depend only on the tiles or the situation.
    i = 0
    if f & (F_TENHOU | F_CHIIHOU | F_RENHOU):
        if f & F_TENHOU:
            _add(&x.base_yakuman_mask, &i, Y_TENHOU, 1)
        if f & F_CHIIHOU:
            _add(&x.base_yakuman_mask, &i, Y_CHIIHOU, 1)
        if f & F_RENHOU and rules.renhou == 2:
            _add(&x.base_yakuman_mask, &i, Y_RENHOU, 1)
    if n_suits == 0:
        _add(&x.base_yakuman_mask, &i, Y_TSUUIISOU, 1)
    if not has_simple and not has_honor:
        _add(&x.base_yakuman_mask, &i, Y_CHINROUTOU, 1)
    if all_green and (x.all[32] > 0 or not rules.ryuuiisou_needs_hatsu):
        _add(&x.base_yakuman_mask, &i, Y_RYUUIISOU, 1)
    if hand.n_melds == 0 and n_suits == 1 and not has_honor:
        suit = 0 if seen_suit[0] else (9 if seen_suit[1] else 18)
        chuuren = hand.counts[suit] >= 3 and hand.counts[suit + 8] >= 3 \
            and (pres >> (suit + 1)) & 0x7F == 0x7F
        if chuuren:
            # Junsei (nine-sided): the hand without the winning tile is 1112345678999.
            k = hand.counts[x.win] - 1
            t = x.win - suit
            if ((t == 0 or t == 8) and k == 3) or (t != 0 and t != 8 and k == 1):
                _add(&x.base_yakuman_mask, &i, Y_JUNSEI_CHUUREN,
                     2 if rules.yakuman_stacking == 2 else 1)
            else:
                _add(&x.base_yakuman_mask, &i, Y_CHUUREN, 1)


cdef inline void _sort4(int* a) noexcept nogil:
    cdef int i, j, v
    for i in range(1, 4):
        v = a[i]
        j = i - 1
        while j >= 0 and a[j] > v:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = v


cdef struct _Sets:
    # What the yaku and fu of a standard-form decomposition read from its sets and pair. The
    # per-set lists are apart (_SetLists), so the compiler keeps these scalars in registers.
    u64 trip_m              # bit t: a triplet/kan of kind t
    u32 seq_m               # bit t: a sequence starting at t
    int n_seq
    int n_trip              # triplets and kans
    int ankou               # concealed triplets and kans (a ron-completed triplet is open)
    int n_kans
    int pair_fu
    int all_yaochuu         # every set and the pair hold a terminal or honor
    int dragons_trip
    int winds_trip


cdef struct _SetLists:
    int seq_t[4]            # the sequences' first tiles
    int set_fu[4]           # fu and tile of each triplet/kan, in set order
    int set_tile[4]


cdef inline void _read_sets(const Decomp* d, const _Ctx* x, _Sets* s,
                            _SetLists* l) noexcept nogil:
    cdef int i, t, kind, conc, is_kan
    cdef int pair = d.pair
    s.trip_m = 0
    s.seq_m = 0
    s.n_seq = 0
    s.n_trip = 0
    s.ankou = 0
    s.n_kans = 0
    s.pair_fu = 0
    for i in range(4):
        t = d.sets[i].tile
        kind = d.sets[i].kind
        if kind == SET_SEQ:
            s.seq_m |= (<u32>1) << t
            l.seq_t[s.n_seq] = t
            s.n_seq += 1
            continue
        conc = d.sets[i].concealed
        if conc and not x.tsumo and i == d.win_set:
            conc = 0            # a triplet completed by ron is open
        is_kan = kind == SET_KAN
        # 2 fu, doubled for terminals/honors, doubled when concealed, x4 for a kan
        l.set_fu[s.n_trip] = 2 << (_is_yaochuu(t) + conc + 2 * is_kan)
        l.set_tile[s.n_trip] = t
        s.n_trip += 1
        s.trip_m |= ONE << t
        s.ankou += conc
        s.n_kans += is_kan
    s.all_yaochuu = (s.seq_m & ~SEQ_YAOCHUU_BITS) == 0 and (s.trip_m & ~YAOCHUU_BITS) == 0 \
        and _is_yaochuu(pair)
    s.dragons_trip = _popcount64((s.trip_m >> 31) & 7)
    s.winds_trip = _popcount64((s.trip_m >> 27) & 15)
    if pair >= 31:
        s.pair_fu = 2
    elif pair >= 27:
        if pair == x.seat_tile and pair == x.round_tile:
            s.pair_fu = x.rules.double_wind_pair_fu
        elif pair == x.seat_tile or pair == x.round_tile:
            s.pair_fu = 2


cdef inline void _yaku_yakuhai(const _Sets* s, const _Ctx* x, u64* mask, int* yh) noexcept nogil:
    """Dragon triplets, the seat wind and the round wind."""
    mask[0] |= ((s.trip_m >> 31) & 7) << Y_HAKU
    yh[0] += s.dragons_trip
    if s.trip_m & (ONE << x.seat_tile):
        _add(mask, yh, Y_SEAT_WIND + x.seat_tile - 27, 1)
    if s.trip_m & (ONE << x.round_tile):
        _add(mask, yh, Y_ROUND_WIND + x.round_tile - 27, 1)


cdef inline int _identical_sequences(const _Sets* s, _SetLists* l) noexcept nogil:
    """Disjoint pairs of identical sequences among the (at most 4) sequences: 0, 1 or 2."""
    cdef int* q = l.seq_t
    if s.n_seq == 4:
        _sort4(q)
        if q[0] == q[1]:
            return 2 if q[2] == q[3] else 1
        return 1 if q[1] == q[2] or q[2] == q[3] else 0
    if s.n_seq == 3:
        return 1 if q[0] == q[1] or q[0] == q[2] or q[1] == q[2] else 0
    return 1 if s.n_seq == 2 and q[0] == q[1] else 0


cdef inline int _yaku_sequences(const Decomp* d, const _Sets* s, _SetLists* l, int menzen,
                                u64* mask, int* yh) noexcept nogil:
    """Pinfu, iipeikou / ryanpeikou, sanshoku, ittsu. Returns 1 for pinfu."""
    cdef int pinfu = 0, n_pairs
    cdef u32 seq_m = s.seq_m
    if menzen and s.n_seq == 4 and s.pair_fu == 0 and d.wait == WAIT_RYANMEN:
        pinfu = 1
        _add(mask, yh, Y_PINFU, 1)
    if menzen and s.n_seq >= 2:
        n_pairs = _identical_sequences(s, l)
        if n_pairs >= 2:
            _add(mask, yh, Y_RYANPEIKOU, 3)
        elif n_pairs == 1:
            _add(mask, yh, Y_IIPEIKOU, 1)
    if s.n_seq >= 3:
        if seq_m & (seq_m >> 9) & (seq_m >> 18) & 0x7F:
            _add(mask, yh, Y_SANSHOKU, 2 if menzen else 1)
        if seq_m & (seq_m >> 3) & (seq_m >> 6) & 0x8040201:
            _add(mask, yh, Y_ITTSU, 2 if menzen else 1)
    return pinfu


cdef inline void _yaku_outside(const _Sets* s, const _Ctx* x, u64* mask,
                               int* yh) noexcept nogil:
    """Chanta / junchan (honroutou is the no-sequence case, counted hand-wide)."""
    if s.all_yaochuu and s.n_seq > 0 and not mask[0] & (ONE << Y_HONROUTOU):
        if x.present & HONOR_BITS:
            _add(mask, yh, Y_CHANTA, 2 if x.menzen else 1)
        else:
            _add(mask, yh, Y_JUNCHAN, 3 if x.menzen else 2)


cdef inline void _yaku_triplets(const Decomp* d, const _Sets* s, u64* mask,
                                int* yh) noexcept nogil:
    """Toitoi, sanankou, sanshoku doukou, sankantsu, shousangen."""
    cdef u64 trip_m = s.trip_m
    if s.n_trip == 4:
        _add(mask, yh, Y_TOITOI, 2)
    if s.ankou == 3:
        _add(mask, yh, Y_SANANKOU, 2)
    if s.n_trip >= 3 and trip_m & (trip_m >> 9) & (trip_m >> 18) & 0x1FF:
        _add(mask, yh, Y_SANSHOKU_DOUKOU, 2)
    if s.n_kans == 3:
        _add(mask, yh, Y_SANKANTSU, 2)
    if s.dragons_trip == 2 and d.pair >= 31:
        _add(mask, yh, Y_SHOUSANGEN, 2)


cdef inline void _yakuman_sets(const Decomp* d, const _Sets* s, const RulesC* r, u64* ym,
                               int* tot) noexcept nogil:
    """The yakuman of the standard form: daisangen, suuankou, the four winds, suukantsu."""
    cdef int double_form = 2 if r.yakuman_stacking == 2 else 1
    if s.dragons_trip == 3:
        _add(ym, tot, Y_DAISANGEN, 1)
    if s.ankou == 4:
        if d.wait == WAIT_TANKI:
            _add(ym, tot, Y_SUUANKOU_TANKI, double_form)
        else:
            _add(ym, tot, Y_SUUANKOU, 1)
    if s.winds_trip == 4:
        _add(ym, tot, Y_DAISUUSHII, double_form)
    elif s.winds_trip == 3 and d.pair >= 27 and d.pair < 31:
        _add(ym, tot, Y_SHOUSUUSHII, 1)
    if s.n_kans == 4:
        _add(ym, tot, Y_SUUKANTSU, 1)


cdef inline void _fu_standard(const Decomp* d, const _Sets* s, const _SetLists* l,
                              const _Ctx* x, int pinfu, _Cand* c) noexcept nogil:
    """Fu of the standard form, itemised into c.fu_items; c.fu rounded up to tens."""
    cdef const RulesC* r = x.rules
    cdef int i, fu = 20, rounded, nf = 0
    nf = _fu_item(c.fu_items, nf, FU_BASE, 0, 20)
    if not (pinfu and x.tsumo):
        if x.menzen and not x.tsumo:
            fu += 10
            nf = _fu_item(c.fu_items, nf, FU_MENZEN_RON, 0, 10)
        if x.tsumo:
            if x.flags & F_RINSHAN:
                if r.rinshan_tsumo_fu:
                    fu += r.rinshan_tsumo_fu
                    nf = _fu_item(c.fu_items, nf, FU_TSUMO, 0, r.rinshan_tsumo_fu)
            else:
                fu += 2
                nf = _fu_item(c.fu_items, nf, FU_TSUMO, 0, 2)
        for i in range(s.n_trip):
            fu += l.set_fu[i]
            nf = _fu_item(c.fu_items, nf, FU_SET, l.set_tile[i], l.set_fu[i])
        if s.pair_fu:
            fu += s.pair_fu
            nf = _fu_item(c.fu_items, nf, FU_PAIR, d.pair, s.pair_fu)
        if d.wait == WAIT_KANCHAN or d.wait == WAIT_PENCHAN or d.wait == WAIT_TANKI:
            fu += 2
            nf = _fu_item(c.fu_items, nf, FU_WAIT, d.wait, 2)
    rounded = (fu + 9) // 10 * 10
    if rounded != fu:
        nf = _fu_item(c.fu_items, nf, FU_ROUNDING, 0, rounded - fu)
    if rounded == 20 and not (pinfu and x.tsumo) and not x.menzen and r.open_pinfu_30fu:
        nf = _fu_item(c.fu_items, nf, FU_OPEN_PINFU, 0, 10)
        rounded = 30
    c.fu = rounded
    c.n_fu_items = nf


cdef inline void _value(_Cand* c, const _Ctx* x, u64 mask, int yh, u64 ym) noexcept nogil:
    """Basic points and limit from the yaku (mask, yh han) or the yakuman (ym), dora added."""
    cdef const RulesC* r = x.rules
    cdef int han, basic
    if ym:                  # yakuman decide the hand when present
        c.mask = ym
        c.han = 0
        c.yakuman = _yakuman_value(ym, r.yakuman_stacking)
        c.basic = 8000 * c.yakuman
        c.limit = LIMIT_YAKUMAN
        return
    c.mask = mask
    c.han = yh
    if yh == 0:
        c.basic = 0
        c.limit = LIMIT_NONE
        return
    han = yh + x.dora + x.ura + x.aka
    if han >= 13 and r.kazoe:
        c.kazoe = 1
        c.yakuman = 1
        c.basic = 8000
        c.limit = LIMIT_YAKUMAN
    elif han >= 11:
        c.basic = 6000
        c.limit = LIMIT_SANBAIMAN
    elif han >= 8:
        c.basic = 4000
        c.limit = LIMIT_BAIMAN
    elif han >= 6:
        c.basic = 3000
        c.limit = LIMIT_HANEMAN
    elif han >= 5:
        c.basic = 2000
        c.limit = LIMIT_MANGAN
    else:
        basic = c.fu << (han + 2)
        if basic >= 2000 or (r.kiriage and basic == 1920):
            c.basic = 2000
            c.limit = LIMIT_MANGAN
        else:
            c.basic = basic
            c.limit = LIMIT_NONE


cdef void _evaluate(const Decomp* d, const _Ctx* x, _Cand* c) noexcept nogil:
    """Yaku, fu and basic points of one decomposition, yaku family by family."""
    cdef _Sets s
    cdef _SetLists lists
    cdef int pinfu, tot = 0
    cdef u64 ym = x.base_yakuman_mask
    cdef u64 mask = x.base_mask     # locals: the build has no strict aliasing
    cdef int yh = x.base_total
    c.yakuman = 0
    c.n_fu_items = 0
    memset(c.fu_items, 0, sizeof(FuItem) * MAX_FU_ITEMS)     # copied whole
    c.kazoe = 0
    c.fu = 0
    if d.form == FORM_KOKUSHI:
        if d.wait == WAIT_KOKUSHI_13:
            _add(&ym, &tot, Y_KOKUSHI_13, 2 if x.rules.yakuman_stacking == 2 else 1)
        else:
            _add(&ym, &tot, Y_KOKUSHI, 1)
    elif d.form == FORM_CHIITOITSU:
        _add(&mask, &yh, Y_CHIITOITSU, 2)
        c.fu = 25
        c.n_fu_items = _fu_item(c.fu_items, 0, FU_CHIITOITSU, 0, 25)
    else:
        _read_sets(d, x, &s, &lists)
        _yaku_yakuhai(&s, x, &mask, &yh)
        pinfu = _yaku_sequences(d, &s, &lists, x.menzen, &mask, &yh)
        _yaku_outside(&s, x, &mask, &yh)
        _yaku_triplets(d, &s, &mask, &yh)
        _yakuman_sets(d, &s, x.rules, &ym, &tot)
        _fu_standard(d, &s, &lists, x, pinfu, c)
    _value(c, x, mask, yh, ym)


cdef inline bint _better(const _Cand* a, const _Cand* b) noexcept nogil:
    """a beats b: more basic points, then a real yakuman over a counted (kazoe) one, then
    more han, then more fu."""
    cdef bint ya, yb
    if a.basic != b.basic:
        return a.basic > b.basic
    ya = a.yakuman > 0 and not a.kazoe
    yb = b.yakuman > 0 and not b.kazoe
    if ya != yb:
        return ya
    if a.han != b.han:
        return a.han > b.han
    return a.fu > b.fu


cdef inline int _copies(const HandC* hand, const Situation* sit, int t) noexcept nogil:
    """Copies of kind t in the closed tiles, the melds, the norths set aside and the dora
    and ura indicators together."""
    cdef int i, m, n = hand.counts[t] + (sit.n_kita if t == NORTH else 0)
    for i in range(hand.n_melds):
        m = hand.melds[i].tile
        if hand.melds[i].kind == MK_CHI:
            n += m <= t <= m + 2
        elif m == t:
            n += 3 if hand.melds[i].kind == MK_PON else 4
    for i in range(sit.n_dora):
        n += sit.dora_ind[i] == t
    for i in range(sit.n_ura):
        n += sit.ura_ind[i] == t
    return n


cdef int _check_situation(const HandC* hand, const Situation* sit,
                          const RulesC* rules) noexcept nogil:
    cdef u32 f = sit.flags
    cdef int k, menzen = 1, tsumo = (f & F_TSUMO) != 0, last = rules.players - 1
    cdef int north = hand.counts[NORTH]
    if rules.players != 3 and rules.players != 4:
        return ST_BAD_SEATS
    if sit.seat_wind > last or sit.round_wind > 3:
        return ST_BAD_SEATS
    if not tsumo and (sit.from_rel < 1 or sit.from_rel > last):
        return ST_BAD_SEATS
    if sit.pao_rel != -1 and (sit.pao_rel < 1 or sit.pao_rel > last):
        return ST_BAD_SEATS
    if sit.n_dora > MAX_INDICATORS or sit.n_ura > MAX_INDICATORS:
        return ST_BAD_SITUATION
    if rules.players == 3:
        for k in range(1, 8):
            if hand.counts[k]:
                return ST_NOT_IN_SANMA
        for k in range(sit.n_dora):
            if 1 <= sit.dora_ind[k] <= 7:
                return ST_NOT_IN_SANMA
        for k in range(sit.n_ura):
            if 1 <= sit.ura_ind[k] <= 7:
                return ST_NOT_IN_SANMA
        for k in range(hand.n_melds):
            if hand.melds[k].kind == MK_CHI or 1 <= hand.melds[k].tile <= 7:
                return ST_NOT_IN_SANMA
            if hand.melds[k].tile == NORTH:
                north += 4 if hand.melds[k].kind >= MK_KAN_OPEN else 3
    if sit.n_kita and (not rules.nukidora or sit.n_kita + north > 4):
        return ST_BAD_SITUATION
    for k in range(sit.n_dora):
        if sit.dora_ind[k] >= 34:
            return ST_BAD_TILE
    for k in range(sit.n_ura):
        if sit.ura_ind[k] >= 34:
            return ST_BAD_TILE
    for k in range(sit.n_dora):
        if _copies(hand, sit, sit.dora_ind[k]) > 4:
            return ST_BAD_COUNT
    for k in range(sit.n_ura):
        if _copies(hand, sit, sit.ura_ind[k]) > 4:
            return ST_BAD_COUNT
    for k in range(hand.n_melds):
        if hand.melds[k].kind != MK_KAN_CLOSED:
            menzen = 0
    if f & (F_RIICHI | F_DOUBLE_RIICHI | F_IPPATSU | F_TENHOU | F_CHIIHOU) and not menzen:
        return ST_BAD_SITUATION
    if f & F_IPPATSU and not (f & (F_RIICHI | F_DOUBLE_RIICHI)):
        return ST_BAD_SITUATION
    if tsumo and f & (F_CHANKAN | F_HOUTEI | F_RENHOU):
        return ST_BAD_SITUATION
    if not tsumo and f & (F_RINSHAN | F_HAITEI | F_TENHOU | F_CHIIHOU):
        return ST_BAD_SITUATION
    if (f & F_RINSHAN and f & F_HAITEI) or (f & F_CHANKAN and f & F_HOUTEI):
        return ST_BAD_SITUATION
    if f & F_TENHOU and (sit.seat_wind != 0 or hand.n_melds):
        return ST_BAD_SITUATION
    if f & (F_CHIIHOU | F_RENHOU) and sit.seat_wind == 0:
        return ST_BAD_SITUATION
    return ST_OK


cdef void _pay(const _Ctx* x, const Situation* sit, const RulesC* r, ScoreOut* out) noexcept nogil:
    """Payments. Each payer adds 100 per honba; a ron's discarder pays every payer's share
    (300 with four players, 200 with three). A sanma tsumo is paid by the two others only."""
    cdef int basic = out.basic, h = sit.honba, k, dealer_rel, liable = 0, rest, full, mult
    cdef int pao = sit.pao_rel, p = r.players, ron_honba = 100 * (r.players - 1)
    for k in range(4):
        out.pay[k] = 0
    dealer_rel = (p - sit.seat_wind) % p
    mult = 6 if x.dealer else 4
    if pao > 0 and out.yakuman > 0:
        if r.pao_mask & 1 and out.yaku_mask & (ONE << Y_DAISANGEN):
            liable += out.yaku_han[Y_DAISANGEN]
        if r.pao_mask & 2 and out.yaku_mask & (ONE << Y_DAISUUSHII):
            liable += out.yaku_han[Y_DAISUUSHII]
        if r.pao_mask & 4 and out.yaku_mask & (ONE << Y_SUUKANTSU):
            liable += out.yaku_han[Y_SUUKANTSU]
        if liable > out.yakuman:
            liable = out.yakuman
        liable *= 8000
    if x.tsumo:
        rest = basic
        if liable:
            full = _ceil100(liable * mult)
            out.pay[pao] += full + ron_honba * h
            rest = basic - liable
            h = 0
        if rest > 0 or not liable:
            for k in range(1, p):
                if x.dealer or k == dealer_rel:
                    out.pay[k] += _ceil100(2 * rest) + 100 * h
                else:
                    out.pay[k] += _ceil100(rest) + 100 * h
        out.points = 0
        for k in range(1, p):
            out.points += out.pay[k]
        out.points -= ron_honba * sit.honba
    else:
        out.points = _ceil100(basic * mult)
        if liable and pao != sit.from_rel:
            full = _ceil100(liable * mult)
            out.pay[pao] += full // 2
            out.pay[sit.from_rel] += out.points - full // 2 + ron_honba * h
        else:
            out.pay[sit.from_rel] += out.points + ron_honba * h
    out.delta[0] = 1000 * sit.riichi_sticks
    for k in range(1, 4):
        out.delta[0] += out.pay[k]
        out.delta[k] = -out.pay[k]


cdef int score_hand(const HandC* hand, const Situation* sit, const RulesC* rules,
                    ScoreOut* out) noexcept nogil:
    cdef Decomp decomps[MAX_DECOMP]
    cdef _Ctx x
    cdef _Cand bufs[2]
    cdef _Cand* cur = &bufs[0]
    cdef _Cand* best = &bufs[1]
    cdef _Cand* tmp
    cdef int n, i, best_i = -1, st
    out.status = ST_OK
    out.players = rules.players
    n = decompose_hand(hand, sit.win_tile, decomps, MAX_DECOMP)
    if n < 0:
        out.status = n
        return n
    out.n_decomp = n
    if n == 0:
        out.status = ST_NOT_AGARI
        return ST_NOT_AGARI
    st = _check_situation(hand, sit, rules)
    if st != ST_OK:
        out.status = st
        return st
    _prepare(hand, sit, rules, &x)
    if n == 1:
        # the common single reading: no comparison, no swap
        _evaluate(&decomps[0], &x, best)
        best_i = 0 if best.basic else -1
    else:
        for i in range(n):
            _evaluate(&decomps[i], &x, cur)
            if cur.basic == 0:
                continue
            if best_i < 0 or _better(cur, best):
                tmp = best
                best = cur
                cur = tmp
                best_i = i
        if best_i < 0:
            # no yaku in any reading: report the first one's fu for information
            _evaluate(&decomps[0], &x, best)
    if best_i < 0:
        best_i = 0
        out.status = ST_NO_YAKU
    out.decomp_index = best_i
    out.decomp = decomps[best_i]
    out.yaku_mask = best.mask
    _fill_han(out, x.menzen, rules.renhou, rules.yakuman_stacking,
              best.yakuman > 0 and not best.kazoe)
    out.fu = <u8>best.fu
    out.n_fu_items = <u8>best.n_fu_items
    memcpy(out.fu_items, best.fu_items, sizeof(FuItem) * MAX_FU_ITEMS)
    out.dora = <u8>x.dora
    out.ura = <u8>x.ura
    out.aka = <u8>x.aka
    out.yakuman = <u8>best.yakuman
    out.kazoe = <u8>best.kazoe
    out.limit = <u8>best.limit
    out.basic = best.basic
    if out.status == ST_NO_YAKU:
        out.han = 0
        out.yaku_mask = 0
        memset(out.yaku_han, 0, N_YAKU)
        out.points = 0
        for i in range(4):
            out.pay[i] = 0
            out.delta[i] = 0
        return ST_NO_YAKU
    if best.yakuman and not best.kazoe:
        out.han = 0
    else:
        out.han = <u8>(best.han + x.dora + x.ura + x.aka)
        if x.dora:
            out.yaku_mask |= ONE << Y_DORA
            out.yaku_han[Y_DORA] = <u8>x.dora
        if x.flags & (F_RIICHI | F_DOUBLE_RIICHI):
            out.yaku_mask |= ONE << Y_URA          # tenhou lists ura, even 0, after riichi
            out.yaku_han[Y_URA] = <u8>x.ura
        if x.aka:
            out.yaku_mask |= ONE << Y_AKA
            out.yaku_han[Y_AKA] = <u8>x.aka
    _pay(&x, sit, rules, out)
    return ST_OK


cdef int score_points_by_ura(const HandC* hand, const Situation* sit, const RulesC* rules,
                             int max_ura, i32* points) noexcept nogil:
    cdef int st = _points_by_ura(hand, sit, rules, max_ura, points)
    mj_zero_upper()
    return st


cdef inline int _points_by_ura(const HandC* hand, const Situation* sit, const RulesC* rules,
                               int max_ura, i32* points) noexcept nogil:
    """points[u], u = 0..max_ura: out.points of score_hand with u more ura han (sit.ura_han
    + u); the readings are decomposed and evaluated once, each count only revalues them."""
    cdef Decomp decomps[MAX_DECOMP]
    cdef _Cand cands[MAX_DECOMP]
    cdef _Cand c, best
    cdef _Ctx x
    cdef ScoreOut out
    cdef int n, i, u, best_i, st, base_ura
    for u in range(max_ura + 1):
        points[u] = 0
    n = decompose_hand(hand, sit.win_tile, decomps, MAX_DECOMP)
    if n < 0:
        return n
    if n == 0:
        return ST_NOT_AGARI
    st = _check_situation(hand, sit, rules)
    if st != ST_OK:
        return st
    _prepare(hand, sit, rules, &x)
    for i in range(n):
        _evaluate(&decomps[i], &x, &cands[i])
    base_ura = x.ura
    st = ST_NO_YAKU
    memset(&best, 0, sizeof(_Cand))
    for u in range(max_ura + 1):
        x.ura = base_ura + u
        best_i = -1
        for i in range(n):
            if cands[i].basic == 0:
                continue
            c = cands[i]
            if not (c.yakuman and not c.kazoe):
                c.kazoe = 0
                c.yakuman = 0
                _value(&c, &x, c.mask, c.han, 0)
            if best_i < 0 or _better(&c, &best):
                best = c
                best_i = i
        if best_i < 0:
            return ST_NO_YAKU
        st = ST_OK
        out.players = rules.players
        out.yaku_mask = best.mask
        _fill_han(&out, x.menzen, rules.renhou, rules.yakuman_stacking,
                  best.yakuman > 0 and not best.kazoe)
        out.yakuman = <u8>best.yakuman
        out.basic = best.basic
        _pay(&x, sit, rules, &out)
        points[u] = out.points
    return st


# ---- Python surface ----------------------------------------------------------------------

# The kernel's sizes, for its Python callers.
N_YAKU_IDS = N_YAKU
MAX_FU_ITEM_COUNT = MAX_FU_ITEMS
MAX_INDICATOR_COUNT = MAX_INDICATORS

# The names of the codes (Python data, one place), checked against the kernel's constants.
from mjcore.riichi.names import FU_ITEM_NAMES, LIMIT_NAMES, WAIT_NAMES, YAKU_NAMES
from mjcore.riichi.names import MULTI_YAKUMAN_NAMES as _MULTI_YAKUMAN

if (len(YAKU_NAMES) != N_YAKU or len(FU_ITEM_NAMES) != FU_ROUNDING + 1
        or len(LIMIT_NAMES) != LIMIT_YAKUMAN + 1 or len(WAIT_NAMES) != WAIT_KOKUSHI_13 + 1):
    raise ImportError("mjcore.riichi.names does not match the codes of mjcore/_core/scoring.pxd")

cdef object _decomp_factory = None


cdef tuple _by_seat(const i32* by_rel, int players, int winner):
    """Four values by seat from values by seat relative to the winner (0 past a three-player
    table)."""
    cdef int r, p = players if players == 3 else 4
    d = [0, 0, 0, 0]
    for r in range(p):
        d[(winner + r) % p] = by_rel[r]
    return tuple(d)


cdef class ScoreResult:
    """The score of one winning hand (immutable). Seats in ``deltas``/``payments`` are
    absolute when the call gave absolute seats (``winner=``), else relative to the winner
    (0 = winner, 1 = shimocha, 2 = toimen, 3 = kamicha)."""

    cdef ScoreOut o
    cdef readonly int winner
    """The winner's seat when the call gave ``winner=``, else 0 (seats relative to it)."""
    cdef object _yaku

    @property
    def status(self):
        """Status reason (mjcore.status): "ok", "no_yaku" (complete but no yaku), or why the
        input is invalid ("too_many_copies", "not_complete", ...)."""
        return _reason_of(self.o.status)

    @property
    def status_code(self):
        """Status number: 0 ok, 1 no yaku, negative for invalid input (see ``status``)."""
        return self.o.status

    @property
    def is_win(self):
        """True when the hand scores (status "ok")."""
        return self.o.status == ST_OK

    @property
    def han(self):
        """Total han, dora included (0 for a yakuman hand)."""
        return self.o.han

    @property
    def fu(self):
        """Fu, rounded up to tens (chiitoitsu 25; 0 for kokushi)."""
        return self.o.fu

    @property
    def yaku(self):
        """Tuple of Yaku(id, name, name_ja, han) in tenhou id order; yakuman entries have han
        13 per yakuman (26 for a double). Dora and aka appear as ids 52/54 when counted; ura
        dora (53) is listed whenever the winner is in riichi, with 0 han if none (as tenhou.net
        lists it)."""
        cdef int i
        if self._yaku is None:
            items = []
            for i in range(N_YAKU):
                if self.o.yaku_mask & (ONE << i):
                    han = self.o.yaku_han[i]
                    if 36 <= i < 52 and self.o.yakuman and not self.o.kazoe:
                        han *= 13
                    items.append(Yaku(i, YAKU_NAMES[i][0], YAKU_NAMES[i][1], han))
            self._yaku = tuple(items)
        return self._yaku

    @property
    def yaku_mask(self):
        """Bit ``i`` set for each tenhou yaku id ``i`` the hand has (see ``yaku``)."""
        return self.o.yaku_mask

    @property
    def yaku_han(self):
        """Han per tenhou yaku id (N_YAKU = 55 entries; yakuman ids hold the multiplier)."""
        return tuple(self.o.yaku_han[i] for i in range(N_YAKU))

    @property
    def dora(self):
        """Han from dora (nukidora included in three-player)."""
        return self.o.dora

    @property
    def ura(self):
        """Han from ura dora."""
        return self.o.ura

    @property
    def aka(self):
        """Han from red fives."""
        return self.o.aka

    @property
    def yakuman(self):
        """Yakuman multiplier (0 = not a yakuman; kazoe yakuman counts 1)."""
        return self.o.yakuman

    @property
    def is_kazoe(self):
        """True for a yakuman reached by counting han (kazoe yakuman)."""
        return bool(self.o.kazoe)

    @property
    def limit(self):
        """Tenhou limit code: 0 none, 1 mangan, 2 haneman, 3 baiman, 4 sanbaiman, 5 yakuman."""
        return self.o.limit

    @property
    def limit_name(self):
        """The limit in words: "", "mangan" ... "sanbaiman", "yakuman", "double yakuman"
        ..., or "kazoe yakuman"."""
        if self.o.limit == LIMIT_YAKUMAN:
            if self.o.kazoe:
                return "kazoe yakuman"
            return _MULTI_YAKUMAN[min(self.o.yakuman, 6) - 1]
        return LIMIT_NAMES[self.o.limit]

    @property
    def basic(self):
        """Basic points: fu x 2^(han + 2), or the limit's basic points."""
        return self.o.basic

    @property
    def points(self):
        """Hand value without honba or riichi sticks (tenhou's ``points``)."""
        return self.o.points

    @property
    def fu_items(self):
        """Itemised fu: tuple of (item, tile, fu); tile is a kind id for sets and pairs,
        the wait name for a wait item, else None."""
        cdef int i
        out = []
        for i in range(self.o.n_fu_items):
            code = self.o.fu_items[i].code
            tile = self.o.fu_items[i].tile
            if code == FU_SET or code == FU_PAIR:
                what = tile
            elif code == FU_WAIT:
                what = WAIT_NAMES[tile]
            else:
                what = None
            out.append(FuEntry(FU_ITEM_NAMES[code], what, self.o.fu_items[i].fu))
        return tuple(out)

    @property
    def deltas(self):
        """Score change per seat (sticks and honba included)."""
        return _by_seat(self.o.delta, self.o.players, self.winner)

    @property
    def payments(self):
        """What each seat pays the winner (honba included; 0 for the winner and non-payers)."""
        return _by_seat(self.o.pay, self.o.players, self.winner)

    @property
    def players(self):
        """3 or 4: the rules' table size (with 3, entry 3 of deltas/payments is 0)."""
        return 3 if self.o.players == 3 else 4

    @property
    def decomposition_index(self):
        """Index of the scored decomposition among the hand's ``n_decompositions``
        readings (the one that scores best; 0 when none has a yaku)."""
        return self.o.decomp_index

    @property
    def n_decompositions(self):
        """Number of ways the hand reads as a winning hand."""
        return self.o.n_decomp

    @property
    def wait(self):
        """The wait of the scored decomposition: ryanmen, kanchan, penchan, shanpon, tanki,
        kokushi or kokushi 13-sided."""
        return WAIT_NAMES[self.o.decomp.wait]

    @property
    def decomposition(self):
        """The scored decomposition (a :class:`mjcore.decomposition.Decomposition`)."""
        global _decomp_factory
        cdef int j
        if _decomp_factory is None:
            from mjcore.decomposition import Decomposition
            _decomp_factory = Decomposition._from_raw
        d = &self.o.decomp
        sets = tuple((d.sets[j].kind, d.sets[j].tile, d.sets[j].concealed, d.sets[j].meld)
                     for j in range(d.n_sets))
        return _decomp_factory((d.form, d.pair, sets, d.wait, d.win_set))

    def to_dict(self):
        """The result as a JSON-ready dict (yaku and fu items as dicts, the decomposition as
        text)."""
        return {
            "is_win": self.is_win, "status": self.status, "han": self.han, "fu": self.fu,
            "yaku": [y._asdict() for y in self.yaku], "dora": self.dora, "ura": self.ura,
            "aka": self.aka, "yakuman": self.yakuman, "limit": self.limit,
            "limit_name": self.limit_name, "basic": self.basic, "points": self.points,
            "fu_items": [f._asdict() for f in self.fu_items], "deltas": list(self.deltas),
            "payments": list(self.payments), "wait": self.wait,
            "decomposition": str(self.decomposition),
            "decomposition_index": self.decomposition_index,
        }

    def __setattr__(self, name, value):
        raise AttributeError("ScoreResult is immutable")

    def __repr__(self):
        if not self.is_win:
            return f"ScoreResult(no win: {self.status})"
        yaku = ", ".join(f"{y.name} {y.han}" for y in self.yaku)
        lim = f" {self.limit_name}" if self.o.limit else ""
        return (f"ScoreResult({self.han} han {self.fu} fu{lim}, {self.points} points; {yaku})")


from collections import namedtuple as _nt

from mjcore.status import reason_of as _reason_of

Yaku = _nt("Yaku", "id name name_ja han")
FuEntry = _nt("FuEntry", "item tile fu")
Yaku.__doc__ = ("One yaku of a score: tenhou ``id``, romaji ``name``, Japanese ``name_ja`` "
                "and its ``han``.")
FuEntry.__doc__ = ("One fu item: ``item`` (base, set, pair, wait, ...), its ``tile`` (a kind "
                   "id for sets and pairs, the wait's name for a wait, else None) and ``fu``.")


cdef int fill_rules(RulesC* r, tuple p) except -1:
    r.kuitan = p[0]
    r.red_fives = p[1]
    r.kazoe = p[2]
    r.kiriage = p[3]
    r.yakuman_stacking = p[4]
    r.renhou = p[5]
    r.double_wind_pair_fu = p[6]
    r.rinshan_tsumo_fu = p[7]
    r.open_pinfu_30fu = p[8]
    r.ryuuiisou_needs_hatsu = p[9]
    r.pao_mask = p[10]
    r.players = p[11]
    r.nukidora = p[12]
    return 0


cdef inline u8 _in_range(int value, int limit) noexcept nogil:
    """value as a u8 when 0 <= value < limit, else 255 (out of range for the kernel)."""
    return <u8>value if 0 <= value < limit else 255


cdef inline void _fill_plain_situation(Situation* s, int win_tile, int flags, int seat_wind,
                                       int round_wind, int from_rel, int pao_rel, int honba,
                                       int riichi_sticks, int kita) noexcept nogil:
    """fill_situation from Python ints, any size: one out of range stays out of range (255,
    pao 100), never wraps into range."""
    fill_situation(s, _in_range(win_tile, 34), <u16>flags, _in_range(seat_wind, 4),
                   _in_range(round_wind, 4), _in_range(from_rel, 4),
                   <i8>pao_rel if -1 <= pao_rel < 4 else 100, <u16>honba, <u16>riichi_sticks,
                   _in_range(kita, 256))


cdef int _fill_indicators(u8* dst, object src) except -1:
    cdef int n = 0
    for t in src:
        if n >= MAX_INDICATORS:
            return MAX_INDICATORS + 1
        dst[n] = <u8>t if 0 <= t < 34 else 255
        n += 1
    return n


def score_raw(counts, melds, int red, int win_tile, int flags, int seat_wind,
              int round_wind, int from_rel, int pao_rel, dora, ura, int honba,
              int riichi_sticks, tuple rules, int winner=0, int kita=0):
    """Score from plain values (see mjcore.riichi.scoring.score for the friendly API).
    Returns a ScoreResult; errors are reported in its ``status`` (negative codes)."""
    cdef HandC h
    cdef Situation s
    cdef RulesC r
    cdef ScoreResult res = ScoreResult.__new__(ScoreResult)
    fill_hand(&h, counts, melds, red)
    fill_rules(&r, rules)
    _fill_plain_situation(&s, win_tile, flags, seat_wind, round_wind, from_rel, pao_rel, honba,
                          riichi_sticks, kita)
    s.n_dora = <u8>_fill_indicators(s.dora_ind, dora)
    s.n_ura = <u8>_fill_indicators(s.ura_ind, ura)
    with nogil:
        score_hand(&h, &s, &r, &res.o)
    res.winner = winner
    return res


cdef int _plain_kinds(u8* dst, object src) except -2:
    """Indicators given as a list/tuple of at most 10 plain ints 0..33 into dst; -1 for
    anything else (the caller then takes the validating path)."""
    cdef Py_ssize_t k, n
    cdef long v
    if type(src) is tuple:
        n = len(<tuple>src)
    elif type(src) is list:
        n = len(<list>src)
    else:
        return -1
    if n > MAX_INDICATORS:
        return -1
    for k in range(n):
        t = src[k]
        if type(t) is not int:
            return -1
        v = t
        if v < 0 or v >= 34:
            return -1
        dst[k] = <u8>v
    return <int>n


def score_plain(bytes counts, melds, int red, int win_tile, int flags, int seat_wind,
                int round_wind, int from_rel, dora, ura, int honba, int riichi_sticks,
                tuple rules, int kita=0):
    """score_raw for the common call (34 count bytes, winner-relative seats, no pao, valid
    winds and tile), or None when an indicator is not a plain kind id."""
    cdef HandC h
    cdef Situation s
    cdef RulesC r
    cdef int nd, nu
    cdef ScoreResult res
    nd = _plain_kinds(s.dora_ind, dora)
    nu = _plain_kinds(s.ura_ind, ura)
    if nd < 0 or nu < 0:
        return None
    res = ScoreResult.__new__(ScoreResult)
    fill_hand(&h, counts, melds, red)
    fill_rules(&r, rules)
    _fill_plain_situation(&s, win_tile, flags, seat_wind, round_wind, from_rel, -1, honba,
                          riichi_sticks, kita)
    s.n_dora = <u8>nd
    s.n_ura = <u8>nu
    with nogil:
        score_hand(&h, &s, &r, &res.o)
    res.winner = 0
    return res


from mjcore._core.level cimport MJCORE_BUILT_LEVEL

BUILT_FOR = MJCORE_BUILT_LEVEL.decode()   # the instruction-set level of this module's code
