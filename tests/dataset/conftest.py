"""Fixtures of the dataset tests: small subsets of the shipped Tenhou archive."""
from __future__ import annotations

import os
import tarfile
from pathlib import Path

import pytest

pytest.importorskip("pyarrow")
pytest.importorskip("pandas")

# the shared data sits beside the checkout (../shared), or where MJCORE_TENHOU_DATA says
REPO = Path(__file__).resolve().parents[2]
DATA = Path(os.environ.get("MJCORE_TENHOU_DATA", REPO / ".." / "shared" / "data" / "tenhou"))
ARCHIVE = DATA / "mjlog.tar.xz"

# members of the archive the tests use: complete games from several sources, sanma records,
# prefix-truncated copies and games with calls, kans and double wins
SPECIAL = ("encdec-chankan-ippatsu",)     # ippatsu kept by a ron that robs an added kan
WANTED_PER_SOURCE = {"thewaxmango-mahjong-hands": 10, "mjx-project-mjx": 6,
                     "dnovikoff-tenhou": 14, "rmss-tenhou-paifu-to-json": 7}


@pytest.fixture(scope="session")
def records() -> dict[str, bytes]:
    """A few dozen records of the archive (name -> bytes), in archive order."""
    if not ARCHIVE.exists():
        pytest.skip(f"Tenhou data not found at {DATA}")
    taken: dict[str, int] = {}
    out: dict[str, bytes] = {}
    with tarfile.open(ARCHIVE) as tar:
        for m in tar:
            if not m.isfile():
                continue
            source = m.name.split("/", 1)[0]
            special = any(w in m.name for w in SPECIAL)
            if taken.get(source, 0) >= WANTED_PER_SOURCE.get(source, 0) and not special:
                continue
            f = tar.extractfile(m)
            if f is not None:
                taken[source] = taken.get(source, 0) + 1
                out[m.name] = f.read()
    return out


@pytest.fixture(scope="session")
def records_dir(records: dict[str, bytes], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The records as files in a folder (their archive paths kept)."""
    root = tmp_path_factory.mktemp("records")
    for name, data in records.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return root


@pytest.fixture(scope="session")
def extract_table(records_dir: Path):
    """The in-memory extract of ``records_dir`` (one process)."""
    from mjcore.dataset.extraction import extract

    return extract(str(records_dir), workers=1, records_per_partition=8)


@pytest.fixture(scope="session")
def analysed_table(extract_table):
    from mjcore.dataset.analysis import analyze_table

    return analyze_table(extract_table, n_threads=2)
