"""The extract: one row per decision, in record order, checked against the engine's replay."""
from __future__ import annotations

import gzip
import io
import itertools
import json
import os
import tarfile

import pyarrow as pa
import pyarrow.dataset as pa_dataset
import pyarrow.parquet as pq
import pytest

from mjcore.dataset.common import WINS_TABLE, side_file
from mjcore.dataset.extraction import (
    ACTIONS,
    extract,
    extract_partition,
    problems_of,
    schema,
    win_rows,
)
from mjcore.riichi.actions import PASS, TENPAI, ActionType
from mjcore.riichi.events import write_mjai
from mjcore.riichi.game import Game
from mjcore.riichi.mjlog import read_mjlog, rules_for_go_type, with_record_rounding
from mjcore.riichi.replay import _RecordDriver, _walls_from_record

_ACTION_OF = {ActionType.DISCARD: "discard", ActionType.RIICHI: "riichi",
              ActionType.TSUMO: "tsumo", ActionType.RON: "ron", ActionType.CHI: "chi",
              ActionType.PON: "pon", ActionType.DAIMINKAN: "daiminkan",
              ActionType.KAKAN: "kakan", ActionType.ANKAN: "ankan",
              ActionType.KYUUSHU: "kyuushu"}


def engine_decisions(events, rules) -> list[tuple[int, str, int]]:
    """(seat, action, tile kind) of every choice the engine asked for while replaying a
    record, passes left out (the record does not hold them)."""
    walls = _walls_from_record(events, "test")
    driver = _RecordDriver(events)
    taken: list[tuple[int, str, int]] = []

    def decide(seat, actions):
        a = driver(seat, actions)
        if a is not PASS and a.type not in (ActionType.PASS, TENPAI):
            tile = a.tile if a.type != ActionType.ANKAN else min(a.consumed)
            taken.append((seat, _ACTION_OF[a.type], tile >> 2 if tile >= 0 else -1))
        return a

    it = iter(walls)
    game = Game(rules, lambda pos, honba: next(it), decide, on_event=driver.on_event)
    game.run()
    assert driver.pos == len(driver.rec)
    return taken


def test_every_decision_is_a_row_in_order(records, extract_table):
    """For complete 4-player games: the extract's rows are exactly the choices the engine's
    replay takes from the record, in the same order."""
    checked = 0
    for name, data in records.items():
        game = read_mjlog(data.decode("utf-8"), name)
        if game.sanma or not game.complete or checked >= 6:
            continue
        rules = with_record_rounding(rules_for_go_type(game.go_type), game.events)
        expected = engine_decisions(game.events, rules)
        rows = extract_table.filter(pa.compute.ends_with(extract_table["source"], name))
        got = [(r["seat"], r["action"], r["tile"] >> 2 if r["tile"] >= 0 else -1)
               for r in rows.select(["seat", "action", "tile"]).to_pylist()]
        assert got == expected, name
        assert rows["decision"].to_pylist() == list(range(len(got)))
        checked += 1
    assert checked == 6


def test_rows_follow_the_hand(extract_table):
    """Each row's closed hand has the size its action needs, and hands are 136-id sets."""
    for r in extract_table.select(["closed", "n_melds", "action", "tile", "visible"]) \
            .slice(0, 4000).to_pylist():
        size = len(r["closed"]) + 3 * r["n_melds"]
        if r["action"] in ("chi", "pon", "daiminkan", "ron"):
            assert size == 13
            assert r["tile"] not in r["closed"]
        else:
            assert size == 14
            if r["action"] in ("discard", "riichi", "kakan"):
                assert r["tile"] in r["closed"]
        assert len(set(r["closed"])) == len(r["closed"])
        assert all(0 <= v <= 4 for v in r["visible"])
    assert set(extract_table["action"].to_pylist()) <= set(ACTIONS)


