"""Hypothesis fuzzing of the batch entry points (mjcore.batch).

Any input array must give either InvalidHandError or a BatchResult whose ``status`` marks
exactly the invalid rows, where "invalid" is defined here, independently of the kernels: a
count above 4, a number of called melds above 4, or closed tiles + 3 per meld not matching the
operation (13 or 14 for shanten, 14 for agari and ukeire, 13 for waits). Good rows must equal
the single-hand API (mjcore.shanten / is_agari / waits / ukeire) on the same hand.
``shanten_text`` gets arbitrary bytes and lines checked against a plain reference grammar.
Riichi ``batch.score`` and classical ``score_deals`` get every argument fuzzed (values, shapes,
dtypes, junk), each scored row compared with the single-hand kernel or with itself alone;
every call also gets junk ``rules`` (InvalidRuleError) and ``n_threads`` (TypeError).

Example counts stay modest: the suite also runs once against the -O0 debug build.
``MJCORE_FUZZ_EXAMPLES`` scales them for a long run.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mjcore
from mjcore import Hand, InvalidHandError, Meld, batch
from mjcore.classical.batch import score_deals
from mjcore.classical.rules import ClassicalRules
from mjcore.errors import BatchError, InvalidRuleError
from mjcore.riichi.batch_scoring import MELD_NONE
from mjcore.riichi.rules import RuleSet
from mjcore.status import BY_CODE

SCALE = float(os.environ.get("MJCORE_FUZZ_EXAMPLES", "1"))
FUZZ = settings(max_examples=max(10, int(60 * SCALE)), deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
MAX_CHECKED_ROWS = 6  # good rows per example compared with the single-hand API

# operation -> (entry point, totals it accepts, counting 3 per meld)
OPS = {
    "shanten": (batch.shanten, (13, 14)),
    "is_agari": (batch.is_agari, (14,)),
    "waits": (batch.waits, (13,)),
    "ukeire": (batch.ukeire, (14,)),
}
STATUS_CODES = {-1, -2, -3, -4, -5, -6, -7}


# -- strategies ---------------------------------------------------------------------------------

@st.composite
def wall_row(draw, sizes=(13, 14)) -> tuple[list[int], int]:
    """A legal row: n_melds and 13-3k or 14-3k closed tiles drawn from a 136-tile wall."""
    melds = draw(st.integers(0, 4))
    size = draw(st.sampled_from(sizes)) - 3 * melds
    tiles = draw(st.permutations(range(136)))[:size]
    row = [0] * 34
    for t in tiles:
        row[t // 4] += 1
    return row, melds


@st.composite
def any_row(draw) -> tuple[list[int], int]:
    """A row of any kind: legal, legal with one change, or arbitrary bytes."""
    kind = draw(st.integers(0, 5))
    if kind <= 2:
        return draw(wall_row())
    if kind == 3:  # one change: a count, the meld number, or one tile more/less
        row, melds = draw(wall_row())
        what = draw(st.integers(0, 3))
        k = draw(st.integers(0, 33))
        if what == 0:
            row[k] = draw(st.integers(0, 255))
        elif what == 1:
            melds = draw(st.integers(0, 255))
        elif what == 2:
            row[k] = min(255, row[k] + 1)
        elif row[k]:
            row[k] -= 1
        return row, melds
    if kind == 4:  # few random tiles, maybe with five copies
        row = [0] * 34
        for t in draw(st.lists(st.integers(0, 33), max_size=16)):
            row[t] += 1
        return row, draw(st.integers(0, 6))
    return draw(st.lists(st.integers(0, 255), min_size=34, max_size=34)), draw(
        st.integers(0, 255))


rows_st = st.lists(any_row(), max_size=24)
threads_st = st.sampled_from([None, 0, -1, 1, 2, 3])


def layout(counts: np.ndarray, how: str) -> np.ndarray:
    """The same (N, 34) values in another memory layout or dtype."""
    if how == "c":
        return counts
    if how == "strided":  # every other column of a wider array
        wide = np.zeros((counts.shape[0], 68), dtype=np.uint8)
        wide[:, ::2] = counts
        return wide[:, ::2]
    if how == "fortran":
        return np.asfortranarray(counts)
    if how == "readonly":
        out = counts.copy()
        out.flags.writeable = False
        return out
    if how == "rows_reversed":  # negative row stride
        return counts[::-1].copy()[::-1]
    if how == "list":
        return counts.tolist()
    return counts.astype(how)


LAYOUTS = ["c", "strided", "fortran", "readonly", "rows_reversed", "list", "int16", "int64",
           "uint16", "float64"]


def melds_input(melds: np.ndarray, how: str):
    if how == "none":
        return None
    if how == "scalar":
        return int(melds[0]) if melds.size else 0
    if how == "int64":
        return melds.astype(np.int64)
    if how == "strided":
        wide = np.zeros(2 * melds.size, dtype=np.uint8)
        wide[::2] = melds
        return wide[::2]
    return melds


# -- the independent reference ------------------------------------------------------------------

def invalid_rows(counts: np.ndarray, melds: np.ndarray, totals: tuple[int, ...]) -> np.ndarray:
    counts = counts.astype(np.int64)
    melds = melds.astype(np.int64)
    total = counts.sum(axis=1) + 3 * melds
    return (counts > 4).any(axis=1) | (melds < 0) | (melds > 4) | ~np.isin(total, totals)


def reasons(row: np.ndarray, melds: int, totals: tuple[int, ...]) -> set[int]:
    """Status codes that describe what is wrong with a row."""
    out = set()
    if (row > 4).any():
        out.add(-1)
    if not 0 <= melds <= 4:
        out.add(-3)
    if int(row.sum()) + 3 * melds not in totals:
        out.add(-2)
    return out


def hand_of(row: np.ndarray, melds: int) -> Hand:
    """The row as a Hand whose called melds are pons of kinds the closed tiles do not use."""
    free = [k for k in range(33, -1, -1) if row[k] == 0][:melds]
    return Hand.from_counts([int(x) for x in row], melds=[Meld.pon(k) for k in free])


def mask_of(tiles) -> int:
    return sum(1 << w.tile for w in tiles)


def check_good_row(op: str, res, i: int, row: np.ndarray, melds: int) -> None:
    hand = hand_of(row, melds)
    if op == "shanten":
        single = mjcore.shanten(hand)
        assert int(res.shanten[i]) == int(single), (hand, res.shanten[i], single)
        forms = res.forms[i].tolist()
        assert forms[0] == single.standard, (hand, forms, single)
        assert forms[1] == (99 if single.chiitoitsu is None else single.chiitoitsu), hand
        assert forms[2] == (99 if single.kokushi is None else single.kokushi), hand
    elif op == "is_agari":
        assert bool(res.agari[i]) == mjcore.is_agari(hand), hand
    elif op == "waits":
        waits = mjcore.waits(hand)
        assert int(res.shanten[i]) == waits.shanten, (hand, res.shanten[i], waits)
        assert bool(res.tenpai[i]) == (waits.shanten == 0), hand
        assert int(res.mask[i]) == mask_of(waits.tiles), (hand, res.mask[i], waits)
    else:
        ukeire = mjcore.ukeire(hand)
        after = res.after[i].tolist()
        masks = res.masks[i].tolist()
        options = {o.discard: o for o in ukeire.options}
        assert set(options) == {k for k in range(34) if row[k]}, hand
        for k in range(34):
            if k in options:
                assert after[k] == options[k].shanten, (hand, k, after[k], options[k])
                assert masks[k] == mask_of(options[k].tiles), (hand, k)
            else:
                assert after[k] == 127, (hand, k, after[k])
        best = min(o.shanten for o in ukeire.options)
        assert int(res.best_shanten[i]) == best, hand
        d = int(res.best_discard[i])
        assert row[d] > 0 and after[d] == best, (hand, d)
        left = sum(4 - int(row[t]) + (t == d) for t in range(34) if masks[d] >> t & 1)
        assert int(res.best_count[i]) == left, (hand, d, res.best_count[i], left)


def check_bad_row(op: str, res, i: int) -> None:
    if op == "shanten":
        assert res.shanten[i] == -128
    elif op == "is_agari":
        assert not res.agari[i]
    elif op == "waits":
        assert res.mask[i] == 0 and not res.tenpai[i]
    else:
        assert res.best_shanten[i] == -128 and res.best_discard[i] == -1
        assert res.best_count[i] == 0
        assert (res.after[i] == 127).all() and (res.masks[i] == 0).all()


def run_op(op: str, counts_in, melds_in, threads):
    if op == "shanten":
        return batch.shanten(counts_in, melds_in, forms=True, n_threads=threads)
    if op == "ukeire":
        return batch.ukeire(counts_in, melds_in, full=True, n_threads=threads)
    return OPS[op][0](counts_in, melds_in, n_threads=threads)


def check_result(op: str, res, counts: np.ndarray, melds: np.ndarray) -> None:
    totals = OPS[op][1]
    n = counts.shape[0]
    assert isinstance(res, batch.BatchResult) and len(res) == n
    bad = invalid_rows(counts, melds, totals)
    status = res.status.astype(np.int64)
    assert ((status != 0) == bad).all(), (op, status.tolist(), bad.tolist())
    for i in np.flatnonzero(bad):
        assert int(status[i]) in reasons(counts[i], int(melds[i]), totals), (op, i, status[i])
        check_bad_row(op, res, int(i))
    errors = res.errors()
    assert [e.index for e in errors] == np.flatnonzero(bad).tolist()
    assert all(isinstance(e, InvalidHandError) and f"row {e.index}" in str(e) for e in errors)
    if errors:
        with pytest.raises(BatchError) as info:
            res.raise_for_errors()
        assert set(info.value.errors) == set(np.flatnonzero(bad).tolist())
        assert info.value.partial is res
    else:
        assert res.raise_for_errors() is res
    for i in np.flatnonzero(~bad)[:MAX_CHECKED_ROWS]:
        check_good_row(op, res, int(i), counts[i], int(melds[i]))


# -- array entry points -------------------------------------------------------------------------

@pytest.mark.parametrize("op", list(OPS))
@FUZZ
@given(rows=rows_st, how=st.sampled_from(LAYOUTS), melds_how=st.sampled_from(
    ["array", "none", "scalar", "int64", "strided"]), threads=threads_st)
def test_batch_rows(op, rows, how, melds_how, threads):
    counts = np.array([r for r, _ in rows], dtype=np.int64).reshape(len(rows), 34)
    melds = np.array([m for _, m in rows], dtype=np.int64)
    m_in = melds_input(melds.astype(np.uint8), melds_how)
    if melds_how == "none":
        melds = np.zeros_like(melds)
    elif melds_how == "scalar":
        melds = np.full_like(melds, int(melds[0]) if melds.size else 0)
    c_in = layout(counts.astype(np.uint8), how)
    try:
        res = run_op(op, c_in, m_in, threads)
    except InvalidHandError:
        # Only a scalar n_melds outside 0..4, or [] (no shape to read), fails a whole batch.
        scalar_bad = melds_how == "scalar" and melds.size and not 0 <= int(melds[0]) <= 4
        assert scalar_bad or (how == "list" and not rows)
        return
    check_result(op, res, counts, melds)


@pytest.mark.parametrize("op", list(OPS))
@FUZZ
@given(values=st.lists(st.lists(st.one_of(st.integers(0, 4), st.integers(-2**40, 2**40)),
                                min_size=34, max_size=34), max_size=4),
       dtype=st.sampled_from(["int64", "int32", "int16", "uint32", "uint64", "object"]),
       melds=st.lists(st.integers(-2**40, 2**40), min_size=4, max_size=4))
def test_batch_wide_integers(op, values, dtype, melds):
    """Counts and meld numbers beyond uint8: out-of-range counts fail the batch, out-of-range
    meld numbers mark their rows."""
    n = len(values)
    try:
        arr = np.array(values, dtype=dtype).reshape(n, 34)
    except OverflowError:
        return  # not representable in that dtype: nothing reaches mjcore
    m = np.array(melds[:n], dtype=np.int64)
    try:
        res = run_op(op, arr, m, 1)
    except InvalidHandError:
        assert any(not 0 <= v <= 255 for row in values for v in row)
        return
    counts = np.array(values, dtype=object).reshape(n, 34).astype(np.int64)
    assert counts.min(initial=0) >= 0 and counts.max(initial=0) <= 255
    check_result(op, res, counts, m)


@pytest.mark.parametrize("op", list(OPS))
@FUZZ
@given(rows=st.lists(wall_row(), min_size=1, max_size=6), data=st.data(),
       where=st.sampled_from(["counts", "melds"]))
def test_batch_non_integers(op, rows, data, where):
    """A fractional, infinite or NaN count or meld number anywhere fails the whole batch with
    InvalidHandError; whole floats behave like the integers."""
    counts = np.array([r for r, _ in rows], dtype=np.float64)
    melds = np.array([m for _, m in rows], dtype=np.float64)
    fractional = data.draw(st.booleans())
    if fractional:
        target = counts if where == "counts" else melds
        flat = target.reshape(-1)
        flat[data.draw(st.integers(0, flat.size - 1))] = data.draw(st.one_of(
            st.floats(allow_nan=True, allow_infinity=True).filter(
                lambda x: not np.isfinite(x) or x != round(x)),
            st.sampled_from([0.5, 1e-9, 4.000001, -0.25, np.nan, np.inf, -np.inf])))
    try:
        res = run_op(op, counts, melds, 1)
    except InvalidHandError:
        assert fractional
        return
    assert not fractional
    check_result(op, res, counts.astype(np.int64), melds.astype(np.int64))


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("bad", [
    np.zeros(34, dtype=np.uint8), np.zeros((2, 33), dtype=np.uint8),
    np.zeros((2, 35), dtype=np.uint8), np.zeros((1, 1, 34), dtype=np.uint8),
    np.zeros((34, 2), dtype=np.uint8), np.zeros((0,), dtype=np.uint8), [], [[]],
    np.uint8(3), np.zeros((2, 0), dtype=np.uint8)],
    ids=["1d", "33", "35", "3d", "transposed", "empty1d", "emptylist", "emptyrow", "scalar",
         "nocols"])
def test_batch_bad_shapes(op, bad):
    with pytest.raises(InvalidHandError):
        run_op(op, bad, None, 1)


@pytest.mark.parametrize("op", list(OPS))
def test_batch_bad_meld_shapes(op):
    counts = np.zeros((3, 34), dtype=np.uint8)
    for m in (np.zeros(2, np.uint8), np.zeros((3, 1), np.uint8), np.zeros(4, np.uint8), 5, -1,
              300):
        with pytest.raises(InvalidHandError):
            run_op(op, counts, m, 1)


@pytest.mark.parametrize("op", list(OPS))
def test_batch_empty(op):
    res = run_op(op, np.zeros((0, 34), dtype=np.uint8), None, 2)
    assert len(res) == 0 and res.errors() == []
    for v in res.values.values():
        assert v.shape[0] == 0


@pytest.mark.parametrize("op", list(OPS))
def test_batch_large_mixed(op):
    """Many rows, two threads: legal and arbitrary rows interleaved, same answers as one
    thread, and the reference marks the same rows."""
    rng = np.random.default_rng(7)
    n = 4000
    from .hands import random_with_melds

    extra = 1 if op in ("is_agari", "ukeire") else 0
    counts, melds = random_with_melds(n, 11, extra)
    junk = rng.integers(0, 256, size=(n, 34), dtype=np.uint8)
    pick = rng.random(n) < 0.3
    counts[pick] = junk[pick]
    melds[rng.random(n) < 0.05] = rng.integers(5, 256)
    one = run_op(op, counts, melds, 1)
    two = run_op(op, counts, melds, 2)
    assert np.array_equal(one.status, two.status)
    for key in one.values:
        assert np.array_equal(one.values[key], two.values[key]), key
    bad = invalid_rows(counts, melds, OPS[op][1])
    assert ((one.status != 0) == bad).all()


@FUZZ
@given(rows=st.lists(wall_row(), max_size=16), junk=st.lists(
    st.lists(st.integers(5, 255), min_size=1, max_size=3), max_size=3))
def test_pack_unpack(rows, junk):
    counts = np.array([r for r, _ in rows], dtype=np.uint8).reshape(len(rows), 34)
    words = batch.pack(counts)
    assert words.shape == (len(rows), 4) and words.dtype == np.uint32
    assert np.array_equal(batch.unpack(words), counts)
    if rows and junk:
        bad = counts.copy()
        for j, values in enumerate(junk):
            bad[j % len(rows), values[0] % 34] = values[-1]
        with pytest.raises(InvalidHandError):
            batch.pack(bad)


@FUZZ
@given(words=st.lists(st.lists(st.integers(0, 2**32 - 1), min_size=4, max_size=4),
                      max_size=8))
def test_unpack_any_words(words):
    w = np.array(words, dtype=np.uint32).reshape(len(words), 4)
    out = batch.unpack(w)
    assert out.shape == (len(words), 34) and out.max(initial=0) <= 7
    for r, row in enumerate(words):
        for k in range(34):
            assert out[r, k] == (row[k // 9] >> (3 * (k % 9))) & 7


# -- text ---------------------------------------------------------------------------------------

_MPSZ = re.compile(rb"(?:[0-9]+[mpsz])+")
_LETTER_FIRST = re.compile(rb"(?:[mpsz][0-9]+)+")


def reference_line(line: bytes) -> tuple[list[int] | None, int | None]:
    """(counts, 0) for a legal closed hand of 13 or 14 tiles; (counts, -2) when it parses with
    another number of tiles; (None, None) when it does not parse (status -7, or -1 when a
    fifth copy or second red five comes before the first syntax error).

    Grammar: optional spaces/tabs around (and a CR before the newline), then mpsz groups
    ``123m`` or letter-first groups ``m123``; ``0`` is the red five of m/p/s (one per suit);
    honors are 1z-7z; at most 4 copies of a kind."""
    body = line.rstrip(b" \t\r").lstrip(b" \t")
    if _MPSZ.fullmatch(body):
        groups = [(g[-1:], g[:-1]) for g in re.findall(rb"[0-9]+[mpsz]", body)]
    elif _LETTER_FIRST.fullmatch(body):
        groups = [(g[:1], g[1:]) for g in re.findall(rb"[mpsz][0-9]+", body)]
    else:
        return None, None
    counts = [0] * 34
    reds = [0, 0, 0]
    too_many = False
    for letter, digits in groups:
        suit = b"mpsz".index(letter)
        for d in digits:
            n = d - 48
            if suit == 3 and not 1 <= n <= 7:
                return None, None
            if n == 0:
                reds[suit] += 1
                too_many |= reds[suit] > 1
                n = 5
            k = 9 * suit + n - 1
            counts[k] += 1
            too_many |= counts[k] > 4
    if too_many:
        return None, None
    return counts, 0 if sum(counts) in (13, 14) else -2


def expected_lines(data: bytes) -> list[bytes]:
    if not data:
        return []
    lines = data.split(b"\n")
    if data.endswith(b"\n"):
        lines.pop()
    return lines


def check_text(data: bytes, threads=1) -> None:
    res = batch.shanten_text(data, keep_counts=True, n_threads=threads)
    kept_counts, positions = res.counts, res.error_positions
    assert kept_counts is not None and positions is not None
    lines = expected_lines(data)
    assert len(res) == len(lines), (data[:200], len(res), len(lines))
    checked = 0
    for i, line in enumerate(lines):
        counts, code = reference_line(line)
        status = int(res.status[i])
        if code == -2:  # parsed, wrong size: the counts are kept
            assert status == -2, (line, status)
            assert kept_counts[i].tolist() == counts, line
            continue
        if counts is None:
            assert status in (-1, -7), (line, status)
            assert res.shanten[i] == -128
            assert kept_counts[i].sum() == 0
            pos = int(positions[i])
            assert -1 <= pos <= len(line), (line, pos)
            continue
        assert status == 0, (line, status, int(positions[i]))
        assert kept_counts[i].tolist() == counts, line
        if checked < MAX_CHECKED_ROWS:
            checked += 1
            text = line.decode("ascii").strip()
            single = mjcore.shanten(Hand.parse(text))
            assert int(res.shanten[i]) == int(single), (line, res.shanten[i], single)
            assert Hand.parse(text).counts == tuple(counts), line
    assert [e.index for e in res.errors()] == np.flatnonzero(res.status).tolist()


def mpsz(row: list[int], letter_first: bool, red: bool) -> bytes:
    parts = []
    for suit, letter in enumerate("mpsz"):
        digits = "".join(str(n + 1) * row[9 * suit + n] for n in range(7 if suit == 3 else 9))
        if red and suit < 3 and "5" in digits:
            digits = digits.replace("5", "0", 1)
        if digits:
            parts.append(letter + digits if letter_first else digits + letter)
    return "".join(parts).encode()


@st.composite
def text_line(draw) -> bytes:
    kind = draw(st.integers(0, 6))
    if kind <= 2:
        row, _ = draw(wall_row())
        line = mpsz(row, draw(st.booleans()), draw(st.booleans()))
    elif kind == 3:  # near-miss: legal line with bytes changed
        row, _ = draw(wall_row())
        edited = bytearray(mpsz(row, draw(st.booleans()), draw(st.booleans())))
        for _ in range(draw(st.integers(1, 3))):
            pos = draw(st.integers(0, len(edited)))
            edited[pos:pos] = draw(st.sampled_from([b"0", b"5", b"8", b"9", b"m", b"z", b" ",
                                                    b"\t", b"\r", b"\x00", b"\xff", b"x"]))
        line = bytes(edited)
    elif kind == 4:
        line = draw(st.binary(max_size=40))
    elif kind == 5:  # very long lines
        unit = draw(st.sampled_from([b"1", b"123m", b"m1", b"9", b"0p", b" "]))
        line = unit * draw(st.integers(10, 5000))
    else:
        line = draw(st.text(alphabet="0123456789mpsz \t\r", max_size=30)).encode()
    return line.replace(b"\n", b"")


@FUZZ
@given(lines=st.lists(text_line(), max_size=20), sep=st.sampled_from([b"\n", b"\r\n"]),
       trailing=st.booleans(), threads=threads_st)
def test_shanten_text_lines(lines, sep, trailing, threads):
    data = sep.join(lines) + (sep if trailing and lines else b"")
    check_text(data, threads)


@FUZZ
@given(data=st.binary(max_size=400))
def test_shanten_text_any_bytes(data):
    check_text(data)


def test_shanten_text_edges(tmp_path):
    good = b"123m456p789s1122z"
    for data in [b"", b"\n", b"\n\n", b"\r\n", good, good + b"\n", good + b"\r\n",
                 good + b"\x00", b"\x00" * 100, good * 1000, b"m" + b"1" * 100_000,
                 b"1" * 100_000 + b"m", good + b"\n" + b"\xff" * 70_000 + b"\n" + good,
                 b" " * 10 + good + b" \t\r", b"0m0m" + good, b"8z" + good]:
        check_text(data)
    path = tmp_path / "hands.txt"
    path.write_bytes(good + b"\n123m\n")
    res = batch.shanten_text(path)
    assert res.status.tolist() == [0, -2] and res.shanten[0] == 0
    res = batch.shanten_text(str(path))
    assert res.status.tolist() == [0, -2]
    res = batch.shanten_text(memoryview(good))
    assert res.status.tolist() == [0]
    res = batch.shanten_text(bytearray(good))
    assert res.status.tolist() == [0]


def test_shanten_text_large_threads():
    from .hands import random_counts

    counts = random_counts(3000, 13, 5)
    data = b"".join(mpsz(r, i % 2 == 1, i % 3 == 0) + b"\n" for i, r in enumerate(counts.tolist()))
    one = batch.shanten_text(data, n_threads=1)
    two = batch.shanten_text(data, n_threads=2)
    assert (one.status == 0).all()
    assert np.array_equal(one.shanten, two.shanten)
    assert np.array_equal(one.shanten, batch.shanten(counts).shanten)


# -- bugs found by fuzzing, fixed; kept as regression tests --------------------------------------

def _in_subprocess(code: str) -> subprocess.CompletedProcess:
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [str(root), os.environ.get("PYTHONPATH", "")])))
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=120, check=False)


@pytest.mark.parametrize("call", [
    "batch.shanten(np.zeros((3, 34), np.uint8), n_threads=100000)",
    "batch.score(np.zeros((3, 34), np.uint8), np.zeros(3, np.uint8), n_threads=100000)",
    "score_deals(np.zeros((3, 4, 34), np.uint8), np.zeros((3, 4, 4, 2), np.uint8), "
    "np.zeros((3, 4), np.uint8), np.zeros((3, 4), np.uint8), np.zeros((3, 8), np.int16), "
    "n_threads=100000)"], ids=["shanten", "score", "score_deals"])
def test_huge_thread_count_does_not_crash(call):
    r = _in_subprocess("import numpy as np; from mjcore import batch; "
                       "from mjcore.classical.batch import score_deals; " + call)
    assert r.returncode == 0, r.stderr[-500:]


@pytest.mark.parametrize("bad", [True, False, np.bool_(True), 1.0, 2.5, "2", [2], object()])
def test_thread_count_must_be_an_int(bad):
    from mjcore.classical.batch import score_deals

    calls = [lambda: batch.shanten(np.zeros((1, 34), np.uint8), n_threads=bad),
             lambda: batch.shanten_text(b"123m", n_threads=bad),
             lambda: batch.score(np.zeros((1, 34), np.uint8), [0], n_threads=bad),
             lambda: score_deals(np.zeros((1, 4, 34), np.uint8), np.zeros((1, 4, 4, 2), np.uint8),
                                 np.zeros((1, 4), np.uint8), np.zeros((1, 4), np.uint8),
                                 np.zeros((1, 8), np.int16), n_threads=bad)]
    for call in calls:
        with pytest.raises(TypeError, match="n_threads"):
            call()


def test_fractional_counts_are_rejected():
    with pytest.raises(InvalidHandError):
        batch.shanten(np.full((1, 34), 0.4))


def test_non_numeric_counts_are_rejected():
    for bad in (np.array([["1"] * 34]), np.array([[None] * 34]), [[1] * 34, [1] * 3]):
        with pytest.raises(InvalidHandError):
            batch.shanten(bad)


def test_shanten_text_rejects_int_source():
    # In a subprocess: closing a descriptor this process uses would break pytest itself.
    r = _in_subprocess("import os, sys\n"
                       "from mjcore import batch, InvalidHandError\n"
                       "fd = os.open(sys.executable, os.O_RDONLY)\n"
                       "try:\n"
                       "    batch.shanten_text(fd)\n"
                       "except (TypeError, InvalidHandError):\n"
                       "    sys.exit(0)\n"
                       "sys.exit(1)\n")
    assert r.returncode == 0, r.stderr[-500:]


def test_shanten_text_letter_without_digits():
    res = batch.shanten_text(b"mp123456789s1122z3\n")
    with pytest.raises(InvalidHandError):
        Hand.parse("mp123456789s1122z3")
    assert res.status[0] != 0


def test_ukeire_full_bad_rows_are_filled():
    res = batch.ukeire(np.full((2, 34), 9, np.uint8), full=True)
    assert (res.after == 127).all() and (res.masks == 0).all()


@pytest.mark.parametrize("size", [65535, 65536, 131072, 131073, 400_000])
@pytest.mark.parametrize("threads", [1, 2, 3])
def test_shanten_text_across_chunks(size, threads):
    """Buffers above 64 KiB are parsed in parallel chunks. Lines that cross a chunk edge (some
    longer than a chunk), newlines on the edges and an unterminated last line must come out as
    when each line is parsed on its own."""
    rng = np.random.default_rng(size + threads)
    alphabet = np.frombuffer(b"123456789mpsz\n", np.uint8)
    data = bytearray(rng.choice(alphabet, size).tobytes())
    for edge in range(0, size, (size + 15) // 16):     # newlines around some chunk edges
        data[edge] = 10
    data[size // 3: size // 3 + 70_000] = b"1" * 70_000  # a line longer than a chunk
    for buf in (bytes(data), bytes(data[:-1]) + b"x"):
        lines = expected_lines(buf)
        res = batch.shanten_text(buf, n_threads=threads)
        assert len(res) == len(lines) and res.error_positions is not None
        sample = sorted(set(rng.integers(0, len(lines), 300).tolist()) | {0, len(lines) - 1})
        for i in sample:
            one = batch.shanten_text(lines[i] + b"\n")
            assert one.error_positions is not None
            assert (res.status[i], res.shanten[i], res.error_positions[i]) == (
                one.status[0], one.shanten[0], one.error_positions[0]), i


def test_shanten_text_large_buffer_threads():
    """A multi-chunk text buffer gives the same rows on 1 and 2 threads as the counts path."""
    rng = np.random.default_rng(7)
    hands = []
    for _ in range(30_000):
        wall = rng.permutation(136)[:13] // 4
        hands.append(np.bincount(wall, minlength=34).astype(np.uint8))
    counts = np.array(hands)
    text = b"\n".join(str(Hand.from_counts(tuple(int(v) for v in row))).encode()
                      for row in counts)
    assert len(text) > 4 * 65536
    expect = batch.shanten(counts).shanten
    for threads in (1, 2):
        res = batch.shanten_text(text, n_threads=threads)
        assert res.status.tolist() == [0] * len(counts)
        assert np.array_equal(res.shanten, expect)


@pytest.mark.parametrize("words", [[[-1, 0, 0, 0]], np.array([[-1, 0, 0, 0]], np.int64),
                                   [[0, 2**32, 0, 0]], np.array([[0, 0, 0, 2**40]], np.uint64),
                                   [[0, 0, 0, 2**70]]])
def test_unpack_refuses_words_out_of_range(words):
    with pytest.raises(InvalidHandError):
        batch.unpack(words)


def test_unpack_takes_wide_integer_words_in_range():
    words = batch.pack(np.array([[1, 2, 3, 4] + [0] * 30], np.uint8))
    assert np.array_equal(batch.unpack(words.astype(np.int64)), batch.unpack(words))
    assert np.array_equal(batch.unpack(words.tolist()), batch.unpack(words))


# -- batch scoring: every argument fuzzed (issue 29) ----------------------------------------------


SCORE_STATUS = {0, 1, -1, -2, -3, -4, -5, -20, -21, -22}
# rules values: the good ones, and junk that must be an InvalidRuleError
GOOD_RULES = [None, "tenhou", "wrc", "tenhou_sanma", RuleSet.preset("ema")]
JUNK_RULES = [5, 1.5, "nope", "", object(), ["tenhou"], {"preset": "tenhou"}, True]
# n_threads values: the good ones, and junk that must be a TypeError
GOOD_THREADS = [None, 0, -5, 1, 2, 100000, np.int64(2)]
JUNK_THREADS = [True, 2.0, "2", [1], np.bool_(False)]


def _decode(code: int) -> tuple[int, int, int, int]:
    """A melds entry as the batch kernel reads it."""
    return code & 7, (code >> 3) & 63, (code >> 9) & 7, (code >> 12) & 3


@st.composite
def score_row(draw) -> dict:
    """One row of batch.score's arrays: a wall hand with its winning tile, or junk."""
    row, n_melds = draw(wall_row(sizes=(14,)))
    if draw(st.integers(0, 3)) == 0:
        row = draw(st.lists(st.integers(0, 255), min_size=34, max_size=34))
    held = [k for k in range(34) if row[k]] or [0]
    melds = [MELD_NONE] * 4
    for j in range(n_melds if draw(st.booleans()) else 0):
        melds[j] = draw(st.one_of(
            st.builds(lambda kind, tile, frm: kind | tile << 3 | frm << 12,
                      st.integers(0, 4), st.integers(0, 33), st.integers(0, 3)),
            st.integers(0, 0xFFFF)))
    indicator = st.one_of(st.integers(0, 33), st.integers(0, 255))
    return {
        "counts": row, "melds": melds,
        "win_tile": draw(st.one_of(st.sampled_from(held), st.integers(0, 255))),
        "red": draw(st.integers(0, 4)), "flags": draw(st.integers(0, 0xFFFF)),
        "seat_wind": draw(st.integers(0, 5)), "round_wind": draw(st.integers(0, 5)),
        "from_rel": draw(st.integers(0, 4)), "pao_rel": draw(st.integers(-3, 4)),
        "dora": draw(st.lists(indicator, min_size=3, max_size=3)),
        "ura": draw(st.lists(indicator, min_size=3, max_size=3)),
        "honba": draw(st.integers(0, 0xFFFF)), "riichi_sticks": draw(st.integers(0, 0xFFFF)),
        "kita": draw(st.integers(0, 5)),
    }


