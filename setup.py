"""Build the Cython core.

Compiler directives live here and nowhere else. ``MJCORE_DEBUG=1`` builds with
bounds checks, wraparound checks, assertions and ``-O0 -g``; the test suite runs once
against such a build in CI. OpenMP is used when the compiler accepts ``-fopenmp``.
``MJCORE_ONLY=shanten,scoring`` limits a development build to some modules.

``MJCORE_MARCH`` picks the instruction set (x86-64):
- ``baseline`` (the default, and what a wheel or ``pip install`` gets): any x86-64 CPU; the
  kernels use their portable C paths;
- ``native``: the best of x86-64-v3 (AVX2, BMI2) and x86-64-v2 (SSSE3, SSE4.1, POPCNT) that the
  compiler and this CPU have (``make build`` uses it; the result runs on this machine only);
- ``x86-64-v2`` or ``x86-64-v3``: that level, for a fleet known to have it.
Every build writes ``mjcore/_core/_build_info.json`` (the level and debug flag it used); a build
asked for another level or mode than the one recorded there rebuilds every module, so the record
and the extensions beside it agree (an editable ``pip install -e .`` without
``MJCORE_NO_EXTENSIONS`` used to leave baseline extensions that ``make build`` did not replace).
``MJCORE_NO_EXTENSIONS=1`` installs the Python files only (the Makefile's editable install, whose
extensions ``make build`` then compiles in place, incrementally).
"""
import json
import os
import platform
import sys
import tempfile
from pathlib import Path

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).parent
DEBUG = os.environ.get("MJCORE_DEBUG", "") not in ("", "0")
ONLY = {m for m in os.environ.get("MJCORE_ONLY", "").split(",") if m}


def _has_openmp() -> bool:
    if os.environ.get("MJCORE_NO_OPENMP"):
        return False
    import subprocess

    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "t.c"
        src.write_text("#include <omp.h>\nint main(void){return omp_get_max_threads() < 0;}\n")
        cc = os.environ.get("CC", "cc")
        try:
            r = subprocess.run([cc, "-fopenmp", str(src), "-o", str(Path(tmp) / "t")],
                               capture_output=True, check=False)
        except OSError:
            return False
        return r.returncode == 0


OPENMP = _has_openmp()


MARCH = os.environ.get("MJCORE_MARCH", "baseline") or "baseline"
if MARCH not in ("baseline", "native", "x86-64-v2", "x86-64-v3"):
    sys.exit(f"MJCORE_MARCH={MARCH!r}: expected baseline, native, x86-64-v2 or x86-64-v3")


def _simd_flags() -> list[str]:
    """The -march flags MJCORE_MARCH asks for (see the module docstring). MJCORE_NO_SIMD=1 is
    the same as baseline."""
    if (MARCH == "baseline" or os.environ.get("MJCORE_NO_SIMD")
            or platform.machine().lower() not in ("x86_64", "amd64")):
        return []
    if MARCH != "native":
        return [f"-march={MARCH}"]
    v2 = ('__builtin_cpu_supports("ssse3") && __builtin_cpu_supports("sse4.1")'
          ' && __builtin_cpu_supports("popcnt")')
    v3 = v2 + ' && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2")'
    for march, test in (("x86-64-v3", v3), ("x86-64-v2", v2)):
        flags = _try_march(march, f"int main(void){{__builtin_cpu_init();return !({test});}}")
        if flags:
            return flags
    return []


def _try_march(march: str, prog: str) -> list[str]:
    import subprocess

    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "t.c"
        src.write_text(prog)
        exe = Path(tmp) / "t"
        cc = os.environ.get("CC", "cc")
        try:
            if subprocess.run([cc, f"-march={march}", str(src), "-o", str(exe)],
                              capture_output=True, check=False).returncode != 0:
                return []
            return [f"-march={march}"] if subprocess.run([str(exe)], check=False).returncode == 0 \
                else []
        except OSError:
            return []


SIMD = _simd_flags()

