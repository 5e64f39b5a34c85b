"""Three-player (sanma) walls.

The proof that :meth:`Wall.from_yama` lays out a sanma wall as Tenhou does: Tenhou's walls of
every sanma record of the archive, rebuilt from the record's ``<SHUFFLE>`` seed by
:func:`tenhou_walls`, deal exactly the recorded starting hands and give exactly the recorded
live draws, replacement draws (after kans and north declarations), dora and ura indicators
and dice. Then the walls the engine builds (seeded, and from a record) on hand-made cases.
"""
from __future__ import annotations

import pytest

from mjcore.errors import InvalidHandError
from mjcore.riichi.events import Event
from mjcore.riichi.mjlog import read_mjlog
from mjcore.riichi.wall import SANMA_TILES, Wall, deal_slots, tenhou_walls


def _hands_of(events):
    """Per hand of a record: (start_kyoku, live draws, replacement draws, dora, ura)."""
    out: list[tuple[Event, list[int], list[int], list[int], list[int]]] = []
    for ev in events:
        t = ev["type"]
        if t == "start_kyoku":
            out.append((ev, [], [], [ev["dora_marker"]], []))
        elif not out:
            continue
        elif t == "tsumo":
            _, live, rinshan, _, _ = out[-1]
            (rinshan if ev.get("rinshan") else live).append(ev["pai"])
        elif t == "dora":
            out[-1][3].append(ev["dora_marker"])
        elif t == "hora" and ev.get("uradora_markers") and not out[-1][4]:
            out[-1][4].extend(ev["uradora_markers"])
    return out


def _wall_disagreements(game, players):
    bad = []
    for i, ((start, draws, rinshan, dora, ura), wall) in enumerate(
            zip(_hands_of(game.events), tenhou_walls(game.shuffle, players), strict=False)):
        oya = start["oya"]
        first = 13 * players                 # the dealer's first draw
        got = ([sorted(h) for h in wall.deal(oya)], wall.live[first:first + len(draws)],
               wall.rinshan[:len(rinshan)], wall.dora[:len(dora)], wall.ura[:len(ura)],
               list(wall.dice))
        exp = ([sorted(h) for h in start["tehais"]], draws, rinshan, dora, ura, start["dice"])
        if got != exp:
            parts = ("deal", "draws", "rinshan", "dora", "ura", "dice")
            differ = [p for p, g, e in zip(parts, got, exp, strict=True) if g != e]
            bad.append(f"hand {i}: " + ", ".join(differ))
    return bad


def _sanma_records(mjlog_members):
    return {n: d for n, d in mjlog_members.items() if b'<GO type="185"' in d[:4000]}


def test_every_sanma_wall_is_tenhous(mjlog_members):
    records = _sanma_records(mjlog_members)
    assert len(records) == 534
    bad = {}
    hands = kita = rinshan = dora = 0
    for name, data in records.items():
        game = read_mjlog(data.decode("utf-8"), name)
        assert game.sanma and game.players == 3
        problems = _wall_disagreements(game, 3)
        if problems:
            bad[name] = problems[:3]
        for _, _, rin, dor, _ in _hands_of(game.events):
            hands += 1
            rinshan += len(rin)
            dora += len(dor) - 1
        kita += sum(1 for ev in game.events if ev["type"] == "kita")
    assert bad == {}
    # the counts the walls were checked on (kita: as tests/scoring/sanma_cases.py counts them)
    assert kita == 11945
    # 3,986 wins (14 of them the second of a double ron) and 729 draws end 4,701 hands
    assert hands == 3986 - 14 + 729
    assert (rinshan, dora) == (12442, 491)      # replacement draws, kan dora checked


def test_four_player_walls_follow_the_same_generator(mjlog_members):
    """The generator is Tenhou's for both player counts: 40 four-player records agree too."""
    names = sorted(n for n, d in mjlog_members.items()
                   if b'<GO type="169"' in d[:4000] and b"n288-base64," in d[:200])[:40]
    assert len(names) == 40
    for name in names:
        game = read_mjlog(mjlog_members[name].decode("utf-8"), name)
        assert _wall_disagreements(game, 4) == [], name


