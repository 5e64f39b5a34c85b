"""Single-hand and batch analysis: known hard cases, properties, error contracts."""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mjcore
from mjcore import InvalidHandError, batch
from mjcore.tiles import parse_tile

from .hands import random_counts, tenpai_hands


def names(waits):
    return "".join(mjcore.tile_name(w.tile) for w in waits)


# ---- known hard cases ----

@pytest.mark.parametrize("hand, expected", [
    ("123m456p789s1122z", 0),
    ("123m456p789s11223z", 0),
    ("1111m234p567p789s", 1),          # the only wait would be a fifth 1m
    ("11112222333344m", -1),           # four of a kind inside a complete hand
    ("1111m2222p33s4455z", 1),         # two quads
    ("11223344556677z", -1),            # seven pairs
    ("1122m3344p5566s77z", -1),
    ("19m19p19s1234567z", 0),           # thirteen orphans, 13-sided wait
    ("19m19p19s12345677z", -1),
    ("123456789m1234z", 2),
])
def test_known_shanten(hand, expected):
    assert mjcore.shanten(hand) == expected


def test_seven_pairs_never_counts_a_quad_as_two_pairs():
    s = mjcore.shanten("1111m2222p33s4455z")
    assert (s.standard, s.chiitoitsu) == (1, 3)


def test_seven_pairs_with_quad_is_not_complete():
    s = mjcore.shanten("1111m2233p4455s66z")
    assert s.chiitoitsu == 1 and not mjcore.is_agari("1111m2233p4455s66z")


def test_forms_and_repr():
    s = mjcore.shanten("19m19p19s1234567z")
    assert (s.standard, s.chiitoitsu, s.kokushi) == (8, 6, 0)
    assert "kokushi=0" in repr(s) and isinstance(s, int)
    with_meld = mjcore.shanten("123m456p78s11z chi:789p")
    assert with_meld.chiitoitsu is None and with_meld.kokushi is None and with_meld == 0


@pytest.mark.parametrize("hand, waits", [
    ("123m456p789s1122z", "1z2z"),
    ("1112345678999m", "123456789m".replace("m", "")),   # nine gates: every manzu
    ("19m19p19s1234567z", "1m9m1p9p1s9s1z2z3z4z5z6z7z"),
    ("1111m234p567p789s", ""),          # fifth-tile wait is no wait
    ("222m3456p777s111z", "3p6p"),
    ("123m456p78s11z chi:789p", "6s9s"),
    ("1z pon:222z<1 pon:333z<2 pon:444z<3 kan:5555z<1", "1z"),  # tanki with four melds
    ("1111m pon:222z<1 pon:333z<2 pon:444z<3", ""),   # a quad is neither pair nor set + wait
])
def test_known_waits(hand, waits):
    got = mjcore.waits(hand)
    expected = "".join(f"{d}m" for d in waits) if waits.isdigit() else waits
    assert names(got) == expected


def test_waits_remaining_counts_visible_tiles():
    w = mjcore.waits("123m456p789s1122z", visible="1z1z2z")
    assert [(mjcore.tile_name(x.tile), x.remaining) for x in w] == [("1z", 0), ("2z", 1)]
    assert w.remaining == 1
    assert mjcore.waits("123m456p789s1122z", visible=[parse_tile("1z")]).remaining == 3


@pytest.mark.parametrize("hand", ["123m456p789s1122z", "123m456p789s1123z", "123m456p789s11234z",
                                  "123m456p78s1122z pon:111z"])
@pytest.mark.parametrize("fn", [mjcore.waits, mjcore.ukeire])
def test_visible_tiles_beyond_four_of_a_kind_are_refused(fn, hand):
    try:
        fn(hand)
    except InvalidHandError:
        return  # the wrong number of tiles for this call: nothing to count
    with pytest.raises(InvalidHandError, match=r"1z: \d copies \(.*in the visible tiles\)") as err:
        fn(hand, visible="1z1z1z")
    assert err.value.reason == "too_many_copies"


