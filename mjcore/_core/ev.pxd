# Expected value of discards: the one-player model of mjcore/riichi/ev.md (mahjong-cpp's, number for
# number). One graph of draw and discard nodes per hand, shared by all its discards; values by
# turn in flat arrays. The contract for every caller.
from .types cimport u8, i8, u16, u32, i32, u64, i64, PackedHand
from .decompose cimport MeldC
from .scoring cimport RulesC, MAX_INDICATORS

cdef enum:
    EV_MAX_TURNS = 24       # t_max at most (mahjong-cpp's default is 18)
    EV_N_TILES = 37         # candidates: kinds 0..33, then red 5m 5p 5s as 34..36
    EV_COLUMNS = 5          # tenpai probability, win probability, expected score (one policy);
                            # then the highest tenpai and win probability of any policy
    EV_COMPATIBLE = 0       # EvRequest.model: mahjong-cpp's (mjcore/riichi/ev.md §3), number for number
    EV_CONSISTENT = 1       # true probabilities (the discards go back into the wall of S, or S + 1
                            # tiles for a 14-tile start) and the values of the best-score policy

# One request: the hand, what is unseen, the scoring situation and the options.
cdef struct EvRequest:
    u8 counts[34]           # closed tiles per kind (red fives inside their kinds)
    u8 red[3]               # red 5m 5p 5s among the closed tiles (0 when red fives are off)
    u8 n_melds
    MeldC melds[4]
    u8 wall[34]             # unseen copies per kind at the start (red fives inside)
    u8 wall_red[3]          # unseen red fives at the start
    u8 n_dora
    u8 dora_ind[MAX_INDICATORS]
    u8 seat_wind            # 0 E .. 3 N
    u8 round_wind
    u8 kita                 # norths set aside (three players)
    u8 t_max                # 1..EV_MAX_TURNS
    u8 first_turn           # the first turn whose values are wanted (0 or 1: all); a node
                            # at depth j then has values from turn first_turn + j on only
    u8 extra                # how far the search may leave the greedy line
    u8 use_red              # red fives are their own kinds and count as dora
    u8 use_ura              # expected ura dora after riichi
    u8 shanten_down         # 向聴戻し: discards that raise the shanten
    u8 tegawari             # 手変わり: draws that keep it
    u8 model                # EV_COMPATIBLE or EV_CONSISTENT
    u8 keep_wins            # 1: EvResult.wins lists every winning draw with its score
    u8 policy_only          # consistent model: only the policy's columns (the best-of ones NaN),
                            # four doubles a node instead of eight (the batch's case)
    i8 max_shanten          # hands above this are not searched (status ST_EV_SHANTEN)
    i64 max_nodes           # node budget (status ST_EV_NODES past it)
    double max_seconds      # time budget, 0 = none (status ST_EV_DEADLINE past it)
    u8 cpu_clock            # 1: max_seconds counts the thread's CPU time (waiting for a
                            # core does not count), 0: wall time
    RulesC rules

cdef struct EvCandidate:
    u8 tile                 # the discard, 0..36 (EV_N_TILES); 255 for a 13-tile hand's answer
    i8 shanten              # after the discard
    u8 evaluated            # 1 when the graph holds the discard's draw node
    i32 node                # that draw node, or -1
    u64 necessary           # kinds whose draw lowers the shanten after the discard

# One winning draw of the graph: the complete hand, the red fives held (bits 0-2) and the
# riichi flag (bit 3), the tile drawn and its score (the ura expectation included).
cdef struct EvWin:
    PackedHand hand
    u32 flags
    u8 tile
    double score

cdef struct EvResult:
    i32 status              # ST_OK or a negative Status (types.pxd)
    i8 shanten              # of the request's hand
    i64 nodes               # nodes of the graph ("searched")
    i64 edges
    i64 win_edges           # edges scored (each once)
    i32 total_unseen        # S
    i32 n_cand
    EvCandidate cand[EV_N_TILES]
    double* values          # [n_cand][EV_COLUMNS][t_max], owned by the caller: ev_free
    EvWin* wins             # with EvRequest.keep_wins: win_edges entries (ev_free), else NULL
    i64 bytes_peak          # memory the graph held at its largest

# Buffers one thread reuses from request to request (the batch keeps one a thread, so a row
# reuses the pages of the rows before it): zeroed before the first request, ev_work_free after
# the last. It holds as much as the largest request it served needed (EvResult.bytes_peak).
cdef enum:
    EV_WORK_BUFFERS = 32
cdef struct EvWork:
    void* buf[EV_WORK_BUFFERS]
    size_t cap[EV_WORK_BUFFERS]

# q.wall and q.wall_red from what is seen: q's closed tiles, red fives, melds, dora indicators
# and norths set aside, plus visible[34] and visible_red[3] (red fives seen elsewhere, red
# indicators included; either may be NULL). ST_BAD_COUNT past 4 of a kind or 1 of a red five,
# ST_NOT_IN_SANMA for a 2m-8m tile under three-player rules, ST_BAD_TILE, ST_BAD_MELDS.
cdef int ev_fill_wall(EvRequest* q, const u8* visible, const u8* visible_red) noexcept nogil
# Check the request (counts, walls, options); ST_OK or a negative Status.
cdef int ev_check(const EvRequest* q) noexcept nogil
# Build the graph and its values. out.values is malloc'd (NULL on error); free with ev_free.
cdef int ev_compute(const EvRequest* q, EvResult* out) noexcept nogil
# ev_compute with the graph in work's buffers (kept there for the next request).
cdef int ev_compute_in(const EvRequest* q, EvResult* out, EvWork* work) noexcept nogil
cdef void ev_free(EvResult* out) noexcept nogil
cdef void ev_work_free(EvWork* work) noexcept nogil
