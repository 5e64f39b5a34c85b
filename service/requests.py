"""The request parsing and reply building both games' RPCs use.

Text fields to tiles and hands (each length-checked before it is parsed), a ``RuleSelection`` to
the rules of either game, the deadline and the chunks of a bulk batch, a batch's bad hands as
``HandError``s, and AnalyzeHand's answer written as wire bytes. The conversions the client shares
are in ``mjcore.wire.convert``.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any, cast

import grpc
import numpy as np

from mjcore.classical.rules import ClassicalRules
from mjcore.errors import InvalidHandError, InvalidRuleError
from mjcore.games import GAMES
from mjcore.hand import Hand
from mjcore.riichi.rules import SANMA_KINDS, RuleSet
from mjcore.status import NOT_IN_SANMA, reason_of
from mjcore.tiles import TILE_NAMES, parse_kinds, tile_name
from mjcore.tiles import parse_tile as parse_tile_text
from mjcore.wire.convert import shanten_info
from mjcore.wire.v1 import scoring_pb2, types_pb2

from .errors import RpcError, invalid_argument, invalid_hand, reason_code
from .limits import FIELD_CHARS, MAX_RULE_OPTIONS, MESSAGE_CHARS, clip, quote

CLASSICAL_PRESETS = GAMES["classical"].presets
RIICHI_PRESETS = GAMES["riichi"].presets
CHUNK = 1 << 16         # rows of a bulk batch per kernel call: a cancelled call stops within one
INT32 = 1 << 31
NOT_IN_SANMA_REASON = reason_of(NOT_IN_SANMA)
_NOT_IN_SANMA_KINDS = [k for k in range(34) if not SANMA_KINDS >> k & 1]   # 2m-8m
_ROW_PREFIX = re.compile(r"^(row|hand) \d+: ")
_MISSING = object()

# -- AnalyzeHand as bytes -----------------------------------------------------------------------
# The response is written once, field by field, as protobuf would serialize the message (fields
# in number order, int32 as sign-extended varints, zero scalars left out), and sent as written.


class EncodedMessage(bytes):
    """A response already serialized: both ports send these bytes as they are (its
    ``SerializeToString`` is what they call on a message)."""

    __slots__ = ()

    def SerializeToString(self, **_options: object) -> bytes:
        return bytes(self)


def serialize(response: Any) -> bytes:
    """A response's wire bytes, for a message and an ``EncodedMessage`` alike."""
    return response.SerializeToString()

def _varint(n: int) -> bytes:
    if n < 0:
        n += 1 << 64
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


_LEN = [_varint(n) for n in range(1 << 14)]  # length prefixes of up to 16 KiB


def _length(n: int) -> bytes:
    return _LEN[n] if n < 16384 else _varint(n)


def _scalar(tag: int, value: int) -> bytes:
    """An int32/bool field, empty when zero (proto3 leaves defaults out)."""
    return bytes((tag << 3,)) + _varint(value) if value else b""


_DISCARD = [b"\x0a\x02" + name.encode() for name in TILE_NAMES]
# [tag][value + 1]: an int32 field for values -1..255
_INT_FIELD = [[_scalar(tag, v) for v in range(-1, 256)] for tag in range(8)]
_SHANTEN_BODY: dict[int, tuple[Any, bytes]] = {}


def _int_field(tag: int, value: int) -> bytes:
    return _INT_FIELD[tag][value + 1] if -1 <= value <= 255 else _scalar(tag, value)


def _shanten_field(sh: Any) -> bytes:
    # the library hands out shared Shanten values: their serialized field is kept by identity
    known = _SHANTEN_BODY.get(id(sh))
    if known is not None and known[0] is sh:
        return known[1]
    body = shanten_info(sh).SerializeToString()
    field = b"\x22" + _length(len(body)) + body
    if len(_SHANTEN_BODY) < 4096:
        _SHANTEN_BODY[id(sh)] = (sh, field)
    return field


