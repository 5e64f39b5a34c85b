# cython: language_level=3
"""Chinese classical scoring kernel: every hand of a finished deal, itemised, and the
settlement (chinese-classical.md §11). See classical_scoring.pxd for the contract."""

from libc.string cimport memset, memcpy
cimport cython
from cython.parallel cimport prange
cimport numpy as cnp

from mjcore._core.avx_upper cimport mj_zero_upper
from mjcore._core.types cimport (u8, i8, u16, i16, i32, i64, u64, PackedHand, ST_OK,
                                 ST_BAD_COUNT, ST_BAD_TOTAL, ST_BAD_MELDS, ST_BAD_TILE,
                                 ST_NOT_AGARI, FORMS_CLASSICAL, FORMS_CLASSICAL_PAIRS)
from mjcore._core.decompose cimport (HandC, MeldC, Decomp, decompose_hand, check_hand,
                                     MAX_DECOMP, FORM_STANDARD, FORM_CHIITOITSU, FORM_KOKUSHI,
                                     SET_SEQ, SET_TRIPLET, SET_KAN, MK_CHI, MK_PON,
                                     MK_KAN_OPEN, MK_KAN_CLOSED, MK_KAN_ADDED)
from mjcore._core.shanten cimport pack_counts, advance_forms

cnp.import_array()

cdef extern from *:
    int __builtin_ctzll(unsigned long long x) nogil
    int __builtin_popcount(unsigned int x) nogil

# Item names in ItemCode order (the Python layer reads this one table).
ITEM_NAMES = (
    "set", "pair", "mahjong", "seven_pairs", "bonus", "from_wall", "only_place",
    "fishing_eyes", "dragon_set", "own_wind_set", "prevailing_wind_set", "little_three_dragons",
    "big_three_dragons", "little_four_winds", "big_four_winds", "three_concealed_pungs",
    "own_bonus", "own_flower_and_season", "all_four_flowers", "all_four_seasons",
    "no_score_hand", "no_chows", "concealed_hand", "semi_concealed_hand",
    "one_suit_with_honours", "one_suit_only", "all_majors", "loose_tile", "last_tile",
    "last_discard", "robbing_kong", "original_call", "heavens_blessing", "earths_blessing",
    "thirteen_unique_wonders", "nine_gates", "wriggling_snake", "buried_treasure",
    "concealed_clear_suit", "four_kongs", "three_great_scholars", "four_blessings",
    "all_honours", "heads_and_tails", "imperial_jade", "kong_upon_kong", "plum_blossom",
    "catching_the_moon", "carrying_pole", "thirteenth_win",
)
assert len(ITEM_NAMES) == N_ITEM_CODES

DEF LIMIT_PLUM = 1
DEF LIMIT_MOON = 2
DEF LIMIT_POLE = 4
DEF LIMIT_JADE = 8
DEF LIMIT_13TH = 16
DEF LIMIT_SNAKE = 32


cdef inline u64 _load8(const u8* p) noexcept nogil:
    cdef u64 w
    memcpy(&w, p, 8)
    return w


cdef u64 LO7 = 0x7B7B7B7B7B7B7B7BULL    # a byte above 4 sets its top bit when this is added
cdef u64 LO3 = 0x7D7D7D7D7D7D7D7DULL    # ... a byte of 3 or more
cdef u64 LO2 = 0x7E7E7E7E7E7E7E7EULL    # ... a byte of 2 or more
cdef u64 HI = 0x8080808080808080ULL
cdef u64 BYTE_SUM = 0x0101010101010101ULL
cdef u64 LO3_2 = 0x7E7E7E7E7E7D7D7DULL   # kinds 24-26 held 3+ times, 27-31 held 2+ times


cdef int fill_rules(ClassicalRulesC* r, object params) except -1:
    cdef i32* f = <i32*>r
    cdef int n = sizeof(ClassicalRulesC) // sizeof(i32), i
    if len(params) != n:
        raise ValueError(f"expected {n} scoring parameters, got {len(params)}")
    for i in range(n):
        f[i] = <i32>params[i]
    return 0


cdef inline bint _major(int k) noexcept nogil:
    return k >= 27 or k % 9 == 0 or k % 9 == 8


cdef inline void _add(PlayerScoreC* p, int code, int tile, int flags, int value) noexcept nogil:
    cdef ItemC* it
    if p.n_items >= MAX_ITEMS:
        return
    it = &p.items[p.n_items]
    it.code = <u8>code
    it.tile = <u8>tile
    it.flags = <u8>flags
    it.value = <i16>value
    p.n_items += 1
    if code < DB_DRAGON_SET:
        p.points += value
    elif code < LM_HEAVEN:
        p.doubles += value


# A hand reduced to what scoring reads: its sets and pairs with their concealment.
cdef struct ShapeC:
    u8 n_sets
    u8 set_tile[8]
    u8 set_kind[8]          # SET_SEQ / SET_TRIPLET / SET_KAN
    u8 set_flags[8]         # SF_*
    u8 n_pairs
    u8 pair_tile[7]
    u8 pair_flags[7]        # SF_CONCEALED


cdef inline int _set_points(int kind, int tile, int flags) noexcept nogil:
    cdef int v
    if kind == SET_SEQ:
        return 0
    v = 4 if _major(tile) else 2
    if kind == SET_KAN:
        v *= 4
    if flags & SF_CONCEALED:
        v *= 2
    return v


