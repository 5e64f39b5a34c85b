"""Issue 11: no number of stalled calls can take the main port's workers.

A raw HTTP/2 attacker keeps opening calls that send HEADERS and never their message, far more
than there are workers, for several seconds, and never lets its connections go idle long
enough for the receive timeout to matter (it is 10 s here). It connects from 127.0.0.2, another
client host to the server. Beside it, the ``Bystander`` of ``test_attacks`` (unary, health and
bulk calls on the main port, unary calls on the front, from 127.0.0.1) must get every answer
within its 2 s deadline.
"""
from __future__ import annotations

import asyncio
import threading
import time
from collections import deque
from typing import Self

import pytest

from mjcore.service import ServerConfig, build
from mjcore.service.limits import (
    Evicted,
    IdleTrim,
    PeerCalls,
    ReceiveSlots,
    ReceiveTimeout,
    peer_host,
)

from .service_helpers import TOKEN
from .test_attacks import ANALYZE, HAND, SERVICE, Bystander, Raw, _fill, _stall

WORKERS = 4
FLOOD_SECONDS = 4.0
ATTACKER = "127.0.0.2"   # a loopback address of its own: another client host to the server
GOOD = (("authorization", f"Bearer {TOKEN}"),)


class Flood:
    """Two threads (a unary and a bulk method) each opening a connection of 16 stalled calls
    every ``interval`` s (800 calls/s in all), keeping its newest 125 connections open (5 s,
    2,000 calls) and closing older ones. (With the sync server of before, well-behaved calls
    then missed their 2 s deadline within the first seconds.)"""

    def __init__(self, port: int, extra=(), threads: int = 2, interval: float = 0.04,
                 source: str = ATTACKER) -> None:
        self.port = port
        self.source = source
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
                open_now.append(_stall(self.port, 16, path, self.extra, self.source))
                self.calls += 16
                if len(open_now) > 125:
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


def _settled(server, give_up: float = 10.0) -> bool:
    """True once the main port holds no call and no wait of any peer (within ``give_up`` s)."""
    end = time.monotonic() + give_up
    while time.monotonic() < end:
        if not server.main.guard.peer_calls.calls and not server.slots.peers:
            return True
        time.sleep(0.05)
    return False


def test_a_flood_faster_than_the_server_evicts_takes_only_its_peers_share():
    """800 stalled calls a second against 128 concurrent calls: without the per-peer share,
    the 0.5 s every stalled wait is kept for fills the server's 128 calls (about 400 wait) and
    every new call, the bystander's too, is refused RESOURCE_EXHAUSTED; with it, the
    attacker's host holds at most 32 and its further calls are refused at once."""
    server = build(ServerConfig(port=0, unary_port=0, drain=0, grace=1, workers=WORKERS,
                                receive_timeout=10, stream_timeout=10,
                                max_streams_per_connection=16, max_concurrent_calls=128,
                                max_calls_per_peer=32))
    server.start()
    try:
        with Bystander(server) as bystander, Flood(server.port) as flood:
            end = time.monotonic() + FLOOD_SECONDS
            while time.monotonic() < end:
                bystander.wait_for_answers("while stalled calls flood the main port")
                assert server.main.guard.peer_calls.calls.get(ATTACKER, 0) <= 32
        assert not flood.errors, flood.errors[:3]
        assert flood.calls >= 2000, flood.calls
        assert server.main.guard.peer_calls.refused >= flood.calls // 4
        # the bookkeeping goes with the calls
        assert _settled(server), (server.main.guard.peer_calls.calls, server.slots.peers)
    finally:
        server.shutdown(0, 0)


@pytest.mark.parametrize("peer,host", [
    ("ipv4:127.0.0.2:5555", "127.0.0.2"), ("ipv6:%5B::1%5D:443", "::/64"),
    ("ipv6:[2001:db8::7]:80", "2001:db8::/64"),
    ("ipv6:%5B2001:db8:0:1:ffff:1:2:3%5D:80", "2001:db8:0:1::/64"),
    ("ipv6:%5Bfe80::1%25eth0%5D:80", "fe80::/64"), ("ipv6:%5B::ffff:10.0.0.1%5D:9", "10.0.0.1"),
    ("unix:/run/mjcore.sock", "unix"), ("unix-abstract:mjcore", "unix-abstract")])
