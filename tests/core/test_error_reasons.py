"""Every error reason the code gives is one of ``mjcore.status.REASONS``, and every row of the
table is used.

The check reads the source (``ast``), nothing is imported: a reason is a string given as the
``reason`` of an error or problem (``reason=``, or the positional place of a ``reason``
parameter of an error class or of a function that builds one), a default of such a
parameter, an error class's ``reason`` attribute, the default of ``getattr(x, "reason", ...)``,
or a string compared with an error's ``.reason``. Wire reasons (UPPER_SNAKE_CASE) are the
library's reasons upper-cased. A reason built at run time (an f-string) cannot be checked and
is reported too.
"""
from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from mjcore.errors import InvalidHandError
from mjcore.hand import Hand
from mjcore.status import REASONS, STATUSES
from mjcore.tiles import format_tiles, to_136

ROOT = Path(__file__).resolve().parents[2]
# generated protobuf code and the service's link inside the package are not ours to read
SKIPPED = ("mjcore/wire/v1/", "mjcore/service/")
ERROR_SUFFIXES = ("Error", "Exception", "Mismatch", "Skipped", "Timeout", "Problem")
# calls whose argument is a reason spelled another way (the table's, on the wire)
SPELLINGS = {"wire_reason", "library_reason", "reason_code", "str"}


@dataclass
class Findings:
    """What the check found: ``uses`` every reason seen (where), ``strays`` those not in the
    table, ``unchecked`` reasons built at run time."""

    uses: dict[str, list[str]] = field(default_factory=dict)
    strays: list[str] = field(default_factory=list)
    unchecked: list[str] = field(default_factory=list)


def _is_error_name(name: str) -> bool:
    return name.endswith(ERROR_SUFFIXES)


def _callee(node: ast.Call) -> str:
    f = node.func
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute):
        return f.attr
    return ""


def _reason_index(args: ast.arguments, method: bool) -> int | None:
    names = [a.arg for a in args.posonlyargs + args.args]
    if method and names:
        names = names[1:]
    return names.index("reason") if "reason" in names else None


def _passes_reason_to_error(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and _is_error_name(_callee(node)):
            given = list(node.args) + [k.value for k in node.keywords]
            if any(isinstance(a, ast.Name) and a.id == "reason" for a in given):
                return True
    return False


def _annotation_name(node: ast.expr | None) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def error_builders(trees: Iterable[ast.Module]) -> dict[str, int | None]:
    """name -> the positional index of its ``reason`` parameter (None: keyword only) of every
    error class and every function that builds an error from its ``reason`` parameter."""
    found: dict[str, set[int | None]] = {}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and _is_error_name(node.name):
                index: int | None = None
                fields = [s.target.id for s in node.body if isinstance(s, ast.AnnAssign)
                          and isinstance(s.target, ast.Name)]
                if "reason" in fields:
                    index = fields.index("reason")
                for s in node.body:
                    if isinstance(s, ast.FunctionDef) and s.name == "__init__":
                        index = _reason_index(s.args, method=True)
                found.setdefault(node.name, set()).add(index)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                index = _reason_index(node.args, method=False)
                if index is None and not any(a.arg == "reason" for a in node.args.kwonlyargs):
                    continue
                if _is_error_name(_annotation_name(node.returns)) or \
                        _passes_reason_to_error(node):
                    if node.args.args and node.args.args[0].arg in ("self", "cls") \
                            and index is not None:
                        index -= 1
                    found.setdefault(node.name, set()).add(index)
    # a name two definitions disagree on is checked by keyword only
    return {name: next(iter(ix)) if len(ix) == 1 else None for name, ix in found.items()}


def _walk_scope(body: Iterable[ast.AST]) -> Iterator[ast.AST]:
    """The nodes of one scope: not those of the functions and classes defined in it."""
    todo = list(body)
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                 ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))


