# One hand per call: mjcore.shanten, mjcore.is_agari and mjcore.waits as compiled functions.
#
# A Hand (exactly that class) under rules the kernels know (None, or the rules value
# mjcore.analysis last told shanten.know_rules) goes from the call to the kernel with no Python
# frame between: its slots are read at their offsets, the result comes from a table of shared
# objects or is built here. Everything else (a string, other rules, visible tiles, a hand the
# kernel rejects) goes to the general functions of mjcore.analysis (use_general), which give the
# same answers and raise the same errors: the fast path never raises for a bad hand itself.

from mjcore._core.types cimport u8, u64, PackedHand, ST_OK, FORMS_RIICHI
from mjcore._core.shanten cimport (check_row, shanten_forms, agari_forms, advance_forms,
                                   rules_known)

from mjcore.hand import Hand
from mjcore.results import Shanten, Wait, Waits


cdef extern from "structmember.h":      # PyMemberDef's fields (descrobject.h from 3.12 on)
    ctypedef struct PyMemberDef:
        Py_ssize_t offset

from cpython.object cimport PyObject, PyTypeObject

cdef extern from "Python.h":
    ctypedef struct PyMemberDescrObject:
        PyMemberDef* d_member
    PyTypeObject PyMemberDescr_Type
    PyTypeObject* Py_TYPE(PyObject*)
    void Py_INCREF(PyObject*)
    bint PyBytes_CheckExact(PyObject*)
    const char* PyBytes_AS_STRING(PyObject*)
    Py_ssize_t PyBytes_GET_SIZE(PyObject*)
    bint PyLong_CheckExact(PyObject*)
    long PyLong_AsLong(PyObject*)
    PyObject* PyErr_Occurred()
    void PyErr_Clear()
    void PyTuple_SET_ITEM(object, Py_ssize_t, PyObject*)
    object PyTuple_New(Py_ssize_t)
    object PyType_GenericAlloc(PyTypeObject*, Py_ssize_t)
    object PyLong_FromLong(long)
    void PyObject_GC_UnTrack(PyObject*)
    int __builtin_ctzll(unsigned long long) noexcept nogil

cdef extern from "bits.h":
    int popcount64 "mj_popcount64"(u64 x) noexcept nogil

cdef u64 ALL34 = (1ull << 34) - 1


cdef Py_ssize_t slot_offset(type cls, str name) except -1:
    """Where instances of ``cls`` keep the ``__slots__`` member ``name``."""
    descr = cls.__dict__.get(name)
    if descr is None or Py_TYPE(<PyObject*>descr) is not &PyMemberDescr_Type:
        raise TypeError(f"mjcore._core.single: {cls.__qualname__}.{name} is not a __slots__ "
                        "member; the per-call fast path needs one")
    return (<PyMemberDescrObject*><PyObject*>descr).d_member.offset


cdef inline PyObject* slot_of(object o, Py_ssize_t offset) noexcept:
    # the member's value, NULL while unset
    return (<PyObject**>((<char*><PyObject*>o) + offset))[0]


cdef inline void fill_slot(object o, Py_ssize_t offset, object value) noexcept:
    # for a new object only: its slot is still NULL
    Py_INCREF(<PyObject*>value)
    (<PyObject**>((<char*><PyObject*>o) + offset))[0] = <PyObject*>value


cdef type HandType = Hand
cdef type WaitsType = Waits
cdef Py_ssize_t PACKED = slot_offset(Hand, "_packed")
cdef Py_ssize_t N_MELDS = slot_offset(Hand, "n_melds")
cdef Py_ssize_t WAITS_SHANTEN = slot_offset(Waits, "shanten")
cdef Py_ssize_t WAITS_TILES = slot_offset(Waits, "tiles")
if Waits.__new__ is not object.__new__:
    raise TypeError("mjcore._core.single: Waits has a __new__ of its own; make_waits would "
                    "skip it")

# Every (standard, chiitoitsu, kokushi) combination, by forms index (shanten.pyx's
# forms_index: ((s + 1) * 9 + c + 1) * 16 + k + 1, c = 7 and k = 14 meaning None). Results are
# immutable, so every call shares them; mjcore.analysis uses this same table.
SHANTEN_RESULTS = tuple([Shanten(s, None if c == 7 else c, None if k == 14 else k)
                         for s in range(-1, 9) for c in range(-1, 8) for k in range(-1, 15)])
