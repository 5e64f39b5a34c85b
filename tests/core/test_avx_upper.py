"""No compiled function of the x86-64-v3 kernels returns with the upper halves of the ymm
registers dirty (issue 28): GCC 12 left vzeroupper out of some return paths (advance_forms,
ukeire_forms, ...), and the interpreter's SSE code after a one-hand call then ran ~3x slower.
The check follows each function's control flow in its disassembly: a path that touches a ymm
register (or calls a function that returns so) and reaches a return or a tail call with no
vzeroupper after it. Only the functions called from outside the module must be clean."""
from __future__ import annotations

import importlib
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import mjcore._core as core
from mjcore.build import KERNELS

_FUNCTION = re.compile(r"\n(?=[0-9a-f]+ <)")
_HEAD = re.compile(r"([0-9a-f]+) <([^>]+)>:")
_LINE = re.compile(r"\s*([0-9a-f]+):\s+(.*)")
_TARGET = re.compile(r"\b([0-9a-f]+) <")


def _dirty_exit(instructions: list[tuple[int, str]], dirty_callees: set[str]) -> bool:
    """Whether some path leaves the function with a ymm register touched since the last
    vzeroupper. A call leaves the registers as the callee does: dirty for ``dirty_callees``,
    clean for the others (as the ABI asks). Jumps through a table are not followed."""
    at = {address: i for i, (address, _) in enumerate(instructions)}
    seen: set[tuple[int, bool]] = set()
    work = [(0, False)]
    while work:
        i, dirty = work.pop()
        while i < len(instructions) and (i, dirty) not in seen:
            seen.add((i, dirty))
            text = instructions[i][1]
            op = text.split()[0] if text else ""
            found = _TARGET.search(text)
            if op in ("vzeroupper", "vzeroall"):
                dirty = False
            elif "%ymm" in text or (op == "call" and found
                                    and _callee(text) in dirty_callees):
                dirty = True
            if op.startswith("ret"):
                if dirty:
                    return True
                break
            if op.startswith("j"):
                target = at.get(int(found.group(1), 16)) if found else None
                if op == "jmp":
                    if target is None:      # a tail call (or a jump table: not followed)
                        if dirty and found:
                            return True
                        break
                    i = target
                    continue
                if target is not None:
                    work.append((target, dirty))
            i += 1
    return False


def _callee(text: str) -> str:
    return text.partition("<")[2].partition(">")[0].partition("@")[0]


def dirty_functions(path: Path) -> set[str]:
    """The functions of a shared object that can return with the upper ymm halves dirty,
    through their own code or a call to one that does (to a fixed point)."""
    text = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(path)],
                          capture_output=True, text=True, check=True).stdout
    functions = {}
    for block in _FUNCTION.split(text):
        head = _HEAD.match(block)
        if head:
            functions[head.group(2)] = [(int(m.group(1), 16), m.group(2).strip())
                                        for m in map(_LINE.match, block.splitlines()[1:]) if m]
    dirty: set[str] = set()
    while True:
        now = {name for name, code in functions.items() if _dirty_exit(code, dirty)}
        if now == dirty:
            return dirty
        dirty = now


def entry_points(module: str, names: set[str]) -> list[str]:
    """The functions that code outside the module calls: its Python entry points (Cython's
    ``__pyx_pw_`` wrappers) and the C functions other modules cimport (``__pyx_capi__``)."""
    capi = getattr(importlib.import_module(f"mjcore._core.{module}"), "__pyx_capi__", {})
    exported = {f"_{len(module)}{module}_{name}" for name in capi}
    return sorted(n for n in names if n.startswith("__pyx_pw_6mjcore_5_core_")
                  or (n.startswith("__pyx_f_6mjcore_5_core_")
                      and any(n.endswith(e) for e in exported)))


def test_the_check_sees_a_missing_vzeroupper():
    clean = [(0, "vpand %ymm1,%ymm2,%ymm3"), (4, "je 10 <f+0x10>"), (8, "vzeroupper"),
             (9, "ret"), (16, "vzeroupper"), (17, "ret")]
    dirty = [(0, "vpand %ymm1,%ymm2,%ymm3"), (4, "je 10 <f+0x10>"), (8, "vzeroupper"),
             (9, "ret"), (16, "ret")]
    assert not _dirty_exit(clean, set()) and _dirty_exit(dirty, set())
    calls = [(0, "call 20 <g>"), (5, "ret")]
    assert _dirty_exit(calls, {"g"}) and not _dirty_exit(calls, {"h"})


@pytest.mark.parametrize("name", KERNELS)
def test_no_kernel_returns_with_the_upper_ymm_halves_dirty(name: str):
    folder = core.HERE / "x86_64_v3"
    found = sorted(folder.glob(f"{name}.*.so"))
    if shutil.which("objdump") is None or not found:
        pytest.skip("objdump or the x86-64-v3 build is missing")
    dirty = dirty_functions(found[0])
    assert entry_points(name, dirty) == []
