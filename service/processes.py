"""Pre-forked server processes sharing one port (``mjcore serve --processes N``; Linux).

Each child is a whole single-process server (``server.build`` and ``server.serve_until``, handed
in by ``server.serve``, so this module does not import it) with its own grpc, GIL and thread
pool; the parent only forks, forwards stop signals and reaps.
"""
from __future__ import annotations

import contextlib
import ctypes
import errno
import logging
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from .config import ServerConfig
from .signals import SignalWaker, on_stop_signals, restore_signals

log = logging.getLogger("mjcore.service")

PR_SET_PDEATHSIG = 1       # linux/prctl.h
STARTUP_TIMEOUT = 60.0     # seconds a child gets to bind and start
KILL_MARGIN = 10.0         # seconds past drain + grace before a stuck child is killed


class _StopRequested(Exception):
    """SIGTERM or SIGINT arrived while the children were starting."""


def check_port_free(host: str, port: int) -> None:
    """Raise OSError(EADDRINUSE) when ``host:port`` cannot be bound without SO_REUSEPORT.

    The pre-forked children bind with SO_REUSEPORT, which would silently share the port with
    another SO_REUSEPORT listener of the same user (a second ``mjcore serve --processes``);
    probing first keeps "port in use" an error, as with one process.
    """
    try:
        infos = socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    except socket.gaierror:
        return  # grpc reports the unresolvable host when a child binds
    for family, kind, proto, _name, address in infos:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as grpc does
            try:
                probe.bind(address)
            except OSError as err:
                if err.errno == errno.EADDRINUSE:
                    raise OSError(errno.EADDRINUSE,
                                  f"port {port} is in use on {address[0]}") from None


def _describe(exit_code: int) -> str:
    if exit_code < 0:
        return f"was killed by {signal.Signals(-exit_code).name}"
    return f"exited with status {exit_code}"


