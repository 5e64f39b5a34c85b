"""mjai protocol: an agent that runs in another process and talks JSON lines on stdin/stdout.

At each choice the engine writes one line to the bot: a JSON array of the events the seat has
seen since its last answer (mjai names: ``start_game`` with ``id`` = the bot's seat,
``start_kyoku``, ``tsumo``, ``dahai``, ...; other seats' draws and hands are ``"?"``). The bot
answers with one JSON object: ``dahai`` (with ``pai`` and ``tsumogiri``), ``reach`` (the engine
then sends ``[{"type":"reach",...}]`` and reads the discard), ``hora``, ``chi``/``pon``/
``daiminkan``/``kakan``/``ankan`` (with ``consumed``), ``ryukyoku`` (nine terminals),
``kita`` (three players: set a north aside, with ``pai`` ``"N"``; the bot then sees the
``kita`` event and its replacement draw) or ``none`` (pass). An answer that is not a legal
action is an error naming the seat and the line.

Bots that want their seat on the command line (as the PyPI ``mjai`` package's do) get it
through the placeholder ``{seat}`` in any argument: ``mjai:python bot.py {seat}`` starts
``python bot.py 2`` for seat 2 (seat 0 is the first dealer, as in ``start_game``'s ``id``).
Such a bot is started once its seat is drawn, the others when the agent is made.

``python -m mjcore.riichi.mjai [SEAT]`` runs a small reference bot (tsumogiri) over
stdin/stdout.
"""
from __future__ import annotations

import json
import shlex
import subprocess
import sys
from typing import Any, TextIO

from ..engine.agents import AnswerLines, send_line, start_process, stop_process
from ..errors import MjaiError as MjaiError  # declared there, re-exported
from .actions import (
    ANKAN,
    CHI,
    DAIMINKAN,
    DISCARD,
    KAKAN,
    KITA,
    KYUUSHU,
    PASS,
    PON,
    RIICHI,
    RON,
    TENPAI,
    TILE_CLASS,
    TSUMO,
    Action,
)
from .events import MJAI_NAMES, Event, to_mjai
from .view import PlayerView

SEAT = "{seat}"      # replaced by the bot's seat in its command line
_CALLS = {"chi": CHI, "pon": PON, "daiminkan": DAIMINKAN, "kakan": KAKAN, "ankan": ANKAN}
_NAME_CLASS: dict[str, int] = {}
for _t, _n in enumerate(MJAI_NAMES):
    _NAME_CLASS[_n] = TILE_CLASS[_t]


