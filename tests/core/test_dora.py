"""Dora indicators, dora counting (checked on every real Tenhou win) and own bonus tiles."""
from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest

from mjcore.errors import InvalidHandError
from mjcore.hand import Hand, Meld
from mjcore.riichi.dora import (
    DORA_OF,
    DoraCount,
    count_dora,
    describe_indicators,
    dora_from_indicator,
    own_bonus,
)
from mjcore.tiles import TILE_NAMES

CASES = Path(os.environ.get(
    "MJCORE_TENHOU_CASES",
    Path(__file__).resolve().parents[3] / "shared" / "data" / "tenhou" / "cases.jsonl.gz"))

# riichi.md §3.4, written out as the cycles themselves.
CYCLES = (
    [f"{n}m" for n in range(1, 10)],
    [f"{n}p" for n in range(1, 10)],
    [f"{n}s" for n in range(1, 10)],
    ["1z", "2z", "3z", "4z"],  # East -> South -> West -> North -> East
    ["5z", "6z", "7z"],  # White -> Green -> Red -> White
)


def _expected_dora() -> dict[str, str]:
    out = {}
    for cycle in CYCLES:
        for i, name in enumerate(cycle):
            out[name] = cycle[(i + 1) % len(cycle)]
    return out


@pytest.mark.parametrize("indicator", TILE_NAMES)
def test_every_indicator(indicator):
    expected = _expected_dora()[indicator]
    assert TILE_NAMES[dora_from_indicator(indicator)] == expected
    assert TILE_NAMES[DORA_OF[TILE_NAMES.index(indicator)]] == expected
    assert TILE_NAMES[dora_from_indicator(TILE_NAMES.index(indicator))] == expected


def test_dora_is_a_permutation():
    assert sorted(DORA_OF) == list(range(34))


@pytest.mark.parametrize("indicator, dora", [
    ("2m", "3m"), ("9p", "1p"), ("6z", "7z"), ("4z", "1z"),  # seed 000's examples
    ("m2", "3m"), ("p9", "1p"), ("z6", "7z"), ("z4", "1z"),  # as seed 000 writes them
    ("7z", "5z"), ("0m", "6m"), ("9s", "1s"),
])
def test_seed_examples(indicator, dora):
    assert TILE_NAMES[dora_from_indicator(indicator)] == dora


@pytest.mark.parametrize("bad", ["", "12m", "8z", 34, -1, None, True, 1.0])
def test_bad_indicator(bad):
    with pytest.raises(InvalidHandError):
        dora_from_indicator(bad)


def test_count_dora_closed_and_melds():
    # Indicator 4m -> dora 5m: one in hand, three in the pon (one of them red).
    h = Hand.parse("5m123p789s11z pon:055m")
    assert h.red_total == 1
    assert count_dora(h, "4m") == DoraCount(dora=4, ura=0, red=1)
    assert count_dora(h, "4m", red=False) == DoraCount(4, 0, 0)
    # Two indicators for the same tile count twice; ura separately.
    assert count_dora(h, ["4m", "4m"], "7z").dora == 8
    assert count_dora(h, "4m4m", "7z").ura == 0
    assert count_dora(h, [3], [25]) == DoraCount(4, 1, 1)  # kind ids: 4m -> 5m, 8s -> 9s
    assert count_dora(h, (), "8s").ura == 1
    assert count_dora("123m", ()).total == 0
    assert count_dora(h, "4m", "8s").total == 6
    assert count_dora(h, "1z").dora == 0 and count_dora(h, "4z").dora == 2  # North -> East
    assert repr(count_dora(h, "4m")) == "DoraCount(dora=4, ura=0, red=1, total=5)"


def test_count_dora_kan_and_red_in_meld():
    h = Hand.parse("11z kan:0555p<1 ankan:9999s chi:340s")
    c = count_dora(h, "4p8s", "3p")
    assert c.dora == 4 + 4 and c.ura == 0 and c.red == 2


@pytest.mark.parametrize("bad", ["8z", [34], object(), ["1x"]])
def test_count_dora_bad_indicators(bad):
    with pytest.raises(InvalidHandError):
        count_dora("123m", bad)


def test_count_dora_bad_hand() -> None:
    with pytest.raises(InvalidHandError):
        count_dora(123, "1m")  # type: ignore[arg-type]


def test_describe():
    assert describe_indicators("2m9p") == "2m->3m 9p->1p"


def _meld(m: dict) -> Meld:
    return Meld.from_136(m["type"], m["tiles_136"], m.get("called_tile_136"), m["from_rel"])


@pytest.mark.skipif(not CASES.exists(), reason=f"Tenhou cases not found at {CASES}")
def test_against_tenhou_cases():
    """Every real win: dora/ura/red counts equal Tenhou's han for yaku 52/53/54."""
    checked = 0
    mismatches = []
    with gzip.open(CASES, "rt") as f:
        for line in f:
            case = json.loads(line)
            hand = Hand.from_136(case["closed_136"], [_meld(m) for m in case["melds"]])
            assert str(hand).split(" ")[0] == case["closed"]
            assert Hand.parse(str(hand)) == hand
            if case["expected"]["yakuman"]:
                continue  # Tenhou lists no dora on yakuman hands
            han = {y["id"]: y["han"] for y in case["expected"]["yaku"]}
            want = (han.get(52, 0), han.get(53, 0), han.get(54, 0))
            got = count_dora(hand, case["dora_indicators"], case["ura_indicators"])
            by_id = count_dora(hand, [i >> 2 for i in case["dora_indicators_136"]],
                               [i >> 2 for i in case["ura_indicators_136"]])
            assert by_id == got
            if (got.dora, got.ura, got.red) != want:
                mismatches.append((case["case_id"], got, want))
            checked += 1
    assert checked == 13538
    assert mismatches == []


def test_own_bonus() -> None:
    # 1f/5f are East's, 2f/6f South's, 3f/7f West's, 4f/8f North's.
    assert own_bonus(range(8), 0) == (0, 4)
    assert own_bonus(range(8), 1) == (1, 5)
    assert own_bonus(range(8), 2) == (2, 6)
    assert own_bonus(range(8), 3) == (3, 7)
    assert own_bonus("1f2f7f", 2) == (6,)
    assert own_bonus(["3f", 7], 3) == (7,)
    assert own_bonus(Hand.parse("123m15f"), 0) == (0, 4)
    assert own_bonus(Hand.parse("123m15f"), 1) == ()
    for bad_seat in (-1, 4, True, "0"):
        with pytest.raises(InvalidHandError):
            own_bonus([0], bad_seat)  # type: ignore[arg-type]
    for bad in (["9f"], [8], ["1m"], [None]):
        with pytest.raises(InvalidHandError):
            own_bonus(bad, 0)  # type: ignore[arg-type]
