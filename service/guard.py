"""The main port's call guard: authentication, receive limits and message limits.

The main port is a ``grpc.aio`` server whose only handler is the ``CallGuard``: the analysis
service, health and reflection register their methods with the guard (it quacks like a
server for ``add_generic_rpc_handlers``), and it serves each of them guarded. For each call it

- refuses a bad or duplicated token from the metadata alone, before anything waits for a
  request message (the refusal is a handler that never reads);
- refuses a call at once (RESOURCE_EXHAUSTED) when its peer host has ``PeerCalls``'s share of
  calls in progress already, so one client cannot take every call the server admits;
- serves every method as a streaming-request handler reading raw bytes on the event loop, so
  a call waiting for its message holds no thread: each wait goes through ``ReceiveSlots``
  (``receive_timeout`` for a unary request, ``stream_timeout`` for each message of a bulk
  stream; the oldest waits are ended when one peer, or all of them, have too many calls
  waiting at once), and each message is checked against its size limit (``unary_limit`` for
  unary methods, ``stream_limit`` for bulk) before it is parsed;
- runs a synchronous unary method on the event loop once its message has arrived (its work is
  bounded by the field limits, and a hop to a thread cost more than the work itself), except
  the methods in ``pools`` (ExpectedValues), which run in their bounded pool or are refused
  at once when it is full; and a bulk stream's generator in the worker pool, one batch at a
  time, each step after the batch it reads has arrived;
- answers a message that does not parse with INVALID_ARGUMENT, logged once per connection
  without a traceback.
"""
from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator
from concurrent.futures import Executor
from typing import Any

import grpc
from google.protobuf.message import DecodeError

from .auth import OPEN_PREFIXES, authorization_values, denial
from .errors import RpcError
from .limits import Evicted, LogOnce, PeerCalls, ReceiveSlots, ReceiveTimeout, peer_host

try:   # what grpc raises when its core refuses to send on a call that has ended
    from grpc._cython.cygrpc import ExecuteBatchError
except ImportError:  # pragma: no cover (another grpc build)
    class ExecuteBatchError(Exception):  # type: ignore[no-redef]
        """Stands in for grpc's (never raised)."""

log = logging.getLogger("mjcore.service")

END = object()   # the client closed its side: no further request message
GRPC_LOGGER = "grpc._cython.cygrpc"
# reads what a guarded call gets (a request, or the request iterator), given the call and
# its peer host
_Receiver = Callable[[grpc.aio.ServicerContext, str], Awaitable[Any]]


class Aborted(Exception):
    """Raised in a worker thread by ``WorkerContext.abort``: the call ends with this status."""

    def __init__(self, code: grpc.StatusCode, details: str,
                 trailing_metadata: Any = ()) -> None:
        super().__init__(code, details)
        self.code = code
        self.details = details
        self.trailing_metadata = trailing_metadata


class WorkerContext:
    """The part of ``grpc.ServicerContext`` the synchronous servicer uses, for an asyncio call
    whose work runs synchronously (in a worker thread, or a unary call on the loop).
    ``active`` goes False when the call ends."""

    def __init__(self, context: grpc.aio.ServicerContext) -> None:
        self._context = context
        self.active = True

    def abort(self, code: grpc.StatusCode, details: str = "") -> None:
        raise Aborted(code, details)

    def abort_with_status(self, status: grpc.Status) -> None:
        raise Aborted(status.code, status.details, status.trailing_metadata)

    def time_remaining(self) -> float | None:
        return self._context.time_remaining()

    def is_active(self) -> bool:
        return self.active

    def peer(self) -> str:
        return self._context.peer()

    def invocation_metadata(self) -> Any:
        return self._context.invocation_metadata()


def _refuse(message: str) -> grpc.RpcMethodHandler:
    async def abort(request_iterator: Any, context: grpc.aio.ServicerContext) -> None:
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, message)

    return grpc.stream_stream_rpc_method_handler(abort)


def _one_at_a_time(inbox: deque[Any], method: str) -> Iterator[Any]:
    """A bulk generator's request iterator: the message the guard received before this step."""
    while True:
        if not inbox:
            raise RuntimeError(f"{method} asked for a request message before answering the last")
        item = inbox.popleft()
        if item is END:
            return
        yield item