def test_peers_are_grouped_by_host(peer, host):
    assert peer_host(peer) == host


def test_the_addresses_of_one_ipv6_64_share_one_host_and_other_64s_do_not():
    one = {peer_host(f"ipv6:%5B2001:db8:aa:bb:{i:x}:{i:x}:{i:x}:{i:x}%5D:{1000 + i}")
           for i in range(1, 200)}
    assert one == {"2001:db8:aa:bb::/64"}
    assert peer_host("ipv6:%5B2001:db8:aa:bc::1%5D:1") != "2001:db8:aa:bb::/64"


def test_a_peer_over_its_call_share_is_refused_and_its_entry_goes_with_its_last_call():
    calls = PeerCalls(2)
    assert [calls.enter("a"), calls.enter("a"), calls.enter("a"), calls.enter("b")] \
        == [True, True, False, True]
    assert calls.refused == 1
    calls.leave("a")
    assert calls.enter("a")
    for host in ("a", "a", "b"):
        calls.leave(host)
    assert calls.calls == {}


def test_the_heap_is_trimmed_once_per_idle_period_after_the_port_was_idle_long_enough():
    async def scenario() -> None:
        trims: list[int] = []
        calls = PeerCalls(8)
        idle = IdleTrim(calls, lambda: trims.append(calls.in_flight), delay=0.05)
        calls.on_idle = idle.became_idle
        calls.enter("a")
        await asyncio.sleep(0.1)          # a call in progress: never trimmed
        assert trims == []
        calls.leave("a")
        for _ in range(5):                # calls coming and going postpone it
            await asyncio.sleep(0.02)
            calls.enter("b")
            calls.leave("b")
            assert trims == []
        await asyncio.sleep(0.1)
        assert trims == [0]
        await asyncio.sleep(0.1)          # once per idle period
        assert trims == [0]
        calls.enter("a")
        calls.leave("a")
        await asyncio.sleep(0.1)
        assert trims == [0, 0]

    asyncio.run(scenario())


def test_the_server_trims_its_heap_when_the_main_port_is_idle():
    server = build(ServerConfig(port=0, drain=0, grace=1))
    server.start()
    try:
        idle = server.main.trim_heap_when_idle(0.05)
        if idle is None:
            pytest.skip("no glibc malloc_trim here")
        import grpc

        with grpc.insecure_channel(f"127.0.0.1:{server.port}") as ch:
            ch.unary_unary(ANALYZE)(HAND, timeout=5)
        end = time.monotonic() + 5
        while not idle.trims and time.monotonic() < end:
            time.sleep(0.02)
        assert idle.trims == 1
    finally:
        server.shutdown(0, 0)


def test_a_peer_over_its_receiving_share_has_its_own_oldest_waits_ended():
    async def scenario() -> None:
        slots = ReceiveSlots(8, max_per_peer=2, evictable_after=0.05)
        loop = asyncio.get_running_loop()
        other = loop.create_task(slots.receive(loop.create_future, 30, "bystander"))
        await asyncio.sleep(0.1)    # older than any of the attacker's: still not ended
        flood = [loop.create_task(slots.receive(loop.create_future, 30, "attacker"))
                 for _ in range(5)]
        await asyncio.wait(flood, timeout=5, return_when=asyncio.FIRST_EXCEPTION)
        await asyncio.sleep(0.2)
        assert [t.done() for t in flood] == [True, True, True, False, False]
        assert not other.done()
        assert (slots.evicted, slots.waiting, slots.peers) == (3, 3, 2)
        for task in [other, *flood[3:]]:
            task.cancel()
        await asyncio.gather(other, *flood, return_exceptions=True)
        assert (slots.waiting, slots.peers) == (0, 0)

    asyncio.run(scenario())


