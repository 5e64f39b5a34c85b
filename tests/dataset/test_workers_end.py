"""``kill PID`` of ``extract -j 2`` ends its workers and helpers too (issue 29): nothing of the
command is left running holding its output pipes."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import ARCHIVE

ROOT = Path(__file__).resolve().parents[2]


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(x) for x in f.read().split()]
    except FileNotFoundError:
        return []


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="needs Linux /proc")
@pytest.mark.parametrize("after", [0.0, 0.5])     # while the workers start; while they work
def test_killing_extract_ends_its_workers(tmp_path: Path, after: float) -> None:
    if not ARCHIVE.exists():
        pytest.skip("no Tenhou data")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "mjcore.cli", "extract", str(ARCHIVE),
                             "--out", str(tmp_path / "out"), "-j", "2", "--per-part", "10",
                             "--no-progress"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    kids: set[int] = set()
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            for c in _children(proc.pid):
                kids.add(c)
                kids.update(_children(c))          # a forkserver's workers
            if len(kids) >= 3:                     # two workers and the resource tracker
                break
            time.sleep(0.05)
        assert proc.poll() is None and len(kids) >= 3, "the workers never started"
        time.sleep(after)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and any(_alive(k) for k in kids):
            time.sleep(0.1)
        left = {k: Path(f"/proc/{k}/cmdline").read_bytes()[:200] for k in kids if _alive(k)}
        assert not left, f"left running after the command ended: {left}"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for k in kids:                             # a failed run leaves nothing behind
            if _alive(k):
                os.kill(k, signal.SIGKILL)