class CallGuard(grpc.GenericRpcHandler):
    def __init__(self, expected: bytes | None, slots: ReceiveSlots, executor: Executor, *,
                 receive_timeout: float, stream_timeout: float, unary_limit: int,
                 stream_limit: int, peer_calls: PeerCalls | None = None) -> None:
        self.expected = expected
        self.slots = slots
        self.peer_calls = peer_calls if peer_calls is not None else PeerCalls(1 << 30)
        self.executor = executor
        self.receive_timeout = receive_timeout
        self.stream_timeout = stream_timeout
        self.unary_limit = unary_limit
        self.stream_limit = stream_limit
        self.malformed = LogOnce()
        self._refusals: dict[str, grpc.RpcMethodHandler] = {}
        self._services: list[grpc.GenericRpcHandler] = []
        self._guarded: dict[str, grpc.RpcMethodHandler] = {}
        # unary methods run in a bounded pool of their own (``EvPool``), by method path
        self.pools: dict[str, Any] = {}

    # -- registration: the guard stands in for the server -----------------------------------------

    def add_generic_rpc_handlers(self, handlers: Iterable[grpc.GenericRpcHandler]) -> None:
        self._services.extend(handlers)
        self._guarded.clear()

    def add_registered_method_handlers(self, service: str,
                                       handlers: dict[str, grpc.RpcMethodHandler]) -> None:
        """Generated code registers each method twice; the generic registration serves."""

    def service(self, handler_call_details: grpc.HandlerCallDetails
                ) -> grpc.RpcMethodHandler | None:
        method = handler_call_details.method
        why = denial(authorization_values(handler_call_details.invocation_metadata),
                     None if method.startswith(OPEN_PREFIXES) else self.expected)
        if why is not None:
            refusal = self._refusals.get(why)
            if refusal is None:
                refusal = self._refusals[why] = _refuse(why)
            return refusal
        guarded = self._guarded.get(method)
        if guarded is None:
            for service in self._services:
                handler = service.service(handler_call_details)
                if handler is not None:
                    # only registered methods get here, so the cache stays that small
                    guarded = self._guarded[method] = self._guard(handler, method)
                    break
        return guarded

    # -- admission and receiving -----------------------------------------------------------------

    def admitted(self, context: grpc.aio.ServicerContext) -> _Admitted:
        """``async with guard.admitted(context) as host``: the call's peer host, counted in
        its share while the block runs; a call over the share is ended at once."""
        return _Admitted(self, context)

    async def _receive(self, context: grpc.aio.ServicerContext, host: str, timeout: float,
                       parse: Callable[[bytes], Any], limit: int, method: str) -> Any:
        """The next request message, parsed, or END; ends the call when it does not come."""
        try:
            raw = await self.slots.receive(context.read, timeout, host)
        except ReceiveTimeout:
            await _end(context, grpc.StatusCode.DEADLINE_EXCEEDED,
                       f"the request message did not arrive within {timeout:g} s")
        except Evicted:
            await _end(context, grpc.StatusCode.UNAVAILABLE,
                       "too many calls are waiting for their request message; this one "
                       "waited longest")
        if raw is grpc.aio.EOF:
            return END
        # before each abort the message is let go: the abort's traceback keeps this frame
        # alive until the next garbage collection, and a refused message may be megabytes
        if len(raw) > limit:   # answered as the front answers it
            raw = None
            await _end(context, grpc.StatusCode.RESOURCE_EXHAUSTED,
                       f"request message larger than {limit} bytes")
        try:
            return parse(raw)
        except (DecodeError, ValueError, TypeError):
            raw = None
            peer = context.peer()
            self.malformed(peer, "%s: a request that is not a valid message from %s "
                           "(logged once per connection)", method, peer)
            await _abort(context, RpcError(
                grpc.StatusCode.INVALID_ARGUMENT,
                f"the request is not a valid {method.rsplit('/', 1)[-1]} message",
                "MALFORMED_MESSAGE"))

    async def _in_worker(self, context: grpc.aio.ServicerContext, worker: WorkerContext,
                         work: Callable[..., Any], *args: Any) -> Any:
        """``work(*args)`` in the worker pool; an ``Aborted`` ends the call with its status."""
        try:
            return await asyncio.get_running_loop().run_in_executor(self.executor, work, *args)
        except Aborted as stop:
            await _end(context, stop.code, stop.details, stop.trailing_metadata)
        except asyncio.CancelledError:
            worker.active = False    # a bulk kernel stops within one chunk
            raise

    # -- the guarded handler --------------------------------------------------------------------

    def _guard(self, handler: grpc.RpcMethodHandler, method: str) -> grpc.RpcMethodHandler:
        """``handler`` (the method at path ``method``) served behind the guard."""
        parse = handler.request_deserializer or (lambda raw: raw)
        streaming = handler.request_streaming
        limit = self.stream_limit if streaming else self.unary_limit
        timeout = self.stream_timeout if streaming else self.receive_timeout
        behavior: Callable[..., Any] = (handler.unary_unary or handler.unary_stream
                                        or handler.stream_unary or handler.stream_stream)
        serialize = handler.response_serializer

        async def receive(context: grpc.aio.ServicerContext, host: str) -> Any:
            return await self._receive(context, host, timeout, parse, limit, method)

        async def one(context: grpc.aio.ServicerContext, host: str) -> Any:
            request = await receive(context, host)
            if request is END:
                await _abort(context, RpcError(grpc.StatusCode.INVALID_ARGUMENT,
                                               "the call carries no request message",
                                               "NO_REQUEST_MESSAGE"))
            return request

        async def messages(context: grpc.aio.ServicerContext, host: str
                           ) -> AsyncIterator[Any]:
            while (request := await receive(context, host)) is not END:
                yield request

        if inspect.iscoroutinefunction(behavior) or inspect.isasyncgenfunction(behavior):
            # health and reflection: asyncio servicers, run on the loop
            argument: _Receiver = one
            if streaming:
                async def all_messages(context: grpc.aio.ServicerContext, host: str) -> Any:
                    return messages(context, host)
                argument = all_messages
            return _async_handler(self, behavior, argument, handler.response_streaming,
                                  serialize)

        if not streaming and not handler.response_streaming:
            return self._unary_handler(behavior, self.pools.get(method), one, serialize)
        if not handler.response_streaming:
            raise TypeError(f"{method}: a synchronous stream-unary method is not served")
        return self._stream_handler(behavior, method, streaming, receive, one, serialize)

    def _unary_handler(self, behavior: Callable[..., Any], pool: Any,
                       one: _Receiver,
                       serialize: Callable[[Any], bytes] | None) -> grpc.RpcMethodHandler:
        """A synchronous unary method behind the guard: on the loop, or in its ``pool``."""
        async def unary(request_iterator: Any, context: grpc.aio.ServicerContext) -> Any:
            async with self.admitted(context) as host:
                worker = WorkerContext(context)
                try:
                    request = await one(context, host)
                    if pool is None:
                        return behavior(request, worker)   # on the loop: module docstring
                    future = pool.submit(behavior, request, worker)
                    if future is None:      # full: refused at once, with a retry hint
                        await _abort(context, pool.busy())
                    response = await asyncio.wrap_future(future)
                    if _over(context):   # nothing can reach the client
                        await _end(context, grpc.StatusCode.DEADLINE_EXCEEDED, "")
                    return response
                except Aborted as stop:
                    await _end(context, stop.code, stop.details, stop.trailing_metadata)
                finally:
                    worker.active = False

        return grpc.stream_unary_rpc_method_handler(unary, response_serializer=serialize)

    def _stream_handler(self, behavior: Callable[..., Any], method: str, streaming: bool,
                        receive: _Receiver,
                        one: _Receiver,
                        serialize: Callable[[Any], bytes] | None) -> grpc.RpcMethodHandler:
        """A synchronous method with a streamed response (a bulk stream's generator, or a
        unary request's) behind the guard: each step in the worker pool."""
        async def stream(request_iterator: Any, context: grpc.aio.ServicerContext
                         ) -> AsyncIterator[Any]:
            async with self.admitted(context) as host:
                worker = WorkerContext(context)
                inbox: deque[Any] = deque()
                responses: Any = None
                try:
                    if streaming:
                        responses = behavior(_one_at_a_time(inbox, method), worker)
                    else:
                        responses = behavior(await one(context, host), worker)
                    while True:
                        if streaming:
                            inbox.append(await receive(context, host))
                        # advance while the generator has not taken the message (unary: once)
                        while inbox or not streaming:
                            response = await self._in_worker(context, worker, next, responses,
                                                             END)
                            if response is END:
                                return
                            yield response
                finally:
                    worker.active = False
                    if responses is not None:
                        with contextlib.suppress(ValueError):   # a worker still runs it
                            responses.close()

        return grpc.stream_stream_rpc_method_handler(stream, response_serializer=serialize)


