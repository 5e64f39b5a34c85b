"""Single-hand analysis: shanten, agari, waits and ukeire, under riichi or classical rules.

Every function takes a ``Hand`` or an mpsz string (called melds after the closed tiles, see
``mjcore.hand``) and raises ``InvalidHandError`` for malformed or impossible hands.

``rules`` picks the winning forms (``winning_forms``): None (the default) or anything riichi
means riichi's standard form, chiitoitsu and kokushi. ``"classical"``, ``"bradfield"`` or a
classical rules value mean chinese-classical.md §7: four sets and a pair, Thirteen Unique
Wonders, and seven pairs only with the ``seven_pairs`` option. Classical seven pairs are any
seven pairs, four alike counting as two (Bradfield's rules.txt: "a hand of any seven pairs";
the spec is silent). Under classical rules red fives do not exist (a ``0`` is an error) and
bonus tiles beside the hand do not change its shape. Both games run the same kernels.

Three-player riichi (a riichi ``RuleSet`` with ``players=3``, such as the ``"tenhou_sanma"``
preset) plays with 108 tiles, without 2m-8m: a hand or visible tile among them is an
``InvalidHandError`` (reason ``not_in_sanma``) naming the tile, as is a chi, and those kinds
never count as waits or advancing tiles. The winning forms are riichi's, thirteen orphans
included (its 1m and 9m are in the set).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from operator import getitem
from typing import TYPE_CHECKING, Any

from . import status as _st
from ._core import shanten as _k
from ._core import single as _single
from .errors import InvalidHandError, InvalidRuleError
from .hand import Hand, MeldKind, as_hand, check_copies
from .results import Shanten, Ukeire, UkeireOption, Wait, Waits
from .tiles import TileList, parse_tile_list, tile_name

if TYPE_CHECKING:
    pass

_SIZES = {0: "13 or 14", 13: "13", 14: "14"}

# (shanten after, -remaining, discard, advancing kinds as bytes): one row of ``ukeire_rows``
Row = tuple[int, int, "int | None", bytes]


# -- rules -> winning forms ---------------------------------------------------------------------

RIICHI_FORMS: int = _k.RIICHI
CLASSICAL_FORMS: int = _k.CLASSICAL
CLASSICAL_SEVEN_PAIRS_FORMS: int = _k.CLASSICAL_SEVEN_PAIRS
_by_name: dict[str, tuple[int, object]] = {}
# What a rules value asks of a hand beyond Hand's own checks; raises InvalidHandError.
HandCheck = Callable[[Hand], None]
# What ``_rules_for_hands`` answers: (the rules value, forms, kinds in play, the kinds absent
# from the tile set (the kernels test a hand's closed counts against them), hand check or None,
# whether the check is needed for a closed hand (classical: yes; sanma: only for melds, the
# closed tiles are the kernel's)).
RulesEntry = tuple[object, int, int, int, "HandCheck | None", bool]
# id of a rules value or name -> its entry; rules values are immutable, so the answer never
# changes. Keyed by id because hashing a rules value costs more than the analysis (bounded: a
# program uses a handful).
_resolved: dict[int, RulesEntry] = {}
# The entry last looked up: most programs name one rules value throughout.
_last: RulesEntry

ALL_KINDS: int = (1 << 34) - 1
_last = (None, RIICHI_FORMS, ALL_KINDS, 0, None, False)


def resolve_rules(rules: object = None) -> tuple[int, object]:
    """``(forms, rules value or None)`` for ``rules``: see ``winning_forms``; the rules value
    when its game has no red fives (its hands are checked for them: classical), else None. The
    game of a rules value is the registry's (``mjcore.games``)."""
    if rules is None:
        return RIICHI_FORMS, None
    if isinstance(rules, str):
        known = _by_name.get(rules)
        if known is None:
            known = _by_name[rules] = _resolve_name(rules)
        return known
    from .games import GAMES, game_of_rules

    game = game_of_rules(rules)
    if game is None:
        types = ", ".join(g.rules_type.__name__ for g in GAMES.values())
        raise InvalidRuleError(f"rules {rules!r}: expected a preset name or the rules of a "
                               f"game ({types})")
    return game.winning_forms(rules), (None if game.red_fives else rules)


