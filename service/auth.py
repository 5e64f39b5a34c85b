"""Bearer-token authentication as a server interceptor; the health service stays open."""
from __future__ import annotations

import hmac

import grpc

OPEN_PREFIXES = ("/grpc.health.v1.Health/",)


def _deny(message: str) -> grpc.RpcMethodHandler:
    def abort(request_or_iterator, context):
        context.abort(grpc.StatusCode.UNAUTHENTICATED, message)

    return grpc.unary_unary_rpc_method_handler(abort)


def _deny_stream(message: str) -> grpc.RpcMethodHandler:
    def abort(request_iterator, context):
        context.abort(grpc.StatusCode.UNAUTHENTICATED, message)

    return grpc.stream_stream_rpc_method_handler(abort)


class TokenAuthInterceptor(grpc.ServerInterceptor):
    """Requires ``authorization: Bearer <token>`` on every RPC but the health service."""

    def __init__(self, token: str) -> None:
        if not token:
            raise ValueError("empty token")
        self._expected = f"Bearer {token}".encode()

    def intercept_service(self, continuation, handler_call_details):
        method = handler_call_details.method
        if method.startswith(OPEN_PREFIXES):
            return continuation(handler_call_details)
        given = b""
        for key, value in handler_call_details.invocation_metadata or ():
            if key == "authorization":
                given = value.encode() if isinstance(value, str) else value
                break
        if given and hmac.compare_digest(given, self._expected):
            return continuation(handler_call_details)
        message = "missing bearer token" if not given else "invalid bearer token"
        handler = continuation(handler_call_details)
        if handler is not None and handler.request_streaming:
            return _deny_stream(message)
        return _deny(message)
