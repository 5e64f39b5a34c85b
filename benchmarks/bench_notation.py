"""Hand text in and out: ``Hand.parse``, ``str(hand)`` and ``parse_counts`` per input shape.

    .venv/bin/python benchmarks/bench_notation.py            # plain table, µs per call
    PYTHONPATH=/some/other/checkout .venv/bin/python benchmarks/bench_notation.py

Inputs are seeded: 13-tile hands drawn from shuffled 136-tile walls (copy 0 of a five is the
red one), written as sorted mpsz (the form ``str`` gives back), with red fives, in shuffled
group order, letter-first, and with one or two called melds. Each figure is the best of
``ROUNDS`` rounds over the whole corpus, so a noisy neighbour raises it less than a median.
"""
from __future__ import annotations

import os
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

if "PYTHONPATH" not in os.environ:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mjcore.hand import Hand, parse_counts

SEED = 20261201
N_HANDS = 2_000
ROUNDS = int(os.environ.get("MJCORE_BENCH_ROUNDS", "7"))
SUITS = "mpsz"


def _groups(ids: list[int], red: bool) -> list[str]:
    out = []
    for s in range(4):
        digits = ["0" if red and t in (16, 52, 88) else str(t // 4 % 9 + 1)
                  for t in sorted(ids) if t // 36 == s]
        if digits:
            out.append("".join(digits) + SUITS[s])
    return out


def corpus(seed: int = SEED, n: int = N_HANDS) -> dict[str, list[str]]:
    """Hand texts by shape, ``n`` of each."""
    rng = random.Random(seed)
    shapes: dict[str, list[str]] = {k: [] for k in (
        "plain sorted", "red fives", "shuffled groups", "letter-first", "with melds")}
    while len(shapes["plain sorted"]) < n:
        wall = list(range(136))
        rng.shuffle(wall)
        hand = wall[:13]
        shapes["plain sorted"].append("".join(_groups(hand, red=False)))
        shapes["red fives"].append("".join(_groups(hand, red=True)))
        groups = _groups(hand, red=False)
        rng.shuffle(groups)
        shapes["shuffled groups"].append("".join(groups))
        shapes["letter-first"].append("".join(g[-1] + g[:-1] for g in _groups(hand, red=True)))
        kind = rng.choice([27, 28, 31, 32, 33])       # an honour pon from a free kind
        rest = [t for t in wall[13:] if t // 4 != kind][:7]
        melds = f" pon:{kind - 26}{kind - 26}{kind - 26}z<{rng.randint(1, 3)}"
        if rng.random() < 0.5:
            melds += " chi:324m"
            rest = [t for t in rest if t // 4 not in (1, 2, 3)]
        shapes["with melds"].append("".join(_groups(rest, red=True)) + melds)
    return shapes


def best_of(fn: Callable[[str], object], texts: list[str]) -> float:
    """Best per-call time in µs over ROUNDS passes of ``fn`` over ``texts``."""
    best = float("inf")
    for _ in range(ROUNDS):
        t0 = time.perf_counter()
        for t in texts:
            fn(t)
        best = min(best, time.perf_counter() - t0)
    return best / len(texts) * 1e6


def main() -> None:
    import mjcore.hand

    print(f"mjcore from {Path(mjcore.hand.__file__).parent}")
    shapes = corpus()
    hands = {name: [Hand.parse(t) for t in texts] for name, texts in shapes.items()}
    print(f"{'shape':<16} {'Hand.parse':>11} {'format()':>10} {'parse_counts':>13}  (µs/call)")
    for name, texts in shapes.items():
        parse = best_of(Hand.parse, texts)
        fmt = best_of(Hand.format, hands[name])           # type: ignore[arg-type]
        counts = best_of(parse_counts, texts)
        print(f"{name:<16} {parse:>11.2f} {fmt:>10.2f} {counts:>13.2f}")


if __name__ == "__main__":
    main()