def _tile_kinds(rules: object) -> int:
    """The kinds in play under ``rules`` (None, a preset name or a rules value), by its game's
    registry entry."""
    from .games import game_of, game_of_rules

    if rules is None:
        return ALL_KINDS
    if isinstance(rules, str):
        game = game_of(rules)
        return game.kinds_in_play(game.preset(rules))
    found = game_of_rules(rules)
    return ALL_KINDS if found is None else found.kinds_in_play(rules)


def _resolve_name(name: str) -> tuple[int, object]:
    from .games import game_of

    game = game_of(name)            # InvalidRuleError naming every preset
    return resolve_rules(game.preset(name))


def winning_forms(rules: object = None) -> int:
    """The winning-form set the kernels use for ``rules``.

    None, ``"riichi"``, a riichi preset name or a riichi ``RuleSet``: riichi's forms (standard,
    chiitoitsu, kokushi). ``"classical"``, ``"bradfield"`` or a ``ClassicalRules``: four sets
    and a pair and Thirteen Unique Wonders, plus any seven pairs when ``seven_pairs`` is on.
    Each game's rules module answers for its values (the registry, ``mjcore.games``).
    Anything else: ``InvalidRuleError``.
    """
    return resolve_rules(rules)[0]


def kinds_in_play(rules: object = None) -> int:
    """The 34-bit set of the tile kinds that exist under ``rules`` (bit k = kind k): every
    kind, or without 2m-8m for three-player riichi (``mjcore.riichi.rules.SANMA_KINDS``)."""
    return _rules_for_hands(rules)[2]


def _rules_for_hands(rules: object) -> RulesEntry:
    """The ``RulesEntry`` of ``rules``, cached by its id."""
    global _last
    entry = _resolved.get(id(rules))
    if entry is not None and entry[0] is rules:
        _last = entry
        _tell_kernel(entry)
        return entry
    forms, without_reds = resolve_rules(rules)      # the rules value when its set has no reds
    in_play = _tile_kinds(rules)
    check: HandCheck | None = None
    if without_reds is not None:
        from .games import game_of_rules

        game = game_of_rules(without_reds)
        check = partial(_check_no_reds, game=game.name if game else "",
                        bonus_allowed=getattr(without_reds, "bonus_tiles", True) is not False)
    elif in_play != ALL_KINDS:
        check = partial(_check_in_play, in_play=in_play)
    entry = _last = (rules, forms, in_play, ALL_KINDS & ~in_play, check,
                     without_reds is not None)
    if len(_resolved) < 64:
        _resolved[id(rules)] = entry
    _tell_kernel(entry)
    return entry


def _tell_kernel(entry: RulesEntry) -> None:
    """Make ``entry`` the rules the kernels' ``*_for`` entry points know (see shanten.pyx)."""
    rules, forms, _, absent, check, every_hand = entry
    _k.know_rules(rules, forms, absent, _k.CHECK_NONE if check is None
                  else _k.CHECK_EVERY if every_hand else _k.CHECK_MELDED)


_NO_RED = (0, 0, 0)


def _not_in_play(what: str, kind: int | None, in_play: int, text: str | None = None,
                 ) -> InvalidHandError:
    """The error of a tile (or, for ``kind`` None, a chi) the tile set of the rules lacks."""
    item = "a chi" if kind is None else tile_name(kind)
    missing = " ".join(tile_name(k) for k in kinds_of(ALL_KINDS & ~in_play))
    return InvalidHandError(f"{what}: {item} is not in the tile set of the rules "
                            f"(three players: no {missing}, no chi)",
                            reason=_st.reason_of(_st.NOT_IN_SANMA), text=text)


