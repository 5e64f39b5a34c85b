"""Batch Chinese classical scoring (all four hands and the settlement of a finished deal) beside
riichi's ``mjcore.batch.score`` in the same run.

    .venv/bin/python benchmarks/bench_classical.py [--rows 200000] [--rounds 7] [--threads 1]

The classical input is every finished deal of the 300 Bradfield games (rebuilt from the
histories by ``mjcore.classical.bradfield.deal_from_history``), repeated to ``--rows`` rows;
the riichi input is the seeded random-win corpus of ``bench_scoring.py``. Prints the median
of ``--rounds`` timed calls for each, in hands per second on ``--threads`` threads.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from timing import median_times

HERE = Path(__file__).resolve().parent
ARCHIVE = HERE.parents[1] / "shared" / "data" / "classical" / "bradfield-games.tar.xz"


def classical_arrays(rows: int) -> dict[str, np.ndarray]:
    from mjcore.classical.batch import pack_deals
    from mjcore.classical.bradfield import deal_from_history
    from mjcore.classical.history import read_histories

    deals = [deal_from_history(h) for h in read_histories(ARCHIVE) if h.finished]
    packed = pack_deals(deals)
    reps = -(-rows // len(deals))
    return {k: np.ascontiguousarray(np.concatenate([v] * reps)[:rows]) for k, v in packed.items()}


def riichi_arrays(rows: int) -> dict[str, np.ndarray]:
    sys.path.insert(0, str(HERE.parent / "tests" / "scoring"))
    from random_hands import random_wins

    from mjcore.riichi.batch_scoring import pack_prepared

    base = min(rows, 20000)
    arrays = pack_prepared([h.kernel_args() for h in random_wins(base, 20240601)])
    reps = -(-rows // base)
    return {k: np.ascontiguousarray(np.concatenate([v] * reps)[:rows]) for k, v in arrays.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=200000)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    from mjcore.batch import score as riichi_score
    from mjcore.classical.batch import score_deals

    c = classical_arrays(args.rows)
    r = riichi_arrays(args.rows)
    res = score_deals(**c, rules="bradfield", n_threads=args.threads)
    assert not res.status.any(), "bad classical rows"
    n = args.rows
    for _ in range(2):          # interleaved, so both see the same machine
        w_c, c_c = median_times(
            lambda: score_deals(**c, rules="bradfield", n_threads=args.threads), args.rounds)
        w_r, c_r = median_times(lambda: riichi_score(**r, n_threads=args.threads),
                                args.rounds)
    print(f"{n} rows, {args.threads} thread(s), median of {args.rounds}; wall / CPU time")
    print(f"classical batch score (4 hands + settlement): {n / w_c / 1e6:.2f} / "
          f"{n / c_c / 1e6:.2f} M deals/s")
    print(f"riichi mjcore.batch.score (the winner):       {n / w_r / 1e6:.2f} / "
          f"{n / c_r / 1e6:.2f} M hands/s")
    print(f"classical / riichi (CPU): {c_r / c_c:.2f}")


if __name__ == "__main__":
    main()