cdef tuple _shanten_results = SHANTEN_RESULTS
# WAIT_TABLE[kind][remaining]: one shared Wait each (immutable).
WAIT_TABLE = tuple([tuple([Wait(k, r) for r in range(5)]) for k in range(34)])
cdef PyObject* _wait_of[34][5]
cdef int _k, _r
for _k in range(34):
    for _r in range(5):
        _wait_of[_k][_r] = <PyObject*>WAIT_TABLE[_k][_r]

cdef object _general_shanten = None
cdef object _general_is_agari = None
cdef object _general_waits = None


def use_general(shanten, is_agari, waits):
    """The general functions (mjcore.analysis) that take every call the fast path leaves:
    ``shanten(hand, rules)``, ``is_agari(hand, rules)``, ``waits(hand, visible, rules)``."""
    global _general_shanten, _general_is_agari, _general_waits
    _general_shanten, _general_is_agari, _general_waits = shanten, is_agari, waits


cdef int no_general() except -1:
    raise RuntimeError("mjcore._core.single: no general path set (import mjcore.analysis)")


cdef inline bint hand_parts(object hand, const u8** counts, int* n_melds) noexcept:
    """A Hand's closed counts (34 bytes) and number of called melds; False for anything else
    (another type, a subclass, an unset or odd slot)."""
    if type(hand) is not HandType:
        return False
    cdef PyObject* packed = slot_of(hand, PACKED)
    cdef PyObject* melds = slot_of(hand, N_MELDS)
    cdef long n
    if (packed == NULL or melds == NULL or not PyBytes_CheckExact(packed)
            or PyBytes_GET_SIZE(packed) != 34 or not PyLong_CheckExact(melds)):
        return False
    n = PyLong_AsLong(melds)
    if n == -1 and PyErr_Occurred() != NULL:
        PyErr_Clear()
        return False
    if n < 0 or n > 4:
        return False
    counts[0] = <const u8*>PyBytes_AS_STRING(packed)
    n_melds[0] = <int>n
    return True


cdef inline bint holds_any(const u8* counts, u64 kinds) noexcept nogil:
    # whether the hand holds a kind of the set (the kinds the rules' tile set lacks)
    cdef int k
    while kinds:
        k = __builtin_ctzll(kinds)
        kinds &= kinds - 1
        if counts[k]:
            return True
    return False


cdef inline bint packed_for(object hand, object rules, int want, PackedHand* h, int* n_melds,
                            int* forms, u64* absent, const u8** counts) noexcept:
    """The hand packed for the kernel with the forms and absent kinds of its rules, when it
    is a valid Hand of ``want`` tiles (0: 13 or 14, counting 3 per meld) under known rules
    holding no absent kind; False leaves the call to the general path."""
    if not hand_parts(hand, counts, n_melds):
        return False
    if rules is None:
        forms[0], absent[0] = FORMS_RIICHI, 0
    elif not rules_known(rules, n_melds[0], forms, absent):
        return False
    if check_row(counts[0], n_melds[0], h, want) != ST_OK:
        return False
    return absent[0] == 0 or not holds_any(counts[0], absent[0])


def shanten(hand, rules=None):
    """Minimum shanten over the winning forms of ``rules`` (-1 = complete).

    The result is an ``int`` with ``.standard``, ``.chiitoitsu`` (also ``.seven_pairs``) and
    ``.kokushi`` (also ``.thirteen_orphans``); a form is None when the rules do not have it or
    the hand has called melds. Takes 13-3k or 14-3k closed tiles. ``hand``: a ``Hand`` or an
    mpsz string; ``rules``: the winning forms (see ``mjcore.analysis``).
    """
    cdef PackedHand h
    cdef const u8* counts
    cdef int n_melds, forms, best
    cdef int out3[3]
    cdef u64 absent
    if packed_for(hand, rules, 0, &h, &n_melds, &forms, &absent, &counts):
        best = shanten_forms(&h, n_melds, forms, out3)
        if best >= -1:
            return _shanten_results[(((out3[0] + 1) * 9 + (8 if out3[1] == 99 else out3[1] + 1))
                                     * 16 + (15 if out3[2] == 99 else out3[2] + 1))]
    if _general_shanten is None:
        no_general()
    return _general_shanten(hand, rules)


