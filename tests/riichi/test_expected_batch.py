"""mjcore.batch.expected_values: every row equals the single-hand answer; bad rows are
reported by index and the good rows keep their results."""
from __future__ import annotations

import functools
import itertools
import math
import os
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mjcore
from mjcore import InvalidHandError, batch, status
from mjcore.hand import as_hand
from mjcore.riichi.batch_expected import RED_TILES
from mjcore.tiles import tile_name

from .ev_records import EV_DATA, as_arrays, evaluate, records

pytestmark = pytest.mark.skipif(not EV_DATA.is_dir(), reason=f"no EV data at {EV_DATA}")

# the batch in mahjong-cpp's model, to compare with the records' single-hand answers
# (exactness here, not the per-row bound: a generous max_seconds for the debug build)
_batch = functools.partial(batch.expected_values, model="compatible", max_seconds=60)

DEFAULTS = {"extra": 1, "red": 1, "ura": 1, "shanten_down": 1, "tegawari": 1, "t_max": 18}


def _sample(name: str, n: int, max_shanten: int = 2) -> list[dict]:
    out = [r["request"] for r in records(name)
           if r["shanten"] <= max_shanten and all(r["request"][k] == v
                                                  for k, v in DEFAULTS.items())]
    return out[:n]


def _tile(code: int) -> str | None:
    return None if code == 255 else tile_name(code) if code < 34 else RED_TILES[code - 34]


@pytest.mark.parametrize("name", ["14-fixed", "open-14", "13-fixed", "14-low-shanten"])
@pytest.mark.parametrize("turn", [1, 7, 16, 18])
def test_every_row_equals_the_single_hand_answer(name: str, turn: int) -> None:
    requests = _sample(name, 12)
    arrays = as_arrays(requests)
    # the discard made: each row's worst evaluated discard (a 13-tile row: its one answer)
    singles = [evaluate(q) for q in requests]
    made = np.array([next((c for c in range(37) if _tile(c) == [
        d for d in r.discards if d.evaluated][-1].tile), 255) for r in singles], np.uint8)
    out = _batch(**arrays, discard=made, turn=turn, per_tile=True)
    assert not out.bad_rows.size
    for i, r in enumerate(singles):
        assert out.shanten[i] == r.shanten and out.nodes[i] == r.nodes
        best_ev = max(d.ev[turn - 1] for d in r.discards if d.evaluated)
        assert out.best_ev[i] == best_ev
        best = {d.tile: d for d in r.discards}[_tile(int(out.best_tile[i]))]
        assert best.at(turn) == (out.best_tenpai[i], out.best_win[i], out.best_ev[i])
        worst = [d for d in r.discards if d.evaluated][-1]
        assert (out.discard_tenpai[i], out.discard_win[i], out.discard_ev[i]) == worst.at(turn)
        assert out.discard_shanten[i] == worst.shanten
        assert out.ev_loss[i] == pytest.approx(best_ev - worst.ev[turn - 1], abs=1e-9)
        for c in range(37):
            d = {d.tile: d for d in r.discards}.get(_tile(c))
            if d is None or not d.evaluated or d.tile is None:
                assert np.isnan(out.per_tile[i, c]).all()
            else:
                assert tuple(out.per_tile[i, c]) == d.at(turn)


def test_threads_give_the_same_answers() -> None:
    arrays = as_arrays(_sample("14-fixed", 16))
    one = _batch(**arrays, n_threads=1)
    two = _batch(**arrays, n_threads=2)
    for name in ("status", "shanten", "nodes", "best_tile"):
        assert np.array_equal(getattr(one, name), getattr(two, name))
    assert np.array_equal(one.best_ev, two.best_ev)


def test_kept_work_areas_give_the_same_answers_as_fresh_ones() -> None:
    from mjcore.riichi.expected import release_work
    arrays = as_arrays(_sample("14-fixed", 16))
    release_work()
    fresh = _batch(**arrays, n_threads=2)
    for _ in range(2):              # the work areas of the call before, larger hands first
        again = _batch(**{k: v[::-1].copy() for k, v in arrays.items()}, n_threads=2)
        kept = _batch(**arrays, n_threads=2)
        for name in ("status", "shanten", "nodes", "best_tile", "best_ev", "best_win"):
            assert np.array_equal(getattr(fresh, name), getattr(kept, name), equal_nan=True)
            assert np.array_equal(getattr(fresh, name)[::-1], getattr(again, name),
                                  equal_nan=True)
    release_work()
    release_work()                  # nothing kept: a no-op


def test_a_hands_peak_memory_does_not_depend_on_the_calls_before() -> None:
    from mjcore.riichi.expected import release_work
    hands = _sample("14-fixed", 4)
    release_work()
    fresh = [evaluate(q).bytes_peak for q in hands]
    evaluate(max(hands, key=lambda q: evaluate(q).nodes))   # kept work areas, larger
    assert [evaluate(q).bytes_peak for q in hands] == fresh
    # about 260 bytes a node (README), the per-node arrays and the edges included
    assert all(100 * r.nodes < r.bytes_peak < 1000 * r.nodes + 200_000
               for r in map(evaluate, hands))


