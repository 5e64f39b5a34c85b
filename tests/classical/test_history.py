"""The Bradfield hand-history reader."""
from __future__ import annotations

import io
import tarfile

import pytest

from mjcore.classical.history import TILE_CODES, HistoryError, parse_history, read_histories

SAMPLE = """Player 1 P2
Player 2 P3
Player 3 P4
Player 4 P1
Game 1 2 3 4 E 0 1 0 0 0 0 1110 1
GameOption 0 ScoreLimit nat 0 1 1000 limit on hand score
GameOption 0 End bool 0 1 1 end of option list
Wall """ + " ".join(["1B"] * 144) + """
NewHand 1 2 13
PlayerDraws 1 NW
PlayerDiscards 1 NW 5 0
PlayerMahJongs 3 --
PlayerPungs 3 NW
HandScore 3 48 basic        20 (going Mah Jong)\\
1 special     4 (flowers and seasons)\\
NW-NW-NW      4 (open pung of majors)\\
total pts    28\\
              1 dbl (no chows)\\
total dbls    1\\
score:     56 (over limit)\\
SCORE:       48
Settlement -96 -48 192 -48 East  pays West     96\\
West  pays South (for North)    48\\
West  GAINS   192\\
\\
East  and South are even\\
North let off a cannon\\
"""


def test_sample_is_read_into_typed_records():
    h = parse_history(SAMPLE, "game-7/hand-03.mjs")
    assert (h.game_number, h.hand_number) == (7, 3)
    assert [pid for pid, _ in h.players] == [1, 2, 3, 4] and h.seat_of(3) == 2
    assert h.game.prevailing_wind == 0 and h.rules.name == "bradfield"
    assert h.wall == (TILE_CODES["1B"],) * 144
    assert [e.kind for e in h.events] == ["NewHand", "PlayerDraws", "PlayerDiscards",
                                          "PlayerMahJongs", "PlayerPungs"]
    d = h.events[2]
    assert (d.player, d.seat, d.tile, d.args) == (1, 0, TILE_CODES["NW"], ("5", "0"))
    assert h.events[3].tile is None and h.finished
    s = h.scores[2]
    assert (s.score, s.total_points, s.total_doubles, s.over_limit) == (48, 28, 1, 56)
    assert [(i.label, i.points, i.doubles, i.reason) for i in s.items] == [
        ("basic", 20, 0, "going Mah Jong"), ("1 special", 4, 0, "flowers and seasons"),
        ("NW-NW-NW", 4, 0, "open pung of majors"), ("", 0, 1, "no chows")]
    st = h.settlement
    assert st is not None
    assert st.net == (-96, -48, 192, -48) and st.cannon == 3
    assert [(p.payer, p.payee, p.amount, p.for_seat) for p in st.payments] == [
        (0, 2, 96, None), (2, 1, 48, 3)]


@pytest.mark.parametrize("old, new, reason", [
    ("Wall 1B", "Wall 1X", "unknown tile '1X'"),
    ("PlayerDraws 1 NW", "PlayerDraws 9 NW", "unknown player id 9"),
    ("Game 1 2 3 4 E", "Game 1 2 3 4 Q", "malformed Game line"),
    ("SCORE:       48", "SCORE:       47", "HandScore lists 48 but SCORE is 47"),
    ("Settlement -96", "Settlement -95", "does not sum to zero"),
    ("total dbls    1", "total dbls    x", "total doubles 'x' is not a number"),
    ("NW-NW-NW      4 (open", "NW-NW-NW      four (open", "unreadable HandScore item"),
    ("GameOption 0 ScoreLimit nat 0 1 1000", "GameOption 0 Score nat 0 1 1000",
     "unknown Bradfield game option"),
])
def test_malformed_input_names_file_line_and_reason(old, new, reason):
    assert old in SAMPLE
    with pytest.raises(HistoryError, match=r"bad\.mjs") as e:
        parse_history(SAMPLE.replace(old, new, 1), "bad.mjs")
    assert reason in str(e.value)


def test_missing_lines():
    with pytest.raises(HistoryError, match="expected 4 Player lines"):
        parse_history("Game 1 2 3 4 E 0 1 0 0 0 0 1110 1\n", "x.mjs")


def test_folder_file_and_archive(tmp_path):
    (tmp_path / "game-2").mkdir()
    (tmp_path / "game-10").mkdir()
    for g in ("game-2", "game-10"):
        for k in ("hand-02.mjs", "hand-10.mjs"):
            (tmp_path / g / k).write_text(SAMPLE)
    got = [h.label for h in read_histories(tmp_path)]
    assert got == ["game 2 hand 2", "game 2 hand 10", "game 10 hand 2", "game 10 hand 10"]
    assert len(list(read_histories(tmp_path / "game-2" / "hand-02.mjs"))) == 1
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:xz") as tar:
        data = SAMPLE.encode()
        info = tarfile.TarInfo("game-3/hand-01.mjs")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    arc = tmp_path / "a.tar.xz"
    arc.write_bytes(buf.getvalue())
    assert [h.label for h in read_histories(arc)] == ["game 3 hand 1"]
    with pytest.raises(HistoryError, match="no such file"):
        list(read_histories(tmp_path / "missing.mjs"))
    (tmp_path / "bad.tar.xz").write_bytes(b"not an archive")
    with pytest.raises(HistoryError, match="cannot open or read the archive"):
        list(read_histories(tmp_path / "bad.tar.xz"))


