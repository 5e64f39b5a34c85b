"""Fresh games from Bradfield's own programs: `mj-server` and four `mj-player`s (Debian package
`mah-jong`) play, and every hand they score must score the same here. Skipped when the programs
are not installed. No difference is allowed (known_mismatches.json is empty)."""
from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from mjcore.classical.bradfield import check_history
from mjcore.classical.history import read_histories

PATHS = os.environ.get("PATH", "") + os.pathsep + "/usr/games"
SERVER = shutil.which("mj-server", path=PATHS)
PLAYER = shutil.which("mj-player", path=PATHS)
GAMES = 2


def _play(folder: Path) -> None:
    assert SERVER and PLAYER
    sock = folder / "sock"
    server = subprocess.Popen([SERVER, "--server", str(sock), "--hand-history", "--timeout", "0",
                               "--exit-on-disconnect"], cwd=folder, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    players = []
    try:
        for _ in range(100):
            if sock.exists():
                break
            time.sleep(0.05)
        players = [subprocess.Popen([PLAYER, "--server", str(sock)], cwd=folder,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                   for _ in range(4)]
        server.wait(timeout=120)
        for p in players:
            p.wait(timeout=30)
    finally:
        for p in [server, *players]:
            if p.poll() is None:
                p.kill()
                p.wait()


@pytest.mark.skipif(not (SERVER and PLAYER), reason="mah-jong (mj-server, mj-player) not installed")
def test_fresh_games_score_as_the_server_does(tmp_path):
    hands = 0
    for g in range(GAMES):
        folder = tmp_path / f"game-{g + 1}"
        folder.mkdir()
        _play(folder)
        for h in read_histories(folder):
            if not h.finished:
                continue
            hands += 1
            result, diffs = check_history(h)
            assert result is not None, f"{h.source}: {diffs}"
            assert not diffs, f"{h.source}: " + "; ".join(map(str, diffs))
    assert hands >= 16 * GAMES