def _in_play_error(h: Hand, in_play: int) -> InvalidHandError | None:
    """The error of a hand holding a kind (or a chi) that a tile set without some kinds
    (sanma) lacks, or None."""
    counts = h.all_counts
    for k in kinds_of(ALL_KINDS & ~in_play):
        if counts[k]:
            return _not_in_play(f"hand '{h}'", k, in_play, str(h))
    if any(m.kind == MeldKind.CHI for m in h.melds):
        return _not_in_play(f"hand '{h}'", None, in_play, str(h))
    return None


def _check_in_play(h: Hand, in_play: int) -> None:
    """A hand of a tile set without some kinds (sanma): none of them held, and no chi."""
    error = _in_play_error(h, in_play)
    if error is not None:
        raise error


def _check_no_reds(h: Hand, game: str, bonus_allowed: bool) -> None:
    """Under the rules of a game without red fives (classical): none in the hand, and no bonus
    tiles when the rules play without."""
    if h.red != _NO_RED or (h.melds and any(m.red for m in h.melds)):
        raise InvalidHandError(f"hand '{h}': red fives (0) are not tiles of the {game} "
                               "set; write 5", reason="red_five_not_in_set", text=str(h))
    if h.bonus and not bonus_allowed:
        from .tiles import format_bonus

        raise InvalidHandError(f"hand '{h}': bonus tile(s) {format_bonus(h.bonus)} with "
                               "rules that play without bonus tiles",
                               reason="bonus_not_in_play", text=str(h))


def check_visible_reds(hand: Hand, visible: str | Iterable[int | str]) -> None:
    """InvalidHandError (too_many_copies) when the red fives written among the visible tiles
    (``0``, in the text or in a name of the list) and the hand's own are more than one of a
    suit."""
    if isinstance(visible, str) and "0" not in visible:
        return
    _check_reds(hand, parse_tile_list(visible))