@pytest.mark.parametrize("fn", [mjcore.waits, mjcore.ukeire])
def test_a_second_red_five_among_the_visible_tiles_is_refused(fn):
    with pytest.raises(InvalidHandError, match=r"0p: 2 red fives \(1 in the hand, 1 in the "
                                                r"visible tiles\)") as err:
        fn("123m406p789s1122z", visible="1z0p")
    assert err.value.reason == "too_many_copies"
    assert fn("123m406p789s1122z", visible="5p0s") == fn("123m406p789s1122z", visible="5p5s")


def test_ukeire_fourteen_tiles_best_first():
    u = mjcore.ukeire("123m456p789s11223z")
    assert u.shanten == 0
    assert u.best.discard == parse_tile("3z") and u.best.shanten == 0
    keys = [(o.shanten, -o.remaining) for o in u.options]
    assert keys == sorted(keys)
    assert len(u.options) == len({o.discard for o in u.options}) == 12


def test_ukeire_thirteen_tiles():
    u = mjcore.ukeire("123m456p78s11223z")
    assert len(u.options) == 1 and u.options[0].discard is None
    assert u.shanten == 1 and u.options[0].shanten == 1


@pytest.mark.parametrize("bad, reason", [
    ("123m", "wrong_tile_count"),
    ("123m456p789s11223344z", "wrong_tile_count"),
])
def test_wrong_sizes_raise(bad, reason):
    with pytest.raises(InvalidHandError) as err:
        mjcore.shanten(bad)
    assert err.value.reason == reason and "123m" in str(err.value)


def test_operation_specific_sizes():
    with pytest.raises(InvalidHandError, match="waits needs 13"):
        mjcore.waits("123m456p789s11223z")
    with pytest.raises(InvalidHandError, match="agari check needs 14"):
        mjcore.is_agari("123m456p789s1122z")


def test_garbage_types_raise():
    for bad in (None, 5, b"123m", ["1m"]):
        with pytest.raises(InvalidHandError):
            mjcore.shanten(bad)  # type: ignore[arg-type]  # wrong types on purpose


# ---- properties: the kernels against their own definitions ----

hand14 = st.integers(0, 2**32 - 1).map(lambda s: random_counts(1, 14, seed=s)[0])
hand13 = st.integers(0, 2**32 - 1).map(lambda s: random_counts(1, 13, seed=s)[0])
tenpai13 = st.integers(0, 2**32 - 1).map(lambda s: tenpai_hands(1, seed=s)[0])


def hand_of(counts) -> mjcore.Hand:
    return mjcore.Hand.from_counts([int(x) for x in counts])


@settings(max_examples=300, deadline=None)
@given(st.one_of(hand13, tenpai13))
def test_waits_are_exactly_the_completing_tiles(counts):
    h = hand_of(counts)
    w = {x.tile for x in mjcore.waits(h)}
    for t in range(34):
        if counts[t] == 4:
            assert t not in w
            continue
        c = counts.copy()
        c[t] += 1
        assert (t in w) == mjcore.is_agari(hand_of(c)), t


@settings(max_examples=200, deadline=None)
@given(hand14)
def test_ukeire_agrees_with_shanten(counts):
    h = hand_of(counts)
    u = mjcore.ukeire(h)
    assert u.shanten == mjcore.shanten(h)
    assert min(o.shanten for o in u.options) >= u.shanten
    assert_options_advance(u.options, counts, lambda c: mjcore.shanten(hand_of(c)))


def assert_options_advance(options, counts, shanten_of) -> None:
    """Each ukeire option of a 14-tile hand: its shanten is ``shanten_of`` the counts after its
    discard, and a kind advances exactly when drawing it lowers that (never one held 4 times)."""
    c = [int(x) for x in counts]
    for o in options:
        c[o.discard] -= 1
        after = shanten_of(c)
        assert o.shanten == after
        advancing = {x.tile for x in o.tiles}
        for t in range(34):
            if c[t] == 4:
                assert t not in advancing
                continue
            c[t] += 1
            assert (t in advancing) == (shanten_of(c) < after), (o.discard, t)
            c[t] -= 1
        c[o.discard] += 1


