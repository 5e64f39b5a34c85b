"""The Bradfield archive, read once per test session (tests that need it skip without it,
except in CI, where tests/conftest.py requires the shared data)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

ARCHIVE = Path(__file__).resolve().parents[3] / "shared" / "data" / "classical" / \
    "bradfield-games.tar.xz"


@pytest.fixture(scope="session")
def bradfield_hands():
    if not ARCHIVE.exists():
        if os.environ.get("CI"):
            pytest.fail(f"CI run without the Bradfield archive at {ARCHIVE}")
        pytest.skip("no Bradfield archive")
    from mjcore.classical.history import fewer_collections, read_histories
    with fewer_collections():
        return list(read_histories(ARCHIVE))
