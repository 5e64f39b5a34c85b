# One turn of the compatible model's values, four doubles a node as one vector (ev_layers.h).
from .types cimport u8, i32, i64

cdef extern from "ev_layers.h" nogil:
    ctypedef struct ev_draw:
        i32 d               # the discard node's index among the discard nodes
        double weight       # the copies drawn
    void ev_best_of_kids4(const double* draw, const i32* kids, const i64* kids_at, i64 nk,
                          double* disc) noexcept
    void ev_draw_turn4(const double* draw_nxt, const double* disc_nxt, double* draw_cur, i64 nd,
                       const i64* plain_at, const ev_draw* plain, const i64* win_at,
                       const ev_draw* win, const double* win_score, const u8* tenpai,
                       const double* weight_sum, double den, int policy) noexcept
    void ev_draw_turn8(const double* draw_nxt, const double* disc_nxt, double* draw_cur, i64 nd,
                       const i64* plain_at, const ev_draw* plain, const i64* win_at,
                       const ev_draw* win, const double* win_score, const u8* tenpai,
                       const double* weight_sum, double den) noexcept
    # (score, win, tenpai) before b's (tenpai, win, score) in the consistent model's order
    bint ev_prefer(double score, double win, double tenpai, const double* b) noexcept
    void ev_policy_of_kids8(const double* draw, const i32* kids, const i64* kids_at, i64 nk,
                            double* disc) noexcept
    void ev_policy_of_kids4(const double* draw, const i32* kids, const i64* kids_at, i64 nk,
                            double* disc) noexcept
