"""Request field limits, short error quotes, and the main port's receive slots.

Every text field of a unary request has a length limit that is checked before the field is
parsed, so no request costs more than a few microseconds of parsing (service/README.md,
"Limits"). Errors quote at most ``QUOTE_CHARS`` characters of what the client sent.
"""
from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Awaitable, Callable
from typing import Any

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


class ReceiveTimeout(Exception):
    """A request message did not arrive within its timeout."""


class Evicted(Exception):
    """A wait for a request message was ended to make room for a newer call."""


class ReceiveSlots:
    """Bounds the main port's waits for a request message (``receive``; event loop only).

    A call waits for its message on the event loop, holding no thread, but while it waits
    grpc grants its stream window for the whole message it announced: each waiting call may
    buffer up to ``max_message_size``. So while more than ``max_receiving`` calls wait, the
    oldest waits are ended (``Evicted``) as soon as they have waited ``evictable_after``
    seconds: a stalled call holds its slot only while no newer call needs it, and a
    well-behaved call, whose message follows its headers within milliseconds, is never ended
    for a newer one. Each wait also ends after its ``timeout`` (``ReceiveTimeout``).
    """

    def __init__(self, max_receiving: int, evictable_after: float = 0.5) -> None:
        self.max_receiving = max_receiving
        self.evictable_after = evictable_after
        self.timed_out = 0
        self.evicted = 0
        self._waiting: dict[asyncio.Task[Any], float] = {}   # task: since when; oldest first
        self._trim_at: asyncio.TimerHandle | None = None

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    async def receive(self, read: Callable[[], Awaitable[Any]], timeout: float) -> Any:
        """``await read()`` within ``timeout`` s; ReceiveTimeout or Evicted else."""
        task = asyncio.current_task()
        assert task is not None
        waiting = self._waiting
        waiting[task] = asyncio.get_running_loop().time()
        if len(waiting) > self.max_receiving and self._trim_at is None:
            self._trim()
        try:
            async with asyncio.timeout(timeout):
                return await read()
        except TimeoutError:
            self.timed_out += 1
            raise ReceiveTimeout from None
        except asyncio.CancelledError:
            if task not in waiting and task.uncancel() == 0:   # ended by ``_trim``
                self.evicted += 1
                raise Evicted from None
            raise
        finally:
            waiting.pop(task, None)

    def _trim(self) -> None:
        """End the oldest waits past ``max_receiving`` that are old enough; come back when
        the next one will be."""
        waiting = self._waiting
        loop = asyncio.get_running_loop()
        self._trim_at = None
        now = loop.time()
        while len(waiting) > self.max_receiving:
            oldest, since = next(iter(waiting.items()))
            if now - since < self.evictable_after:
                self._trim_at = loop.call_at(since + self.evictable_after, self._trim)
                return
            del waiting[oldest]      # no longer there: its CancelledError means Evicted
            oldest.cancel()


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
