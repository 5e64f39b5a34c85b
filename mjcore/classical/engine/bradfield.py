"""Replay of Bradfield's hand histories through our referee (the ``bradfield`` rules).

Each hand is played by :class:`~.referee.ClassicalHand` on the recorded wall, with the
recorded *decisions* (discards, kongs, self-drawn Mah-Jong, each player's claim on each
discard) fed to it as the players' choices. Everything else must come out of our referee:
the deal, every draw, loose tile and bonus-tile replacement, which claim wins, the Mah-Jong.
The two event streams are compared event by event; the first difference is reported with
what each side had. Once the hand is played, the classical scorer (when present) scores all
four hands and the settlement from our referee's final state, and the game's running scores
are checked against the next hand's ``Game`` line and ``final.txt``.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from ...errors import RECORD_SLIPS, MjcoreError, slip_text
from ...errors import RecordError as RecordError  # declared there, re-exported
from ..bradfield import last_tiles_danger, warned_hand
from ..history import HandHistory, HistoryError, _sources, parse_history
from .game import pass_deal
from .handcalc import CHOW_LOWER, CHOW_MIDDLE, CHOW_UPPER, USE_NAMES, USE_PAIR, USE_PUNG
from .records import code_name
from .referee import (
    ADD_KONG,
    CHOW,
    CONCEALED_KONG,
    DISCARD,
    KONG,
    MAHJONG,
    MAHJONG_CLAIM,
    ORIGINAL_CALL,
    PASS,
    PUNG,
    Action,
    ActionType,
    ClassicalHand,
    EngineError,
    HandResult,
)
from .wall import ClassicalWall

_CHOW_FORMS = {"Lower": CHOW_LOWER, "Middle": CHOW_MIDDLE, "Upper": CHOW_UPPER}


@dataclass
class HandReplay:
    """The replay of one hand: ``diff`` is None when our referee produced every recorded
    event, else the first difference; ``error`` a record that could not be replayed."""

    history: HandHistory
    result: HandResult | None = None
    events: list[dict[str, Any]] = field(default_factory=list)
    diff: str | None = None
    error: str | None = None
    n_compared: int = 0
    net: list[int] | None = None

    @property
    def ok(self) -> bool:
        """True when the replay produced every recorded event and met no error."""
        return self.diff is None and self.error is None


# ---- the record as decisions and as expected events ------------------------------------

class RecordedDecider:
    """The recorded decisions of one hand history, handed out as the referee asks for them.

    Pass it to :class:`~.referee.ClassicalHand` as the decider (``decide(seat, actions)``,
    which raises :class:`RecordError` when the record's choice is not offered) and give it
    every event the referee emits (:meth:`observe`), so it knows which discard a claim answers.
    ``expected`` holds the record's events in the replay's comparison form, each with its line.
    """

    def __init__(self, h: HandHistory) -> None:
        self.turns: list[list[tuple[Action, int]]] = [[], [], [], []]
        self.claims: dict[tuple[int, int], tuple[Action, int]] = {}
        self.expected: list[tuple[tuple[Any, ...], int]] = []
        self.deal: list[list[int]] = [[], [], [], []]
        self.dangerous: list[tuple[int, int, int]] = []
        self.claimed: list[set[int]] = [set(), set(), set(), set()]   # serials each seat took
        self.pair: int | None = None          # the pair the winner declared
        _HistoryReader(self, h.events).read()
        self.turn_pos = [0, 0, 0, 0]
        self.serial = 0
        self.used: set[tuple[int, int]] = set()
        self.live_at: dict[int, int] = {}   # discard serial -> live tiles left then

    def leftovers(self) -> str | None:
        """A recorded decision the referee never asked for (it was not legal), if any."""
        for (serial, seat), (a, line) in sorted(self.claims.items(), key=lambda x: x[1][1]):
            if (serial, seat) not in self.used and serial <= self.serial:
                return (f"line {line}: seat {seat} claims {a.type.name.lower()} on discard "
                        f"{serial}, which is not legal (legal: pass)")
        for seat in range(4):
            if self.turn_pos[seat] < len(self.turns[seat]):
                a, line = self.turns[seat][self.turn_pos[seat]]
                return f"line {line}: seat {seat} plays {a} after the hand has ended"
        return None

    # the decider
    def __call__(self, seat: int, actions: list[Action]) -> Action:
        if actions[0].type == ActionType.PASS:
            got = self.claims.get((self.serial, seat))
            if got is None:
                return PASS
            self.used.add((self.serial, seat))
            a, line = got
            for x in actions:
                if x.type == a.type and (a.form < 0 or x.form == a.form):
                    return x
            raise RecordError(f"line {line}: seat {seat} claims {a} on discard {self.serial}"
                                  f", which is not legal (legal: "
                                  f"{', '.join(str(x) for x in actions)})")
        pos = self.turn_pos[seat]
        if pos >= len(self.turns[seat]):
            raise RecordError(f"seat {seat} must act but the record has no more decisions for "
                              "it")
        a, line = self.turns[seat][pos]
        self.turn_pos[seat] = pos + 1
        if a.type == MAHJONG:
            for x in actions:
                if x.type == MAHJONG:
                    return x
        if a.type == ORIGINAL_CALL and a not in actions:
            a = Action(DISCARD, a.tile)
        if a not in actions:
            raise RecordError(f"line {line}: seat {seat} plays {a}, which is not legal "
                              f"(legal: {', '.join(str(x) for x in actions)})")
        return a

    def observe(self, ev: dict[str, Any], wall: ClassicalWall | None = None) -> None:
        """Count the discards (and kongs, which Bradfield numbers with them); with the
        ``wall``, keep the live tiles left at each, for the cannon judgement."""
        t = ev["type"]
        if t == "discard" or t == "concealed_kong" or t == "add_kong":
            self.serial += 1
            if wall is not None:
                self.live_at[self.serial] = wall.live_remaining


class _HistoryReader:
    """A hand history's events read into a :class:`RecordedDecider` (its decisions and the
    expected events), one handler per event kind (``HANDLERS``), up to the Mah-Jong."""

    def __init__(self, script: RecordedDecider, events: Sequence[Any]) -> None:
        self.script = script
        self.expected = script.expected
        self.events = events
        self.at = 0                      # the index of the event being read
        self.n_dealt = 0
        self.serial = 0                  # the open discard (Bradfield numbers kongs too)
        self.serial_text = "0"           # ... as written
        self.claimed_mj: set[int] = set()    # seats claiming it for Mah-Jong
        self.ended = False               # the Mah-Jong was read: the rest is the scoring

    def read(self) -> None:
        """Read every event up to the Mah-Jong (a wash-out without one)."""
        events = self.events
        handlers = self.HANDLERS
        for i, e in enumerate(events):
            handler = handlers.get(e.kind)
            if handler is None:
                if not e.kind.startswith("PlayerClaims"):
                    continue
                handler = _HistoryReader.claim          # an unknown claim: refused there
            self.at = i
            handler(self, e)
            if self.ended:
                return
        self.expected.append((("washout",), events[-1].line if events else 0))

    def no_claim(self, e: Any) -> None:
        # the most frequent message: a pass
        if e.args and e.args[0] != self.serial_text:
            raise RecordError(f"line {e.line}: a claim on discard {e.args[0]} while "
                              f"discard {self.serial} is open")

    def draw(self, e: Any) -> None:
        if self.n_dealt >= 53:
            self.expected.append((("draw", e.seat, e.tile), e.line))
        else:
            self.script.deal[e.seat].append(e.tile)
            self.n_dealt += 1

    def bonus(self, e: Any) -> None:
        if e.tile is not None:
            self.expected.append((("bonus", e.seat, e.tile), e.line))

    def loose(self, e: Any) -> None:
        self.expected.append((("loose", e.seat, e.tile), e.line))

    def turn(self, e: Any) -> None:
        """A discard, a concealed kong or a tile added to a pung: a decision, numbered."""
        k, s, line = e.kind, e.seat, e.line
        self.serial = _serial(e.args, line)
        self.serial_text = e.args[0]
        self.claimed_mj = set()
        if k == "PlayerDiscards":
            call = len(e.args) > 1 and e.args[1] not in ("0", "")
            a = Action(ORIGINAL_CALL if call else DISCARD, e.tile)
            self.expected.append((("discard", s, e.tile), line))
        elif k == "PlayerDeclaresClosedKong":
            a = Action(CONCEALED_KONG, e.tile)
            self.expected.append((("concealed_kong", s, e.tile), line))
        else:
            a = Action(ADD_KONG, e.tile)
            self.expected.append((("add_kong", s, e.tile), line))
        self.script.turns[s].append((a, line))

    def claim(self, e: Any) -> None:
        """A claim on the open discard (a decision; the tile is the discard's)."""
        what = e.kind[12:]
        line = e.line
        if e.args and _serial(e.args[:1], line) != self.serial:
            raise RecordError(f"line {line}: a claim on discard {e.args[0]} while "
                              f"discard {self.serial} is open")
        if what:
            self.script.claims[(self.serial, e.seat)] = (_claim_action(what, e.args, -1, line),
                                                         line)
        if what == "MahJong":
            self.claimed_mj.add(e.seat)

    def claimed_set(self, e: Any) -> None:
        """The chow, pung or kong a claim made."""
        s = e.seat
        self.script.claimed[s].add(self.serial)
        name = e.kind[6:-1].lower()
        if name == "chow":
            form = _chow_form(e.args, e.line)
            self.expected.append((("chow", s, e.tile, form), e.line))
        else:
            self.expected.append(((name, s, e.tile), e.line))

    def mahjong(self, e: Any) -> None:
        """A Mah-Jong, on a discard, a robbed kong or one's own draw; the rest of the file is
        the scoring (the winner's declared pair, the dangerous discards)."""
        s, line = e.seat, e.line
        script = self.script
        robbed = e.kind == "PlayerRobsKong"
        rest = self.at + 1
        if s in self.claimed_mj or robbed:
            use, tile = self._use(rest, line)
            if tile is None:
                tile = e.tile
            claim = script.claims.get((self.serial, s))
            act = Action(MAHJONG_CLAIM, tile if tile is not None else -1, use)
            script.claims[(self.serial, s)] = (act, claim[1] if claim else line)
            self.expected.append((("mahjong", s, tile, USE_NAMES[use], robbed), line))
            rest += 1                    # the set the tile made
        else:
            script.turns[s].append((Action(MAHJONG, -1), line))
            self.expected.append((("mahjong", s, "self"), line))
        for e2 in self.events[rest:]:
            if e2.seat == s and e2.kind in ("PlayerFormsClosedPair", "PlayerPairs"):
                script.pair = e2.tile
            if e2.kind == "DangerousDiscard":
                self.danger(e2)
        self.ended = True

    def danger(self, e: Any) -> None:
        self.script.dangerous.append((e.seat, _serial(e.args, e.line),
                                      int(e.args[1]) if len(e.args) > 1 else 0))

    def _use(self, j: int, line: int) -> tuple[int, int | None]:
        """How the winner uses the claimed tile: the message after the Mah-Jong."""
        if j < len(self.events):
            e = self.events[j]
            if e.kind == "PlayerChows":
                return _chow_form(e.args, e.line), e.tile
            if e.kind == "PlayerPungs":
                return USE_PUNG, e.tile
            if e.kind == "PlayerPairs":
                return USE_PAIR, e.tile
            if e.kind in ("PlayerSpecialSet", "PlayerFormsClosedSpecialSet"):
                return 5, e.tile
        raise RecordError(f"line {line}: a Mah-Jong on a discard without the set it makes")

    HANDLERS: ClassVar[dict[str, Callable[[_HistoryReader, Any], None]]] = {
        "PlayerDoesntClaim": no_claim, "PlayerDraws": draw, "PlayerDeclaresSpecial": bonus,
        "PlayerDrawsLoose": loose, "PlayerDiscards": turn, "PlayerDeclaresClosedKong": turn,
        "PlayerAddsToPung": turn, "PlayerClaimsChow": claim, "PlayerClaimsPung": claim,
        "PlayerClaimsKong": claim, "PlayerClaimsMahJong": claim, "PlayerChows": claimed_set,
        "PlayerPungs": claimed_set, "PlayerKongs": claimed_set, "PlayerMahJongs": mahjong,
        "PlayerRobsKong": mahjong, "DangerousDiscard": danger,
    }


def _serial(args: tuple[str, ...], line: int) -> int:
    try:
        return int(args[0])
    except (IndexError, ValueError):
        raise RecordError(f"line {line}: missing discard number") from None


def _chow_form(args: tuple[str, ...], line: int) -> int:
    try:
        return _CHOW_FORMS[args[0]]
    except (IndexError, KeyError):
        raise RecordError(f"line {line}: a chow without Lower/Middle/Upper") from None


def _claim_action(what: str, args: tuple[str, ...], tile: int, line: int) -> Action:
    if what == "Chow":
        return Action(CHOW, tile, _chow_form(args[1:], line))
    if what == "Pung":
        return Action(PUNG, tile)
    if what == "Kong":
        return Action(KONG, tile)
    if what == "MahJong":
        return Action(MAHJONG_CLAIM, tile, -1)
    raise RecordError(f"line {line}: unknown claim {what!r}")


def _ours(ev: dict[str, Any]) -> tuple[Any, ...] | None:
    """Our event in the comparison vocabulary (None for events the record has no twin of)."""
    t = ev["type"]
    if t in ("draw", "loose", "bonus", "discard", "pung", "kong", "concealed_kong",
             "add_kong"):
        return (t, ev["seat"], ev["tile"])
    if t == "chow":
        return ("chow", ev["seat"], ev["tile"], ev["form"])
    if t == "mahjong":
        if ev["from"] == ev["seat"]:
            return ("mahjong", ev["seat"], "self")
        return ("mahjong", ev["seat"], ev["tile"], ev["use"], bool(ev.get("robbed")))
    if t == "washout":
        return ("washout",)
    return None


def _show(x: tuple[Any, ...] | None) -> str:
    if x is None:
        return "nothing"
    return " ".join(code_name(v) if isinstance(v, int) and i == 2 else str(v)
                    for i, v in enumerate(x))


# ---- replay ------------------------------------------------------------------------------

def _cannon(script: RecordedDecider, result: HandResult) -> tuple[int | None, bool]:
    """The seat that let off a cannon, if mj-server would charge it: the latest of the
    record's dangerous discards (not excused) that the winner claimed, for a set or for the
    Mah-Jong; and whether it was made among the last tiles (then it is charged whatever the
    winner makes; else only for the hand it warned of, see
    :func:`mjcore.classical.bradfield.warned_hand`). The referee does not judge danger; the
    record's ``DangerousDiscard`` lines say."""
    if not result.wins:
        return None, False
    taken = script.claimed[result.wins[0].seat] | {script.serial}
    cannon, late = None, False
    for seat, n, excused in script.dangerous:       # in discard order: the latest counts
        if n in taken and not excused:
            cannon, late = seat, last_tiles_danger(script.live_at.get(n))
    return cannon, late


def _check_scores(out: HandReplay, script: RecordedDecider) -> None:
    from .game import score_result

    h = out.history
    assert out.result is not None
    cannon, late = _cannon(script, out.result)
    try:
        net, deal_score = score_result(out.result, h.rules, h.game.prevailing_wind,
                                       east_streak=h.east_streak,
                                       cannon=cannon if late else None, pair=script.pair)
        if cannon is not None and not late and deal_score is not None \
                and warned_hand(deal_score.players[out.result.wins[0].seat]):
            net, deal_score = score_result(out.result, h.rules, h.game.prevailing_wind,
                                           east_streak=h.east_streak, cannon=cannon,
                                           pair=script.pair)
    except MjcoreError as exc:
        out.error = f"scoring: {exc}"
        return
    out.net = net
    if deal_score is not None:
        for seat, hs in sorted(h.scores.items()):
            p = deal_score.players[seat]
            ours = (p.points if not p.limit_hand else None, p.doubles if not p.limit_hand
                    else None, p.score)
            theirs = (hs.total_points, hs.total_doubles, hs.score)
            if ours != theirs:
                out.diff = (f"HandScore of seat {seat} (line {hs.line}): ours points/doubles/"
                            f"score {ours}, record {theirs}")
                return
    if h.settlement is not None and tuple(net) != tuple(h.settlement.net):
        out.diff = (f"Settlement (line {h.settlement.line}): ours {tuple(net)}, record "
                    f"{h.settlement.net}")


def replay_hand(h: HandHistory, score: bool = True) -> HandReplay:
    """Play one recorded hand through our referee and compare the events; with ``score``,
    score all four hands and settle, and compare with the record's HandScores and
    Settlement."""
    out = HandReplay(h)
    try:
        script = RecordedDecider(h)
        wall = ClassicalWall.from_sequence(h.wall, h.rules.dead_wall, where=h.source)
        expected = script.expected
        pos = 0
        n_exp = len(expected)

        class Mismatch(Exception):
            pass

        def on_event(ev: dict[str, Any]) -> None:
            nonlocal pos
            out.events.append(ev)
            script.observe(ev, wall)
            if ev["type"] == "deal":
                for s in range(4):
                    if sorted(ev["hands"][s]) != sorted(script.deal[s]):
                        out.diff = (f"deal to seat {s}: ours "
                                    f"{' '.join(code_name(t) for t in sorted(ev['hands'][s]))},"
                                    " record "
                                    f"{' '.join(code_name(t) for t in sorted(script.deal[s]))}")
                        raise Mismatch
                return
            mine = _ours(ev)
            if mine is None:
                return
            theirs, line = expected[pos] if pos < n_exp else (None, 0)
            if mine != theirs:
                out.diff = (f"event {pos + 1} (line {line}): ours {_show(mine)}, record "
                            f"{_show(theirs)}")
                raise Mismatch
            pos += 1

        hand = ClassicalHand(h.rules, wall, script, prevailing=h.game.prevailing_wind,
                             emit=on_event)
        try:
            out.result = hand.play()
        except Mismatch:
            return out
        out.error = script.leftovers()
        if out.error is None and out.result is not None and score:
            _check_scores(out, script)
        if pos != n_exp and out.error is None:
            theirs, line = expected[pos]
            out.diff = f"event {pos + 1} (line {line}): ours nothing, record {_show(theirs)}"
        out.n_compared = pos
    except (RecordError, EngineError, MjcoreError) as exc:
        out.error = str(exc)
    except RECORD_SLIPS as exc:            # a malformed field the reader let through
        out.error = f"{h.source}: malformed history ({slip_text(exc)})"
    return out


# ---- reading -----------------------------------------------------------------------------

_SORT_RE = re.compile(r"(\d+)")


def _sort_key(name: str) -> tuple[Any, ...]:
    return tuple(int(t) if t.isdigit() else t for t in _SORT_RE.split(name))


def iter_sources(paths: Iterable[str | Path]) -> Iterator[tuple[str, str | HistoryError]]:
    """(name, text) of every ``.mjs`` and ``final.txt`` under the paths (files, folders,
    tar archives; archives read in one pass), in game and hand order; a file that cannot be
    read comes as its HistoryError in place of the text."""
    for p in paths:
        found = list(_sources([p], lambda n: n.endswith((".mjs", "final.txt"))))
        # a game's final.txt after its hands
        found.sort(key=lambda x: (_sort_key(_game_of(x[0])), x[0].endswith("final.txt"),
                                  _sort_key(x[0])))
        for name, data in found:
            if isinstance(data, HistoryError):
                yield name, data
                continue
            try:
                yield name, data.decode("utf-8")
            except UnicodeDecodeError as exc:
                yield name, HistoryError(name, None, f"not UTF-8 text (byte {exc.start})")


def is_bradfield_text(text: str) -> bool:
    """True when the text looks like a Bradfield hand history (by content)."""
    head = text[:4000]
    return ("\nWall " in head or head.startswith("Wall ")) and (
        "GameOption " in head or "NewHand " in head or head.startswith("Player "))


_FINAL_RE = re.compile(r"^\s*(\d+)\s*\((.*)\)\s*(-?\d+)\s*$")


def parse_final(text: str, source: str) -> dict[int, int]:
    """``final.txt``: player id -> final score."""
    scores: dict[int, int] = {}
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("Game over"):
            continue
        m = _FINAL_RE.match(line)
        if not m:
            raise HistoryError(source, n, f"unreadable final score line {line!r}")
        scores[int(m.group(1))] = int(m.group(3))
    return scores


@dataclass
class GameReplay:
    """The replay of one game's hands (``name`` is its folder)."""

    name: str
    hands: list[HandReplay] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)    # unreadable files, game-level diffs

    @property
    def ok(self) -> bool:
        """True when every hand replayed without a difference and the game has no errors."""
        return not self.errors and all(h.ok for h in self.hands)

    def problems(self) -> list[tuple[str, str]]:
        """(file, what differs) of every hand that differs, then the game-level ones."""
        out = [(h.history.source, h.error or h.diff or "") for h in self.hands if not h.ok]
        return out + [("", e) for e in self.errors]

    def first_problem(self) -> str | None:
        """The first problem as "file: what differs", or None when the game agrees."""
        for source, text in self.problems():
            return f"{source}: {text}" if source else text
        return None


