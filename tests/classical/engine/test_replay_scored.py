"""Bradfield's games through our referee and the classical scorer: every HandScore, Settlement
and final score as recorded, apart from the hands listed (with their reasons) in
tests/classical/known_mismatches.json."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from mjcore.classical.engine.bradfield import replay_paths

KNOWN = json.loads((Path(__file__).resolve().parents[1] / "known_mismatches.json").read_text())


def _differing(games) -> set[str]:
    out = set()
    for g in games:
        for source, text in g.problems():
            assert source, text                     # no game-level difference
            assert text.startswith(("HandScore", "Settlement")), (source, text)
            out.add("/".join(source.replace("\\", "/").split("/")[-2:]))
    return out


def test_scored_games(bradfield_dir: Path) -> None:
    games = ["game-1", "game-10", "game-44", "game-146", "game-143", "game-281", "game-233"]
    got = _differing(replay_paths([bradfield_dir / g for g in games]))
    assert got == {k for k in KNOWN if k.split("/")[0] in games}


@pytest.mark.skipif(not os.environ.get("MJCORE_SLOW"), reason="MJCORE_SLOW")
def test_all_300_games_scored(bradfield_dir: Path) -> None:
    games = list(replay_paths([bradfield_dir]))
    assert len(games) == 300 and sum(len(g.hands) for g in games) == 6633
    assert _differing(games) == set(KNOWN)
