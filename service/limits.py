"""Request field limits, short error quotes, and the main port's receive slots.

Every text field of a unary request has a length limit that is checked before the field is
parsed, so no request costs more than a few microseconds of parsing (service/README.md,
"Limits"). Errors quote at most ``QUOTE_CHARS`` characters of what the client sent.
"""
from __future__ import annotations

import asyncio
import functools
import ipaddress
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


IPV6_HOST_PREFIX = 64        # an IPv6 client host is its /64, one subscriber's usual network


@functools.lru_cache(maxsize=4096)
def peer_host(peer: str) -> str:
    """The client host of a grpc peer string, the key of the per-peer shares:
    ``ipv4:1.2.3.4:5`` is ``1.2.3.4``; an IPv6 peer is its /64 network (``ipv6:%5B2001:db8::7%5D:5``
    is ``2001:db8::/64``: one subscriber gets a whole /64, so its addresses share one share),
    an IPv4-mapped address its IPv4 address; every other kind of peer (``unix:...``) is its
    scheme."""
    scheme, _, address = peer.partition(":")
    if scheme == "ipv4":
        return address.rpartition(":")[0]
    if scheme == "ipv6":
        host = address.rpartition(":")[0].replace("%5B", "").replace("%5D", "").strip("[]")
        if host.startswith("::ffff:") and "." in host:
            return host[7:]
        try:
            return str(ipaddress.IPv6Network(f"{host.partition('%')[0]}/{IPV6_HOST_PREFIX}",
                                             strict=False))
        except ValueError:
            return host
    return scheme


class PeerCalls:
    """The main port's calls in progress per peer host (event loop only): ``enter`` refuses
    a host that has ``max_per_peer`` calls already. A host's entry goes with its last call;
    ``on_idle()`` is called whenever the last call in progress ends."""

    def __init__(self, max_per_peer: int, on_idle: Callable[[], None] | None = None) -> None:
        self.max_per_peer = max_per_peer
        self.on_idle = on_idle
        self.refused = 0
        self.in_flight = 0
        self.calls: dict[str, int] = {}

    def enter(self, host: str) -> bool:
        calls = self.calls.get(host, 0)
        if calls >= self.max_per_peer:
            self.refused += 1
            return False
        self.calls[host] = calls + 1
        self.in_flight += 1
        return True

    def leave(self, host: str) -> None:
        calls = self.calls[host] - 1
        if calls:
            self.calls[host] = calls
        else:
            del self.calls[host]
        self.in_flight -= 1
        if not self.in_flight and self.on_idle is not None:
            self.on_idle()


class IdleTrim:
    """Calls ``trim()`` once the main port has had no call in progress for ``delay`` seconds,
    at most once per idle period (``became_idle`` is ``PeerCalls.on_idle``; event loop only).

    The server's ``trim`` is glibc's ``malloc_trim(0)``: grpc receives a request in many small
    slices, so the memory of large or unfinished requests, freed, stays in glibc's arenas
    until trimmed (``service/README.md``, "Limits")."""

    def __init__(self, calls: PeerCalls, trim: Callable[[], object], delay: float = 1.0) -> None:
        self.calls = calls
        self.trim = trim
        self.delay = delay
        self.trims = 0
        self._idle_since = 0.0
        self._timer: asyncio.TimerHandle | None = None

    def became_idle(self) -> None:
        loop = asyncio.get_running_loop()
        self._idle_since = loop.time()
        if self._timer is None:
            self._timer = loop.call_at(self._idle_since + self.delay, self._check)

    def _check(self) -> None:
        self._timer = None
        if self.calls.in_flight:
            return           # busy again: the next idle period arms it again
        loop = asyncio.get_running_loop()
        due = self._idle_since + self.delay
        if loop.time() < due:     # calls came and went meanwhile
            self._timer = loop.call_at(due, self._check)
            return
        self.trims += 1
        self.trim()


# the waits of one peer host: task -> since when, oldest first
PeerWaits = dict[asyncio.Task[Any], float]