def test_oversized_files_and_archive_members_are_refused(tmp_path, monkeypatch):
    from mjcore.classical import history

    small = len(SAMPLE.encode())
    monkeypatch.setattr(history, "MAX_HISTORY_BYTES", small)
    (tmp_path / "ok.mjs").write_text(SAMPLE)
    assert len(list(read_histories(tmp_path / "ok.mjs"))) == 1
    (tmp_path / "big.mjs").write_text(SAMPLE + " ")
    with pytest.raises(HistoryError, match=rf"big.mjs: {small + 1} bytes, more than the "
                                           rf"{small} bytes"):
        list(read_histories(tmp_path / "big.mjs"))
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, text in (("g/hand-01.mjs", SAMPLE), ("g/hand-02.mjs", SAMPLE + " ")):
            info = tarfile.TarInfo(name)
            info.size = len(text.encode())
            tar.addfile(info, io.BytesIO(text.encode()))
    arc = tmp_path / "a.tar"
    arc.write_bytes(buf.getvalue())
    with pytest.raises(HistoryError, match=r"a.tar:g/hand-02.mjs: \d+ bytes, more than the"):
        list(read_histories(arc))
    monkeypatch.setattr(history, "MAX_HISTORY_BYTES", 2 * small)
    monkeypatch.setattr(history, "MAX_ARCHIVE_BYTES", small + 1)
    with pytest.raises(HistoryError, match=r"a.tar: its wanted members pass \d+ bytes in all"):
        list(read_histories(arc))


def test_whole_archive_reads(bradfield_hands):
    assert len(bradfield_hands) == 6633
    assert sum(h.finished for h in bradfield_hands) == 6633
    assert sum(len(h.scores) for h in bradfield_hands) == 26532
    assert all(h.rules.name == "bradfield" and len(h.wall) == 144 for h in bradfield_hands)


def test_events_are_immutable_tuples_read_per_hand() -> None:
    """The same event line in two hands with other seatings gets each hand's seat, and a
    line read before still fails on a hand that does not seat its player."""
    h = parse_history(SAMPLE, "a")
    reseated = SAMPLE.replace("Player 1 P2\nPlayer 2 P3\nPlayer 3 P4\nPlayer 4 P1",
                              "Player 3 P4\nPlayer 4 P1\nPlayer 1 P2\nPlayer 2 P3"
                              ).replace("NewHand 1", "NewHand 3")
    h2 = parse_history(reseated, "b")
    d1 = next(e for e in h.events if e.kind == "PlayerDiscards")
    d2 = next(e for e in h2.events if e.kind == "PlayerDiscards")
    assert (d1.player, d1.seat, d1.tile, d1.args) == (1, 0, TILE_CODES["NW"], ("5", "0"))
    assert (d2.player, d2.seat, d2.line) == (1, 2, d1.line)
    with pytest.raises(AttributeError):
        d1.seat = 3  # type: ignore[misc]
    unseated = SAMPLE.replace("Player 1 P2", "Player 5 P2").replace("NewHand 1", "NewHand 5")
    with pytest.raises(HistoryError, match="c:10: PlayerDraws: unknown player id 1"):
        parse_history(unseated.replace("Game 1 2 3 4", "Game 5 2 3 4"), "c")
    with pytest.raises(HistoryError, match="c:10: unknown tile 'XX'"):
        parse_history(SAMPLE.replace("PlayerDraws 1 NW", "PlayerDraws 1 XX"), "c")


def test_fewer_collections_restores_the_collector():
    import gc

    from mjcore.classical.history import fewer_collections

    before = gc.get_threshold()
    with fewer_collections(50_000):
        assert gc.get_threshold() == (max(50_000, before[0]), *before[1:])
        with pytest.raises(HistoryError), fewer_collections():
            parse_history("garbage", "x")
        assert gc.get_threshold()[0] == max(50_000, before[0])
    assert gc.get_threshold() == before


def test_east_streak_only_for_the_east_the_game_line_names():
    h = parse_history(SAMPLE.replace("E 0 1 0 0 0 0", "E 12 1 0 0 0 0"), "a")
    assert h.game.east_wins == 12 and h.east_streak == 12
    # the deal passed but the Game line still lists the old East and its count
    stale = SAMPLE.replace("Game 1 2 3 4 E 0 1", "Game 4 1 2 3 E 12 1")
    h = parse_history(stale, "b")
    assert h.game.east_wins == 12 and h.east_streak == 0
