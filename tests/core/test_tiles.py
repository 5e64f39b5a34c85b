"""Tile constants, single-tile notation, tile lists, Unicode, 136-ids and count arrays."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mjcore.errors import InvalidHandError
from mjcore.tiles import (
    BONUS_NAMES,
    DRAGONS,
    EAST,
    FIVES,
    HONORS,
    N_KINDS,
    NORTH,
    RED,
    RED_136,
    TERMINALS,
    TILE_NAMES,
    UNICODE_BONUS,
    UNICODE_TILES,
    WHITE,
    WINDS,
    YAOCHUU,
    YAOCHUU_SET,
    bonus_name,
    bonus_seat,
    check_counts,
    counts_from_kinds,
    counts_to_unicode,
    format_counts,
    format_tiles,
    is_dragon,
    is_honor,
    is_simple,
    is_terminal,
    is_wind,
    is_yaochuu,
    kind_from_136,
    kinds_from_136,
    kinds_from_counts,
    number_of,
    parse_bonus,
    parse_bonus_tiles,
    parse_kinds,
    parse_tile,
    parse_tile_red,
    parse_tiles,
    scan_text,
    suit_of,
    tile_name,
    to_136,
    to_unicode,
)


def test_kind_layout():
    assert N_KINDS == 34
    assert TILE_NAMES[0] == "1m" and TILE_NAMES[8] == "9m"
    assert TILE_NAMES[9] == "1p" and TILE_NAMES[17] == "9p"
    assert TILE_NAMES[18] == "1s" and TILE_NAMES[26] == "9s"
    assert TILE_NAMES[27:] == ("1z", "2z", "3z", "4z", "5z", "6z", "7z")
    assert (EAST, NORTH, WHITE, RED) == (27, 30, 31, 33)
    assert WINDS == (27, 28, 29, 30) and DRAGONS == (31, 32, 33)
    assert FIVES == (4, 13, 22)


def test_yaochuu_and_predicates():
    assert len(YAOCHUU) == 13 and len(YAOCHUU_SET) == 13
    assert {TILE_NAMES[k] for k in YAOCHUU} == {
        "1m", "9m", "1p", "9p", "1s", "9s", "1z", "2z", "3z", "4z", "5z", "6z", "7z"}
    for k in range(N_KINDS):
        name = TILE_NAMES[k]
        honor = name[1] == "z"
        terminal = not honor and name[0] in "19"
        assert is_honor(k) == honor
        assert is_terminal(k) == terminal
        assert is_yaochuu(k) == (honor or terminal)
        assert is_simple(k) == (not honor and not terminal)
        assert is_wind(k) == (honor and name[0] in "1234")
        assert is_dragon(k) == (honor and name[0] in "567")
        assert suit_of(k) == "mpsz".index(name[1])
        assert number_of(k) == int(name[0])
    assert set(TERMINALS) | set(HONORS) == YAOCHUU_SET


@pytest.mark.parametrize("kind", range(34))
def test_tile_name_round_trip(kind):
    name = tile_name(kind)
    assert parse_tile(name) == kind
    assert parse_tile(name[1] + name[0]) == kind  # letter-first
    assert parse_tile(UNICODE_TILES[kind]) == kind
    assert parse_tile(kind) == kind


def test_red_fives():
    for suit, kind in zip("mps", FIVES, strict=True):
        assert parse_tile_red(f"0{suit}") == (kind, True)
        assert parse_tile_red(f"5{suit}") == (kind, False)
        assert parse_tile(f"0{suit}") == kind
        assert tile_name(kind, red=True) == f"0{suit}"
    with pytest.raises(InvalidHandError) as e:
        tile_name(0, red=True)
    assert e.value.reason == "bad_red"


@pytest.mark.parametrize("text, reason, position", [
    ("0z", "bad_honor", 0),
    ("8z", "bad_honor", 0),
    ("9z", "bad_honor", 0),
    ("5x", "unknown_character", 1),
    ("5", "digit_without_suit", 0),
    ("m", "suit_without_digits", 0),
    ("12m", "not_one_tile", 0),
    ("", "not_one_tile", 0),
    ("1f", "bonus_not_allowed", 0),
])
def test_parse_tile_errors(text, reason, position):
    with pytest.raises(InvalidHandError) as e:
        parse_tile(text)
    assert e.value.reason == reason
    assert e.value.position == position
    assert isinstance(e.value, ValueError)


@pytest.mark.parametrize("bad", [-1, 34, 100, True, 2.0, None])
def test_parse_tile_bad_ids(bad):
    with pytest.raises(InvalidHandError):
        parse_tile(bad)
    with pytest.raises(InvalidHandError):
        tile_name(bad)


def test_parse_tiles_mpsz_and_letter_first_agree():
    mpsz = parse_tiles("123m406p789s1122z")
    letter = parse_tiles("m123p406s789z1122")
    assert mpsz == letter
    assert mpsz.kinds == [0, 1, 2, 12, 13, 14, 24, 25, 26, 27, 27, 28, 28]
    assert mpsz.reds == [False] * 4 + [True] + [False] * 8
    # Order is kept; spaces separate groups.
    assert parse_tiles("3m 1m2m").kinds == [2, 0, 1]
    assert parse_tiles("m3 z7").kinds == [2, 33]


def test_seed_000_letter_first_figures():
    # Seed 000 draws dora examples as m3, p1, z7, z1.
    assert [parse_tile(t) for t in ("m2", "m3", "p9", "p1", "z6", "z7", "z4", "z1")] == [
        1, 2, 17, 9, 32, 33, 30, 27]


@pytest.mark.parametrize("text, reason, position", [
    ("12x3m", "unknown_character", 2),
    ("123", "digit_without_suit", 0),
    ("123m45", "digit_without_suit", 4),
    ("123mp", "suit_without_digits", 4),
    ("m12p", "suit_without_digits", 3),
    ("mp1", "suit_without_digits", 0),
    ("12m 08z", "bad_honor", 4),
    ("1m 9f", "bad_bonus", 3),
    ("1m 1f", "bonus_not_allowed", 3),
    ("1m?", "unknown_character", 2),
    ("1m\U0001F02B", "unknown_character", 2),
    ("1\U0001F000m", "digit_without_suit", 0),
    ("m\U0001F000", "suit_without_digits", 0),
])
def test_parse_tiles_errors(text, reason, position):
    with pytest.raises(InvalidHandError) as e:
        parse_tiles(text)
    assert e.value.reason == reason
    assert e.value.position == position
    assert f"at position {position}" in str(e.value)
    assert f"'{text}'" in str(e.value)


def test_unicode():
    assert len(set(UNICODE_TILES)) == 34
    assert all(0x1F000 <= ord(c) <= 0x1F021 for c in UNICODE_TILES)
    assert UNICODE_TILES[0] == "\U0001F007"  # 1 character
    assert UNICODE_TILES[9] == "\U0001F019"  # 1 circle
    assert UNICODE_TILES[18] == "\U0001F010"  # 1 bamboo
    assert UNICODE_TILES[27] == "\U0001F000"  # East
    assert UNICODE_TILES[31] == "\U0001F006"  # White dragon
    assert UNICODE_TILES[33] == "\U0001F004"  # Red dragon
    assert len(set(UNICODE_BONUS)) == 8
    assert all(0x1F022 <= ord(c) <= 0x1F029 for c in UNICODE_BONUS)
    assert UNICODE_BONUS[2] == "\U0001F025"  # 3f: chrysanthemum
    text = to_unicode("123m5z")
    assert text == UNICODE_TILES[0] + UNICODE_TILES[1] + UNICODE_TILES[2] + UNICODE_TILES[31]
    assert parse_tiles(text).kinds == [0, 1, 2, 31]
    assert to_unicode(list(range(34))) == "".join(UNICODE_TILES)
    assert parse_tiles("".join(UNICODE_TILES)).kinds == list(range(34))
    assert to_unicode([], bonus=[0, 7]) == UNICODE_BONUS[0] + UNICODE_BONUS[7]
    assert counts_to_unicode([2] + [0] * 33) == UNICODE_TILES[0] * 2
    assert parse_bonus_tiles("".join(UNICODE_BONUS)) == list(range(8))


def test_bonus_tiles():
    assert BONUS_NAMES == ("1f", "2f", "3f", "4f", "5f", "6f", "7f", "8f")
    for b in range(8):
        assert parse_bonus(bonus_name(b)) == b
        assert bonus_seat(b) == b % 4
    assert parse_bonus_tiles("15f") == [0, 4]
    assert parse_bonus_tiles("f15") == [0, 4]
    for bad in ("9f", "0f", "1m"):
        with pytest.raises(InvalidHandError):
            parse_bonus_tiles(bad)
    with pytest.raises(InvalidHandError):
        bonus_name(8)


def test_format_counts_and_tiles():
    counts = counts_from_kinds(parse_tiles("123m455p789s1122z").kinds)
    assert format_counts(counts) == "123m455p789s1122z"
    assert format_counts(counts, (0, 1, 0)) == "123m405p789s1122z"
    assert format_counts(counts, letter_first=True) == "m123p455s789z1122"
    assert format_tiles([31, 0, 13], [False, False, True]) == "1m0p5z"
    assert format_tiles([31, 0, 13], [False, False, True], sort=False) == "5z1m0p"
    assert format_tiles([0, 1, 31], sort=False, letter_first=True) == "m12z5"
    with pytest.raises(InvalidHandError):
        format_tiles([0], [True])


def test_counts_arrays():
    kinds = parse_tiles("1112345678999m").kinds
    counts = counts_from_kinds(kinds)
    assert counts[0] == 3 and counts[8] == 3 and sum(counts) == 13
    assert kinds_from_counts(counts) == sorted(kinds)
    for bad, reason in (([0] * 33, "bad_counts"), ([5] + [0] * 33, "too_many_copies"),
                        ([-1] + [0] * 33, "bad_counts"), (["x"] * 34, "bad_counts"),
                        (5, "bad_counts")):
        with pytest.raises(InvalidHandError) as e:
            check_counts(bad)  # type: ignore[arg-type]  # wrong types on purpose
        assert e.value.reason == reason


def test_136_ids_all():
    kinds, reds = kinds_from_136(range(136))
    assert kinds == [i // 4 for i in range(136)]
    assert [i for i, r in enumerate(reds) if r] == list(RED_136)
    assert [kind_from_136(i) for i in RED_136] == list(FIVES)
    # Every kind x copy back to the same set of ids.
    assert to_136(kinds, reds) == list(range(136))


def test_136_assignment():
    # Plain fives never take copy 0 (the red one).
    assert to_136([4, 4, 4]) == [17, 18, 19]
    assert to_136([4, 4], [True, False]) == [16, 17]
    assert to_136([0, 0]) == [0, 1]
    used = {0}
    assert to_136([0], used=used) == [1] and used == {0, 1}
    with pytest.raises(InvalidHandError) as e:
        to_136([4, 4, 4, 4])
    assert e.value.reason == "too_many_copies"
    with pytest.raises(InvalidHandError) as e:
        to_136([4, 4], [True, True])
    assert e.value.reason == "too_many_red"


@pytest.mark.parametrize("ids, reason", [
    ([136], "bad_tile"), ([-1], "bad_tile"), ([3, 3], "duplicate_tile"),
    (["a"], "bad_tile"), ([1.5], "bad_tile"), ([True], "bad_tile"),
])
def test_136_errors(ids, reason):
    with pytest.raises(InvalidHandError) as e:
        kinds_from_136(ids)
    assert e.value.reason == reason


def test_parse_kinds_lenient():
    assert parse_kinds("3m6z") == [2, 32]
    assert parse_kinds(5) == [5]
    assert parse_kinds(["3m", 4, "12p"]) == [2, 4, 9, 10]
    with pytest.raises(InvalidHandError):
        parse_kinds(object())  # type: ignore[arg-type]  # a wrong type on purpose
    with pytest.raises(InvalidHandError):
        parse_kinds([99])


def test_scan_positions():
    assert scan_text("12m 0p 3f") == [(0, False, 0), (1, False, 1), (13, True, 4), (36, False, 7)]


@given(st.lists(st.tuples(st.integers(0, 33), st.booleans()), max_size=20))
def test_format_parse_round_trip(items):
    kinds = [k for k, _ in items]
    reds = [r and k in FIVES for k, r in items]
    for letter_first in (False, True):
        text = format_tiles(kinds, reds, letter_first=letter_first, sort=False)
        assert parse_tiles(text) == (kinds, reds)


@given(st.text(max_size=30))
def test_parse_tiles_garbage_only_raises_invalid_hand(text):
    try:
        parse_tiles(text)
    except InvalidHandError as e:
        assert e.position is None or 0 <= e.position < len(text)


@given(st.text(alphabet="0123456789mpszf \U0001F000\U0001F004\U0001F022x", max_size=30))
def test_parse_tiles_near_valid_only_raises_invalid_hand(text):
    try:
        kinds, _reds = parse_tiles(text)
    except InvalidHandError as e:
        assert e.position is None or 0 <= e.position < len(text)
    else:
        assert all(0 <= k < 34 for k in kinds)
