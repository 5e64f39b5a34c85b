"""Blocks of six or more logical lines that stand twice in the tree (issue 17, "Done means").

    python scripts/find_duplicates.py [--shape] [--lines N] [PATH ...]

Compares Python sources a logical line at a time, comments and docstrings left out. By default two
blocks match when their code is the same text; with ``--shape`` also when they differ only in
names, numbers and strings (the same code with other variables). Generated code (``*_pb2*.py``)
is skipped. Prints one line per pair of blocks, longest first; exits 1 when it found any.
"""
from __future__ import annotations

import argparse
import io
import keyword
import sys
import tokenize
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PATHS = ("mjcore", "service", "tests", "benchmarks", "scripts", "setup.py")
MIN_TOKENS = 32        # a window with fewer tokens (brackets, `else:`, `pass`) is not a block
SKIP = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
        tokenize.ENCODING, tokenize.ENDMARKER}

# an f-string is one STRING token up to Python 3.11, three kinds of token from 3.12
FSTRING_PARTS = {getattr(tokenize, n) for n in ("FSTRING_MIDDLE", "FSTRING_END", "TSTRING_MIDDLE",
                                                "TSTRING_END") if hasattr(tokenize, n)}
STRINGS = {tokenize.STRING} | FSTRING_PARTS | {
    getattr(tokenize, n) for n in ("FSTRING_START", "TSTRING_START") if hasattr(tokenize, n)}

Line = tuple[int, tuple[str, ...]]     # (first physical line, its tokens)


def logical_lines(source: str, shape: bool) -> list[Line]:
    """The file's logical lines as token tuples; imports and a line that is only a string (a
    docstring) are left out. With ``shape``, names become N, numbers 0 and strings S."""
    out: list[Line] = []
    current: list[str] = []
    only_strings = True
    start = 0
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.NEWLINE:
                if current and not only_strings and current[0] not in ("import", "from"):
                    out.append((start, tuple(current)))
                current, only_strings = [], True
            elif tok.type not in SKIP:
                if not current:
                    start = tok.start[0]
                current.append(normal(tok, shape))
                only_strings = only_strings and tok.type in STRINGS
    except (tokenize.TokenError, SyntaxError):
        pass                   # a file that does not parse is compared up to the error
    return out


def normal(tok: tokenize.TokenInfo, shape: bool) -> str:
    if not shape:
        return tok.string
    if tok.type == tokenize.NAME and not keyword.iskeyword(tok.string):
        return "N"
    if tok.type == tokenize.NUMBER:
        return "0"
    if tok.type in STRINGS:
        return "" if tok.type in FSTRING_PARTS else "S"
    return tok.string


def sources(paths: list[str]) -> Iterator[Path]:
    for name in paths:
        path = Path(name)
        files = sorted(path.rglob("*.py")) if path.is_dir() else [path]
        for f in files:
            if "_pb2" not in f.name and ".venv" not in f.parts and "build" not in f.parts:
                yield f


def find(paths: list[str], n_lines: int, shape: bool) -> list[tuple[int, str, str]]:
    """(length in logical lines, first block, second block) for every maximal repeated block."""
    files = {str(f): logical_lines(f.read_text(errors="replace"), shape) for f in sources(paths)}
    where: dict[tuple[tuple[str, ...], ...], list[tuple[str, int]]] = defaultdict(list)
    for name, lines in files.items():
        for i in range(len(lines) - n_lines + 1):
            window = tuple(tokens for _, tokens in lines[i:i + n_lines])
            if sum(len(t) for t in window) >= MIN_TOKENS:
                where[window].append((name, i))
    pairs: set[tuple[str, int, str, int]] = set()
    for places in where.values():
        for a in range(len(places)):
            for b in range(a + 1, len(places)):
                (fa, ia), (fb, ib) = places[a], places[b]
                if fa != fb or abs(ia - ib) >= n_lines:       # not a block overlapping itself
                    pairs.add((fa, ia, fb, ib))
    found = []
    for fa, ia, fb, ib in pairs:
        if (fa, ia - 1, fb, ib - 1) in pairs:
            continue                                           # inside a longer block
        k = 1
        while (fa, ia + k, fb, ib + k) in pairs:
            k += 1
        la, lb = files[fa], files[fb]
        end = k + n_lines - 1
        found.append((end, f"{fa}:{la[ia][0]}-{la[ia + end - 1][0]}",
                      f"{fb}:{lb[ib][0]}-{lb[ib + end - 1][0]}"))
    return sorted(found, key=lambda f: (-f[0], f[1]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="*", default=list(DEFAULT_PATHS))
    parser.add_argument("--lines", type=int, default=6, help="the shortest block (default 6)")
    parser.add_argument("--shape", action="store_true",
                        help="also blocks that differ only in names, numbers and strings")
    args = parser.parse_args()
    found = find(args.paths, args.lines, args.shape)
    for length, first, second in found:
        print(f"{length:3d} lines  {first}  {second}")
    print(f"{len(found)} repeated blocks of {args.lines}+ logical lines"
          f"{' (text or shape)' if args.shape else ''}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
