"""Classical agents: they see only their seat's :class:`~.view.ClassicalView` and pick one of
the legal actions (the protocol of :mod:`mjcore.engine.agents`: ``choose(view, actions)``,
optional ``observe(event)`` and ``close()``).

- ``random``: uniform among the legal actions (seeded).
- ``efficiency``: goes Mah-Jong whenever it can; discards for the lowest classical shanten with
  the most unseen advancing tiles; declares kongs and claims pungs, kongs and chows when they
  bring the hand closer to Mah-Jong (pungs that score doubles also when they keep it as close).
- ``json:COMMAND``: a program in another process speaking JSON lines
  (:class:`ProcessAgent`).
"""
from __future__ import annotations

import json
import shlex
import subprocess
from itertools import compress
from typing import Any

from ...engine.agents import (
    MAX_ANSWER_BYTES,
    AnswerLines,
    RandomAgent,
    send_line,
    start_process,
    stop_process,
)
from ...errors import AgentError, MjcoreError
from .handcalc import USE_PAIR, USE_PUNG, shanten, ukeire
from .records import to_json
from .referee import (
    ADD_KONG,
    CHOW,
    CONCEALED_KONG,
    DISCARD,
    FISHING,
    KONG,
    MAHJONG,
    MAHJONG_CLAIM,
    PASS,
    PUNG,
    Action,
    ActionType,
)
from .view import ClassicalView

__all__ = ["AgentError", "EfficiencyAgent", "ProcessAgent", "RandomAgent", "make_agent"]

# discard order among equals: honours, then terminals, then the rest
_OUTER = tuple(0 if k >= 27 else (1 if k % 9 in (0, 8) else 2) for k in range(34))
_USE_ORDER = {USE_PAIR: 0, USE_PUNG: 1}
_DISCARD_OF = tuple(Action(DISCARD, k) for k in range(34))


_BITS9 = tuple(bytes((m >> i) & 1 for i in range(9)) for m in range(512))


def _unseen_advancing(mask: int, unseen: list[int]) -> int:
    """The unseen tiles of the kinds in ``mask``."""
    bits = (_BITS9[mask & 511] + _BITS9[(mask >> 9) & 511] + _BITS9[(mask >> 18) & 511]
            + _BITS9[mask >> 27])
    return sum(compress(unseen, bits))


class EfficiencyAgent:
    """See the module text."""

    name = "efficiency"

    def choose(self, view: ClassicalView, actions: list[Action]) -> Action:
        """Mah-Jong whenever it is offered, else the discard or claim of the module text."""
        last = actions[-1].type
        if actions[0].type == ActionType.PASS:
            if last == MAHJONG_CLAIM:
                wins = [a for a in actions if a.type == MAHJONG_CLAIM]
                return min(wins, key=lambda a: _USE_ORDER.get(a.form, 2))
            return self._claim(view, actions)
        if last >= MAHJONG:
            for a in actions:
                if a.type == MAHJONG:
                    return a
        return self._turn(view, actions)

    def _turn(self, view: ClassicalView, actions: list[Action]) -> Action:
        if len(actions) == 1 or actions[1].type != DISCARD:
            return actions[0]           # one discard (Original Call locks the hand)
        counts = view.counts
        n = view.n_sets
        forms = view.forms
        best, after, masks = ukeire(bytes(counts), n, forms)
        if actions[-1].type >= CONCEALED_KONG:
            for a in actions:
                if a.type == CONCEALED_KONG or a.type == ADD_KONG:
                    k = a.tile
                    take = 4 if a.type == CONCEALED_KONG else 1
                    counts[k] -= take
                    s = shanten(bytes(counts), n + (1 if take == 4 else 0), forms)
                    counts[k] += take
                    if s <= best:
                        return a
        best_kinds = [k for k in range(34) if after[k] == best]
        if len(best_kinds) == 1:
            return self._announce(actions, best_kinds[0])
        unseen = view.unseen_counts()
        counted: dict[int, int] = {}
        pick = best_kinds[0]
        key = None
        for k in best_kinds:
            mask = masks[k]
            n_unseen = counted.get(mask)
            if n_unseen is None:
                n_unseen = counted[mask] = _unseen_advancing(mask, unseen)
            kk = (-n_unseen, _OUTER[k], k)
            if key is None or kk < key:
                pick, key = k, kk
        return self._announce(actions, pick)

    @staticmethod
    def _announce(actions: list[Action], k: int) -> Action:
        """Discard ``k``, announcing "fishing" when the rules ask for it and it is offered."""
        if actions[-1].type == FISHING:
            fishing = Action(FISHING, k)
            if fishing in actions:
                return fishing
        return _DISCARD_OF[k]

    def _claim(self, view: ClassicalView, actions: list[Action]) -> Action:
        if len(actions) == 1:
            return actions[0]
        counts = view.counts
        n = view.n_sets
        forms = view.forms
        now = shanten(bytes(counts), n, forms)
        choice = PASS
        choice_key = (now, 1)
        for a in actions:
            t = a.type
            if t == PASS.type:
                continue
            k = a.tile
            if t == CHOW:
                lo = k - a.form
                used = [j for j in (lo, lo + 1, lo + 2) if j != k]
            elif t == PUNG:
                used = [k, k]
            elif t == KONG:
                used = [k, k, k]
            else:
                continue
            for j in used:
                counts[j] -= 1
            if t == KONG:
                s = shanten(bytes(counts), n + 1, forms)
            else:
                s, _, _ = ukeire(bytes(counts), n + 1, forms)
            for j in used:
                counts[j] += 1
            scoring = t != CHOW and (k >= 31 or k == 27 + view.prevailing
                                     or k == 27 + view.seat)
            key = (s, 0 if (t == KONG or scoring) else 2)
            if (s < now or (s == now and key[1] == 0)) and key < choice_key:
                choice, choice_key = a, key
        return choice


