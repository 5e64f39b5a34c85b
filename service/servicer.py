"""The HandAnalysisService servicer: each RPC handed to the module that answers it.

No analysis happens here, and no request is read: ``riichi.py`` and ``classical.py`` hold each
game's RPCs, ``bulk.py`` the bulk analysis both games answer, ``expected.py`` the expected-value
search, ``requests.py`` the parsing they share. Here: the rules selection of AnalyzeHand picks the
game (the registry's, ``mjcore.games``: its ``service`` module answers), and every call ends with
its own status or INTERNAL (logged).
"""
from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable, Iterator
from typing import Any

import grpc
from google.protobuf import message_factory

from mjcore.errors import InvalidRuleError
from mjcore.games import default_game, game_of_rules
from mjcore.wire.v1 import analysis_service_pb2 as pb
from mjcore.wire.v1 import analysis_service_pb2_grpc as pb_grpc
from mjcore.wire.v1 import scoring_pb2

from . import bulk, classical, expected, riichi
from .errors import RpcError, invalid_rule
from .requests import EncodedMessage, analysis_rules, check_deadline, serialize

log = logging.getLogger("mjcore.service")


def _abort(context: grpc.ServicerContext, err: RpcError) -> None:
    context.abort_with_status(err.to_status())


def _fail_call(context: grpc.ServicerContext, err: Exception, name: str) -> None:
    """End the call with the status of ``err`` (raised by method ``name``; call only in its
    ``except`` block): its own for an RpcError or a bad rule, INTERNAL (logged) for anything
    else; when the client has already gone, ``err`` propagates."""
    if isinstance(err, RpcError):
        _abort(context, err)
    elif isinstance(err, InvalidRuleError):
        _abort(context, invalid_rule(err))
    elif not context.is_active():
        raise err
    else:
        log.exception("%s failed", name)
        _abort(context, RpcError(grpc.StatusCode.INTERNAL, "internal error", "INTERNAL"))


def _unary(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def wrapper(self, request, context):
        try:
            check_deadline(context)
            return method(self, request, context)
        except Exception as err:  # noqa: BLE001 (_fail_call logs it or raises it again)
            _fail_call(context, err, method.__name__)
    return wrapper


def _streaming(method: Callable[..., Iterator[Any]]) -> Callable[..., Iterator[Any]]:
    @functools.wraps(method)
    def wrapper(self, request_iterator, context):
        self._track(1)
        try:
            for response in method(self, request_iterator, context):
                self._track(0, 1)
                yield response
        except Exception as err:  # noqa: BLE001 (_fail_call logs it or raises it again)
            _fail_call(context, err, method.__name__)
        finally:
            self._track(-1)
    return wrapper


class HandAnalysisServicer(pb_grpc.HandAnalysisServiceServicer):
    """``active``: bulk calls running now; ``batches_done``: bulk batches answered so far."""

    def __init__(self, max_batch: int, kernel_threads: int = 1,
                 max_message_size: int = 64 * 1024 * 1024, *, ev_workers: int = 2,
                 ev_queue: int = 8, ev_max_seconds: float = 5.0,
                 ev_max_nodes: int = 2_000_000) -> None:
        self.max_batch = max_batch
        self.max_message_size = max_message_size
        self.kernel_threads = kernel_threads
        self.ev_max_seconds = ev_max_seconds
        self.ev_max_nodes = ev_max_nodes
        # ExpectedValues runs here on both ports (guard.py, front/server.py), never on a loop
        self.ev_pool = expected.EvPool(ev_workers, ev_queue)
        self.active = 0
        self.batches_done = 0
        self._lock = threading.Lock()

    def _track(self, calls: int, batches: int = 0) -> None:
        with self._lock:
            self.active += calls
            self.batches_done += batches

    # -- unary ----------------------------------------------------------------------------------

    @_unary
    def AnalyzeHand(self, request: pb.AnalyzeHandRequest, context) -> EncodedMessage:
        """The answer already serialized: both ports send its bytes as they are."""
        rules = analysis_rules(request.rules) if request.HasField("rules") else None
        game = (game_of_rules(rules) if rules is not None else None) or default_game()
        answer: EncodedMessage = game.entry("service").analyze_hand(request, rules)
        return answer

    @_unary
    def Decompose(self, request: pb.DecomposeRequest, context) -> pb.DecomposeResponse:
        return riichi.decompose(request, context)

    @_unary
    def Score(self, request: scoring_pb2.ScoreRequest, context) -> scoring_pb2.ScoreResponse:
        return riichi.score(request, context)

    @_unary
    def ScoreClassicalDeal(self, request, context):
        return classical.score_classical_deal(request)

    @_streaming
    def StreamScoreClassical(self, request_iterator, context):
        yield from classical.stream_score(self, request_iterator, context)

    @_unary
    def ExpectedValues(self, request: pb.ExpectedValuesRequest, context
                       ) -> pb.ExpectedValuesResponse:
        """In ``ev_pool``'s threads: the ports submit it there (``OFFLOADED``)."""
        return expected.unary(request, context, self.ev_max_seconds, self.ev_max_nodes)

    @_streaming
    def StreamExpectedValues(self, request_iterator, context):
        yield from expected.stream(self, request_iterator, context)

    @_unary
    def ListRulePresets(self, request, context) -> pb.ListRulePresetsResponse:
        return riichi.list_rule_presets()

    # -- streaming bulk -------------------------------------------------------------------------

    @_streaming
    def StreamShanten(self, request_iterator, context):
        yield from bulk.stream_shanten(self, request_iterator, context)

    @_streaming
    def StreamWaits(self, request_iterator, context):
        yield from bulk.stream_waits(self, request_iterator, context)

    @_streaming
    def StreamAgari(self, request_iterator, context):
        yield from bulk.stream_agari(self, request_iterator, context)

    @_streaming
    def StreamScore(self, request_iterator, context):
        yield from riichi.stream_score(self, request_iterator, context)


# unary methods the ports run in the servicer's ``ev_pool`` instead of where they receive
OFFLOADED = ("ExpectedValues",)


def add_to_server(servicer: HandAnalysisServicer, server: grpc.Server) -> None:
    """Serve ``servicer``'s methods on ``server``: the generated registration, except that a
    response may be an already serialized ``requests.EncodedMessage`` (AnalyzeHand's)."""
    service = pb.DESCRIPTOR.services_by_name["HandAnalysisService"]
    handlers = {}
    for method in service.methods:
        request_type = message_factory.GetMessageClass(method.input_type)
        make = (grpc.stream_stream_rpc_method_handler if method.client_streaming
                else grpc.unary_unary_rpc_method_handler)
        handlers[method.name] = make(getattr(servicer, method.name),
                                     request_deserializer=request_type.FromString,
                                     response_serializer=serialize)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(
        service.full_name, handlers),))
    server.add_registered_method_handlers(service.full_name, handlers)


__all__ = ["OFFLOADED", "HandAnalysisServicer", "add_to_server"]