def test_sanma_layout_of_an_array():
    yama = list(SANMA_TILES)                     # Tenhou's array before the shuffle
    w = Wall.from_yama(yama, (2, 5))
    assert w.players == 3 and len(w.live) == 94 and w.left == 55 and w.pos == 39
    assert w.live[:4] == yama[107:103:-1]          # the dealer's first four, from the top
    assert w.live[39] == yama[68]                  # the dealer's first draw
    assert w.rinshan == [yama[i] for i in (1, 0, 3, 2, 5, 4, 7, 6)]
    assert w.dora == [yama[i] for i in (9, 11, 13, 15, 17)]
    assert w.ura == [yama[i] for i in (8, 10, 12, 14, 16)]
    hands = w.deal(oya=1)
    assert len(hands) == 3 and all(len(h) == 13 for h in hands)
    assert sorted(hands[1]) == sorted(w.live[i] for i in deal_slots(0, 3))
    assert deal_slots(2, 3) == [8, 9, 10, 11, 20, 21, 22, 23, 32, 33, 34, 35, 38]
    assert sorted(w.unseen_tiles() + [t for h in hands for t in h]) == list(SANMA_TILES)


def test_sanma_census_through_replacement_draws():
    """Draw the wall dry around eight replacement draws: every tile is in a hand or still in
    the wall exactly once, and the live wall shrinks by one per replacement draw."""
    w = Wall.from_seed(11, 0, 0, players=3)
    taken = [t for h in w.deal(0) for t in h]
    for k in range(8):
        taken.append(w.draw_rinshan())
        if k < 4:
            w.reveal_dora()
        taken += [w.draw() for _ in range(3)]
        assert sorted(taken + w.unseen_tiles()) == list(SANMA_TILES)
    assert w.left == 55 - 8 - 24
    while w.left:
        taken.append(w.draw())
    assert sorted(taken + w.unseen_tiles()) == list(SANMA_TILES)
    assert len(w.unseen_tiles()) == 14              # the dead wall stays at 14 tiles
    assert w.unseen_count() == 14 - 5               # five indicators turned


def test_seeded_sanma_walls():
    a = Wall.from_seed(5, 0, 0, players=3)
    assert a.live == Wall.from_seed(5, 0, 0, players=3).live
    assert a.live != Wall.from_seed(5, 0, 1, players=3).live
    assert set(a.live) | set(a.rinshan) | set(a.dora) | set(a.ura) == set(SANMA_TILES)
    assert not any(4 <= t < 32 for t in a.live)


def test_sanma_wall_from_a_record():
    hands = [list(SANMA_TILES[13 * s:13 * s + 13]) for s in range(3)]
    draws = list(SANMA_TILES[39:94])                 # all 55 draws, no replacement draw
    w = Wall.from_record(2, hands, draws, [], [SANMA_TILES[100]], [SANMA_TILES[101]])
    assert w.players == 3 and [sorted(h) for h in w.deal(2)] == hands
    assert [w.draw() for _ in range(55)] == draws and w.left == 0
    # with four replacement draws the live wall ends four tiles earlier
    w = Wall.from_record(0, hands, draws[:51], list(SANMA_TILES[94:98]),
                         [SANMA_TILES[98], *SANMA_TILES[102:106]], [])
    assert w.rinshan[:4] == list(SANMA_TILES[94:98]) and w.dora[4] == SANMA_TILES[105]


def test_sanma_walls_refuse_bad_records():
    hands = [list(SANMA_TILES[13 * s:13 * s + 13]) for s in range(3)]
    with pytest.raises(InvalidHandError, match="not in the three-player set"):
        Wall.from_record(0, [[8] + h[1:] for h in hands[:1]] + hands[1:], [], [],
                         [SANMA_TILES[100]])
    with pytest.raises(InvalidHandError, match="dead wall"):
        # 55 live draws leave no room for a fourth kan dora
        Wall.from_record(0, hands, list(SANMA_TILES[39:94]), [], [
            SANMA_TILES[94], *SANMA_TILES[95:98], SANMA_TILES[100]])
    with pytest.raises(InvalidHandError, match="2 hands"):
        Wall.from_record(0, hands[:2], [], [], [SANMA_TILES[100]])
    with pytest.raises(InvalidHandError, match="108 tiles"):
        Wall(list(range(94)), list(range(94, 102)), [0] * 5, [0] * 5, players=3)


@pytest.mark.parametrize("seed,match", [
    ("mt19937ar-sha512-n288,abc", "of kind"), ("mt19937ar-sha512-n288-base64,@@@", "base64"),
    ("mt19937ar-sha512-n288-base64,AAAA", "not 2496")])
def test_bad_shuffle_seeds(seed, match):
    with pytest.raises(InvalidHandError, match=match):
        next(tenhou_walls(seed, 3))
