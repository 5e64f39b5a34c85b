"""Mirror the source tree into another folder (``make debug-build`` builds there), copying only
the files that changed so the build in the copy stays incremental.

    python scripts/sync_tree.py build/debug-tree

The files are git's (tracked, and untracked ones that are not ignored); without git, every file
outside build/, .venv/ and .git/. Files the source no longer has are removed from the copy;
build products (.c, .so, .o, the shanten tables, caches) are left alone. In the copy,
``mjcore/service`` links to ``service/`` (the editable install maps it so in the source tree),
and, when the shared data sits beside the checkout (``../shared``), ``build/shared`` links to it
so the tests find it at the same relative place.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KEEP_SUFFIXES = {".c", ".so", ".o", ".bin"}
KEEP_PARTS = {"__pycache__", "build", ".hypothesis", ".pytest_cache", ".benchmarks"}


def source_files() -> list[str]:
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard"], cwd=ROOT, capture_output=True, check=True)
        return [f for f in out.stdout.decode().split("\0") if f and (ROOT / f).is_file()]
    except (OSError, subprocess.CalledProcessError):
        skip = {"build", ".venv", ".git"}
        return [str(p.relative_to(ROOT)) for p in ROOT.rglob("*")
                if p.is_file() and not skip & set(p.relative_to(ROOT).parts)]


def sync(target: Path) -> int:
    files = source_files()
    wanted = set(files)
    copied = 0
    for rel in files:
        src, dst = ROOT / rel, target / rel
        st = src.stat()
        if dst.exists() and not dst.is_symlink():
            dt = dst.stat()
            if dt.st_size == st.st_size and int(dt.st_mtime) == int(st.st_mtime):
                continue
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)
        copied += 1
    for path in list(target.rglob("*")):
        rel_path = path.relative_to(target)
        if (path.is_file() and not path.is_symlink() and str(rel_path) not in wanted
                and path.suffix not in KEEP_SUFFIXES and not KEEP_PARTS & set(rel_path.parts)
                and rel_path.name not in ("_build_info.json", ".build.lock")):
            path.unlink()
    link = target / "mjcore" / "service"
    if not link.is_symlink():
        link.symlink_to(os.path.relpath(target / "service", link.parent))
    shared = ROOT.parent / "shared"
    beside = target.parent / "shared"
    if shared.is_dir() and not beside.exists():
        beside.symlink_to(os.path.relpath(shared, beside.parent))
    return copied


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python scripts/sync_tree.py TARGET")
    tgt = Path(sys.argv[1]).resolve()
    n = sync(tgt)
    print(f"{tgt}: {n} file(s) copied from {ROOT}")
