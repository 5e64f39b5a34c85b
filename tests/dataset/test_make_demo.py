"""`make demo TENHOU=PATH`: the documented knob works after a first `make demo` on other records.

The Makefile's recipe is read with `make -n` (nothing built); its extract commands then run on two
one-record archives made from the shipped one, in a scratch folder, one after the other."""
from __future__ import annotations

import shlex
import subprocess
import sys
import tarfile
from pathlib import Path

from .conftest import ARCHIVE

ROOT = Path(__file__).resolve().parents[2]


def demo_commands(*make_args: str) -> list[list[str]]:
    r = subprocess.run(["make", "-n", "demo", *make_args], cwd=ROOT, capture_output=True,
                       text=True, check=True)
    return [shlex.split(line) for line in r.stdout.splitlines()
            if line.startswith(".venv/bin/mjcore ") and " --file " not in line]


def one_record_archives(folder: Path, count: int) -> list[Path]:
    out: list[Path] = []
    with tarfile.open(ARCHIVE) as tar:
        for member in tar:
            if member.isfile() and member.name.endswith(".xml"):
                path = folder / f"records-{len(out)}.tar"
                with tarfile.open(path, "w") as small:
                    small.addfile(member, tar.extractfile(member))
                out.append(path)
                if len(out) == count:
                    return out
    raise AssertionError(f"fewer than {count} mjlog records in {ARCHIVE}")


def test_the_default_demo_keeps_its_folder():
    extract, analyze, report = demo_commands()
    assert extract[1:] == ["extract", "../shared/data/tenhou/mjlog.tar.xz", "--out",
                           "build/demo/extract"]
    assert analyze[-1] == "build/demo/analysis" and report[-1] == "build/demo/plots"


def test_tenhou_path_runs_after_a_demo_of_other_records(tmp_path):
    first, second = one_record_archives(tmp_path, 2)
    work = tmp_path / "checkout"
    work.mkdir()
    outs = set()
    for archive in (first, second, first):       # each run after another input's run
        extract, analyze, report = demo_commands(f"TENHOU={archive}")
        assert extract[:3] == [".venv/bin/mjcore", "extract", str(archive)]
        out = extract[extract.index("--out") + 1]
        assert analyze[2] == out and out.startswith("build/demo/")  # analyse reads that extract
        assert report[2] == analyze[analyze.index("--out") + 1]
        outs.add(out)
        r = subprocess.run([sys.executable, "-m", "mjcore.cli", *extract[1:], "--no-progress",
                            "--workers", "1"], cwd=work, capture_output=True, text=True,
                           check=False)
        assert r.returncode == 0, r.stderr
    assert len(outs) == 2