def test_a_bad_row_is_reported_by_index_and_the_others_keep_their_results() -> None:
    requests = _sample("14-fixed", 6)
    arrays = as_arrays(requests)
    good = _batch(**arrays)
    arrays["counts"][1, 0] = 5                          # five 1m
    arrays["counts"][3] = 0                             # no tiles
    arrays["visible"] = np.zeros((6, 34), np.uint8)
    arrays["visible"][4] = 4                            # every copy seen
    discard = np.full(6, 255, np.uint8)
    discard[5] = next(c for c in range(34) if arrays["counts"][5, c] == 0)  # not held
    out = _batch(**arrays, discard=discard)
    assert out.status[1] == status.BAD_COUNT and out.status[3] == status.BAD_TOTAL
    assert out.status[4] == status.BAD_COUNT and out.status[5] == status.DISCARD_NOT_HELD
    assert list(out.bad_rows) == [1, 3, 4, 5]
    assert {e.index for e in out.errors()} == {1, 3, 4, 5}
    for i in (0, 2):
        assert out.best_ev[i] == good.best_ev[i] and out.nodes[i] == good.nodes[i]
    assert math.isnan(out.best_ev[1]) and out.best_tile[1] == 255


def test_bounds_are_statuses_per_row() -> None:
    worse = as_hand("147m258p369s12345z").counts        # 5-shanten (or more) in every form
    arrays = as_arrays(_sample("14-fixed", 2))
    arrays["counts"][1] = worse
    arrays["red"][1] = 0
    out = _batch(**arrays)
    assert out.status[0] == 0 and out.status[1] == status.EV_SHANTEN
    tight = _batch(**as_arrays(_sample("14-fixed", 3)), max_nodes=50)
    assert set(tight.status) == {status.EV_NODES}


_CLOCKS = """
import os, sys, time
import numpy as np
os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})   # before the kernel's threads
from mjcore import batch, status
from mjcore.hand import as_hand
counts = np.tile(np.array(as_hand(sys.argv[1]).counts, np.uint8), (8, 1))
c = time.process_time()
alone = batch.expected_values(counts, n_threads=1, max_seconds=60)
row = (time.process_time() - c) / 8
assert (alone.status == 0).all()
for clock in ("cpu", "wall"):        # 8 threads on one core: a row's wall time is ~8x its CPU
    out = batch.expected_values(counts, n_threads=8, max_seconds=3 * row, clock=clock)
    print(clock, sum(int(s == status.EV_DEADLINE) for s in out.status))
"""


def test_a_cpu_clock_deadline_does_not_depend_on_the_load() -> None:
    """Eight rows on eight threads pinned to one core, each bounded at three times its own CPU
    time: by the CPU clock every row ends, by the wall clock some pass the deadline."""
    import subprocess
    import sys

    if not hasattr(os, "sched_setaffinity"):
        pytest.skip("needs os.sched_setaffinity")
    hand = "23456m1278p22469s"                   # 2-shanten: milliseconds a row
    r = subprocess.run([sys.executable, "-c", _CLOCKS, hand], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    stopped = dict(line.split() for line in r.stdout.split("\n") if line)
    assert stopped["cpu"] == "0", r.stdout
    assert int(stopped["wall"]) > 0, r.stdout


def test_the_clock_is_wall_or_cpu() -> None:
    with pytest.raises(InvalidHandError, match="clock='gpu'"):
        batch.expected_values(np.zeros((1, 34), np.uint8), clock="gpu")


@pytest.mark.parametrize("kwargs, words", [
    ({"counts": np.zeros((2, 33), np.uint8)}, "counts: shape"),
    ({"turn": 0}, "turn=0"),
    ({"turn": 19}, "turn=19"),
    ({"dora": np.zeros((2, 6), np.uint8)}, "at most 5"),
    ({"seat_wind": [0, 4]}, "row 1"),
    ({"red": np.zeros((2, 2), np.uint8)}, "red: shape"),
    ({"max_seconds": 0}, "max_seconds"),
])
def test_bad_arguments_are_invalid_hand_errors(kwargs: dict, words: str) -> None:
    arrays = {"counts": np.zeros((2, 34), np.uint8)} | kwargs
    with pytest.raises(InvalidHandError, match=words):
        _batch(**arrays)


def test_an_empty_batch_is_empty() -> None:
    out = batch.expected_values(np.zeros((0, 34), np.uint8))
    assert len(out) == 0 and out.best_ev.shape == (0,)


def test_the_options_reach_every_row() -> None:
    requests = _sample("14-fixed", 4)
    arrays = as_arrays(requests)
    for extra, ura, t_max in itertools.product((0, 1), (False, True), (6, 18)):
        out = _batch(**arrays, extra=extra, ura=ura, t_max=t_max)
        for i, q in enumerate(requests):
            r = evaluate(dict(q, extra=extra, ura=int(ura), t_max=t_max))
            assert out.best_ev[i] == max(d.ev[0] for d in r.discards if d.evaluated)


def test_the_consistent_batch_equals_the_consistent_single_hand() -> None:
    requests = _sample("14-fixed", 6) + _sample("open-14", 4)
    out = batch.expected_values(**as_arrays(requests), turn=3, max_seconds=60)
    for i, q in enumerate(requests):
        r = evaluate(q, model="consistent")
        assert out.best_ev[i] == max(d.ev[2] for d in r.discards if d.evaluated)
        assert out.nodes[i] == r.nodes


# ---- fuzzing: any arrays give statuses or a clean InvalidHandError, never a crash ----------

COMPLETE = np.array(as_hand("123m55566777889s").counts, np.uint8)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 6), junk=st.integers(0, 9),
       extra=st.integers(0, 2), shanten_down=st.booleans(), tegawari=st.booleans(),
       model=st.sampled_from(["compatible", "consistent"]))
