"""The riichi RPCs' bodies: AnalyzeHand under riichi rules (four or three players), Decompose,
Score, ListRulePresets and StreamScore. ExpectedValues, riichi's too, is in ``expected.py``.
"""
from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

import grpc
import numpy as np

import mjcore
from mjcore import decomposition
from mjcore.analysis import ALL_KINDS, RIICHI_FORMS, check_visible_reds, kinds_in_play, ukeire_rows
from mjcore.errors import InvalidHandError, InvalidRuleError
from mjcore.riichi import scoring
from mjcore.riichi.batch_scoring import score as score_batch
from mjcore.riichi.rules import RuleSet
from mjcore.tiles import tile_name
from mjcore.wire import convert as wire
from mjcore.wire import layout
from mjcore.wire.convert import SITUATION_FLAGS, WIND_NAMES
from mjcore.wire.v1 import analysis_service_pb2 as pb
from mjcore.wire.v1 import scoring_pb2, types_pb2

from . import bulk
from .errors import RpcError, invalid_hand, invalid_rule
from .limits import MAX_INDICATORS, MAX_VISIBLE_TILES
from .requests import (
    EncodedMessage,
    SelectionCache,
    analyze_hand_bytes,
    batch_rows,
    check_deadline,
    check_enum,
    chunks,
    hand_errors,
    parse_hand,
    parse_tile,
    parse_tiles,
    rules_from_proto,
)

PRESETS = {
    "tenhou": "tenhou.net rules (the project default): 3 red fives, kuitan, kazoe yakuman",
    "ema": "EMA 2016 riichi competition rules: no red fives, single yakuman cap, no kazoe",
    "wrc": "World Riichi Championship 2015 rules: no red fives, kiriage mangan, atamahane",
    "tenhou_sanma": "three-player riichi as tenhou.net plays it: 108 tiles, north set aside "
                    "as dora (kita), tsumo loss, 35,000 start",
}
_WIN_METHODS = (scoring_pb2.WIN_METHOD_TSUMO, scoring_pb2.WIN_METHOD_RON)
_WINDS = (types_pb2.WIND_UNSPECIFIED, *WIND_NAMES)
_score_rules_cache = SelectionCache()
_shanten = mjcore.shanten
_is_agari = mjcore.is_agari


def analyze_hand(request: pb.AnalyzeHandRequest, rules: RuleSet | None = None
                 ) -> EncodedMessage:
    """AnalyzeHand's answer, serialized (see ``requests.analyze_hand_bytes``); ``rules``:
    three-player riichi rules (``requests.sanma_rules``), whose tile set lacks 2m-8m, or None."""
    hand = parse_hand(request.hand)
    text = request.visible
    visible = parse_tiles(text, "visible", MAX_VISIBLE_TILES) if text else None
    in_play = ALL_KINDS if rules is None else kinds_in_play(rules)
    try:
        shanten = _shanten(hand, rules)      # under sanma also refuses 2m-8m and chi
        if visible and in_play != ALL_KINDS:
            _check_in_play(visible, in_play, "visible")
        check_visible_reds(hand, text)
        ukeire = ukeire_rows(hand, visible, RIICHI_FORMS, in_play)
        tiles = hand.n_closed + 3 * hand.n_melds
        agari = tiles == 14 and _is_agari(hand, rules)
    except InvalidHandError as err:
        raise invalid_hand(err, "hand") from None
    return analyze_hand_bytes(hand, shanten, agari, ukeire, tiles == 13)


def _check_in_play(kinds: list[int], in_play: int, field: str) -> None:
    """INVALID_ARGUMENT (NOT_IN_SANMA) naming the first tile of ``kinds`` the rules' tile set
    lacks."""
    for kind in kinds:
        if not in_play >> kind & 1:
            raise RpcError(grpc.StatusCode.INVALID_ARGUMENT,
                           f"{field}: {tile_name(kind)} is not in the tile set of the rules "
                           "(three players: no 2m-8m)", "NOT_IN_SANMA", field=field, index=0)


def decompose(request: pb.DecomposeRequest, context: Any) -> pb.DecomposeResponse:
    hand = parse_hand(request.hand)
    win = parse_tile(request.win_tile, "win_tile")
    check_deadline(context)
    try:
        found = decomposition.decompose(hand, win)
    except InvalidHandError as err:
        raise invalid_hand(err, "hand") from None
    return pb.DecomposeResponse(hand=str(hand),
                                decompositions=[wire.decomposition(d) for d in found])


