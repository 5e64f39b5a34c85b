"""Suite-wide checks and fixtures. In CI the real Tenhou data must be present: tests that use
it skip on a developer machine without ../shared, but a CI run without it must fail, not pass
quietly. The fixtures: small subsets of the shipped Tenhou archive, extracted and analysed
(the dataset and command tests use them), and Bradfield's archive unpacked."""
import os
import tarfile
from pathlib import Path

import pytest

TENHOU = Path(__file__).resolve().parents[2] / "shared" / "data" / "tenhou"


def pytest_sessionstart(session: pytest.Session) -> None:
    if os.environ.get("CI") and not (TENHOU / "cases.jsonl.gz").exists():
        raise pytest.UsageError(f"CI run without the Tenhou data at {TENHOU}")


TENHOU_DATA = Path(os.environ.get("MJCORE_TENHOU_DATA", TENHOU))
CLASSICAL_DATA = Path(os.environ.get("MJCORE_CLASSICAL_DATA",
                                     Path(__file__).resolve().parents[2] / "shared" / "data"
                                     / "classical"))
BRADFIELD_ARCHIVE = CLASSICAL_DATA / "bradfield-games.tar.xz"


def need_bradfield_archive() -> Path:
    """The Bradfield archive's path; the test skips without it (fails in CI)."""
    if not BRADFIELD_ARCHIVE.exists():
        if os.environ.get("CI"):
            pytest.fail(f"CI run without the Bradfield archive at {BRADFIELD_ARCHIVE}")
        pytest.skip("no Bradfield archive")
    return BRADFIELD_ARCHIVE


@pytest.fixture(scope="session")
def bradfield_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The whole Bradfield archive unpacked into a temporary folder (one pass over the .tar.xz)."""
    archive = need_bradfield_archive()
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
TENHOU_ARCHIVE = TENHOU_DATA / "mjlog.tar.xz"

# members of the archive the tests use: complete games from several sources, sanma records,
# prefix-truncated copies and games with calls, kans and double wins
SPECIAL = ("encdec-chankan-ippatsu",)     # ippatsu kept by a ron that robs an added kan
WANTED_PER_SOURCE = {"thewaxmango-mahjong-hands": 10, "mjx-project-mjx": 6,
                     "dnovikoff-tenhou": 14, "rmss-tenhou-paifu-to-json": 7}


@pytest.fixture(scope="session")
def records() -> dict[str, bytes]:
    """A few dozen records of the archive (name -> bytes), in archive order."""
    if not TENHOU_ARCHIVE.exists():
        pytest.skip(f"Tenhou data not found at {TENHOU_DATA}")
    taken: dict[str, int] = {}
    out: dict[str, bytes] = {}
    with tarfile.open(TENHOU_ARCHIVE) as tar:
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
    pytest.importorskip("pyarrow")
    pytest.importorskip("pandas")
    from mjcore.dataset.extraction import extract

    return extract(str(records_dir), workers=1, records_per_partition=8)


@pytest.fixture(scope="session")
def analysed_table(extract_table):
    from mjcore.dataset.analysis_columns import analyze_table

    return analyze_table(extract_table, n_threads=2)