# TileCount entries are 10 bytes wide when neither the kind nor the remaining count is zero,
# so a run of them is a template with four byte columns filled in: kind, the two characters of
# its name, remaining. A run with a zero among them is written entry by entry.
_ENTRY_WIDTH = 10
_OPTION_ENTRIES = b"\x1a\x08\x08\x00\x12\x02\x00\x00\x18\x00" * 34
_WAITS_ENTRIES = b"\x12\x08\x08\x00\x12\x02\x00\x00\x18\x00" * 34
_NAME_DIGIT = bytes(ord(TILE_NAMES[k][0]) if k < len(TILE_NAMES) else 0 for k in range(256))
_NAME_SUIT = bytes(ord(TILE_NAMES[k][1]) if k < len(TILE_NAMES) else 0 for k in range(256))
_TILE_FIELD = [b"\x12\x02" + name.encode() for name in TILE_NAMES]


def _entries(template: bytes, tiles: bytes, unseen: bytes) -> bytes:
    """The TileCount entries of ``tiles`` (kind bytes) with their unseen counts."""
    remaining = tiles.translate(unseen)
    if 0 in tiles or 0 in remaining:
        return b"".join(_entry(template[0], kind, left)
                        for kind, left in zip(tiles, remaining, strict=True))
    n = len(tiles)
    out = bytearray(template[:_ENTRY_WIDTH * n])
    out[3::10] = tiles
    out[6::10] = tiles.translate(_NAME_DIGIT)
    out[7::10] = tiles.translate(_NAME_SUIT)
    out[9::10] = remaining
    return bytes(out)


def _entry(tag: int, kind: int, remaining: int) -> bytes:
    body = b"".join((_int_field(1, kind), _TILE_FIELD[kind], _int_field(3, remaining)))
    return bytes((tag, len(body))) + body


def analyze_hand_bytes(hand: Any, shanten: Any, agari: bool, ukeire: tuple[int, list, bytes],
                       with_waits: bool) -> EncodedMessage:
    """The AnalyzeHandResponse for ``hand`` from ``mjcore.shanten``, the agari flag and
    ``mjcore.analysis.ukeire_rows`` (the values ``ukeire``/``waits`` return), serialized.
    ``with_waits``: a 13-3k tile hand, whose single ukeire option holds its waits."""
    current, rows, unseen = ukeire
    fields = _INT_FIELD
    lengths = _LEN
    text = str(hand).encode()
    head = [b"\x0a", lengths[len(text)], text, _int_field(2, hand.n_closed),
            fields[3][hand.n_melds + 1], _shanten_field(shanten),
            b"\x28\x01" if agari else b""]
    parts = [_int_field(1, current)]
    blocks: dict[bytes, bytes] = {}
    for s, neg_remaining, discard, tiles in rows:
        block = blocks.get(tiles)
        if block is None:
            block = blocks[tiles] = _entries(_OPTION_ENTRIES, tiles, unseen)
        body = b"".join((b"" if discard is None else _DISCARD[discard], _int_field(2, s),
                         block, fields[4][1 - neg_remaining]))
        parts += (b"\x12", _length(len(body)), body)
    if with_waits:
        s, neg_remaining, _discard, tiles = rows[0]
        if s == 0 and tiles:
            waits = b"".join((b"\x08\x01", _entries(_WAITS_ENTRIES, tiles, unseen),
                              fields[3][1 - neg_remaining]))
            head += (b"\x32", lengths[len(waits)], waits)
        else:
            head.append(b"\x32\x00")
    uk = b"".join(parts)
    head += (b"\x3a", _length(len(uk)), uk)
    return EncodedMessage(b"".join(head))


# -- text fields ----------------------------------------------------------------------------------

def check_length(text: str, field: str) -> None:
    """INVALID_ARGUMENT when ``text`` is longer than its field allows (checked before parsing)."""
    limit = FIELD_CHARS[field]
    if len(text) > limit:
        raise RpcError(grpc.StatusCode.INVALID_ARGUMENT,
                       f"{field}: {len(text)} characters, at most {limit} allowed",
                       "FIELD_TOO_LONG", field=field, index=0, limit=limit, size=len(text))


