# Riichi scoring kernel: yaku, dora, fu, limits, payments. C structs in, C structs out.
from .types cimport u8, i8, u16, u32, i32, u64
from .decompose cimport HandC, Decomp, MeldC

cdef enum:
    N_YAKU = 55             # tenhou.net yaku ids 0..54 are the bit positions
    MAX_INDICATORS = 10
    MAX_FU_ITEMS = 12

# Situation flags (Situation.flags).
cdef enum:
    F_TSUMO = 1
    F_RIICHI = 2
    F_DOUBLE_RIICHI = 4
    F_IPPATSU = 8
    F_RINSHAN = 16
    F_CHANKAN = 32
    F_HAITEI = 64
    F_HOUTEI = 128
    F_TENHOU = 256
    F_CHIIHOU = 512
    F_RENHOU = 1024

# Limit codes (tenhou.net's).
cdef enum:
    LIMIT_NONE = 0
    LIMIT_MANGAN = 1
    LIMIT_HANEMAN = 2
    LIMIT_BAIMAN = 3
    LIMIT_SANBAIMAN = 4
    LIMIT_YAKUMAN = 5

# Fu item codes (FuItem.code).
cdef enum:
    FU_BASE = 0             # 20 (futei)
    FU_CHIITOITSU = 1       # 25, fixed
    FU_MENZEN_RON = 2       # +10
    FU_TSUMO = 3            # +2
    FU_SET = 4              # one triplet/kan (tile, fu)
    FU_PAIR = 5             # value pair
    FU_WAIT = 6             # kanchan / penchan / tanki
    FU_OPEN_PINFU = 7       # open 20-fu hand raised to 30
    FU_ROUNDING = 8         # rounded up to a multiple of 10

# Scoring options, packed from mjcore.riichi.rules.RuleSet.scoring_params (same order).
cdef struct RulesC:
    u8 kuitan
    u8 red_fives            # 0 = red fives ignored
    u8 kazoe                # 1: 13+ han is yakuman; 0: capped at sanbaiman
    u8 kiriage
    u8 yakuman_stacking     # 0 single, 1 composite, 2 composite + double forms
    u8 renhou               # 0 off, 1 mangan (5-han yaku), 2 yakuman
    u8 double_wind_pair_fu  # 2 or 4
    u8 rinshan_tsumo_fu     # 0 or 2
    u8 open_pinfu_30fu
    u8 ryuuiisou_needs_hatsu
    u8 pao_mask             # 1 daisangen, 2 daisuushii, 4 suukantsu
    u8 players              # 4, or 3 (sanma: seats mod 3, no 2m-8m or chi, 1m indicates 9m,
                            # tsumo without the absent share, honba 100 per payer)
    u8 nukidora             # sanma: each north set aside (Situation.n_kita) is one dora

# Seats are relative to the winner: 0 winner, 1 shimocha (next in turn), 2 toimen, 3 kamicha;
# with three players 0 winner, 1 shimocha, 2 kamicha.
cdef struct Situation:
    u8 win_tile
    u16 flags               # F_*
    u8 seat_wind            # 0 E .. 3 N; the dealer is the winner's seat at (P - seat_wind) % P
    u8 round_wind           # 0 E .. 3 N
    u8 from_rel             # discarder on ron (1..3); ignored on tsumo
    i8 pao_rel              # liable player (1..3) or -1
    u8 n_dora
    u8 n_ura
    u8 dora_ind[MAX_INDICATORS]     # dora indicators (kan dora included)
    u8 ura_ind[MAX_INDICATORS]      # ura indicators (used only with riichi)
    u16 honba               # honba paid to this winner
    u16 riichi_sticks       # sticks collected by this winner
    u8 n_kita               # norths the winner set aside (nukidora; 0 unless rules.nukidora)
    u8 ura_han              # ura dora given as a count instead of indicators (with riichi;
                            # the expected-value search scores each count once)

cdef struct FuItem:
    u8 code                 # FU_*
    u8 tile                 # set / pair tile, wait kind for FU_WAIT, else 0
    u8 fu

cdef struct ScoreOut:
    i32 status              # ST_OK, ST_NO_YAKU, or a negative error
    u64 yaku_mask           # bit i = tenhou yaku id i (dora/ura/aka bits set when counted)
    u8 yaku_han[N_YAKU]     # han per yaku id (yakuman ids: multiplier 1 or 2)
    u8 han                  # total han incl. dora (0 for yakuman hands)
    u8 fu                   # rounded fu (0 for kokushi)
    u8 n_fu_items
    FuItem fu_items[MAX_FU_ITEMS]
    u8 dora                 # dora incl. nukidora
    u8 ura
    u8 aka
    u8 yakuman              # yakuman multiplier (0 = none; kazoe counts 1)
    u8 kazoe
    u8 limit                # LIMIT_*
    i32 basic               # basic points
    i32 points              # hand value without honba or sticks (tenhou's "points")
    i32 pay[4]              # what each relative seat pays (0 for the winner), honba included
    i32 delta[4]            # score change per relative seat, sticks and honba included
                            # (with three players entry 3 is 0)
    u8 players              # rules.players, for turning relative seats into table seats
    i32 decomp_index        # index of the chosen decomposition
    i32 n_decomp
    Decomp decomp           # the chosen decomposition

cdef void rules_default(RulesC* r) noexcept nogil
# RulesC from mjcore.riichi.rules.RuleSet.scoring_params.
cdef int fill_rules(RulesC* r, tuple params) except -1


# The one place a Situation is filled (score_raw and score_plain through their range checks,
# the batch loop from its arrays), indicators apart (the caller writes dora_ind/ura_ind and
# n_dora/n_ura). score_hand reports a value out of range as ST_BAD_TILE or ST_BAD_SEATS.
cdef inline void fill_situation(Situation* s, u8 win_tile, u16 flags, u8 seat_wind,
                                u8 round_wind, u8 from_rel, i8 pao_rel, u16 honba,
                                u16 riichi_sticks, u8 kita) noexcept nogil:
    s.win_tile = win_tile
    s.flags = flags
    s.seat_wind = seat_wind
    s.round_wind = round_wind
    s.from_rel = from_rel
    s.pao_rel = pao_rel
    s.honba = honba
    s.riichi_sticks = riichi_sticks
    s.n_kita = kita
    s.ura_han = 0

# Score one hand (the hand includes the winning tile). Returns out.status.
cdef int score_hand(const HandC* hand, const Situation* sit, const RulesC* rules,
                    ScoreOut* out) noexcept nogil

# out.points of score_hand for u = 0..max_ura more ura han (points[max_ura + 1]), the readings
# decomposed and evaluated once. ST_OK, ST_NO_YAKU (all 0), or what score_hand would return.
cdef int score_points_by_ura(const HandC* hand, const Situation* sit, const RulesC* rules,
                             int max_ura, i32* points) noexcept nogil