cdef void _every_hand(const ShapeC* s, int seat, int prevailing, int bonus,
                      const ClassicalRulesC* r, bint kong3, PlayerScoreC* p) noexcept nogil:
    """Points of sets, pairs and bonus tiles, and the doubles of §11.5 (every hand)."""
    cdef int i, t, f, v, n_bonus, dragon_sets = 0, wind_sets = 0, dragon_pairs = 0
    cdef int wind_pairs = 0, concealed_sets = 0
    cdef int own = 27 + seat, prev = 27 + prevailing
    for i in range(s.n_sets):
        t = s.set_tile[i]
        if s.set_kind[i] == SET_SEQ:
            continue
        f = s.set_flags[i]
        _add(p, IT_SET, t, f, _set_points(s.set_kind[i], t, f))
        if f & SF_CONCEALED or (kong3 and f & SF_CLAIMED_KONG):
            concealed_sets += 1
    for i in range(s.n_pairs):
        t = s.pair_tile[i]
        f = s.pair_flags[i]
        if t >= 31:
            _add(p, IT_PAIR, t, f | PAIR_DRAGON, 2)
            dragon_pairs += 1
        elif t >= 27:
            wind_pairs += 1
            v = 0
            if t == own:
                v += 2
                f |= PAIR_OWN
            if t == prev:
                v += 2
                f |= PAIR_PREVAILING
            if v:
                _add(p, IT_PAIR, t, f, v)
    n_bonus = __builtin_popcount(<unsigned int>bonus)
    if n_bonus:
        _add(p, IT_BONUS, n_bonus, 0, 4 * n_bonus)
    # doubles
    for i in range(s.n_sets):
        t = s.set_tile[i]
        if s.set_kind[i] == SET_SEQ:
            continue
        if t >= 31:
            _add(p, DB_DRAGON_SET, t, s.set_flags[i], 1)
            dragon_sets += 1
        elif t >= 27:
            wind_sets += 1
            if t == own:
                _add(p, DB_OWN_WIND_SET, t, s.set_flags[i], 1)
            if t == prev:
                _add(p, DB_PREVAILING_WIND_SET, t, s.set_flags[i], 1)
    if dragon_sets == 2 and dragon_pairs:
        _add(p, DB_LITTLE_DRAGONS, 255, 0, 1)
    if dragon_sets == 3:
        _add(p, DB_BIG_DRAGONS, 255, 0, 2)
    if wind_sets == 3 and wind_pairs:
        _add(p, DB_LITTLE_WINDS, 255, 0, 1)
    if wind_sets == 4:
        _add(p, DB_BIG_WINDS, 255, 0, 2)
    if concealed_sets >= 3:
        _add(p, DB_THREE_CONCEALED, 255, 0, 1)
    if r.own_each_doubles:
        if bonus >> seat & 1:
            _add(p, DB_OWN_BONUS_EACH, seat, 0, r.own_each_doubles)
        if bonus >> (seat + 4) & 1:
            _add(p, DB_OWN_BONUS_EACH, seat + 4, 0, r.own_each_doubles)
    if r.own_both_doubles and bonus >> seat & 1 and bonus >> (seat + 4) & 1:
        _add(p, DB_OWN_BONUS_BOTH, 255, 0, r.own_both_doubles)
    if r.bouquet_doubles and bonus & 15 == 15:
        _add(p, DB_ALL_FLOWERS, 255, 0, r.bouquet_doubles)
    if r.bouquet_doubles and bonus & 240 == 240:
        _add(p, DB_ALL_SEASONS, 255, 0, r.bouquet_doubles)


cdef void _finish(PlayerScoreC* p, const ClassicalRulesC* r) noexcept nogil:
    cdef int d = p.doubles
    if p.limit_hand:
        p.uncapped = r.limit
        p.score = r.limit
        return
    if d > 40:
        d = 40
    p.uncapped = <i64>p.points << d
    if r.no_limit:
        p.score = <i32>(p.uncapped if p.uncapped < NO_LIMIT_CEILING else NO_LIMIT_CEILING)
    else:
        p.score = <i32>(p.uncapped if p.uncapped < r.limit else r.limit)


cdef void _meld_shape(const HandC* h, ShapeC* s, u8* tiles) noexcept nogil:
    """The declared sets of a hand into s (s.n_sets = 0, s.n_pairs = 0 first); their tiles
    are added to tiles unless it is NULL."""
    cdef int k, t
    cdef const MeldC* m
    s.n_sets = 0
    s.n_pairs = 0
    for k in range(h.n_melds):
        m = &h.melds[k]
        t = m.tile
        if m.kind == MK_CHI:
            s.set_kind[k] = SET_SEQ
            s.set_flags[k] = 0
            if tiles != NULL:
                tiles[t] += 1
                tiles[t + 1] += 1
                tiles[t + 2] += 1
        elif m.kind == MK_PON:
            s.set_kind[k] = SET_TRIPLET
            s.set_flags[k] = 0
            if tiles != NULL:
                tiles[t] += 3
        else:
            s.set_kind[k] = SET_KAN
            if tiles != NULL:
                tiles[t] += 4
            if m.kind == MK_KAN_CLOSED:
                s.set_flags[k] = SF_KONG | SF_CONCEALED
            elif m.kind == MK_KAN_ADDED:
                s.set_flags[k] = SF_KONG | SF_ADDED
            else:
                s.set_flags[k] = SF_KONG | SF_CLAIMED_KONG
        s.set_tile[k] = <u8>t
    s.n_sets = h.n_melds