@settings(max_examples=300, deadline=None)
@given(hand13, st.integers(0, 33))
def test_one_draw_changes_shanten_by_at_most_one(counts, t):
    if counts[t] == 4:
        return
    before = mjcore.shanten(hand_of(counts))
    c = counts.copy()
    c[t] += 1
    after = mjcore.shanten(hand_of(c))
    assert before - 1 <= after <= before


# ---- batch API ----

def test_batch_matches_single_hand_api():
    c13 = random_counts(300, 13, seed=3)
    c14 = random_counts(300, 14, seed=4)
    s = batch.shanten(c13, forms=True)
    w = batch.waits(c13)
    u = batch.ukeire(c14, full=True)
    a = batch.is_agari(c14)
    for i in range(300):
        h13, h14 = hand_of(c13[i]), hand_of(c14[i])
        sh = mjcore.shanten(h13)
        assert s.shanten[i] == sh and s.forms[i, 0] == sh.standard
        assert w.shanten[i] == sh
        assert batch.mask_to_tiles(w.mask[i]) == [x.tile for x in mjcore.waits(h13)]
        single = mjcore.ukeire(h14)
        assert u.best_shanten[i] == single.best.shanten
        assert u.best_discard[i] == single.best.discard
        assert a.agari[i] == mjcore.is_agari(h14)
        for o in single.options:
            assert u.after[i, o.discard] == o.shanten
            assert batch.mask_to_tiles(u.masks[i, o.discard]) == [x.tile for x in o.tiles]


def test_batch_bad_rows_are_reported_by_index_and_good_rows_kept():
    c = random_counts(10, 13, seed=9)
    good = batch.shanten(c).shanten.copy()
    c[3, 0] = 5                       # a fifth copy
    c[6] = 0                          # no tiles
    m = np.zeros(10, dtype=np.uint8)
    m[8] = 7                          # impossible meld count
    r = batch.shanten(c, m)
    assert np.flatnonzero(~r.ok).tolist() == [3, 6, 8]
    keep = [i for i in range(10) if i not in (3, 6, 8)]
    assert (r.shanten[keep] == good[keep]).all()
    errs = r.errors()
    assert [(e.index, e.reason) for e in errs] == [
        (3, "too_many_copies"), (6, "wrong_tile_count"), (8, "bad_melds")]
    with pytest.raises(mjcore.BatchError) as exc:
        r.raise_for_errors()
    assert set(exc.value.errors) == {3, 6, 8} and exc.value.partial is r


@pytest.mark.parametrize("fn,size", [(batch.shanten, 13), (batch.is_agari, 14),
                                     (batch.waits, 13), (batch.ukeire, 14)])
def test_batch_errors_name_the_tile_of_each_row(fn, size):
    c = random_counts(4, size, seed=3)
    c[1] = 0
    c[1, 0], c[1, 9:9 + size - 5] = 5, 1         # a fifth 1m
    c[2] = 0
    c[2, 27], c[2, 9:9 + size - 6] = 6, 1        # six 1z
    c[3, :] = 0                                   # no tiles
    errs = {e.index: str(e) for e in fn(c).errors()}
    assert errs[1] == "row 1: a fifth 1m"
    assert errs[2] == "row 2: 6 copies of 1z (at most 4)"
    assert errs[3].endswith("the row holds 0") and 0 not in errs


def test_text_bulk_errors_name_the_tile_of_each_line():
    r = batch.shanten_text(b"123m456p789s1122z\n11111m23p456s789s\n00m123p456s7899s\n123m\n")
    errs = {e.index: (e.reason, str(e)) for e in r.errors()}
    assert errs[1] == ("too_many_copies", "row 1: a fifth 1m (at character 5)")
    assert errs[2][0] == "too_many_copies" and "red fives 0m" in errs[2][1]
    assert errs[3] == ("wrong_tile_count", "row 3: wrong number of tiles for the called melds "
                       "(13 or 14, less 3 per meld): the row holds 3")


def test_batch_score_errors_name_the_tile():
    from mjcore.riichi import batch_scoring

    c = np.zeros((1, 34), dtype=np.uint8)
    c[0, 0], c[0, 9:18] = 5, 1
    assert str(batch_scoring.score(c, [0]).errors()[0]) == "row 0: a fifth 1m"


