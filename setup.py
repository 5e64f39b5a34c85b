"""Build the Cython core.

Compiler directives live here and nowhere else. ``MJCORE_DEBUG=1`` builds with
bounds checks, wraparound checks, assertions and ``-O0 -g``; the test suite runs once
against such a build in CI. OpenMP is used when the compiler accepts ``-fopenmp``.
``MJCORE_ONLY=shanten,scoring`` limits a development build to some modules.
"""
import os
import platform
import sys
import tempfile
from pathlib import Path

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup
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


def _simd_flags() -> list[str]:
    """-march=x86-64-v3 (AVX2, BMI2) or -v2 (SSSE3, SSE4.1, POPCNT) when the compiler and this
    CPU have it; the kernels fall back to portable C otherwise. MJCORE_NO_SIMD=1 forces the
    fallback. The build is for the machine it runs on (pip install from source)."""
    if os.environ.get("MJCORE_NO_SIMD") or platform.machine().lower() not in ("x86_64", "amd64"):
        return []
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
    """Build the extensions, then generate the shanten tables beside them."""

    def run(self) -> None:
        super().run()
        self._generate_tables()

    def _generate_tables(self) -> None:
        import importlib.util

        targets = []
        if self.inplace:
            targets.append(ROOT / "mjcore" / "_core")
        else:
            targets.append(Path(self.build_lib) / "mjcore" / "_core")
        for ext in self.extensions:
            if ext.name != "mjcore._core.tablegen":
                continue
            built = Path(self.get_ext_fullpath(ext.name))
            spec = importlib.util.spec_from_file_location(ext.name, built)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            for target in targets:
                target.mkdir(parents=True, exist_ok=True)
                mod.write_tables(str(target))


setup(
    packages=["mjcore", "mjcore._core", "mjcore.cli", "mjcore.engine", "mjcore.riichi", "mjcore.service",
              "mjcore.service.gen", "mjcore.service.gen.mjcore", "mjcore.service.gen.mjcore.v1"],
    package_dir={"mjcore.service": "service"},
    ext_modules=cythonize(
        extensions,
        compiler_directives=directives,
        build_dir="build/cython-debug" if DEBUG else None,
        annotate=False,
        nthreads=0,
    ),
    cmdclass={"build_ext": BuildExt},
    zip_safe=False,
)