def test_waits_for_a_message_past_the_cap_end_oldest_first_once_old_enough():
    async def scenario() -> None:
        slots = ReceiveSlots(2, evictable_after=0.05)
        loop = asyncio.get_running_loop()
        stalled = [loop.create_task(slots.receive(loop.create_future, 30)) for _ in range(4)]
        await asyncio.wait(stalled, timeout=5, return_when=asyncio.FIRST_EXCEPTION)
        await asyncio.sleep(0.2)       # no further eviction: two waits, the cap
        assert [t.done() for t in stalled] == [True, True, False, False]
        for task in stalled[:2]:
            with pytest.raises(Evicted):
                task.result()
        assert (slots.evicted, slots.waiting) == (2, 2)
        for task in stalled[2:]:       # ended from outside: cancelled, not evicted
            task.cancel()
        await asyncio.gather(*stalled[2:], return_exceptions=True)
        assert all(t.cancelled() for t in stalled[2:])
        assert (slots.evicted, slots.waiting) == (2, 0)

    asyncio.run(scenario())


def test_a_message_that_arrives_is_never_evicted_and_a_silent_wait_times_out():
    async def scenario() -> None:
        slots = ReceiveSlots(1, evictable_after=0.05)
        loop = asyncio.get_running_loop()

        async def soon() -> bytes:
            await asyncio.sleep(0.01)
            return b"message"

        silent = loop.create_task(slots.receive(loop.create_future, 0.3))
        answers = [await slots.receive(soon, 5) for _ in range(3)]   # over the cap briefly
        assert answers == [b"message"] * 3
        with pytest.raises(ReceiveTimeout):
            await silent
        assert (slots.evicted, slots.timed_out, slots.waiting) == (0, 1, 0)

    asyncio.run(scenario())


@pytest.mark.parametrize("limits,source", [
    ({"max_receiving": 2}, None),                                   # the process cap
    ({"max_receiving": 16, "max_receiving_per_peer": 2}, ATTACKER),  # one host's share
], ids=["process", "host"])
def test_whole_messages_are_buffered_only_for_two_receiving_calls(limits, source):
    server = build(ServerConfig(port=0, drain=0, grace=1, max_message_size=1 << 20,
                                receive_timeout=10, **limits))
    server.main.slots.evictable_after = 0.05
    server.start()
    raw = Raw(server.port, preface=False, source=source)
    try:
        # 16 calls announcing 1,000,000-byte messages, body sent as fast as windows open
        accepted = _fill(raw, 16, 1_000_000)
        # without the cap, 16 x 1 MB would be granted (as far as _fill sends: 7.8 MB)
        assert accepted <= 2 * 1_000_000 + 16 * 160 * 1024, accepted
        assert server.slots.evicted >= 14
    finally:
        raw.close()
        server.shutdown(0, 0)


def test_open_health_watches_hold_no_worker():
    """Watch streams stay open as long as their clients like; each used to hold a worker."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    from mjcore.wire.v1 import analysis_service_pb2 as pb
    from mjcore.wire.v1 import types_pb2

    serving, not_serving = (health_pb2.HealthCheckResponse.SERVING,
                            health_pb2.HealthCheckResponse.NOT_SERVING)
    batch = pb.StreamShantenRequest(hands=types_pb2.PackedHands(
        encoding=types_pb2.HAND_ENCODING_TEXT_LINES,
        data=b"123m456p789s1122z\n" * 10)).SerializeToString()
    server = build(ServerConfig(port=0, drain=0, grace=1, workers=2))
    server.start()
    try:
        with grpc.insecure_channel(f"127.0.0.1:{server.port}") as ch:
            stub = health_pb2_grpc.HealthStub(ch)
            watches = [stub.Watch(health_pb2.HealthCheckRequest(), timeout=30)
                       for _ in range(10)]
            assert [next(w).status for w in watches] == [serving] * 10
            # a bulk stream needs one of the two workers
            answers = list(ch.stream_stream(SERVICE + "StreamShanten")(iter([batch] * 2),
                                                                       timeout=2))
            assert len(answers) == 2
            server.health.set("", not_serving)
            assert {next(w).status for w in watches} == {not_serving}
            for watch in watches:
                watch.cancel()
    finally:
        server.shutdown(0, 0)
