"""Conversions between the mjcore domain values and the mjcore.v1 messages."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mjcore.errors import InvalidRuleError
from mjcore.riichi.rules import RuleSet
from mjcore.tiles import TILE_NAMES

from .errors import invalid_argument
from .gen.mjcore.v1 import analysis_service_pb2 as pb
from .gen.mjcore.v1 import scoring_pb2, types_pb2
from .limits import FIELD_CHARS, MAX_RULE_OPTIONS, quote

WIND_OF_SEAT = (types_pb2.WIND_EAST, types_pb2.WIND_SOUTH, types_pb2.WIND_WEST,
                types_pb2.WIND_NORTH)


# -- AnalyzeHand as bytes -----------------------------------------------------------------------
# The response is written field by field (fields in number order, int32 as sign-extended
# varints, zero scalars left out except inside the fixed-width TileCount entries below) and
# parsed once into the message, whose serialization is then the canonical one.

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


# TileCount entries written at a fixed width of 10 bytes (the zero kind and remaining fields
# written out, which parse the same), so a run of them is a template with four byte columns
# filled in: kind, the two characters of its name, remaining.
_ENTRY_WIDTH = 10
_OPTION_ENTRIES = b"\x1a\x08\x08\x00\x12\x02\x00\x00\x18\x00" * 34
_WAITS_ENTRIES = b"\x12\x08\x08\x00\x12\x02\x00\x00\x18\x00" * 34
_NAME_DIGIT = bytes(ord(TILE_NAMES[k][0]) if k < len(TILE_NAMES) else 0 for k in range(256))
_NAME_SUIT = bytes(ord(TILE_NAMES[k][1]) if k < len(TILE_NAMES) else 0 for k in range(256))


def _entries(template: bytes, tiles: bytes, unseen: bytes) -> bytearray:
    """The TileCount entries of ``tiles`` (kind bytes) with their unseen counts."""
    n = len(tiles)
    out = bytearray(template[:_ENTRY_WIDTH * n])
    out[3::10] = tiles
    out[6::10] = tiles.translate(_NAME_DIGIT)
    out[7::10] = tiles.translate(_NAME_SUIT)
    out[9::10] = tiles.translate(unseen)
    return out


def analyze_hand_bytes(hand: Any, shanten: Any, agari: bool, ukeire: tuple[int, list, bytes],
                       with_waits: bool) -> bytes:
    """AnalyzeHandResponse wire bytes for ``hand`` from ``mjcore.shanten``, the agari flag and
    ``mjcore.analysis.ukeire_rows`` (the values ``ukeire``/``waits`` return). ``with_waits``:
    a 13-3k tile hand, whose single ukeire option holds its waits. Parsing them gives the
    response; some zero fields are written out, so serialize the parsed message to send it."""
    current, rows, unseen = ukeire
    fields = _INT_FIELD
    lengths = _LEN
    text = str(hand).encode()
    head = [b"\x0a", lengths[len(text)], text, _int_field(2, hand.n_closed),
            fields[3][hand.n_melds + 1], _shanten_field(shanten),
            b"\x28\x01" if agari else b""]
    parts = [_int_field(1, current)]
    blocks: dict[bytes, bytearray] = {}
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
    return b"".join(head)


def shanten_info(sh: Any) -> pb.ShantenInfo:
    info = pb.ShantenInfo(shanten=int(sh), standard=sh.standard)
    if sh.chiitoitsu is not None:
        info.chiitoitsu = sh.chiitoitsu
    if sh.kokushi is not None:
        info.kokushi = sh.kokushi
    return info


# -- rules ------------------------------------------------------------------------------------

def option_to_proto(name: str, value: Any) -> scoring_pb2.RuleOption:
    opt = scoring_pb2.RuleOption(name=name)
    if isinstance(value, bool):
        opt.bool_value = value
    elif isinstance(value, int):
        opt.int_value = value
    elif isinstance(value, str):
        opt.string_value = value
    elif isinstance(value, tuple) and all(isinstance(v, str) for v in value):
        opt.string_list.values.extend(value)
    elif isinstance(value, tuple) and all(isinstance(v, int) for v in value):
        opt.int_list.values.extend(value)
    else:
        raise TypeError(f"rule option {name}: cannot express {value!r}")
    return opt


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


def preset_to_proto(name: str, description: str) -> scoring_pb2.RulePreset:
    rules = RuleSet.preset(name)
    return scoring_pb2.RulePreset(
        name=name, description=description,
        options=[option_to_proto(k, v) for k, v in rules.to_dict().items()])


# -- decomposition and scoring ----------------------------------------------------------------

_FORMS = {"standard": scoring_pb2.HAND_FORM_STANDARD,
          "chiitoitsu": scoring_pb2.HAND_FORM_CHIITOITSU,
          "kokushi": scoring_pb2.HAND_FORM_KOKUSHI}
_SET_KINDS = {"chi": scoring_pb2.SET_KIND_CHI, "pon": scoring_pb2.SET_KIND_PON,
              "kan": scoring_pb2.SET_KIND_KAN}
_WAITS = {"ryanmen": scoring_pb2.WAIT_SHAPE_RYANMEN, "kanchan": scoring_pb2.WAIT_SHAPE_KANCHAN,
          "penchan": scoring_pb2.WAIT_SHAPE_PENCHAN, "shanpon": scoring_pb2.WAIT_SHAPE_SHANPON,
          "tanki": scoring_pb2.WAIT_SHAPE_TANKI, "kokushi": scoring_pb2.WAIT_SHAPE_KOKUSHI,
          "kokushi 13-sided": scoring_pb2.WAIT_SHAPE_KOKUSHI_13_SIDED}
_LIMITS = (scoring_pb2.LIMIT_NONE, scoring_pb2.LIMIT_MANGAN, scoring_pb2.LIMIT_HANEMAN,
           scoring_pb2.LIMIT_BAIMAN, scoring_pb2.LIMIT_SANBAIMAN, scoring_pb2.LIMIT_YAKUMAN)
WIND_NAMES = {types_pb2.WIND_EAST: "E", types_pb2.WIND_SOUTH: "S", types_pb2.WIND_WEST: "W",
              types_pb2.WIND_NORTH: "N"}


def _set_text(tiles: Iterable[int]) -> str:
    kinds = list(tiles)
    return "".join(TILE_NAMES[k][0] for k in kinds) + TILE_NAMES[kinds[0]][1]


def decomposition(d: Any) -> scoring_pb2.Decomposition:
    msg = scoring_pb2.Decomposition(
        form=_FORMS[d.form], wait=_WAITS[d.wait], text=str(d),
        pair="" if d.form == "chiitoitsu" else TILE_NAMES[d.pair],
        sets=[scoring_pb2.TileSet(kind=_SET_KINDS[s.kind], tiles=_set_text(s.tiles),
                                  first_kind=s.tile, concealed=s.concealed, called=s.called)
              for s in d.sets])
    if d.win_set is not None:
        msg.win_set = d.win_set
    return msg


def score_response(r: Any) -> scoring_pb2.ScoreResponse:
    msg = scoring_pb2.ScoreResponse(is_win=r.is_win, status=r.status)
    msg.yaku.extend(scoring_pb2.Yaku(tenhou_id=y.id, name=y.name, name_japanese=y.name_ja,
                                     han=y.han) for y in r.yaku)
    msg.fu_items.extend(
        scoring_pb2.FuItem(item=f.item, fu=f.fu,
                           tile=TILE_NAMES[f.tile] if isinstance(f.tile, int) else "",
                           wait=f.tile if isinstance(f.tile, str) else "")
        for f in r.fu_items)
    msg.dora, msg.ura_dora, msg.red_dora = r.dora, r.ura, r.aka
    msg.han, msg.fu = r.han, r.fu
    msg.limit = _LIMITS[r.limit]
    msg.limit_name = r.limit_name
    msg.kazoe = r.is_kazoe
    msg.yakuman_multiplier = r.yakuman
    msg.basic_points, msg.points = r.basic, r.points
    msg.deltas.extend(r.deltas)
    msg.payments.extend(r.payments)
    msg.decomposition.CopyFrom(decomposition(r.decomposition))
    msg.decomposition_index = r.decomposition_index
    msg.decomposition_count = r.n_decompositions
    return msg


SITUATION_FLAGS = ("riichi", "double_riichi", "ippatsu", "rinshan", "chankan", "haitei",
                   "houtei", "tenhou", "chiihou", "renhou")


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
        honba=req.honba, riichi_sticks=req.riichi_sticks, rules=rules_from_proto(req.rules))
    if req.seat_wind != types_pb2.WIND_UNSPECIFIED:
        kwargs["seat_wind"] = WIND_NAMES[req.seat_wind]
    for field, name in (("dealer", "dealer"), ("winner", "winner"),
                        ("discarder", "from_who"), ("liable", "pao_seat")):
        if req.HasField(field):
            kwargs[name] = getattr(req, field)
    return kwargs
