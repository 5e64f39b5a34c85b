"""The single-hand fast paths against references that do not share them.

Seeded random hands (13 and 14 tiles, 0-4 melds, red fives, letter-first and unsorted text,
visible tiles) and mutated, malformed texts. ``Hand.parse`` is checked against the general
token parser (the plain-text fast paths switched off); ``mjcore.ukeire``/``mjcore.waits``
against the batch kernels' masks with the remaining counts worked out here; AnalyzeHand's
bytes against a response built field by field with the protobuf API from those references.
"""
from __future__ import annotations

import random

import grpc
import numpy as np
import pytest

import mjcore
from mjcore import batch, notation
from mjcore.errors import InvalidHandError
from mjcore.hand import Hand
from mjcore.results import Ukeire, UkeireOption, Wait, Waits
from mjcore.service.errors import invalid_hand
from mjcore.service.servicer import HandAnalysisServicer
from mjcore.tiles import parse_kinds, tile_name
from mjcore.wire import convert as wire
from mjcore.wire.v1 import analysis_service_pb2 as pb
from mjcore.wire.v1 import types_pb2

SUITS = "mpsz"
N_CASES = 3000


def _digit(kind: int, red: bool) -> str:
    return "0" if red else str(kind % 9 + 1) if kind < 27 else str(kind - 26)


