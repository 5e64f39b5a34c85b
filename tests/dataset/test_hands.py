"""The one-pass analysis on numpy arrays (mjcore.dataset.hands): against mjcore.batch and the
single-hand API on random hands, and bad rows by index."""
from __future__ import annotations

import numpy as np
import pytest

import mjcore
from mjcore import batch
from mjcore.dataset.hands import DISCARD_NOT_HELD, NOT_HELD, analyze_hands
from mjcore.errors import InvalidHandError
from mjcore.tiles import format_tiles

RNG_SEED = 1515


def _random_hands(n: int, tiles: int, rng: np.random.Generator) -> np.ndarray:
    """n random closed hands of ``tiles`` tiles from a 136-tile wall."""
    out = np.zeros((n, 34), np.uint8)
    for i in range(n):
        ids = rng.choice(136, tiles, replace=False)
        np.add.at(out[i], ids >> 2, 1)
    return out


def _visible(counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Random visible copies that, with the hand, never pass 4."""
    room = 4 - counts.astype(np.int64)
    return (rng.random(counts.shape) * (room + 1)).astype(np.uint8)


def _text(counts: np.ndarray) -> str:
    return format_tiles([k for k in range(34) for _ in range(int(counts[k]))])


def _kinds(mask: int) -> list[int]:
    return [k for k in range(34) if int(mask) >> k & 1]


def test_agrees_with_the_batch_kernels_without_visible_tiles() -> None:
    rng = np.random.default_rng(RNG_SEED)
    c13, c14 = _random_hands(400, 13, rng), _random_hands(400, 14, rng)
    r13, r14 = analyze_hands(c13), analyze_hands(c14)
    assert not r13.status.any() and not r14.status.any()
    for res, counts in ((r13, c13), (r14, c14)):
        sh = batch.shanten(counts, forms=True)
        assert (res.shanten == sh.shanten).all()
        assert (np.stack([res.shanten_standard, res.shanten_chiitoitsu,
                          res.shanten_kokushi], 1) == sh.forms).all()
        assert (res.tiles == counts.sum(axis=1)).all()
    w = batch.waits(c13)
    assert (r13.waits == w.mask).all()
    u = batch.ukeire(c14, full=True)
    assert (r14.discard_shanten == u.after).all()
    assert (r14.best_shanten == u.best_shanten).all()
    # with nothing visible, the best discard of the summary is among the efficiency-best
    assert all(int(d) in _kinds(m) for d, m in zip(u.best_discard, r14.best_discards,
                                                   strict=True))


def test_agrees_with_the_single_hand_api_with_visible_tiles() -> None:
    rng = np.random.default_rng(RNG_SEED + 1)
    for tiles in (13, 14):
        counts = _random_hands(60, tiles, rng)
        seen = _visible(counts, rng)
        made = np.where(np.arange(60) % 2 == 0, counts.argmax(axis=1), -1)
        res = analyze_hands(counts, None, seen, made if tiles == 14 else None)
        assert not res.status.any()
        for i in range(60):
            text = _text(counts[i])
            visible = [k for k in range(34) for _ in range(int(seen[i, k]))]
            u = mjcore.ukeire(text, visible)
            if tiles == 13:
                assert res.ukeire[i] == u.options[0].remaining
                wt = mjcore.waits(text, visible)
                assert _kinds(res.waits[i]) == ([x.tile for x in wt.tiles]
                                                if res.shanten[i] == 0 else [])
                assert res.made_best[i] == -1
                continue
            options = {o.discard: (o.shanten, o.remaining) for o in u.options}
            got = {k: (int(res.discard_shanten[i, k]), int(res.discard_ukeire[i, k]))
                   for k in range(34) if res.discard_shanten[i, k] != NOT_HELD}
            assert got == options
            best = u.options[0]
            assert (res.best_shanten[i], res.best_ukeire[i]) == (best.shanten, best.remaining)
            assert _kinds(res.best_discards[i]) == sorted(
                k for k, v in options.items()
                if k is not None and v == (best.shanten, best.remaining))
            if made[i] < 0:
                assert res.made_best[i] == -1
                continue
            sh, left = options[int(made[i])]
            assert (res.made_shanten[i], res.made_ukeire[i]) == (sh, left)
            assert res.made_best[i] == (int(made[i]) in _kinds(res.best_discards[i]))
            lost = best.remaining - left if sh == best.shanten else best.remaining
            assert res.acceptance_lost[i] == lost


def test_bad_rows_by_index_and_the_good_rows_keep_their_results() -> None:
    good = np.zeros(34, np.uint8)
    good[[0, 1, 2, 9, 10, 11, 18, 19, 20, 27, 28]] = 1
    good[[27, 28]] = 2                                   # 123m123p123s1122z: 13 tiles, tenpai
    good14 = good.copy()
    good14[29] = 1                                       # + 3z
    five = good14.copy()
    five[0] = 5
    counts = np.stack([good, five, good[:34] * 0, good14, good14, good, good14])
    melds = np.array([0, 0, 0, 0, 0, 0, 1])
    made = np.array([-1, -1, -1, 29, 33, -1, -1])
    res = analyze_hands(counts, melds, None, made)
    assert res.status.tolist() == [0, -1, -2, 0, DISCARD_NOT_HELD, 0, -2]
    reasons = {e.index: e.reason for e in res.errors()}
    assert reasons == {1: "too_many_copies", 2: "wrong_tile_count", 4: "discard_not_held",
                       6: "wrong_tile_count"}
    assert _kinds(res.waits[0]) == [27, 28] and res.ukeire[0] == 4
    assert res.made_best[3] == 1 and res.acceptance_lost[3] == 0
    assert (res.waits[5], res.ukeire[5]) == (res.waits[0], res.ukeire[0])
    assert res.tiles.tolist() == [13, 18, 0, 14, 14, 13, 14]
    bad_melds = analyze_hands(counts[:1], np.array([7]))
    assert bad_melds.errors()[0].reason == "bad_melds"


def test_malformed_arrays_are_clear_errors() -> None:
    counts = np.zeros((2, 34), np.uint8)
    with pytest.raises(InvalidHandError, match="visible must be"):
        analyze_hands(counts, visible=np.zeros((2, 33), np.uint8))
    with pytest.raises(InvalidHandError, match="made must have shape"):
        analyze_hands(counts, made=[1, 2, 3])
    with pytest.raises(InvalidHandError, match="made must be integers"):
        analyze_hands(counts, made=["1m", "2m"])
    with pytest.raises(InvalidHandError):
        analyze_hands(counts, forms=[11, 200])
    with pytest.raises(InvalidHandError, match="counts must have shape"):
        analyze_hands(np.zeros((2, 35), np.uint8))
    empty = analyze_hands(np.zeros((0, 34), np.uint8))
    assert len(empty) == 0 and empty.discard_shanten.shape == (0, 34)


def test_classical_forms_per_row() -> None:
    from mjcore._core.shanten import CLASSICAL, RIICHI

    pairs = np.zeros((2, 34), np.uint8)
    pairs[:, [0, 4, 8, 12, 16, 20]] = 2
    pairs[:, 30] = 1                                     # six pairs and a single: 13 tiles
    res = analyze_hands(pairs, forms=np.array([RIICHI, CLASSICAL]))
    assert res.shanten_chiitoitsu.tolist() == [0, 99]
    assert res.shanten.tolist() == [0, int(mjcore.shanten(_text(pairs[1]), rules="classical"))]


def test_hostile_rules_texts_fall_back_to_the_default_game():
    """A table's rules column may hold anything: text that is not JSON, JSON nested past the
    parser's depth, a list, a game named by a list or by an unknown name all read as the
    default game's rows (riichi forms, four players); a classical row keeps its forms."""
    import pyarrow as pa

    from mjcore._core import shanten as kernels
    from mjcore.dataset.hand_arrays import read_hands, three_player_rows

    texts = ["[" * 50_000 + "]" * 50_000, "not json", "[1, 2]", '{"game": [1]}',
             '{"game": "go"}', '{"players": {"a": 1}}', '{"game": "classical"}']
    table = pa.table({"hand": ["123m456p789s1122z"] * len(texts), "rules": texts})
    hands = read_hands(table)
    assert hands.forms.tolist() == [kernels.RIICHI] * 6 + [kernels.CLASSICAL]
    assert not three_player_rows(table).any()