def test_any_arrays_are_statuses_or_a_clean_error(seed: int, n: int, junk: int, extra: int,
                                                  shanten_down: bool, tegawari: bool,
                                                  model: str) -> None:
    rng = np.random.default_rng(seed)
    arrays: dict[str, Any] = {
        "counts": rng.integers(0, 3, (n, 34)).astype(np.uint8),
        "red": rng.integers(0, 2, (n, 3)).astype(np.uint8),
        "melds": rng.choice([0xFFFF, 0, 1 << 3 | 1, 27 << 3 | 1, 40 << 3 | 7, 0xFFFE],
                            (n, 4)).astype(np.uint16),
        "visible": rng.integers(0, 3, (n, 34)).astype(np.uint8),
        "visible_red": rng.integers(0, 2, (n, 3)).astype(np.uint8),
        "dora": rng.choice([255, 0, 4, 33, 34, 200], (n, 2)).astype(np.uint8),
        "seat_wind": rng.integers(0, 4, n).astype(np.uint8),
        "round_wind": rng.integers(0, 4, n).astype(np.uint8),
        "kita": rng.integers(0, 2, n).astype(np.uint8),
        "discard": rng.choice([255, 0, 5, 34, 36, 37, 254], n).astype(np.uint8)}
    # a few rows made plausible so that some are searched
    for i in range(0, n, 2):
        arrays["counts"][i] = 0
        arrays["counts"][i, rng.choice(34, 13, replace=False)] = 1
        arrays["melds"][i] = 0xFFFF
        if i % 4 == 2:                              # a complete hand (no discard keeps it)
            arrays["counts"][i] = COMPLETE
    name = list(arrays)[junk % len(arrays)]
    if junk >= 5:                                   # the wrong shape or a non-integer dtype
        arrays[name] = np.zeros((n + 1, 2), np.float64) if junk % 2 else "x"
    try:
        out = batch.expected_values(**arrays, t_max=4, max_shanten=2, max_nodes=5_000,
                                    max_seconds=1, rules=["tenhou", "tenhou_sanma"][junk % 2],
                                    extra=extra, shanten_down=shanten_down, tegawari=tegawari,
                                    model=model)
    except InvalidHandError:
        assert junk >= 5 or junk % 2                # only shapes, dtypes, or seats past 3 players
        return
    assert len(out) == n
    assert set(out.status.tolist()) <= {s.code for s in status.STATUSES if s.code <= 0}
    for row in np.flatnonzero(out.status == 0):
        if out.best_tile[row] == 255:               # no discard searched: a complete hand
            assert np.isnan(out.best_win[row]) and np.isnan(out.best_ev[row])
            continue
        assert 0 <= out.best_tenpai[row] <= 1 and 0 <= out.best_win[row] <= 1


@pytest.mark.parametrize("model", ["compatible", "consistent"])
@pytest.mark.parametrize("options", [{"shanten_down": False}, {"extra": 0}])
def test_a_complete_hand_the_search_does_not_leave_has_no_discard_searched(
        model: str, options: dict) -> None:
    """From a complete hand every discard raises the shanten: without shanten-down (or with
    extra 0) the graph is the hand alone, each discard unevaluated, the batch row's best none."""
    text = "123m55566777889s"
    r = mjcore.expected_values(text, model=model, **options)
    assert r.ok and r.shanten == -1 and r.nodes == 1
    assert r.discards and not any(d.evaluated for d in r.discards)
    out = batch.expected_values(counts=COMPLETE[None, :], model=model, **options)
    assert out.status[0] == 0 and out.best_tile[0] == 255 and np.isnan(out.best_ev[0])
    searched = mjcore.expected_values(text, model=model)    # shanten-down: the discards
    assert searched.nodes > 1 and all(d.evaluated for d in searched.discards)
