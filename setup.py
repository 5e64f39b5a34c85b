"""Build the Cython core.

Compiler directives live here and nowhere else. ``MJCORE_DEBUG=1`` builds with
bounds checks, wraparound checks, assertions and ``-O0 -g``; the test suite runs once
against such a build in CI. OpenMP is used when the compiler accepts ``-fopenmp``.
``MJCORE_ONLY=shanten,scoring`` limits a development build to some modules.

``MJCORE_MARCH`` picks the instruction sets (x86-64):
- ``dispatch`` (the default: ``pip install``, a wheel, ``make build``): the kernels twice, at
  the x86-64 baseline (portable C paths) in ``mjcore/_core/`` and at x86-64-v3 (AVX2, BMI2,
  POPCNT, SSSE3 shuffles) in ``mjcore/_core/x86_64_v3/``; at import ``mjcore._core`` loads the
  best level this CPU runs (``MJCORE_SIMD`` forces one; see ``mjcore/_core/__init__.py``);
- ``baseline``: the portable build only;
- ``native``: one level, the best of x86-64-v3 and x86-64-v2 that the compiler and this CPU have;
- ``x86-64-v2`` or ``x86-64-v3``: that one level, for a fleet known to have it.
Every build writes ``_build_info.json`` into each folder of kernels (the level and debug flag it
used; the top one also lists the levels built); a build asked for another level or mode than the
one recorded there rebuilds every module, so the record and the extensions beside it agree (an
editable ``pip install -e .`` without ``MJCORE_NO_EXTENSIONS`` used to leave baseline extensions
that ``make build`` did not replace). Each kernel also reports the level its code was compiled
for (``BUILT_FOR``, from the compiler's own macros), which ``mjcore info`` shows.
``MJCORE_NO_EXTENSIONS=1`` installs the Python files only (the Makefile's editable install, whose
extensions ``make build`` then compiles in place, incrementally).
The test-only extensions (``TEST_ONLY``: the HTTP/2 front's HPACK wrapper) are compiled only in
place (``make build``, the debug tree) and never installed: a wheel leaves them out.
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
from setuptools.command.install_lib import install_lib

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


X86 = platform.machine().lower() in ("x86_64", "amd64")
MARCH = os.environ.get("MJCORE_MARCH", "dispatch") or "dispatch"
if MARCH not in ("dispatch", "baseline", "native", "x86-64-v2", "x86-64-v3"):
    sys.exit(f"MJCORE_MARCH={MARCH!r}: expected dispatch, baseline, native, x86-64-v2 or "
             "x86-64-v3")
# the higher levels a dispatch build adds, each in its own folder of mjcore/_core (the folder
# name is the level with "_" for "-"); the modules that are not kernels are built once
DISPATCH_LEVELS = ("x86-64-v3",) if X86 and not os.environ.get("MJCORE_NO_SIMD") else ()
ONCE = {"tablegen", "cpu"}


def _simd_flags() -> list[str]:
    """The -march flags MJCORE_MARCH asks for (see the module docstring). MJCORE_NO_SIMD=1 is
    the same as baseline."""
    if MARCH in ("baseline", "dispatch") or os.environ.get("MJCORE_NO_SIMD") or not X86:
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
compile_args = (["-O0", "-g", "-UNDEBUG"] if DEBUG else ["-O3"])
compile_args += os.environ.get("MJCORE_CFLAGS", "").split()
if not DEBUG and sys.platform != "win32":
    compile_args += ["-fno-strict-aliasing"]
link_args = []
if OPENMP:
    compile_args.append("-fopenmp")
    link_args.append("-fopenmp")

extensions = []
# the core's modules, then the service's compiled HTTP/2 front (service/front, installed as
# mjcore.service.front); only mjcore._core gets the dispatch levels' copies (``_variants``)
SOURCES = [("mjcore._core", ROOT / "mjcore" / "_core"),
           ("mjcore.service.front", ROOT / "service" / "front")]
# built for the tests only, in place; never in a wheel (``BuildExt.run``, ``InstallLib``)
TEST_ONLY = {"mjcore.service.front._hpack"}
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
                # the CPU check and the table generator stay portable: the check must run on
                # any CPU before a higher level is loaded
                extra_compile_args=compile_args + ([] if name in ONCE else SIMD),
                extra_link_args=link_args,
            )
        )


def _level_folder(level: str) -> str:
    return level.replace("-", "_")


def _variants(built: list) -> list:
    """The dispatch build's copies of the kernels, one per higher level: the same generated C
    (compiled through a one-line wrapper, so each level has its own object files), a module
    name in the level's folder."""
    if MARCH != "dispatch" or DEBUG:
        return []
    out = []
    for level in DISPATCH_LEVELS:
        folder = ROOT / "build" / "levels" / _level_folder(level)
        for ext in built:
            package, _, name = ext.name.rpartition(".")
            if package != "mjcore._core" or name in ONCE:
                continue
            source = ROOT / ext.sources[0]
            wrapper = folder / f"{name}.c"
            text = f'#include "{source.as_posix()}"\n'
            if not wrapper.exists() or wrapper.read_text() != text:
                folder.mkdir(parents=True, exist_ok=True)
                wrapper.write_text(text)
            out.append(Extension(
                f"{package}.{_level_folder(level)}.{name}", [str(wrapper.relative_to(ROOT))],
                include_dirs=ext.include_dirs, define_macros=ext.define_macros,
                extra_compile_args=ext.extra_compile_args + [f"-march={level}"],
                extra_link_args=ext.extra_link_args, depends=[str(source)] + list(ext.depends)))
    return out


