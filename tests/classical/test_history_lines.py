"""The history reader's logical lines (``history._logical_lines``) against a plain reference:
split at LF, drop one trailing CR, join a line ending in a backslash with the next."""
from __future__ import annotations

import random

from mjcore.classical.history import _logical_lines, read_history_text


def reference_lines(text: str) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    buf: list[str] = []
    start = 0
    for i, raw in enumerate(text.split("\n"), 1):
        if raw.endswith("\r"):
            raw = raw[:-1]
        if raw.endswith("\\"):
            if not buf:
                start = i
            buf.append(raw[:-1])
        elif buf:
            buf.append(raw)
            out.append((start, "\n".join(buf)))
            buf = []
        else:
            out.append((i, raw))
    if buf:
        out.append((start, "\n".join(buf)))
    return out


def test_logical_lines_match_the_reference_on_random_texts() -> None:
    rng = random.Random(7)
    pieces = ["a", " ", "\n", "\r", "\r\n", "\\", "\\\r\n", "\\\n", "\r\r\n"]
    for _ in range(20_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(16)))
        assert list(_logical_lines(text)) == reference_lines(text), repr(text)


def test_crlf_history_reads_as_lf_history() -> None:
    lf = ("Player 1 A\nPlayer 2 B\nPlayer 3 C\nPlayer 4 D\n"
          "Game 1 2 3 4 E 0 1 0 0 0 0 1110 1\nWall 1B 2B 3B\n"
          "HandScore 1 4 1 special     4 (flowers and seasons)\\\ntotal pts     4\\\n"
          "total dbls    0\\\nSCORE:        4\n")
    crlf = lf.replace("\n", "\r\n")
    assert list(_logical_lines(crlf)) == list(_logical_lines(lf)) == reference_lines(lf)
    assert read_history_text(crlf).scores == read_history_text(lf).scores
