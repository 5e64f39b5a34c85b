"""The notation's fast path against its parser, and the one meld vocabulary.

``Hand.parse`` takes :func:`mjcore.notation.parse_plain` when the text is plain mpsz and the
parser otherwise; here both are run on the same random text, valid and invalid, and must give
the same hand and text or the same error (message, reason, position).
"""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mjcore import notation
from mjcore.errors import InvalidHandError
from mjcore.hand import Hand, parse_counts
from mjcore.melds import RECORD_KIND, TENHOU_KIND, TOKEN_KIND, VOCABULARY, Meld, MeldKind

LIMITS = st.sampled_from([(1, 1, 1), (0, 0, 0), (1, 2, 1), (2, 2, 2), (4, 4, 4)])


def _outcome(f, *args):
    try:
        return f(*args)
    except InvalidHandError as err:
        return err


def _general(text: str, limits: tuple[int, int, int]) -> tuple[Hand, str] | InvalidHandError:
    got = _outcome(lambda t: notation.parse_tokens(t, limits, fast=False), text)
    if isinstance(got, InvalidHandError):
        return got
    counts, red, melds, bonus = got
    return Hand(counts, red, melds, bonus, max_red=4), notation.format_hand(counts, red, melds,
                                                                            bonus)


def _check_agree(text: str, limits: tuple[int, int, int]) -> None:
    want = _general(text, limits)
    got = _outcome(lambda t: Hand.parse(t, max_red=limits), text)
    if isinstance(want, InvalidHandError):
        assert isinstance(got, InvalidHandError), (text, got)
        assert (str(got), got.reason, got.position, got.text) == \
            (str(want), want.reason, want.position, want.text)
        counted = _outcome(lambda t: parse_counts(t, max_red=limits), text)
        assert isinstance(counted, InvalidHandError) and counted.reason == want.reason
        return
    assert not isinstance(got, InvalidHandError), (text, got)
    hand, written = want
    assert got == hand and got.n_closed == hand.n_closed and got._packed == hand._packed
    assert str(got) == written
    assert parse_counts(text, max_red=limits) == (list(hand.counts), hand.n_melds)
    plain = notation.parse_plain(text, limits)
    if plain is not None:
        packed, red, canonical = plain
        assert packed == hand._packed and red == hand.red and not hand.melds and not hand.bonus
        assert not canonical or written == text


@settings(max_examples=1500, deadline=None)
@given(st.text(alphabet="0123456789mpsz", max_size=30), LIMITS)
def test_fast_path_agrees_on_digit_groups(text, limits):
    _check_agree(text, limits)


@settings(max_examples=800, deadline=None)
@given(st.text(alphabet="0123456789mpszf :<chiponkakan\t", max_size=40), LIMITS)
def test_fast_path_agrees_on_near_valid_text(text, limits):
    _check_agree(text, limits)


