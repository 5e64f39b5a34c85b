"""The JSON API's errors: Google's JSON error form (AIP-193) with the gRPC service's ErrorInfo.

``{"error": {"code": 400, "status": "INVALID_ARGUMENT", "message": ..., "details":
[{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": ..., "domain": "mjcore.dev",
"metadata": {"field": ...}}]}}``: the same reasons, messages and metadata the gRPC service puts
in its ErrorInfo for the same input, and a few of HTTP's own (body, JSON, overload).
"""
from __future__ import annotations

from typing import Any

DOMAIN = "mjcore.dev"
ERROR_INFO_TYPE = "type.googleapis.com/google.rpc.ErrorInfo"

# gRPC status name -> HTTP status (google.rpc.Code's HTTP mapping)
HTTP_OF_STATUS = {
    "INVALID_ARGUMENT": 400, "FAILED_PRECONDITION": 400, "OUT_OF_RANGE": 400,
    "UNAUTHENTICATED": 401, "PERMISSION_DENIED": 403, "NOT_FOUND": 404,
    "RESOURCE_EXHAUSTED": 429, "CANCELLED": 499, "INTERNAL": 500, "UNAVAILABLE": 503,
    "DEADLINE_EXCEEDED": 504,
}


class ApiError(Exception):
    """An error answer: HTTP ``http`` (by default the status's), the gRPC status name, the
    ErrorInfo reason and metadata, and headers (Retry-After, WWW-Authenticate)."""

    def __init__(self, status: str, message: str, reason: str, *, http: int | None = None,
                 headers: dict[str, str] | None = None, **metadata: object) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.reason = reason
        self.http = http if http is not None else HTTP_OF_STATUS.get(status, 500)
        self.headers = headers or {}
        self.metadata = {k: str(v) for k, v in metadata.items() if v is not None}

    def body(self) -> dict[str, Any]:
        """The JSON of the answer."""
        return {"error": {"code": self.http, "status": self.status, "message": self.message,
                          "details": [{"@type": ERROR_INFO_TYPE, "reason": self.reason,
                                       "domain": DOMAIN, "metadata": self.metadata}]}}


def bad_request(message: str, reason: str, **metadata: object) -> ApiError:
    """INVALID_ARGUMENT (HTTP 400) with ``reason`` and the ErrorInfo ``metadata``."""
    err = ApiError("INVALID_ARGUMENT", message, reason)
    err.metadata = {k: str(v) for k, v in metadata.items() if v is not None}
    return err
