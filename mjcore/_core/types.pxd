# Shared C-level typedefs and constants for every mjcore kernel.
# cimport from here; never redeclare.

ctypedef unsigned char u8
ctypedef signed char i8
ctypedef unsigned short u16
ctypedef signed short i16
ctypedef unsigned int u32
ctypedef signed int i32
ctypedef unsigned long long u64
ctypedef long long i64

cdef enum:
    N_KINDS = 34        # tile kinds 0..33: 1-9m, 1-9p, 1-9s, 1z..7z
    N_SUIT_KINDS = 9
    N_HONORS = 7
    N_BONUS = 8         # 1f-4f flowers, 5f-8f seasons (Chinese classical only)
    MAX_COPIES = 4
    MAX_MELDS = 4

# Kernel status codes, every kernel's, declared here only. 0 is success; negative values are
# errors that the Python entry points turn into InvalidHandError with the row index. Their
# reasons and messages are mjcore/status.py (a test checks the two agree).
cdef enum Status:
    ST_OK = 0
    ST_NO_YAKU = 1          # scoring: a complete hand, but no yaku: not a win
    ST_BAD_COUNT = -1       # a kind with more than 4 copies
    ST_BAD_TOTAL = -2       # tile total does not fit 13-3k / 14-3k for the melds
    ST_BAD_MELDS = -3       # number of called melds outside 0..4
    ST_BAD_TILE = -4        # tile id outside 0..33
    ST_NOT_AGARI = -5       # operation needs a complete hand
    ST_PARSE = -7           # text could not be parsed
    ST_DISCARD_NOT_HELD = -16   # dataset: the discard made is a kind the 14-3k hand does not hold
    ST_BAD_SITUATION = -20  # scoring: contradictory flags (riichi with an open hand, ...)
    ST_BAD_SEATS = -21      # scoring: winds, seats or pao seat out of range
    ST_NOT_IN_SANMA = -22   # scoring, three players: a 2m-8m tile or a chi
    ST_EV_SHANTEN = -30     # expected value: the hand is above the searched shanten
    ST_EV_NODES = -31       # expected value: the graph passed its node budget
    ST_EV_DEADLINE = -32    # expected value: the search passed its time budget
    ST_EV_MEMORY = -33      # expected value: out of memory
    ST_EV_OPTION = -34      # expected value: an option or an unseen count out of range

# Packed counts: 3 bits per kind. words[0..2] = man, pin, sou (27 bits each),
# words[3] = honors (21 bits). Bit 3*i holds the low bit of kind i's count.
cdef struct PackedHand:
    u32 words[4]

# Winning forms: a bit set saying which hand shapes count as complete. Every game passes its
# own set to the one shanten / agari / waits / ukeire kernel (shanten.pxd).
cdef enum Forms:
    FORM_STANDARD = 1       # sets and a pair (always on)
    FORM_SEVEN_PAIRS = 2    # seven distinct pairs (riichi chiitoitsu)
    FORM_ANY_PAIRS = 4      # any seven pairs, four alike counting as two (classical option)
    FORM_ORPHANS = 8        # thirteen orphans (riichi kokushi, classical Thirteen Unique Wonders)
    FORMS_RIICHI = 11       # standard | seven distinct pairs | orphans
    FORMS_CLASSICAL = 9     # standard | orphans
    FORMS_CLASSICAL_PAIRS = 13   # classical with its seven_pairs option on
