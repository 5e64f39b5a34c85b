# Hot paths of the riichi engine (mjcore.riichi), run on every turn or hand: the discard
# choices of a hand, a draw and the bookkeeping of a discard, which seats might claim a discard,
# the check that an agent's choice was offered, the random agent's choice, and the seeded wall
# shuffle. tests/riichi/test_fast_paths.py checks each against plain Python or numpy.
from cpython.bytearray cimport PyByteArray_AS_STRING

from mjcore._core.shanten cimport advance_packed, pack_counts
from mjcore._core.types cimport PackedHand, ST_BAD_COUNT, ST_BAD_MELDS, ST_BAD_TOTAL, u8, u64


cdef inline bint _is_red(long tile):
    return tile == 16 or tile == 52 or tile == 88


def discard_choices(list hand, long drawn, tuple plain, tuple tsumogiri, u64 forbidden=0):
    """The discard actions of the sorted ``hand`` (136-ids), in hand order: ``plain[t]`` for
    the first copy ``t`` of each tile class (kind and red), ``tsumogiri[drawn]`` for the drawn
    tile (``drawn`` < 0: none); tiles whose kind is in the ``forbidden`` mask are left out."""
    cdef list out = []
    cdef Py_ssize_t i, n = len(hand)
    cdef Py_ssize_t size = len(plain)
    cdef long t, cls, prev = -1
    if len(tsumogiri) != size:
        raise ValueError("plain and tsumogiri tables differ in size")
    for i in range(n):
        t = hand[i]
        if t < 0 or t >= size or t >= 136:
            raise ValueError(f"tile id {t} in the hand is out of range")
        if (forbidden >> (t >> 2)) & 1:
            continue
        if t == drawn:
            out.append(tsumogiri[t])
            continue
        cls = ((t >> 2) << 1) | _is_red(t)
        if cls != prev:
            out.append(plain[t])
            prev = cls
    return out


def may_claim(list counts, list waits, list riichi, int seat, int kind, bint callable_):
    """The seats other than ``seat`` that might claim its discard of ``kind``, as a bitmask
    (bit s for seat s): those waiting on the kind (ron, or furiten when they pass), and, while
    ``callable_`` (tiles left), those not in riichi holding a pair of it, or the next seat
    holding two tiles that make a run with it. ``counts``: four bytearrays of 34."""
    cdef int d, s, n, out = 0
    cdef u64 w
    cdef const unsigned char* c
    cdef bytearray row
    if not 0 <= kind < 34 or not 0 <= seat < 4:
        raise ValueError("kind or seat out of range")
    if len(counts) != 4 or len(waits) != 4 or len(riichi) != 4:
        raise ValueError("counts, waits and riichi need one entry per seat")
    for d in range(1, 4):
        s = (seat + d) & 3
        w = waits[s]
        if (w >> kind) & 1:
            out |= 1 << s
            continue
        if not callable_ or riichi[s]:
            continue
        row = counts[s]
        if len(row) != 34:
            raise ValueError("a counts row needs 34 entries")
        c = <const unsigned char*>PyByteArray_AS_STRING(row)
        if c[kind] >= 2:
            out |= 1 << s
        elif d == 1 and kind < 27:
            n = kind % 9
            if ((n >= 2 and c[kind - 2] and c[kind - 1])
                    or (1 <= n <= 7 and c[kind - 1] and c[kind + 1])
                    or (n <= 6 and c[kind + 1] and c[kind + 2])):
                out |= 1 << s
    return out


def offered(object action, list actions):
    """``action in actions``, the identical object looked for first (agents return one of the
    offered actions, so the equality test of ``in`` is rarely needed)."""
    cdef Py_ssize_t i
    for i in range(len(actions)):
        if <object>actions[i] is action:
            return True
    return action in actions


def kind_counts(list hand):
    """The 34 kind counts of a hand of 136-ids, as a bytearray."""
    cdef bytearray out = bytearray(34)
    cdef unsigned char* c = <unsigned char*>PyByteArray_AS_STRING(out)
    cdef long t
    for x in hand:
        t = x
        if t < 0 or t >= 136:
            raise ValueError(f"tile id {t} out of range")
        if c[t >> 2] >= 4:
            raise ValueError(f"a fifth tile of kind {t >> 2}")
        c[t >> 2] += 1
    return out


def take_draw(list hand, bytearray counts, long tile):
    """Put a drawn ``tile`` into the sorted ``hand`` and its ``counts``."""
    cdef Py_ssize_t lo = 0, hi = len(hand), mid
    cdef u8* c
    if tile < 0 or tile >= 136 or len(counts) != 34:
        raise ValueError("tile or counts out of range")
    c = <u8*>PyByteArray_AS_STRING(counts)
    if c[tile >> 2] >= 4:
        raise ValueError(f"a fifth tile of kind {tile >> 2}")
    while lo < hi:              # insort (right)
        mid = (lo + hi) >> 1
        if tile < <long>hand[mid]:
            hi = mid
        else:
            lo = mid + 1
    hand.insert(lo, tile)
    c[tile >> 2] += 1