cdef void _score_loser(const HandC* h, int seat, int prevailing, int bonus,
                       const ClassicalRulesC* r, PlayerScoreC* p) noexcept nogil:
    """A losing hand: its declared sets, then the concealed tiles arranged for the best score:
    every kind held three or more times a concealed pung, every honour pair a pair (chows
    and other pairs score nothing, so this is the best arrangement)."""
    cdef ShapeC s
    cdef int t, c
    cdef u64 mask
    cdef int base, word
    _meld_shape(h, &s, NULL)
    # only kinds held 3+ times (suits) or 2+ times (honours) score: visit just those
    for word in range(5):
        base = word * 8 if word < 4 else 26
        mask = _load8(h.counts + base)
        if word < 3:
            mask = (mask + LO3) & HI
        elif word == 3:
            mask = (mask + LO3_2) & HI
        else:
            mask = (mask + LO2) & HI & 0x8080000000000000ULL    # kinds 32, 33
        while mask:
            t = base + (__builtin_ctzll(mask) >> 3)
            mask &= mask - 1
            c = h.counts[t]
            if c >= 3 and s.n_sets < 8:
                s.set_tile[s.n_sets] = <u8>t
                s.set_kind[s.n_sets] = SET_TRIPLET
                s.set_flags[s.n_sets] = SF_CONCEALED
                s.n_sets += 1
            elif c == 2 and s.n_pairs < 7:
                s.pair_tile[s.n_pairs] = <u8>t
                s.pair_flags[s.n_pairs] = SF_CONCEALED
                s.n_pairs += 1
    p.n_items = 0
    p.points = 0
    p.doubles = 0
    p.limit_hand = 0
    _every_hand(&s, seat, prevailing, bonus, r, r.kong_has_3_types, p)
    _finish(p, r)


cdef inline int _suits_mask(const u8* tiles) noexcept nogil:
    """bit 0..2: suits present, bit 3: honours present, bit 4: a minor (2-8) tile present,
    bit 5: a terminal present. tiles has 34 counts (40 bytes readable)."""
    cdef u64 seven = 0x00FFFFFFFFFFFFFFULL
    cdef int m = 0
    if _load8(tiles) | tiles[8]:
        m |= 1
    if _load8(tiles + 9) | tiles[17]:
        m |= 2
    if _load8(tiles + 18) | tiles[26]:
        m |= 4
    if _load8(tiles + 26) >> 8:
        m |= 8
    if (_load8(tiles + 1) | _load8(tiles + 10) | _load8(tiles + 19)) & seven:
        m |= 16
    if tiles[0] | tiles[8] | tiles[9] | tiles[17] | tiles[18] | tiles[26]:
        m |= 32
    return m


cdef bint _nine_gates_calling(const HandC* h, int win) noexcept nogil:
    """13 tiles before the winning tile are 1112345678999 of one suit (no sets declared)."""
    cdef int base, i, c
    cdef u8 pattern[9]
    if h.n_melds or win >= 27:
        return False
    base = win - win % 9
    pattern[:] = [3, 1, 1, 1, 1, 1, 1, 1, 3]
    for i in range(34):
        c = h.counts[i] - (1 if i == win else 0)
        if base <= i < base + 9:
            if c != pattern[i - base]:
                return False
        elif c:
            return False
    return True


cdef bint _wriggling_snake(const HandC* h) noexcept nogil:
    """1112345678999 plus a 2, 5 or 8, all of one suit (Bradfield's definition)."""
    cdef int base, i, extra = -1
    cdef u8 pattern[9]
    if h.n_melds:
        return False
    pattern[:] = [3, 1, 1, 1, 1, 1, 1, 1, 3]
    for base in range(0, 27, 9):
        if h.counts[base] != 3:
            continue
        extra = -1
        for i in range(34):
            if base <= i < base + 9:
                if h.counts[i] == pattern[i - base] + 1 and extra < 0:
                    extra = i - base
                elif h.counts[i] != pattern[i - base]:
                    extra = -2
                    break
            elif h.counts[i]:
                extra = -2
                break
        if extra in (1, 4, 7):
            return True
    return False


cdef struct WinnerC:
    # what does not depend on the reading of the winner's hand
    ShapeC melds            # the declared sets
    u8 all_tiles[40]        # every tile of the hand (34 kinds; 40 so 8-byte loads stay inside)
    int suits               # _suits_mask of all_tiles
    bint exposed_meld       # a declared set that is not concealed (for the concealed doubles)
    bint melds_concealed    # every declared set is a concealed kong
    bint discard            # won on a discard (or a robbed kong)
    bint only_place
    PlayerScoreC fixed      # the limit hands that hold for every reading


