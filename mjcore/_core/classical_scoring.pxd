# Chinese classical scoring (chinese-classical.md §11): all four hands of a finished deal and
# the settlement. The contract for every caller (single hand, batch, engine).
#
# Winning hands are split by the shared decomposition kernel (decompose.pxd); waits for
# "filling the only place" come from the shared shanten kernel (shanten.pxd).

from mjcore._core.types cimport u8, i8, u16, i16, i32, i64, u64
from mjcore._core.decompose cimport HandC

cdef enum:
    MAX_ITEMS = 48
    NO_LIMIT_CEILING = 100000000   # a no-limit hand's score; 12x it still fits a settlement's i32

# Score items. Points items first, then doubles, then limit hands; one item per set, pair
# or reason. ITEM_NAMES in classical_scoring.pyx lists them in this order.
cdef enum ItemCode:
    IT_SET = 0              # a pung or kong: tile = its kind, flags = SF_*
    IT_PAIR = 1             # a scoring pair: tile, flags = SF_* | PAIR_* reason
    IT_MAHJONG = 2          # going Mah-Jong
    IT_SEVEN_PAIRS = 3      # the seven-pairs hand (option)
    IT_BONUS = 4            # flowers and seasons: tile = how many
    IT_FROM_WALL = 5        # winning tile drawn (wall or loose tile)
    IT_ONLY_PLACE = 6       # filling the only place
    IT_FISHING_EYES = 7     # the winning tile completed the pair
    DB_DRAGON_SET = 8       # per set (tile)
    DB_OWN_WIND_SET = 9
    DB_PREVAILING_WIND_SET = 10
    DB_LITTLE_DRAGONS = 11
    DB_BIG_DRAGONS = 12
    DB_LITTLE_WINDS = 13
    DB_BIG_WINDS = 14
    DB_THREE_CONCEALED = 15
    DB_OWN_BONUS_EACH = 16  # tile = the bonus id
    DB_OWN_BONUS_BOTH = 17
    DB_ALL_FLOWERS = 18
    DB_ALL_SEASONS = 19
    DB_NO_SCORE = 20
    DB_NO_CHOWS = 21
    DB_CONCEALED = 22
    DB_SEMI_CONCEALED = 23
    DB_ONE_SUIT_HONOURS = 24
    DB_ONE_SUIT = 25
    DB_ALL_MAJORS = 26
    DB_LOOSE_TILE = 27
    DB_LAST_TILE = 28
    DB_LAST_DISCARD = 29
    DB_ROBBING = 30
    DB_ORIGINAL_CALL = 31
    LM_HEAVEN = 32
    LM_EARTH = 33
    LM_THIRTEEN_WONDERS = 34
    LM_NINE_GATES = 35
    LM_WRIGGLING_SNAKE = 36
    LM_BURIED_TREASURE = 37
    LM_CONCEALED_CLEAR_SUIT = 38
    LM_FOUR_KONGS = 39
    LM_THREE_SCHOLARS = 40
    LM_FOUR_BLESSINGS = 41
    LM_ALL_HONOURS = 42
    LM_HEADS_TAILS = 43
    LM_IMPERIAL_JADE = 44
    LM_KONG_UPON_KONG = 45
    LM_PLUM_BLOSSOM = 46
    LM_MOON = 47
    LM_CARRYING_POLE = 48
    LM_THIRTEENTH_WIN = 49
    N_ITEM_CODES = 50

# Set flags (IT_SET / IT_PAIR items).
cdef enum:
    SF_CONCEALED = 1
    SF_KONG = 2
    SF_ADDED = 4            # an added kong (a tile added to an exposed pung)
    SF_CLAIMED_KONG = 8     # a kong claimed from a discard
    PAIR_DRAGON = 16
    PAIR_OWN = 32
    PAIR_PREVAILING = 64