def take_discard(list hand, bytearray counts, list river, long tile, long drawn, int n_melds,
                 int seat, list shanten13, list waits, list disc_kinds, list furiten_temp,
                 list has_discarded):
    """Move ``tile`` from the seat's sorted ``hand`` (and ``counts``) to its ``river``, add its
    kind to ``disc_kinds[seat]``, clear ``furiten_temp[seat]``, set ``has_discarded[seat]``,
    and keep ``shanten13[seat]`` (exact when <= 1, else a lower bound) and ``waits[seat]``
    (winning kinds when tenpai, else 0) of the 13-3k hand left.
    A tsumogiri keeps the hand of before the draw, so both stand; after a draw a hand at 3 or
    more is at most one lower. Returns 0, or the shanten kernel's negative status."""
    cdef Py_ssize_t i, n = len(hand)
    cdef long kind = tile >> 2
    cdef int sh, total
    cdef u64 mask = 0
    cdef PackedHand h
    cdef u8* c
    if tile < 0 or tile >= 136 or not 0 <= seat < 4 or len(counts) != 34:
        raise ValueError("tile, seat or counts out of range")
    for i in range(n):
        if <long>hand[i] == tile:
            break
    else:
        raise ValueError(f"tile {tile} is not in the hand")
    c = <u8*>PyByteArray_AS_STRING(counts)
    if c[kind] == 0:
        raise ValueError(f"the counts hold no tile of kind {kind}")
    del hand[i]
    c[kind] -= 1
    river.append(tile)
    disc_kinds[seat] = <u64>disc_kinds[seat] | ((<u64>1) << kind)
    furiten_temp[seat] = False
    has_discarded[seat] = True
    if tile == drawn:
        return 0
    sh = shanten13[seat]
    if drawn >= 0 and sh >= 3:
        shanten13[seat] = sh - 1
        waits[seat] = 0
        return 0
    if n_melds < 0 or n_melds > 4:
        return ST_BAD_MELDS
    total = pack_counts(c, &h)
    if total < 0:
        return ST_BAD_COUNT
    if total + 3 * n_melds != 13:
        return ST_BAD_TOTAL
    sh = advance_packed(&h, n_melds, &mask)
    if sh < -1:
        return sh
    shanten13[seat] = sh
    waits[seat] = mask if sh == 0 else 0
    return 0


cdef class UniformChoice:
    """``actions[int(random() * len(actions))]``: the random agent's choice, called per
    decision without a Python frame (``random``: the agent's ``Random.random``)."""
    cdef object random

    def __init__(self, random):
        self.random = random

    def __call__(self, list actions):
        cdef Py_ssize_t i, n = len(actions)
        cdef double r
        if n == 0:
            raise ValueError("no actions to choose from")
        r = self.random()
        if not 0.0 <= r < 1.0:
            raise ValueError(f"random() gave {r}, not a number in [0, 1)")
        i = <Py_ssize_t>(r * n)
        if i >= n:
            raise IndexError("the choice is out of range")
        return actions[i]


# ---- the seeded wall shuffle ---------------------------------------------------------------
# numpy's Generator(PCG64(SeedSequence(words))).permutation(136), then two integers(1, 7),
# computed without numpy objects (one call per hand instead of a dozen). The algorithms are
# those of numpy: SeedSequence's hash mixing of four 32-bit words, PCG64 (128-bit LCG, XSL-RR
# output, 32-bit draws taken from halves of 64-bit ones), the Fisher-Yates shuffle with masked
# rejection, and Lemire's bounded draw. tests/riichi/test_fast_paths.py checks it against numpy.

cdef struct Pcg64:
    u64 state_hi, state_lo, inc_hi, inc_lo
    u64 buffered
    bint has_buffered

cdef u64 _MULT_HI = 2549297995355413924ULL
cdef u64 _MULT_LO = 4865540595714422341ULL


cdef inline void _mul64(u64 a, u64 b, u64* hi, u64* lo) noexcept nogil:
    cdef u64 a0 = a & 0xFFFFFFFFULL, a1 = a >> 32, b0 = b & 0xFFFFFFFFULL, b1 = b >> 32
    cdef u64 p0 = a0 * b0, p1 = a0 * b1, p2 = a1 * b0, p3 = a1 * b1
    cdef u64 mid = (p0 >> 32) + (p1 & 0xFFFFFFFFULL) + (p2 & 0xFFFFFFFFULL)
    lo[0] = (p0 & 0xFFFFFFFFULL) | (mid << 32)
    hi[0] = p3 + (p1 >> 32) + (p2 >> 32) + (mid >> 32)


cdef inline void _pcg_step(Pcg64* g) noexcept nogil:
    cdef u64 hi, lo, sum_lo
    _mul64(g.state_lo, _MULT_LO, &hi, &lo)
    hi += g.state_hi * _MULT_LO + g.state_lo * _MULT_HI
    sum_lo = lo + g.inc_lo
    hi += g.inc_hi + (sum_lo < lo)
    g.state_hi = hi
    g.state_lo = sum_lo