@pytest.mark.parametrize("fn", [batch.shanten, batch.is_agari, batch.waits, batch.ukeire])
def test_batch_entry_points_reject_bad_shapes_and_values(fn):
    with pytest.raises(InvalidHandError):
        fn(np.zeros((3, 33), dtype=np.uint8))
    with pytest.raises(InvalidHandError):
        fn(np.zeros(34, dtype=np.uint8))
    with pytest.raises(InvalidHandError):
        fn(np.full((2, 34), -1))
    r = fn(np.full((4, 34), 255, dtype=np.uint8))
    assert not r.ok.any()
    assert len(fn(np.zeros((0, 34), dtype=np.uint8))) == 0


def test_batch_threads_give_identical_results():
    c = random_counts(20000, 13, seed=17)
    one = batch.waits(c, n_threads=1)
    two = batch.waits(c, n_threads=2)
    assert (one.mask == two.mask).all() and (one.shanten == two.shanten).all()


def test_pack_unpack_round_trip():
    c = random_counts(100, 14, seed=2)
    words = batch.pack(c)
    assert words.shape == (100, 4) and (batch.unpack(words) == c).all()


# ---- bulk text ----

def test_text_bulk_matches_parsed_hands(tmp_path):
    c = random_counts(500, 13, seed=5)
    lines = [str(hand_of(row)) for row in c]
    path = tmp_path / "hands.txt"
    path.write_text("\n".join(lines) + "\n")
    r = batch.shanten_text(str(path), keep_counts=True)
    assert r.ok.all() and len(r) == 500
    assert (r.counts == c).all()
    assert (r.shanten == batch.shanten(c).shanten).all()


def test_text_bulk_letter_first_and_red_fives():
    r = batch.shanten_text(b"m123p406s789z1122\n123m406p789s1122z\r\n")
    assert r.ok.all() and r.shanten.tolist() == [0, 0]


def test_text_bulk_reports_bad_lines_with_position():
    data = (b"123m456p789s1122z\n12x3m456p789s11z\n\n11111m23p456s789s\n00m123p456s7899s\n"
            b"123m456p789s1122\n")
    r = batch.shanten_text(data)
    assert r.ok.tolist() == [True, False, False, False, False, False]
    errs = {e.index: e for e in r.errors()}
    assert errs[1].reason == "parse_error" and errs[1].position == 2
    assert errs[2].reason == "parse_error"
    assert errs[3].reason == "too_many_copies"
    assert errs[4].reason == "too_many_copies"      # two red fives of one suit
    assert errs[5].reason == "parse_error"           # digits without a suit


def test_ukeire_summary_equals_full_summary():
    c = random_counts(5000, 14, seed=23)
    full, summary = batch.ukeire(c, full=True), batch.ukeire(c)
    for name in ("best_shanten", "best_discard", "best_count"):
        assert (getattr(full, name) == getattr(summary, name)).all(), name


# ---- statuses ----

def test_status_table_agrees_with_the_compiled_kernels():
    from mjcore import status
    from mjcore._core.batch import STATUS_CODES

    assert {s.name: s.code for s in status.STATUSES} == STATUS_CODES
    assert len({s.reason for s in status.STATUSES}) == len(status.STATUSES)
    for s in status.STATUSES:
        assert s.reason == status.library_reason(status.wire_reason(s.reason))
        assert status.wire_reason(s.reason) == s.reason.upper()


def test_single_hand_and_batch_report_one_reason_per_status():
    from mjcore import status

    counts = np.zeros((3, 34), dtype=np.uint8)
    counts[0, :13] = 1
    counts[0, 0] = 5                              # five copies
    counts[1, :12] = 1                            # twelve tiles
    counts[2, :13] = 1
    r = batch.shanten(counts, np.array([0, 0, 5], np.uint8))
    want = [status.BAD_COUNT, status.BAD_TOTAL, status.BAD_MELDS]
    assert r.status.tolist() == want
    assert [e.reason for e in r.errors()] == [status.reason_of(c) for c in want]
    with pytest.raises(InvalidHandError) as err:
        mjcore.shanten("11111m2345678p9s")
    assert err.value.reason == status.reason_of(status.BAD_COUNT)
    with pytest.raises(InvalidHandError) as err:
        mjcore.shanten("123456789m123p")
    assert err.value.reason == status.reason_of(status.BAD_TOTAL)