def _async_handler(guard: CallGuard, behavior: Callable[..., Any],
                   make_argument: _Receiver,
                   response_streaming: bool,
                   serialize: Callable[[Any], bytes] | None) -> grpc.RpcMethodHandler:
    """An asyncio servicer method behind the guard: its argument (one request or the request
    iterator) comes from ``make_argument``."""
    if not response_streaming:
        async def unary(request_iterator: Any, context: grpc.aio.ServicerContext) -> Any:
            async with guard.admitted(context) as host:
                return await behavior(await make_argument(context, host), context)

        return grpc.stream_unary_rpc_method_handler(unary, response_serializer=serialize)
    if inspect.isasyncgenfunction(behavior):
        async def yielding(request_iterator: Any, context: grpc.aio.ServicerContext
                           ) -> AsyncIterator[Any]:
            async with guard.admitted(context) as host:
                async for response in behavior(await make_argument(context, host), context):
                    yield response

        return grpc.stream_stream_rpc_method_handler(yielding, response_serializer=serialize)

    async def writing(request_iterator: Any, context: grpc.aio.ServicerContext) -> None:
        async with guard.admitted(context) as host:
            await behavior(await make_argument(context, host), context)   # it calls write

    return grpc.stream_stream_rpc_method_handler(writing, response_serializer=serialize)


