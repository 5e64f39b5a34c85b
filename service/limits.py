"""Request field limits, short error quotes, and the main port's receive watchdog.

Every text field of a unary request has a length limit that is checked before the field is
parsed, so no request costs more than a few microseconds of parsing (service/README.md,
"Limits"). Errors quote at most ``QUOTE_CHARS`` characters of what the client sent.
"""
from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from typing import Any

import grpc

log = logging.getLogger("mjcore.service")

# characters each text field may have; checked before any parsing
FIELD_CHARS = {
    "hand": 100,             # 14 tiles and four called melds with their "<seat" marks
    "win_tile": 4,
    "pair": 4,               # ScoreClassicalDeal's pair tile
    "dead_tiles": 100,       # ScoreClassicalDeal's dead kinds ("1m2m...", 34 kinds at most)
    "visible": 300,          # 136 tiles written one by one ("1m2m..." is 2 chars a tile)
    "dora_indicators": 40,
    "ura_indicators": 40,
    "rules.preset": 32,
    "rules.options.name": 64,
    "rules.options.value": 64,  # a string value, or each entry of a string list
}
MAX_INDICATORS = 10          # dora (kan dora included) or ura indicators
MAX_VISIBLE_TILES = 136
MAX_RULE_OPTIONS = 64        # options in one RuleSelection, and entries in one option's list
QUOTE_CHARS = 120            # of an input, in an error message
MESSAGE_CHARS = 300          # of an error message as a whole
METADATA_CHARS = 64          # of each ErrorInfo metadata value


def quote(text: str) -> str:
    """``text`` for an error message: at most QUOTE_CHARS characters, then how long it was."""
    if len(text) <= QUOTE_CHARS:
        return text
    return f"{text[:QUOTE_CHARS]}... ({len(text)} characters)"


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


class ReceiveWatchdog:
    """Cancels main-port calls whose request message does not arrive in time.

    grpcio hands a call to a worker thread before its message has arrived, and the worker waits
    for it. Each wait for a message (``receiving``) is registered here with its deadline: the
    call's ``receive_timeout``, or ``crowded_timeout`` once ``max_receiving`` calls already wait,
    so stalled calls can hold at most ``max_receiving`` workers for long; the others are freed
    within 1 s (a quarter of ``receive_timeout`` if that is less): long enough that a
    well-behaved call whose worker waits for the GIL is not cancelled by mistake. One
    thread cancels expired waits (``context.cancel()`` ends the worker's wait at once).
    """

    def __init__(self, receive_timeout: float, max_receiving: int,
                 crowded_timeout: float = 1.0) -> None:
        self.receive_timeout = receive_timeout
        self.crowded_timeout = min(crowded_timeout, receive_timeout / 4)
        self.max_receiving = max_receiving
        self.cancelled = 0
        # (deadline, key) only: a finished call's context must not be kept alive here, grpc
        # frees the call's HTTP/2 stream only once its context is gone
        self._heap: list[tuple[float, int]] = []
        self._waiting: dict[int, Any] = {}
        self._ids = itertools.count()
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._stopped = False

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="mjcore-receive-watchdog",
                                            daemon=True)
            self._thread.start()

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify()

    def receive(self, request_iterator: Any, context: grpc.ServicerContext) -> Any:
        """The next message (raw bytes) of the call, or StopIteration; the call is cancelled
        when it does not come in time (then grpc raises its RpcError here)."""
        with self._cond:
            crowded = len(self._waiting) >= self.max_receiving
            timeout = self.crowded_timeout if crowded else self.receive_timeout
            key = next(self._ids)
            self._waiting[key] = context
            heap = self._heap
            if len(heap) > 4 * len(self._waiting) + 1024:   # drop finished waits
                heap[:] = [entry for entry in heap if entry[1] in self._waiting]
                heapq.heapify(heap)
            heapq.heappush(heap, (time.monotonic() + timeout, key))
            if self._heap[0][1] == key:
                self._cond.notify()
        try:
            return next(request_iterator)
        finally:
            with self._cond:
                self._waiting.pop(key, None)

    def _run(self) -> None:
        cond = self._cond
        heap = self._heap
        while True:
            expired = []
            with cond:
                while not self._stopped:
                    now = time.monotonic()
                    while heap and (heap[0][0] <= now or heap[0][1] not in self._waiting):
                        _, key = heapq.heappop(heap)
                        context = self._waiting.pop(key, None)
                        if context is not None:
                            expired.append(context)
                    if expired:
                        break
                    cond.wait(heap[0][0] - now if heap else None)
                if self._stopped:
                    return
            for context in expired:
                self.cancelled += 1
                context.cancel()
            expired.clear()
            del context


class LogOnce:
    """Logs a message at most once per key (a connection), remembering the last ``size`` keys."""

    def __init__(self, size: int = 4096) -> None:
        self._seen: dict[str, None] = {}
        self._size = size
        self._lock = threading.Lock()

    def __call__(self, key: str, message: str, *args: object) -> None:
        with self._lock:
            if key in self._seen:
                return
            if len(self._seen) >= self._size:
                self._seen.pop(next(iter(self._seen)))
            self._seen[key] = None
        log.warning(message, *args)
