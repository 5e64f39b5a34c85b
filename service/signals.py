"""Stop signals for the server processes: SIGTERM/SIGINT handlers and a wake-up pipe.

Used by ``server.serve`` (one process) and ``processes.ServerProcesses`` (the parent and each
forked child), so neither of those modules imports the other for them.
"""
from __future__ import annotations

import contextlib
import logging
import os
import select
import signal
from collections.abc import Callable
from types import FrameType
from typing import Any

log = logging.getLogger("mjcore.service")

Handlers = dict[signal.Signals, Any]


def on_stop_signals(then: Callable[[], None]) -> Handlers:
    """SIGTERM and SIGINT log and call ``then``; returns the previous handlers."""

    def on_signal(signum: int, frame: FrameType | None) -> None:
        log.info("received %s, shutting down", signal.Signals(signum).name)
        then()

    return {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}


def restore_signals(previous: Handlers) -> None:
    for s, handler in previous.items():
        signal.signal(s, handler)


class SignalWaker:
    """Wakes the main thread on every signal, whichever thread the kernel delivered it to.

    CPython runs signal handlers in the main thread only, once it runs bytecode again; a
    signal that lands on one of grpc's threads would not end a blocking wait of the main
    thread. With ``signal.set_wakeup_fd`` every signal also writes a byte to a pipe that the
    main thread waits on. Main thread only.
    """

    def __init__(self) -> None:
        self.read_fd, self.write_fd = os.pipe()
        for fd in (self.read_fd, self.write_fd):
            os.set_blocking(fd, False)
        self.previous = signal.set_wakeup_fd(self.write_fd, warn_on_full_buffer=False)

    def wait(self, timeout: float, *fds: int) -> list[int]:
        """Wait up to ``timeout`` s for a signal or for one of ``fds`` to be readable; returns
        the readable ``fds``. The main thread runs the signals' Python handlers right after."""
        readable = select.select([self.read_fd, *fds], [], [], timeout)[0]
        if self.read_fd in readable:
            with contextlib.suppress(BlockingIOError):
                os.read(self.read_fd, 4096)
        return [fd for fd in readable if fd != self.read_fd]

    def close(self) -> None:
        signal.set_wakeup_fd(self.previous)
        os.close(self.read_fd)
        os.close(self.write_fd)
