"""Tenhou records: the mjlog XML reader and the tenhou.net/6 JSON export.

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

import json
import re
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..errors import InvalidHandError
from ..riichi.rules import RuleSet
from .events import MJAI_NAMES, WIND_NAMES, Event, rules_name

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
    if data[:2] == b"\x1f\x8b":
        import zlib

        from .replay import MAX_RECORD_BYTES

        inflate = zlib.decompressobj(wbits=31)
        try:
            data = inflate.decompress(data, MAX_RECORD_BYTES + 1)
        except zlib.error as exc:
            raise InvalidHandError(f"{where}: corrupt gzip data ({exc})", reason="bad_mjlog") \
                from None
        if len(data) > MAX_RECORD_BYTES:
            raise InvalidHandError(f"{where}: decompresses to more than {MAX_RECORD_BYTES} bytes",
                                   reason="bad_mjlog")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidHandError(f"{where}: not UTF-8 text", reason="bad_mjlog") from None


# ---- tenhou.net/6 JSON export -------------------------------------------------------------

def _t6(tile: int) -> int:
    """tenhou.net/6 tile code: 11-19 man, 21-29 pin, 31-39 sou, 41-47 honors, 51-53 red fives."""
    if tile in (16, 52, 88):
        return 51 + tile // 36
    kind = tile >> 2
    return (kind // 9 + 1) * 10 + kind % 9 + 1


def _side(target: int, seat: int, players: int) -> int:
    """Where ``target`` sits for ``seat``: 1 right (shimocha), 2 across, 3 left (kamicha);
    with three players the seat before is the left one."""
    rel = (target - seat) % players
    return 3 if rel == players - 1 else rel


def _meld_str(ev: Event, seat: int, pon_rel: int = 3, players: int = 4) -> str:
    """tenhou.net/6 call string: ``c`` chi, ``p`` pon, ``m`` open kan, ``k`` added kan, ``a``
    closed kan; the marked tile sits where the player it came from sits (left: first,
    across: second, right: last)."""
    t = ev["type"]
    cons = [str(_t6(x)) for x in ev["consumed"]]
    if t == "ankan":
        return "".join(cons[:3]) + "a" + cons[3]
    pai = str(_t6(ev["pai"]))
    if t == "chi":
        return "c" + pai + "".join(cons)
    if t == "kakan":
        rel = pon_rel
        letter = "k"
    else:
        rel = _side(ev["target"], seat, players)
        letter = "p" if t == "pon" else "m"
    idx = {3: 0, 2: 1, 1: len(cons)}[rel]
    cons.insert(idx, letter + pai)
    return "".join(cons)


def to_tenhou6(events: list[Event], names: list[str] | None = None,
               rule_name: str = "mjcore") -> dict[str, Any]:
    """Export a record as tenhou.net/6 JSON (one entry of ``log`` per hand). A three-player
    record keeps tenhou.net/6's four columns with the fourth empty (no tiles, 0 points) and
    writes a north set aside as ``"f44"`` among the discards."""
    logs: list[list[Any]] = []
    players = 4
    cur: list[Any] | None = None
    haipai: list[list[int]] = []
    takes: list[list[Any]] = []
    discards: list[list[Any]] = []
    riichi_pending = [False] * 4
    pon_rel: dict[tuple[int, int], int] = {}
    start_names = names or ["", "", "", ""]
    rule: dict[str, Any] = {"disp": rule_name, "aka": 1}
    final: list[Any] = []
    for ev in events:
        t = ev["type"]
        if t == "start_game":
            start_names = list(ev.get("names") or start_names)
            if isinstance(ev.get("rule_options"), dict):     # read back by read_tenhou6
                rule["aka"] = int(ev["rule_options"].get("red_fives", 3) > 0)
                rule["preset"] = rules_name(ev) or "custom"
                rule["mjcore"] = ev["rule_options"]
        elif t == "start_kyoku":
            wind = WIND_NAMES.index(ev["bakaze"])
            round_no = wind * 4 + ev["kyoku"] - 1
            oya = ev["oya"]
            players = len(ev["tehais"])
            # tenhou.net/6 lists hands in seat order relative to the first dealer (seat 0)
            haipai = [sorted(ev["tehais"][s]) if s < players else [] for s in range(4)]
            takes = [[], [], [], []]
            discards = [[], [], [], []]
            riichi_pending = [False] * 4
            pon_rel = {}
            cur = [[round_no, ev["honba"], ev["kyotaku"]], _four(ev["scores"], 0),
                   [_t6(ev["dora_marker"])], []]
            cur.append(oya)
        elif t == "end_game":
            scores = ev.get("scores") or []
            pts = ev.get("final_points") or [0.0] * len(scores)
            final = [x for s in range(len(scores)) for x in (scores[s], pts[s])]
            final += [0, 0.0] * (4 - len(scores))
        elif cur is None:
            continue
        elif t == "tsumo":
            takes[ev["actor"]].append(_t6(ev["pai"]))
        elif t == "dahai":
            a = ev["actor"]
            code: Any = 60 if ev.get("tsumogiri") else _t6(ev["pai"])
            if riichi_pending[a]:
                code = "r" + str(code)
                riichi_pending[a] = False
            discards[a].append(code)
        elif t == "reach":
            riichi_pending[ev["actor"]] = True
        elif t == "kita":
            discards[ev["actor"]].append(T6_KITA)
        elif t in ("chi", "pon", "daiminkan"):
            a = ev["actor"]
            if t == "pon":
                pon_rel[(a, ev["pai"] >> 2)] = _side(ev["target"], a, players)
            takes[a].append(_meld_str(ev, a, players=players))
            if t == "daiminkan":
                discards[a].append(0)
        elif t in ("kakan", "ankan"):
            a = ev["actor"]
            kind = (ev["pai"] if t == "kakan" else ev["consumed"][0]) >> 2
            discards[a].append(_meld_str(ev, a, pon_rel.get((a, kind), 3)))
        elif t == "dora":
            cur[2].append(_t6(ev["dora_marker"]))
        elif t in ("hora", "ryukyoku"):
            if len(cur) == 5:
                oya = cur.pop()
                for s in range(4):
                    cur.extend([[_t6(x) for x in haipai[s]], takes[s], discards[s]])
                cur.append(None)
            if t == "hora":
                ura = [_t6(x) for x in ev.get("uradora_markers", [])]
                if ura:          # (a double ron's second winner may not be in riichi)
                    cur[3] = ura
                if cur[-1] is None:
                    cur[-1] = ["和了"]
                cur[-1].extend([_four(ev["deltas"], 0), [ev["actor"], ev["target"],
                                ev.get("pao", ev["actor"]), _hora_text(ev)]])
            else:
                cur[-1] = [_draw_name(ev["reason"]), _four(ev["deltas"], 0)]
        elif t == "end_kyoku":
            if cur is not None and len(cur) > 5:
                logs.append(cur)
            cur = None
    return {"title": ["", ""], "name": start_names, "rule": rule, "log": logs, "sc": final}


T6_KITA = "f44"          # tenhou.net/6: a north set aside, among the discards


def _four(values: list[Any], empty: Any) -> list[Any]:
    """Per-seat values in tenhou.net/6's four columns (a three-player record's fourth empty)."""
    return list(values) + [empty] * (4 - len(values))


def _hora_text(ev: Event) -> str:
    pts = ev.get("hora_points", ev.get("points", 0))
    fu = ev.get("fu", 0)
    han = ev.get("fan", 0)
    return f"{fu}符{han}飜{pts}点" if fu else f"{pts}点"


def _draw_name(reason: str) -> str:
    return {"exhaustive": "流局", "kyushukyuhai": "九種九牌", "suufonrenda": "四風連打",
            "suuchariichi": "四家立直", "sanchaho": "三家和了", "suukaikan": "四槓散了",
            "nagashimangan": "流し満貫"}.get(reason, reason)


def dumps_tenhou6(events: list[Event], names: list[str] | None = None) -> str:
    """A record as tenhou.net/6 JSON text (read back by :func:`read_tenhou6`)."""
    return json.dumps(to_tenhou6(events, names), ensure_ascii=False, separators=(",", ":"))


# ---- tenhou.net/6 JSON import -------------------------------------------------------------

_T6_DRAWS = {v: k for k, v in {"exhaustive": "流局", "kyushukyuhai": "九種九牌",
                               "suufonrenda": "四風連打", "suuchariichi": "四家立直",
                               "sanchaho": "三家和了", "suukaikan": "四槓散了",
                               "nagashimangan": "流し満貫"}.items()}
_T6_CALL = re.compile(r"^(\d*)([cpmka])(\d\d)(\d*)$")


def _t6_name(code: Any, where: str) -> str:
    """The mjai name of a tenhou.net/6 tile code."""
    if isinstance(code, int) and not isinstance(code, bool):
        if code in (51, 52, 53):
            return "5" + "mps"[code - 51] + "r"
        suit, num = divmod(code, 10)
        if 1 <= suit <= 3 and 1 <= num <= 9:
            return f"{num}{'mps'[suit - 1]}"
        if suit == 4 and 1 <= num <= 7:
            return "ESWNPFC"[num - 1]
    raise InvalidHandError(f"{where}: {code!r} is not a tenhou.net/6 tile code",
                           reason="bad_tenhou6")


def _t6_kind(code: int) -> int:
    if code in (51, 52, 53):
        return (code - 51) * 9 + 4
    suit, num = divmod(code, 10)
    return (suit - 1) * 9 + num - 1


def _t6_call(text: str, seat: int, where: str,
             players: int = 4) -> tuple[str, int, list[int], int]:
    """(event type, called or added tile, other tiles, seat called from) of a call string."""
    m = _T6_CALL.match(text)
    if m is None or len(m.group(1)) % 2 or len(m.group(4)) % 2:
        raise InvalidHandError(f"{where}: {text!r} is not a tenhou.net/6 call",
                               reason="bad_tenhou6")
    before, letter, pai, after = m.groups()
    others = [int(before[i:i + 2]) for i in range(0, len(before), 2)] + \
        [int(after[i:i + 2]) for i in range(0, len(after), 2)]
    typ = {"c": "chi", "p": "pon", "m": "daiminkan", "k": "kakan", "a": "ankan"}[letter]
    if letter == "a":
        return typ, int(pai), others, seat
    rel = 3 if not before else (1 if not after else 2)    # left, right or across
    if letter == "c":
        rel = 3
    if players == 3:
        rel = {1: 1, 3: 2}.get(rel, 0)       # no one sits across
        if rel == 0:
            raise InvalidHandError(f"{where}: {text!r} calls from across a three-player table",
                                   reason="bad_tenhou6")
    return typ, int(pai), others, (seat + rel) % players


def _t6_hand(entry: list[Any], where: str, immediate: bool = False) -> list[Event]:
    """The mjai-named events of one ``log`` entry; ``immediate``: kan dora shows at the kan
    (the ``kan_dora_timing`` option), else after the next discard."""
    hand = _T6Hand(entry, where, immediate)
    takes = hand.takes
    while hand.ti[hand.cur] < len(takes[hand.cur]):
        cur = hand.cur
        take = takes[cur][hand.ti[cur]]
        hand.ti[cur] += 1
        if not hand.take(cur, take):
            continue                              # a kan from a discard: its draw comes next
        if hand.di[cur] >= len(hand.discards[cur]):
            break                                 # a win or a draw on this take
        d = hand.discards[cur][hand.di[cur]]
        hand.di[cur] += 1
        if d == T6_KITA and hand.players == 3:
            hand.kita(cur)
        elif isinstance(d, str) and ("a" in d or "k" in d):
            hand.kan_from_hand(cur, d)
        else:
            hand.discard(cur, d)
    hand.result()
    return hand.out


class _T6Hand:
    """One tenhou.net/6 ``log`` entry read turn by turn: the seat to play (``cur``), the next
    take and discard of each seat, the tiles held, and the events so far."""

    def __init__(self, entry: list[Any], where: str, immediate: bool) -> None:
        (round_no, honba, sticks), scores, dora, ura = entry[0], entry[1], entry[2], entry[3]
        # a three-player hand leaves the fourth column empty
        self.players = players = 3 if not (entry[13] or entry[14] or entry[15]) else 4
        self.seats = seats = range(players)
        haipai = [list(entry[4 + 3 * s]) for s in seats]
        self.takes = [entry[5 + 3 * s] for s in seats]
        self.discards = [entry[6 + 3 * s] for s in seats]
        self.result_entry = entry[16]
        self.ura = ura
        self.where, self.immediate = where, immediate
        dealer = round_no % 4
        if dealer >= players:
            raise InvalidHandError(f"{where}: round {round_no} has no dealer among {players} "
                                   "seats", reason="bad_tenhou6")
        self.scores = list(scores)[:players]
        self.out: list[Event] = [{
            "type": "start_kyoku", "bakaze": WIND_NAMES[round_no // 4],
            "kyoku": round_no % 4 + 1, "honba": honba, "kyotaku": sticks, "oya": dealer,
            "scores": list(self.scores), "dora_marker": self.name(dora[0]),
            "tehais": [[self.name(c) for c in h] for h in haipai]}]
        self.kan_dora = iter(dora[1:])
        self.held = [[0] * 34 for _ in seats]          # concealed tiles
        self.melded = [[0] * 34 for _ in seats]
        self.n_melds = [0, 0, 0, 0]
        for s in seats:
            for c in haipai[s]:
                self.held[s][_t6_kind(c)] += 1
        self.ti, self.di = [0, 0, 0, 0], [0, 0, 0, 0]
        self.last_draw = [0, 0, 0, 0]
        self.pending_dora = self.rinshan = False
        self.last_discard = (-1, 0)
        self.cur = dealer

    def name(self, code: Any) -> str:
        return _t6_name(code, self.where)

    def reveal(self) -> None:
        self.out.append({"type": "dora", "dora_marker": self.name(next(self.kan_dora))})

    def meld(self, seat: int, codes: list[int]) -> None:
        for c in codes:
            self.held[seat][_t6_kind(c)] -= 1
            self.melded[seat][_t6_kind(c)] += 1

    def take(self, cur: int, take: Any) -> bool:
        """A draw or a call of the last discard; False after an open kan (its replacement
        draw is the seat's next take)."""
        if not isinstance(take, str):
            self.out.append({"type": "tsumo", "actor": cur, "pai": self.name(take),
                             **({"rinshan": True} if self.rinshan else {})})
            self.held[cur][_t6_kind(take)] += 1
            self.last_draw[cur] = take
            self.rinshan = False
            return True
        typ, pai, others, target = _t6_call(take, cur, self.where, self.players)
        if target != self.last_discard[0]:
            raise InvalidHandError(f"{self.where}: seat {cur} calls {take!r} from seat "
                                   f"{target}, but seat {self.last_discard[0]} discarded last",
                                   reason="bad_tenhou6")
        self.out.append({"type": typ, "actor": cur, "target": target, "pai": self.name(pai),
                         "consumed": [self.name(c) for c in others]})
        self.meld(cur, others)
        self.melded[cur][_t6_kind(pai)] += 1
        self.n_melds[cur] += 1
        if typ != "daiminkan":
            return True
        self.rinshan = True
        if self.immediate:
            self.reveal()
        else:
            self.pending_dora = True
        self.di[cur] += 1                         # the 0 that stands for the kan's discard
        return False

    def kita(self, cur: int) -> None:
        """A north set aside (three players; no replacement draw in the record: it was
        robbed, or the next take is it)."""
        self.out.append({"type": "kita", "actor": cur, "pai": "N"})
        self.held[cur][_t6_kind(44)] -= 1
        self.melded[cur][_t6_kind(44)] += 1
        if self.pending_dora:                     # a north shows a pending kan dora
            self.reveal()
            self.pending_dora = False
        self.last_discard = (cur, 44)
        self.rinshan = True

    def kan_from_hand(self, cur: int, d: str) -> None:
        """A closed or added kan in the discard column (the replacement draw is the seat's
        next take, or none when the kan was robbed)."""
        typ, pai, others, _ = _t6_call(d, cur, self.where, self.players)
        if typ == "ankan":
            self.out.append({"type": "ankan", "actor": cur,
                             "consumed": [self.name(c) for c in [pai] + others]})
            self.meld(cur, [pai] + others)
            self.n_melds[cur] += 1
            if self.pending_dora:
                self.reveal()
            self.pending_dora = False
            self.reveal()
        else:
            self.out.append({"type": "kakan", "actor": cur, "pai": self.name(pai),
                             "consumed": [self.name(c) for c in others]})
            self.meld(cur, [pai])
            if self.pending_dora:
                self.reveal()
            self.pending_dora = not self.immediate
            if self.immediate and self.ti[cur] < len(self.takes[cur]):    # (not when robbed)
                self.reveal()
        self.last_discard = (cur, pai)
        self.rinshan = True

    def discard(self, cur: int, d: Any) -> None:
        """A discard (with riichi when written ``r``), then who plays next."""
        riichi = isinstance(d, str) and d.startswith("r")
        code = int(d[1:]) if riichi else d
        tsumogiri = code == 60
        tile = self.last_draw[cur] if tsumogiri else code
        if riichi:
            self.out.append({"type": "reach", "actor": cur})
        self.out.append({"type": "dahai", "actor": cur, "pai": self.name(tile),
                         "tsumogiri": tsumogiri})
        self.held[cur][_t6_kind(tile)] -= 1
        if self.pending_dora:
            self.reveal()
            self.pending_dora = False
        self.last_discard = (cur, tile)
        result = self.result_entry
        ronned = (result[0] == "和了" and result[2][1] == cur and result[2][0] != cur
                  and all(self.ti[s] >= len(self.takes[s]) for s in self.seats))
        if riichi and not ronned:
            self.scores[cur] -= 1000
            self.out.append({"type": "reach_accepted", "actor": cur,
                             "scores": list(self.scores)})
        self.cur = self._next_seat(cur, tile)

    def _next_seat(self, cur: int, tile: Any) -> int:
        """The seat after ``cur`` discarded ``tile``: a caller of it (pon or kan before chi),
        else the next seat."""
        nxt = (cur + 1) % self.players
        for s in sorted(self.seats, key=lambda s: (s == nxt, s)):   # pon or kan before chi
            takes = self.takes[s]
            if s != cur and self.ti[s] < len(takes) and isinstance(takes[self.ti[s]], str):
                typ, pai, _, target = _t6_call(takes[self.ti[s]], s, self.where, self.players)
                if target == cur and _t6_kind(pai) == _t6_kind(tile) and \
                        (typ != "chi" or s == nxt):
                    return s
        return nxt

    def result(self) -> None:
        """The hand's wins or its draw, then end_kyoku."""
        result, players = self.result_entry, self.players
        if not isinstance(result, list) or not result:
            raise InvalidHandError(f"{self.where}: the hand has no result",
                                   reason="bad_tenhou6")
        if result[0] == "和了":
            for i in range(1, len(result) - 1, 2):
                deltas, info = result[i], result[i + 1]
                ev: Event = {"type": "hora", "actor": info[0], "target": info[1],
                             "deltas": list(deltas)[:players]}
                if self.ura:
                    ev["uradora_markers"] = [self.name(c) for c in self.ura]
                self.out.append(ev)
        else:
            reason = _T6_DRAWS.get(result[0], result[0])
            deltas = list(result[1])[:players] if len(result) > 1 else [0] * players
            tenpais = [d > 0 for d in deltas]
            if reason == "sanchaho":
                tenpais = [s != self.last_discard[0] for s in self.seats]
            elif reason == "exhaustive" and not any(deltas):
                # all four tenpai or none: the hands tell (a hidden tenpai, with the optional
                # declaration, is not in this format)
                tenpais = [all(self._tenpai(s) for s in self.seats)] * players
            self.out.append({"type": "ryukyoku", "reason": reason, "deltas": deltas,
                             "tenpais": tenpais})
        self.out.append({"type": "end_kyoku"})

    def _tenpai(self, s: int) -> bool:
        from .handcalc import advance

        held, melded = self.held[s], self.melded[s]
        sh, mask = advance(held, self.n_melds[s])
        return sh == 0 and any((mask >> k) & 1 and held[k] + melded[k] < 4 for k in range(34))


def read_tenhou6(text: str, where: str = "tenhou6") -> list[Event]:
    """Read a tenhou.net/6 JSON record (as :func:`dumps_tenhou6` writes it) into engine
    events, so that every record format mjcore writes, it reads. Raises InvalidHandError."""
    from .events import from_mjai_lines

    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidHandError(f"{where}: not JSON ({exc.msg})", reason="bad_json") from None
    except RecursionError:
        raise InvalidHandError(f"{where}: not JSON (nested too deeply)",
                               reason="bad_json") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("log"), list):
        raise InvalidHandError(f"{where}: not a tenhou.net/6 record (no 'log' list)",
                               reason="bad_tenhou6")
    rule: dict[str, Any] = doc["rule"] if isinstance(doc.get("rule"), dict) else {}
    start: Event = {"type": "start_game", "names": list(doc.get("name") or [""] * 4)}
    if isinstance(rule.get("mjcore"), dict):
        start["mjcore_rules"] = rule.get("preset", "custom")
        start["rule_options"] = rule["mjcore"]
    events: list[Event] = [start]
    immediate = start.get("rule_options", {}).get("kan_dora_timing") == "immediate"
    for i, entry in enumerate(doc["log"]):
        pos = f"{where} hand {i + 1}"
        try:
            events += _t6_hand(entry, pos, immediate)
        except (KeyError, IndexError, TypeError, ValueError, StopIteration) as exc:
            if isinstance(exc, InvalidHandError):
                raise
            raise InvalidHandError(f"{pos}: malformed hand ({exc!r})",
                                   reason="bad_tenhou6") from None
    players = next((len(ev["tehais"]) for ev in events if ev["type"] == "start_kyoku"), 4)
    start["names"] = start["names"][:players]
    sc = doc.get("sc")
    if isinstance(sc, list) and len(sc) == 8:
        if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in sc):
            raise InvalidHandError(f"{where}: sc {sc!r}: expected 8 numbers (score and points "
                                   "of each seat)", reason="bad_tenhou6")
        events.append({"type": "end_game", "scores": sc[0::2][:players],
                       "final_points": [float(x) for x in sc[1::2][:players]]})
    return from_mjai_lines((json.dumps(ev) for ev in events), where)
