from __future__ import annotations

import gzip
import json
import os
import tarfile
from pathlib import Path

import pytest

# the shared data sits beside the checkout (../shared), or where MJCORE_TENHOU_DATA says
REPO = Path(__file__).resolve().parents[2]
DATA = Path(os.environ.get("MJCORE_TENHOU_DATA", REPO / ".." / "shared" / "data" / "tenhou"))


def _need_data() -> None:
    if not (DATA / "mjlog.tar.xz").exists():
        pytest.skip(f"Tenhou data not found at {DATA}")


@pytest.fixture(scope="session")
def tenhou_games() -> list[dict]:
    _need_data()
    with gzip.open(DATA / "games.jsonl.gz", "rt") as f:
        return [json.loads(line) for line in f]


@pytest.fixture(scope="session")
def mjlog_members() -> dict[str, bytes]:
    """Every record of mjlog.tar.xz, read straight from the archive."""
    _need_data()
    out = {}
    with tarfile.open(DATA / "mjlog.tar.xz") as tar:
        for m in tar:
            if m.isfile():
                f = tar.extractfile(m)
                if f is not None:
                    out[m.name] = f.read()
    return out
