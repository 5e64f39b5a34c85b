"""Bradfield hand histories (.mjs, Chinese classical) in the extract."""
from __future__ import annotations

import os
import tarfile
from pathlib import Path

import pyarrow as pa
import pytest

from mjcore.dataset.analysis_columns import analyze_table
from mjcore.dataset.common import WINS_TABLE, side_file
from mjcore.dataset.extraction import extract, problems_of, win_rows
from mjcore.tiles import parse_kinds

# the shared data sits beside the checkout (../shared), or where MJCORE_CLASSICAL_DATA says
REPO = Path(__file__).resolve().parents[2]
DATA = Path(os.environ.get("MJCORE_CLASSICAL_DATA", REPO / ".." / "shared" / "data" / "classical"))


@pytest.fixture(scope="module")
def two_games(tmp_path_factory) -> Path:
    archive = DATA / "bradfield-games.tar.xz"
    if not archive.exists():
        pytest.skip(f"classical data not found at {DATA}")
    root = tmp_path_factory.mktemp("bradfield")
    wanted = ("game-1/", "game-2/")
    with tarfile.open(archive) as tar:
        for m in tar:
            if m.isfile() and m.name.startswith(wanted):
                f = tar.extractfile(m)
                assert f is not None
                path = root / m.name
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(f.read())
    return root


def test_every_recorded_decision_is_a_row(two_games):
    from mjcore.classical.history import parse_history

    table = extract(str(two_games), workers=1)
    reasons = {p.reason for p in problems_of(table)}
    assert reasons == {"not_a_record"}               # the two final.txt files, counted
    assert set(table["format"].to_pylist()) == {"mjs"}
    hands = sorted(two_games.rglob("*.mjs"))
    assert len(set(table["source"].to_pylist())) == len(hands)
    for path in hands[:12]:
        h = parse_history(path.read_text(), str(path))
        rows = table.filter(pa.compute.equal(table["source"], str(path))).to_pylist()
        # the record's own decisions, in order: discards, kongs, successful and losing claims
        # of chow/pung/kong/Mah-Jong, self-drawn Mah-Jong
        kinds = {"PlayerDiscards": "discard", "PlayerDeclaresClosedKong": "ankan",
                 "PlayerAddsToPung": "kakan", "PlayerClaimsChow": "chi",
                 "PlayerClaimsPung": "pon", "PlayerClaimsKong": "daiminkan",
                 "PlayerClaimsMahJong": "ron"}
        expected = []
        for e in h.events:
            if e.kind in kinds:
                expected.append((e.seat, kinds[e.kind]))
            elif e.kind == "PlayerMahJongs" and not any(
                    x.kind == "PlayerClaimsMahJong" and x.seat == e.seat for x in h.events):
                expected.append((e.seat, "tsumo"))
            if e.kind in ("PlayerMahJongs", "PlayerRobsKong"):
                break
        got = [(r["seat"], "discard" if r["action"] == "original_call" else r["action"])
               for r in rows]
        assert sorted(got) == sorted(expected), path
        turn = ("discard", "ankan", "kakan", "tsumo")    # claims within a window may be asked
        assert [x for x in got if x[1] in turn] == [x for x in expected if x[1] in turn]
        for r in rows:
            size = len(r["closed"]) + 3 * r["n_melds"]
            assert size == (13 if r["action"] in ("chi", "pon", "daiminkan", "ron") else 14)
        won = [r for r in rows if r["hand_won"] and r["action"] in ("tsumo", "ron")]
        if h.finished and won:
            assert won[-1]["win_points"] == h.scores[won[-1]["seat"]].score


