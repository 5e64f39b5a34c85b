"""Single-hand analysis: shanten, agari, waits and ukeire.

Every function takes a ``Hand`` or an mpsz string (called melds after the closed tiles, see
``mjcore.hand``) and raises ``InvalidHandError`` for malformed or impossible hands.
"""
from __future__ import annotations

from collections.abc import Iterable

from ._core import shanten as _k
from .errors import InvalidHandError
from .hand import Hand, as_hand
from .results import Shanten, Ukeire, UkeireOption, Wait, Waits
from .tiles import parse_kinds

_NO_FORM = 99

_SIZES = {0: "13 or 14", 13: "13", 14: "14"}


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


def _unseen(hand: Hand, visible: object) -> list[int]:
    """4 minus the copies in the hand (closed and melds) and the visible tiles, per kind."""
    seen = list(hand.all_counts)
    if visible:
        kinds = parse_kinds(visible)  # type: ignore[arg-type]
        for k in kinds:
            seen[k] += 1
    return [max(0, 4 - x) for x in seen]


def _tiles(mask: int, unseen: list[int]) -> tuple[Wait, ...]:
    return tuple(Wait(k, unseen[k]) for k in range(34) if mask >> k & 1)


def waits(hand: Hand | str, visible: str | Iterable[int | str] = ()) -> Waits:
    """The winning tiles of a 13-3k tile hand with how many copies remain unseen.

    ``visible``: tiles seen elsewhere (discards, melds, dora indicators), as an mpsz string or
    kinds. A wait on a kind the hand holds all four of does not count. Not tenpai -> no tiles.
    """
    h = hand if type(hand) is Hand else as_hand(hand)
    st, s, mask = _k.advance(h._packed, h.n_melds)
    if st:
        raise _fail(h, st, 13, "waits")
    if s != 0:
        return Waits(s, ())
    return Waits(0, _tiles(mask, _unseen(h, visible)))


def ukeire(hand: Hand | str, visible: str | Iterable[int | str] = ()) -> Ukeire:
    """Tile efficiency, like tenhou.net/2's analyser.

    For 14-3k tiles: every discard with the shanten after it and the tiles that would advance
    the rest; for 13-3k tiles: one option (``discard=None``) with the advancing tiles. Options
    are sorted best first: lowest shanten, then most tiles remaining, then tile order.
    """
    h = hand if type(hand) is Hand else as_hand(hand)
    total = h.n_closed + 3 * h.n_melds
    unseen = _unseen(h, visible)
    if total == 13:
        st, s, mask = _k.advance(h._packed, h.n_melds)
        if st:
            raise _fail(h, st, 13, "ukeire")
        return Ukeire(s, (UkeireOption(None, s, _tiles(mask, unseen)),))
    st, _best, after, masks = _k.ukeire(h._packed, h.n_melds)
    if st or after is None or masks is None:
        raise _fail(h, st, 0 if total not in (13, 14) else 14, "ukeire")
    options = [UkeireOption(k, after[k], _tiles(masks[k], unseen))
               for k in range(34) if after[k] != 127]
    options.sort(key=lambda o: (o.shanten, -o.remaining, o.discard))
    current = _k.forms(h._packed, h.n_melds)
    cur = min(x for x in current[1:] if x != _NO_FORM)
    return Ukeire(cur, tuple(options))
