"""Batch riichi scoring: arrays in, arrays out, one GIL-free loop over the rows."""
import numpy as np
cimport numpy as cnp
from cython.parallel cimport prange
from libc.string cimport memcpy

from .types cimport u8, i8, u16, i32, u64
from .decompose cimport HandC, MeldC
from .scoring cimport (N_YAKU, MAX_FU_ITEMS, MAX_INDICATORS, RulesC, Situation, ScoreOut,
                       FuItem, score_hand, fill_rules, fill_situation)

cnp.import_array()

MELD_NONE = 0xFFFF


def encode_meld(int kind, int tile, int red=0, int from_rel=0):
    """Pack one called meld into the uint16 of the batch ``melds`` array:
    ``kind | tile << 3 | red << 9 | from_rel << 12`` (kind: 0 chi, 1 pon, 2 open kan,
    3 closed kan, 4 added kan; tile: the lowest kind of the set)."""
    return kind | tile << 3 | red << 9 | from_rel << 12


cdef struct _Batch:
    const u8* counts
    const u16* melds
    const u8* red
    const u8* win
    const u16* flags
    const u8* seat
    const u8* rnd
    const u8* from_rel
    const i8* pao
    const u8* dora
    const u8* ura
    int n_dora_cols
    int n_ura_cols
    const u16* honba
    const u16* sticks
    const u8* kita
    const RulesC* rules
    i32* status
    u8* han
    u8* fu
    u8* limit
    u8* yakuman
    u8* n_fu
    i32* basic
    i32* points
    i32* decomp
    u64* mask
    u8* yaku_han
    u8* dua
    u8* fu_items
    i32* delta
    i32* pay


cdef inline u8 _indicators(const u8* row, int n_cols, u8* out) noexcept nogil:
    """Copy the indicators of one row (255 = none) to ``out``; returns how many."""
    cdef int k
    cdef u8 n = 0
    for k in range(n_cols):
        if row[k] != 255:
            out[n] = row[k]
            n += 1
    return n


cdef void _one(const _Batch* b, Py_ssize_t i) noexcept nogil:
    cdef HandC h
    cdef Situation s
    cdef ScoreOut o
    cdef int k, n = 0, nd = b.n_dora_cols, nu = b.n_ura_cols
    cdef u16 code
    cdef i32* delta
    cdef i32* pay
    memcpy(h.counts, b.counts + 34 * i, 34)
    for k in range(4):
        code = b.melds[4 * i + k]
        if code == 0xFFFF:
            continue
        h.melds[n].kind = code & 7
        h.melds[n].tile = (code >> 3) & 63
        h.melds[n].red = (code >> 9) & 7
        h.melds[n].from_rel = (code >> 12) & 3
        n += 1
    h.n_melds = n
    h.red = b.red[i]
    fill_situation(&s, b.win[i], b.flags[i], b.seat[i], b.rnd[i], b.from_rel[i], b.pao[i],
                   b.honba[i], b.sticks[i], b.kita[i])
    # indicators, 255 = none (at most MAX_INDICATORS columns, checked by score_arrays)
    s.n_dora = _indicators(b.dora + nd * i, nd, s.dora_ind)
    s.n_ura = _indicators(b.ura + nu * i, nu, s.ura_ind)
    score_hand(&h, &s, b.rules, &o)
    b.status[i] = o.status
    if o.status < 0:
        return
    b.han[i] = o.han
    b.fu[i] = o.fu
    b.limit[i] = o.limit
    b.yakuman[i] = o.yakuman
    b.basic[i] = o.basic
    b.points[i] = o.points
    b.decomp[i] = o.decomp_index
    b.mask[i] = o.yaku_mask
    memcpy(b.yaku_han + N_YAKU * i, o.yaku_han, N_YAKU)
    b.dua[3 * i] = o.dora
    b.dua[3 * i + 1] = o.ura
    b.dua[3 * i + 2] = o.aka
    b.n_fu[i] = o.n_fu_items
    memcpy(b.fu_items + sizeof(o.fu_items) * i, o.fu_items, sizeof(o.fu_items))  # unused: 0
    memcpy(b.delta + 4 * i, o.delta, 4 * sizeof(i32))
    memcpy(b.pay + 4 * i, o.pay, 4 * sizeof(i32))


