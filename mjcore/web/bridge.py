"""JSON to the gRPC service's request messages, through its servicer, and back.

A JSON body is parsed into the protobuf request (``json_format``: the proto field names, enums
by name), answered by the service's own ``HandAnalysisServicer`` method (so the checks, limits
and error reasons are the gRPC service's, word for word) and written back as JSON with the
proto field names and enum names. The servicer ends a failed call through its context's
``abort_with_status``; the context here turns that status's ErrorInfo into an ``ApiError``.
"""
from __future__ import annotations

import math
import time
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from .errors import ApiError, bad_request

# the unary methods the API serves: name -> (request message, response message) names
METHODS = {
    "AnalyzeHand": ("AnalyzeHandRequest", "AnalyzeHandResponse"),
    "Decompose": ("DecomposeRequest", "DecomposeResponse"),
    "Score": ("ScoreRequest", "ScoreResponse"),
    "ScoreClassicalDeal": ("ScoreClassicalDealRequest", "ScoreClassicalDealResponse"),
    "ListRulePresets": ("ListRulePresetsRequest", "ListRulePresetsResponse"),
    "ExpectedValues": ("ExpectedValuesRequest", "ExpectedValuesResponse"),
}


# past a call's seconds, how long its search may take to notice the deadline and stop
_GRACE_SECONDS = 2.0


class _Aborted(Exception):
    def __init__(self, error: ApiError) -> None:
        super().__init__(error.message)
        self.error = error


class _Context:
    """The little of ``grpc.ServicerContext`` the unary methods use."""

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline

    def time_remaining(self) -> float:
        return self.deadline - time.monotonic()

    def is_active(self) -> bool:
        return True

    def abort_with_status(self, status: Any) -> None:
        from mjcore.wire.status import DETAILS_KEY, error_info_of_details

        info = None
        for key, value in status.trailing_metadata or ():
            if key == DETAILS_KEY:
                info = error_info_of_details(value)
        name = status.code.name
        message = status.details or name.lower()
        if info is None:
            raise _Aborted(ApiError(name, message, name))
        raise _Aborted(ApiError(name, message, info.reason, **dict(info.metadata)))


class Bridge:
    """The servicer and the message classes, imported once (the service extra). ``ev``: the
    servicer's expected-value pool and bounds (workers, queue, seconds, nodes)."""

    def __init__(self, ev: dict[str, Any] | None = None) -> None:
        from google.protobuf import json_format

        from mjcore.service.servicer import HandAnalysisServicer
        from mjcore.wire.v1 import analysis_service_pb2, scoring_pb2

        self.json_format = json_format
        self.servicer = HandAnalysisServicer(max_batch=1, **(ev or {}))
        self.messages: dict[str, Any] = {}
        for module in (analysis_service_pb2, scoring_pb2):
            for name in module.DESCRIPTOR.message_types_by_name:
                self.messages[name] = getattr(module, name)

    def request(self, method: str, body: dict[str, Any]) -> Any:
        """The request message of ``method`` from a JSON object (a bad field is one error)."""
        cls = self.messages[METHODS[method][0]]
        try:
            return self.json_format.ParseDict(body, cls())
        except self.json_format.ParseError as err:
            raise bad_request(f"{err}", "BAD_JSON_FIELD") from None

    def call(self, method: str, body: dict[str, Any], seconds: float,
             deadline: float | None = None) -> dict[str, Any]:
        """``method``'s answer to ``body`` as JSON values (raises ApiError), within
        ``seconds`` from now or by ``deadline`` (time.monotonic) when given."""
        req = self.request(method, body)
        if deadline is None:
            deadline = time.monotonic() + seconds
        try:
            answer = getattr(self.servicer, method)(req, _Context(deadline))
        except _Aborted as err:
            raise err.error from None
        if isinstance(answer, bytes):   # AnalyzeHand answers serialized bytes
            answer = self.messages[METHODS[method][1]].FromString(bytes(answer))
        return self.to_json(answer)

    def call_in_pool(self, method: str, body: dict[str, Any], seconds: float
                     ) -> dict[str, Any]:
        """:meth:`call` in the servicer's expected-value pool, as the gRPC ports run
        ExpectedValues: a full pool is RESOURCE_EXHAUSTED, SERVER_BUSY, with Retry-After (its
        hint); the time waiting for a thread counts in ``seconds``."""
        pool = self.servicer.ev_pool
        deadline = time.monotonic() + seconds
        future = pool.submit(self.call, method, body, seconds, deadline)
        if future is None:
            busy = pool.busy()
            err = ApiError("RESOURCE_EXHAUSTED", busy.message, busy.reason,
                           headers={"Retry-After": str(max(1, math.ceil(busy.retry_delay or 1)))})
            err.metadata = dict(busy.metadata)
            raise err
        try:
            answer: dict[str, Any] = future.result(timeout=seconds + _GRACE_SECONDS)
        except FutureTimeout:
            future.cancel()
            raise ApiError("DEADLINE_EXCEEDED", "deadline exceeded", "DEADLINE_EXCEEDED") from None
        return answer

    def to_json(self, message: Any) -> dict[str, Any]:
        """A message as JSON values: proto field names, enums by name, defaults written."""
        out: dict[str, Any] = self.json_format.MessageToDict(
            message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True)
        return out