cdef void _fixed_limits(const DealC* d, const HandC* h, WinnerC* w,
                        const ClassicalRulesC* r) noexcept nogil:
    """Limit hands decided by the tiles and the circumstances, whatever the reading."""
    cdef int t, fl = d.win_flags, win = d.win_tile, lf = r.limit_flags, sm = w.suits
    cdef bint only_jade = True
    cdef PlayerScoreC* p = &w.fixed
    p.n_items = 0
    p.points = 0
    p.doubles = 0
    for t in range(34):
        if w.all_tiles[t] and not (t == 32 or t == 19 or t == 20 or t == 21 or t == 23
                                   or t == 25):
            only_jade = False
            break
    if fl & WIN_HEAVEN:
        _add(p, LM_HEAVEN, 255, 0, 1)
    if fl & WIN_EARTH:
        _add(p, LM_EARTH, 255, 0, 1)
    if _nine_gates_calling(h, win):
        _add(p, LM_NINE_GATES, 255, 0, 1)
    if lf & LIMIT_SNAKE and _wriggling_snake(h):
        _add(p, LM_WRIGGLING_SNAKE, 255, 0, 1)
    if (sm & 7) in (1, 2, 4) and not sm & 8 and not w.exposed_meld and not w.discard:
        _add(p, LM_CONCEALED_CLEAR_SUIT, 255, 0, 1)
    if sm & 8 and not sm & 7:
        _add(p, LM_ALL_HONOURS, 255, 0, 1)
    if not sm & 8 and not sm & 16 and sm & 32:
        _add(p, LM_HEADS_TAILS, 255, 0, 1)
    if lf & LIMIT_JADE and only_jade:
        _add(p, LM_IMPERIAL_JADE, 255, 0, 1)
    if fl & WIN_KONG_ON_KONG:
        _add(p, LM_KONG_UPON_KONG, 255, 0, 1)
    if lf & LIMIT_PLUM and fl & WIN_LOOSE and win == 13:
        _add(p, LM_PLUM_BLOSSOM, 255, 0, 1)
    if lf & LIMIT_MOON and win == 9 and (fl & WIN_LAST_TILE or (
            r.moon_on_last_discard and fl & WIN_LAST_DISCARD)):
        _add(p, LM_MOON, 255, 0, 1)
    if lf & LIMIT_POLE and fl & WIN_ROBBED and win == 19:
        _add(p, LM_CARRYING_POLE, 255, 0, 1)
    if lf & LIMIT_13TH and fl & WIN_THIRTEENTH:
        _add(p, LM_THIRTEENTH_WIN, 255, 0, 1)


cdef void _reading_limits(const ShapeC* s, int form, bint all_concealed_sets,
                          const ClassicalRulesC* r, PlayerScoreC* p) noexcept nogil:
    """Limit hands that depend on how the hand is read into sets."""
    cdef int i, t, pungs = 0, kongs = 0, dragon_sets = 0, wind_sets = 0, chows = 0
    for i in range(s.n_sets):
        t = s.set_tile[i]
        if s.set_kind[i] == SET_SEQ:
            chows += 1
            continue
        pungs += 1
        if s.set_kind[i] == SET_KAN:
            kongs += 1
        if t >= 31:
            dragon_sets += 1
        elif t >= 27:
            wind_sets += 1
    if form == FORM_KOKUSHI:
        _add(p, LM_THIRTEEN_WONDERS, 255, 0, 1)
    if form == FORM_STANDARD and pungs == 4 and all_concealed_sets:
        _add(p, LM_BURIED_TREASURE, 255, 0, 1)
    if kongs == 4:
        _add(p, LM_FOUR_KONGS, 255, 0, 1)
    if dragon_sets == 3 and not (r.scholars_need_no_chows and chows):
        _add(p, LM_THREE_SCHOLARS, 255, 0, 1)
    if wind_sets == 4:
        _add(p, LM_FOUR_BLESSINGS, 255, 0, 1)