def parse_hand(text: str, field: str = "hand") -> Hand:
    check_length(text, field)
    try:
        return Hand.parse(text)
    except InvalidHandError as err:
        raise invalid_hand(err, field) from None


def parse_tile(text: str, field: str) -> int:
    check_length(text, field)
    try:
        if not text:
            raise InvalidHandError("no tile given", reason="missing_tile")
        return parse_tile_text(text)
    except InvalidHandError as err:
        raise invalid_hand(err, field) from None


def parse_tiles(text: str, field: str, max_tiles: int) -> list[int]:
    """Tiles in mpsz: at most ``max_tiles``, at most four of a kind."""
    check_length(text, field)
    try:
        kinds = parse_kinds(text) if text else []
    except InvalidHandError as err:
        raise invalid_hand(err, field) from None
    if len(kinds) > max_tiles:
        raise RpcError(grpc.StatusCode.INVALID_ARGUMENT,
                       f"{field}: {len(kinds)} tiles, at most {max_tiles} allowed",
                       "TOO_MANY_TILES", field=field, index=0, limit=max_tiles)
    counts = bytearray(34)
    for kind in kinds:
        counts[kind] += 1
        if counts[kind] > 4:
            raise RpcError(grpc.StatusCode.INVALID_ARGUMENT,
                           f"{field}: {tile_name(kind)}: {kinds.count(kind)} copies; at most 4",
                           "TOO_MANY_COPIES", field=field, index=0)
    return kinds


def check_enum(value: int, allowed: Any, field: str, enum: Any) -> None:
    """INVALID_ARGUMENT naming ``field`` for an enum number outside ``allowed``."""
    if value not in allowed:
        raise invalid_argument(f"{field}: {value} is not a {enum.DESCRIPTOR.name} value "
                               f"accepted here", "BAD_ENUM_VALUE", field=field, index=0)


# -- rules ----------------------------------------------------------------------------------------

class SelectionCache:
    """Values derived from serialized rules selections, at most ``size`` of them: when full it
    starts over, so a client sending endless distinct selections cannot grow it. Safe across
    threads (one lookup per call; a concurrent clear only costs a recomputation)."""

    def __init__(self, size: int = 256) -> None:
        self._size = size
        self._values: dict[bytes, Any] = {}

    def get(self, key: bytes, make: Callable[[], Any]) -> Any:
        """The value for ``key``, made by ``make()`` on a miss (its exceptions pass through)."""
        known = self._values.get(key, _MISSING)
        if known is not _MISSING:
            return known
        value = make()
        if len(self._values) >= self._size:
            self._values.clear()
        self._values[key] = value
        return value


_classical_cache = SelectionCache()
_sanma_cache = SelectionCache()


def check_rule_text(text: str, what: str, key: str) -> None:
    limit = FIELD_CHARS[key]
    if len(text) > limit:
        raise InvalidRuleError(f"{what} {quote(text[:limit])!r}...: {len(text)} characters, "
                               f"at most {limit} allowed")


def option_from_proto(opt: scoring_pb2.RuleOption) -> Any:
    check_rule_text(opt.name, "rule option name", "rules.options.name")
    which = opt.WhichOneof("value")
    if which is None:
        raise InvalidRuleError(f"rule option {opt.name!r}: no value set")
    if which == "string_list":
        values = opt.string_list.values
        if len(values) > MAX_RULE_OPTIONS:
            raise InvalidRuleError(f"rule option {opt.name!r}: {len(values)} values, at most "
                                   f"{MAX_RULE_OPTIONS} allowed")
        for value in values:
            check_rule_text(value, f"rule option {opt.name!r} value", "rules.options.value")
        return tuple(values)
    if which == "int_list":
        if len(opt.int_list.values) > MAX_RULE_OPTIONS:
            raise InvalidRuleError(f"rule option {opt.name!r}: {len(opt.int_list.values)} "
                                   f"values, at most {MAX_RULE_OPTIONS} allowed")
        return tuple(int(v) for v in opt.int_list.values)
    if which == "string_value":
        check_rule_text(opt.string_value, f"rule option {opt.name!r} value",
                        "rules.options.value")
    return getattr(opt, which)