# ---- three-player riichi (sanma): 108 tiles, no 2m-8m ----

SANMA = "tenhou_sanma"
NO_2M_8M = [k for k in range(34) if not 1 <= k <= 7]
SANMA_WALL = [k for k in NO_2M_8M for _ in range(4)]


@pytest.mark.parametrize("call", [mjcore.shanten, mjcore.ukeire, mjcore.is_agari])
@pytest.mark.parametrize("hand, named", [
    ("25m123p456s11122z", "2m"),
    ("19m123p456s111z 78m", "7m"),
    ("19m123p456s11z pon:888m", "8m"),
    ("19m123p11z chi:123s pon:222z", "a chi"),
])
def test_sanma_hand_with_a_tile_not_in_the_set(call, hand, named):
    from mjcore.riichi.rules import RuleSet

    for rules in (SANMA, RuleSet.preset(SANMA)):
        with pytest.raises(InvalidHandError) as err:
            call(hand, rules=rules)
        assert err.value.reason == "not_in_sanma" and named in str(err.value)


@pytest.mark.parametrize("kind", range(1, 8))
def test_sanma_closed_hand_holding_any_of_2m_to_8m(kind):
    """Each of 2m-8m in a closed hand is refused by every call, whatever rules came before
    (the last rules looked up are remembered); the same hand is fine under four players."""
    name = mjcore.tile_name(kind)
    thirteen = f"{kind + 1}9m19p19s1234567z"
    fourteen = f"{kind + 1}9m19p19s11234567z"
    calls: list[tuple[Callable[..., object], str]] = [
        (mjcore.shanten, thirteen), (mjcore.waits, thirteen),
        (mjcore.is_agari, fourteen), (mjcore.ukeire, fourteen)]
    for call, hand in calls:
        call(hand, rules="tenhou")
        with pytest.raises(InvalidHandError, match=name) as err:
            call(hand, rules=SANMA)
        assert err.value.reason == "not_in_sanma"
        call(hand, rules="tenhou")
        call(mjcore.Hand.parse(hand))


def test_sanma_visible_tile_not_in_the_set():
    with pytest.raises(InvalidHandError, match="5m") as err:
        mjcore.waits("19m19p19s1234567z", "5m", rules=SANMA)
    assert err.value.reason == "not_in_sanma"


def test_sanma_thirteen_orphans_and_seven_pairs_stand():
    w = mjcore.waits("19m19p19s1234567z", "1m9m", rules=SANMA)
    assert names(w) == "1m9m1p9p1s9s1z2z3z4z5z6z7z"
    assert w.remaining == 39 - 2                      # 3 unseen of each, two more seen
    assert mjcore.shanten("19m19p19s12345677z", rules=SANMA) == -1
    assert mjcore.is_agari("1199m1199p11s2233z", rules=SANMA)


def test_sanma_ukeire_drops_2m_to_8m_hand_checked():
    # Four players: discard 5z, 75 tiles, 1m2m3m9m among them. Three players: 2m and 3m do
    # not exist, so discarding 1m is best: 9m (2 left), 1p-9p (32), 1s-8s (27), 5z 7z (3 each).
    four = mjcore.ukeire("199m2458p12566s57z").best
    assert four.discard is not None
    assert (mjcore.tile_name(four.discard), four.remaining) == ("5z", 75)
    assert names(four.tiles).startswith("1m2m3m9m")
    three = mjcore.ukeire("199m2458p12566s57z", rules=SANMA).best
    assert three.discard is not None
    assert (mjcore.tile_name(three.discard), three.shanten, three.remaining) == ("1m", 4, 67)
    assert names(three.tiles) == "9m1p2p3p4p5p6p7p8p9p1s2s3s4s5s6s7s8s5z7z"
    got = batch.ukeire(np.array([mjcore.Hand.parse("199m2458p12566s57z").counts]), rules=SANMA)
    assert (got.best_discard[0], got.best_count[0], got.best_shanten[0]) == (0, 67, 4)