cdef void _score_reading(const DealC* d, const HandC* h, const WinnerC* w, const Decomp* dc,
                         const ClassicalRulesC* r, PlayerScoreC* p) noexcept nogil:
    """The winner's score for one reading of the hand (dc; NULL = seven pairs)."""
    cdef ShapeC s = w.melds
    cdef int i, k, t, f, win = d.win_tile, seat = d.winner, fl = d.win_flags
    cdef int form = dc.form if dc != NULL else FORM_CHIITOITSU
    cdef bint discard = w.discard
    cdef bint all_concealed_sets = w.melds_concealed, chow = False
    cdef int sm = w.suits, n_chows = 0
    p.n_items = 0
    p.points = 0
    p.doubles = 0
    p.limit_hand = 0
    if form == FORM_STANDARD:
        for i in range(h.n_melds, dc.n_sets):
            t = dc.sets[i].tile
            f = SF_CONCEALED
            if i == dc.win_set and discard:
                f = 0
                all_concealed_sets = False
            s.set_tile[s.n_sets] = <u8>t
            s.set_kind[s.n_sets] = dc.sets[i].kind
            s.set_flags[s.n_sets] = <u8>f
            s.n_sets += 1
        s.pair_tile[0] = dc.pair
        s.pair_flags[0] = 0 if (dc.win_set < 0 and discard) else SF_CONCEALED
        s.n_pairs = 1
        if dc.win_set < 0 and discard and not r.buried_treasure_discard_pair:
            all_concealed_sets = False
        for i in range(s.n_sets):
            if s.set_kind[i] == SET_SEQ:
                chow = True
                n_chows += 1
    elif form == FORM_CHIITOITSU:
        for t in range(34):
            k = h.counts[t]
            while k >= 2:
                s.pair_tile[s.n_pairs] = <u8>t
                s.pair_flags[s.n_pairs] = 0 if (discard and t == win and k == 2) else SF_CONCEALED
                s.n_pairs += 1
                k -= 2
    # limit hands first: a limit hand scores exactly the limit, nothing else
    if w.fixed.n_items:
        _copy_score(p, &w.fixed)
    _reading_limits(&s, form, all_concealed_sets, r, p)
    if p.n_items:
        p.limit_hand = 1
        _finish(p, r)
        return
    _add(p, IT_MAHJONG, 255, 0, r.mahjong_points)
    if form == FORM_CHIITOITSU:
        _add(p, IT_SEVEN_PAIRS, 255, 0, r.seven_pairs_points)
    _every_hand(&s, seat, d.prevailing, d.seats[seat].bonus, r, r.kong_has_3_types, p)
    if not discard and (r.loose_tile_wall_points or not fl & WIN_LOOSE):
        _add(p, IT_FROM_WALL, 255, 0, 2)
    if w.only_place:
        _add(p, IT_ONLY_PLACE, 255, 0, 2)
    if form == FORM_STANDARD and dc.win_set < 0:
        _add(p, IT_FISHING_EYES, win, 0, 4 if _major(win) else 2)
    # winner-only doubles (§11.6)
    if form == FORM_STANDARD:
        t = dc.pair
        if n_chows == 4 and not (t >= 31 or t == 27 + seat or t == 27 + d.prevailing):
            _add(p, DB_NO_SCORE, 255, 0, 1)
        if not chow:
            _add(p, DB_NO_CHOWS, 255, 0, 1)
    if not w.exposed_meld and not discard and r.concealed_fully_doubles:
        _add(p, DB_CONCEALED, 255, 0, r.concealed_fully_doubles)
    if not w.exposed_meld and discard and r.concealed_almost_doubles:
        _add(p, DB_SEMI_CONCEALED, 255, 0, r.concealed_almost_doubles)
    if (sm & 7) in (1, 2, 4):
        if sm & 8:
            _add(p, DB_ONE_SUIT_HONOURS, 255, 0, 1)
        else:
            _add(p, DB_ONE_SUIT, 255, 0, 3)
    if not sm & 16:
        _add(p, DB_ALL_MAJORS, 255, 0, 1)
    if fl & WIN_LOOSE:
        _add(p, DB_LOOSE_TILE, 255, 0, 1)
    if fl & WIN_LAST_TILE:
        _add(p, DB_LAST_TILE, 255, 0, 1)
    if fl & WIN_LAST_DISCARD:
        _add(p, DB_LAST_DISCARD, 255, 0, 1)
    if fl & WIN_ROBBED:
        _add(p, DB_ROBBING, 255, 0, 1)
    if fl & WIN_ORIGINAL_CALL and r.original_call:
        _add(p, DB_ORIGINAL_CALL, 255, 0, 1)
    _finish(p, r)


cdef bint _any_pairs(const HandC* h) noexcept nogil:
    cdef int t, n = 0
    if h.n_melds:
        return False
    for t in range(34):
        if h.counts[t] & 1:
            return False
        n += h.counts[t]
    return n == 14


cdef int _waits_mask(const HandC* h, int win, bint seven_pairs, u64* mask) noexcept nogil:
    """The kinds that complete the hand without its winning tile (classical forms), from the
    shared waits kernel."""
    cdef u8 counts[34]
    cdef PackedHand ph
    cdef int rc
    cdef u64 m = 0
    memcpy(counts, h.counts, 34)
    counts[win] -= 1
    if pack_counts(counts, &ph) < 0:
        return ST_BAD_COUNT
    rc = advance_forms(&ph, h.n_melds, FORMS_CLASSICAL_PAIRS if seven_pairs else FORMS_CLASSICAL,
                       &m)
    if rc < 0:
        return rc
    mask[0] = m if rc == 0 else 0
    return 0


cdef inline void _copy_score(PlayerScoreC* dst, const PlayerScoreC* src) noexcept nogil:
    dst.points = src.points
    dst.doubles = src.doubles
    dst.uncapped = src.uncapped
    dst.score = src.score
    dst.limit_hand = src.limit_hand
    dst.n_items = src.n_items
    memcpy(dst.items, src.items, src.n_items * sizeof(ItemC))


cdef inline bint _better(const PlayerScoreC* a, const PlayerScoreC* b) noexcept nogil:
    if a.score != b.score:
        return a.score > b.score
    return a.uncapped > b.uncapped


