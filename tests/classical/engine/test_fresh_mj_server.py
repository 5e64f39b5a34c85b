"""A game freshly played by Bradfield's mj-server and four mj-player robots replays through our
referee event for event (skipped without the Debian package ``mah-jong``)."""
from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from mjcore.classical.engine.bradfield import replay_paths

SERVER = shutil.which("mj-server") or "/usr/games/mj-server"
PLAYER = shutil.which("mj-player") or "/usr/games/mj-player"

pytestmark = pytest.mark.skipif(
    not (os.path.exists(SERVER) and os.path.exists(PLAYER) and os.environ.get("MJCORE_SLOW")),
    reason="needs mj-server and mj-player (apt-get install mah-jong) and MJCORE_SLOW")


def test_a_fresh_game_replays(tmp_path: Path) -> None:
    game = tmp_path / "game-1"
    game.mkdir()
    sock = str(game / "sock")
    server = subprocess.Popen([SERVER, "--server", sock, "--hand-history", "--timeout", "0",
                               "--exit-on-disconnect"], cwd=game, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    players: list[subprocess.Popen[Any]] = []
    try:
        deadline = time.monotonic() + 10
        while not os.path.exists(sock) and time.monotonic() < deadline:
            time.sleep(0.05)
        players = [subprocess.Popen([PLAYER, "--server", sock], cwd=game,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                   for _ in range(4)]
        out, _ = server.communicate(timeout=240)
    finally:
        procs: list[subprocess.Popen[Any]] = [server, *players]
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    assert "Final scores" in out, out[-500:]
    (game / "final.txt").write_text(out[out.index("Game over"):])
    (g,) = replay_paths([game], score=False)
    assert len(g.hands) >= 16 and g.ok, g.first_problem()
    (g,) = replay_paths([game])             # and every HandScore, Settlement and final score
    assert g.ok, g.first_problem()