# How the hand was won (DealC.win_flags).
cdef enum:
    WIN_SELF_DRAWN = 1      # from the wall or as a loose tile
    WIN_LOOSE = 2           # a loose tile (after a kong)
    WIN_LAST_TILE = 4       # the last tile of the live wall
    WIN_LAST_DISCARD = 8
    WIN_ROBBED = 16         # robbing a kong
    WIN_ORIGINAL_CALL = 32
    WIN_HEAVEN = 64         # East's dealt hand
    WIN_EARTH = 128         # East's first discard
    WIN_KONG_ON_KONG = 256  # the loose tile after a kong made from the previous loose tile
    WIN_THIRTEENTH = 512    # East's 13th consecutive Mah-Jong

# What the winning discard was claimed for (DealC.win_claim).
cdef enum:
    CLAIM_ANY = 0           # the arrangement that scores highest
    CLAIM_PAIR = 1
    CLAIM_CHOW = 2
    CLAIM_PUNG = 3

# Packed options, in the order of mjcore.classical.rules.SCORING_PARAM_NAMES.
cdef struct ClassicalRulesC:
    i32 limit
    i32 no_limit
    i32 mahjong_points
    i32 seven_pairs
    i32 seven_pairs_points
    i32 own_each_doubles
    i32 own_both_doubles
    i32 bouquet_doubles
    i32 concealed_fully_doubles
    i32 concealed_almost_doubles
    i32 kong_has_3_types
    i32 limit_flags         # rules.LIMIT_* bits
    i32 losers_settle
    i32 east_doubles
    i32 discarder_pays_double
    i32 cannon_liability
    i32 original_call
    i32 loose_tile_wall_points
    i32 scholars_need_no_chows
    i32 buried_treasure_discard_pair
    i32 moon_on_last_discard    # the Moon also on the last discard, not only the last tile

cdef struct SeatC:
    HandC hand              # concealed tiles (the winner's includes the winning tile) + sets
    u8 bonus                # bit b: bonus tile b (1f = bit 0 .. 8f = bit 7) held

cdef struct DealC:
    SeatC seats[4]          # by seat, 0 = East
    u8 prevailing           # 0 = East .. 3 = North
    i8 winner               # seat
    u8 win_tile
    u8 win_claim            # CLAIM_*
    u8 win_pair             # the pair the winner declared (a kind), 255 = the best reading
    u16 win_flags           # WIN_*
    i8 discarder            # seat, -1 for a self-drawn win
    i8 cannon               # seat liable for letting off a cannon, -1 if none
    u64 dead_kinds          # kinds whose four copies are all visible: never "available"
    u8 hidden               # bit s: seat s (a loser) did not show its hand: no tile-count
                            # check, it holds what is given (usually nothing)

cdef struct ItemC:
    u8 code                 # ItemCode
    u8 tile                 # kind (sets, pairs), count (bonus), bonus id (own bonus) or 255
    u8 flags                # SF_* / PAIR_*
    i16 value               # points, doubles, or 1 for a limit hand

cdef struct PlayerScoreC:
    i32 points              # basic points
    i32 doubles
    i64 uncapped            # points * 2^doubles (the limit for a limit hand)
    i32 score               # capped
    u8 limit_hand           # 1 when a limit hand
    u8 n_items
    ItemC items[MAX_ITEMS]

cdef struct DealScoreC:
    PlayerScoreC players[4]
    i32 owed[4][4]          # owed[a][b]: what a owes b before liability (a loser's debt)
    i32 net[4]              # after liability
    i8 cannon               # the seat that paid the others' debts to the winner, or -1

# Score all four hands and settle. Returns 0, or a negative status: ST_BAD_COUNT (five
# copies or a bonus held twice), ST_BAD_TOTAL, ST_BAD_MELDS, ST_BAD_TILE, ST_NOT_AGARI (the
# winner's hand is not complete as claimed).
cdef int score_deal(const DealC* deal, const ClassicalRulesC* rules, DealScoreC* out) noexcept nogil

# Fill ClassicalRulesC from rules.scoring_params.
cdef int fill_rules(ClassicalRulesC* r, object params) except -1
