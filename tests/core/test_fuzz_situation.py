"""Hypothesis over the situation arguments of ``mjcore.score`` and ``mjcore.expected_values``
(dora and ura indicators, visible tiles, melds, norths set aside, rules), issue 29.

Any combination is a result or a clean InvalidHandError / InvalidRuleError, never another
exception; and a result never comes from an impossible state: more than 4 copies of a kind
counting the hand, its melds, the indicators, the visible tiles and the norths set aside.
The reference count here is independent of mjcore's own check.
"""
from __future__ import annotations

import os
import random
from collections import Counter
from collections.abc import Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mjcore
from mjcore import Hand, Meld
from mjcore.errors import InvalidHandError, InvalidRuleError
from mjcore.tiles import parse_tiles

from ..scoring.random_hands import CHI, KAN_ADDED, KAN_CLOSED, KAN_OPEN, PON, RED_IDS, random_win

SCALE = float(os.environ.get("MJCORE_FUZZ_EXAMPLES", "1"))
FUZZ = settings(max_examples=max(10, int(80 * SCALE)), deadline=None,
                suppress_health_check=[HealthCheck.too_slow])
NORTH = 30


def _hand(seed: int) -> tuple[Hand, int]:
    """A random complete riichi hand (melds included) and its winning tile."""
    w = random_win(random.Random(seed))
    melds = []
    for kind, ids in w.melds:
        k = min(ids) // 4
        red = sum(t in RED_IDS for t in ids)
        if kind == CHI:
            melds.append(Meld.chi(sorted(t // 4 for t in ids)))
        else:
            makers: dict[int, Callable[..., Meld]] = {
                PON: Meld.pon, KAN_OPEN: Meld.kan, KAN_ADDED: Meld.kakan, KAN_CLOSED: Meld.ankan}
            melds.append(makers[kind](k, red=red))
    return Hand.from_136(w.closed_ids, melds), w.win_id // 4


_TILE_TEXT = st.sampled_from(["1m", "5m", "0p", "9s", "1z", "4z", "7z", "1m1m", "2z3z4z",
                              "1z1z1z1z", ""])
_ENTRY = st.one_of(st.integers(0, 33), _TILE_TEXT,
                   st.sampled_from([-1, 34, 255, True, 1.5, None, "x", "8z", [1]]))
_INDICATORS = st.one_of(st.lists(_ENTRY, max_size=6), _TILE_TEXT,
                        st.sampled_from([5, None, object()]))


def _kinds(value, empty_ok: bool = False) -> list[int] | None:
    """The kinds of a well-formed tile value (None when it is not well-formed), read the
    plain way: text is tiles, a list holds kind ids and texts of one or more tiles (an empty
    text is an indicator missing, but no visible tile)."""
    if value is None:
        return []
    if isinstance(value, str):
        try:
            return list(parse_tiles(value).kinds)
        except InvalidHandError:
            return None
    if not isinstance(value, list):
        return None
    out: list[int] = []
    for v in value:
        if isinstance(v, str):
            try:
                kinds = parse_tiles(v).kinds
            except InvalidHandError:
                return None
            if not kinds and not empty_ok:
                return None
            out.extend(kinds)
        elif type(v) is int and 0 <= v < 34:
            out.append(v)
        else:
            return None
    return out


def _over_four(hand: Hand, *kinds: list[int]) -> bool:
    seen = Counter(hand.tiles)
    for m in hand.melds:
        seen.update(m.tiles)
    for ks in kinds:
        seen.update(ks)
    return max(seen.values()) > 4


@FUZZ
@given(seed=st.integers(0, 10**6), dora=_INDICATORS, ura=_INDICATORS, riichi=st.booleans(),
       kita=st.sampled_from([0, 0, 1, 3, 4, 5, -1]),
       rules=st.sampled_from([None, "tenhou", "tenhou_sanma", "nope", 5]))
def test_score_situations(seed, dora, ura, riichi, kita, rules):
    hand, win = _hand(seed)
    closed_menzen = all(m.kind == 3 for m in hand.melds)
    try:
        res = mjcore.score(hand, win, dora=dora, ura=ura, riichi=riichi and closed_menzen,
                           kita=kita, rules=rules)
    except (InvalidHandError, InvalidRuleError):
        return
    d, u = _kinds(dora), _kinds(ura)
    assert d is not None and u is not None, (dora, ura)      # junk never scores
    assert not _over_four(hand, d, u, [NORTH] * kita), (str(hand), dora, ura, kita)
    assert res.is_win or res.status == "no_yaku"


@settings(max_examples=max(10, int(25 * SCALE)), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), dora=_INDICATORS, visible=st.one_of(_TILE_TEXT, st.lists(
    st.one_of(st.integers(0, 33), _TILE_TEXT), max_size=6)), drop=st.integers(0, 13),
       rules=st.sampled_from(["tenhou", "tenhou_sanma", "nope", None, 5]))
def test_expected_values_situations(seed, dora, visible, drop, rules):
    hand, _ = _hand(seed)
    tiles = list(hand.tiles)
    if tiles:       # a 13-tile hand: one closed tile less
        tiles.pop(drop % len(tiles))
    hand13 = Hand.from_tiles(tiles, melds=hand.melds)
    try:
        mjcore.expected_values(hand13, dora=dora, visible=visible, rules=rules, t_max=2,
                               max_shanten=1, max_nodes=20_000, max_seconds=2)
    except (InvalidHandError, InvalidRuleError):
        return
    d, v = _kinds(dora), _kinds(visible, empty_ok=True)
    assert d is not None and v is not None, (dora, visible)
    assert not _over_four(hand13, d, v), (str(hand13), dora, visible)