class _Collector(ast.NodeVisitor):
    def __init__(self, where: str, builders: dict[str, int | None], out: Findings) -> None:
        self.where = where
        self.builders = builders
        self.out = out
        self.scopes: list[dict[str, list[ast.expr]]] = [{}]
        self.error_class = False

    # ---- names: the values assigned to them, in the function or the module
    def _assignments(self, body: Iterable[ast.AST]) -> dict[str, list[ast.expr]]:
        values: dict[str, list[ast.expr]] = {}
        for sub in _walk_scope(body):
            if isinstance(sub, ast.Assign):
                for t in sub.targets:
                    if isinstance(t, ast.Name):
                        values.setdefault(t.id, []).append(sub.value)
            elif isinstance(sub, ast.AnnAssign) and isinstance(sub.target, ast.Name) \
                    and sub.value is not None:
                values.setdefault(sub.target.id, []).append(sub.value)
        return values

    def visit_Module(self, node: ast.Module) -> None:
        self.scopes = [self._assignments(node.body)]
        self.generic_visit(node)

    def _visit_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        if node.name in self.builders or (node.name == "__init__" and self.error_class):
            args = node.args
            positional = args.posonlyargs + args.args
            for a, d in zip(positional[len(positional) - len(args.defaults):], args.defaults,
                            strict=True):
                if a.arg == "reason":
                    self.reasons(d, node.name)
            for a, kd in zip(args.kwonlyargs, args.kw_defaults, strict=True):
                if a.arg == "reason" and kd is not None:
                    self.reasons(kd, node.name)
        scope = self._assignments(node.body)
        for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs:
            scope.setdefault(a.arg, [])         # a parameter: what the caller gives
        self.scopes.append(scope)
        self.generic_visit(node)
        self.scopes.pop()

    visit_FunctionDef = _visit_function
    visit_AsyncFunctionDef = _visit_function

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        outer, self.error_class = self.error_class, _is_error_name(node.name)
        if self.error_class:
            for s in node.body:
                if isinstance(s, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "reason"
                                                     for t in s.targets):
                    self.reasons(s.value, node.name)
        self.generic_visit(node)
        self.error_class = outer

    # ---- the places a reason is given or read
    def visit_Call(self, node: ast.Call) -> None:
        name = _callee(node)
        if name in self.builders or _is_error_name(name):
            index = self.builders.get(name)
            if index is not None and index < len(node.args) and \
                    not any(isinstance(a, ast.Starred) for a in node.args[:index + 1]):
                self.reasons(node.args[index], name)
        for k in node.keywords:
            if k.arg == "reason":
                self.reasons(k.value, name or "call")
        if name == "getattr" and len(node.args) == 3 and _is_reason_name(node.args[1]):
            self.reasons(node.args[2], "getattr")
        if name == "get" and isinstance(node.func, ast.Attribute) and node.args and \
                _reads_reason(node.args[0]):
            table = self._resolve_table(node.func.value)
            if table is not None:
                for key in table.keys:
                    if key is not None:
                        self.reasons(key, "lookup")
        self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        sides = [node.left, *node.comparators]
        if any(_reads_reason(s) for s in sides):
            for s in sides:
                if not _reads_reason(s):
                    self.reasons(s, "comparison")
        self.generic_visit(node)

    def _resolve_table(self, node: ast.expr) -> ast.Dict | None:
        if isinstance(node, ast.Dict):
            return node
        if isinstance(node, ast.Name):
            for scope in reversed(self.scopes):
                for value in scope.get(node.id, []):
                    if isinstance(value, ast.Dict):
                        return value
        return None

    # ---- a reason expression -> the strings it can be
    def reasons(self, node: ast.expr, via: str, depth: int = 0) -> None:
        at = f"{self.where}:{node.lineno} ({via})"
        if depth > 4:
            return
        if isinstance(node, ast.Constant):
            if isinstance(node.value, str) and node.value:
                self.out.uses.setdefault(node.value.lower(), []).append(at)
                if node.value.lower() not in REASONS:
                    self.out.strays.append(f"{at}: {node.value!r}")
        elif isinstance(node, ast.JoinedStr):
            self.out.unchecked.append(f"{at}: {ast.unparse(node)}")
        elif isinstance(node, ast.IfExp):
            self.reasons(node.body, via, depth + 1)
            self.reasons(node.orelse, via, depth + 1)
        elif isinstance(node, ast.BoolOp):
            for v in node.values:
                if not _reads_reason(v):
                    self.reasons(v, via, depth + 1)
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            for v in node.elts:
                self.reasons(v, via, depth + 1)
        elif isinstance(node, ast.Call) and _callee(node) in SPELLINGS and node.args:
            self.reasons(node.args[0], via, depth + 1)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
            self.out.unchecked.append(f"{at}: {ast.unparse(node)}")
        elif isinstance(node, ast.Name):
            for scope in reversed(self.scopes):
                if node.id in scope:
                    for value in scope[node.id]:
                        self.reasons(value, via, depth + 1)
                    break


