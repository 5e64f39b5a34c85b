"""Tenhou's mjlog records: the XML reader (tenhou.net/6 JSON is :mod:`.tenhou6`).

:func:`read_mjlog` turns one mjlog document into engine events (see :mod:`.events`): the round
headers, every draw, discard, call (chi, pon, open kan, added kan, closed kan decoded from the
``m`` bit layout), riichi step 1/2, kan dora, each win and draw with its score changes, and the
final result. Kan dora of an open or added kan is written where the engine reveals it (after the
kan player's next discard, or at his next kan), whatever the tag order of the log.

Three-player (sanma) records are read whole: three seats (Tenhou's empty fourth seat is
dropped, so hands, scores, deltas, tenpai flags and final results are lists of three), and a
north set aside (nukidora, a ``<N>`` tag with bit 5 set) is a ``kita`` event
``{"type": "kita", "actor": seat, "pai": tile}`` followed by its replacement draw, a
``tsumo`` with ``rinshan``.
"""
from __future__ import annotations

import re
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..errors import InvalidHandError
from .events import MJAI_NAMES, WIND_NAMES, Event
from .rules import RuleSet

# possessive quantifiers and a body that stops at the next `<`: a tag left open or a tag of
# any length is read in time linear in the record (no backtracking over it)
_TAG = re.compile(r"<([/?]?[A-Za-z]++)([0-9]*+)([^<>]*+)>")
_ATTR_NAME = re.compile(r'(?<![A-Za-z0-9_])([A-Za-z0-9_]++)="')


def _attrs(body: str) -> dict[str, str]:
    """The ``name="value"`` attributes of a tag's body (the last of a repeated name), in one
    forward pass: a value runs to the next quote; after an unclosed one nothing follows."""
    out: dict[str, str] = {}
    pos = 0
    while (m := _ATTR_NAME.search(body, pos)) is not None:
        end = body.find('"', m.end())
        if end < 0:
            break
        out[m.group(1)] = body[m.end():end]
        pos = end + 1
    return out
_DRAW = {"T": 0, "U": 1, "V": 2, "W": 3}
_DISCARD = {"D": 0, "E": 1, "F": 2, "G": 3}
_DRAW_OR_DISCARD = frozenset("TUVWDEFG")
NORTH_KIND = 30
SANMA_BIT = 0x10            # of the GO tag's type: a three-player lobby
_GO_TYPE = re.compile(r'<GO\s+type="([0-9]+)"')

RYUUKYOKU_REASONS = {
    "": "exhaustive", "yao9": "kyushukyuhai", "kaze4": "suufonrenda", "reach4": "suuchariichi",
    "ron3": "sanchaho", "kan4": "suukaikan", "nm": "nagashimangan",
}
TENHOU_DRAW_KIND = {v: k or "exhaustive" for k, v in RYUUKYOKU_REASONS.items()}


@dataclass
class MjlogGame:
    """One parsed mjlog: its rule flags, players and events."""

    go_type: int
    names: list[str]
    events: list[Event]
    complete: bool
    sanma: bool
    final_scores: list[int] | None = None
    final_points: list[float] | None = None
    early: bool = False      # a 2009-2010 log: the wall's shuffle state is an INIT attribute
    extra: dict[str, Any] = field(default_factory=dict)
    shuffle: str = ""        # the <SHUFFLE seed> of the record (see wall.tenhou_walls)

    @property
    def players(self) -> int:
        """3 for a three-player (sanma) record, else 4."""
        return 3 if self.sanma else 4


def rules_for_go_type(go_type: int, early: bool = False) -> RuleSet:
    """The ``tenhou`` preset (``tenhou_sanma`` for the sanma bit 0x10) adjusted to a record's
    lobby flags (length, red fives, kuitan). Tenhou's lobbies play a dealer repeat in the
    extension on (``west_sudden_death`` off).

    ``early``: the lobby rules of 2009-2010 (the logs whose INIT tag carries the shuffle
    state): no tenpai-yame (a tenpai dealer first at the all-last draw played on), and the
    East-only lobby paid uma 5-10."""
    rules = RuleSet.preset("tenhou_sanma" if go_type & SANMA_BIT else "tenhou")
    opts: dict[str, Any] = {"west_sudden_death": False}
    if not go_type & 0x08:
        opts["game_length"] = "tonpuusen"
    if go_type & 0x02:
        opts["red_fives"] = 0
    if go_type & 0x04:
        opts["kuitan"] = False
    if early:
        opts["tenpai_yame"] = False
        if not go_type & 0x08:
            opts["uma"] = (10000, 5000, -5000, -10000)
    return rules.replace(**opts)