def _check_reds(hand: Hand, tiles: TileList) -> None:
    reds = [k // 9 for k, red in zip(tiles.kinds, tiles.reds, strict=True) if red]
    if reds:
        check_copies(hand, red=(("the visible tiles", reds),))


def _visible_kinds(visible: str | Iterable[int | str], in_play: int,
                   hand: Hand) -> list[int] | None:
    """The visible tiles as kinds (None for none), each a tile of the rules' set (which lacks
    some kinds: ``in_play`` is not ALL_KINDS); a red five written among them (``0``) beside
    the hand's own is an InvalidHandError (too_many_copies)."""
    if not visible:
        return None
    tiles = parse_tile_list(visible)   # once: ``visible`` may be an iterator
    kinds = tiles.kinds
    _check_reds(hand, tiles)
    if in_play != ALL_KINDS:
        for k in kinds:
            if not in_play >> k & 1:
                raise _not_in_play("visible tiles", k, in_play)
    return kinds


def _hand_and_rules(hand: Hand | str, rules: object) -> tuple[Hand, RulesEntry]:
    """The hand and the ``RulesEntry`` of ``rules``, after what the rules rule out beyond
    ``Hand``'s own checks and the kernels' (the kernels take the entry's absent kinds): under
    classical rules red fives, and bonus tiles when the rules play without them; under
    three-player riichi 2m-8m among the melds, and chi."""
    h = hand if type(hand) is Hand else as_hand(hand)
    entry = _last
    if entry[0] is not rules:
        entry = _rules_for_hands(rules)
    if entry[4] is not None and (h.melds or entry[5]):
        entry[4](h)
    return h, entry


def _fail(hand: Hand, status: int, want: int, what: str, in_play: int = ALL_KINDS
          ) -> InvalidHandError:
    """The error of a kernel status for ``hand``; ``want``: the tiles ``what`` takes (0 = 13 or
    14), counting 3 per meld; ``in_play``: the kinds the kernel was told are in play (its
    not_in_sanma error names the tile)."""
    if status == _st.NOT_IN_SANMA:
        error = _in_play_error(hand, in_play)
        if error is not None:
            return error
    detail = None
    if status == _st.BAD_MELDS:
        detail = f"{hand.n_melds} called melds"
    elif status == _st.BAD_TOTAL:
        detail = (f"{hand.n_closed} closed tiles with {hand.n_melds} called meld(s); "
                  f"{what} needs {_SIZES[want]} tiles counting 3 per meld")
    return _st.status_error(status, f"hand '{hand}'", detail=detail, text=str(hand))


# Every (standard, chiitoitsu, kokushi) combination by forms index, shared with the per-call
# fast path (mjcore._core.single): results are immutable.
_SHANTEN = _single.SHANTEN_RESULTS
_forms_index = _k.forms_index
_forms_index_for = _k.forms_index_for
_agari = _k.agari
_agari_for = _k.agari_for
_advance = _k.advance
_ukeire = _k.ukeire


# shanten, is_agari and waits are mjcore._core.single's compiled functions (bound at the end of
# this module): a Hand under known rules goes straight to the kernel, every other call to the
# general functions here, which give the same results and errors.

def _shanten_general(hand: Hand | str, rules: object = None) -> Shanten:
    """``shanten`` for any hand and rules (see ``mjcore._core.single.shanten``)."""
    h = hand if type(hand) is Hand else as_hand(hand)
    i = _forms_index_for(h._packed, h.n_melds, rules)
    if i < 0:
        i = _general_path(h, rules, i, _forms_index, 0, "shanten")
    return _SHANTEN[i]


def _is_agari_general(hand: Hand | str, rules: object = None) -> bool:
    """``is_agari`` for any hand and rules (see ``mjcore._core.single.is_agari``)."""
    h = hand if type(hand) is Hand else as_hand(hand)
    r = _agari_for(h._packed, h.n_melds, rules)
    if r < 0:
        r = _general_path(h, rules, r, _agari, 14, "an agari check")
    return r == 1


def _general_path(h: Hand, rules: object, status: int, kernel: Callable[..., int], want: int,
                  what: str) -> int:
    """What a kernel's ``*_for`` entry point left to the caller (``status``: its answer): the
    rules resolved, the hand checked against them, the kernel called with them; or the error.
    ``want`` and ``what``: as for ``_fail``."""
    entry = _rules_for_hands(rules)
    if status == _k.ASK_CALLER:
        if entry[4] is not None and (h.melds or entry[5]):
            entry[4](h)
        status = kernel(h._packed, h.n_melds, entry[1], entry[3])
    if status < 0:
        raise _fail(h, status, want, what, entry[2])
    return status


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
# One shared Wait per (kind, remaining), shared with the per-call fast path: immutable.
_WAIT = _single.WAIT_TABLE


def kinds_of(mask: int) -> bytes:
    """The kinds whose bit is set in a 34-bit mask, ascending, one byte each."""
    return _KINDS_LO[mask & 0xFFF] + _KINDS_MID[mask >> 12 & 0xFFF] + _KINDS_HI[mask >> 24]


def unseen_counts(hand: Hand, kinds: list[int] | None) -> bytes:
    """Per kind, 4 minus the copies in the hand (closed and melds) and in ``kinds`` (visible
    tiles, already parsed); padded to 256 bytes so it can ``translate`` kinds. More than 4
    copies of a kind together is an InvalidHandError (too_many_copies) naming it."""
    if not kinds:
        if not hand.melds:
            return hand._packed.translate(_UNSEEN_OF_SEEN) + _PAD
        return bytes(hand.all_counts).translate(_UNSEEN_OF_SEEN) + _PAD
    seen = list(hand.all_counts)
    for k in kinds:
        seen[k] += 1
    if max(seen) > 4:
        check_copies(hand, ("the visible tiles", kinds))
    return bytes([4 - x for x in seen]) + _PAD


def ukeire_rows(h: Hand, kinds: list[int] | None, forms: int = RIICHI_FORMS,
                in_play: int = ALL_KINDS) -> tuple[int, list[Row], bytes]:
    """What ``ukeire`` reports, before building result objects (serializers read it directly).

    ``kinds``: the visible tiles as kind ids (already checked); ``forms``: from
    ``winning_forms`` (the hand already checked against its rules); ``in_play``: from
    ``kinds_in_play`` (other kinds never advance). Returns the current shanten,
    the options best first as rows ``(shanten after, -remaining, discard, advancing kinds)``
    (one row with discard None for a 13-3k tile hand) and the unseen count per kind.
    """
    n_melds = h.n_melds
    packed = h._packed
    total = h.n_closed + 3 * n_melds
    absent = ALL_KINDS & ~in_play
    if total == 13:
        st, s, mask = _advance(packed, n_melds, forms, absent)
        if st:
            raise _fail(h, st, 13, "ukeire", in_play)
        unseen = unseen_counts(h, kinds)
        tiles = kinds_of(mask if in_play == ALL_KINDS else mask & in_play)
        return s, [(s, -sum(tiles.translate(unseen)), None, tiles)], unseen
    st, _best, after, masks = _ukeire(packed, n_melds, forms, absent)
    if st or after is None or masks is None:
        raise _fail(h, st, 0 if total not in (13, 14) else 14, "ukeire", in_play)
    i = _forms_index(packed, n_melds, forms)
    if i < 0:
        raise _fail(h, i, 14, "ukeire")
    if in_play != ALL_KINDS:
        masks = [m & in_play for m in masks]
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


def _slot_setters(cls: type, *names: str) -> tuple[Any, ...]:
    return tuple(cls.__dict__[name].__set__ for name in names)


_set_option = _slot_setters(UkeireOption, "discard", "shanten", "tiles")
_set_ukeire = _slot_setters(Ukeire, "shanten", "options")


def _waits_tuple(tiles: bytes, unseen: bytes) -> tuple[Wait, ...]:
    table = _WAIT
    return tuple([table[k][unseen[k]] for k in tiles])


# Waits(shanten, tiles) without the frozen __init__, untracked by the garbage collector
_make_waits = _single.make_waits


def _waits_general(hand: Hand | str, visible: str | Iterable[int | str] = (),
                   rules: object = None) -> Waits:
    """``waits`` for any hand, visible tiles and rules (see ``mjcore._core.single.waits``)."""
    if rules is None:
        h = hand if type(hand) is Hand else as_hand(hand)
        st, s, mask = _advance(h._packed, h.n_melds)
        in_play = ALL_KINDS
    else:
        h, entry = _hand_and_rules(hand, rules)
        in_play = entry[2]
        st, s, mask = _advance(h._packed, h.n_melds, entry[1], entry[3])
    if st:
        raise _fail(h, st, 13, "waits", in_play)
    kinds = _visible_kinds(visible, in_play, h)
    if in_play != ALL_KINDS:
        mask &= in_play
    if s != 0:
        if kinds:
            unseen_counts(h, kinds)     # the visible tiles are checked all the same
        return _make_waits(s, ())
    return _make_waits(0, _waits_tuple(kinds_of(mask), unseen_counts(h, kinds)))


def ukeire(hand: Hand | str, visible: str | Iterable[int | str] = (),
           rules: object = None) -> Ukeire:
    """Tile efficiency, like tenhou.net/2's analyser.

    For 14-3k tiles: every discard with the shanten after it and the tiles that would advance
    the rest; for 13-3k tiles: one option (``discard=None``) with the advancing tiles. Options
    are sorted best first: lowest shanten, then most tiles remaining, then tile order.
    ``rules``: the winning forms (see the module docstring).
    """
    if rules is None:
        h = hand if type(hand) is Hand else as_hand(hand)
        forms, in_play = RIICHI_FORMS, ALL_KINDS
    else:
        h, entry = _hand_and_rules(hand, rules)
        forms, in_play = entry[1], entry[2]
    kinds = _visible_kinds(visible, in_play, h)
    current, rows, unseen = ukeire_rows(h, kinds, forms, in_play)
    set_discard, set_shanten, set_tiles = _set_option
    # with several options, this hand's Wait per kind, shared by every option
    waits_of = None if len(rows) == 1 else list(map(getitem, _WAIT, unseen)).__getitem__
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


# -- one hand per call --------------------------------------------------------------------------

_single.use_general(_shanten_general, _is_agari_general, _waits_general)
shanten = _single.shanten
is_agari = _single.is_agari
waits = _single.waits
