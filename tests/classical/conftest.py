"""The Bradfield archive, read once per test session (tests that need it skip without it,
except in CI, where tests/conftest.py requires the shared data)."""
from __future__ import annotations

import pytest

from tests.conftest import need_bradfield_archive


@pytest.fixture(scope="session")
def bradfield_hands():
    archive = need_bradfield_archive()
    from mjcore.classical.history import fewer_collections, read_histories
    with fewer_collections():
        return list(read_histories(archive))