def rules_for_mjlog(game: MjlogGame) -> RuleSet:
    """The rules a Tenhou record was played under: its lobby flags and era, and the final
    rounding its result shows."""
    return with_record_rounding(rules_for_go_type(game.go_type, game.early), game.events)


def with_record_rounding(rules: RuleSet, events: list[Event]) -> RuleSet:
    """``rules`` with the final rounding a Tenhou record shows: Tenhou rounds final points to
    whole numbers; logs from 2009-2010 do not."""
    end = next((ev for ev in events if ev["type"] == "end_game"), None)
    whole = end is None or end.get("final_points") is None or all(
        float(p).is_integer() for p in end["final_points"])
    rounding = "tenhou" if whole else "exact"
    return rules if rules.final_rounding == rounding else rules.replace(final_rounding=rounding)


def decode_meld(m: int) -> tuple[str, int, list[int], int]:
    """Decode a Tenhou meld code: (type, called or added tile, other tiles, from_rel).

    Types ``chi``, ``pon``, ``kakan``, ``daiminkan``, ``ankan`` and ``kita`` (a north set
    aside in three-player riichi: bit 5 set, bits 2-4 clear, the tile id in bits 8 and up). For
    ``kakan`` the first tile is the added one and the list holds the pon's three tiles; for
    ``ankan`` the first tile is one of the four and the list holds all four; ``kita`` has no
    other tiles and from_rel 0.
    """
    rel = m & 3
    if m & 4:
        base = m >> 10
        called = base % 3
        base //= 3
        base = (base // 7) * 9 + base % 7
        tiles = [(base + i) * 4 + ((m >> (3 + 2 * i)) & 3) for i in range(3)]
        pai = tiles.pop(called)
        return "chi", pai, tiles, rel
    if m & 0x18:
        unused = (m >> 5) & 3
        base = m >> 9
        called = base % 3
        kind = base // 3
        tiles = [kind * 4 + c for c in range(4) if c != unused]
        if m & 8:
            pai = tiles.pop(called)
            return "pon", pai, tiles, rel
        return "kakan", kind * 4 + unused, tiles, rel
    if m & 0x20:
        tile = m >> 8
        if tile >> 2 != NORTH_KIND:
            raise InvalidHandError(f"meld code {m}: a north declaration of tile {tile}, "
                                   "which is not a north", reason="bad_mjlog")
        return "kita", tile, [], 0
    base = m >> 8
    kind = base // 4
    tiles = [kind * 4 + c for c in range(4)]
    if rel == 0:
        return "ankan", tiles[0], tiles, 0
    pai = tiles.pop(base % 4)
    return "daiminkan", pai, tiles, rel


def _ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x != ""]


def _ids(text: str, where: str, what: str) -> list[int]:
    """Tile ids 0-135 from comma-separated text; InvalidHandError naming ``what`` for another
    number (a record's ids reach the engine and the extract only through here)."""
    ids = _ints(text)
    for t in ids:
        _id(t, where, what)
    return ids


def _id(tile: int, where: str, what: str) -> int:
    if not 0 <= tile < 136:
        raise InvalidHandError(f"{where}: {what}: tile id {tile} is not 0-135",
                               reason="bad_mjlog")
    return tile


def _seat(text: str, players: int, where: str, what: str) -> int:
    seat = int(text)
    if not 0 <= seat < players:
        raise InvalidHandError(f"{where}: {what} {seat} is not a seat of a {players}-player "
                               "game", reason="bad_mjlog")
    return seat


def declares_sanma(text: str) -> bool:
    """Whether an mjlog's GO tag, in its first 4 KiB, has the three-player bit: such a record
    is three-player without reading the rest (a record without it may still be, by its
    players or deal; :func:`read_mjlog` tells)."""
    go = _GO_TYPE.search(text, 0, 4096)
    return go is not None and bool(int(go.group(1)) & SANMA_BIT)


