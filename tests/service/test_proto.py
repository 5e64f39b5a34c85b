"""The API definition: generated code is fresh, and the proto follows the house conventions."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from mjcore.service.gen.mjcore.v1 import analysis_service_pb2, scoring_pb2, types_pb2

ROOT = Path(__file__).resolve().parents[2]
PROTOS = sorted((ROOT / "proto" / "mjcore" / "v1").glob("*.proto"))
FILES = (analysis_service_pb2.DESCRIPTOR, scoring_pb2.DESCRIPTOR, types_pb2.DESCRIPTOR)


def test_generated_code_is_fresh():
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_proto.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_package_matches_directory():
    for f in FILES:
        assert f.package == "mjcore.v1"
        assert f.name.startswith("mjcore/v1/")
    assert {Path(f.name).name for f in FILES} == {p.name for p in PROTOS}


def test_request_response_pair_per_rpc():
    service = analysis_service_pb2.DESCRIPTOR.services_by_name["HandAnalysisService"]
    assert {m.name for m in service.methods} == {
        "AnalyzeHand", "Decompose", "Score", "ListRulePresets", "StreamShanten",
        "StreamWaits", "StreamAgari", "StreamScore"}
    for m in service.methods:
        assert m.input_type.name == f"{m.name}Request"
        assert m.output_type.name == f"{m.name}Response"
    streaming = {m.name for m in service.methods if m.name.startswith("Stream")}
    assert streaming == {"StreamShanten", "StreamWaits", "StreamAgari", "StreamScore"}


def _messages(container):
    for m in container.message_types_by_name.values():
        yield m
        yield from _nested(m)


def _nested(m):
    for n in m.nested_types:
        if not n.GetOptions().map_entry:
            yield n
            yield from _nested(n)


def test_fields_lower_snake_and_enums_unspecified_zero():
    for f in FILES:
        for m in _messages(f):
            for field in m.fields:
                assert re.fullmatch(r"[a-z][a-z0-9_]*", field.name), (m.name, field.name)
        for e in f.enum_types_by_name.values():
            prefix = re.sub(r"(?<!^)(?=[A-Z])", "_", e.name).upper()
            assert e.values_by_number[0].name == f"{prefix}_UNSPECIFIED", e.name
            for v in e.values:
                assert v.name.startswith(prefix + "_"), v.name


def test_every_message_field_and_value_is_commented():
    for path in PROTOS:
        lines = path.read_text().splitlines()
        for i, line in enumerate(lines):
            code = line.strip()
            declares = (re.match(r"(message|enum|service|rpc) \w+", code)
                        or re.match(r"(optional |repeated )?[\w.]+ \w+ = \d+;", code)
                        or re.match(r"[A-Z0-9_]+ = \d+;", code)
                        or re.match(r"oneof \w+", code))
            if declares:
                above = lines[i - 1].strip() if i else ""
                assert above.startswith("//"), f"{path.name}:{i + 1}: {code} has no comment"

