from __future__ import annotations

import itertools

import pytest

from mjcore.errors import InvalidHandError
from mjcore.riichi.mjlog import decode_meld, read_mjlog, rules_for_go_type


# An independent encoder of Tenhou's meld bit layout, to check the decoder on every meld.
def encode_chi(base_kind: int, called_index: int, copies: tuple[int, ...]) -> int:
    suit, num = divmod(base_kind, 9)
    b = (suit * 7 + num) * 3 + called_index
    return (b << 10) | 4 | (copies[0] << 3) | (copies[1] << 5) | (copies[2] << 7) | 3


def encode_pon(kind: int, unused: int, called_index: int, rel: int, added: bool) -> int:
    return ((kind * 3 + called_index) << 9) | (unused << 5) | (0x10 if added else 0x08) | rel


def encode_kan(tile: int, rel: int) -> int:
    return (tile << 8) | rel


def test_chi_every_shape():
    for suit in range(3):
        for num in range(7):
            base = suit * 9 + num
            for called in range(3):
                for copies in itertools.product(range(4), repeat=3):
                    kind, pai, tiles, rel = decode_meld(encode_chi(base, called, copies))
                    ids = [(base + i) * 4 + copies[i] for i in range(3)]
                    assert (kind, rel) == ("chi", 3)
                    assert pai == ids[called]
                    assert sorted(tiles + [pai]) == sorted(ids)


def test_pon_and_kakan():
    for kind in range(34):
        for unused in range(4):
            for called in range(3):
                for rel in (1, 2, 3):
                    t, pai, tiles, r = decode_meld(encode_pon(kind, unused, called, rel, False))
                    three = [kind * 4 + c for c in range(4) if c != unused]
                    assert (t, r) == ("pon", rel) and pai == three[called]
                    assert sorted(tiles + [pai]) == three
                    t, pai, tiles, r = decode_meld(encode_pon(kind, unused, called, rel, True))
                    assert t == "kakan" and pai == kind * 4 + unused and sorted(tiles) == three


