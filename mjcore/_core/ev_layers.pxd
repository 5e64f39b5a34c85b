# One turn of the compatible model's values, four doubles a node as one vector (ev_layers.h).
from .types cimport u8, i32, u32, i64

cdef extern from "ev_layers.h" nogil:
    ctypedef u32 ev_draw    # the discard node's index among the discard nodes << 3 | copies
    ev_draw ev_draw_of(i64 d, int copies) noexcept
    void ev_best_of_kids4(const double* draw, const i32* kids, const u32* kids_at, i64 nk,
                          double* disc) noexcept
    void ev_draw_turn4(const double* draw_nxt, const double* disc_nxt, double* draw_cur, i64 nd,
                       const u32* plain_at, const ev_draw* plain, const u32* win_at,
                       const ev_draw* win, const double* win_score, const u8* tenpai,
                       const double* weight_sum, double den, int policy) noexcept
    void ev_draw_turn8(const double* draw_nxt, const double* disc_nxt, double* draw_cur, i64 nd,
                       const u32* plain_at, const ev_draw* plain, const u32* win_at,
                       const ev_draw* win, const double* win_score, const u8* tenpai,
                       const double* weight_sum, double den) noexcept
    # (score, win, tenpai) before b's (tenpai, win, score) in the consistent model's order
    bint ev_prefer(double score, double win, double tenpai, const double* b) noexcept
    void ev_policy_of_kids8(const double* draw, const i32* kids, const u32* kids_at, i64 nk,
                            double* disc) noexcept
    void ev_policy_of_kids4(const double* draw, const i32* kids, const u32* kids_at, i64 nk,
                            double* disc) noexcept
