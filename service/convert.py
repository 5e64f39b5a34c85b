"""Requests to the library's arguments (checked against the server's limits) and AnalyzeHand's
answer written as wire bytes. The conversions the client shares are in ``mjcore.wire.convert``.
"""
from __future__ import annotations

from typing import Any

from mjcore.errors import InvalidRuleError
from mjcore.riichi.rules import RuleSet
from mjcore.tiles import TILE_NAMES
from mjcore.wire.convert import SITUATION_FLAGS, WIND_NAMES, shanten_info
from mjcore.wire.v1 import scoring_pb2, types_pb2

from .errors import invalid_argument
from .limits import FIELD_CHARS, MAX_RULE_OPTIONS, quote

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


# -- rules ------------------------------------------------------------------------------------

def _check_rule_text(text: str, what: str, key: str) -> None:
    limit = FIELD_CHARS[key]
    if len(text) > limit:
        raise InvalidRuleError(f"{what} {quote(text[:limit])!r}...: {len(text)} characters, "
                               f"at most {limit} allowed")


def option_from_proto(opt: scoring_pb2.RuleOption) -> Any:
    _check_rule_text(opt.name, "rule option name", "rules.options.name")
    which = opt.WhichOneof("value")
    if which is None:
        raise InvalidRuleError(f"rule option {opt.name!r}: no value set")
    if which == "string_list":
        values = opt.string_list.values
        if len(values) > MAX_RULE_OPTIONS:
            raise InvalidRuleError(f"rule option {opt.name!r}: {len(values)} values, at most "
                                   f"{MAX_RULE_OPTIONS} allowed")
        for value in values:
            _check_rule_text(value, f"rule option {opt.name!r} value", "rules.options.value")
        return tuple(values)
    if which == "int_list":
        if len(opt.int_list.values) > MAX_RULE_OPTIONS:
            raise InvalidRuleError(f"rule option {opt.name!r}: {len(opt.int_list.values)} "
                                   f"values, at most {MAX_RULE_OPTIONS} allowed")
        return tuple(int(v) for v in opt.int_list.values)
    if which == "string_value":
        _check_rule_text(opt.string_value, f"rule option {opt.name!r} value",
                         "rules.options.value")
    return getattr(opt, which)


def rules_from_proto(sel: scoring_pb2.RuleSelection) -> RuleSet:
    _check_rule_text(sel.preset, "rule preset", "rules.preset")
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


def _enum(value: int, allowed: Any, field: str, enum: Any) -> None:
    """INVALID_ARGUMENT naming ``field`` for an enum number outside ``allowed``."""
    if value not in allowed:
        raise invalid_argument(f"{field}: {value} is not a {enum.DESCRIPTOR.name} value "
                               f"accepted here", "BAD_ENUM_VALUE", field=field, index=0)


_WIN_METHODS = (scoring_pb2.WIN_METHOD_TSUMO, scoring_pb2.WIN_METHOD_RON)
_WINDS = (types_pb2.WIND_UNSPECIFIED, *WIND_NAMES)


def score_arguments(req: Any) -> dict[str, Any]:
    """Keyword arguments of ``mjcore.score`` for a ScoreRequest (hand and win tile apart)."""
    _enum(req.win_method, _WIN_METHODS, "win_method", scoring_pb2.WinMethod)
    _enum(req.seat_wind, _WINDS, "seat_wind", types_pb2.Wind)
    _enum(req.round_wind, _WINDS, "round_wind", types_pb2.Wind)
    kwargs: dict[str, Any] = {name: getattr(req.situation, name) for name in SITUATION_FLAGS}
    kwargs.update(
        tsumo=req.win_method == scoring_pb2.WIN_METHOD_TSUMO,
        round_wind=WIND_NAMES.get(req.round_wind, "E"),
        dora=req.dora_indicators, ura=req.ura_indicators,
        honba=req.honba_count, riichi_sticks=req.riichi_stick_count, kita=req.kita_count,
        rules=rules_from_proto(req.rules))
    if req.seat_wind != types_pb2.WIND_UNSPECIFIED:
        kwargs["seat_wind"] = WIND_NAMES[req.seat_wind]
    for field, name in (("dealer", "dealer"), ("winner", "winner"),
                        ("discarder", "from_who"), ("liable", "pao_seat")):
        if req.HasField(field):
            kwargs[name] = getattr(req, field)
    return kwargs