cdef int _score_winner(const DealC* d, const ClassicalRulesC* r, PlayerScoreC* best) noexcept nogil:
    cdef const HandC* h = &d.seats[d.winner].hand
    cdef Decomp dc[MAX_DECOMP]
    cdef PlayerScoreC cand
    cdef WinnerC w
    cdef int n, j, k, t, ws, win = d.win_tile, claim = d.win_claim
    cdef bint found = False, pairs
    cdef u64 waits = 0, avail
    n = decompose_hand(h, win, dc, MAX_DECOMP)
    if n < 0:
        return n
    pairs = r.seven_pairs and _any_pairs(h)
    if n == 0 and not pairs:
        return ST_NOT_AGARI
    j = _waits_mask(h, win, r.seven_pairs, &waits)
    if j < 0:
        return j
    avail = (waits & ~d.dead_kinds) | ((<u64>1) << win)
    w.only_place = avail == ((<u64>1) << win)
    w.discard = not (d.win_flags & WIN_SELF_DRAWN)
    memcpy(w.all_tiles, h.counts, 34)
    memset(w.all_tiles + 34, 0, 6)
    _meld_shape(h, &w.melds, w.all_tiles)
    w.exposed_meld = False
    w.melds_concealed = True
    for k in range(h.n_melds):
        t = h.melds[k].kind
        if t != MK_KAN_CLOSED and not (r.kong_has_3_types and t == MK_KAN_OPEN):
            w.exposed_meld = True
        if t != MK_KAN_CLOSED:
            w.melds_concealed = False
    w.suits = _suits_mask(w.all_tiles)
    _fixed_limits(d, h, &w, r)
    for j in range(n):
        if dc[j].form == FORM_CHIITOITSU:
            continue
        if d.win_pair != 255 and dc[j].form == FORM_STANDARD and dc[j].pair != d.win_pair:
            continue
        if dc[j].form == FORM_STANDARD and claim != CLAIM_ANY:
            ws = dc[j].win_set
            if claim == CLAIM_PAIR and ws >= 0:
                continue
            if claim == CLAIM_CHOW and (ws < 0 or dc[j].sets[ws].kind != SET_SEQ):
                continue
            if claim == CLAIM_PUNG and (ws < 0 or dc[j].sets[ws].kind == SET_SEQ):
                continue
        _score_reading(d, h, &w, &dc[j], r, &cand)
        if not found or _better(&cand, best):
            _copy_score(best, &cand)
            found = True
    if pairs:
        _score_reading(d, h, &w, NULL, r, &cand)
        if not found or _better(&cand, best):
            _copy_score(best, &cand)
            found = True
    return ST_OK if found else ST_NOT_AGARI


cdef int _check_deal(const DealC* d) noexcept nogil:
    """Five copies, a bonus tile held twice, bad sets, wrong tile counts, a winner without
    the winning tile; ST_OK or the status."""
    cdef int s, k, t, n, rc, need
    cdef u8 use[40]
    cdef u64 w[5]
    cdef u64 acc[5]
    cdef int seen_bonus = 0
    cdef const HandC* h
    if d.winner < 0 or d.winner > 3 or d.prevailing > 3 or d.win_tile >= 34:
        return ST_BAD_TILE
    acc[0] = acc[1] = acc[2] = acc[3] = acc[4] = 0
    for s in range(4):
        h = &d.seats[s].hand
        if d.seats[s].bonus & seen_bonus:
            return ST_BAD_COUNT
        seen_bonus |= d.seats[s].bonus
        if h.n_melds > 4:
            return ST_BAD_MELDS
        w[0] = _load8(h.counts)
        w[1] = _load8(h.counts + 8)
        w[2] = _load8(h.counts + 16)
        w[3] = _load8(h.counts + 24)
        w[4] = _load8(h.counts + 26) >> 48          # kinds 32, 33
        if ((w[0] + LO7) | (w[1] + LO7) | (w[2] + LO7) | (w[3] + LO7) | (w[4] + LO7)) & HI:
            return ST_BAD_COUNT
        n = <int>(((w[0] + w[1] + w[2] + w[3] + w[4]) * BYTE_SUM) >> 56)
        need = 13 - 3 * h.n_melds + (1 if s == d.winner else 0)
        if n != need and not (d.hidden >> s & 1 and s != d.winner and n < need):
            return ST_BAD_TOTAL
        acc[0] += w[0]
        acc[1] += w[1]
        acc[2] += w[2]
        acc[3] += w[3]
        acc[4] += w[4]
    memcpy(use, acc, 32)
    memcpy(use + 32, &acc[4], 2)
    for s in range(4):
        h = &d.seats[s].hand
        for k in range(h.n_melds):
            t = h.melds[k].tile
            if h.melds[k].kind > MK_KAN_ADDED or t >= 34:
                return ST_BAD_MELDS
            if h.melds[k].kind == MK_CHI:
                if t >= 27 or t % 9 > 6:
                    return ST_BAD_MELDS
                use[t] += 1
                use[t + 1] += 1
                use[t + 2] += 1
            else:
                use[t] += 3 if h.melds[k].kind == MK_PON else 4
    w[0] = _load8(use)
    w[1] = _load8(use + 8)
    w[2] = _load8(use + 16)
    w[3] = _load8(use + 24)
    w[4] = _load8(use + 26) >> 48
    if ((w[0] + LO7) | (w[1] + LO7) | (w[2] + LO7) | (w[3] + LO7) | (w[4] + LO7)) & HI:
        return ST_BAD_COUNT
    if d.seats[d.winner].hand.counts[d.win_tile] == 0:
        return ST_BAD_TILE
    return ST_OK


cdef int score_deal(const DealC* d, const ClassicalRulesC* r, DealScoreC* out) noexcept nogil:
    cdef int st = _score_deal(d, r, out)
    mj_zero_upper()
    return st


