"""Agents: they see only their seat's :class:`PlayerView` and pick one of the legal actions.

The protocol is one method, ``choose(view, actions) -> Action``; ``actions`` is sorted and
never empty. An agent may also define ``observe(event)`` to receive every event of its view
(other seats' draws hidden), ``close()``, and ``chooser(view)``: a callable ``actions ->
Action`` that does what ``choose(view, actions)`` does, which the turn loop then calls directly.
"""
from __future__ import annotations

import contextlib
import os
import random
import subprocess
from collections.abc import Callable
from itertools import compress
from typing import Any, Protocol

from .._core.engine_turn import UniformChoice
from .actions import DISCARD, KITA, PASS, RIICHI, RON, TENPAI, TSUMO, Action
from .view import PlayerView


class Agent(Protocol):
    """What the referee asks of a player: one of the sorted legal ``actions``, given the seat's
    ``view``. An agent may also offer ``observe(event)`` and ``chooser(view)``."""

    def choose(self, view: PlayerView, actions: list[Action]) -> Action:
        """The chosen action (one of ``actions``)."""
        ...


class RandomAgent:
    """Picks uniformly among the legal actions (seeded)."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)
        self.random = self.rng.random

    def choose(self, view: PlayerView, actions: list[Action]) -> Action:
        """A uniformly drawn legal action."""
        return actions[int(self.random() * len(actions))]

    def chooser(self, view: PlayerView) -> Callable[[list[Action]], Action]:
        """``choose`` bound to a view (the same draws from the same generator), compiled."""
        return UniformChoice(self.random)


class TsumogiriAgent:
    """Discards every drawn tile, never calls or wins, and keeps its hand hidden at a draw
    when showing it is optional."""

    name = "tsumogiri"

    def choose(self, view: PlayerView, actions: list[Action]) -> Action:
        """The drawn tile's discard, else a pass, else the first discard."""
        for a in actions:
            if a.type == DISCARD and a.tsumogiri:
                return a
        for a in actions:
            if a.type == PASS.type:
                return a
        for a in actions:
            if a.type == DISCARD:
                return a
        return actions[0]


class EfficiencyAgent:
    """Wins when it can, declares riichi when tenpai, otherwise discards the tile that keeps
    the lowest shanten with the most unseen advancing tiles (ukeire). Never calls; shows its
    tenpai hand at a draw. With three players it sets a north aside (nukidora: a dora and a
    replacement draw) whenever the hand does not need it: in riichi, or when discarding the
    north would not raise its shanten."""

    name = "efficiency"

    def choose(self, view: PlayerView, actions: list[Action]) -> Action:
        """A win, a north set aside, a riichi, or the discard with the best shanten and
        ukeire."""
        discards = []
        riichis = []
        kita = None
        for a in actions:
            t = a.type
            if t in (TSUMO, RON, TENPAI):
                return a
            if t == RIICHI:
                riichis.append(a)
            elif t == DISCARD:
                discards.append(a)
            elif t == KITA:
                kita = a
        if kita is not None:
            if view.in_riichi:
                return kita
            best_shanten, after_discard, _ = view.ukeire()
            if after_discard[kita.tile >> 2] <= best_shanten:
                return kita
        options = riichis or discards
        if not options:
            for a in actions:
                if a.type == PASS.type:
                    return a
            return actions[0]
        if len(options) == 1:
            return options[0]
        _, after, masks = view.ukeire()
        rem = [4 - n for n in view.visible_counts()]
        if view.players == 3:
            rem[1:8] = _NO_TILES          # 2m-8m are not in a three-player wall
        unseen_of: dict[int, int] = {}       # advancing mask -> unseen tiles (masks repeat)
        best = None
        best_key = None
        for a in options:
            k = a.tile >> 2
            mask = masks[k]
            unseen = unseen_of.get(mask)
            if unseen is None:
                # the mask as bytes 0/1 (kind 0 first) selects the kinds to count
                bits = (_BITS9[mask & 511] + _BITS9[(mask >> 9) & 511]
                        + _BITS9[(mask >> 18) & 511] + _BITS9[mask >> 27])
                unseen = unseen_of[mask] = sum(compress(rem, bits))
            # lower shanten, more tiles, then outer tiles (honors, terminals) first
            key = (after[k], -unseen, _OUTER[k], not a.tsumogiri, a.tile)
            if best_key is None or key < best_key:
                best, best_key = a, key
        return best  # type: ignore[return-value]


_BITS9 = tuple(bytes((m >> i) & 1 for i in range(9)) for m in range(512))
_NO_TILES = [0] * 7
# discard order among equals: honors, then terminals, then the rest
_OUTER = tuple(0 if k >= 27 else (1 if k % 9 in (0, 8) else 2) for k in range(34))

AGENTS = {"random": RandomAgent, "tsumogiri": TsumogiriAgent, "efficiency": EfficiencyAgent}


def make_agent(name: str, seed: int = 0) -> Agent:
    """An agent by name: ``random``, ``tsumogiri``, ``efficiency`` or ``mjai:COMMAND``."""
    from ..errors import MjcoreError

    if name.startswith("mjai:"):
        from .mjai import MjaiAgent

        return MjaiAgent(name[5:])
    if name == "random":
        return RandomAgent(seed)
    if name in AGENTS:
        return AGENTS[name]()  # type: ignore[no-any-return]
    raise MjcoreError(f"unknown agent {name!r}; expected one of {', '.join(AGENTS)} "
                      "or mjai:COMMAND")


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