class ReceiveSlots:
    """Bounds the main port's waits for a request message (``receive``; event loop only).

    A call waits for its message on the event loop, holding no thread, but while it waits
    grpc grants its stream window for the whole message it announced: each waiting call may
    buffer up to ``max_message_size``. So while one peer host has more than ``max_per_peer``
    waits, its oldest waits are ended (``Evicted``) as soon as they have waited
    ``evictable_after`` seconds, and while more than ``max_receiving`` calls wait in all, the
    oldest waits of any peer are, in the same way: a stalled call holds its slot only while
    no newer call needs it, and a well-behaved call, whose message follows its headers within
    milliseconds, is never ended for a newer one. Each wait also ends after its ``timeout``
    (``ReceiveTimeout``).
    """

    def __init__(self, max_receiving: int, max_per_peer: int | None = None,
                 evictable_after: float = 0.5) -> None:
        self.max_receiving = max_receiving
        self.max_per_peer = max_receiving if max_per_peer is None else max_per_peer
        self.evictable_after = evictable_after
        self.timed_out = 0
        self.evicted = 0
        # task: (since when, its peer's waits); oldest first
        self._waiting: dict[asyncio.Task[Any], tuple[float, PeerWaits]] = {}
        self._by_peer: dict[str, PeerWaits] = {}
        self._trim_at: asyncio.TimerHandle | None = None
        self._peer_trim_at: dict[str, asyncio.TimerHandle] = {}

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    @property
    def peers(self) -> int:
        """Peer hosts with a wait (or a trim due): the bookkeeping's size."""
        return len(self._by_peer.keys() | self._peer_trim_at.keys())

    async def receive(self, read: Callable[[], Awaitable[Any]], timeout: float,
                      peer: str = "") -> Any:
        """``await read()`` within ``timeout`` s; ReceiveTimeout or Evicted else."""
        task = asyncio.current_task()
        assert task is not None
        waiting = self._waiting
        mine = self._by_peer.get(peer)
        if mine is None:
            mine = self._by_peer[peer] = {}
        mine[task] = since = asyncio.get_running_loop().time()
        waiting[task] = (since, mine)
        if len(mine) > self.max_per_peer and peer not in self._peer_trim_at:
            self._trim_peer(peer)
        if len(waiting) > self.max_receiving and self._trim_at is None:
            self._trim()
        try:
            async with asyncio.timeout(timeout):
                return await read()
        except TimeoutError:
            self.timed_out += 1
            raise ReceiveTimeout from None
        except asyncio.CancelledError:
            if task not in waiting and task.uncancel() == 0:   # ended by a trim
                self.evicted += 1
                raise Evicted from None
            raise
        finally:
            if waiting.pop(task, None) is not None:
                del mine[task]
            if not mine and self._by_peer.get(peer) is mine:
                del self._by_peer[peer]
                trim_at = self._peer_trim_at.pop(peer, None)
                if trim_at is not None:
                    trim_at.cancel()

    def _evict(self, task: asyncio.Task[Any]) -> None:
        _, mine = self._waiting.pop(task)   # no longer there: its CancelledError means Evicted
        del mine[task]
        task.cancel()

    def _trim(self) -> None:
        """End the oldest waits past ``max_receiving`` that are old enough; come back when
        the next one will be."""
        waiting = self._waiting
        loop = asyncio.get_running_loop()
        self._trim_at = None
        now = loop.time()
        while len(waiting) > self.max_receiving:
            oldest, (since, _) = next(iter(waiting.items()))
            if now - since < self.evictable_after:
                self._trim_at = loop.call_at(since + self.evictable_after, self._trim)
                return
            self._evict(oldest)

    def _trim_peer(self, peer: str) -> None:
        """``_trim`` for one peer's waits past ``max_per_peer``."""
        loop = asyncio.get_running_loop()
        self._peer_trim_at.pop(peer, None)
        mine = self._by_peer.get(peer)
        if mine is None:
            return
        now = loop.time()
        while len(mine) > self.max_per_peer:
            oldest, since = next(iter(mine.items()))
            if now - since < self.evictable_after:
                self._peer_trim_at[peer] = loop.call_at(since + self.evictable_after,
                                                        self._trim_peer, peer)
                return
            self._evict(oldest)


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
