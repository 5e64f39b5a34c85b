"""The wheel carries what the package needs, not the 9 MB of C that Cython generates nor the
modules built for the tests only."""
from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_wheel_ships_no_generated_c_sources(tmp_path):
    generated = list((ROOT / "mjcore" / "_core").glob("*.c"))
    assert generated, "build first: the test needs the generated C beside the .pyx files"
    # the extensions themselves are left out (MJCORE_NO_EXTENSIONS) to keep this quick: the
    # files that go in are chosen the same way either way
    r = subprocess.run(
        [sys.executable, "setup.py", "-q", "build", "--build-base", str(tmp_path / "build"),
         "egg_info", "--egg-base", str(tmp_path),
         "bdist_wheel", "--bdist-dir", str(tmp_path / "bdist"), "--dist-dir", str(tmp_path)],
        cwd=ROOT, env={**os.environ, "MJCORE_NO_EXTENSIONS": "1"}, capture_output=True,
        text=True, timeout=600, check=False)
    assert r.returncode == 0, r.stderr[-3000:]
    (wheel,) = tmp_path.glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert not [n for n in names if n.endswith(".c")]
    assert not [n for n in names if "_hpack" in n]
    for needed in ("mjcore/_core/shanten.pxd", "mjcore/_core/minplus.h", "mjcore/py.typed",
                   "mjcore/cli/__init__.py", "mjcore/riichi/rules.py",
                   "mjcore/service/__init__.py", "mjcore/service/front/server.py",
                   "mjcore/service/front/_http2.pyi", "mjcore/data/sample_hands.txt",
                   "mjcore/wire/__init__.py", "mjcore/wire/layout.py",
                   "mjcore/wire/v1/analysis_service_pb2.py",
                   "mjcore/wire/v1/analysis_service_pb2.pyi",
                   "mjcore/wire/v1/analysis_service_pb2_grpc.py",
                   # the web page's files (no build step, no CDN)
                   "mjcore/web/static/index.html", "mjcore/web/static/app.js",
                   "mjcore/web/static/tiles.js", "mjcore/web/static/app.css",
                   "mjcore/web/static/TILES-LICENSE.txt"):
        assert needed in names, needed
    # the library installs without grpc: the gRPC packages are the client and service extras
    meta = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("/METADATA")))
    requires = [line for line in meta.decode().splitlines() if line.startswith("Requires-Dist")]
    plain = [r for r in requires if "extra ==" not in r]
    assert plain and not [r for r in plain if "grpc" in r or "protobuf" in r], plain
    assert any("grpcio" in r and "extra == \"client\"" in r for r in requires), requires


def test_the_wheel_leaves_the_test_only_hpack_wrapper_out(tmp_path):
    """The HTTP/2 front's HPACK wrapper is compiled for the tests only, in place: a wheel leaves
    it out even when an in-place build left it in the build folder the wheel is made from
    (``make build``, then ``pip wheel .``)."""
    lib = tmp_path / "lib"
    front = lib / "mjcore" / "service" / "front"
    front.mkdir(parents=True)
    (front / f"_hpack{sysconfig.get_config_var('EXT_SUFFIX')}").write_bytes(b"")
    r = subprocess.run(
        [sys.executable, "setup.py", "-q", "build", "--build-base", str(tmp_path / "build"),
         "--build-lib", str(lib), "egg_info", "--egg-base", str(tmp_path),
         "bdist_wheel", "--bdist-dir", str(tmp_path / "bdist"), "--dist-dir", str(tmp_path)],
        cwd=ROOT, env={**os.environ, "MJCORE_ONLY": "_hpack"}, capture_output=True, text=True,
        timeout=600, check=False)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "compiling" not in r.stdout, r.stdout       # not built outside the tree either
    (wheel,) = tmp_path.glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "mjcore/service/front/_http2.pyi" in names
    assert not [n for n in names if "_hpack" in n], names