cdef inline int _score_deal(const DealC* d, const ClassicalRulesC* r, DealScoreC* out) noexcept nogil:
    cdef int s, a, b, w, rc, m, hi, lo
    cdef i32 amount
    cdef i32 sc[4]
    out.cannon = -1
    memset(out.owed, 0, sizeof(out.owed))
    memset(out.net, 0, sizeof(out.net))
    rc = _check_deal(d)
    if rc < 0:
        return rc
    w = d.winner
    for s in range(4):
        if s == w:
            rc = _score_winner(d, r, &out.players[s])
            if rc < 0:
                return rc
        else:
            _score_loser(&d.seats[s].hand, s, d.prevailing, d.seats[s].bonus, r,
                         &out.players[s])
        sc[s] = out.players[s].score
    # §11.8 settlement
    for s in range(4):
        if s == w:
            continue
        m = 2 if r.east_doubles and (s == 0 or w == 0) else 1
        if r.discarder_pays_double and (d.win_flags & WIN_SELF_DRAWN or s == d.discarder):
            m *= 2
        out.owed[s][w] = sc[w] * m
    if r.cannon_liability and d.cannon >= 0 and d.cannon != w:
        # the cannon-letter pays everybody's debt to the winner; losers do not settle
        out.cannon = d.cannon
        for s in range(4):
            if s != w:
                out.net[d.cannon] -= out.owed[s][w]
                out.net[w] += out.owed[s][w]
        return ST_OK
    if r.losers_settle:
        for a in range(4):
            for b in range(a + 1, 4):
                if a == w or b == w or sc[a] == sc[b]:
                    continue
                hi, lo = (a, b) if sc[a] > sc[b] else (b, a)
                amount = sc[hi] - sc[lo]
                if r.east_doubles and (a == 0 or b == 0):
                    amount *= 2
                out.owed[lo][hi] = amount
    for a in range(4):
        for b in range(4):
            out.net[a] -= out.owed[a][b]
            out.net[b] += out.owed[a][b]
    return ST_OK


# ------------------------------------------------------------------------------------------
# Python entry points

cdef int _fill_deal(DealC* d, object seats, int prevailing, int winner, int win_tile,
                    int win_claim, int win_pair, int win_flags, int discarder, int cannon,
                    u64 dead, int hidden) except -1:
    cdef int s, i, k
    memset(d, 0, sizeof(DealC))
    if len(seats) != 4:
        raise ValueError("expected 4 seats")
    for s in range(4):
        counts, melds, bonus = seats[s]
        if len(counts) != 34:
            raise ValueError("counts must have 34 entries")
        for i in range(34):
            v = counts[i]
            d.seats[s].hand.counts[i] = <u8>(v if 0 <= v <= 4 else 5)
        k = 0
        for mk in melds:
            if k >= 4:
                d.seats[s].hand.n_melds = 5
                break
            d.seats[s].hand.melds[k].kind = <u8>mk[0]
            d.seats[s].hand.melds[k].tile = <u8>mk[1]
            k += 1
        else:
            d.seats[s].hand.n_melds = <u8>k
        d.seats[s].bonus = <u8>bonus
    d.prevailing = <u8>prevailing
    d.winner = <i8>winner
    d.win_tile = <u8>win_tile
    d.win_claim = <u8>win_claim
    d.win_pair = <u8>win_pair
    d.win_flags = <u16>win_flags
    d.discarder = <i8>discarder
    d.cannon = <i8>cannon
    d.dead_kinds = dead
    d.hidden = <u8>hidden
    return 0


def score_deal_raw(seats, int prevailing, int winner, int win_tile, int win_claim,
                   int win_pair, int win_flags, int discarder, int cannon, u64 dead_kinds,
                   params, int hidden=0):
    """Score one deal. seats: 4 x (counts[34], melds [(kind, tile)], bonus bits).
    Returns (status, players, owed, net, cannon); players are
    (points, doubles, uncapped, score, limit_hand, items) with items (code, tile, flags, value)."""
    cdef DealC d
    cdef ClassicalRulesC r
    cdef DealScoreC out
    cdef int rc, s, i
    fill_rules(&r, params)
    if not (0 <= win_claim <= 3 and (0 <= win_pair < 34 or win_pair == 255)
            and 0 <= win_flags < 1024 and 0 <= winner <= 3 and 0 <= prevailing <= 3
            and 0 <= win_tile < 34 and -1 <= discarder <= 3 and -1 <= cannon <= 3):
        return -4, None, None, None, -1
    _fill_deal(&d, seats, prevailing, winner, win_tile, win_claim, win_pair, win_flags,
               discarder, cannon, dead_kinds, hidden)
    with nogil:
        rc = score_deal(&d, &r, &out)
    if rc < 0:
        return rc, None, None, None, -1
    players = []
    for s in range(4):
        p = &out.players[s]
        items = tuple((p.items[i].code, p.items[i].tile, p.items[i].flags, p.items[i].value)
                      for i in range(p.n_items))
        players.append((p.points, p.doubles, p.uncapped, p.score, p.limit_hand, items))
    owed = tuple(tuple(out.owed[s][i] for i in range(4)) for s in range(4))
    return 0, players, owed, tuple(out.net[s] for s in range(4)), out.cannon