class MjaiAgent:
    """An agent backed by an mjai bot subprocess (``command`` is split like a shell line)."""

    name = "mjai"

    def __init__(self, command: str | list[str], timeout: float = 30.0) -> None:
        try:
            argv = shlex.split(command) if isinstance(command, str) else list(command)
        except ValueError as exc:
            raise MjaiError(f"mjai command {command!r}: {exc}") from None
        if not argv:
            raise MjaiError("empty mjai command")
        self.command = argv
        self.timeout = timeout
        self.proc: subprocess.Popen[bytes] | None = None
        self.pending: list[dict[str, Any]] = []
        self.seat = -1
        self.greeted = False        # start_game sent
        if not any(SEAT in arg for arg in argv):
            self._start(argv)

    def _start(self, argv: list[str]) -> None:
        try:
            self.proc = start_process(argv)
        except OSError as exc:
            raise MjaiError(f"mjai command {argv[0]!r} cannot be started: "
                            f"{exc.strerror or exc}") from None
        self.answers = AnswerLines(self.proc.stdout, self.timeout)

    def seated(self, seat: int) -> None:
        """Told the seat before the game (by the :class:`~mjcore.engine.table.Table`): start a
        bot that waits for it."""
        self.seat = seat
        if self.proc is None:
            self._start([arg.replace(SEAT, str(seat)) for arg in self.command])

    def observe(self, event: Event) -> None:
        """Queue an event (masked for this seat) for the bot's next exchange."""
        if event["type"] == "start_game":
            return
        self.pending.append(to_mjai(event))

    def _exchange(self, events: list[dict[str, Any]]) -> dict[str, Any]:
        assert self.proc is not None
        assert self.proc.stdin is not None and self.proc.stdout is not None
        bot = f"mjai bot {self.command[0]} (seat {self.seat})"
        try:
            send_line(self.proc.stdin, (json.dumps(events, separators=(",", ":")) + "\n").encode(),
                      self.timeout)
            line = self.answers.readline()
        except (BrokenPipeError, OSError) as exc:     # TimeoutError is an OSError
            what = str(exc) if isinstance(exc, TimeoutError) else f"died: {exc}"
            raise MjaiError(f"{bot}: {what}") from None
        except (EOFError, ValueError) as exc:
            raise MjaiError(f"{bot}: {exc}") from None
        try:
            answer = json.loads(line)
        except (json.JSONDecodeError, RecursionError):     # garbage, or nested too deeply
            raise MjaiError(f"mjai bot (seat {self.seat}) answered non-JSON: {line[:200]!r}") \
                from None
        if not isinstance(answer, dict) or not isinstance(answer.get("type"), str):
            raise MjaiError(f"mjai bot (seat {self.seat}) answered {line[:200]!r}: expected an "
                            "object with a 'type'")
        return answer

    def choose(self, view: PlayerView, actions: list[Action]) -> Action:
        """Send the queued events, read the bot's answer and match it to a legal action."""
        if actions[0].type == TENPAI:     # mjai has no such question: always show the hand
            return actions[0]
        if not self.greeted:
            self.greeted = True
            if self.proc is None:   # not seated by a decider: the first view tells the seat
                self.seated(view.seat)
            self.seat = view.seat
            self.pending.insert(0, {"type": "start_game", "id": view.seat})
        events, self.pending = self.pending, []
        answer = self._exchange(events)
        t = answer["type"]
        if t == "reach":
            follow = self._exchange([{"type": "reach", "actor": self.seat}])
            if follow.get("type") != "dahai":
                raise MjaiError(f"mjai bot (seat {self.seat}) declared riichi, then answered "
                                f"{follow!r} instead of a discard")
            return self._match(actions, RIICHI, follow)
        if t == "none":
            return self._match(actions, PASS.type, answer)
        if t == "dahai":
            return self._match(actions, DISCARD, answer)
        if t == "hora":
            kind = TSUMO if any(a.type == TSUMO for a in actions) else RON
            return self._match(actions, kind, answer)
        if t == "ryukyoku":
            return self._match(actions, KYUUSHU, answer)
        if t == "kita":
            return self._match(actions, KITA, answer)
        if t in _CALLS:
            return self._match(actions, _CALLS[t], answer)
        raise MjaiError(f"mjai bot (seat {self.seat}) answered unknown type {t!r}")

    def _match(self, actions: list[Action], kind: int, answer: dict[str, Any]) -> Action:
        pai = answer.get("pai")
        cons = answer.get("consumed") or []
        try:
            pai_cls = _NAME_CLASS[pai] if isinstance(pai, str) else None
            cons_cls = sorted(_NAME_CLASS[c] for c in cons)
        except KeyError as exc:
            raise MjaiError(f"mjai bot (seat {self.seat}) named an unknown tile {exc}") from None
        for a in actions:
            if a.type != kind:
                continue
            if kind in (DISCARD, RIICHI, KITA):
                if pai_cls != TILE_CLASS[a.tile]:
                    continue
                if kind != KITA and "tsumogiri" in answer and \
                        bool(answer["tsumogiri"]) != a.tsumogiri:
                    continue
            elif kind in (CHI, PON, DAIMINKAN, KAKAN, ANKAN):
                if sorted(TILE_CLASS[t] for t in a.consumed) != cons_cls:
                    continue
                if pai_cls is not None and a.tile >= 0 and TILE_CLASS[a.tile] != pai_cls:
                    continue
            return a
        raise MjaiError(f"mjai bot (seat {self.seat}) answered {answer!r}, which is not among "
                        f"the legal actions {[str(a) for a in actions]}")

    def close(self) -> None:
        """Stop the bot process (5 s to exit on its own) and close its pipes."""
        if self.proc is not None:
            stop_process(self.proc, 5)


def tsumogiri_bot(stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout,
                  seat: int = -1) -> None:
    """Reference mjai bot: discards each drawn tile, never calls; for protocol tests. Given
    a ``seat`` (its command line's), it plays that seat and exits with an error when
    ``start_game`` names another."""
    last_draw: str | None = None
    for line in stdin:
        events = json.loads(line)
        answer: dict[str, Any] = {"type": "none"}
        for ev in events:
            t = ev.get("type")
            if t == "start_game":
                if seat >= 0 and ev.get("id") != seat:
                    sys.exit(f"seat {seat} on the command line, start_game id {ev.get('id')}")
                seat = ev.get("id", seat)
            elif t == "tsumo" and ev.get("actor") == seat:
                last_draw = ev["pai"]
        last = events[-1] if events else {}
        if last.get("type") in ("tsumo", "reach") and last.get("actor") == seat and last_draw:
            answer = {"type": "dahai", "actor": seat, "pai": last_draw, "tsumogiri": True}
        stdout.write(json.dumps(answer) + "\n")
        stdout.flush()


if __name__ == "__main__":
    tsumogiri_bot(seat=int(sys.argv[1]) if len(sys.argv) > 1 else -1)