def _sanma_counts(seed: int, tiles: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    counts = np.zeros(34, np.uint8)
    for k in rng.permutation(SANMA_WALL)[:tiles]:
        counts[k] += 1
    return counts


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([13, 14]))
def test_sanma_ukeire_never_counts_2m_to_8m(seed, tiles):
    counts = _sanma_counts(seed, tiles)
    h = hand_of(counts)
    three, four = mjcore.ukeire(h, rules=SANMA), mjcore.ukeire(h)
    assert three.shanten == four.shanten == mjcore.shanten(h, rules=SANMA)
    for o in three.options:
        assert all(w.tile in NO_2M_8M for w in o.tiles)
    # the same options as four players, with 2m-8m taken out of each
    assert sorted((o.discard, o.shanten, tuple(w for w in o.tiles)) for o in three.options) == \
        sorted((o.discard, o.shanten, tuple(w for w in o.tiles if w.tile in NO_2M_8M))
               for o in four.options)
    if tiles == 13:
        assert all(w.tile in NO_2M_8M for w in mjcore.waits(h, rules=SANMA))
        m = int(batch.waits(counts[None], rules=SANMA).advance_mask[0])
        assert m >> 1 & 0x7F == 0 and m == sum(1 << w.tile for w in three.best.tiles)
    else:
        got = batch.ukeire(counts[None], rules=SANMA, full=True)
        assert (got.best_discard[0], got.best_count[0]) == (three.best.discard,
                                                            three.best.remaining)
        assert not (got.masks[0] & np.uint64(0x7F << 1)).any()


def test_sanma_batch_rows_with_2m_to_8m_are_bad_rows():
    good = _sanma_counts(5, 13)
    bad = good.copy()
    bad[np.flatnonzero(bad)[0]] -= 1
    bad[4] += 1                                       # a 5m
    counts = np.stack([good, bad, good])
    for call in (batch.shanten, batch.waits):
        r = call(counts, rules=SANMA)
        assert r.status.tolist() == [0, -22, 0]
        assert [(e.index, e.reason) for e in r.errors()] == [(1, "not_in_sanma")]
    assert batch.shanten(counts).ok.all()             # four players: every row is fine
    text = b"19m19p19s1234567z\n19m19p19s1234557z\n159m19p19s123456z\n"
    r = batch.shanten_text(text, rules=SANMA)
    assert r.status.tolist() == [0, 0, -22] and r.shanten[2] == -128
    # a line's own faults come first: a wrong total or a bad character, 5m or not
    text += b"15m19p19s123456z\n159m19p19s123456x\n"
    r = batch.shanten_text(text, rules=SANMA, keep_counts=True)
    assert [e.reason for e in r.errors()] == ["not_in_sanma", "wrong_tile_count", "parse_error"]
    assert r.counts[2, 4] == 1 and r.counts[1].sum() == 13


@pytest.mark.parametrize("tiles", [13, 14])
def test_sanma_batch_kernels_refuse_each_of_2m_to_8m_first(tiles):
    """Each of 2m-8m makes a row not_in_sanma in every batch call, ahead of any other fault
    of that row (a fifth copy, a wrong total, a bad meld count); the other rows are kept and
    a bad row's outputs are the error defaults."""
    from mjcore import status as codes

    good = _sanma_counts(7, tiles)
    rows = [good]
    for kind in range(1, 8):
        one = good.copy()
        one[np.flatnonzero(one)[0]] -= 1
        one[kind] += 1
        rows.append(one)
    five, extra, melds_and_5m = good.copy(), good.copy(), good.copy()
    five[3] = 5                                       # five 4m: also a bad count
    extra[6] += 1                                     # one tile too many
    melds_and_5m[4] = 1
    rows += [five, extra, good, melds_and_5m]
    counts = np.stack(rows)
    n_melds = np.zeros(len(rows), np.uint8)
    n_melds[-2:] = 5                                  # a bad meld count, without and with 5m
    out = codes.NOT_IN_SANMA
    want = [0] + [out] * 9 + [codes.BAD_MELDS, out]
    calls = ([batch.shanten, batch.ukeire, batch.is_agari] if tiles == 14
             else [batch.shanten, batch.waits])
    for call in calls:
        r = call(counts, n_melds, rules=SANMA)
        assert r.status.tolist() == want, call
        bad = r.status == out
        for name, value in r.values.items():
            if name in ("shanten", "best_shanten"):
                assert (value[bad] == -128).all(), name
            elif name in ("mask", "advance_mask", "best_count", "agari"):
                assert not value[bad].any(), name
        four = call(counts, n_melds)                  # four players: only the other faults
        assert four.status[0] == 0 and out not in four.status.tolist()
        assert four.status[-2] == codes.BAD_MELDS and four.status[8] == codes.BAD_COUNT