_SCORE_COLUMNS = {"counts": np.uint8, "melds": np.uint16, "win_tile": np.uint8,
                  "red": np.uint8, "flags": np.uint16, "seat_wind": np.uint8,
                  "round_wind": np.uint8, "from_rel": np.uint8, "pao_rel": np.int8,
                  "dora": np.uint8, "ura": np.uint8, "honba": np.uint16,
                  "riichi_sticks": np.uint16, "kita": np.uint8}


_SHAPES = {"counts": (34,), "melds": (4,), "dora": (3,), "ura": (3,)}


def _junk_argument(draw, name: str, n: int):
    """A wrong value for one array argument: shape, dtype, range or type."""
    return draw(st.sampled_from([
        np.zeros((n + 1, 34)), np.zeros((n, 3, 2)), "12", object(), [[None]] * n,
        np.full((n, 4), np.nan), np.full(n, -1), np.full((n, 11), 3), np.full(n, 2**40)]))


@FUZZ
@given(rows=st.lists(score_row(), max_size=6), data=st.data(),
       rules=st.sampled_from(GOOD_RULES + JUNK_RULES),
       threads=st.sampled_from(GOOD_THREADS + JUNK_THREADS))
def test_batch_score_every_argument(rows, data, rules, threads):
    """Any value of any argument of batch.score is a clean error or a result per row; a row
    with a status equals the single-hand kernel on the same values."""
    n = len(rows)
    args = {name: np.array([r[name] for r in rows], dtype).reshape((n,) + _SHAPES.get(name, ()))
            for name, dtype in _SCORE_COLUMNS.items()}
    junk = data.draw(st.sets(st.sampled_from(sorted(_SCORE_COLUMNS)), max_size=2))
    for name in junk:
        args[name] = _junk_argument(data.draw, name, n)
    omit = data.draw(st.sets(st.sampled_from(sorted(set(_SCORE_COLUMNS) - {"counts",
                                                                          "win_tile"}))))
    for name in omit - junk:
        del args[name]
    try:
        res = batch.score(**args, rules=rules, n_threads=threads)
    except TypeError as e:
        assert any(threads is j for j in JUNK_THREADS) and "n_threads" in str(e)
        return
    except InvalidRuleError:
        assert any(rules is j for j in JUNK_RULES)
        return
    except InvalidHandError:
        assert junk or not rows, "a batch of well-shaped arrays failed as a whole"
        return
    assert not any(threads is j for j in JUNK_THREADS)
    assert not any(rules is j for j in JUNK_RULES)
    assert len(res) == n and set(res.status.tolist()) <= SCORE_STATUS
    if junk:
        return
    params = (RuleSet.preset(rules) if isinstance(rules, str) else rules or
              RuleSet.preset("tenhou")).scoring_params
    for i, r in enumerate(rows):
        one = _single(r, params, omit)
        assert int(res.status[i]) == one.status_code, (r, res.status[i], one.status_code)
        if one.status_code >= 0:
            assert (int(res.han[i]), int(res.fu[i]), int(res.points[i])) == (
                one.han, one.fu, one.points), r
            assert tuple(res.deltas[i].tolist()) == one.deltas, r


