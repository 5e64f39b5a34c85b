"""Single-hand analysis: shanten, agari, waits and ukeire.

Every function takes a ``Hand`` or an mpsz string (called melds after the closed tiles, see
``mjcore.hand``) and raises ``InvalidHandError`` for malformed or impossible hands.
"""
from __future__ import annotations

from collections.abc import Iterable
from operator import getitem

from ._core import shanten as _k
from .errors import InvalidHandError
from .hand import Hand, as_hand
from .results import Shanten, Ukeire, UkeireOption, Wait, Waits
from .tiles import parse_kinds

_SIZES = {0: "13 or 14", 13: "13", 14: "14"}

# (shanten after, -remaining, discard, advancing kinds as bytes): one row of ``ukeire_rows``
Row = tuple[int, int, "int | None", bytes]


def _fail(hand: Hand, status: int, want: int, what: str) -> InvalidHandError:
    if status == -1:
        return InvalidHandError(f"hand '{hand}': a tile kind has more than 4 copies",
                                reason="too_many_copies", text=str(hand))
    if status == -3:
        return InvalidHandError(f"hand '{hand}': {hand.n_melds} called melds (at most 4)",
                                reason="bad_meld_count", text=str(hand))
    size = _SIZES[want]
    return InvalidHandError(
        f"hand '{hand}': {hand.n_closed} closed tiles with {hand.n_melds} called meld(s); "
        f"{what} needs {size} tiles counting 3 per meld",
        reason="wrong_tile_count", text=str(hand))


def _shanten_cache() -> list[Shanten]:
    # Every (standard, chiitoitsu, kokushi) combination, built once: results are immutable.
    out = []
    for s in range(-1, 9):
        for c in range(-1, 8):
            for k in range(-1, 15):
                out.append(Shanten(s, None if c == 7 else c, None if k == 14 else k))
    return out


_SHANTEN = _shanten_cache()
_forms_index = _k.forms_index
_advance = _k.advance
_ukeire = _k.ukeire


def shanten(hand: Hand | str) -> Shanten:
    """Minimum shanten over standard, seven pairs and thirteen orphans (-1 = complete).

    The result is an ``int`` with ``.standard``, ``.chiitoitsu`` and ``.kokushi``; the last two
    are None for hands with called melds. Takes 13-3k or 14-3k closed tiles.
    """
    h = hand if type(hand) is Hand else as_hand(hand)
    i = _forms_index(h._packed, h.n_melds)
    if i < 0:
        raise _fail(h, i, 0, "shanten")
    return _SHANTEN[i]


def is_agari(hand: Hand | str) -> bool:
    """Whether a hand of 14-3k closed tiles is complete in any form."""
    h = hand if type(hand) is Hand else as_hand(hand)
    r = _k.agari(h._packed, h.n_melds)
    if r < 0:
        raise _fail(h, r, 14, "an agari check")
    return r == 1


# -- advancing tiles ----------------------------------------------------------------------------

def _kind_table(offset: int, bits: int) -> list[bytes]:
    # entry m: the kinds offset+b for every bit b set in m, ascending, one byte each
    table = [b""]
    for b in range(bits):
        kind = bytes((offset + b,))
        table += [t + kind for t in table]
    return table


_KINDS_LO, _KINDS_MID, _KINDS_HI = _kind_table(0, 12), _kind_table(12, 12), _kind_table(24, 10)
_UNSEEN_OF_SEEN = bytes(max(0, 4 - c) for c in range(256))
_HELD_DIGIT = b"0" + b"1" * 255  # count -> ASCII bit, for int(..., 2)
_PAD = bytes(256 - 34)
# One shared Wait per (kind, remaining): they are immutable, so results can share them.
_WAIT = tuple(tuple(Wait(k, r) for r in range(5)) for k in range(34))


def kinds_of(mask: int) -> bytes:
    """The kinds whose bit is set in a 34-bit mask, ascending, one byte each."""
    return _KINDS_LO[mask & 0xFFF] + _KINDS_MID[mask >> 12 & 0xFFF] + _KINDS_HI[mask >> 24]


def unseen_counts(hand: Hand, kinds: list[int] | None) -> bytes:
    """Per kind, 4 minus the copies in the hand (closed and melds) and in ``kinds`` (visible
    tiles, already parsed), at least 0; padded to 256 bytes so it can ``translate`` kinds."""
    if not kinds:
        if not hand.melds:
            return hand._packed.translate(_UNSEEN_OF_SEEN) + _PAD
        return bytes(hand.all_counts).translate(_UNSEEN_OF_SEEN) + _PAD
    seen = list(hand.all_counts)
    for k in kinds:
        seen[k] += 1
    return bytes([4 - x if x < 4 else 0 for x in seen]) + _PAD


