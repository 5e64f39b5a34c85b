"""Suite-wide checks. In CI the real Tenhou data must be present: tests that use it skip on a
developer machine without ../shared, but a CI run without it must fail, not pass quietly."""
import os
from pathlib import Path

import pytest

TENHOU = Path(__file__).resolve().parents[2] / "shared" / "data" / "tenhou"


def pytest_sessionstart(session: pytest.Session) -> None:
    if os.environ.get("CI") and not (TENHOU / "cases.jsonl.gz").exists():
        raise pytest.UsageError(f"CI run without the Tenhou data at {TENHOU}")