def test_sanma_single_hand_kernels_refuse_absent_kinds_first():
    """The single-hand entry points take the kinds absent from the tile set and answer a hand
    holding one not_in_sanma ahead of its other faults (a fifth copy, a wrong total, a bad
    meld count); without them the same counts are judged as before."""
    from mjcore import status as codes
    from mjcore._core import shanten as kernel
    from mjcore.analysis import ALL_KINDS, RIICHI_FORMS
    from mjcore.riichi.rules import SANMA_KINDS

    absent = ALL_KINDS & ~SANMA_KINDS
    entry_points = [(kernel.forms_index, 13), (kernel.agari, 14), (kernel.advance, 13),
                    (kernel.ukeire, 14)]
    for call, tiles in entry_points:
        good = _sanma_counts(3, tiles).tobytes()

        def status(counts: bytes, n_melds: int = 0, absent: int = absent,
                   call=call) -> int:
            out = call(counts, n_melds, RIICHI_FORMS, absent)
            return out if isinstance(out, int) else out[0]

        assert status(good) >= 0 and status(good, absent=0) >= 0
        for kind in range(1, 8):
            one = bytearray(good)
            one[next(k for k in range(34) if one[k])] -= 1
            one[kind] += 1
            assert status(bytes(one)) == codes.NOT_IN_SANMA, (call, kind)
            assert status(bytes(one), absent=0) >= 0
            one[kind] += 2                            # a wrong total too
            assert status(bytes(one)) == codes.NOT_IN_SANMA
            assert status(bytes(one), absent=0) == codes.BAD_TOTAL
        five = bytearray(good)
        five[4], five[0] = 5, 0                       # five 5m
        assert status(bytes(five)) == codes.NOT_IN_SANMA
        assert status(good, n_melds=5) == codes.BAD_MELDS
        with pytest.raises(ValueError, match="beyond the 34 kinds"):
            status(good, absent=1 << 34)


def test_sanma_single_hand_errors_name_the_tile_ahead_of_the_size():
    """A sanma hand with 2m-8m and the wrong number of tiles is not_in_sanma naming the tile,
    closed or with melds, as before the check moved into the kernels."""
    cases: list[tuple[Callable[..., object], str, str]] = [
        (mjcore.shanten, "5m19p19s1234567z11z", "5m"),
        (mjcore.is_agari, "3m19p19s1234567z", "3m"),
        (mjcore.waits, "19m19p19s1234567z7m7m", "7m"),
        (mjcore.ukeire, "19m19p19s12345z pon:666m", "6m")]
    for call, hand, named in cases:
        with pytest.raises(InvalidHandError, match=named) as err:
            call(hand, rules=SANMA)
        assert err.value.reason == "not_in_sanma", (call, hand)