@st.composite
def plain_hands(draw):
    """Valid plain mpsz: up to 14 tiles of a real set, groups in any order, some red fives."""
    pool = [(k, copy) for k in range(34) for copy in range(4)]
    tiles = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=14, unique=True))
    groups: dict[int, list[str]] = {}
    for k, copy in tiles:
        red = k in (4, 13, 22) and copy == 0 and draw(st.booleans())
        groups.setdefault(k // 9, []).append("0" if red else str(k % 9 + 1))
    order = draw(st.permutations(sorted(groups)))
    out = []
    for s in order:
        digits = draw(st.permutations(groups[s]))
        out.append("".join(digits) + "mpsz"[s])
    return "".join(out)


@settings(max_examples=1500, deadline=None)
@given(plain_hands(), LIMITS, st.sampled_from(["", " pon:555z<2", " 15f", " chi:324m", "  "]))
def test_fast_path_agrees_on_valid_hands(text, limits, tail):
    _check_agree(text, limits)
    _check_agree(text + tail, limits)


@pytest.mark.parametrize("text", [
    "123m406p789s1122z", "1112345678999m", "0m", "00m", "000p", "055m0p", "11111m", "0z",
    "8z", "1234m" * 64, "1m" * 130, "123m456p789s1122z 9m", "406p pon:055p<1",
])
@pytest.mark.parametrize("limits", [(1, 1, 1), (1, 2, 1), (4, 4, 4)])
def test_fast_path_agrees_on_known_text(text, limits):
    _check_agree(text, limits)


def test_fast_path_declines_what_it_does_not_read():
    assert notation.parse_plain("123m 456p", (1, 1, 1)) is None
    assert notation.parse_plain("m123", (1, 1, 1)) is None
    assert notation.parse_plain("11111m", (1, 1, 1)) is None
    assert notation.parse_plain("00m", (1, 1, 1)) is None
    assert notation.parse_plain("1m" * 128, (1, 1, 1)) is None  # over MAX_PLAIN_CHARS
    two_red = notation.parse_plain("00m", (2, 2, 2))
    assert two_red is not None
    packed, red, canonical = two_red
    assert packed[4] == 2 and red == (2, 0, 0) and not canonical
    in_order = notation.parse_plain("123m", (1, 1, 1))
    assert in_order is not None and in_order[2]
    out_of_order = notation.parse_plain("321m", (1, 1, 1))
    assert out_of_order is not None and not out_of_order[2]


# -- the one meld vocabulary ----------------------------------------------------------------------

def test_vocabulary_has_one_row_per_kind():
    assert list(VOCABULARY) == list(MeldKind)
    for kind, words in VOCABULARY.items():
        assert (kind.token, kind.record, kind.tenhou) == words[:3]
        assert TOKEN_KIND[kind.token] is kind
        assert RECORD_KIND[kind.record] is kind
        assert TENHOU_KIND[kind.tenhou] is kind
        for word in (kind.name, kind.token, kind.record, kind.tenhou, *words.aliases):
            assert MeldKind.named(word) is kind
            assert MeldKind.named(word.upper()) is kind
        assert MeldKind.named(int(kind)) is kind
    assert [k.record for k in MeldKind] == ["chi", "pon", "daiminkan", "ankan", "kakan"]
    assert [k.tenhou for k in MeldKind] == ["chi", "pon", "kan-open", "kan-closed", "kakan"]
    assert [k.classical for k in MeldKind] == ["chow", "pung", "kong", "kong", "kong"]


@pytest.mark.parametrize("word", ["", "kita", "kan open", 5, -1, True, None, 1.0])
def test_unknown_meld_word(word):
    with pytest.raises(InvalidHandError) as e:
        MeldKind.named(word)
    assert e.value.reason == "bad_melds"


def test_notation_takes_only_its_words():
    for kind in MeldKind:
        tiles = "123m" if kind is MeldKind.CHI else "1111m" if kind.is_kan else "111m"
        assert Meld.parse(f"{kind.token}:{tiles}").kind is kind
    with pytest.raises(InvalidHandError) as e:
        Hand.parse("1z kan-open:1111m<1")
    assert (e.value.reason, e.value.position) == ("bad_melds", 3)
    with pytest.raises(InvalidHandError):
        Hand.parse("1z kan_closed:1111m")


def test_meld_letter_first():
    for token in ("chi:324m", "pon:055p<1", "ankan:1111s", "kakan:7777z<2", "kan:0555s<3"):
        meld = Meld.parse(token)
        text = meld.format(letter_first=True)
        assert Meld.parse(text) == meld
        assert text.split(":")[1][0] == token.split(":")[1].split("<")[0][-1]


def test_moved_names_still_import_from_hand():
    import mjcore
    from mjcore import hand, melds

    assert hand.Meld is melds.Meld is mjcore.Meld
    assert hand.MeldKind is melds.MeldKind is mjcore.MeldKind
