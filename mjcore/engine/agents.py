"""What both games' agents share: the seeded random agent, and the machinery of an agent that
runs in another process (its command, its process and process group, a line sent and an answer
read within a time limit).

An agent picks one of the legal actions given its seat's view: ``choose(view, actions)``, with
``actions`` sorted and never empty; each game's agents (:mod:`mjcore.riichi.agents`,
:mod:`mjcore.classical.engine.agents`) take its own view and actions.
"""
from __future__ import annotations

import contextlib
import os
import random
import subprocess
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from .._core.engine_turn import UniformChoice

A = TypeVar("A")


class RandomAgent:
    """Picks uniformly among the legal actions (seeded), in either game."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)
        self.random = self.rng.random

    def choose(self, view: object, actions: Sequence[A]) -> A:
        """A uniformly drawn legal action."""
        return actions[int(self.random() * len(actions))]

    def chooser(self, view: object) -> Callable[[list[A]], A]:
        """``choose`` bound to a view (the same draws from the same generator), compiled."""
        return UniformChoice(self.random)


@contextlib.contextmanager
def closing_agents(agents: list[Any]) -> Iterator[list[Any]]:
    """The agents of one game; on the way out each that has a ``close`` (a process) is closed."""
    try:
        yield agents
    finally:
        for agent in agents:
            close = getattr(agent, "close", None)
            if close:
                close()


def agent_command(spec: str, prefix: str) -> list[str]:
    """The command of an out-of-process agent given as ``PREFIX COMMAND`` (``mjai:python bot.py``
    for riichi, ``json:...`` for classical), split as a shell would. Raises ValueError naming the
    spec when the command is missing, unparseable or not found on PATH, so a game never starts
    with an agent that cannot run."""
    import shlex
    import shutil

    try:
        argv = shlex.split(spec[len(prefix):])
    except ValueError as exc:
        raise ValueError(f"--agents {spec!r}: {exc}") from None
    if not argv:
        raise ValueError(f"--agents {spec!r}: no command after {prefix!r}")
    if shutil.which(argv[0]) is None:
        raise ValueError(f"--agents {spec!r}: command {argv[0]!r} not found or not executable")
    return argv


MAX_ANSWER_BYTES = 1 << 20      # the longest answer line an agent process may send


def start_process(argv: list[str], **options: Any) -> subprocess.Popen[bytes]:
    """Start an agent's process with pipes to its input and output, in a session (and process
    group) of its own, so that :func:`stop_process` ends the helpers it starts too."""
    return subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0,
                            start_new_session=os.name == "posix", **options)


def stop_process(proc: subprocess.Popen[bytes], wait: float) -> None:
    """End an agent's process: close its input, give it ``wait`` seconds to exit, then kill
    it and whatever is left of its process group (helpers it started); its pipes are closed
    whether it was still running or had died."""
    try:
        if proc.returncode is None:
            with contextlib.suppress(OSError):
                if proc.stdin is not None:
                    proc.stdin.close()
            _exited(proc, wait)      # not reaped yet: its pid still names its group
            _kill_group(proc)
            if proc.poll() is None:
                proc.kill()
            proc.wait()
        else:
            _kill_group(proc)
    finally:
        for pipe in (proc.stdin, proc.stdout):
            if pipe is not None:
                with contextlib.suppress(OSError):   # a write end whose reader is gone
                    pipe.close()


def _exited(proc: subprocess.Popen[bytes], wait: float) -> bool:
    """Wait up to ``wait`` seconds for ``proc`` to exit without reaping it."""
    import time

    deadline = time.monotonic() + wait
    while True:
        try:
            if os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT):
                return True
        except (ChildProcessError, AttributeError):     # reaped already, or not POSIX
            return proc.poll() is not None or _wait(proc, deadline)
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.01)


def _wait(proc: subprocess.Popen[bytes], deadline: float) -> bool:
    import time

    try:
        proc.wait(timeout=max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        return False
    return True


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the process group ``proc`` leads (started by :func:`start_process`)."""
    if os.name != "posix":
        return
    import signal

    with contextlib.suppress(OSError):          # no such group: nothing left
        if os.getpgid(proc.pid) == proc.pid:
            os.killpg(proc.pid, signal.SIGKILL)


def _ready(fd: int, event: int, deadline: float) -> bool:
    """Whether ``fd`` is ready for ``event`` (select.POLLIN / POLLOUT; a closed other end counts
    as ready, so the read or write that follows reports it) before ``deadline`` (monotonic).
    poll, not select: any descriptor number works."""
    import select
    import time

    poller = select.poll()
    poller.register(fd, event)
    return bool(poller.poll(max(0, int((deadline - time.monotonic()) * 1000) + 1)))


def send_line(stream: Any, line: bytes, timeout: float) -> None:
    """Write one message line to an agent process's input, all of it within ``timeout``
    seconds, so a bot that stops reading (its pipe full) never stalls a game. Raises
    TimeoutError when the process does not take it in time, BrokenPipeError when it has closed
    its input (both are OSErrors)."""
    import os
    import select
    import time

    fd = stream.fileno()
    os.set_blocking(fd, False)
    deadline = time.monotonic() + timeout
    rest = memoryview(line)
    while rest:
        if not _ready(fd, select.POLLOUT, deadline):
            raise TimeoutError(f"did not take a message within {timeout:g} s (not reading "
                               "its input)")
        try:
            rest = rest[os.write(fd, rest):]
        except BlockingIOError:
            continue


class AnswerLines:
    """Reads an agent process's answers a line at a time, each within ``timeout`` seconds and
    :data:`MAX_ANSWER_BYTES` bytes, so a bot that hangs or floods never stalls a game. Both
    games' process agents (mjai, classical JSON lines) read through it."""

    def __init__(self, stream: Any, timeout: float) -> None:
        self.fd = stream.fileno()
        self.timeout = timeout
        self._buf = b""

    def readline(self) -> str:
        """The next line, without its newline. Raises TimeoutError when none arrives in time,
        ValueError when it is too long, EOFError when the process closed its output."""
        import os
        import select
        import time

        deadline = time.monotonic() + self.timeout
        while b"\n" not in self._buf:
            if len(self._buf) > MAX_ANSWER_BYTES:
                raise ValueError(f"an answer line longer than {MAX_ANSWER_BYTES} bytes")
            if not _ready(self.fd, select.POLLIN, deadline):
                raise TimeoutError(f"no answer within {self.timeout:g} s")
            chunk = os.read(self.fd, 65536)
            if not chunk:
                raise EOFError("closed its output")
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        return line.decode("utf-8", "replace")