def test_classical_rows_analysed_with_classical_forms(two_games):
    """The rows are analysed under the classical forms (checked against the single-hand
    API), never as riichi."""
    import mjcore

    table = extract(str(two_games / "game-1"), workers=1)
    out = analyze_table(table)
    assert out["analysis_error"].null_count == out.num_rows
    for row in out.take(pa.array(range(0, out.num_rows, 37))).to_pylist():
        kinds = sorted(t >> 2 for t in row["closed"])
        text = " ".join([_text(kinds)] + list(row["melds"]))
        s = mjcore.shanten(text, rules="bradfield")
        assert (row["shanten"], row["shanten_standard"], row["shanten_kokushi"]) == \
            (int(s), s.standard, s.kokushi)
        seen = list(row["visible"])
        for token in row["melds"]:
            for k in parse_kinds(token.split(":")[1].split("<")[0]):
                seen[k] -= 1
        visible = [k for k in range(34) for _ in range(seen[k])]
        u = mjcore.ukeire(text, visible, rules="bradfield")
        if row["tiles"] % 3 == 1:
            assert row["ukeire"] == u.options[0].remaining
        else:
            best = u.options[0]
            assert (row["best_shanten"], row["best_ukeire"]) == (best.shanten, best.remaining)


def _text(kinds: list[int]) -> str:
    out = ""
    for suit, letter in enumerate("mpsz"):
        digits = "".join(str(k % 9 + 1) for k in kinds if k // 9 == suit)
        out += digits + letter if digits else ""
    return out


def test_a_classical_extract_folder_analyses_as_in_memory(two_games, tmp_path):
    """Through the folder job (the extract's side table of win rows; the rules read from every
    row for the classical forms, here seven pairs allowed) the rows are analysed as in
    memory."""
    import pyarrow.parquet as pq

    from mjcore.dataset.analysed_parts import read_table
    from mjcore.dataset.analysis import analyze_dir

    ex, an = tmp_path / "ex", tmp_path / "an"
    extract(str(two_games / "game-1"), str(ex), workers=1)
    table = pq.read_table(ex / "part-00000.parquet")
    rules = pa.array(['{"game": "classical", "seven_pairs": true}'] * table.num_rows)
    table = table.set_column(table.schema.get_field_index("rules"), "rules", rules)
    pq.write_table(table, ex / "part-00000.parquet")
    pq.write_table(win_rows(table), side_file(str(ex / "part-00000.parquet"), WINS_TABLE))
    analyze_dir(str(ex), str(an), workers=1)
    want = analyze_table(table, n_threads=1)
    assert want["shanten_chiitoitsu"].null_count < want.num_rows
    got = read_table(str(an), with_input=False)
    for name in got.column_names:
        assert got[name].to_pylist() == want[name].to_pylist(), name


def test_a_history_with_a_score_beyond_its_column_is_reported_and_the_others_kept(two_games):
    """A Bradfield history whose scores do not fit the extract's int32 is a problem of that
    record; the partition's other hands keep their rows (it used to stop the partition)."""
    import re

    from mjcore.dataset.extraction import extract_partition

    hands = sorted(two_games.rglob("*.mjs"))[:2]
    good = hands[0].read_bytes()
    bad = re.sub(rb"^(Game(?: \S+){7}) -?\d+", rb"\1 99999999999", good, count=1, flags=re.M)
    assert bad != good
    items = [("bad.mjs", bad), *[(str(p), p.read_bytes()) for p in hands]]
    res, table = extract_partition(0, 0, items, None)
    assert [(p.file, p.reason) for p in res.problems] == [("bad.mjs", "bad_record")]
    assert "scores 99999999999 is outside" in res.problems[0].detail
    assert set(table["game"].to_pylist()) == {1, 2}


def test_closed_ids_and_visible_bytes_match_the_plain_loops_on_any_counts():
    """The table-driven ids and bytes of a classical row equal the plain per-kind loops, also
    for counts no legal hand has (the fallback paths)."""
    import random

    from mjcore.dataset.classical import _closed_ids, _visible_bytes

    rng = random.Random(7)
    for _ in range(300):
        top = rng.choice((4, 4, 6))
        counts = bytearray(rng.randrange(top + 1) for _ in range(34))
        assert list(_closed_ids(counts)) == \
            [k * 4 + 3 - c for k in range(34) for c in range(counts[k])]
        public = [rng.randrange(-2, top + 1) for _ in range(34)]
        assert _visible_bytes(public) == bytes(min(4, max(0, x)) for x in public)
