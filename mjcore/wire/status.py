"""The machine-readable detail of a failed call: a ``google.rpc.ErrorInfo`` (AIP-193) packed in
the ``grpc-status-details-bin`` trailer, domain ``mjcore.dev``."""
from __future__ import annotations

from typing import Any

from google.rpc import error_details_pb2, status_pb2

from ..errors import DOMAIN

DETAILS_KEY = "grpc-status-details-bin"


def error_info_of_details(details: bytes) -> error_details_pb2.ErrorInfo | None:
    """The ErrorInfo inside serialized ``google.rpc.Status`` bytes, or None (a DecodeError when
    the bytes are not a Status)."""
    status = status_pb2.Status.FromString(details)
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return info
    return None


def error_info(error: Any) -> error_details_pb2.ErrorInfo | None:
    """The ErrorInfo of a failed grpc call (a ``grpc.RpcError``), or None when it has none."""
    trailers = error.trailing_metadata() or ()
    for key, value in trailers:
        if key == DETAILS_KEY and isinstance(value, bytes):
            return error_info_of_details(value)
    return None

def retry_delay(error: Any) -> float | None:
    """The seconds of a ``google.rpc.RetryInfo`` detail of a failed grpc call, or None."""
    for key, value in error.trailing_metadata() or ():
        if key == DETAILS_KEY and isinstance(value, bytes):
            for detail in status_pb2.Status.FromString(value).details:
                if detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
                    info = error_details_pb2.RetryInfo()
                    detail.Unpack(info)
                    return float(info.retry_delay.ToNanoseconds()) / 1e9
    return None


__all__ = ["DETAILS_KEY", "DOMAIN", "error_info", "error_info_of_details", "retry_delay"]
