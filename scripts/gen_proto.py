"""Generate the Python gRPC code for proto/mjcore/v1/*.proto into mjcore/wire/v1/.

The wire contract lives in ``mjcore.wire``, which the client and the service both import. The
generated modules import each other as ``mjcore.v1``; that name would collide with our own
``mjcore`` package, so the imports are rewritten to ``mjcore.wire.v1``. The output is
committed; ``--check`` regenerates into a temporary directory and fails if anything differs
(tests/service/test_proto.py runs it).

    python scripts/gen_proto.py           # regenerate
    python scripts/gen_proto.py --check   # exit 1 if the committed code is stale
"""
from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = ROOT / "proto"
PROTO_DIR = PROTO_ROOT / "mjcore" / "v1"
OUT_DIR = ROOT / "mjcore" / "wire" / "v1"
GEN_PACKAGE = "mjcore.wire.v1"
_IMPORT = re.compile(r"^from mjcore\.v1 import ", re.MULTILINE)
_INIT = '"""Generated from proto/mjcore/v1 by scripts/gen_proto.py; do not edit."""\n'


def proto_files() -> list[Path]:
    return sorted(PROTO_DIR.glob("*.proto"))


def generate(out_root: Path) -> dict[str, str]:
    """Run protoc into ``out_root``; return {file name: rewritten text} of the v1 package."""
    import grpc_tools
    from grpc_tools import protoc

    include = str(Path(grpc_tools.__file__).parent / "_proto")
    args = ["grpc_tools.protoc", f"-I{PROTO_ROOT}", f"-I{include}",
            f"--python_out={out_root}", f"--pyi_out={out_root}",
            f"--grpc_python_out={out_root}"]
    args += [str(p.relative_to(PROTO_ROOT)) for p in proto_files()]
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed")
    result = {"__init__.py": _INIT}
    for path in sorted((out_root / "mjcore" / "v1").glob("*.py*")):
        result[path.name] = _IMPORT.sub(f"from {GEN_PACKAGE} import ", path.read_text())
    return result


def current() -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(OUT_DIR.glob("*.py*"))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="fail if the committed generated code is not fresh")
    opts = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        fresh = generate(Path(tmp))
    if opts.check:
        have = current()
        stale = sorted(name for name in fresh.keys() | have.keys()
                       if fresh.get(name) != have.get(name))
        if stale:
            print("stale generated code: " + ", ".join(stale)
                  + " (run: python scripts/gen_proto.py)", file=sys.stderr)
            return 1
        return 0
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    for old in OUT_DIR.glob("*.py*"):
        if old.name not in fresh:
            old.unlink()
    for name, text in fresh.items():
        (OUT_DIR / name).write_text(text)
    print(f"generated {len(fresh)} files in {OUT_DIR.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