_DEFAULTS = {"melds": [MELD_NONE] * 4, "red": 0, "flags": 0, "seat_wind": 0, "round_wind": 0,
             "from_rel": 3, "pao_rel": -1, "dora": [], "ura": [], "honba": 0,
             "riichi_sticks": 0, "kita": 0}


def _single(row: dict, params: tuple, omit: set):
    """The single-hand kernel on the values the batch row holds (defaults where omitted)."""
    from mjcore._core.scoring import score_raw

    v: dict[str, Any] = {k: (_DEFAULTS[k] if k in omit else row[k]) for k in row}
    melds = [_decode(m) for m in v["melds"] if m != MELD_NONE]
    return score_raw(v["counts"], melds, v["red"], v["win_tile"], v["flags"], v["seat_wind"],
                     v["round_wind"], v["from_rel"], v["pao_rel"],
                     [t for t in v["dora"] if t != 255], [t for t in v["ura"] if t != 255],
                     v["honba"], v["riichi_sticks"], params, 0, v["kita"])


# -- classical batch scoring: every argument fuzzed (issue 29) -------------------------------------


_DEAL_COLUMNS = {"counts": ((4, 34), np.uint8, 0, 4), "melds": ((4, 4, 2), np.uint8, 0, 40),
                 "n_melds": ((4,), np.uint8, 0, 5), "bonus": ((4,), np.uint8, 0, 255),
                 "info": ((8,), np.int16, -2, 300), "dead_kinds": ((), np.uint64, 0, 2**40)}
