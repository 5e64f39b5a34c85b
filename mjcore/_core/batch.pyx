# Batch kernels: validate and pack each row, then one GIL-free loop over all rows.
# Each entry point fills a per-row status (0 = ok, negative Status) so a bad row never
# costs the results of the good ones.

from cython.parallel cimport prange
from libc.string cimport memset

cdef extern from *:
    int __builtin_ctzll(unsigned long long) noexcept nogil
    int __builtin_popcountll(unsigned long long) noexcept nogil

from mjcore._core.types cimport (u8, i8, u16, u32, u64, i32, PackedHand, ST_OK, ST_BAD_COUNT,
                                 ST_BAD_TOTAL, ST_BAD_MELDS, ST_PARSE)
from mjcore._core.types cimport (ST_NO_YAKU, ST_BAD_TILE, ST_NOT_AGARI, ST_DISCARD_NOT_HELD,
                                 ST_BAD_SITUATION, ST_BAD_SEATS, ST_NOT_IN_SANMA,
                                 ST_EV_SHANTEN, ST_EV_NODES, ST_EV_DEADLINE, ST_EV_MEMORY,
                                 ST_EV_OPTION)
from mjcore._core.shanten cimport (check_row, check_forms, shanten_forms, agari_forms,
                                   advance_forms, ukeire_forms)

# Every kernel status (types.Status) by its C name, as compiled: mjcore.status is checked
# against this.
STATUS_CODES = {
    "ST_OK": ST_OK, "ST_NO_YAKU": ST_NO_YAKU, "ST_BAD_COUNT": ST_BAD_COUNT,
    "ST_BAD_TOTAL": ST_BAD_TOTAL, "ST_BAD_MELDS": ST_BAD_MELDS,
    "ST_BAD_TILE": ST_BAD_TILE, "ST_NOT_AGARI": ST_NOT_AGARI,
    "ST_PARSE": ST_PARSE, "ST_DISCARD_NOT_HELD": ST_DISCARD_NOT_HELD,
    "ST_BAD_SITUATION": ST_BAD_SITUATION, "ST_BAD_SEATS": ST_BAD_SEATS,
    "ST_NOT_IN_SANMA": ST_NOT_IN_SANMA, "ST_EV_SHANTEN": ST_EV_SHANTEN,
    "ST_EV_NODES": ST_EV_NODES, "ST_EV_DEADLINE": ST_EV_DEADLINE, "ST_EV_MEMORY": ST_EV_MEMORY,
    "ST_EV_OPTION": ST_EV_OPTION,
}

cdef extern from "bits.h":
    u32 mj_compress3(u32 spaced) noexcept nogil

cdef u64 ALL_KINDS = (<u64>1 << 34) - 1


cdef struct TileSet:
    u64 in_play             # bit k = kind k is in the rules' tile set
    PackedHand absent       # 0b111 in the 3-bit field of each kind the set lacks


