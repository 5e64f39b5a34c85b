"""Bradfield's games for the classical engine tests: a few games read from the archive once."""
from __future__ import annotations

import os
import tarfile
from pathlib import Path

import pytest

# the shared data sits beside the checkout (../shared)
REPO = Path(__file__).resolve().parents[3]
ARCHIVE = REPO / ".." / "shared" / "data" / "classical" / "bradfield-games.tar.xz"


def need_archive() -> Path:
    if not ARCHIVE.exists():
        if os.environ.get("CI"):
            pytest.fail(f"CI run without the Bradfield archive at {ARCHIVE}")
        pytest.skip("no Bradfield archive")
    return ARCHIVE


@pytest.fixture(scope="session")
def bradfield_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The whole archive unpacked into a temporary folder (one pass over the .tar.xz)."""
    archive = need_archive()
    out = tmp_path_factory.mktemp("bradfield")
    with tarfile.open(archive, "r|*") as tar:
        for m in tar:
            if m.isfile() and ".." not in m.name and not m.name.startswith("/"):
                f = tar.extractfile(m)
                if f is not None:
                    dest = out / m.name
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    dest.write_bytes(f.read())
    return out