def score(request: scoring_pb2.ScoreRequest, context: Any) -> scoring_pb2.ScoreResponse:
    hand = parse_hand(request.hand)
    win = parse_tile(request.win_tile, "win_tile")
    if request.win_method == scoring_pb2.WIN_METHOD_UNSPECIFIED:
        raise RpcError(grpc.StatusCode.INVALID_ARGUMENT, "win_method: tsumo or ron is needed",
                       "MISSING_WIN_METHOD", field="win_method", index=0)
    kwargs = score_arguments(request)
    for field, name in (("dora_indicators", "dora"), ("ura_indicators", "ura")):
        kwargs[name] = parse_tiles(getattr(request, field), field, MAX_INDICATORS)
    check_deadline(context)
    try:
        result = scoring.score(hand, win, **kwargs)
    except InvalidHandError as err:
        raise invalid_hand(err, "kita_count" if err.reason == "bad_kita" else "hand") \
            from None
    return wire.score_response(result)


def score_arguments(req: Any) -> dict[str, Any]:
    """Keyword arguments of ``mjcore.score`` for a ScoreRequest (hand and win tile apart)."""
    check_enum(req.win_method, _WIN_METHODS, "win_method", scoring_pb2.WinMethod)
    check_enum(req.seat_wind, _WINDS, "seat_wind", types_pb2.Wind)
    check_enum(req.round_wind, _WINDS, "round_wind", types_pb2.Wind)
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


def list_rule_presets() -> pb.ListRulePresetsResponse:
    return pb.ListRulePresetsResponse(
        presets=[wire.preset_to_proto(name, text) for name, text in PRESETS.items()],
        default_preset="tenhou")


# -- StreamScore ----------------------------------------------------------------------------------

def stream_score(servicer: Any, request_iterator: Iterator[Any], context: Any
                 ) -> Iterator[pb.StreamScoreResponse]:
    """StreamScore: each batch scored chunk by chunk with ``mjcore.riichi.batch_scoring``."""
    for batch_no, request, batch in bulk.batches(servicer, request_iterator, context,
                                                 _score_out):
        n = len(batch)
        arrays = _score_arrays(request, n, batch_no)
        try:
            key = request.rules.SerializeToString(deterministic=True)
            rules = _score_rules_cache.get(
                key, functools.partial(rules_from_proto, request.rules))
        except InvalidRuleError as err:
            raise invalid_rule(err) from None
        parts = []
        found: dict[int, InvalidHandError] = {}
        for start, stop in chunks(n, context):
            result = score_batch(
                batch.counts[start:stop], rules=rules, n_threads=servicer.kernel_threads,
                **{k: None if v is None else v[start:stop] for k, v in arrays.items()})
            parts.append(result)
            found.update(result.errors_by_row(start))
        if not context.is_active():
            return
        found.update(batch.errors)

        status = np.concatenate([p.status for p in parts]).astype(np.int8)
        bad = sorted(found)
        if bad:
            status[bad] = np.minimum(status[bad], -1)
        response = pb.StreamScoreResponse(batch=batch_no, hand_count=n,
                                          errors=hand_errors(found))
        specs = dict(layout.SCORE_RESPONSE_ARRAYS)
        if request.details:
            specs.update(layout.SCORE_DETAIL_ARRAYS)
        for name, (dtype, _shape) in specs.items():
            setattr(response, name, status.tobytes() if name == "status"
                    else _joined(parts, bad, name, dtype))
        yield response


def _joined(parts: list[Any], bad: list[int], name: str, dtype: str) -> bytes:
    """Result array ``name`` of all chunks, bad rows zeroed, as little-endian bytes."""
    arr = np.concatenate([getattr(p, name) for p in parts])
    if bad:
        arr[bad] = 0
    return arr.astype(dtype, copy=False).tobytes()


def _score_out(request: Any) -> int:
    details = layout.SCORE_DETAIL_ARRAYS if request.details else {}
    return layout.row_bytes(layout.SCORE_RESPONSE_ARRAYS, details)


def _score_arrays(request: pb.StreamScoreRequest, n: int, batch_no: int
                  ) -> dict[str, np.ndarray | None]:
    """The per-hand arrays of a StreamScoreRequest, checked for length; None = default."""
    arrays: dict[str, np.ndarray | None] = {}
    specs = dict(layout.SCORE_REQUEST_ARRAYS)
    for name, width_field in layout.INDICATOR_ARRAYS.items():
        per = getattr(request, width_field)
        if per > layout.MAX_INDICATORS:
            raise RpcError(grpc.StatusCode.INVALID_ARGUMENT,
                           f"batch {batch_no}: {width_field} {per}: at most "
                           f"{layout.MAX_INDICATORS} indicators", "BAD_FIELD_LENGTH",
                           batch=batch_no, field=width_field)
        specs[name] = ("u1", (per,))
    for name, spec in specs.items():
        data = getattr(request, name)
        if not data:
            if name == "win_tile":
                raise RpcError(grpc.StatusCode.INVALID_ARGUMENT,
                               f"batch {batch_no}: win_tile is required", "BAD_FIELD_LENGTH",
                               batch=batch_no, field=name)
            arrays[name] = None
            continue
        arrays[name] = batch_rows(data, name, spec, n, batch_no)
    return arrays


__all__ = ["PRESETS", "analyze_hand", "decompose", "list_rule_presets", "score",
           "score_arguments", "stream_score"]
