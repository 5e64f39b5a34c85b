"""Every exception class is declared once, in ``mjcore/errors.py``; the modules that first
declared one re-export it, so old imports give the same class."""
from __future__ import annotations

import ast
import importlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from mjcore import errors

ROOT = Path(__file__).resolve().parents[2]
SUFFIXES = ("Error", "Exception", "Mismatch", "Skipped", "Timeout")
# the service's own: RpcError is its gRPC answer (it needs grpc and the service's limits);
# the rest end a call or a wait inside the service and never reach a caller
SERVICE_OWN = {("service/errors.py", "RpcError"), ("service/guard.py", "Aborted"),
               ("service/front/server.py", "Aborted"), ("service/limits.py", "ReceiveTimeout"),
               ("service/limits.py", "Evicted")}

OLD_PATHS = [
    ("mjcore.client", "ServiceError"), ("mjcore.web.errors", "ApiError"),
    ("mjcore.web.errors", "DOMAIN"), ("mjcore.wire.status", "DOMAIN"),
    ("mjcore.web.review", "ReviewTimeout"), ("mjcore.riichi.mjai", "MjaiError"),
    ("mjcore.riichi.replay", "ReplayMismatch"), ("mjcore.engine.turns", "EngineError"),
    ("mjcore.engine", "EngineError"), ("mjcore.riichi.invariants", "InvariantError"),
    ("mjcore.classical.history", "HistoryError"),
    ("mjcore.classical.engine.bradfield", "RecordError"),
    ("mjcore.classical.engine.records", "RecordMismatch"),
    ("mjcore.classical.engine.agents", "AgentError"),
    ("mjcore.classical.engine.invariants", "InvariantError"),
    ("mjcore.classical.engine.referee", "EngineError"), ("mjcore.files", "InputSkipped"),
]


def _declared_classes() -> list[tuple[str, str]]:
    found = []
    for top in ("mjcore", "service"):
        for path in sorted((ROOT / top).rglob("*.py")):
            name = path.relative_to(ROOT).as_posix()
            if name.startswith(("mjcore/service/", "mjcore/wire/v1/")):
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in tree.body:          # module level: a class inside a function is local
                if isinstance(node, ast.ClassDef) and not node.name.startswith("_") and \
                        node.name.endswith(SUFFIXES):
                    found.append((name, node.name))
    return found


def test_every_exception_class_is_declared_in_errors_py() -> None:
    elsewhere = [c for c in _declared_classes()
                 if c[0] != "mjcore/errors.py" and c not in SERVICE_OWN]
    assert elsewhere == []


@pytest.mark.parametrize(("module", "name"), OLD_PATHS)
def test_an_old_import_path_gives_the_one_class(module: str, name: str) -> None:
    assert getattr(importlib.import_module(module), name) is getattr(errors, name)


def test_one_class_for_each_kind_of_error() -> None:
    assert errors.ReplayMismatch is errors.RecordMismatch
    assert errors.MjaiError is errors.AgentError
    from mjcore.classical.engine.invariants import InvariantError as Classical
    from mjcore.riichi.invariants import InvariantError as Riichi

    assert Classical is Riichi is errors.InvariantError


def test_a_riichi_replay_mismatch_names_its_event_and_reason() -> None:
    exc = errors.ReplayMismatch("event 7: discard 1m instead of 2m", 7, {"type": "dahai"}, None)
    assert isinstance(exc, errors.InvalidHandError)
    assert (exc.reason, exc.index, exc.expected, exc.got) == ("mismatch", 7, {"type": "dahai"},
                                                              None)


def test_a_history_error_has_a_reason_code_and_its_detail(tmp_path: Path) -> None:
    from mjcore.classical.history import iter_histories, parse_history

    with pytest.raises(errors.HistoryError) as info:
        parse_history("Player 1 A\n", "broken.mjs")
    err = info.value
    assert (err.reason, err.line) == ("bad_history", None)
    assert err.detail == "expected 4 Player lines, found 1"
    assert str(err) == "broken.mjs: expected 4 Player lines, found 1"
    (tmp_path / "gone").mkdir()
    missing = next(iter(iter_histories([tmp_path / "gone" / "x.mjs"])))
    assert isinstance(missing, errors.HistoryError) and missing.reason == "missing"


def test_the_history_check_writes_the_detail_as_its_json_error(tmp_path: Path) -> None:
    from mjcore.cli import main

    (tmp_path / "broken.mjs").write_text("Player 1 A\n")
    r = CliRunner().invoke(main, ["score", "--rules", "bradfield", "--history",
                                  str(tmp_path / "broken.mjs"), "--json"])
    first = json.loads(r.output.splitlines()[0])
    assert first["error"] == "expected 4 Player lines, found 1"


def test_a_review_error_without_a_reason_is_bad_record() -> None:
    pytest.importorskip("starlette")
    from mjcore.web.ev import _reason

    assert _reason(errors.RecordError("hand 3: the record's pung is not offered")) == \
        "BAD_RECORD"
    assert _reason(errors.InvalidHandError("x", reason="bad_tile")) == "BAD_TILE"