def _mpsz(tiles: list[tuple[int, bool]], letter_first: bool) -> str:
    out: list[str] = []
    suit = ""
    for kind, red in tiles:
        s = SUITS[kind // 9]
        if s != suit:
            out.append(s if letter_first else "")
            if not letter_first and suit:
                out[-1] = suit
            suit = s
        out.append(_digit(kind, red))
    if not letter_first and suit:
        out.append(suit)
    return "".join(out)


def random_hand(rng: random.Random) -> tuple[str, list[int]]:
    """A valid hand text (a few melds, maybe red fives) and the wall left after it."""
    wall = [k for k in range(34) for _ in range(4)]
    reds = [True, True, True]

    def take(kind: int) -> bool:
        wall.remove(kind)
        if kind in (4, 13, 22) and reds[kind // 9] and rng.random() < 0.4:
            reds[kind // 9] = False
            return True
        return False

    melds = []
    for _ in range(rng.choice([0, 0, 0, 0, 1, 1, 2, 2, 3, 4])):
        kind = rng.choice(["chi", "chi", "pon", "pon", "kan", "ankan", "kakan"])
        if kind == "chi":
            start = rng.randrange(3) * 9 + rng.randrange(7)
            run = [start, start + 1, start + 2]
            if not all(k in wall for k in run):
                continue
            red = [take(k) for k in run]
            first = rng.randrange(3)
            order = [first] + [i for i in range(3) if i != first]
            digits = "".join(_digit(run[i], red[i]) for i in order)
            melds.append(f"chi:{digits}{SUITS[start // 9]}")
            continue
        k = rng.randrange(34)
        n = 3 if kind == "pon" else 4
        if wall.count(k) < n:
            continue
        digits = "".join(_digit(k, take(k)) for _ in range(n))
        rel = "" if kind == "ankan" or rng.random() < 0.3 else f"<{rng.randint(1, 3)}"
        melds.append(f"{kind}:{digits}{SUITS[k // 9]}{rel}")
    closed = [(k, take(k)) for k in rng.sample(wall, rng.choice([13, 14]) - 3 * len(melds))]
    if rng.random() < 0.85:
        closed.sort()
    text = _mpsz(closed, letter_first=rng.random() < 0.1)
    if rng.random() < 0.03:
        text += f"{rng.randint(1, 8)}f"
    return " ".join([text, *melds]).strip(), wall


def random_visible(rng: random.Random, wall: list[int]) -> str:
    r = rng.random()
    if r < 0.45:
        return ""
    if r < 0.97:
        tiles = sorted(rng.sample(wall, rng.randint(1, 24)))
        if rng.random() < 0.2:  # more copies seen than exist: remaining stays at 0
            tiles += tiles[:3] * 3
        return _mpsz([(k, False) for k in tiles], letter_first=False)
    return rng.choice(["5x", "9z", "12", "m", "1m2", "5f", "0z"])


def mutate(rng: random.Random, text: str) -> str:
    chars = list(text)
    how = rng.randrange(7)
    if how == 0 and chars:
        chars.insert(rng.randrange(len(chars) + 1), rng.choice("0123456789mpszf:< x"))
    elif how == 1 and chars:
        del chars[rng.randrange(len(chars))]
    elif how == 2 and chars:
        chars[rng.randrange(len(chars))] = rng.choice("0123456789mpszf:< x")
    elif how == 3:
        return text + rng.choice(["1m", "5z", "0p", "5m5m5m5m", " pon:111z", " chi:135m"])
    elif how == 4:
        return rng.choice(["", " ", "11111m", "0m0m", "8z", "m", "123", "1m2p3s", "1m1m1m1m1m",
                           "123m456p789s1122z3m4p", "ankan:1111s<2", "kakan:77z"])
    elif how == 5:
        return text.upper()
    else:
        return " " + text
    return "".join(chars)


def cases(seed: int, n: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        text, wall = random_hand(rng)
        visible = random_visible(rng, wall)
        if rng.random() < 0.2:
            text = mutate(rng, text)
        out.append((text, visible))
    return out


# -- references ---------------------------------------------------------------------------------

def parse_general(text: str) -> tuple[Hand, str] | InvalidHandError:
    """Hand.parse and str() with the fast paths off (the plain-text fast path, the meld-token
    cache, the formatting tables): the notation's token parser alone and ``format_counts``."""
    got = _outcome(lambda t: notation.parse_tokens(t, (1, 1, 1), fast=False), text)
    if isinstance(got, InvalidHandError):
        return got
    counts, red, melds, bonus = got
    return Hand(counts, red, melds, bonus), notation.format_hand(counts, red, melds, bonus)


def _outcome(f, *args):
    try:
        return f(*args)
    except InvalidHandError as err:
        return err


def _same_error(a: InvalidHandError, b: InvalidHandError) -> None:
    assert (str(a), a.reason, a.position, a.index, a.text) == \
        (str(b), b.reason, b.position, b.index, b.text)


def reference_seen(hand: Hand, visible: list[int]) -> list[int]:
    seen = list(hand.counts)
    for meld in hand.melds:
        for k in meld.tiles:
            seen[k] += 1
    for k in visible:
        seen[k] += 1
    return seen


def reference_unseen(hand: Hand, visible: list[int]) -> list[int]:
    return [4 - c for c in reference_seen(hand, visible)]


def reference_waits(mask: int, unseen: list[int]) -> tuple[Wait, ...]:
    return tuple(Wait(k, unseen[k]) for k in range(34) if int(mask) >> k & 1)


def reference_analysis(hand: Hand, visible: list[int]) -> tuple[Ukeire, Waits | None]:
    """Ukeire and (13-3k tiles) Waits from the batch kernels."""
    counts = np.array([hand.counts], dtype=np.uint8)
    melds = np.array([hand.n_melds], dtype=np.uint8)
    unseen = reference_unseen(hand, visible)
    if hand.n_closed + 3 * hand.n_melds == 13:
        w = batch.waits(counts, melds)
        assert w.status[0] == 0
        s = int(w.shanten[0])
        tiles = reference_waits(w.advance_mask[0], unseen)
        waits = Waits(s, tiles if s == 0 else ())
        return Ukeire(s, (UkeireOption(None, s, tiles),)), waits
    u = batch.ukeire(counts, melds, full=True)
    assert u.status[0] == 0
    options = [UkeireOption(k, int(u.after[0][k]), reference_waits(u.masks[0][k], unseen))
               for k in range(34) if u.after[0][k] != 127]
    options.sort(key=lambda o: (o.shanten, -sum(w.remaining for w in o.tiles), o.discard))
    current = int(batch.shanten(counts, melds).shanten[0])
    return Ukeire(current, tuple(options)), None


def tile_counts(waits) -> list[types_pb2.TileCount]:
    return [types_pb2.TileCount(kind=w.tile, tile=mjcore.tile_name(w.tile),
                                remaining_count=w.remaining) for w in waits]


def reference_response(hand: Hand, ukeire: Ukeire, waits: Waits | None) -> bytes:
    tiles = hand.n_closed + 3 * hand.n_melds
    response = pb.AnalyzeHandResponse(
        hand=str(hand), closed_tile_count=hand.n_closed, meld_count=hand.n_melds,
        shanten=wire.shanten_info(mjcore.shanten(hand)),
        agari=tiles == 14 and bool(batch.is_agari(
            np.array([hand.counts], dtype=np.uint8),
            np.array([hand.n_melds], dtype=np.uint8)).agari[0]),
        ukeire=pb.UkeireInfo(shanten=ukeire.shanten, options=[
            pb.UkeireOption(discard="" if o.discard is None else mjcore.tile_name(o.discard),
                            shanten=o.shanten, tiles=tile_counts(o.tiles),
                            remaining_count=sum(w.remaining for w in o.tiles))
            for o in ukeire.options]))
    if waits is not None:
        response.waits.CopyFrom(pb.WaitsInfo(
            tenpai=waits.shanten == 0 and bool(waits.tiles),
            tiles=tile_counts(waits.tiles),
            remaining_count=sum(w.remaining for w in waits.tiles)))
    return response.SerializeToString()


class _Aborted(Exception):
    pass


class _Context:
    def time_remaining(self):
        return None

    def is_active(self):
        return True

    def abort_with_status(self, status):
        raise _Aborted(status)


def _abort_of(err: InvalidHandError, field: str) -> tuple[object, str]:
    rpc = invalid_hand(err, field)
    return rpc.code, rpc.message


# -- the check ----------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", [1, 2])
def test_fast_paths_match_references(seed: int):
    servicer = HandAnalysisServicer(max_batch=1000)
    seen = {"valid": 0, "invalid": 0, "13": 0, "14": 0, "melds": 0, "visible": 0}
    too_many_copies = 0
    for text, visible_text in cases(seed, N_CASES // 2):
        got = _outcome(Hand.parse, text)
        want = parse_general(text)
        call = pb.AnalyzeHandRequest(hand=text, visible=visible_text)
        try:
            answer: object = servicer.AnalyzeHand(call, _Context()).SerializeToString()
        except _Aborted as aborted:
            status = aborted.args[0]
            answer = (status.code, status.details)
        if isinstance(want, InvalidHandError):
            assert isinstance(got, InvalidHandError), text
            _same_error(got, want)
            assert answer == _abort_of(want, "hand"), text
            seen["invalid"] += 1
            continue
        assert isinstance(got, Hand), text
        ref, ref_text = want
        assert (got, str(got), got.counts, got.red, got.melds, got.bonus, got.n_closed,
                got.n_melds, got._packed) == \
            (ref, ref_text, ref.counts, ref.red, ref.melds, ref.bonus, ref.n_closed,
             ref.n_melds, ref._packed), text
        visible = _outcome(parse_kinds, visible_text) if visible_text else []
        if isinstance(visible, InvalidHandError):
            assert answer == _abort_of(visible, "visible"), (text, visible_text)
            continue
        if visible and max(map(visible.count, visible)) > 4:   # refused, never clamped
            first = next(k for i, k in enumerate(visible) if visible[:i + 1].count(k) > 4)
            assert answer == (grpc.StatusCode.INVALID_ARGUMENT,
                              f"visible: {tile_name(first)}: {visible.count(first)} copies; "
                              "at most 4"), visible_text
            too_many_copies += 1
            continue
        tiles = got.n_closed + 3 * got.n_melds
        if tiles not in (13, 14) or got.n_melds > 4:
            err = _outcome(mjcore.shanten, got)
            assert isinstance(err, InvalidHandError)
            assert answer == _abort_of(err, "hand"), text
            for f in (mjcore.ukeire, mjcore.waits):
                assert isinstance(_outcome(f, got, visible), InvalidHandError)
            continue
        if max(reference_seen(got, visible)) > 4:   # more than 4 with the hand's own copies
            err = _outcome(mjcore.ukeire, got, visible)
            assert isinstance(err, InvalidHandError) and err.reason == "too_many_copies"
            assert answer == _abort_of(err, "hand"), (text, visible_text)
            too_many_copies += 1
            continue
        ukeire, waits = reference_analysis(got, visible)
        for v in (visible, visible_text):
            uk = mjcore.ukeire(got, v)
            assert uk == ukeire and repr(uk) == repr(ukeire), (text, visible_text)
            assert [o.remaining for o in uk] == [o.remaining for o in ukeire]
            if waits is not None:
                w = mjcore.waits(got, v)
                assert w == waits and repr(w) == repr(waits), (text, visible_text)
                assert (w.remaining, w.tenpai) == (waits.remaining, waits.tenpai)
        assert mjcore.ukeire(text, visible_text) == ukeire
        assert answer == reference_response(got, ukeire, waits), (text, visible_text)
        seen["valid"] += 1
        seen[str(tiles)] += 1
        seen["melds"] += got.n_melds > 0
        seen["visible"] += bool(visible)
    assert min(seen.values()) > 50, seen  # every kind of case was exercised
    assert too_many_copies > 20


def test_format_packed_matches_format_counts():
    from mjcore.tiles import format_counts, format_packed

    rng = random.Random(5)
    wall = [k for k in range(34) for _ in range(4)]
    for _ in range(2000):
        counts = [0] * 34
        for k in rng.sample(wall, rng.randint(0, 40)):
            counts[k] += 1
        assert format_packed(bytes(counts)) == format_counts(counts)
    assert format_packed(bytes([5] + [0] * 33)) == format_counts([5] + [0] * 33) == "11111m"
