from __future__ import annotations

import pytest

from mjcore.errors import InvalidHandError
from mjcore.riichi.wall import LIVE_SIZE, Wall, deal_slots

RING = list(range(136))   # stack r holds 2r on top of 2r+1


def test_ring_layout_break_at_east():
    w = Wall.from_ring(RING, (2, 3))               # 5: East's wall, 5 stacks from his right
    assert w.break_seat == 0
    assert w.live[:4] == [10, 11, 12, 13]          # stacks 5 and 6, top before bottom
    assert w.rinshan == [8, 9, 6, 7]               # D1 = stack 4, D2 = stack 3
    assert w.dora == [4, 2, 0, 134, 132]           # D3..D7 tops
    assert w.ura == [5, 3, 1, 135, 133]
    assert w.live[-2:] == [(5 + 60) * 2, (5 + 60) * 2 + 1]


@pytest.mark.parametrize("dice,seat,r0", [((1, 1), 1, 51 + 2), ((3, 4), 2, 34 + 7),
                                           ((2, 2), 3, 17 + 4), ((6, 6), 3, 17 + 12)])
def test_break_seat_and_first_stack(dice, seat, r0):
    w = Wall.from_ring(RING, dice)
    assert w.break_seat == seat
    assert w.live[0] == 2 * (r0 % 68)
    assert w.rinshan[0] == 2 * ((r0 - 1) % 68)
    assert w.dora[0] == 2 * ((r0 - 3) % 68)


def test_deal_and_first_draw():
    w = Wall.from_ring(RING, (2, 3))
    hands = w.deal(oya=2)
    live = w.live
    assert sorted(hands[2]) == sorted(live[i] for i in deal_slots(0))
    assert deal_slots(0)[:4] == [0, 1, 2, 3] and deal_slots(0)[-1] == 48
    assert deal_slots(3) == [12, 13, 14, 15, 28, 29, 30, 31, 44, 45, 46, 47, 51]
    assert w.draw() == live[52]                     # the dealer's 14th tile
    assert w.left == LIVE_SIZE - 53


def test_rinshan_shortens_the_live_wall():
    w = Wall.from_ring(RING, (2, 3))
    before = w.left
    assert w.draw_rinshan() == w.rinshan[0]
    assert w.left == before - 1
    assert w.reveal_dora() == w.dora[1]
    assert w.dora_indicators == w.dora[:2]


def test_seeded_walls_are_reproducible_and_distinct():
    a = Wall.from_seed(7, 0, 0)
    assert a.live == Wall.from_seed(7, 0, 0).live
    assert a.live != Wall.from_seed(7, 0, 1).live
    assert a.live != Wall.from_seed(7, 1, 0).live
    assert a.live != Wall.from_seed(8, 0, 0).live
    assert sorted(a.live + a.rinshan + a.dora + a.ura) == RING


def test_from_record_places_the_recorded_tiles():
    hands = [list(range(13 * s, 13 * s + 13)) for s in range(4)]
    w = Wall.from_record(1, hands, [60, 61, 62], [70], [80, 81], [90])
    assert sorted(w.deal(1)[1]) == hands[1]
    assert [w.draw(), w.draw(), w.draw()] == [60, 61, 62]
    assert w.rinshan[0] == 70 and w.dora[:2] == [80, 81] and w.ura[0] == 90


def test_from_record_rejects_bad_records():
    hands = [list(range(13 * s, 13 * s + 13)) for s in range(4)]
    with pytest.raises(InvalidHandError, match="twice"):
        Wall.from_record(0, hands, [0], [], [80], [])
    with pytest.raises(InvalidHandError, match="12 tiles"):
        Wall.from_record(0, [h[:12] for h in hands], [], [], [80], [])
    with pytest.raises(InvalidHandError):
        Wall.from_ring(RING[:-1], (1, 1))