directives = {
    "language_level": "3",
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "initializedcheck": DEBUG,
    "cdivision": not DEBUG,
    "embedsignature": True,
}
compile_args = (["-O0", "-g", "-UNDEBUG"] if DEBUG else ["-O3"]) + SIMD
compile_args += os.environ.get("MJCORE_CFLAGS", "").split()
if not DEBUG and sys.platform != "win32":
    compile_args += ["-fno-strict-aliasing"]
link_args = []
if OPENMP:
    compile_args.append("-fopenmp")
    link_args.append("-fopenmp")

extensions = []
# the core's modules, then the service's compiled parts (its HTTP/2 front), installed as
# mjcore.service.*
SOURCES = [("mjcore._core", ROOT / "mjcore" / "_core"), ("mjcore.service", ROOT / "service")]
for package, folder in SOURCES:
    for pyx in sorted(folder.glob("*.pyx")):
        name = pyx.stem
        if ONLY and name not in ONLY:
            continue
        extensions.append(
            Extension(
                f"{package}.{name}",
                [str(pyx.relative_to(ROOT))],
                include_dirs=[np.get_include(), str(folder)],
                define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")]
                + ([("CYTHON_TRACE_NOGIL", "0")] if DEBUG else []),
                extra_compile_args=compile_args,
                extra_link_args=link_args,
            )
        )


class BuildExt(build_ext):
    """Build the extensions, then generate the shanten tables beside them (when the table
    generator changed) and record the build's flags."""

    def run(self) -> None:
        from setuptools.modified import newer_group

        if not self.extensions:
            return
        wanted = {"march": MARCH, "flags": SIMD, "debug": DEBUG}
        for folder in self._targets():
            info = folder / "_build_info.json"
            if info.exists() and json.loads(info.read_text() or "{}") != wanted:
                # built for another instruction set or mode: rebuild all, so the record and
                # the extensions beside it always agree
                if ONLY:
                    sys.exit(f"mjcore: {info} records another build ({info.read_text().strip()}); "
                             "rebuild every module (without MJCORE_ONLY) first")
                self.force = True
        stale = [e.name.rsplit(".", 1)[1] for e in self.extensions
                 if self.force or newer_group(e.sources + e.depends, self.get_ext_fullpath(e.name))]
        if stale:
            print(f"mjcore: compiling {', '.join(stale)} ({'debug' if DEBUG else 'release'}, "
                  f"{' '.join(SIMD) or 'x86-64 baseline'}); about 30 s each at -O3", flush=True)
        super().run()
        self._generate_tables()
        for folder in self._targets():
            (folder / "_build_info.json").write_text(json.dumps(wanted) + "\n")

    def _targets(self) -> list[Path]:
        if self.inplace:
            return [ROOT / "mjcore" / "_core"]
        return [Path(self.build_lib) / "mjcore" / "_core"]

    def _generate_tables(self) -> None:
        import importlib.util

        targets = self._targets()
        for ext in self.extensions:
            if ext.name != "mjcore._core.tablegen":
                continue
            built = Path(self.get_ext_fullpath(ext.name))
            if all((t / "shanten_tables.bin").exists()
                   and (t / "shanten_tables.bin").stat().st_mtime >= built.stat().st_mtime
                   for t in targets):
                continue          # the generator did not change since the tables were written
            print("mjcore: generating the shanten tables (17 MB)", flush=True)
            spec = importlib.util.spec_from_file_location(ext.name, built)
            if spec is None or spec.loader is None:
                raise RuntimeError(f"mjcore: cannot load the table generator {built}")
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            for target in targets:
                target.mkdir(parents=True, exist_ok=True)
                mod.write_tables(str(target))


if os.environ.get("MJCORE_NO_EXTENSIONS", "") not in ("", "0"):
    extensions = []

setup(
    packages=(find_packages(include=["mjcore", "mjcore.*"])
              + ["mjcore._core", "mjcore.data", "mjcore.service"]
              + [f"mjcore.service.{p}" for p in find_packages("service")]),
    package_dir={"mjcore.service": "service"},
    ext_modules=cythonize(
        extensions,
        compiler_directives=directives,
        annotate=False,
        nthreads=0,
    ) if extensions else [],
    cmdclass={"build_ext": BuildExt},
    zip_safe=False,
)
