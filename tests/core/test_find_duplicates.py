"""scripts/find_duplicates.py: repeated blocks by text and by shape, and what it leaves out."""
from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "find_duplicates.py"

BLOCK = """\
def total(rows, weights):
    out = 0
    for row, weight in zip(rows, weights, strict=True):
        if row.ok and weight > 0:
            out += row.value * weight
        else:
            out -= row.value
    return out
"""


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("find_duplicates", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _write(folder: Path, **files: str) -> list[str]:
    for name, text in files.items():
        (folder / name).write_text(text)
    return [str(folder / name) for name in files]


def test_a_block_repeated_in_another_file_is_found_with_its_lines(tmp_path: Path) -> None:
    fd = _load()
    a, b = _write(tmp_path, a="import os\n\n" + BLOCK, b='"""Doc."""\n# note\n' + BLOCK)
    found = fd.find([a, b], 6, shape=False)
    assert found == [(8, f"{a}:3-10", f"{b}:3-10")]


def test_other_names_match_by_shape_only(tmp_path: Path) -> None:
    fd = _load()
    renamed = BLOCK.replace("total", "score").replace("row", "hand").replace("0", "1")
    a, b = _write(tmp_path, a=BLOCK, b=renamed)
    assert fd.find([a, b], 6, shape=False) == []
    assert [f[0] for f in fd.find([a, b], 6, shape=True)] == [8]


def test_docstrings_imports_and_short_blocks_are_not_counted(tmp_path: Path) -> None:
    fd = _load()
    imports = "".join(f"import module_{i}\n" for i in range(8))
    doc = '"""' + "A long docstring line that repeats itself.\n" * 8 + '"""\n'
    five = "".join(f"value_{i} = compute(alpha[{i}], beta[{i}], gamma[{i}], delta[{i}])\n"
                   for i in range(5))
    a, b = _write(tmp_path, a=f"{imports}{doc}{five}end = 1\n", b=f"{imports}{doc}{five}end = 2\n")
    assert fd.find([a, b], 6, shape=False) == []
    assert len(fd.find([a, b], 5, shape=False)) == 1      # the same five lines, by --lines 5
