"""The main port's call guard: authentication, receive timeouts and message limits.

One grpc server interceptor in front of every method (the analysis service, health and
reflection). For each call it

- refuses a bad or duplicated token from the metadata alone, before any worker waits for a
  request message (the refusal is a streaming-request handler that never reads);
- serves every method as a streaming-request handler whose messages arrive as raw bytes, so
  each wait for a message goes through the ``ReceiveWatchdog`` (a call that does not send its
  message, or a bulk stream that stays idle, is cancelled) and each message is checked against
  its size limit (``unary_max_message_size`` for unary methods, ``max_message_size`` for bulk)
  before it is parsed;
- answers a message that does not parse with INVALID_ARGUMENT, logged once per connection
  without a traceback.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import grpc
from google.protobuf.message import DecodeError

from .auth import OPEN_PREFIXES, authorization_values, denial
from .errors import RpcError
from .limits import LogOnce, ReceiveWatchdog


def _refuse(message: str) -> grpc.RpcMethodHandler:
    def abort(request_iterator, context):
        context.abort(grpc.StatusCode.UNAUTHENTICATED, message)

    return grpc.stream_stream_rpc_method_handler(abort)


class CallGuard(grpc.ServerInterceptor):
    def __init__(self, expected: bytes | None, watchdog: ReceiveWatchdog, unary_limit: int,
                 stream_limit: int) -> None:
        self.expected = expected
        self.watchdog = watchdog
        self.unary_limit = unary_limit
        self.stream_limit = stream_limit
        self.malformed = LogOnce()
        self._refusals: dict[str, grpc.RpcMethodHandler] = {}
        self._guarded: dict[str, tuple[Any, grpc.RpcMethodHandler]] = {}

    def intercept_service(self, continuation, handler_call_details):
        method = handler_call_details.method
        why = denial(authorization_values(handler_call_details.invocation_metadata),
                     None if method.startswith(OPEN_PREFIXES) else self.expected)
        if why is not None:
            refusal = self._refusals.get(why)
            if refusal is None:
                refusal = self._refusals[why] = _refuse(why)
            return refusal
        handler = continuation(handler_call_details)
        if handler is None:
            return None
        known = self._guarded.get(method)
        if known is not None and known[0] is handler:
            return known[1]
        guarded = self._guard(handler, method)
        if len(self._guarded) < 256:
            self._guarded[method] = (handler, guarded)
        return guarded

    # -- the guarded handler --------------------------------------------------------------------

    def _guard(self, handler: grpc.RpcMethodHandler, method: str) -> grpc.RpcMethodHandler:
        parse = handler.request_deserializer or (lambda raw: raw)
        limit = self.stream_limit if handler.request_streaming else self.unary_limit
        serialize = handler.response_serializer

        def one(request_iterator, context) -> Any:
            try:
                raw = self.watchdog.receive(request_iterator, context)
            except StopIteration:
                _abort(context, RpcError(grpc.StatusCode.INVALID_ARGUMENT,
                                         "the call carries no request message",
                                         "NO_REQUEST_MESSAGE"))
            return self._parse(raw, parse, limit, method, context)

        def messages(request_iterator, context) -> Iterator[Any]:
            while True:
                try:
                    raw = self.watchdog.receive(request_iterator, context)
                except StopIteration:
                    return
                yield self._parse(raw, parse, limit, method, context)

        if handler.unary_unary is not None:
            behavior: Callable = handler.unary_unary
            return grpc.stream_unary_rpc_method_handler(
                lambda it, context: behavior(one(it, context), context),
                response_serializer=serialize)
        if handler.unary_stream is not None:
            streamer: Callable = handler.unary_stream
            return grpc.stream_stream_rpc_method_handler(
                lambda it, context: streamer(one(it, context), context),
                response_serializer=serialize)
        if handler.stream_unary is not None:
            consumer: Callable = handler.stream_unary
            return grpc.stream_unary_rpc_method_handler(
                lambda it, context: consumer(messages(it, context), context),
                response_serializer=serialize)
        bidi: Callable = handler.stream_stream
        return grpc.stream_stream_rpc_method_handler(
            lambda it, context: bidi(messages(it, context), context),
            response_serializer=serialize)

    def _parse(self, raw: bytes, parse: Callable[[bytes], Any], limit: int, method: str,
               context) -> Any:
        if len(raw) > limit:   # answered as the front answers it
            context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                          f"request message larger than {limit} bytes")
        try:
            return parse(raw)
        except (DecodeError, ValueError, TypeError):
            self.malformed(context.peer(), "%s: a request that is not a valid message from %s "
                           "(logged once per connection)", method, context.peer())
            _abort(context, RpcError(grpc.StatusCode.INVALID_ARGUMENT,
                                     f"the request is not a valid {method.rsplit('/', 1)[-1]} "
                                     "message", "MALFORMED_MESSAGE"))


def _abort(context, err: RpcError) -> None:
    context.abort_with_status(err.to_status())