GOOD_CLASSICAL = ["classical", "bradfield", ClassicalRules.preset("classical").replace(limit=500)]
JUNK_CLASSICAL = [None, 5, "tenhou", "nope", object(), RuleSet.preset("tenhou")]


@FUZZ
@given(n=st.integers(0, 5), data=st.data(),
       rules=st.sampled_from(GOOD_CLASSICAL + JUNK_CLASSICAL),
       threads=st.sampled_from(GOOD_THREADS + JUNK_THREADS))
def test_classical_score_deals_every_argument(n, data, rules, threads):
    """Any value of any argument of classical score_deals is a clean error or a result per
    row: statuses from the table, each settled row zero-sum, each row as when scored alone."""
    args = {}
    for name, (shape, dtype, lo, hi) in _DEAL_COLUMNS.items():
        values = data.draw(st.lists(st.integers(lo, hi), min_size=n * int(np.prod(shape)),
                                    max_size=n * int(np.prod(shape))))
        args[name] = np.array(values, dtype=dtype).reshape((n,) + shape)
    junk = data.draw(st.sets(st.sampled_from(sorted(_DEAL_COLUMNS)), max_size=2))
    for name in junk:
        args[name] = data.draw(st.sampled_from([
            np.zeros((n + 1, 4)), np.full((n, 4, 34), 0.5), "x", object(), None,
            np.full((n, 8), 2**20), np.full((n, 4, 4, 2), -1)]))
    if "dead_kinds" not in junk and data.draw(st.booleans()):
        del args["dead_kinds"]
    try:
        res = score_deals(**args, rules=rules, n_threads=threads)
    except TypeError as e:
        assert any(threads is j for j in JUNK_THREADS) and "n_threads" in str(e)
        return
    except InvalidRuleError:
        assert any(rules is j for j in JUNK_RULES + JUNK_CLASSICAL)
        return
    except InvalidHandError:
        assert junk, "well-shaped arrays failed as a whole"
        return
    assert not any(threads is j for j in JUNK_THREADS)
    assert not any(rules is j for j in JUNK_CLASSICAL)
    assert len(res) == n and set(res.status.tolist()) <= set(BY_CODE)
    ok = res.status == 0
    assert (res.net[ok].sum(axis=1) == 0).all()
    if junk:
        return
    for i in range(n):
        one = score_deals(**{k: v[i:i + 1] for k, v in args.items()}, rules=rules)  # type: ignore[arg-type]
        assert one.status[0] == res.status[i]
        assert np.array_equal(one.net[0], res.net[i]) and np.array_equal(one.score[0],
                                                                         res.score[i])