def _game_of(name: str) -> str:
    parts = name.replace("\\", "/").split("/")
    return "/".join(parts[:-1]) or name


GameFiles = tuple[str, list[tuple[str, "str | HistoryError"]]]   # a game and its files


def iter_games(paths: Iterable[str | Path]) -> Iterator[GameFiles]:
    """(game folder, its files as (name, text), hands in order and final.txt last)."""
    name_of: str | None = None
    files: list[tuple[str, str | HistoryError]] = []
    for name, text in iter_sources(paths):
        game = _game_of(name)
        if name_of is not None and game != name_of:
            yield name_of, files
            files = []
        name_of = game
        files.append((name, text))
    if name_of is not None:
        yield name_of, files


def replay_game(game: str, files: list[tuple[str, str | HistoryError]],
                score: bool = True) -> GameReplay:
    """Replay one game's hand histories (and check its final.txt)."""
    out = GameReplay(game)
    track = _GameTrack(out, score)
    for name, text in files:
        if name.endswith("final.txt") and not isinstance(text, Exception):
            try:
                track.final(parse_final(text, name), name)
            except HistoryError as exc:
                out.errors.append(str(exc))
            except RECORD_SLIPS as exc:
                out.errors.append(f"{name}: malformed final scores ({slip_text(exc)})")
            continue
        try:
            if isinstance(text, Exception):
                raise text
            h = parse_history(text, name)
        except HistoryError as exc:
            out.errors.append(str(exc))
            track.broken = True
            continue
        except RECORD_SLIPS as exc:
            out.errors.append(f"{name}: malformed history ({slip_text(exc)})")
            track.broken = True
            continue
        r = replay_hand(h, score)
        out.hands.append(r)
        track.hand(r)
    return out