def test_schema_and_outcomes(extract_table):
    assert extract_table.schema.equals(schema(), check_metadata=False)
    rows = extract_table.to_pandas()
    assert rows["hand_result"].notna().all()
    wins = rows[rows["action"].isin(["tsumo", "ron"])]
    assert len(wins) > 20
    assert wins["hand_won"].all() and wins["win_points"].notna().all()
    # a hand's deltas sum to the sticks taken by its winner(s), or 0
    per_hand = rows.groupby(["game", "hand", "seat"])["hand_delta"].first().groupby(
        ["game", "hand"]).sum()
    assert (per_hand >= 0).all()


def test_bad_records_are_reported_not_dropped(records, tmp_path):
    names = list(records)
    good = records[names[0]]
    corrupt = good[: len(good) // 2].replace(b"<T", b"<Q", 1) + b'<N who="9" m="x"/>'
    undisc = good.replace(b"<D", b"<D1", 1)
    items = [(names[0], good), ("garbage.bin", b"\x00\x01\x02 not a record"),
             ("broken.xml", corrupt), ("gone.xml", "OSError: [Errno 2] missing"),
             ("bad-discard.xml", undisc), ("empty.jsonl", b"\n"), (names[1], records[names[1]])]
    res, table = extract_partition(0, 100, items, None)
    by_file = {p.file: p for p in res.problems}
    assert by_file["garbage.bin"].reason == "unknown_format"
    assert by_file["broken.xml"].game == 102
    assert by_file["gone.xml"].reason == "unreadable"
    assert "bad-discard.xml" in by_file and "empty.jsonl" in by_file
    assert set(table["game"].to_pylist()) >= {100}
    assert 106 in set(table["game"].to_pylist()) or by_file.get(names[1]) is not None
    for p in res.problems:
        assert p.detail and p.reason


def test_truncated_record_keeps_its_rows_and_is_counted(records):
    name = next(n for n in records if n.startswith("thewaxmango"))
    text = records[name].decode()
    cut = text[: text.index("<AGARI", len(text) // 2)]        # stops mid-hand
    res, table = extract_partition(0, 0, [(name, cut.encode())], None)
    assert [p.reason for p in res.problems] == ["incomplete"]
    assert res.problems[0].row == table.num_rows > 0
    assert table["hand_result"].to_pylist()[-1] == "unfinished"


def test_mjai_records_give_the_same_rows(records):
    """Our own records (mjai JSON lines, as `mjcore play` writes) extract like the mjlog."""
    name = next(n for n in records if n.startswith("dnovikoff"))
    game = read_mjlog(records[name].decode(), name)
    lines = "\n".join(write_mjai(game.events)).encode()
    _res, from_xml = extract_partition(0, 0, [(name, records[name])], None)
    _res, from_mjai = extract_partition(0, 0, [("game.jsonl", gzip.compress(lines))], None)
    cols = ["seat", "action", "closed", "melds", "visible", "tile", "win_points",
            "hand_delta", "win_flags"]
    assert from_mjai["format"][0].as_py() == "mjai"
    xml_rows = from_xml.select(cols).to_pylist()
    mjai_rows = from_mjai.select(cols).to_pylist()
    # mjai names tiles, not copies: compare kinds (and red fives) instead of 136-ids
    def kinds(r):
        r = dict(r)
        r["closed"] = sorted((t >> 2, t in (16, 52, 88)) for t in r["closed"])
        r["tile"] = r["tile"] >> 2 if r["tile"] >= 0 else -1
        return r
    assert [kinds(r) for r in mjai_rows] == [kinds(r) for r in xml_rows]


def test_parts_resume_and_archives(records, tmp_path):
    """A tar.gz archive extracts like its files; parts already written are kept as they are."""
    archive = tmp_path / "some.tar.gz"
    chosen = list(records.items())[:9]
    with tarfile.open(archive, "w:gz") as tar:
        for name, data in chosen:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    out = tmp_path / "ex"
    summary = extract(str(archive), str(out), records_per_partition=4, workers=1)
    assert summary.partitions == 3 and summary.records == 9
    parts = sorted(p for p in os.listdir(out) if p.endswith(".parquet"))
    assert parts == ["part-00000.parquet", "part-00001.parquet", "part-00002.parquet"]
    first = (out / parts[0]).stat().st_mtime_ns
    (out / parts[1]).unlink()
    again = extract(str(archive), str(out), records_per_partition=4, workers=1)
    assert again.resumed == 2 and again.partitions == 1
    assert (out / parts[0]).stat().st_mtime_ns == first
    whole = pa.concat_tables(pq.read_table(out / p) for p in parts)
    for p in parts:                   # each part's win rows again in its side table
        assert pq.read_table(side_file(str(out / p), WINS_TABLE)).equals(
            win_rows(pq.read_table(out / p)))
    memory = extract(str(archive), records_per_partition=4, workers=1)
    assert whole.equals(memory.replace_schema_metadata(None))
    # a plain reader of the folder skips the side tables
    assert pa_dataset.dataset(str(out), format="parquet").count_rows() == whole.num_rows
    with pytest.raises(Exception, match="another part size"):
        extract(str(archive), str(out), records_per_partition=5, workers=1)
    meta = json.loads((out / "_extract.json").read_text())
    assert meta["records_per_part"] == 4


def test_worker_processes_give_the_same_table(records_dir, extract_table):
    two = extract(str(records_dir), workers=2, records_per_partition=8)
    assert two.equals(extract_table)
    assert [p.reason for p in problems_of(two)] == [p.reason for p in problems_of(extract_table)]


def test_missing_input_is_an_error(tmp_path):
    from mjcore.errors import MjcoreError

    with pytest.raises(MjcoreError, match="no such file"):
        extract(str(tmp_path / "nope"), str(tmp_path / "out"))




def test_our_own_records(tmp_path):
    """Records of `mjcore play` (mjai JSON lines with the engine's rules): every decision a
    row, checked against the replay, and every win scored as the engine scored it."""
    from click.testing import CliRunner

    from mjcore.cli import main
    from mjcore.dataset.analysis_columns import analyze_table
    from mjcore.riichi.events import from_mjai_lines
    from mjcore.riichi.replay import _rules_from_events

    out = tmp_path / "games"
    r = CliRunner().invoke(main, ["play", "--games", "2", "--seed", "11", "--agents",
                                  "efficiency,random", "--out", str(out)])
    assert r.exit_code == 0, r.output
    table = extract(str(out), workers=1)
    assert not problems_of(table)
    files = sorted(out.iterdir())
    assert len(files) == 2 and set(table["format"].to_pylist()) == {"mjai"}
    for path in files:
        events = from_mjai_lines(path.read_text().splitlines(), str(path))
        expected = engine_decisions(events, _rules_from_events(events))
        rows = table.filter(pa.compute.equal(table["source"], str(path)))
        got = [(r["seat"], r["action"], r["tile"] >> 2 if r["tile"] >= 0 else -1)
               for r in rows.select(["seat", "action", "tile"]).to_pylist()]
        assert got == expected
    done = analyze_table(table)
    wins = done.filter(pa.compute.is_in(done["action"], pa.array(["tsumo", "ron"])))
    assert wins.num_rows > 0
    assert wins["score_points"].to_pylist() == wins["win_points"].to_pylist()


def test_truncated_archive_keeps_what_it_read(records, tmp_path):
    archive = tmp_path / "cut.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for name, data in list(records.items())[:6]:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    data = archive.read_bytes()
    archive.write_bytes(data[: len(data) * 2 // 3])
    table = extract(str(archive), workers=1)
    problems = problems_of(table)
    assert [p.reason for p in problems if p.file == str(archive)] == ["unreadable"]
    assert 0 < len(set(table["game"].to_pylist())) < 6


def test_oversized_record_is_reported_not_read(records, tmp_path, monkeypatch):
    import importlib

    ex = importlib.import_module("mjcore.dataset.extraction")
    data = next(iter(records.values()))
    (tmp_path / "big.xml").write_bytes(data)
    archive = tmp_path / "big.tar"
    with tarfile.open(archive, "w") as tar:
        info = tarfile.TarInfo("in/big.xml")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    monkeypatch.setattr(ex, "MAX_RECORD_BYTES", len(data) - 1)
    for path in (tmp_path / "big.xml", archive):
        problems = problems_of(extract(str(path), workers=1))
        assert [p.reason for p in problems] == ["too_large"]
        assert "more than" in problems[0].detail



def _mjai_hand(kyoku: int) -> bytes:
    """An mjai record of one hand (seat 0 draws and discards 9p, then a draw) with ``kyoku``."""
    hands = [[f"{n}m" for n in range(1, 10)] + ["1p", "2p", "3p", "4p"]] * 2 + \
        [[f"{n}s" for n in range(1, 10)] + ["5p", "6p", "7p", "8p"]] * 2
    events = [{"type": "start_game", "names": ["a", "b", "c", "d"]},
              {"type": "start_kyoku", "bakaze": "E", "kyoku": kyoku, "honba": 0, "kyotaku": 0,
               "oya": 0, "dora_marker": "E", "scores": [25000] * 4, "tehais": hands},
              {"type": "tsumo", "actor": 0, "pai": "9p"},
              {"type": "dahai", "actor": 0, "pai": "9p", "tsumogiri": True},
              {"type": "ryukyoku", "reason": "exhaustive", "deltas": [0, 0, 0, 0]},
              {"type": "end_kyoku"}, {"type": "end_game"}]
    return "".join(json.dumps(e) + "\n" for e in events).encode()


def test_numbers_beyond_their_columns_are_a_bad_record_not_a_lost_partition(records):
    """A record whose numbers do not fit the extract's columns (honba 70000 in int16, fu 99999,
    kyoku 1000 in int8, one tile drawn and discarded 40,000 times) is reported by file and
    event; the other records of its partition keep their rows. (The numbers used to stop the
    whole partition with a traceback.)"""
    import re

    name = next(iter(records))
    good = records[name]
    honba = re.sub(rb'(<INIT seed="\d+),\d+', rb"\g<1>,70000", good, count=1)
    fu = re.sub(rb'(<AGARI [^>]*ten=")\d+', rb"\g<1>99999", good, count=1)
    init_end = good.index(b"/>", good.index(b"<INIT")) + 2
    first_draw = re.search(rb"<T(\d+)/>", good[init_end:])
    assert first_draw is not None
    tile = first_draw.group(1)
    spam = good[:init_end] + (b"<T" + tile + b"/><D" + tile + b"/>") * 40_000 + good[init_end:]
    assert honba != good and fu != good
    items = [("honba.xml", honba), ("fu.xml", fu), ("kyoku.mjson", _mjai_hand(1000)),
             ("spam.xml", spam), ("ok.mjson", _mjai_hand(1)), (name, good)]
    res, table = extract_partition(0, 0, items, None)
    by_file = {p.file: p for p in res.problems if p.reason != "incomplete"}
    assert set(by_file) == {"honba.xml", "fu.xml", "kyoku.mjson", "spam.xml"}
    assert all(p.reason == "bad_event" and p.row == -1 for p in by_file.values())
    assert "honba 70000 is outside -32768..32767" in by_file["honba.xml"].detail
    assert "(hora)" in by_file["fu.xml"].detail and "win_fu 99999" in by_file["fu.xml"].detail
    assert "kyoku 1000 is outside -128..127" in by_file["kyoku.mjson"].detail
    assert set(table["game"].to_pylist()) == {4, 5}
    assert table.filter(pa.compute.equal(table["game"], 4)).num_rows == 1


def _hand_events() -> list:
    from mjcore.riichi.events import from_mjai_lines

    return from_mjai_lines(_mjai_hand(1).decode().splitlines(), "hand.mjson")


def _extract_rows(events: list) -> pa.Table:
    from mjcore.dataset.extraction import _Columns
    from mjcore.dataset.riichi import extract_events

    cols = _Columns()
    extract_events(events, cols, source="hand.mjson", fmt="mjai", game=0, rules="")
    return cols.table()


def test_extract_events_skips_what_it_does_not_read():
    """Events of types the extract does not read (end_game, an unknown or unhashable type)
    and play before the first start_kyoku give no rows and change none."""
    events = _hand_events()
    plain = _extract_rows(events)
    assert plain.column("action").to_pylist() == ["discard"]
    start = next(i for i, ev in enumerate(events) if ev["type"] == "start_kyoku")
    early = [{"type": "tsumo", "actor": 0, "pai": 5}, {"type": "dahai", "actor": 0, "pai": 5},
             {"type": "hora", "actor": 0, "target": 0}, {"type": "no_such_event"},
             {"type": ["unhashable"]}]
    noisy = events[:start] + early + events[start:start + 1] + [{"type": "no_such_event"}] + \
        events[start + 1:]
    table = _extract_rows(noisy)
    assert table.drop(["event"]).equals(plain.drop(["event"]))
    assert table.column("event").to_pylist() == [plain.column("event")[0].as_py() + 6]


def test_extract_events_names_the_broken_event_and_its_type():
    """A handler's slip (a discard without its tile, a call of a tile not held) is an
    InvalidHandError naming the event's number and type, reason bad_event."""
    from mjcore.errors import InvalidHandError

    events = _hand_events()
    discard = next(i for i, ev in enumerate(events) if ev["type"] == "dahai")
    no_tile = [dict(ev) for ev in events]
    del no_tile[discard]["pai"]
    with pytest.raises(InvalidHandError) as caught:
        _extract_rows(no_tile)
    assert str(caught.value).startswith(f"event {discard} (dahai): KeyError('pai')")
    assert caught.value.reason == "bad_event"
    not_held = [dict(ev) for ev in events]
    not_held[discard] = {"type": "pon", "actor": 1, "target": 0, "pai": 0, "consumed": [130, 131]}
    with pytest.raises(InvalidHandError) as caught:
        _extract_rows(not_held)
    assert str(caught.value).startswith(f"event {discard} (pon): ValueError(")

def test_a_part_ends_once_its_records_pass_the_byte_bound(records_dir, extract_table,
                                                          monkeypatch, tmp_path):
    """Parts hold at most records_per_partition records and, past MAX_PART_BYTES, fewer (the
    main process holds a part's bytes until a worker takes it): the same rows either way."""
    from mjcore.dataset import extraction

    sizes = sorted(p.stat().st_size for p in records_dir.rglob("*") if p.is_file())
    monkeypatch.setattr(extraction, "MAX_PART_BYTES", sizes[-1])
    out = tmp_path / "ex"
    summary = extract(str(records_dir), str(out), records_per_partition=8, workers=1)
    assert summary.records == len(sizes)
    assert summary.partitions > -(-len(sizes) // 8)          # more parts than by count alone
    batches = list(extraction._batches([str(records_dir)], 8))
    assert all(sum(len(d) for _n, d in b[:-1]) < sizes[-1] for _i, _g, b, _d in batches)
    assert [g for _i, g, _b, _d in batches] == list(itertools.accumulate(
        [0] + [len(b) for _i, _g, b, _d in batches[:-1]]))
    whole = pa.concat_tables(pq.read_table(p) for p in sorted(out.glob("part-*.parquet")))
    assert whole.equals(extract_table.replace_schema_metadata(None))
