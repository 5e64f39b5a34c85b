/* One turn of the values (mjcore/riichi/ev.md §3) with a node's doubles handled as vectors
 * of four: AVX (with FMA when the build has it) in the x86-64-v3 build, two SSE2 halves at
 * the x86-64 baseline, plain C elsewhere. The lanes are independent, so each lane computes
 * what the scalar form would. The compatible model keeps four doubles a node (tenpai, win,
 * expected score, a zero lane); the consistent one eight (tenpai, win, score of the policy,
 * the best tenpai and win of any, three zero lanes).
 */
#ifndef MJCORE_EV_LAYERS_H
#define MJCORE_EV_LAYERS_H

#include <stdint.h>

/* A draw into a discard node, four bytes (the passes stream them every turn): the discard
 * node's index among the discard nodes << 3 | the copies drawn (1..4). Node lists and their
 * offsets are 32-bit (EvRequest.max_nodes is far below 2^29). */
typedef uint32_t ev_draw;
static inline ev_draw ev_draw_of(int64_t d, int copies) { return ((uint32_t)d << 3) | (uint32_t)copies; }
static inline int64_t ev_draw_node(ev_draw e) { return (int64_t)(e >> 3); }
static inline double ev_draw_copies(ev_draw e) { return (double)(int)(e & 7); }

#if defined(__AVX__)
#include <immintrin.h>
typedef __m256d ev4;
static inline ev4 ev4_load(const double *p) { return _mm256_loadu_pd(p); }
static inline void ev4_store(double *p, ev4 v) { _mm256_storeu_pd(p, v); }
static inline ev4 ev4_set1(double x) { return _mm256_set1_pd(x); }
static inline ev4 ev4_set(double a, double b, double c, double d) { return _mm256_set_pd(d, c, b, a); }
static inline ev4 ev4_max(ev4 a, ev4 b) { return _mm256_max_pd(a, b); }
static inline ev4 ev4_mul(ev4 a, ev4 b) { return _mm256_mul_pd(a, b); }
#if defined(__FMA__)
static inline ev4 ev4_fma(ev4 a, ev4 b, ev4 c) { return _mm256_fmadd_pd(a, b, c); }
#else
static inline ev4 ev4_fma(ev4 a, ev4 b, ev4 c) { return _mm256_add_pd(_mm256_mul_pd(a, b), c); }
#endif
#elif defined(__SSE2__)
#include <emmintrin.h>
typedef struct { __m128d lo, hi; } ev4;
static inline ev4 ev4_load(const double *p) { ev4 r = {_mm_loadu_pd(p), _mm_loadu_pd(p + 2)}; return r; }
static inline void ev4_store(double *p, ev4 v) { _mm_storeu_pd(p, v.lo); _mm_storeu_pd(p + 2, v.hi); }
static inline ev4 ev4_set1(double x) { ev4 r = {_mm_set1_pd(x), _mm_set1_pd(x)}; return r; }
static inline ev4 ev4_set(double a, double b, double c, double d) { ev4 r = {_mm_set_pd(b, a), _mm_set_pd(d, c)}; return r; }
static inline ev4 ev4_max(ev4 a, ev4 b) { ev4 r = {_mm_max_pd(a.lo, b.lo), _mm_max_pd(a.hi, b.hi)}; return r; }
static inline ev4 ev4_mul(ev4 a, ev4 b) { ev4 r = {_mm_mul_pd(a.lo, b.lo), _mm_mul_pd(a.hi, b.hi)}; return r; }
static inline ev4 ev4_fma(ev4 a, ev4 b, ev4 c) {
    ev4 r = {_mm_add_pd(_mm_mul_pd(a.lo, b.lo), c.lo), _mm_add_pd(_mm_mul_pd(a.hi, b.hi), c.hi)};
    return r;
}
#else
typedef struct { double x[4]; } ev4;
static inline ev4 ev4_load(const double *p) { ev4 r = {{p[0], p[1], p[2], p[3]}}; return r; }
static inline void ev4_store(double *p, ev4 v) { for (int i = 0; i < 4; i++) p[i] = v.x[i]; }
static inline ev4 ev4_set1(double x) { ev4 r = {{x, x, x, x}}; return r; }
static inline ev4 ev4_set(double a, double b, double c, double d) { ev4 r = {{a, b, c, d}}; return r; }
static inline ev4 ev4_max(ev4 a, ev4 b) {
    for (int i = 0; i < 4; i++) a.x[i] = a.x[i] > b.x[i] ? a.x[i] : b.x[i];
    return a;
}
static inline ev4 ev4_mul(ev4 a, ev4 b) { for (int i = 0; i < 4; i++) a.x[i] *= b.x[i]; return a; }
static inline ev4 ev4_fma(ev4 a, ev4 b, ev4 c) { for (int i = 0; i < 4; i++) c.x[i] += a.x[i] * b.x[i]; return c; }
#endif

