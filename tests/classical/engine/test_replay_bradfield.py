"""Bradfield's games through our referee: every draw, loose tile, bonus replacement and claim
outcome must come out as recorded."""
from __future__ import annotations

import shutil
from pathlib import Path

from mjcore.classical.engine.bradfield import replay_paths

GAMES = ["game-1", "game-14", "game-118", "game-140", "game-165", "game-192"]


def test_games_replay_exactly(bradfield_dir: Path) -> None:
    paths = [bradfield_dir / g for g in GAMES]
    games = list(replay_paths(paths, score=False))
    assert len(games) == len(GAMES)
    for g in games:
        assert g.ok, g.first_problem()
        assert all(h.n_compared > 0 for h in g.hands)


def _copy_hand(bradfield_dir: Path, tmp_path: Path, game: str, hand: str) -> Path:
    dest = tmp_path / game
    dest.mkdir()
    shutil.copy(bradfield_dir / game / hand, dest / hand)
    return dest / hand


def test_a_tile_the_wall_does_not_hold_is_reported(bradfield_dir: Path, tmp_path: Path) -> None:
    f = _copy_hand(bradfield_dir, tmp_path, "game-1", "hand-01.mjs")
    lines = f.read_text().split("\n")
    i = next(i for i, line in enumerate(lines) if line.startswith("PlayerDraws 2 7C"))
    lines[i] = "PlayerDraws 2 8C"
    f.write_text("\n".join(lines))
    (g,) = replay_paths([f.parent], score=False)
    assert not g.ok
    problem = g.first_problem()
    assert problem is not None and f"line {i + 1}): ours draw 1 7m, record draw 1 8m" in problem


def test_an_illegal_claim_is_reported_and_the_rest_replays(bradfield_dir: Path,
                                                           tmp_path: Path) -> None:
    f = _copy_hand(bradfield_dir, tmp_path, "game-1", "hand-01.mjs")
    shutil.copy(bradfield_dir / "game-1" / "hand-02.mjs", f.parent / "hand-02.mjs")
    (f.parent / "hand-03.mjs").write_text("Player 1 x\nWall 1C\n")
    text = f.read_text().replace("PlayerDoesntClaim 2 1 0", "PlayerClaimsPung 2 1")
    f.write_text(text)
    line = text.split("\n").index("PlayerClaimsPung 2 1") + 1
    (g,) = replay_paths([f.parent], score=False)
    bad, good = g.hands
    assert bad.error is not None and f"line {line}: seat 1 claims pung" in bad.error
    assert "not legal" in bad.error
    assert good.ok
    assert g.errors and "hand-03.mjs" in g.errors[0]