def ukeire_rows(h: Hand, kinds: list[int] | None) -> tuple[int, list[Row], bytes]:
    """What ``ukeire`` reports, before building result objects (serializers read it directly).

    ``kinds``: the visible tiles as kind ids (already checked). Returns the current shanten,
    the options best first as rows ``(shanten after, -remaining, discard, advancing kinds)``
    (one row with discard None for a 13-3k tile hand) and the unseen count per kind.
    """
    n_melds = h.n_melds
    packed = h._packed
    total = h.n_closed + 3 * n_melds
    if total == 13:
        st, s, mask = _advance(packed, n_melds)
        if st:
            raise _fail(h, st, 13, "ukeire")
        unseen = unseen_counts(h, kinds)
        tiles = kinds_of(mask)
        return s, [(s, -sum(tiles.translate(unseen)), None, tiles)], unseen
    st, _best, after, masks = _ukeire(packed, n_melds)
    if st or after is None or masks is None:
        raise _fail(h, st, 0 if total not in (13, 14) else 14, "ukeire")
    i = _forms_index(packed, n_melds)
    if i < 0:
        raise _fail(h, i, 14, "ukeire")
    unseen = unseen_counts(h, kinds)
    rows: list[Row] = []
    done: dict[int, tuple[int, bytes]] = {}
    for k in kinds_of(int(packed.translate(_HELD_DIGIT)[::-1], 2)):  # the kinds held
        mask = masks[k]
        known = done.get(mask)
        if known is None:
            tiles = kinds_of(mask)
            known = done[mask] = (-sum(tiles.translate(unseen)), tiles)
        rows.append((after[k], known[0], k, known[1]))
    rows.sort()
    return int(_SHANTEN[i]), rows, unseen


# -- result objects -----------------------------------------------------------------------------

# The results are frozen slotted dataclasses; filling their slots directly skips the frozen
# __init__ (one object.__setattr__ per field) on the hot paths. Same fields, same values.
_new = object.__new__


def _slot_setters(cls: type, *names: str) -> tuple:
    return tuple(cls.__dict__[name].__set__ for name in names)


_set_option = _slot_setters(UkeireOption, "discard", "shanten", "tiles")
_set_ukeire = _slot_setters(Ukeire, "shanten", "options")
_set_waits = _slot_setters(Waits, "shanten", "tiles")


def _waits_tuple(tiles: bytes, unseen: bytes) -> tuple[Wait, ...]:
    table = _WAIT
    return tuple([table[k][unseen[k]] for k in tiles])


def _make_waits(shanten: int, tiles: tuple[Wait, ...]) -> Waits:
    w = _new(Waits)
    _set_waits[0](w, shanten)
    _set_waits[1](w, tiles)
    return w


def waits(hand: Hand | str, visible: str | Iterable[int | str] = ()) -> Waits:
    """The winning tiles of a 13-3k tile hand with how many copies remain unseen.

    ``visible``: tiles seen elsewhere (discards, melds, dora indicators), as an mpsz string or
    kinds. A wait on a kind the hand holds all four of does not count. Not tenpai -> no tiles.
    """
    h = hand if type(hand) is Hand else as_hand(hand)
    st, s, mask = _advance(h._packed, h.n_melds)
    if st:
        raise _fail(h, st, 13, "waits")
    if s != 0:
        return _make_waits(s, ())
    kinds = parse_kinds(visible) if visible else None  # type: ignore[arg-type]
    return _make_waits(0, _waits_tuple(kinds_of(mask), unseen_counts(h, kinds)))


def ukeire(hand: Hand | str, visible: str | Iterable[int | str] = ()) -> Ukeire:
    """Tile efficiency, like tenhou.net/2's analyser.

    For 14-3k tiles: every discard with the shanten after it and the tiles that would advance
    the rest; for 13-3k tiles: one option (``discard=None``) with the advancing tiles. Options
    are sorted best first: lowest shanten, then most tiles remaining, then tile order.
    """
    h = hand if type(hand) is Hand else as_hand(hand)
    kinds = parse_kinds(visible) if visible else None  # type: ignore[arg-type]
    current, rows, unseen = ukeire_rows(h, kinds)
    set_discard, set_shanten, set_tiles = _set_option
    if len(rows) == 1:
        waits_of = None
    else:  # this hand's Wait per kind, shared by every option
        waits_of = list(map(getitem, _WAIT, unseen)).__getitem__
    shared: dict[bytes, tuple[Wait, ...]] = {}
    options = []
    for s, _neg, discard, tiles in rows:
        waits_ = shared.get(tiles)
        if waits_ is None:
            waits_ = shared[tiles] = (_waits_tuple(tiles, unseen) if waits_of is None
                                      else tuple(map(waits_of, tiles)))
        o = _new(UkeireOption)
        set_discard(o, discard)
        set_shanten(o, s)
        set_tiles(o, waits_)
        options.append(o)
    u = _new(Ukeire)
    _set_ukeire[0](u, current)
    _set_ukeire[1](u, tuple(options))
    return u