@pytest.mark.parametrize("op", [*OPS, "shanten_text"])
@FUZZ
@given(rows=st.lists(wall_row(), max_size=4),
       rules=st.sampled_from(GOOD_RULES + GOOD_CLASSICAL + JUNK_RULES + [
           RuleSet.preset("tenhou").replace(kiriage=True)]),
       threads=st.sampled_from(GOOD_THREADS + JUNK_THREADS))
def test_batch_rules_and_threads(op, rows, rules, threads):
    """``rules`` and ``n_threads`` of the hand-analysis batch calls: junk is InvalidRuleError
    or TypeError; anything else gives the rows' results."""
    counts = np.array([r for r, _ in rows], np.uint8).reshape(len(rows), 34)
    melds = np.array([m for _, m in rows], np.uint8)
    try:
        if op == "shanten_text":
            text = b"\n".join(mpsz(r, False, False) for r, _ in rows)
            res = batch.shanten_text(text, rules=rules, n_threads=threads)
        else:
            res = OPS[op][0](counts, melds, rules=rules, n_threads=threads)
    except TypeError as e:
        assert any(threads is j for j in JUNK_THREADS) and "n_threads" in str(e)
        return
    except InvalidRuleError:
        assert any(rules is j for j in JUNK_RULES)
        return
    assert not any(threads is j for j in JUNK_THREADS) and not any(rules is j for j in JUNK_RULES)
    assert len(res) == (len(rows) if op != "shanten_text" or rows else 0)


@pytest.mark.parametrize("name, value", [("kita", object()), ("honba", "12"), ("red", 1.5),
                                         ("counts", [[0] * 34, [0] * 3]),
                                         ("dora", [[1], [1, 2]])])
def test_batch_score_refuses_a_junk_argument_naming_it(name, value):
    """Found by fuzzing: a scalar that is no integer was a TypeError from int(), a ragged list
    a ValueError from numpy."""
    args = {"counts": np.zeros((2, 34), np.uint8), "win_tile": [0, 0], name: value}
    with pytest.raises(InvalidHandError, match=name):
        batch.score(**args)
