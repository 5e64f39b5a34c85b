# Decomposition of a complete hand into sets + pair (and the seven-pairs and
# thirteen-orphans forms), with the wait shape of each reading of the winning tile.
from .types cimport u8, i8, u16, i32

cdef enum:
    MAX_DECOMP = 64     # far above the real maximum for 14 tiles

# Hand forms.
cdef enum:
    FORM_STANDARD = 0
    FORM_CHIITOITSU = 1
    FORM_KOKUSHI = 2

# Wait shapes (the reading of the winning tile in one decomposition).
cdef enum:
    WAIT_RYANMEN = 0
    WAIT_KANCHAN = 1
    WAIT_PENCHAN = 2
    WAIT_SHANPON = 3
    WAIT_TANKI = 4
    WAIT_KOKUSHI = 5        # kokushi, single wait (the pair was already held)
    WAIT_KOKUSHI_13 = 6     # kokushi, thirteen-sided wait (the winning tile is the pair)

# Set kinds.
cdef enum:
    SET_SEQ = 0
    SET_TRIPLET = 1
    SET_KAN = 2

# Called-meld kinds (same order as mjcore.hand.MeldKind).
cdef enum:
    MK_CHI = 0
    MK_PON = 1
    MK_KAN_OPEN = 2
    MK_KAN_CLOSED = 3
    MK_KAN_ADDED = 4

cdef struct MeldC:
    u8 kind         # MK_*
    u8 tile         # lowest tile kind of the set
    u8 red          # red fives in the meld
    u8 from_rel     # 0 own (closed kan), 1 shimocha, 2 toimen, 3 kamicha

cdef struct HandC:
    u8 counts[34]   # closed tiles, winning tile included
    u8 n_melds
    MeldC melds[4]
    u8 red          # red fives among the closed tiles

cdef struct SetC:
    u8 kind         # SET_*
    u8 tile         # lowest tile kind
    u8 concealed    # closed-part set or closed kan (a ron-completed triplet is still 1 here)
    u8 meld         # 1 when it is a called meld (closed kan included)

cdef struct Decomp:
    u8 form         # FORM_*
    u8 pair         # pair kind (kokushi: the doubled kind; chiitoitsu: the winning tile)
    u8 n_sets       # 4 for the standard form, 0 otherwise
    SetC sets[4]    # called melds first, then closed sets by tile
    u8 wait         # WAIT_*
    i8 win_set      # index into sets of the set completed by the winning tile; -1 = pair/other

# Validate closed counts + melds (status from types.Status, 0 = ok).
cdef int check_hand(const HandC* hand) noexcept nogil

# Every decomposition of the complete hand, each reading of win_tile separately.
# Returns the number written (0 = not a complete hand) or a negative status.
cdef int decompose_hand(const HandC* hand, int win_tile, Decomp* out, int cap) noexcept nogil

# Fill a HandC from Python values (counts: 34 ints; melds: (kind, tile, red, from_rel)).
cdef int fill_hand(HandC* h, object counts, object melds, int red) except -1
