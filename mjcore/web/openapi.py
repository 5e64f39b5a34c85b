"""The API's OpenAPI 3.1 document. The schemas of the messages the gRPC service shares are
written from the protobuf descriptors (field names as in the .proto files, enums by name), so
they cannot drift from ``proto/mjcore/v1``; ``review`` has its own."""
from __future__ import annotations

import functools
from typing import Any

_SCALARS = {"TYPE_DOUBLE": "number", "TYPE_FLOAT": "number", "TYPE_BOOL": "boolean",
            "TYPE_STRING": "string", "TYPE_BYTES": "string"}
_INT64 = ("TYPE_INT64", "TYPE_UINT64", "TYPE_SINT64", "TYPE_FIXED64", "TYPE_SFIXED64")


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _message_schemas(descriptor: Any, out: dict[str, Any]) -> None:
    from google.protobuf.descriptor import FieldDescriptor

    if descriptor.name in out:
        return
    props: dict[str, Any] = {}
    out[descriptor.name] = {"type": "object", "additionalProperties": False,
                            "properties": props}
    type_names = {v: k for k, v in vars(FieldDescriptor).items() if k.startswith("TYPE_")}
    for f in descriptor.fields:
        kind = type_names[f.type]
        if kind == "TYPE_MESSAGE":
            _message_schemas(f.message_type, out)
            item: dict[str, Any] = _ref(f.message_type.name)
        elif kind == "TYPE_ENUM":
            enum = f.enum_type
            if enum.name not in out:
                out[enum.name] = {"type": "string", "enum": [v.name for v in enum.values]}
            item = _ref(enum.name)
        elif kind in _INT64:
            item = {"type": "string", "format": "int64"}   # proto3 JSON writes int64 as text
        elif kind in _SCALARS:
            item = {"type": _SCALARS[kind]}
        else:
            item = {"type": "integer"}
        is_repeated = getattr(f, "is_repeated", None)
        repeated = is_repeated if isinstance(is_repeated, bool) else \
            f.label == FieldDescriptor.LABEL_REPEATED
        props[f.name] = {"type": "array", "items": item} if repeated else item


_REVIEW_REQUEST = {
    "type": "object", "additionalProperties": False, "required": ["record"],
    "properties": {
        "record": {"type": "string", "description": "The text of one record: Tenhou mjlog "
                   "XML, mjai JSON lines, tenhou.net/6 JSON or a Bradfield hand history"},
        "seat": {"type": "integer", "minimum": 0, "maximum": 3},
        "ev": {"type": "boolean"},
        "max_shanten": {"type": "integer", "minimum": 0, "maximum": 3}}}
_REVIEW_RESPONSE = {
    "type": "object",
    "properties": {
        "format": {"type": "string", "enum": ["mjlog", "mjai", "tenhou6", "mjs"]},
        "rules": {"type": "string"}, "players": {"type": "integer"},
        "names": {"type": "array", "items": {"type": "string"}},
        "seat": {"type": "integer"}, "ev": {"type": "boolean"},
        "hands": {"type": "array", "items": {"type": "object"}},
        "decisions": {"type": "array", "items": {"type": "object"}},
        "totals": {"type": "object"}}}
_ERROR = {
    "type": "object",
    "properties": {"error": {"type": "object", "properties": {
        "code": {"type": "integer"}, "status": {"type": "string"},
        "message": {"type": "string"},
        "details": {"type": "array", "items": {"type": "object", "properties": {
            "@type": {"type": "string"}, "reason": {"type": "string"},
            "domain": {"type": "string"},
            "metadata": {"type": "object", "additionalProperties": {"type": "string"}}}}}}}}}


def _post(summary: str, request: str, response: str) -> dict[str, Any]:
    errors = {str(code): {"description": what, "content": {"application/json": {
        "schema": _ref("Error")}}} for code, what in (
            (400, "bad input: the reason names it"), (401, "missing or wrong token"),
            (408, "the body came too slowly"), (413, "body too large"),
            (429, "this client's calls in progress are at max_in_flight_per_host "
                  "(TOO_MANY_CALLS) or the expected-value searches are full (SERVER_BUSY): "
                  "retry after Retry-After seconds"),
            (503, "busy: retry after Retry-After seconds"), (504, "out of time"))}
    return {"post": {
        "summary": summary,
        "requestBody": {"required": True, "content": {"application/json": {
            "schema": _ref(request)}}},
        "responses": {"200": {"description": "the answer", "content": {"application/json": {
            "schema": _ref(response)}}}, **errors}}}


@functools.cache
def schema() -> dict[str, Any]:
    """The OpenAPI document."""
    from mjcore import __version__
    from mjcore.wire.v1 import analysis_service_pb2 as pb
    from mjcore.wire.v1 import scoring_pb2 as sp

    schemas: dict[str, Any] = {}
    for msg in (pb.AnalyzeHandRequest, pb.AnalyzeHandResponse, pb.DecomposeRequest,
                pb.DecomposeResponse, sp.ScoreRequest, sp.ScoreResponse,
                sp.ScoreClassicalDealRequest, sp.ScoreClassicalDealResponse,
                pb.ListRulePresetsResponse, pb.ExpectedValuesRequest,
                pb.ExpectedValuesResponse):
        _message_schemas(msg.DESCRIPTOR, schemas)
    from mjcore.wire.v1 import types_pb2

    schemas.setdefault("Wind", {"type": "string",
                                "enum": [v.name for v in types_pb2.Wind.DESCRIPTOR.values]})
    schemas.update(ReviewRequest=_REVIEW_REQUEST, ReviewResponse=_REVIEW_RESPONSE,
                   Error=_ERROR)
    return {
        "openapi": "3.1.0",
        "info": {"title": "mjcore web API", "version": __version__,
                 "description": "JSON mirroring the mjcore.v1 protobuf messages (proto field "
                 "names, enums by name), errors with the gRPC ErrorInfo's reasons. With a "
                 "token configured, send Authorization: Bearer <token>."},
        "components": {"schemas": schemas,
                       "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
        "paths": {
            "/api/v1/analyze": _post("Shanten by form, waits and ukeire of one hand",
                                     "AnalyzeHandRequest", "AnalyzeHandResponse"),
            "/api/v1/decompose": _post("Every decomposition of a complete hand",
                                       "DecomposeRequest", "DecomposeResponse"),
            "/api/v1/score": _post("Score one riichi win", "ScoreRequest", "ScoreResponse"),
            "/api/v1/score_classical": _post("Score one Chinese classical deal",
                                             "ScoreClassicalDealRequest",
                                             "ScoreClassicalDealResponse"),
            "/api/v1/ev": _post("Expected score, win and tenpai probability of each discard",
                                "ExpectedValuesRequest", "ExpectedValuesResponse"),
            "/api/v1/review": _post("Review a game record: the hands step by step and a "
                                    "seat's discard decisions", "ReviewRequest",
                                    "ReviewResponse"),
            "/api/v1/presets": {"get": {"summary": "The rule presets", "responses": {
                "200": {"description": "the presets", "content": {"application/json": {
                    "schema": _ref("ListRulePresetsResponse")}}}}}},
            "/api/v1/health": {"get": {"summary": "Serving status", "responses": {
                "200": {"description": "serving"}}}},
        }}