def rules_from_proto(sel: scoring_pb2.RuleSelection) -> RuleSet:
    """The riichi rules of a selection (an empty preset: tenhou)."""
    check_rule_text(sel.preset, "rule preset", "rules.preset")
    if len(sel.options) > MAX_RULE_OPTIONS:
        raise InvalidRuleError(f"{len(sel.options)} rule options, at most {MAX_RULE_OPTIONS} "
                               "allowed")
    base = RuleSet.preset(sel.preset or "tenhou")
    if not sel.options:
        return base
    opts: dict[str, Any] = {}
    for opt in sel.options:
        if opt.name in opts:
            raise InvalidRuleError(f"rule option {opt.name!r} given twice")
        opts[opt.name] = option_from_proto(opt)
    return base.replace(**opts)


def _rule_options(sel: scoring_pb2.RuleSelection) -> dict[str, Any]:
    """The option overrides of a selection by name, for either game's ``replace``."""
    if len(sel.options) > MAX_RULE_OPTIONS:
        raise InvalidRuleError(f"{len(sel.options)} rule options, at most {MAX_RULE_OPTIONS} "
                               "allowed")
    opts: dict[str, Any] = {}
    for opt in sel.options:
        value = option_from_proto(opt)   # checks the name's and values' lengths
        if opt.name in opts:
            raise InvalidRuleError(f"rule option {opt.name!r} given twice")
        if isinstance(value, int) and not isinstance(value, bool) and not (
                -INT32 <= value < INT32):
            # the compiled scorer takes its options as C ints
            raise InvalidRuleError(f"rule option {opt.name!r}: {value} is out of range")
        opts[opt.name] = value
    return opts


def _resolve(sel: scoring_pb2.RuleSelection, default: str | None) -> ClassicalRules | None:
    """Classical rules of ``sel``, or None for riichi; ``default``: the preset of an empty
    selection (None = riichi)."""
    check_rule_text(sel.preset, "rule preset", "rules.preset")
    preset = sel.preset or default or ""
    if preset in CLASSICAL_PRESETS:
        return ClassicalRules.preset(preset).replace(**_rule_options(sel))
    if default is not None or preset not in ("", *RIICHI_PRESETS):
        allowed = CLASSICAL_PRESETS if default is not None else (*RIICHI_PRESETS,
                                                                  *CLASSICAL_PRESETS)
        raise InvalidRuleError(f"unknown rule preset {quote(preset)!r}; expected one of "
                               f"{', '.join(allowed)}")
    if sel.options:  # riichi options do not change the winning forms, but must be valid
        RuleSet.preset(preset or "tenhou").replace(**_rule_options(sel))
    return None


def classical_rules_of(sel: scoring_pb2.RuleSelection, default: str | None = None
                       ) -> ClassicalRules | None:
    """The classical rules a selection names, or None when it names riichi's (checked all the
    same); ``default``: the classical preset of an empty selection (None: riichi). Cached by
    the serialized selection (a stream repeats it)."""
    key = (default or "").encode() + b"\0" + sel.SerializeToString(deterministic=True)
    return cast("ClassicalRules | None",
                _classical_cache.get(key, lambda: _resolve(sel, default)))


def sanma_rules(sel: scoring_pb2.RuleSelection) -> RuleSet | None:
    """The three-player riichi rules of a riichi selection (``classical_rules_of`` has checked
    it), or None when it is four-player: every four-player preset has the same forms and tiles.
    One cached RuleSet per distinct selection: the library caches what it derives from a rules
    value by identity."""
    if not sel.preset and not sel.options:
        return None

    def make() -> RuleSet | None:
        rules = rules_from_proto(sel)
        return rules if rules.players == 3 else None

    return cast("RuleSet | None",
                _sanma_cache.get(sel.SerializeToString(deterministic=True), make))