def score_arrays(const u8[:, ::1] counts, const u16[:, ::1] melds, const u8[::1] red,
                 const u8[::1] win_tile, const u16[::1] flags, const u8[::1] seat_wind,
                 const u8[::1] round_wind, const u8[::1] from_rel, const i8[::1] pao_rel,
                 const u8[:, ::1] dora, const u8[:, ::1] ura, const u16[::1] honba,
                 const u16[::1] riichi_sticks, tuple rules, int n_threads=1,
                 const u8[::1] kita=None):
    """Score N hands. Inputs are validated for shape by mjcore.riichi.batch_scoring.score; rows
    with bad content get a negative status and zeros elsewhere. ``kita``: norths each winner
    set aside (sanma nukidora), zeros when None. Returns a dict of arrays."""
    cdef Py_ssize_t n = counts.shape[0], i
    cdef RulesC r
    fill_rules(&r, rules)
    status_a = np.zeros(n, np.int32)
    han_a = np.zeros(n, np.uint8)
    fu_a = np.zeros(n, np.uint8)
    limit_a = np.zeros(n, np.uint8)
    yakuman_a = np.zeros(n, np.uint8)
    basic_a = np.zeros(n, np.int32)
    points_a = np.zeros(n, np.int32)
    mask_a = np.zeros(n, np.uint64)
    yaku_han_a = np.zeros((n, N_YAKU), np.uint8)
    dua_a = np.zeros((n, 3), np.uint8)
    fu_items_a = np.zeros((n, MAX_FU_ITEMS, sizeof(FuItem)), np.uint8)
    n_fu_a = np.zeros(n, np.uint8)
    delta_a = np.zeros((n, 4), np.int32)
    pay_a = np.zeros((n, 4), np.int32)
    decomp_a = np.zeros(n, np.int32)
    cdef _Batch b
    if dora.shape[1] > MAX_INDICATORS or ura.shape[1] > MAX_INDICATORS:
        raise ValueError(f"at most {MAX_INDICATORS} dora and ura indicator columns")
    if n == 0:
        return dict(status=status_a, han=han_a, fu=fu_a, limit=limit_a, yakuman=yakuman_a,
                    basic=basic_a, points=points_a, yaku_mask=mask_a, yaku_han=yaku_han_a,
                    dora_ura_aka=dua_a, fu_items=fu_items_a, n_fu_items=n_fu_a,
                    deltas=delta_a, payments=pay_a, decomposition_index=decomp_a)
    cdef i32[::1] status = status_a
    cdef u8[::1] han = han_a, fu = fu_a, limit = limit_a, yakuman = yakuman_a, n_fu = n_fu_a
    cdef i32[::1] basic = basic_a, points = points_a, decomp = decomp_a
    cdef u64[::1] mask = mask_a
    cdef u8[:, ::1] yaku_han = yaku_han_a, dua = dua_a
    cdef u8[:, :, ::1] fu_items = fu_items_a
    cdef i32[:, ::1] delta = delta_a, pay = pay_a
    b.counts = &counts[0, 0]
    b.melds = &melds[0, 0]
    b.red = &red[0]
    b.win = &win_tile[0]
    b.flags = &flags[0]
    b.seat = &seat_wind[0]
    b.rnd = &round_wind[0]
    b.from_rel = &from_rel[0]
    b.pao = &pao_rel[0]
    b.n_dora_cols = dora.shape[1]
    b.n_ura_cols = ura.shape[1]
    b.dora = &dora[0, 0] if b.n_dora_cols else NULL
    b.ura = &ura[0, 0] if b.n_ura_cols else NULL
    b.honba = &honba[0]
    b.sticks = &riichi_sticks[0]
    if kita is None:
        kita = np.zeros(n, np.uint8)
    elif kita.shape[0] != n:
        raise ValueError("kita: one entry per row expected")
    b.kita = &kita[0]
    b.rules = &r
    b.status = &status[0]
    b.han = &han[0]
    b.fu = &fu[0]
    b.limit = &limit[0]
    b.yakuman = &yakuman[0]
    b.n_fu = &n_fu[0]
    b.basic = &basic[0]
    b.points = &points[0]
    b.decomp = &decomp[0]
    b.mask = &mask[0]
    b.yaku_han = &yaku_han[0, 0]
    b.dua = &dua[0, 0]
    b.fu_items = &fu_items[0, 0, 0]
    b.delta = &delta[0, 0]
    b.pay = &pay[0, 0]
    if n_threads < 1:
        n_threads = 1
    if n_threads == 1:
        with nogil:
            for i in range(n):
                _one(&b, i)
    else:
        for i in prange(n, nogil=True, num_threads=n_threads, schedule="dynamic", chunksize=512):
            _one(&b, i)
    return dict(status=status_a, han=han_a, fu=fu_a, limit=limit_a, yakuman=yakuman_a,
                basic=basic_a, points=points_a, yaku_mask=mask_a, yaku_han=yaku_han_a,
                dora_ura_aka=dua_a, fu_items=fu_items_a, n_fu_items=n_fu_a, deltas=delta_a,
                payments=pay_a, decomposition_index=decomp_a)



from mjcore._core.level cimport MJCORE_BUILT_LEVEL

BUILT_FOR = MJCORE_BUILT_LEVEL.decode()   # the instruction-set level of this module's code