def read_mjlog(text: str, where: str = "mjlog") -> MjlogGame:
    """Parse an mjlog XML document. Raises InvalidHandError naming the tag on malformed input."""
    reader = _MjlogReader(where)
    for n_tag, (c, digits, body) in enumerate(_TAG.findall(text), 1):
        if digits and reader.in_round:
            reader.tile_tag(n_tag, c, digits)
            continue
        if c.startswith(("/", "?")):
            continue
        tag = c + digits
        pos = f"{where}: tag {n_tag} <{tag}>"
        try:
            attrs = _attrs(body)
            handler = _MjlogReader.TAG_HANDLERS.get(tag)
            if handler is not None and (reader.in_round or tag in _READ_BETWEEN_ROUNDS):
                handler(reader, attrs, pos)
        except InvalidHandError:
            raise
        except (KeyError, ValueError, IndexError) as exc:
            raise InvalidHandError(f"{pos}: malformed tag ({exc!r})", reason="bad_mjlog") from None
    return reader.game()


# tags read outside a round (the rest, N, DORA and REACH, only between INIT and its result)
_READ_BETWEEN_ROUNDS = frozenset({"SHUFFLE", "GO", "UN", "INIT", "AGARI", "RYUUKYOKU"})


class _MjlogReader:
    """What an mjlog's tags say so far: one handler per tag (``TAG_HANDLERS``), the draw and
    discard tags in :meth:`tile_tag`."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.events: list[Event] = []
        self.go_type = 0
        self.names = ["", "", "", ""]
        self.sanma = False
        self.complete = False
        self.final_scores: list[int] | None = None
        self.final_points: list[float] | None = None
        self.early = False
        self.hands: list[list[int]] = [[], [], [], []]
        self.last_draw = [-1, -1, -1, -1]
        self.rinshan_next = [False] * 4
        self.pending_dora: list[Event] = []
        self.pending_owner = -1
        self.in_round = False
        self.started = False
        self.shuffle = ""
        self.players = 4

    def game(self) -> MjlogGame:
        return MjlogGame(go_type=self.go_type, names=self.names[:self.players],
                         events=_close_rounds(self.events), complete=self.complete,
                         sanma=self.sanma, final_scores=self.final_scores,
                         final_points=self.final_points, early=self.early, shuffle=self.shuffle)

    def tile_tag(self, n_tag: int, c: str, digits: str) -> None:
        """A draw (T U V W) or discard (D E F G) tag within a round."""
        where, tile = self.where, int(digits)
        if tile >= 136:
            raise InvalidHandError(f"{where}: tag {n_tag} <{c}{digits}>: tile id {tile} "
                                   "is not below 136", reason="bad_mjlog")
        seat = _DRAW.get(c, -1)
        if seat >= self.players or _DISCARD.get(c, -1) >= self.players:
            raise InvalidHandError(f"{where}: tag {n_tag} <{c}{digits}>: seat 3 in a "
                                   "three-player record", reason="bad_mjlog")
        if seat >= 0:
            self.hands[seat].append(tile)
            self.last_draw[seat] = tile
            if self.rinshan_next[seat]:
                self.events.append({"type": "tsumo", "actor": seat, "pai": tile,
                                    "rinshan": True})
                self.rinshan_next[seat] = False
            else:
                self.events.append({"type": "tsumo", "actor": seat, "pai": tile})
            return
        seat = _DISCARD.get(c, -1)
        if seat < 0:
            raise InvalidHandError(f"{where}: tag {n_tag} <{c}{digits}>: unknown tag",
                                   reason="bad_mjlog")
        try:
            self.hands[seat].remove(tile)
        except ValueError:
            raise InvalidHandError(
                f"{where}: tag {n_tag} <{c}{digits}>: seat {seat} discards {MJAI_NAMES[tile]} "
                "which it does not hold", reason="tile_not_held") from None
        self.events.append({"type": "dahai", "actor": seat, "pai": tile,
                            "tsumogiri": tile == self.last_draw[seat]})
        self.last_draw[seat] = -1
        if self.pending_dora and self.pending_owner == seat:
            self.events.extend(self.pending_dora)
            self.pending_dora = []

    def shuffle_tag(self, attrs: dict[str, str], pos: str) -> None:
        self.shuffle = attrs.get("seed", "")

    def go(self, attrs: dict[str, str], pos: str) -> None:
        self.go_type = int(attrs.get("type", "0"))
        if self.go_type & SANMA_BIT:
            self.sanma = True

    def players_tag(self, attrs: dict[str, str], pos: str) -> None:
        if "n0" in attrs and not self.started:
            self.names = [urllib.parse.unquote(attrs.get(f"n{i}", "")) for i in range(4)]
            if self.names[3] == "" and "n3" not in attrs:
                self.sanma = True

    def init(self, attrs: dict[str, str], pos: str) -> None:
        seed = _ints(attrs["seed"])
        self.early = self.early or "shuffle" in attrs
        hai = [_ids(attrs.get(f"hai{i}", ""), pos, f"hai{i}") for i in range(4)]
        if not hai[3]:
            self.sanma = True
        if not self.started:
            self.players = 3 if self.sanma else 4
            self.events.append({"type": "start_game", "names": self.names[:self.players]})
            self.started = True
        players = self.players
        oya = int(attrs["oya"])
        if any(len(hai[s]) != 13 for s in range(players)) or hai[players:] != \
                [[]] * (4 - players) or not 0 <= oya < players:
            raise InvalidHandError(f"{pos}: a {players}-player deal needs 13 tiles for "
                                   f"each of seats 0-{players - 1} and a dealer "
                                   "among them", reason="bad_mjlog")
        round_index, honba, sticks = seed[0], seed[1], seed[2]
        _id(seed[5], pos, "the dora indicator (seed)")
        self.events.append({
            "type": "start_kyoku", "bakaze": WIND_NAMES[(round_index // 4) % 4],
            "kyoku": round_index % 4 + 1, "honba": honba, "kyotaku": sticks,
            "oya": oya, "scores": [x * 100 for x in _ints(attrs["ten"])[:players]],
            "dora_marker": seed[5], "tehais": [list(h) for h in hai[:players]],
            "dice": [seed[3] + 1, seed[4] + 1],
        })
        self.hands = [list(h) for h in hai]
        self.last_draw = [-1, -1, -1, -1]
        self.rinshan_next = [False] * 4
        self.pending_dora = []
        self.pending_owner = -1
        self.in_round = True

    def meld(self, attrs: dict[str, str], pos: str) -> None:
        who = int(attrs["who"])
        if not 0 <= who < self.players:
            raise InvalidHandError(f"{pos}: no seat {who}", reason="bad_mjlog")
        code = int(attrs["m"])
        if not 0 <= code < 1 << 16:
            raise InvalidHandError(f"{pos}: meld code {code} is not 0-65535",
                                   reason="bad_mjlog")
        kind, pai, tiles, rel = decode_meld(code)
        for t in (pai, *tiles):
            _id(t, pos, f"meld code {code}")
        self.last_draw[who] = -1
        hand = self.hands[who]
        if kind == "kita":
            if self.players != 3:
                raise InvalidHandError(f"{pos}: a north declaration in a four-player "
                                       "record", reason="bad_mjlog")
            try:
                hand.remove(pai)
            except ValueError:
                raise InvalidHandError(
                    f"{pos}: seat {who} sets aside {MJAI_NAMES[pai]} which it does not "
                    "hold", reason="tile_not_held") from None
            self.events.append({"type": "kita", "actor": who, "pai": pai})
            self.rinshan_next[who] = True
            return
        if self.pending_dora and kind in ("kakan", "ankan", "daiminkan"):
            self.events.extend(self.pending_dora)
            self.pending_dora = []
        if kind == "kakan":
            hand.remove(pai)
            self.events.append({"type": "kakan", "actor": who, "pai": pai, "consumed": tiles})
        else:
            for t in tiles:
                hand.remove(t)
            if kind == "ankan":
                self.events.append({"type": "ankan", "actor": who, "consumed": tiles})
            else:
                self.events.append({"type": kind, "actor": who, "target": (who + rel) % 4,
                                    "pai": pai, "consumed": tiles})
        if kind in ("daiminkan", "kakan", "ankan"):
            self.rinshan_next[who] = True
            self.pending_owner = who if kind != "ankan" else -1

    def dora(self, attrs: dict[str, str], pos: str) -> None:
        ev = {"type": "dora", "dora_marker": _id(int(attrs["hai"]), pos, "hai")}
        if self.pending_owner >= 0 and self.events[-1]["type"] == "tsumo" \
                and self.events[-1].get("rinshan"):
            self.pending_dora.append(ev)
        else:
            self.events.append(ev)

    def reach(self, attrs: dict[str, str], pos: str) -> None:
        who = _seat(attrs["who"], self.players, pos, "who")
        step = "reach" if attrs.get("step") == "1" else "reach_accepted"
        self.events.append({"type": step, "actor": who})

    def agari(self, attrs: dict[str, str], pos: str) -> None:
        players = self.players
        who = _seat(attrs["who"], players, pos, "who")
        from_who = _seat(attrs["fromWho"], players, pos, "fromWho")
        sc = _ints(attrs["sc"])
        ten = _ints(attrs["ten"])
        ev = {
            "type": "hora", "actor": who, "target": from_who,
            "pai": _id(int(attrs["machi"]), pos, "machi"),
            "deltas": [sc[2 * i + 1] * 100 for i in range(players)],
            "scores": [(sc[2 * i] + sc[2 * i + 1]) * 100 for i in range(players)],
            "fu": ten[0], "points": ten[1], "limit": ten[2],
            "hai": _ids(attrs["hai"], pos, "hai"),
        }
        if "doraHai" in attrs:
            _ids(attrs["doraHai"], pos, "doraHai")
        if "doraHaiUra" in attrs:
            ev["uradora_markers"] = _ids(attrs["doraHaiUra"], pos, "doraHaiUra")
        if "yaku" in attrs:
            y = _ints(attrs["yaku"])
            ev["yaku"] = [[y[i], y[i + 1]] for i in range(0, len(y), 2)]
        if "yakuman" in attrs:
            ev["yakuman"] = _ints(attrs["yakuman"])
        if "paoWho" in attrs:
            ev["pao"] = _seat(attrs["paoWho"], players, pos, "paoWho")
        if self.pending_dora:
            self.pending_dora = []  # a rinshan win: the open-kan dora is never revealed
        self.events.append(ev)
        self._maybe_end(attrs)

    def ryuukyoku(self, attrs: dict[str, str], pos: str) -> None:
        players = self.players
        sc = _ints(attrs.get("sc", ""))
        kind = attrs.get("type", "")
        if kind not in RYUUKYOKU_REASONS:
            raise InvalidHandError(f"{pos}: unknown draw type {kind!r}",
                                   reason="unknown_draw")
        tenpai = [f"hai{i}" in attrs for i in range(players)]
        ev = {"type": "ryukyoku", "reason": RYUUKYOKU_REASONS[kind],
              "deltas": [sc[2 * i + 1] * 100 for i in range(players)] if sc
              else [0] * players,
              "scores": [(sc[2 * i] + sc[2 * i + 1]) * 100 for i in range(players)]
              if sc else None,
              "tenpais": tenpai}
        if self.pending_dora:
            self.events.extend(self.pending_dora)
            self.pending_dora = []
        self.events.append(ev)
        self._maybe_end(attrs)

    def _maybe_end(self, attrs: dict[str, str]) -> None:
        """A result with ``owari``: the game's end and its final scores (a second AGARI of a
        double ron follows directly otherwise; end_kyoku is added lazily)."""
        if "owari" not in attrs:
            return
        ow = attrs["owari"].split(",")
        self.final_scores = [int(ow[2 * i]) * 100 for i in range(self.players)]
        self.final_points = [float(ow[2 * i + 1]) for i in range(self.players)]
        self.complete = True
        if self.events[-1]["type"] != "end_kyoku":
            self.events.append({"type": "end_kyoku"})
        self.events.append({"type": "end_game", "scores": self.final_scores,
                            "final_points": self.final_points})
        self.in_round = False

    TAG_HANDLERS: ClassVar[dict[str, Callable[[_MjlogReader, dict[str, str], str], None]]] = {
        "SHUFFLE": shuffle_tag, "GO": go, "UN": players_tag, "INIT": init, "N": meld,
        "DORA": dora, "REACH": reach, "AGARI": agari, "RYUUKYOKU": ryuukyoku,
    }


def _close_rounds(events: list[Event]) -> list[Event]:
    """Insert ``end_kyoku`` after each round's last result."""
    out: list[Event] = []
    for i, ev in enumerate(events):
        out.append(ev)
        if ev["type"] in ("hora", "ryukyoku"):
            nxt = events[i + 1]["type"] if i + 1 < len(events) else None
            if nxt not in ("hora", "end_kyoku"):
                out.append({"type": "end_kyoku"})
    return out


def read_mjlog_file(path: str) -> MjlogGame:
    """Read an mjlog file (plain or gzipped)."""
    with open(path, "rb") as f:
        data = f.read()
    return read_mjlog(_decode(data, path), path)


def _decode(data: bytes, where: str) -> str:
    """The text of an mjlog's bytes (gzip or not): ``record_text`` with mjlog's reason."""
    from ..engine.sources import record_text

    return record_text(data, where, "bad_mjlog")
