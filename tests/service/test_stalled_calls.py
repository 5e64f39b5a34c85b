"""Issue 11: no number of stalled calls can take the main port's workers.

A raw HTTP/2 attacker keeps opening calls that send HEADERS and never their message, far more
than there are workers, for several seconds, and never lets its connections go idle long
enough for the receive timeout to matter (it is 10 s here). Beside it, the ``Bystander`` of
``test_attacks`` (unary, health and bulk calls on the main port, unary calls on the front)
must get every answer within its 2 s deadline.
"""
from __future__ import annotations

import threading
import time
from collections import deque
from typing import Self

import pytest

from mjcore.service import ServerConfig, build

from .service_helpers import TOKEN
from .test_attacks import ANALYZE, SERVICE, Bystander, _stall

WORKERS = 4
FLOOD_SECONDS = 4.0
GOOD = (("authorization", f"Bearer {TOKEN}"),)


class Flood:
    """Two threads (a unary and a bulk method) each opening a connection of 16 stalled calls
    every ``interval`` s (800 calls/s in all), keeping its newest 30 connections open (1.2 s,
    480 calls) and closing older ones."""

    def __init__(self, port: int, extra=(), threads: int = 2, interval: float = 0.04) -> None:
        self.port = port
        self.interval = interval
        self.extra = list(extra)
        self.calls = 0
        self.errors: list[str] = []
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._run, args=(path,), daemon=True)
                         for path in (ANALYZE, SERVICE + "StreamShanten")[:threads]]

    def _run(self, path: str) -> None:
        open_now: deque = deque()
        try:
            while not self._stop.is_set():
                open_now.append(_stall(self.port, 16, path, self.extra))
                self.calls += 16
                if len(open_now) > 30:
                    open_now.popleft().close()
                self._stop.wait(self.interval)
        except OSError as err:
            self.errors.append(repr(err))
        finally:
            for raw in open_now:
                raw.close()

    def __enter__(self) -> Self:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(10)


@pytest.mark.parametrize("token,attacker", [(None, ()), (TOKEN, GOOD),
                                            (TOKEN, (("authorization", "Bearer wrong"),))],
                         ids=["no-token", "attacker-with-token", "attacker-with-wrong-token"])
def test_a_flood_of_stalled_calls_never_starves_well_behaved_clients(token, attacker):
    server = build(ServerConfig(port=0, unary_port=0, drain=0, grace=1, workers=WORKERS,
                                receive_timeout=10, stream_timeout=10,
                                max_streams_per_connection=16, token=token))
    server.start()
    try:
        before = server.slots.evicted
        with Bystander(server, metadata=GOOD if token else None) as bystander, \
                Flood(server.port, attacker) as flood:
            end = time.monotonic() + FLOOD_SECONDS
            while time.monotonic() < end:
                bystander.wait_for_answers("while stalled calls flood the main port")
        assert not flood.errors, flood.errors[:3]
        assert flood.calls >= 50 * WORKERS, flood.calls
        if attacker != GOOD and token:    # refused from the headers: nothing waited
            assert server.slots.evicted == before
        else:                             # the waits of the oldest stalled calls were ended
            assert server.slots.evicted - before >= flood.calls // 4, (server.slots.evicted,
                                                                       flood.calls)
    finally:
        server.shutdown(0, 0)