def test_rules_entry_points_answer_only_for_the_rules_they_know():
    """``forms_index_for`` / ``agari_for`` answer for None and for the rules value last told
    (by identity), leave other rules and the hands that rules' own check must see first to
    the caller (ASK_CALLER), and refuse a malformed rules description."""
    from mjcore._core import shanten as kernel
    from mjcore.analysis import ALL_KINDS, RIICHI_FORMS, _rules_for_hands
    from mjcore.riichi.rules import SANMA_KINDS

    h13, h14 = mjcore.Hand.parse("19m19p19s1234567z"), mjcore.Hand.parse("19m19p19s11234567z")
    meld = mjcore.Hand.parse("19m19p19s1234z pon:777z")
    ask = kernel.ASK_CALLER
    told, other = object(), object()
    absent = ALL_KINDS & ~SANMA_KINDS
    try:
        kernel.know_rules(told, RIICHI_FORMS, absent, kernel.CHECK_MELDED)
        assert kernel.forms_index_for(h13._packed, 0, told) >= 0
        assert kernel.agari_for(h14._packed, 0, told) == 1
        assert kernel.forms_index_for(h13._packed, 0, None) >= 0
        assert kernel.forms_index_for(h13._packed, 0, other) == ask
        assert kernel.forms_index_for(meld._packed, 1, told) == ask
        two_m = bytearray(h13._packed)
        two_m[1] = 1
        assert kernel.forms_index_for(bytes(two_m), 0, None) >= 0
        assert kernel.forms_index_for(bytes(two_m), 0, told) < 0 != ask
        kernel.know_rules(told, RIICHI_FORMS, 0, kernel.CHECK_EVERY)
        assert kernel.agari_for(h14._packed, 0, told) == ask
        with pytest.raises(ValueError, match="not a known set"):
            kernel.know_rules(told, 99, 0, kernel.CHECK_NONE)
        with pytest.raises(ValueError, match="beyond the 34 kinds"):
            kernel.know_rules(told, RIICHI_FORMS, 1 << 40, kernel.CHECK_NONE)
        with pytest.raises(ValueError, match="CHECK_NONE"):
            kernel.know_rules(told, RIICHI_FORMS, 0, 7)
    finally:
        _rules_for_hands(SANMA)       # what the kernels know is analysis's again
    assert mjcore.shanten(h13, rules=SANMA) == 0
    with pytest.raises(mjcore.InvalidRuleError):      # told only to the kernel, not rules
        mjcore.shanten(h13, rules=told)
    with pytest.raises(InvalidHandError) as err:
        mjcore.shanten("19m19p19s123z chi:345m", rules=SANMA)
    assert err.value.reason == "not_in_sanma"


def test_sanma_melded_hands_and_rules_switching_through_the_kernels():
    """Closed and melded hands under sanma, four-player and classical rules in turn: each
    call answers under its own rules whatever the kernels knew before."""
    melded = "123p456s11z99m pon:777z"
    for rules in (SANMA, "tenhou", "classical", None, SANMA):
        assert mjcore.shanten(melded, rules=rules) == 0
        assert mjcore.is_agari("19m19p19s11234567z", rules=rules)
    with pytest.raises(InvalidHandError) as err:
        mjcore.is_agari("19m19p19s11234z pon:555m", rules=SANMA)
    assert err.value.reason == "not_in_sanma" and "5m" in str(err.value)
    assert mjcore.is_agari("19m19p19s11234z pon:555m", rules="tenhou") is False
    with pytest.raises(InvalidHandError) as err:
        mjcore.shanten("0m19p19s1234567z", rules="classical")
    assert err.value.reason == "red_five_not_in_set"
    with pytest.raises(mjcore.InvalidRuleError):
        mjcore.shanten("19m19p19s1234567z", rules="no such rules")


@pytest.mark.parametrize("function", ["ukeire", "waits", "expected_values"])
@pytest.mark.parametrize("visible", [["0p"], ["1m", "0p"], [0, "0p"], ("0p",), ["3s", "0s0s"]])
def test_a_red_five_in_a_list_of_visible_tiles_counts_as_in_the_text(function, visible):
    """A second red five of a suit among list entries is refused as in the text form."""
    hand = "123m406p789s1122z" if function != "expected_values" else "234m406p78s112233z"
    with pytest.raises(InvalidHandError) as exc:
        getattr(mjcore, function)(hand, visible=visible)
    assert exc.value.reason == "too_many_copies"
    assert exc.value.part == "visible" and "red fives" in str(exc.value)


def test_expected_values_read_a_red_five_listed_as_the_text_form():
    def values(visible):
        d = mjcore.expected_values("234m456p78s112233z", visible=visible, max_nodes=2000)
        return {**d.to_dict(), "seconds": None, "bytes_peak": None}

    assert values(["0s", 0]) == values("0s1m")
    assert values("0s1m") != values("5s1m")     # the red five seen matters
