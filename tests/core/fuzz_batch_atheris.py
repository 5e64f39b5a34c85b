"""atheris fuzz harness for the batch entry points (run by hand, not collected by pytest).

    .venv/bin/python tests/core/fuzz_batch_atheris.py -atheris_runs=200000

Against a debug build (bounds checks, -O0) in a copy, so the shared checkout is untouched:

    mkdir /tmp/mjdebug && tar cf - --exclude=./.venv --exclude=./build --exclude='*.so' . \
        | tar xf - -C /tmp/mjdebug
    cd /tmp/mjdebug && MJCORE_DEBUG=1 MJCORE_ONLY=batch,shanten,tablegen \
        /work/main/.venv/bin/python setup.py build_ext --inplace
    PYTHONPATH=/tmp/mjdebug /work/main/.venv/bin/python tests/core/fuzz_batch_atheris.py \
        -max_total_time=600

With AddressSanitizer: build a second copy the same way plus
``MJCORE_CFLAGS="-fsanitize=address -fno-omit-frame-pointer" LDFLAGS=-fsanitize=address``
(leave tablegen out of MJCORE_ONLY and copy shanten_tables.bin from the debug copy: the build
cannot load an ASan module), then run with
``ASAN_OPTIONS=detect_leaks=0 LD_PRELOAD=$(gcc -print-file-name=libasan.so)``.
The compiled kernels are not coverage-instrumented (gcc has no -fsanitize=fuzzer), so the
fuzzer is guided by the Python wrappers' coverage and the checks below.

Each input becomes a batch (rows of counts and meld numbers in some memory layout) for one of
shanten / is_agari / waits / ukeire, a bytes buffer for shanten_text, or words for
pack/unpack. The result must be InvalidHandError or a BatchResult that marks exactly the
invalid rows and agrees with the single-hand API on the good ones (the checks of
test_fuzz_batch.py). Anything else, including a crash, is a finding.
"""
from __future__ import annotations

import sys
from pathlib import Path

import atheris

ROOT = Path(__file__).resolve().parents[2]
sys.path.append(str(ROOT))  # run from a checkout; PYTHONPATH, if set, comes first

with atheris.instrument_imports():
    import numpy as np

    from mjcore import batch
    from mjcore.errors import InvalidHandError

from tests.core.test_fuzz_batch import OPS, check_result, check_text, layout, run_op

OP_NAMES = list(OPS)
LAYOUTS = ["c", "strided", "fortran", "readonly", "rows_reversed", "int64", "uint16"]


def _row(fdp: atheris.FuzzedDataProvider) -> tuple[list[int], int]:
    mode = fdp.ConsumeIntInRange(0, 3)
    if mode <= 1:  # tiles by kind: mostly legal, sometimes a fifth copy or a wrong size
        melds = fdp.ConsumeIntInRange(0, 5)
        size = max(0, fdp.ConsumeIntInRange(12, 15) - 3 * melds)
        row = [0] * 34
        for _ in range(size):
            row[fdp.ConsumeIntInRange(0, 33)] += 1
        return row, melds
    if mode == 2:  # small counts anywhere
        return [b % 5 for b in fdp.ConsumeBytes(34).ljust(34, b"\0")], fdp.ConsumeIntInRange(0, 6)
    return list(fdp.ConsumeBytes(34).ljust(34, b"\0")), fdp.ConsumeIntInRange(0, 255)


def test_one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    what = fdp.ConsumeIntInRange(0, 6)
    threads = fdp.ConsumeIntInRange(1, 2)
    if what < 4:
        op = OP_NAMES[what]
        rows = [_row(fdp) for _ in range(fdp.ConsumeIntInRange(0, 6))]
        counts = np.array([r for r, _ in rows], dtype=np.int64).reshape(len(rows), 34)
        melds = np.array([m for _, m in rows], dtype=np.int64)
        how = LAYOUTS[fdp.ConsumeIntInRange(0, len(LAYOUTS) - 1)]
        res = run_op(op, layout(counts.astype(np.uint8), how), melds.astype(np.uint8), threads)
        check_result(op, res, counts, melds)
    elif what == 4:
        check_text(fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 512)), threads)
    elif what == 5:
        # lines of mpsz-ish text, so the parser gets past the first character more often
        alphabet = b"0123456789mpsz \t\r\n"
        raw = fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 256))
        check_text(bytes(alphabet[b % len(alphabet)] for b in raw), threads)
    else:
        n = fdp.ConsumeIntInRange(0, 4)
        words = np.frombuffer(fdp.ConsumeBytes(16 * n).ljust(16 * n, b"\0"),
                              dtype=np.uint32).reshape(n, 4)
        counts = batch.unpack(words)
        try:
            packed = batch.pack(counts)
        except InvalidHandError:
            assert counts.max() > 4
            return
        assert np.array_equal(batch.unpack(packed), counts)


def main() -> None:
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
