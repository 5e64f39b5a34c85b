"""The dataset tests need pyarrow and pandas; their records (fixtures in tests/conftest.py) are
small subsets of the shipped Tenhou archive."""
from __future__ import annotations

import pytest

pytest.importorskip("pyarrow")
pytest.importorskip("pandas")

from tests.conftest import TENHOU_ARCHIVE as ARCHIVE  # noqa: F401  (the fixtures' archive)