def is_agari(hand, rules=None):
    """Whether a hand of 14-3k closed tiles is complete in one of the winning forms of
    ``rules``. ``hand``: a ``Hand`` or an mpsz string."""
    cdef PackedHand h
    cdef const u8* counts
    cdef int n_melds, forms, r
    cdef u64 absent
    if packed_for(hand, rules, 14, &h, &n_melds, &forms, &absent, &counts):
        r = agari_forms(&h, n_melds, forms)
        if r >= 0:
            return r == 1
    if _general_is_agari is None:
        no_general()
    return _general_is_agari(hand, rules)


cdef inline bint no_tiles(object visible) noexcept:
    # visible tiles given as an empty tuple, list or string (the default is ())
    cdef type t = type(visible)
    return (t is tuple or t is list or t is str) and len(visible) == 0


def waits(hand, visible=(), rules=None):
    """The winning tiles of a 13-3k tile hand with how many copies remain unseen.

    ``visible``: tiles seen elsewhere (discards, melds, dora indicators), as an mpsz string or
    kinds. A wait on a kind the hand holds all four of does not count. Not tenpai -> no tiles.
    ``rules``: the winning forms (see ``mjcore.analysis``).
    """
    cdef PackedHand h
    cdef const u8* counts
    cdef int n_melds, forms, s
    cdef u64 absent, mask = 0
    if no_tiles(visible) and packed_for(hand, rules, 13, &h, &n_melds, &forms, &absent,
                                        &counts):
        s = advance_forms(&h, n_melds, forms, &mask)
        if s >= -1:
            if s != 0:
                return make_waits_c(s, ())
            mask &= ALL34 & ~absent
            if n_melds == 0:
                return make_waits_c(0, wait_tuple(mask, counts, None))
            return make_waits_c(0, wait_tuple(mask, NULL, hand.all_counts))
    if _general_waits is None:
        no_general()
    return _general_waits(hand, visible, rules)


cdef tuple wait_tuple(u64 mask, const u8* counts, tuple all_counts):
    """The shared Wait of each kind in ``mask``, ascending, with the copies unseen: 4 less the
    hand's (``counts``, its closed tiles, or ``all_counts``, its melds' too). Untracked by the
    garbage collector: it holds only Waits, which hold ints."""
    cdef int n = popcount64(mask), i = 0, k, unseen
    cdef PyObject* item
    if n == 0:
        return ()
    cdef tuple out = PyTuple_New(n)
    while mask:
        k = __builtin_ctzll(mask)
        mask &= mask - 1
        if counts != NULL:
            unseen = 4 - counts[k]
        else:
            unseen = 4 - <int>all_counts[k]
        item = _wait_of[k][unseen if unseen > 0 else 0]
        Py_INCREF(item)
        PyTuple_SET_ITEM(out, i, item)
        i += 1
    PyObject_GC_UnTrack(<PyObject*>out)
    return out


cdef object make_waits_c(int shanten, tuple tiles):
    cdef object w = PyType_GenericAlloc(<PyTypeObject*>WaitsType, 0)
    fill_slot(w, WAITS_SHANTEN, PyLong_FromLong(shanten))
    fill_slot(w, WAITS_TILES, tiles)
    # no cycle can pass through it: an int and a tuple of Waits (ints)
    PyObject_GC_UnTrack(<PyObject*>w)
    return w


def make_waits(int shanten, tuple tiles):
    """``Waits(shanten, tiles)`` without the frozen dataclass's ``__init__`` and untracked by
    the garbage collector (it holds an int and Waits); the same fields, the same values."""
    return make_waits_c(shanten, tiles)


from mjcore._core.level cimport MJCORE_BUILT_LEVEL

BUILT_FOR = MJCORE_BUILT_LEVEL.decode()   # the instruction-set level of this module's code