def replay_paths(paths: Iterable[str | Path], score: bool = True) -> Iterator[GameReplay]:
    """Replay every Bradfield game under the paths, game by game (``score``: also score every
    hand and compare, see :func:`replay_hand`). Across a game's hands it also checks the
    dealer rotation, the prevailing wind, each hand's scores before it (its ``Game`` line)
    and, with ``score``, the final scores in ``final.txt``."""
    for game, files in iter_games(paths):
        yield replay_game(game, files, score)


def replay_summary(item: GameFiles) -> tuple[str, int, list[tuple[str, str]]]:
    """(game, hands, every difference) of one game: the worker of a parallel run."""
    g = replay_game(*item)
    return g.name, len(g.hands), g.problems()


_SCORE_DIFFS = ("HandScore", "Settlement")


class _GameTrack:
    """Running checks across the hands of one game."""

    def __init__(self, game: GameReplay, score: bool) -> None:
        self.game = game
        self.score = score
        self.totals: dict[int, int] | None = None
        self.expect_east: int | None = None
        self.expect_wind: int | None = None
        self.first_east: int | None = None
        self.broken = False

    def _error(self, text: str) -> None:
        if not self.broken:
            self.game.errors.append(text)
            self.broken = True

    def hand(self, r: HandReplay) -> None:
        h = r.history
        east = h.players[0][0]
        if self.first_east is None:
            self.first_east = east
            self.expect_wind = h.game.prevailing_wind
        if self.expect_east is not None and east != self.expect_east:
            self._error(f"{h.source}: East is player {east}; after the last hand our "
                        f"rotation gives player {self.expect_east}")
        if self.expect_wind is not None and h.game.prevailing_wind != self.expect_wind:
            self._error(f"{h.source}: the prevailing wind is {'ESWN'[h.game.prevailing_wind]}; "
                        f"our rotation gives {'ESWN'[self.expect_wind]}")
        if self.score:
            if self.totals is None:
                self.totals = dict(h.game.scores)
            elif self.totals != h.game.scores and not self.broken:
                self._error(f"{h.source}: the scores before the hand are {h.game.scores}; "
                            f"ours are {self.totals}")
        if r.result is None or r.error or (r.diff and not r.diff.startswith(_SCORE_DIFFS)):
            self.broken = True
            return
        if r.diff:                        # a scoring difference: the next Game line resyncs
            self.totals = None
        if r.net is not None and self.totals is not None:
            for seat, (pid, _) in enumerate(h.players):
                self.totals[pid] = self.totals.get(pid, 0) + r.net[seat]
        wins = r.result.wins
        passes, _ = pass_deal(h.rules, any(w.seat == 0 for w in wins), bool(wins),
                              h.east_streak)
        if not passes:
            self.expect_east = east
        else:
            self.expect_east = h.players[1][0]
            if self.expect_east == self.first_east:
                self.expect_wind = ((self.expect_wind or 0) + 1) % 4

    def final(self, scores: dict[int, int], source: str) -> None:
        if self.score and not self.broken and self.totals is not None \
                and scores != self.totals:
            self._error(f"{source}: final scores {scores}; ours {self.totals}")