class ServerProcesses:
    """``config.processes`` forked server processes on one port (SO_REUSEPORT, Linux).

    The parent forks before it creates any grpc object, so each child starts grpc afresh.
    Port 0: the first child binds a free port and the others join it. SIGTERM or SIGINT to the
    parent is forwarded to every child, each of which shuts down gracefully; the parent exits
    0 when all of them exit 0. A child that exits while the service runs is logged, the others
    are shut down and the parent exits 1. A child still running ``drain + grace + 10`` s after
    the stop is killed. Children get SIGTERM if the parent dies (PR_SET_PDEATHSIG).
    """

    def __init__(self, config: ServerConfig, build: Callable[[ServerConfig], Any],
                 serve_until: Callable[[Any, threading.Event, Callable[[int], None]], None]
                 ) -> None:
        self.config = config
        self.build = build              # a child's server: server.build
        self.serve_until = serve_until  # and how it serves: server.serve_until
        self.stop = threading.Event()     # a stop signal (in the parent, or a fresh child)
        self.waker: SignalWaker | None = None
        self.running: dict[int, int] = {}  # pid -> child index
        self.reported: set[int] = set()    # children that reported their own start-up error
        self.failed = False
        self.stopping = False
        self.kill_at = float("inf")

    def run(self, ready: Callable[[int], None] | None = None) -> int:
        """Start the children, call ``ready(port)``, supervise; returns the exit status."""

        previous = on_stop_signals(self.stop.set)
        # a handler, not SIG_DFL, so that a child's exit wakes the waker
        previous[signal.SIGCHLD] = signal.signal(signal.SIGCHLD, lambda signum, frame: None)
        waker = self.waker = SignalWaker()
        try:
            try:
                port = self._start_all()
            except _StopRequested:
                port = None
            except BaseException:
                self._begin_stop()
                self._supervise()
                raise
            if port is not None:
                log.info("serving on port %d with %d processes: %s", port,
                         len(self.running), " ".join(map(str, self.running)))
                if ready is not None:
                    ready(port)
            return self._supervise()
        finally:
            waker.close()
            restore_signals(previous)

    def _start_all(self) -> int:
        """Fork every child and wait until each serves; the shared port."""
        config = self.config
        first = 0
        if config.unary_port is not None:  # fixed when processes > 1 (ServerConfig checks)
            check_port_free(config.host, config.unary_port)
        if config.port == 0:  # the first child picks the port, the others join it
            config = replace(config, port=self._await_ready(*self._fork(config, 0)))
            first = 1
        else:
            check_port_free(config.host, config.port)
        pending = [self._fork(config, i) for i in range(first, config.processes)]
        try:
            while pending:
                self._await_ready(*pending[0])
                pending.pop(0)
        finally:
            for _pid, fd in pending[1:]:
                os.close(fd)
        return config.port

    def _fork(self, config: ServerConfig, index: int) -> tuple[int, int]:
        """Fork child ``index``; returns its pid and the read end of its report pipe."""
        if self.stop.is_set():
            raise _StopRequested
        read_fd, write_fd = os.pipe()
        parent = os.getpid()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            status = 1
            try:
                os.close(read_fd)
                status = self._child(config, write_fd, parent)
            except BaseException:
                log.exception("server process %d failed", os.getpid())
            finally:
                logging.shutdown()
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(status)
        os.close(write_fd)
        self.running[pid] = index
        return pid, read_fd

    def _child(self, config: ServerConfig, report_fd: int, parent: int) -> int:
        """The body of a forked child: build, report "ready PORT" or "error MESSAGE", serve."""
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        if self.waker is not None:  # the parent's; serve_until sets up the child's own
            self.waker.close()
            self.waker = None
        self.running.clear()
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) != 0:
            log.warning("prctl(PR_SET_PDEATHSIG) failed: errno %d", ctypes.get_errno())
        if os.getppid() != parent:  # the parent died before prctl took effect
            self.stop.set()
        try:
            built = self.build(config)
        except (OSError, RuntimeError, ValueError) as err:
            os.write(report_fd, f"error {err}\n".encode())
            return 1

        def ready(port: int) -> None:
            os.write(report_fd, f"ready {port}\n".encode())
            os.close(report_fd)

        self.serve_until(built, self.stop, ready)
        return 0

    def _await_ready(self, pid: int, fd: int) -> int:
        """The port child ``pid`` reports once it serves; raises if it fails to start."""
        report = b""
        give_up = time.monotonic() + STARTUP_TIMEOUT
        try:
            while not report.endswith(b"\n"):
                if self.stop.is_set():
                    raise _StopRequested
                if time.monotonic() > give_up:
                    raise RuntimeError(f"server process {pid} did not start within "
                                       f"{STARTUP_TIMEOUT:.0f} s")
                if self._wait(1.0, fd):
                    chunk = os.read(fd, 4096)
                    if not chunk:
                        break
                    report += chunk
        finally:
            os.close(fd)
        word, _, rest = report.decode(errors="replace").strip().partition(" ")
        if word == "ready":
            return int(rest)
        if word == "error":
            self.reported.add(pid)
            raise RuntimeError(rest)
        raise RuntimeError(f"server process {pid} exited before it was ready")

    def _begin_stop(self) -> None:
        if self.stopping:
            return
        self.stopping = True
        self.kill_at = time.monotonic() + self.config.drain + self.config.grace + KILL_MARGIN
        for pid in self.running:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)

    def _reap(self) -> None:
        for pid in list(self.running):
            done, status = os.waitpid(pid, os.WNOHANG)
            if done == 0:
                continue
            del self.running[pid]
            code = os.waitstatus_to_exitcode(status)
            if not self.stopping:
                log.error("server process %d %s while serving; stopping the others",
                          pid, _describe(code))
                self.failed = True
                self._begin_stop()
            elif code != 0 and pid not in self.reported:
                log.error("server process %d %s during shutdown", pid, _describe(code))
                self.failed = True

    def _wait(self, timeout: float, *fds: int) -> list[int]:
        assert self.waker is not None
        return self.waker.wait(timeout, *fds)

    def _supervise(self) -> int:
        """Until every child is gone: reap, forward a stop, kill the stuck; the exit status."""
        while True:
            self._reap()
            if self.stop.is_set():
                self._begin_stop()
            if not self.running:
                return 1 if self.failed else 0
            if time.monotonic() > self.kill_at:
                for pid in self.running:
                    log.error("server process %d still running %.0f s after the stop; killing "
                              "it", pid, self.config.drain + self.config.grace + KILL_MARGIN)
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
                self.failed = True
                self.kill_at = float("inf")
            self._wait(1.0)
