"""Canonical gRPC errors with a machine-readable ``google.rpc.ErrorInfo`` detail."""
from __future__ import annotations

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from mjcore.errors import InvalidHandError, InvalidRuleError
from mjcore.status import wire_reason
from mjcore.wire.status import DOMAIN, error_info

from .limits import MESSAGE_CHARS, METADATA_CHARS, clip

# The ErrorInfo of a failed call (for clients and tests) and its domain: the wire contract's.
__all__ = ["DOMAIN", "RpcError", "error_info", "invalid_argument", "invalid_hand", "invalid_rule",
           "reason_code"]


class RpcError(Exception):
    """An error for the client: status code, message, ErrorInfo reason and metadata. The
    message and each metadata value are cut short, so an error always fits in trailers."""

    retry_delay: float | None = None     # seconds: sent as a google.rpc.RetryInfo detail

    def __init__(self, code: grpc.StatusCode, message: str, reason: str,
                 **metadata: object) -> None:
        message = clip(message, MESSAGE_CHARS)
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = reason
        self.metadata = {k: clip(str(v), METADATA_CHARS) for k, v in metadata.items()
                         if v is not None}

    def to_status(self) -> grpc.Status:
        info = error_details_pb2.ErrorInfo(reason=self.reason, domain=DOMAIN,
                                           metadata=self.metadata)
        detail = any_pb2.Any()
        detail.Pack(info)
        details = [detail]
        if self.retry_delay is not None:
            retry = error_details_pb2.RetryInfo()
            retry.retry_delay.FromNanoseconds(int(self.retry_delay * 1e9))
            details.append(any_pb2.Any())
            details[-1].Pack(retry)
        proto = status_pb2.Status(code=_CODES[self.code], message=self.message,
                                  details=details)
        return rpc_status.to_status(proto)


_CODES = {
    grpc.StatusCode.INVALID_ARGUMENT: code_pb2.INVALID_ARGUMENT,
    grpc.StatusCode.RESOURCE_EXHAUSTED: code_pb2.RESOURCE_EXHAUSTED,
    grpc.StatusCode.DEADLINE_EXCEEDED: code_pb2.DEADLINE_EXCEEDED,
    grpc.StatusCode.UNAUTHENTICATED: code_pb2.UNAUTHENTICATED,
    grpc.StatusCode.CANCELLED: code_pb2.CANCELLED,
    grpc.StatusCode.INTERNAL: code_pb2.INTERNAL,
    grpc.StatusCode.UNAVAILABLE: code_pb2.UNAVAILABLE,
}


# The library's reason as the wire writes it (mjcore.status: UPPER_SNAKE_CASE, AIP-193).
reason_code = wire_reason


# InvalidHandError.part (the input holding copies past the limit) -> its request field
PART_FIELDS = {"dora": "dora_indicators", "ura": "ura_indicators", "visible": "visible",
               "kita": "kita_count"}


def invalid_hand(err: InvalidHandError, field: str, index: int = 0) -> RpcError:
    """INVALID_ARGUMENT for a bad hand or tile in request field ``field`` (too many copies:
    the field of the part whose copies passed the limit, when the error names one)."""
    if err.reason == "too_many_copies" and err.part in PART_FIELDS:
        field = PART_FIELDS[err.part]
    return RpcError(grpc.StatusCode.INVALID_ARGUMENT, f"{field}: {err}", reason_code(err.reason),
                    field=field, index=index if err.index is None else err.index,
                    position=err.position)


def invalid_rule(err: InvalidRuleError) -> RpcError:
    return RpcError(grpc.StatusCode.INVALID_ARGUMENT, f"rules: {err}", "INVALID_RULE",
                    field="rules", index=0)


def invalid_argument(message: str, reason: str, **metadata: object) -> RpcError:
    return RpcError(grpc.StatusCode.INVALID_ARGUMENT, message, reason, **metadata)