class _Admitted:
    """``CallGuard.admitted``: enters the call's peer host in its share (or ends the call),
    and leaves it when the block ends however it ends."""

    __slots__ = ("context", "guard", "host")

    def __init__(self, guard: CallGuard, context: grpc.aio.ServicerContext) -> None:
        self.guard = guard
        self.context = context
        self.host = ""

    async def __aenter__(self) -> str:
        calls = self.guard.peer_calls
        self.host = peer_host(self.context.peer())
        if not calls.enter(self.host):
            await _end(self.context, grpc.StatusCode.RESOURCE_EXHAUSTED,
                       f"{calls.max_per_peer} calls from this client are in progress "
                       "already (max_calls_per_peer)")
        return self.host

    async def __aexit__(self, *exc: object) -> None:
        self.guard.peer_calls.leave(self.host)


async def _abort(context: grpc.aio.ServicerContext, err: RpcError) -> None:
    status = err.to_status()
    await _end(context, status.code, status.details, status.trailing_metadata)


def _over(context: grpc.aio.ServicerContext) -> bool:
    """Whether the call has ended already: its deadline passed, or its client went away."""
    if context.done() or context.cancelled():
        return True
    remaining = context.time_remaining()
    return remaining is not None and remaining <= 0


async def _end(context: grpc.aio.ServicerContext, code: grpc.StatusCode, details: str,
               trailing_metadata: Any = ()) -> None:
    """``context.abort`` with this status; a call that is already over (the client has its
    DEADLINE_EXCEEDED or CANCELLED) can be told nothing: it ends quietly, one debug line."""
    if not _over(context):
        # ExecuteBatchError: the call ended while its status was being sent
        with contextlib.suppress(ExecuteBatchError):
            await context.abort(code, details, trailing_metadata)
    log.debug("a call already over was to end with %s (%s): dropped", code.name, details)
    raise asyncio.CancelledError


class EndedCallFilter(logging.Filter):
    """On grpc's logger: the traceback grpc logs when its core refused to send the answer of
    a call that ended meanwhile (its deadline ran out while it was answered) becomes one
    debug line. That call is over, not failed."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if not isinstance(exc, ExecuteBatchError):
            return True
        first_line = record.getMessage().splitlines()[0]     # formatted with its own args
        record.msg = "%s (an answer to a call that was already over)"
        record.args = (first_line,)
        record.levelno, record.levelname = logging.DEBUG, "DEBUG"
        record.exc_info = record.exc_text = None
        return logging.getLogger(record.name).isEnabledFor(logging.DEBUG)


def quiet_ended_calls() -> None:
    """Install ``EndedCallFilter`` on grpc's logger (once)."""
    logger = logging.getLogger(GRPC_LOGGER)
    if not any(isinstance(f, EndedCallFilter) for f in logger.filters):
        logger.addFilter(EndedCallFilter())