cdef TileSet tile_set(u64 in_play) except *:
    cdef TileSet t
    cdef int k
    if in_play & ~ALL_KINDS:
        raise ValueError(f"in_play has bits beyond the 34 kinds: {in_play:#x}")
    t.in_play = in_play
    t.absent.words[0] = t.absent.words[1] = t.absent.words[2] = t.absent.words[3] = 0
    for k in range(34):
        if not (in_play >> k) & 1:
            t.absent.words[k // 9] |= <u32>7 << (3 * (k % 9))
    return t


cdef inline bint holds_absent(const PackedHand* h, const TileSet* tiles) noexcept nogil:
    return ((h.words[0] & tiles.absent.words[0]) | (h.words[1] & tiles.absent.words[1])
            | (h.words[2] & tiles.absent.words[2]) | (h.words[3] & tiles.absent.words[3])) != 0


cdef inline int check_row_in(const u8* counts, int n_melds, PackedHand* h, int want,
                             const TileSet* tiles) noexcept nogil:
    """check_row, and ST_NOT_IN_SANMA for a row holding a kind out of the tile set (that
    status comes first, whatever else is wrong with the row)."""
    cdef int k, st = check_row(counts, n_melds, h, want)
    if st == ST_OK:
        return ST_NOT_IN_SANMA if holds_absent(h, tiles) else ST_OK
    if tiles.in_play != ALL_KINDS:
        for k in range(34):
            if counts[k] and not (tiles.in_play >> k) & 1:
                return ST_NOT_IN_SANMA
    return st


cdef inline int row_shanten(const u8* counts, int n_melds, int forms, i8* out,
                            i8* forms3, const TileSet* tiles) noexcept nogil:
    cdef PackedHand h
    cdef int f3[3]
    cdef int s, st = check_row_in(counts, n_melds, &h, 0, tiles)
    out[0] = -128
    if st != ST_OK:
        return st
    s = shanten_forms(&h, n_melds, forms, f3)
    if s < -1:
        return s
    out[0] = <i8>s
    if forms3 != NULL:
        forms3[0] = <i8>f3[0]
        forms3[1] = <i8>f3[1]
        forms3[2] = <i8>f3[2]
    return ST_OK


def shanten(const u8[:, ::1] counts, const u8[::1] n_melds, int forms, i8[::1] out,
            i8[::1] status, i8[:, ::1] by_form, int n_threads, u64 in_play=ALL_KINDS):
    """out[i] = minimum shanten over the winning forms (types.Forms); by_form (N,3) or (0,3):
    standard, seven pairs, orphans (99 when off or ruled out by melds). ``in_play``: the kinds
    of the tile set (bit k = kind k); a row holding another kind is ST_NOT_IN_SANMA."""
    cdef Py_ssize_t n = counts.shape[0], i
    cdef bint want_forms = by_form.shape[0] == n and n > 0
    cdef TileSet tiles = tile_set(in_play)
    check_forms(forms)
    with nogil:
        for i in prange(n, num_threads=n_threads, schedule="dynamic", chunksize=4096):
            status[i] = <i8>row_shanten(&counts[i, 0], n_melds[i], forms, &out[i],
                                        &by_form[i, 0] if want_forms else NULL, &tiles)


cdef inline int row_agari(const u8* counts, int n_melds, int forms, u8* out,
                          const TileSet* tiles) noexcept nogil:
    cdef PackedHand h
    cdef int a, st = check_row_in(counts, n_melds, &h, 14, tiles)
    out[0] = 0
    if st != ST_OK:
        return st
    a = agari_forms(&h, n_melds, forms)
    if a < 0:
        return a
    out[0] = <u8>a
    return ST_OK


def is_agari(const u8[:, ::1] counts, const u8[::1] n_melds, int forms, u8[::1] out,
             i8[::1] status, int n_threads, u64 in_play=ALL_KINDS):
    cdef Py_ssize_t n = counts.shape[0], i
    cdef TileSet tiles = tile_set(in_play)
    check_forms(forms)
    with nogil:
        for i in prange(n, num_threads=n_threads, schedule="dynamic", chunksize=4096):
            status[i] = <i8>row_agari(&counts[i, 0], n_melds[i], forms, &out[i], &tiles)


cdef inline int row_advance(const u8* counts, int n_melds, int forms, u64* mask,
                            i8* shanten_out, const TileSet* tiles) noexcept nogil:
    cdef PackedHand h
    cdef int s, st = check_row_in(counts, n_melds, &h, 13, tiles)
    mask[0] = 0
    shanten_out[0] = -128
    if st != ST_OK:
        return st
    s = advance_forms(&h, n_melds, forms, mask)
    if s < -1:
        mask[0] = 0
        return s
    mask[0] &= tiles.in_play        # kinds out of the tile set never advance
    shanten_out[0] = <i8>s
    return ST_OK


def advance(const u8[:, ::1] counts, const u8[::1] n_melds, int forms, u64[::1] masks,
            i8[::1] shanten_out, i8[::1] status, int n_threads, u64 in_play=ALL_KINDS):
    """For 13-3k tile rows: shanten and the 34-bit mask of advancing kinds (winning tiles
    when the shanten is 0). ``in_play``: the kinds of the tile set (bit k = kind k); the
    others never advance, and a row holding one is ST_NOT_IN_SANMA."""
    cdef Py_ssize_t n = counts.shape[0], i
    cdef TileSet tiles = tile_set(in_play)
    check_forms(forms)
    with nogil:
        for i in prange(n, num_threads=n_threads, schedule="dynamic", chunksize=4096):
            status[i] = <i8>row_advance(&counts[i, 0], n_melds[i], forms, &masks[i],
                                        &shanten_out[i], &tiles)


cdef inline int row_ukeire(const u8* counts, int n_melds, int forms, i8* after_out, u64* masks_out,
                           i8* best_shanten, i8* best_discard, u16* best_count,
                           const TileSet* tiles) noexcept nogil:
    cdef PackedHand h
    cdef i8 aft_local[34]
    cdef u64 msk_local[34]
    cdef i8* aft = after_out if after_out != NULL else aft_local
    cdef u64* msk = masks_out if masks_out != NULL else msk_local
    cdef u64 m, held, ones = 0, twos = 0, fours = 0
    cdef int b, g, k, cnt, bk = -1, bc = 0
    cdef int st = check_row_in(counts, n_melds, &h, 14, tiles)
    best_shanten[0] = -128
    best_discard[0] = -1
    best_count[0] = 0
    if st != ST_OK:
        return st
    b = ukeire_forms(&h, n_melds, forms, aft, msk, after_out == NULL)
    if b < -1:
        return b
    if tiles.in_play != ALL_KINDS:  # a tile set without some kinds (sanma): they never advance
        for k in range(34):
            msk[k] &= tiles.in_play
    # the hand's counts as three 34-bit planes (count = ones + 2 twos + 4 fours)
    for g in range(4):
        ones |= (<u64>mj_compress3(h.words[g])) << (9 * g)
        twos |= (<u64>mj_compress3(h.words[g] >> 1)) << (9 * g)
        fours |= (<u64>mj_compress3(h.words[g] >> 2)) << (9 * g)
    held = ones | twos | fours
    while held:
        k = __builtin_ctzll(held)
        held &= held - 1
        if aft[k] != b:
            continue
        # unseen copies of the advancing kinds, counting only this hand (the discard is out)
        m = msk[k]
        cnt = (4 * __builtin_popcountll(m) - __builtin_popcountll(m & ones)
               - 2 * __builtin_popcountll(m & twos) - 4 * __builtin_popcountll(m & fours)
               + <int>((m >> k) & 1))
        if cnt > bc or bk < 0:
            bc = cnt
            bk = k
    best_shanten[0] = <i8>b
    best_discard[0] = <i8>bk
    best_count[0] = <u16>bc
    return ST_OK


def ukeire(const u8[:, ::1] counts, const u8[::1] n_melds, int forms, i8[:, ::1] after,
           u64[:, ::1] masks,
           i8[::1] best_shanten, i8[::1] best_discard, u16[::1] best_count, i8[::1] status,
           int n_threads, u64 in_play=ALL_KINDS):
    """For 14-3k tile rows: per discard, the shanten after it and its advancing mask (when
    `after` has N rows); and the summary: the best discard (lowest shanten, then most unseen
    advancing tiles given only the hand, then lowest kind), its shanten and its tile count.
    ``in_play``: the kinds of the tile set (bit k = kind k); the others never advance, and a
    row holding one is ST_NOT_IN_SANMA."""
    cdef Py_ssize_t n = counts.shape[0], i
    cdef bint full = after.shape[0] == n and n > 0
    cdef TileSet tiles = tile_set(in_play)
    check_forms(forms)
    with nogil:
        for i in prange(n, num_threads=n_threads, schedule="dynamic", chunksize=4096):
            status[i] = <i8>row_ukeire(&counts[i, 0], n_melds[i], forms,
                                       &after[i, 0] if full else NULL,
                                       &masks[i, 0] if full else NULL,
                                       &best_shanten[i], &best_discard[i], &best_count[i],
                                       &tiles)


# ---- bulk text: one hand per line (mpsz `123m456p...` or letter-first `m123p456...`) ----

cdef inline int parse_line(const unsigned char* s, Py_ssize_t length, u8* counts,
                           i32* err_pos) noexcept nogil:
    """Parse one closed hand into counts[34]. Returns ST_OK, or ST_PARSE with err_pos set, or
    ST_BAD_COUNT (a fifth copy / second red five) with err_pos at the suit letter."""
    cdef Py_ssize_t j, start = 0
    cdef int k, base, d, nd = 0, reds[4], letter_first = 0, cur = -1, cur_digits = 0
    cdef u8 pend[16]
    cdef u64 hist = 0          # pending digits of an mpsz group: 4 bits per digit 0..9
    cdef unsigned char ch
    memset(counts, 0, 34)
    reds[0] = reds[1] = reds[2] = reds[3] = 0
    while length > 0 and (s[length - 1] == 32 or s[length - 1] == 13 or s[length - 1] == 9):
        length -= 1
    while start < length and (s[start] == 32 or s[start] == 9):
        start += 1
    if start >= length:
        err_pos[0] = <i32>start
        return ST_PARSE
    ch = s[start]
    if ch == 109 or ch == 112 or ch == 115 or ch == 122:
        letter_first = 1
    for j in range(start, length):
        ch = s[j]
        if 48 <= ch <= 57:
            if letter_first:
                if cur < 0:
                    err_pos[0] = <i32>j
                    return ST_PARSE
                d = _add(counts, reds, cur, ch - 48)
                if d <= 0:
                    err_pos[0] = <i32>j
                    return ST_BAD_COUNT if d == 0 else ST_PARSE
                cur_digits += 1
                continue
            if nd >= 15:
                err_pos[0] = <i32>j
                return ST_PARSE
            pend[nd] = ch - 48
            hist += (<u64>1) << (4 * (ch - 48))
            nd += 1
            continue
        if ch == 109:
            base = 0
        elif ch == 112:
            base = 1
        elif ch == 115:
            base = 2
        elif ch == 122:
            base = 3
        else:
            err_pos[0] = <i32>j
            return ST_PARSE
        if letter_first:
            if cur >= 0 and cur_digits == 0:
                err_pos[0] = <i32>j          # the previous suit letter had no digits
                return ST_PARSE
            cur = base
            cur_digits = 0
            continue
        if nd == 0:
            err_pos[0] = <i32>j
            return ST_PARSE
        if base < 3:
            # a suit group: every digit is a tile; only a fifth copy or a second red five fail
            if _add_suit(counts + 9 * base, &reds[base], hist) != 0:
                err_pos[0] = <i32>j
                return ST_BAD_COUNT
        else:
            for k in range(nd):
                d = _add(counts, reds, base, pend[k])
                if d <= 0:
                    err_pos[0] = <i32>j
                    return ST_BAD_COUNT if d == 0 else ST_PARSE
        nd = 0
        hist = 0
    if nd > 0 or (letter_first and cur_digits == 0):
        err_pos[0] = <i32>length
        return ST_PARSE
    return ST_OK


cdef inline int _add_suit(u8* suit, int* red_used, u64 hist) noexcept nogil:
    """Add a group's digit histogram (4 bits per digit, 0 = red five) to one suit's counts;
    nonzero when a kind passes 4 copies or the suit gets a second red five."""
    cdef int d, c, bad
    cdef int red = <int>(hist & 15)
    red_used[0] += red
    bad = red_used[0] > 1
    for d in range(1, 10):
        c = suit[d - 1] + <int>((hist >> (4 * d)) & 15) + (red if d == 5 else 0)
        bad |= c > 4
        suit[d - 1] = <u8>c
    return bad


cdef inline int _add(u8* counts, int* reds, int suit, int d) noexcept nogil:
    """1 ok, 0 too many copies, -1 not a tile."""
    cdef int kind
    if suit == 3:
        if d < 1 or d > 7:
            return -1
        kind = 27 + d - 1
    else:
        if d == 0:
            reds[suit] += 1
            if reds[suit] > 1:
                return 0
            d = 5
        kind = 9 * suit + d - 1
    if counts[kind] >= 4:
        return 0
    counts[kind] += 1
    return 1


cdef void _count_newlines(const unsigned char* p, Py_ssize_t n,
                          long long* out) noexcept nogil:
    """out[0] = the newlines in p[:n], out[1] = the index of the last one (-1 when none)."""
    cdef Py_ssize_t i, count = 0
    for i in range(n):
        count += p[i] == 10             # branch-free: the compiler vectorises it
    i = n - 1
    while i >= 0 and p[i] != 10:
        i -= 1
    out[0] = count
    out[1] = i


def line_chunks(const unsigned char[::1] data, int n_threads=1):
    """Split the buffer into chunks for parallel parsing: returns (lines, plan) where ``plan``
    is an (n_chunks + 1, 3) int64 array: for chunk c, its byte range [plan[c, 0],
    plan[c + 1, 0]), the index of the first line that ends in it (plan[c, 1]) and where that
    line starts (plan[c, 2]). A final line without a newline ends in the last chunk; a final
    empty line after the last newline is not a line. Chunks are counted in parallel."""
    import numpy as np
    cdef Py_ssize_t n = data.shape[0], c, count, last_nl = -1
    cdef Py_ssize_t n_chunks = min(max(1, n // 65536), 16 * max(1, n_threads))
    cdef Py_ssize_t size = (n + n_chunks - 1) // n_chunks if n else 0
    plan_a = np.zeros((n_chunks + 1, 3), dtype=np.int64)
    counts_a = np.zeros((n_chunks, 2), dtype=np.int64)
    if n == 0:
        return 0, plan_a
    cdef long long[:, ::1] plan = plan_a
    cdef long long[:, ::1] cnt = counts_a
    cdef const unsigned char* base = &data[0]
    cdef Py_ssize_t lo, hi
    with nogil:
        # each chunk writes only its own row of cnt (a variable written through a pointer
        # would be shared between the threads: prange privatises only plain assignments)
        for c in prange(n_chunks, num_threads=n_threads, schedule="static"):
            lo = min(c * size, n)
            hi = min(lo + size, n)
            _count_newlines(base + lo, hi - lo, &cnt[c, 0])
            if cnt[c, 1] >= 0:
                cnt[c, 1] = cnt[c, 1] + lo
    for c in range(n_chunks):
        plan[c, 0] = min(c * size, n)
        plan[c + 1, 1] = plan[c, 1] + cnt[c, 0]
        plan[c, 2] = last_nl + 1
        if cnt[c, 1] >= 0:
            last_nl = cnt[c, 1]
    plan[n_chunks, 0] = n
    plan[n_chunks, 2] = last_nl + 1
    count = plan[n_chunks, 1] + (1 if data[n - 1] != 10 else 0)
    return count, plan_a


cdef inline int row_text(const unsigned char* line, Py_ssize_t length, int forms, i8* out,
                         i32* pos, u8* keep, const TileSet* tiles) noexcept nogil:
    cdef u8 c[34]
    cdef PackedHand h
    cdef int k, s, st
    pos[0] = -1
    out[0] = -128
    st = parse_line(line, length, c, pos)
    if keep != NULL:
        for k in range(34):
            keep[k] = c[k] if st == ST_OK else 0
    if st != ST_OK:
        return st
    st = check_row(c, 0, &h, 0)
    if st != ST_OK:
        return st
    if holds_absent(&h, tiles):       # after the line's own faults
        return ST_NOT_IN_SANMA
    s = shanten_forms(&h, 0, forms, NULL)
    if s < -1:
        return s
    out[0] = <i8>s
    return ST_OK


def text_shanten(const unsigned char[::1] data, const long long[:, ::1] plan, int forms,
                 i8[::1] out, i8[::1] status, i32[::1] err_pos, u8[:, ::1] counts_out,
                 int n_threads, u64 in_play=ALL_KINDS):
    """Parse each line and compute its minimum shanten (closed hands of 13 or 14 tiles), chunk
    by chunk in parallel, as planned by line_chunks (out and the others have one row a line).
    A well-formed line holding a kind out of ``in_play`` is ST_NOT_IN_SANMA."""
    cdef Py_ssize_t n_chunks = plan.shape[0] - 1, n = out.shape[0], c, i, row, start, hi
    cdef Py_ssize_t size = data.shape[0]
    cdef bint keep = counts_out.shape[0] == n and n > 0
    cdef const unsigned char* base = &data[0] if size > 0 else NULL
    cdef TileSet tiles = tile_set(in_play)
    check_forms(forms)
    if n == 0:
        return
    with nogil:
        for c in prange(n_chunks, num_threads=n_threads, schedule="dynamic", chunksize=1):
            row = plan[c, 1]
            start = plan[c, 2]
            hi = plan[c + 1, 0]
            for i in range(plan[c, 0], hi):
                if base[i] == 10:
                    status[row] = <i8>row_text(base + start, i - start, forms, &out[row],
                                               &err_pos[row],
                                               &counts_out[row, 0] if keep else NULL, &tiles)
                    row = row + 1
                    start = i + 1
            if c == n_chunks - 1 and start < size:       # the last line has no newline
                status[row] = <i8>row_text(base + start, size - start, forms, &out[row],
                                           &err_pos[row], &counts_out[row, 0] if keep else NULL,
                                           &tiles)


from mjcore._core.level cimport MJCORE_BUILT_LEVEL

BUILT_FOR = MJCORE_BUILT_LEVEL.decode()   # the instruction-set level of this module's code
