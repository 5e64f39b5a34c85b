"""Write mjcore/data/sample_hands.txt: real tenpai hands from the Tenhou cases and seeded
random hands drawn from a shuffled 136-tile wall. Run: python scripts/make_samples.py"""
import gzip
import itertools
import json
import random
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT.parent / "shared" / "data" / "tenhou" / "cases.jsonl.gz"
SUITS = "mpsz"


def mpsz(kinds):
    out = []
    for s in range(4):
        digits = "".join(str(k % 9 + 1) for k in sorted(kinds) if k // 9 == s)
        if digits:
            out.append(digits + SUITS[s])
    return "".join(out)


def main() -> None:
    rng = random.Random(20261129)
    lines = []
    with gzip.open(CASES, "rt") as fh:
        cases = [json.loads(line) for line in itertools.islice(fh, 4000)]
    closed = [c for c in cases if c["menzen"] and not c["melds"]]
    for c in rng.sample(closed, 40):
        lines.append(c["closed_without_win"])
    wall = [k for k in range(34) for _ in range(4)]
    for i in range(60):
        rng.shuffle(wall)
        lines.append(mpsz(wall[: 14 if i % 2 else 13]))
    (ROOT / "mjcore" / "data" / "sample_hands.txt").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