def _is_reason_name(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value == "reason"


def _reads_reason(node: ast.expr) -> bool:
    """``x.reason`` or ``getattr(x, "reason", ...)`` (an error's reason)."""
    if isinstance(node, ast.Attribute):
        return node.attr == "reason"
    return isinstance(node, ast.Call) and _callee(node) == "getattr" and len(node.args) >= 2 \
        and _is_reason_name(node.args[1])


def check_sources(sources: dict[str, str], builders: dict[str, int | None] | None = None
                  ) -> Findings:
    """The reasons of ``sources`` (name -> Python text), against ``REASONS``."""
    trees = {name: ast.parse(text, name) for name, text in sources.items()}
    if builders is None:
        builders = error_builders(trees.values())
    out = Findings()
    for name, tree in trees.items():
        # a name the module defines is that definition (handcalc's _bad is not service's)
        own = {n.name for n in ast.walk(tree)
               if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
        seen = {k: v for k, v in builders.items() if k not in own}
        seen.update(error_builders([tree]))
        _Collector(name, seen, out).visit(tree)
    return out


def package_sources() -> dict[str, str]:
    """The Python source of mjcore/ and service/ (name relative to the repository)."""
    def files() -> Iterator[Path]:
        for top in ("mjcore", "service"):
            yield from sorted((ROOT / top).rglob("*.py"))

    out = {}
    for path in files():
        name = path.relative_to(ROOT).as_posix()
        if not name.startswith(SKIPPED):
            out[name] = path.read_text(encoding="utf-8")
    return out


def _package_findings() -> Findings:
    return check_sources(package_sources())


def test_every_reason_in_the_code_is_in_the_table() -> None:
    found = _package_findings()
    assert found.strays == []


def test_no_reason_is_built_at_run_time() -> None:
    assert _package_findings().unchecked == []


def test_every_reason_is_declared_once_in_lower_snake_case() -> None:
    from mjcore.status import _OTHER_REASONS

    names = [s.reason for s in STATUSES] + [r for r, _ in _OTHER_REASONS]
    assert len(names) == len(set(names)) == len(REASONS)
    assert [r for r in names if not r.replace("_", "").isalnum() or r != r.lower()] == []
    assert all(REASONS[r].means for r in names)
    assert REASONS["bad_seats"].wire == "BAD_SEATS" and REASONS["bad_seats"].code == -21


def test_every_row_of_the_table_is_used() -> None:
    used = _package_findings().uses
    # the kernels return the statuses' reasons (the compiled code, not read here)
    kernel = {s.reason for s in STATUSES}
    dead = sorted(r for r in REASONS if r not in used and r not in kernel)
    assert dead == []


def test_the_check_finds_every_kind_of_use() -> None:
    source = '''
class ThingError(Exception):
    reason = "planted_attribute"

    def __init__(self, message, code, reason="planted_default"):
        super().__init__(message)
        self.reason = reason

def make(message, reason) -> ThingError:
    return ThingError(message, 0, reason)

def fail(err, bad):
    why = "planted_name" if bad else "bad_tile"
    if err.reason == "planted_compare" or getattr(err, "reason", "planted_getattr"):
        raise ThingError("x", 1, "planted_positional")
    raise make("y", why)

def other(err):
    raise ValueError(reason="planted_keyword") if {"planted_key": 1}.get(err.reason) else \\
        make("z", f"bad_{err}")
'''
    found = check_sources({"planted.py": source})
    strays = sorted(s.split("'")[1] for s in found.strays)
    assert strays == sorted(["planted_attribute", "planted_default", "planted_name",
                             "planted_compare", "planted_getattr", "planted_positional",
                             "planted_keyword", "planted_key"])
    assert "bad_tile" in found.uses
    assert len(found.unchecked) == 1 and "bad_" in found.unchecked[0]


def test_a_stray_planted_in_the_package_is_found() -> None:
    sources = package_sources()
    builders = error_builders(ast.parse(t) for t in sources.values())
    sources["mjcore/planted.py"] = (
        "from mjcore.errors import InvalidHandError\n"
        "def f():\n    raise InvalidHandError('x', reason='tile_not_in_hand')\n"
        "def g(text):\n    from mjcore.tiles import _fail\n"
        "    raise _fail(text, 'empty_hand', None, 'no tiles')\n")
    found = check_sources(sources, builders)
    assert [s.split(": ", 1)[1] for s in found.strays] == ["'tile_not_in_hand'", "'empty_hand'"]


def test_ordinary_strings_are_not_reasons() -> None:
    source = '''
def settle(ev, reason):
    reason = "exhaustive"
    emit({"type": "ryukyoku", "reason": reason})
    if ev["reason"] == "sanchaho":
        return item_dict("pung", reason="concealed")
'''
    found = check_sources({"draws.py": source})
    # item_dict is not an error builder, but ``reason=`` is read wherever it is given
    assert [s.split(": ", 1)[1] for s in found.strays] == ["'concealed'"]


# ---- the merged synonyms, as the callers see them


@pytest.mark.parametrize("call", [
    lambda: Hand.from_tiles([0, 1], [False]),
    lambda: format_tiles([0, 1], [False]),
    lambda: to_136([0, 1], [False]),
])
def test_lists_of_lengths_that_differ_are_bad_shape(call) -> None:
    with pytest.raises(InvalidHandError) as info:
        call()
    assert info.value.reason == "bad_shape" and "differ in length" in str(info.value)


def test_an_unknown_tile_of_a_record_is_bad_tile() -> None:
    from mjcore.classical.engine.records import read_lines
    from mjcore.riichi.events import from_mjai_lines

    with pytest.raises(InvalidHandError) as info:
        from_mjai_lines(['{"type":"start_game"}', '{"type":"start_kyoku","bakaze":"E",'
                         '"kyoku":1,"honba":0,"kyotaku":0,"oya":0,"dora_marker":"9z",'
                         '"tehais":[["1m"],["1m"],["1m"],["1m"]]}'], "x.json")
    assert info.value.reason == "bad_tile" and "9z" in str(info.value)
    with pytest.raises(InvalidHandError) as info:
        read_lines(['{"type": "discard", "seat": 0, "tile": "ZZ"}'], "x.jsonl")
    assert info.value.reason == "bad_tile" and "ZZ" in str(info.value)


def test_the_client_refuses_a_wind_as_bad_seats_before_any_call() -> None:
    pytest.importorskip("grpc")
    from mjcore.client import Client

    with Client("127.0.0.1:9", timeout=0.3, retries=0) as c:   # nothing listens there
        with pytest.raises(InvalidHandError) as info:
            c.score("123m456p789s1122z", "1z", seat_wind="X")
        assert info.value.reason == "bad_seats" and "seat_wind 'X'" in str(info.value)