def analysis_rules(sel: scoring_pb2.RuleSelection) -> ClassicalRules | RuleSet | None:
    """The rules of an analysis RPC's selection: classical rules, three-player riichi rules,
    or None (four-player riichi). A bad selection raises InvalidRuleError."""
    classical = classical_rules_of(sel)
    return classical if classical is not None else sanma_rules(sel)


def stream_rules(request: Any, batch_no: int, default: str | None = None
                 ) -> ClassicalRules | RuleSet | None:
    """The rules of one bulk request batch: ``analysis_rules`` of its selection (None when it
    has none), or with ``default`` (a classical preset) the classical rules it names. A bad
    selection fails the call, naming the batch."""
    if default is None and not request.HasField("rules"):
        return None
    try:
        if default is None:
            return analysis_rules(request.rules)
        return classical_rules_of(request.rules, default)
    except InvalidRuleError as err:
        raise RpcError(grpc.StatusCode.INVALID_ARGUMENT, f"batch {batch_no}: rules: {err}",
                       "INVALID_RULE", field="rules", batch=batch_no) from None


# -- bulk batches ---------------------------------------------------------------------------------

def check_deadline(context: grpc.ServicerContext) -> None:
    remaining = context.time_remaining()
    if remaining is not None and remaining <= 0:
        raise RpcError(grpc.StatusCode.DEADLINE_EXCEEDED, "deadline exceeded",
                       "DEADLINE_EXCEEDED")


def chunks(n: int, context: grpc.ServicerContext) -> Iterator[tuple[int, int]]:
    """``(start, stop)`` of each CHUNK rows of a batch of ``n``. Between chunks: stops early
    when the call went away (callers check ``context.is_active()`` after the loop) and raises
    DEADLINE_EXCEEDED when the deadline has passed."""
    for start in range(0, n, CHUNK):
        if start:
            if not context.is_active():
                return
            check_deadline(context)
        yield start, min(n, start + CHUNK)


def batch_limit(servicer: Any, row_bytes: int) -> int:
    """The most rows of a batch the servicer takes when each answer row is ``row_bytes``: its
    ``max_batch``, fewer when the answer would not fit in one message."""
    return min(servicer.max_batch,
               max(1, (servicer.max_message_size - 4096) // (row_bytes + 8)))


def batch_rows(data: bytes, name: str, spec: Any, n: int, batch_no: int) -> np.ndarray:
    """A bulk batch's packed array ``name`` (``mjcore.wire.layout``'s ``spec``) read as ``n``
    rows; INVALID_ARGUMENT (BAD_FIELD_LENGTH, naming the batch and the field) when its bytes
    are not ``n`` rows."""
    from mjcore.wire import layout

    size = layout.row_bytes({name: spec}) * n
    if len(data) != size:
        raise RpcError(grpc.StatusCode.INVALID_ARGUMENT,
                       f"batch {batch_no}: {name} has {len(data)} bytes, expected {size} "
                       f"for {n} hands", "BAD_FIELD_LENGTH", batch=batch_no, field=name)
    rows: np.ndarray = layout.read_rows(data, spec, n)
    return rows


def not_in_play_row(counts: np.ndarray, index: int) -> InvalidHandError:
    """A batch row's NOT_IN_SANMA error naming the tiles it holds that sanma lacks."""
    held = " ".join(tile_name(k) for k in _NOT_IN_SANMA_KINDS if counts[k])
    return InvalidHandError(f"{held} not in the tile set of the rules (three players: no "
                            "2m-8m)", reason=NOT_IN_SANMA_REASON, index=index)


def hand_errors(errors: dict[int, InvalidHandError]) -> list[types_pb2.HandError]:
    """The bad hands of a batch; messages drop the kernels' chunk-relative "row N: " prefix."""
    return [types_pb2.HandError(index=i, reason=reason_code(e.reason),
                                message=clip(_ROW_PREFIX.sub("", str(e)), MESSAGE_CHARS))
            for i, e in sorted(errors.items())]
