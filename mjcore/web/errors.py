"""The JSON API's errors: Google's JSON error form (AIP-193) with the gRPC service's ErrorInfo.

``{"error": {"code": 400, "status": "INVALID_ARGUMENT", "message": ..., "details":
[{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": ..., "domain": "mjcore.dev",
"metadata": {"field": ...}}]}}``: the same reasons, messages and metadata the gRPC service puts
in its ErrorInfo for the same input, and a few of HTTP's own (body, JSON, overload).
"""
from __future__ import annotations

from ..errors import DOMAIN, ERROR_INFO_TYPE, HTTP_OF_STATUS, ApiError

# Declared once in mjcore.errors; kept here for the old import paths.
__all__ = ["DOMAIN", "ERROR_INFO_TYPE", "HTTP_OF_STATUS", "ApiError", "bad_request"]


def bad_request(message: str, reason: str, **metadata: object) -> ApiError:
    """INVALID_ARGUMENT (HTTP 400) with ``reason`` and the ErrorInfo ``metadata``."""
    err = ApiError("INVALID_ARGUMENT", message, reason)
    err.metadata = {k: str(v) for k, v in metadata.items() if v is not None}
    return err