def test_open_and_closed_kan():
    for tile in range(136):
        t, _, tiles, rel = decode_meld(encode_kan(tile, 0))
        assert t == "ankan" and sorted(tiles) == [tile // 4 * 4 + c for c in range(4)]
        t, pai, tiles, rel = decode_meld(encode_kan(tile, 2))
        assert (t, pai, rel) == ("daiminkan", tile, 2) and len(tiles) == 3


def test_real_meld_codes():
    # 2022010503gm-00a9-0000-626f3911, East 1: <D65/><N who="1" m="39047"/>: seat 1 calls
    # seat 0's 8p (id 65) with 6p (56) and 7p (60)
    assert decode_meld(39047) == ("chi", 65, [56, 60], 3)


SMALL = ('<mjloggm ver="2.3"><GO type="169" lobby="0"/><UN n0="a" n1="b" n2="c" n3="d"/>'
         '<TAIKYOKU oya="0"/><INIT seed="0,0,0,2,3,4" ten="250,250,250,250" oya="0" '
         'hai0="{h0}" hai1="{h1}" hai2="{h2}" hai3="{h3}"/><T100/><D100/>'
         '<U101/><E101/><RYUUKYOKU type="yao9" ba="0,0" sc="250,0,250,0,250,0,250,0" '
         'hai1="1,2,3"/></mjloggm>')


def _small(**fmt: str) -> str:
    hands = {f"h{s}": ",".join(str(13 * s + i) for i in range(13)) for s in range(4)}
    hands.update(fmt)
    return SMALL.format(**hands)


def test_read_small_record():
    g = read_mjlog(_small())
    types = [e["type"] for e in g.events]
    assert types == ["start_game", "start_kyoku", "tsumo", "dahai", "tsumo", "dahai",
                     "ryukyoku", "end_kyoku"]
    assert g.events[1]["scores"] == [25000] * 4 and g.events[1]["dice"] == [3, 4]
    assert g.events[3]["tsumogiri"] is True
    assert g.events[6]["reason"] == "kyushukyuhai" and g.events[6]["tenpais"][1]
    assert not g.complete and not g.sanma


def test_malformed_records_raise_invalid_hand_error():
    with pytest.raises(InvalidHandError, match="does not hold"):
        read_mjlog(_small().replace("<D100/>", "<D120/>"))
    with pytest.raises(InvalidHandError, match="tile id 200 is not below 136"):
        read_mjlog(_small().replace("<D100/>", "<D200/>"))
    with pytest.raises(InvalidHandError, match="unknown draw type"):
        read_mjlog(_small().replace('type="yao9"', 'type="xyz"'))
    with pytest.raises(InvalidHandError, match="malformed"):
        read_mjlog(_small().replace('oya="0" hai0', 'oya="x" hai0'))


SANMA = ('<mjloggm ver="2.3"><GO type="185" lobby="0"/><UN n0="a" n1="b" n2="c" n3=""/>'
         '<TAIKYOKU oya="0"/><INIT seed="0,0,0,2,3,4" ten="350,350,350,0" oya="0" '
         'hai0="{h0}" hai1="{h1}" hai2="{h2}" hai3=""/><T100/>{extra}<D100/>'
         '<RYUUKYOKU type="yao9" ba="0,0" sc="350,0,350,0,350,0,0,0" hai0="1,2,3" '
         'owari="350,0.0,350,0.0,350,0.0,0,0.0"/></mjloggm>')


def _sanma(extra: str = "", **fmt: str) -> str:
    hands = {f"h{s}": ",".join(str(40 + 13 * s + i) for i in range(13)) for s in range(3)}
    hands.update(fmt)
    return SANMA.format(extra=extra, **hands)


def test_kita_meld_code():
    assert decode_meld((122 << 8) | 0x20) == ("kita", 122, [], 0)     # 30752 is north 120
    assert decode_meld(30752) == ("kita", 120, [], 0)
    with pytest.raises(InvalidHandError, match="not a north"):
        decode_meld((100 << 8) | 0x20)


def test_read_sanma_record():
    g = read_mjlog(_sanma("<N who=\"0\" m=\"30752\"/><T101/>", h0="120," + ",".join(
        str(40 + i) for i in range(12))))
    assert g.sanma and g.players == 3 and g.complete
    assert g.names == ["a", "b", "c"]
    start = g.events[1]
    assert len(start["tehais"]) == 3 and start["scores"] == [35000] * 3
    kita = g.events[3]
    assert kita == {"type": "kita", "actor": 0, "pai": 120}
    assert g.events[4] == {"type": "tsumo", "actor": 0, "pai": 101, "rinshan": True}
    draw = next(e for e in g.events if e["type"] == "ryukyoku")
    assert draw["tenpais"] == [True, False, False] and draw["deltas"] == [0, 0, 0]
    assert g.final_scores == [35000] * 3
    assert g.final_points is not None and len(g.final_points) == 3
    assert rules_for_go_type(g.go_type).name == "custom"
    assert rules_for_go_type(g.go_type).players == 3


def test_malformed_sanma_records():
    with pytest.raises(InvalidHandError, match="seat 3"):
        read_mjlog(_sanma("<W101/>"))
    with pytest.raises(InvalidHandError, match="does not hold"):
        read_mjlog(_sanma("<N who=\"0\" m=\"30752\"/>"))
    with pytest.raises(InvalidHandError, match="13 tiles"):
        read_mjlog(_sanma(h2="1,2,3"))
    with pytest.raises(InvalidHandError, match="four-player"):
        read_mjlog(_small().replace("<D100/>", '<N who="0" m="30752"/><D100/>'))


def test_rules_for_go_type():
    assert rules_for_go_type(169).game_length == "hanchan"
    assert rules_for_go_type(225).game_length == "tonpuusen"
    assert rules_for_go_type(169 | 2).red_fives == 0
    assert rules_for_go_type(169 | 4).kuitan is False


def test_gzipped_record_is_bounded_and_corrupt_gzip_is_named():
    import gzip

    from mjcore.riichi.mjlog import _decode

    assert _decode(gzip.compress(b"<mjloggm/>"), "r") == "<mjloggm/>"
    with pytest.raises(InvalidHandError, match="decompresses to more than"):
        _decode(gzip.compress(b"\0" * (65 << 20)), "r")      # a 65 MiB bomb in ~65 KB
    with pytest.raises(InvalidHandError, match="corrupt gzip"):
        _decode(b"\x1f\x8bnot gzip", "r")


def test_a_declared_three_player_lobby_is_three_player_by_the_full_reader(mjlog_members):
    """``declares_sanma`` (the GO tag alone, so the extract need not read a sanma record) never
    calls a record three-player that the full reader calls four-player; the records it does
    not catch are read whole, as before."""
    from mjcore.riichi.mjlog import _decode, declares_sanma

    declared = caught = sanma = 0
    for name, data in mjlog_members.items():
        text = _decode(data, name)
        if not text.lstrip().startswith("<"):
            continue
        full = read_mjlog(text, name).sanma
        peek = declares_sanma(text)
        assert not peek or full, name
        declared += peek
        sanma += full
        caught += peek and full
    assert declared == caught and sanma >= 533 and declared >= 500, (declared, sanma)
    assert not declares_sanma('<mjloggm ver="2.3"><GO type="169" lobby="0"/>')
    assert declares_sanma('<mjloggm ver="2.3"><GO type="185" lobby="0"/>')