"""The longest answer line a :class:`ProcessAgent` may send (an answer is one small object)."""


class ProcessAgent:
    """An agent in another process, over JSON lines on its stdin/stdout.

    To the agent, one JSON object a line: ``{"type": "seat", "seat": S}`` when a hand starts
    (S = its seat, 0 = East), every event of the game as that seat sees it (other seats'
    draws and dealt tiles as ``null``; tiles in mpsz, bonus tiles ``1f``..``8f``; see
    :mod:`.records`), and ``{"type": "request", "actions": [...]}`` when it must choose, each
    action ``{"type": "discard", "tile": "5p"}`` with ``form`` (chow: 0 lower, 1 middle,
    2 upper) or ``use`` (Mah-Jong claims: lower, middle, upper, pung, pair, special) where
    they apply. The agent answers a request with one line: ``{"index": i}`` (the i-th action
    offered, from 0) or the action object itself. It must answer within ``timeout`` seconds,
    in at most :data:`MAX_ANSWER_BYTES` bytes.
    """

    def __init__(self, command: str, *, name: str = "", timeout: float = 30.0) -> None:
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise AgentError(f"agent command {command!r}: {exc}") from None
        if not argv:
            raise AgentError("an empty agent command")
        self.name = name or command
        self.timeout = timeout
        self.last_event = "none"
        try:
            self.proc = start_process(argv, stderr=subprocess.DEVNULL)
        except OSError as exc:
            raise AgentError(f"agent {self.name!r}: cannot start {argv[0]!r}: {exc}") from None
        self.answers = AnswerLines(self.proc.stdout, timeout)
        self.seat = -1

    def _send(self, obj: dict[str, Any]) -> None:
        try:
            assert self.proc.stdin is not None
            send_line(self.proc.stdin, (json.dumps(obj, separators=(",", ":")) + "\n").encode(),
                      self.timeout)
        except TimeoutError as exc:
            raise AgentError(f"agent {self.name!r} (seat {self.seat}) {exc} at event "
                             f"{self.last_event}") from None
        except (BrokenPipeError, OSError):
            raise AgentError(f"agent {self.name!r} (seat {self.seat}) died (exit code "
                             f"{self.proc.poll()}) after event {self.last_event}") from None

    def _readline(self) -> str:
        who = f"agent {self.name!r} (seat {self.seat})"
        try:
            return self.answers.readline()
        except TimeoutError:
            raise AgentError(f"{who} did not answer within {self.timeout:g} s after event "
                             f"{self.last_event}") from None
        except ValueError:
            raise AgentError(f"{who} answered a line longer than {MAX_ANSWER_BYTES} bytes after "
                             f"event {self.last_event}") from None
        except EOFError:
            raise AgentError(f"{who} died (exit code {self.proc.wait()}) after event "
                             f"{self.last_event}") from None

    def observe(self, ev: dict[str, Any]) -> None:
        """Forward an event (already masked for this seat by the game)."""
        if ev["type"] == "seat":
            self.seat = ev["seat"]
        self.last_event = ev["type"] + (f" of seat {ev['seat']}" if "seat" in ev else "")
        self._send(to_json(ev))

    def choose(self, view: ClassicalView, actions: list[Action]) -> Action:
        """Send the agent a request with ``actions`` and return the one it answers (by index
        or as one of the offered actions); AgentError for any other answer.
        """
        offered = [_action_json(a) for a in actions]
        self._send({"type": "request", "actions": offered})
        line = self._readline()
        try:
            ans = json.loads(line)
        except (json.JSONDecodeError, RecursionError):   # garbage, or nested too deeply
            ans = None
        if isinstance(ans, dict) and isinstance(ans.get("index"), int) and not isinstance(
                ans.get("index"), bool) and 0 <= ans["index"] < len(actions):
            return actions[ans["index"]]
        if isinstance(ans, dict):
            for a, j in zip(actions, offered, strict=True):
                if all(ans.get(key) == val for key, val in j.items()) and set(ans) <= set(j):
                    return a
        raise AgentError(f"agent {self.name!r} (seat {self.seat}) answered {line[:200]!r} to "
                         f"a request after event {self.last_event}; expected {{\"index\": i}} "
                         f"with 0 <= i < {len(actions)} or one of the offered actions")

    def close(self) -> None:
        """End the agent: close its stdin, wait up to 2 s, then kill it; close its pipes."""
        stop_process(self.proc, 2)


def _action_json(a: Action) -> dict[str, Any]:
    from .handcalc import USE_NAMES
    from .records import code_name

    out: dict[str, Any] = {"type": a.type.name.lower()}
    if a.tile >= 0:
        out["tile"] = code_name(a.tile)
    if a.form >= 0:
        if a.type == MAHJONG_CLAIM:
            out["use"] = USE_NAMES[a.form]
        else:
            out["form"] = a.form
    return out


AGENT_NAMES = ("random", "efficiency", "json:COMMAND")


def make_agent(name: str, seed: int = 0) -> Any:
    """An agent by name: ``random``, ``efficiency`` or ``json:COMMAND``."""
    if name.startswith("json:"):
        return ProcessAgent(name[5:])
    if name == "random":
        return RandomAgent(seed)
    if name == "efficiency":
        return EfficiencyAgent()
    raise MjcoreError(f"unknown classical agent {name!r}; expected one of "
                      f"{', '.join(AGENT_NAMES)}")