@cython.boundscheck(False)
@cython.wraparound(False)
def score_deals(const u8[:, :, ::1] counts, const u8[:, :, :, ::1] melds,
                const u8[:, ::1] n_melds, const u8[:, ::1] bonus, const i16[:, ::1] info,
                const u64[::1] dead_kinds, params, i32[:, ::1] score, i32[:, ::1] points,
                i32[:, ::1] doubles, u8[:, ::1] limit_hand, i32[:, ::1] net,
                i8[::1] status, int n_threads=1):
    """Batch kernel: row i is one deal. counts (N,4,34); melds (N,4,4,2) (kind, tile);
    n_melds (N,4); bonus (N,4) bits; info (N,8): prevailing, winner, win_tile, win_claim,
    win_flags, discarder, cannon, win_pair (255 = best reading); dead_kinds (N,).
    Outputs (N,4) and status (N,)."""
    cdef ClassicalRulesC r
    cdef Py_ssize_t n = counts.shape[0], i
    fill_rules(&r, params)
    if (counts.shape[1] != 4 or counts.shape[2] != 34 or melds.shape[0] != n
            or melds.shape[1] != 4 or melds.shape[2] != 4 or melds.shape[3] != 2
            or n_melds.shape[0] != n or n_melds.shape[1] != 4 or bonus.shape[0] != n
            or bonus.shape[1] != 4 or info.shape[0] != n or info.shape[1] != 8
            or dead_kinds.shape[0] != n):
        raise ValueError("array shapes do not match")
    if (score.shape[0] != n or points.shape[0] != n or doubles.shape[0] != n
            or limit_hand.shape[0] != n or net.shape[0] != n or score.shape[1] != 4
            or points.shape[1] != 4 or doubles.shape[1] != 4 or limit_hand.shape[1] != 4
            or net.shape[1] != 4):
        raise ValueError("output arrays must be (N, 4)")
    if status.shape[0] != n:
        raise ValueError("status must be (N,)")
    if n_threads < 1:
        n_threads = 1
    for i in prange(n, nogil=True, num_threads=n_threads, schedule="static"):
        _deal_row(counts, melds, n_melds, bonus, info, dead_kinds, i, &r, score, points,
                  doubles, limit_hand, net, status)


@cython.boundscheck(False)
@cython.wraparound(False)
cdef void _deal_row(const u8[:, :, ::1] counts, const u8[:, :, :, ::1] melds,
                    const u8[:, ::1] n_melds, const u8[:, ::1] bonus, const i16[:, ::1] info,
                    const u64[::1] dead_kinds, Py_ssize_t i, const ClassicalRulesC* r,
                    i32[:, ::1] score, i32[:, ::1] points, i32[:, ::1] doubles,
                    u8[:, ::1] limit_hand, i32[:, ::1] net, i8[::1] status) noexcept nogil:
    cdef DealC d
    cdef DealScoreC out
    cdef int s, k, rc
    for s in range(4):
        memcpy(d.seats[s].hand.counts, &counts[i, s, 0], 34)
        d.seats[s].hand.n_melds = n_melds[i, s]
        d.seats[s].hand.red = 0
        for k in range(4):
            d.seats[s].hand.melds[k].kind = melds[i, s, k, 0]
            d.seats[s].hand.melds[k].tile = melds[i, s, k, 1]
            d.seats[s].hand.melds[k].red = 0
            d.seats[s].hand.melds[k].from_rel = 0
        d.seats[s].bonus = bonus[i, s]
    d.prevailing = <u8>info[i, 0]
    d.winner = <i8>info[i, 1]
    d.win_tile = <u8>info[i, 2]
    d.win_claim = <u8>info[i, 3]
    d.win_flags = <u16>info[i, 4]
    d.discarder = <i8>info[i, 5]
    d.cannon = <i8>info[i, 6]
    d.win_pair = <u8>info[i, 7]
    d.dead_kinds = dead_kinds[i]
    d.hidden = 0
    if info[i, 0] < 0 or info[i, 0] > 3 or info[i, 1] < 0 or info[i, 1] > 3 or \
            info[i, 2] < 0 or info[i, 2] > 33 or info[i, 3] < 0 or info[i, 3] > 3 or \
            info[i, 4] < 0 or info[i, 4] > 1023 or info[i, 5] < -1 or info[i, 5] > 3 or \
            info[i, 6] < -1 or info[i, 6] > 3 or \
            not (0 <= info[i, 7] < 34 or info[i, 7] == 255):
        status[i] = ST_BAD_TILE
        return
    rc = score_deal(&d, r, &out)
    status[i] = <i8>rc
    for s in range(4):
        if rc < 0:
            score[i, s] = 0
            points[i, s] = 0
            doubles[i, s] = 0
            limit_hand[i, s] = 0
            net[i, s] = 0
        else:
            score[i, s] = out.players[s].score
            points[i, s] = out.players[s].points
            doubles[i, s] = out.players[s].doubles
            limit_hand[i, s] = out.players[s].limit_hand
            net[i, s] = out.net[s]


from mjcore._core.level cimport MJCORE_BUILT_LEVEL

BUILT_FOR = MJCORE_BUILT_LEVEL.decode()   # the instruction-set level of this module's code