cdef inline u64 _pcg_next64(Pcg64* g) noexcept nogil:
    cdef u64 x
    cdef unsigned int rot
    _pcg_step(g)
    x = g.state_hi ^ g.state_lo
    rot = <unsigned int>(g.state_hi >> 58)
    return (x >> rot) | (x << ((64 - rot) & 63))


cdef inline u64 _pcg_next32(Pcg64* g) noexcept nogil:
    cdef u64 n
    if g.has_buffered:
        g.has_buffered = False
        return g.buffered
    n = _pcg_next64(g)
    g.has_buffered = True
    g.buffered = n >> 32
    return n & 0xFFFFFFFFULL


cdef inline u64 _hashmix(u64 value, u64* hash_const, u64 mult) noexcept nogil:
    value = (value ^ hash_const[0]) & 0xFFFFFFFFULL
    hash_const[0] = (hash_const[0] * mult) & 0xFFFFFFFFULL
    value = (value * hash_const[0]) & 0xFFFFFFFFULL
    return value ^ (value >> 16)


cdef void _pcg_seed(Pcg64* g, const u64* words) noexcept nogil:
    """SeedSequence(four 32-bit words).generate_state(4, uint64), then PCG64's seeding."""
    cdef u64 pool[4]
    cdef u64 out[8]
    cdef u64 hc = 0x43b0d7e5ULL, mixed
    cdef int i, j
    for i in range(4):
        pool[i] = _hashmix(words[i], &hc, 0x931e8875ULL)
    for i in range(4):
        for j in range(4):
            if i != j:
                mixed = (0xca01f9ddULL * pool[j] - 0x4973f715ULL * _hashmix(
                    pool[i], &hc, 0x931e8875ULL)) & 0xFFFFFFFFULL
                pool[j] = mixed ^ (mixed >> 16)
    hc = 0x8b51f9ddULL
    for i in range(8):
        out[i] = _hashmix(pool[i & 3], &hc, 0x58f38dedULL)
    # seed = state[0] << 64 | state[1], inc from state[2], state[3] (64-bit words, LE halves)
    g.state_hi = 0
    g.state_lo = 0
    g.inc_hi = ((out[4] | (out[5] << 32)) << 1) | ((out[6] | (out[7] << 32)) >> 63)
    g.inc_lo = ((out[6] | (out[7] << 32)) << 1) | 1
    _pcg_step(g)
    mixed = g.state_lo
    g.state_lo += out[2] | (out[3] << 32)
    g.state_hi += (out[0] | (out[1] << 32)) + (g.state_lo < mixed)
    _pcg_step(g)
    g.has_buffered = False
    g.buffered = 0


cdef inline u64 _interval(Pcg64* g, u64 max_value) noexcept nogil:
    cdef u64 mask = max_value, v
    if max_value == 0:
        return 0
    mask |= mask >> 1
    mask |= mask >> 2
    mask |= mask >> 4
    mask |= mask >> 8
    mask |= mask >> 16
    while True:
        v = _pcg_next32(g) & mask
        if v <= max_value:
            return v


cdef inline u64 _bounded(Pcg64* g, u64 rng) noexcept nogil:
    """A draw in [0, rng] (rng < 2**32 - 1): Lemire's method on 32-bit draws."""
    cdef u64 excl = rng + 1
    cdef u64 m = _pcg_next32(g) * excl
    cdef u64 left = m & 0xFFFFFFFFULL, threshold
    if left < excl:
        threshold = (0xFFFFFFFFULL - rng) % excl
        while left < threshold:
            m = _pcg_next32(g) * excl
            left = m & 0xFFFFFFFFULL
    return m >> 32


def shuffled_wall(bytes seed16):
    """(the 136 tiles in shuffled order, die 1, die 2) for a 16-byte seed read as a
    little-endian number: the same as numpy's ``rng = Generator(PCG64(number))``,
    ``rng.permutation(136)``, ``rng.integers(1, 7)`` twice."""
    cdef Pcg64 g
    cdef u64 words[4]
    cdef int tiles[136]
    cdef const unsigned char* p
    cdef int i, j, tmp
    cdef u64 d1, d2
    if len(seed16) != 16:
        raise ValueError("the seed must be 16 bytes")
    p = seed16
    for i in range(4):
        words[i] = (<u64>p[4 * i] | (<u64>p[4 * i + 1] << 8) | (<u64>p[4 * i + 2] << 16)
                    | (<u64>p[4 * i + 3] << 24))
    _pcg_seed(&g, words)
    for i in range(136):
        tiles[i] = i
    for i in range(135, 0, -1):
        j = <int>_interval(&g, <u64>i)
        tmp = tiles[i]
        tiles[i] = tiles[j]
        tiles[j] = tmp
    d1 = 1 + _bounded(&g, 5)
    d2 = 1 + _bounded(&g, 5)
    return [tiles[i] for i in range(136)], <int>d1, <int>d2


from mjcore._core.level cimport MJCORE_BUILT_LEVEL

BUILT_FOR = MJCORE_BUILT_LEVEL.decode()   # the instruction-set level of this module's code