/* Discard nodes 0..nk-1 at turn t + 1: lane by lane the best of their draw nodes (kids
 * kids_at[a] .. kids_at[a + 1] - 1) in draw, written to disc. A discard node without any (a
 * complete hand the search does not leave: shanten-down off or extra 0) is worth nothing. */
static inline void ev_best_of_kids4(const double *draw, const int32_t *kids, const uint32_t *kids_at,
                                    long long nk, double *disc) {
    for (long long a = 0; a < nk; a++) {
        uint32_t e = kids_at[a], end = kids_at[a + 1];
        if (e == end) {
            ev4_store(disc + 4 * a, ev4_set1(0.0));
            continue;
        }
        ev4 m = ev4_load(draw + 4 * (int64_t)kids[e]);
        for (e++; e < end; e++)
            m = ev4_max(m, ev4_load(draw + 4 * (int64_t)kids[e]));
        ev4_store(disc + 4 * a, m);
    }
}

/* 1 when a is above b by more than the tolerance (relative, at least absolute), -1 when
 * below, 0 for a tie: rounding never decides between two lines of play. */
static inline int ev_order(double a, double b, double tolerance) {
    double scale = (a > 0 && b > 0) ? (a > b ? a : b) : 1.0;
    double margin = tolerance * (scale > 1.0 ? scale : 1.0);
    if (a - b > margin)
        return 1;
    if (b - a > margin)
        return -1;
    return 0;
}

/* (score, win, tenpai) before b's (tenpai, win, score): more score, then win, then tenpai
 * (ties within 1e-9 of the score and 1e-12 of a probability). */
static inline int ev_prefer(double score, double win, double tenpai, const double *b) {
    int o = ev_order(score, b[2], 1e-9);
    if (o)
        return o > 0;
    o = ev_order(win, b[1], 1e-12);
    if (o)
        return o > 0;
    return ev_order(tenpai, b[0], 1e-12) > 0;
}

/* Draw nodes 0..nd-1 at turn t from the layers at t + 1, four doubles a node: stay with the
 * copies not drawn into a discard node (1 - weight_sum / den), or draw into one. A winning draw
 * (score > 0) is worth 1, 1 and, in the compatible model (policy 0), the larger of its score
 * and playing on; in the consistent model's policy columns (policy 1) it is taken only when
 * winning beats playing on (ev_prefer). A tenpai node's tenpai probability is 1. den = S - t
 * (compatible) or the wall the state leaves (consistent). */
static inline void ev_draw_turn4(const double *draw_nxt, const double *disc_nxt, double *draw_cur,
                                 long long nd, const uint32_t *plain_at, const ev_draw *plain,
                                 const uint32_t *win_at, const ev_draw *win, const double *win_score,
                                 const uint8_t *tenpai, const double *weight_sum, double den,
                                 int policy) {
    double inv = 1.0 / den;
    ev4 vinv = ev4_set1(inv);
    for (long long a = 0; a < nd; a++) {
        ev4 acc = ev4_set1(0.0);
        for (uint32_t e = plain_at[a]; e < plain_at[a + 1]; e++)
            acc = ev4_fma(ev4_set1(ev_draw_copies(plain[e])), ev4_load(disc_nxt + 4 * ev_draw_node(plain[e])), acc);
        for (uint32_t e = win_at[a]; e < win_at[a + 1]; e++) {
            const double *p = disc_nxt + 4 * ev_draw_node(win[e]);
            double sc = win_score[e];
            ev4 value;
            if (!(sc > 0.0))
                value = ev4_load(p);
            else if (policy)
                value = ev_prefer(sc, 1.0, 1.0, p) ? ev4_set(1.0, 1.0, sc, 0.0) : ev4_load(p);
            else
                value = ev4_set(1.0, 1.0, sc > p[2] ? sc : p[2], 0.0);
            acc = ev4_fma(ev4_set1(ev_draw_copies(win[e])), value, acc);
        }
        ev4 v = ev4_fma(ev4_load(draw_nxt + 4 * a), ev4_set1(1.0 - weight_sum[a] * inv),
                        ev4_mul(acc, vinv));
        ev4_store(draw_cur + 4 * a, v);
        if (tenpai[a])
            draw_cur[4 * a] = 1.0;
    }
}

/* The consistent model's draw nodes 0..nd-1 at turn t, eight doubles a node: the policy
 * (lanes 0-2) takes a winning draw only when winning beats playing on (ev_prefer); the best
 * of any policy (lanes 3-4) always wins. den is the wall the state leaves. */
