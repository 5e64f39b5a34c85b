"""A call whose deadline ran out while it was answered (issue 29): the client gets
DEADLINE_EXCEEDED and the server logs no traceback, at most one debug line."""
from __future__ import annotations

import asyncio
import logging
import sys
import threading

import grpc
import pytest
from grpc._cython.cygrpc import ExecuteBatchError

from mjcore.service import guard
from mjcore.wire.v1 import analysis_service_pb2 as pb
from mjcore.wire.v1 import analysis_service_pb2_grpc as pb_grpc

from .service_helpers import serving

GRPC_LOGGER = "grpc._cython.cygrpc"
FAR_HAND = "13579m2468p1357s9p"      # a search that takes longer than the deadlines below


class _EndedCall:
    """An aio context whose deadline has passed: the core refuses to send its status."""

    def __init__(self, remaining: float) -> None:
        self.remaining = remaining
        self.aborted = 0

    def done(self) -> bool:
        return False

    def cancelled(self) -> bool:
        return False

    def time_remaining(self) -> float:
        return self.remaining

    async def abort(self, code, details, trailing_metadata=()):
        self.aborted += 1
        raise ExecuteBatchError('Failed "execute_batch"')


def _errors(records: list[logging.LogRecord]) -> list[logging.LogRecord]:
    return [r for r in records if r.exc_info or r.levelno >= logging.WARNING]


@pytest.mark.parametrize("remaining", [-0.01, 0.5])
def test_an_abort_the_core_refuses_ends_the_call_quietly(caplog, remaining):
    """Past the deadline nothing is sent; a deadline running out while the status is sent
    (the core refuses it) is the same: the handler ends as a cancelled call, no traceback."""
    context = _EndedCall(remaining)
    err = guard.RpcError(grpc.StatusCode.DEADLINE_EXCEEDED, "deadline exceeded",
                         "DEADLINE_EXCEEDED")
    with caplog.at_level(logging.DEBUG), pytest.raises(asyncio.CancelledError):
        asyncio.run(guard._abort(context, err))
    assert context.aborted == (0 if remaining < 0 else 1)
    assert not _errors(caplog.records)
    assert len([r for r in caplog.records if r.name == "mjcore.service"]) == 1


def test_grpcs_traceback_for_an_answer_sent_too_late_is_one_debug_line(caplog):
    """grpc itself sends a unary answer; when the deadline runs out during that send it logs
    the core's refusal with a chained traceback: the server turns that into one debug line."""
    with serving(ev_workers=1):
        try:
            raise ExecuteBatchError('Failed "execute_batch": (SendStatusFromServerOperation,)')
        except ExecuteBatchError:
            exc_info = sys.exc_info()
        grpc_log = logging.getLogger(GRPC_LOGGER)
        with caplog.at_level(logging.INFO):
            grpc_log.error("ExecuteBatchError raised in core by servicer method [%s]",
                           "/mjcore.v1.HandAnalysisService/ExpectedValues", exc_info=exc_info)
            grpc_log.error("something else")
        assert [r.getMessage() for r in caplog.records] == ["something else"]
        with caplog.at_level(logging.DEBUG, logger=GRPC_LOGGER):
            grpc_log.error("ExecuteBatchError raised in core by servicer method [%s]", "/x",
                           exc_info=exc_info)
        last = caplog.records[-1]
        assert last.levelno == logging.DEBUG and not last.exc_info
        assert "/x" in last.getMessage() and "\n" not in last.getMessage()


def test_calls_past_their_deadline_log_nothing_and_a_bystander_is_answered(caplog):
    """Searches cut by deadlines of 5-80 ms on both ports (each ends at its deadline, where
    the answer races the core's end of the call) beside a client without trouble."""
    codes: list[grpc.StatusCode] = []
    answered: list[bool] = []
    with serving(ev_workers=2) as server, caplog.at_level(logging.INFO):
        stop = threading.Event()

        def bystander() -> None:
            with grpc.insecure_channel(f"127.0.0.1:{server.port}") as channel:
                stub = pb_grpc.HandAnalysisServiceStub(channel)
                while not stop.is_set():
                    reply = stub.AnalyzeHand(pb.AnalyzeHandRequest(hand="123m406p789s1122z"),
                                             timeout=10)
                    answered.append(reply.shanten.shanten == 0)

        def hurried(port: int, seed: int) -> None:
            with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
                stub = pb_grpc.HandAnalysisServiceStub(channel)
                for i in range(60):
                    try:
                        stub.ExpectedValues(pb.ExpectedValuesRequest(hand=FAR_HAND),
                                            timeout=0.005 + 0.075 * ((i * 7 + seed) % 16) / 15)
                    except grpc.RpcError as err:
                        codes.append(err.code())

        side = threading.Thread(target=bystander)
        side.start()
        workers = [threading.Thread(target=hurried, args=(port, seed))
                   for seed, port in enumerate((server.port, server.unary_port) * 2)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        stop.set()
        side.join()
    assert codes and set(codes) <= {grpc.StatusCode.DEADLINE_EXCEEDED,
                                    grpc.StatusCode.RESOURCE_EXHAUSTED}
    assert grpc.StatusCode.DEADLINE_EXCEEDED in codes
    assert answered and all(answered)
    assert not _errors(caplog.records)


def test_the_ended_call_filter_keeps_the_first_line_of_grpcs_own_message():
    """The line kept is grpc's message formatted with its own arguments (whatever their
    number), not the new format applied to them."""
    import logging

    from mjcore.service.guard import EndedCallFilter, ExecuteBatchError

    for msg, args, first in (("Unexpected [%s] %s\nmore", ("A", "B"), "Unexpected [A] B"),
                             ("no arguments\nmore", (), "no arguments")):
        try:
            raise ExecuteBatchError("core refused")
        except ExecuteBatchError:
            import sys

            record = logging.LogRecord("grpc._cython.cygrpc", logging.ERROR, __file__, 1, msg,
                                       args, sys.exc_info())
        EndedCallFilter().filter(record)
        assert record.levelno == logging.DEBUG and record.exc_info is None
        assert record.getMessage() == f"{first} (an answer to a call that was already over)"