class BuildExt(build_ext):
    """Build the extensions, then generate the shanten tables beside them (when the table
    generator changed) and record the build's flags."""

    extensions: list[Extension]

    def run(self) -> None:
        from setuptools.modified import newer_group

        if not self.inplace:
            self.extensions = [e for e in self.extensions if e.name not in TEST_ONLY]
        if not self.extensions:
            return
        for folder, wanted in self._records().items():
            info = folder / "_build_info.json"
            if info.exists() and json.loads(info.read_text() or "{}") != wanted:
                # built for another instruction set or mode: rebuild all, so the record and
                # the extensions beside it always agree
                if ONLY:
                    sys.exit(f"mjcore: {info} records another build ({info.read_text().strip()}); "
                             "rebuild every module (without MJCORE_ONLY) first")
                self.force = True
        stale = [e.name.removeprefix("mjcore._core.").removeprefix("mjcore.")
                 for e in self.extensions
                 if self.force or newer_group(e.sources + e.depends, self.get_ext_fullpath(e.name))]
        if stale:
            levels = [" ".join(SIMD) or "x86-64 baseline"] + [
                f"{level} in {_level_folder(level)}/"
                for level in self._records()[self._targets()[0]]["levels"]]
            print(f"mjcore: compiling {', '.join(stale)} ({'debug' if DEBUG else 'release'}, "
                  f"{' and '.join(levels)}); about 30 s each at -O3", flush=True)
        for folder in self._records():
            folder.mkdir(parents=True, exist_ok=True)     # a level's folder is not a package
        super().run()
        self._generate_tables()
        self._drop_other_levels()
        for folder, wanted in self._records().items():
            (folder / "_build_info.json").write_text(json.dumps(wanted) + "\n")

    def _targets(self) -> list[Path]:
        # in place, setuptools builds into build_lib and copies from there: both get a record,
        # so that a later wheel built from build_lib never ships another build's extensions
        built = Path(self.build_lib) / "mjcore" / "_core"
        return [ROOT / "mjcore" / "_core", built] if self.inplace else [built]

    def _records(self) -> dict[Path, dict]:
        """Each folder of kernels with the record of its build."""
        levels = list(DISPATCH_LEVELS) if MARCH == "dispatch" and not DEBUG else []
        out = {}
        for top in self._targets():
            out[top] = {"march": MARCH, "flags": SIMD, "debug": DEBUG, "levels": levels}
            for level in levels:
                out[top / _level_folder(level)] = {"march": MARCH, "flags": [f"-march={level}"],
                                                   "debug": DEBUG}
        return out

    def _drop_other_levels(self) -> None:
        """A build of another mode than dispatch removes the level folders an earlier dispatch
        build wrote (only its own files: the extensions and the record), so that mjcore._core
        never loads stale kernels."""
        if MARCH == "dispatch" and not DEBUG:
            return
        for top in self._targets():
            for record in top.glob("x86_64_*/_build_info.json"):
                folder = record.parent
                for ext in folder.glob("*.so"):
                    ext.unlink()
                for ext in folder.glob("*.pyd"):
                    ext.unlink()
                record.unlink()
                if not any(folder.iterdir()):
                    folder.rmdir()

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


class InstallLib(install_lib):
    """Install the build without the test-only extensions, which an in-place build leaves in
    build_lib (a wheel built later from the same build folder copies it whole)."""

    def install(self) -> list[str]:
        outputs = super().install() or []
        dropped = set()
        for module in TEST_ONLY:
            package, _, name = module.rpartition(".")
            for path in Path(self.install_dir, *package.split(".")).glob(f"{name}.*"):
                path.unlink()
                dropped.add(str(path))
        return [out for out in outputs if out not in dropped]


if os.environ.get("MJCORE_NO_EXTENSIONS", "") not in ("", "0"):
    extensions = []

CYTHONIZED = cythonize(extensions, compiler_directives=directives, annotate=False,
                       nthreads=0) if extensions else []

setup(
    packages=(find_packages(include=["mjcore", "mjcore.*"])
              + ["mjcore._core", "mjcore.data", "mjcore.service"]
              + [f"mjcore.service.{p}" for p in find_packages("service")]),
    package_dir={"mjcore.service": "service"},
    ext_modules=CYTHONIZED + _variants(CYTHONIZED),
    cmdclass={"build_ext": BuildExt, "install_lib": InstallLib},
    zip_safe=False,
)