static inline void ev_draw_turn8(const double *draw_nxt, const double *disc_nxt, double *draw_cur,
                                 long long nd, const uint32_t *plain_at, const ev_draw *plain,
                                 const uint32_t *win_at, const ev_draw *win, const double *win_score,
                                 const uint8_t *tenpai, const double *weight_sum, double den) {
    double inv = 1.0 / den;
    ev4 vinv = ev4_set1(inv), zero = ev4_set1(0.0);
    for (long long a = 0; a < nd; a++) {
        ev4 lo = zero, hi = zero;
        for (uint32_t e = plain_at[a]; e < plain_at[a + 1]; e++) {
            const double *p = disc_nxt + 8 * ev_draw_node(plain[e]);
            ev4 w = ev4_set1(ev_draw_copies(plain[e]));
            lo = ev4_fma(w, ev4_load(p), lo);
            hi = ev4_fma(w, ev4_load(p + 4), hi);
        }
        for (uint32_t e = win_at[a]; e < win_at[a + 1]; e++) {
            const double *p = disc_nxt + 8 * ev_draw_node(win[e]);
            double sc = win_score[e];
            ev4 w = ev4_set1(ev_draw_copies(win[e])), vlo, vhi;
            if (sc > 0.0) {
                vlo = ev_prefer(sc, 1.0, 1.0, p) ? ev4_set(1.0, 1.0, sc, 1.0)
                                                 : ev4_set(p[0], p[1], p[2], 1.0);
                vhi = ev4_set(1.0, 0.0, 0.0, 0.0);
            } else {
                vlo = ev4_load(p);
                vhi = ev4_load(p + 4);
            }
            lo = ev4_fma(w, vlo, lo);
            hi = ev4_fma(w, vhi, hi);
        }
        ev4 stay = ev4_set1(1.0 - weight_sum[a] * inv);
        double *v = draw_cur + 8 * a;
        ev4_store(v, ev4_fma(ev4_load(draw_nxt + 8 * a), stay, ev4_mul(lo, vinv)));
        ev4_store(v + 4, ev4_fma(ev4_load(draw_nxt + 8 * a + 4), stay, ev4_mul(hi, vinv)));
        if (tenpai[a])
            v[0] = v[3] = 1.0;
    }
}

/* The consistent model's discard nodes 0..nk-1 at turn t + 1: the policy's values (lanes
 * 0-2) are those of the draw node it prefers (ev_prefer; the first of equals), the best of any
 * policy (lanes 3-4) lane by lane the largest. */
static inline void ev_policy_of_kids8(const double *draw, const int32_t *kids,
                                      const uint32_t *kids_at, long long nk, double *disc) {
    for (long long a = 0; a < nk; a++) {
        uint32_t e = kids_at[a], end = kids_at[a + 1];
        if (e == end) {             /* no draw node: nothing (ev_best_of_kids4) */
            ev4_store(disc + 8 * a, ev4_set1(0.0));
            ev4_store(disc + 8 * a + 4, ev4_set1(0.0));
            continue;
        }
        const double *pick = draw + 8 * (int64_t)kids[e];
        double tenpai = pick[3], win = pick[4];
        for (e++; e < end; e++) {
            const double *b = draw + 8 * (int64_t)kids[e];
            if (ev_prefer(b[2], b[1], b[0], pick))
                pick = b;
            tenpai = tenpai > b[3] ? tenpai : b[3];
            win = win > b[4] ? win : b[4];
        }
        double *v = disc + 8 * a;
        v[0] = pick[0];
        v[1] = pick[1];
        v[2] = pick[2];
        v[3] = tenpai;
        v[4] = win;
    }
}

/* The consistent model without its best-of-any-policy lanes (the batch reads only the
 * policy's): four doubles a node (tenpai, win, score, a zero lane), half the memory traffic;
 * lanes 0-2 computed exactly as by ev_policy_of_kids8 and ev_draw_turn8 (the draw pass:
 * ev_draw_turn4 with policy 1). */
static inline void ev_policy_of_kids4(const double *draw, const int32_t *kids,
                                      const uint32_t *kids_at, long long nk, double *disc) {
    for (long long a = 0; a < nk; a++) {
        uint32_t e = kids_at[a], end = kids_at[a + 1];
        if (e == end) {             /* no draw node: nothing (ev_best_of_kids4) */
            ev4_store(disc + 4 * a, ev4_set1(0.0));
            continue;
        }
        const double *pick = draw + 4 * (int64_t)kids[e];
        for (e++; e < end; e++) {
            const double *b = draw + 4 * (int64_t)kids[e];
            if (ev_prefer(b[2], b[1], b[0], pick))
                pick = b;
        }
        ev4_store(disc + 4 * a, ev4_load(pick));
    }
}

#endif
