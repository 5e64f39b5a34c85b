"""The HandAnalysisService servicer: proto -> domain, call mjcore, domain -> proto.

No analysis happens here; every result comes from the mjcore library. Bulk batches are cut into
chunks so a cancelled or expired call stops within one chunk of kernel work.
"""
from __future__ import annotations

import functools
import logging
import re
import threading
from collections.abc import Callable, Iterator
from typing import Any, cast

import grpc
import numpy as np
from google.protobuf import message_factory

import mjcore
from mjcore import batch as mj_batch
from mjcore.analysis import (
    ALL_KINDS,
    RIICHI_FORMS,
    check_visible_reds,
    kinds_in_play,
    ukeire_rows,
)
from mjcore.batch import BatchResult
from mjcore.decomposition import decompose
from mjcore.errors import InvalidHandError, InvalidRuleError
from mjcore.hand import Hand
from mjcore.riichi.batch_scoring import score as score_batch
from mjcore.riichi.rules import SANMA_KINDS, RuleSet
from mjcore.riichi.scoring import score
from mjcore.status import NOT_IN_SANMA
from mjcore.status import reason_of as status_reason
from mjcore.tiles import parse_kinds, parse_tile, tile_name
from mjcore.wire import convert as wire
from mjcore.wire import layout
from mjcore.wire.v1 import analysis_service_pb2 as pb
from mjcore.wire.v1 import analysis_service_pb2_grpc as pb_grpc
from mjcore.wire.v1 import scoring_pb2, types_pb2

from . import bulk, classical, convert, expected
from .errors import RpcError, invalid_hand, invalid_rule, reason_code
from .limits import FIELD_CHARS, MAX_INDICATORS, MAX_VISIBLE_TILES, MESSAGE_CHARS, clip

log = logging.getLogger("mjcore.service")

CHUNK = 1 << 16
BAD_I8 = layout.BAD_SHANTEN
PRESETS = {
    "tenhou": "tenhou.net rules (the project default): 3 red fives, kuitan, kazoe yakuman",
    "ema": "EMA 2016 riichi competition rules: no red fives, single yakuman cap, no kazoe",
    "wrc": "World Riichi Championship 2015 rules: no red fives, kiriage mangan, atamahane",
    "tenhou_sanma": "three-player riichi as tenhou.net plays it: 108 tiles, north set aside "
                    "as dora (kita), tsumo loss, 35,000 start",
}


def _abort(context: grpc.ServicerContext, err: RpcError) -> None:
    context.abort_with_status(err.to_status())


def _check_deadline(context: grpc.ServicerContext) -> None:
    remaining = context.time_remaining()
    if remaining is not None and remaining <= 0:
        raise RpcError(grpc.StatusCode.DEADLINE_EXCEEDED, "deadline exceeded",
                       "DEADLINE_EXCEEDED")


def _fail_call(context: grpc.ServicerContext, err: Exception, name: str) -> None:
    """End the call with the status of ``err`` (raised by method ``name``; call only in its
    ``except`` block): its own for an RpcError or a bad rule, INTERNAL (logged) for anything
    else; when the client has already gone, ``err`` propagates."""
    if isinstance(err, RpcError):
        _abort(context, err)
    elif isinstance(err, InvalidRuleError):
        _abort(context, invalid_rule(err))
    elif not context.is_active():
        raise err
    else:
        log.exception("%s failed", name)
        _abort(context, RpcError(grpc.StatusCode.INTERNAL, "internal error", "INTERNAL"))


def _chunks(n: int, context: grpc.ServicerContext) -> Iterator[tuple[int, int]]:
    """``(start, stop)`` of each CHUNK rows of a batch of ``n``. Between chunks: stops early
    when the call went away (callers check ``context.is_active()`` after the loop) and raises
    DEADLINE_EXCEEDED when the deadline has passed."""
    for start in range(0, n, CHUNK):
        if start:
            if not context.is_active():
                return
            _check_deadline(context)
        yield start, min(n, start + CHUNK)


def _unary(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def wrapper(self, request, context):
        try:
            _check_deadline(context)
            return method(self, request, context)
        except Exception as err:  # noqa: BLE001 (_fail_call logs it or raises it again)
            _fail_call(context, err, method.__name__)
    return wrapper


def _streaming(method: Callable[..., Iterator[Any]]) -> Callable[..., Iterator[Any]]:
    @functools.wraps(method)
    def wrapper(self, request_iterator, context):
        self._track(1)
        try:
            for response in method(self, request_iterator, context):
                self._track(0, 1)
                yield response
        except Exception as err:  # noqa: BLE001 (_fail_call logs it or raises it again)
            _fail_call(context, err, method.__name__)
        finally:
            self._track(-1)
    return wrapper


def _check_length(text: str, field: str) -> None:
    """INVALID_ARGUMENT when ``text`` is longer than its field allows (checked before parsing)."""
    limit = FIELD_CHARS[field]
    if len(text) > limit:
        raise RpcError(grpc.StatusCode.INVALID_ARGUMENT,
                       f"{field}: {len(text)} characters, at most {limit} allowed",
                       "FIELD_TOO_LONG", field=field, index=0, limit=limit, size=len(text))


def _parse_hand(text: str, field: str = "hand") -> Hand:
    _check_length(text, field)
    try:
        return Hand.parse(text)
    except InvalidHandError as err:
        raise invalid_hand(err, field) from None


def _parse_tile(text: str, field: str) -> int:
    _check_length(text, field)
    try:
        if not text:
            raise InvalidHandError("no tile given", reason="missing_tile")
        return parse_tile(text)
    except InvalidHandError as err:
        raise invalid_hand(err, field) from None


def _parse_tiles(text: str, field: str, max_tiles: int) -> list[int]:
    """Tiles in mpsz: at most ``max_tiles``, at most four of a kind."""
    _check_length(text, field)
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


def _analyze_hand(request: pb.AnalyzeHandRequest, rules: RuleSet | None = None
                  ) -> convert.EncodedMessage:
    """AnalyzeHand's answer, serialized (see ``convert.analyze_hand_bytes``); ``rules``:
    three-player riichi rules (``_sanma_rules``), whose tile set lacks 2m-8m, or None."""
    hand = _parse_hand(request.hand)
    text = request.visible
    visible = _parse_tiles(text, "visible", MAX_VISIBLE_TILES) if text else None
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
    return convert.analyze_hand_bytes(hand, shanten, agari, ukeire, tiles == 13)


def _check_in_play(kinds: list[int], in_play: int, field: str) -> None:
    """INVALID_ARGUMENT (NOT_IN_SANMA) naming the first tile of ``kinds`` the rules' tile set
    lacks."""
    for kind in kinds:
        if not in_play >> kind & 1:
            raise RpcError(grpc.StatusCode.INVALID_ARGUMENT,
                           f"{field}: {tile_name(kind)} is not in the tile set of the rules "
                           "(three players: no 2m-8m)", "NOT_IN_SANMA", field=field, index=0)


_sanma_cache = classical.SelectionCache()
_score_rules_cache = classical.SelectionCache()


def _sanma_rules(sel: scoring_pb2.RuleSelection) -> RuleSet | None:
    """The three-player riichi rules of a riichi selection (``classical.rules_of`` has checked
    it), or None when it is four-player: every four-player preset has the same forms and tiles.
    One cached RuleSet per distinct selection: the library caches what it derives from a rules
    value by identity."""
    if not sel.preset and not sel.options:
        return None

    def make() -> RuleSet | None:
        rules = convert.rules_from_proto(sel)
        return rules if rules.players == 3 else None

    return cast("RuleSet | None",
                _sanma_cache.get(sel.SerializeToString(deterministic=True), make))


def _analysis_rules(sel: scoring_pb2.RuleSelection) -> object:
    """The rules of an analysis RPC's selection: classical rules, three-player riichi rules,
    or None (four-player riichi). A bad selection raises InvalidRuleError."""
    classical_rules = classical.rules_of(sel)
    return classical_rules if classical_rules is not None else _sanma_rules(sel)


def _stream_rules(request: Any, batch_no: int) -> object:
    """The rules of one bulk request batch; a bad selection fails the call, naming the batch."""
    if not request.HasField("rules"):
        return None
    try:
        return _analysis_rules(request.rules)
    except InvalidRuleError as err:
        raise RpcError(grpc.StatusCode.INVALID_ARGUMENT, f"batch {batch_no}: rules: {err}",
                       "INVALID_RULE", field="rules", batch=batch_no) from None


_shanten = mjcore.shanten
_is_agari = mjcore.is_agari


_NOT_IN_SANMA = status_reason(NOT_IN_SANMA)
_NOT_IN_SANMA_KINDS = [k for k in range(34) if not SANMA_KINDS >> k & 1]   # 2m-8m


def _not_in_play_row(counts: np.ndarray, index: int) -> InvalidHandError:
    """A batch row's NOT_IN_SANMA error naming the tiles it holds that sanma lacks."""
    held = " ".join(tile_name(k) for k in _NOT_IN_SANMA_KINDS if counts[k])
    return InvalidHandError(f"{held} not in the tile set of the rules (three players: no "
                            "2m-8m)", reason=_NOT_IN_SANMA, index=index)


_ROW_PREFIX = re.compile(r"^(row|hand) \d+: ")


def _hand_errors(errors: dict[int, InvalidHandError]) -> list[types_pb2.HandError]:
    """The bad hands of a batch; messages drop the kernels' chunk-relative "row N: " prefix."""
    return [types_pb2.HandError(index=i, reason=reason_code(e.reason),
                                message=clip(_ROW_PREFIX.sub("", str(e)), MESSAGE_CHARS))
            for i, e in sorted(errors.items())]


class HandAnalysisServicer(pb_grpc.HandAnalysisServiceServicer):
    """``active``: bulk calls running now; ``batches_done``: bulk batches answered so far."""

    def __init__(self, max_batch: int, kernel_threads: int = 1,
                 max_message_size: int = 64 * 1024 * 1024, *, ev_workers: int = 2,
                 ev_queue: int = 8, ev_max_seconds: float = 5.0,
                 ev_max_nodes: int = 2_000_000) -> None:
        self.max_batch = max_batch
        self.max_message_size = max_message_size
        self.kernel_threads = kernel_threads
        self.ev_max_seconds = ev_max_seconds
        self.ev_max_nodes = ev_max_nodes
        # ExpectedValues runs here on both ports (guard.py, unary_front.py), never on a loop
        self.ev_pool = expected.EvPool(ev_workers, ev_queue)
        self.active = 0
        self.batches_done = 0
        self._lock = threading.Lock()

    def _track(self, calls: int, batches: int = 0) -> None:
        with self._lock:
            self.active += calls
            self.batches_done += batches

    # -- unary ----------------------------------------------------------------------------------

    @_unary
    def AnalyzeHand(self, request: pb.AnalyzeHandRequest, context) -> convert.EncodedMessage:
        """The answer already serialized: both ports send its bytes as they are."""
        if not request.HasField("rules"):
            return _analyze_hand(request)
        answer = classical.analyze_hand(request)     # checks the selection; None for riichi
        if answer is not None:
            return answer
        return _analyze_hand(request, _sanma_rules(request.rules))

    @_unary
    def Decompose(self, request: pb.DecomposeRequest, context) -> pb.DecomposeResponse:
        hand = _parse_hand(request.hand)
        win = _parse_tile(request.win_tile, "win_tile")
        _check_deadline(context)
        try:
            found = decompose(hand, win)
        except InvalidHandError as err:
            raise invalid_hand(err, "hand") from None
        return pb.DecomposeResponse(hand=str(hand),
                                    decompositions=[wire.decomposition(d) for d in found])

    @_unary
    def Score(self, request: scoring_pb2.ScoreRequest, context) -> scoring_pb2.ScoreResponse:
        hand = _parse_hand(request.hand)
        win = _parse_tile(request.win_tile, "win_tile")
        if request.win_method == scoring_pb2.WIN_METHOD_UNSPECIFIED:
            raise RpcError(grpc.StatusCode.INVALID_ARGUMENT, "win_method: tsumo or ron is needed",
                           "MISSING_WIN_METHOD", field="win_method", index=0)
        kwargs = convert.score_arguments(request)
        for field, name in (("dora_indicators", "dora"), ("ura_indicators", "ura")):
            kwargs[name] = _parse_tiles(getattr(request, field), field, MAX_INDICATORS)
        _check_deadline(context)
        try:
            result = score(hand, win, **kwargs)
        except InvalidHandError as err:
            raise invalid_hand(err, "kita_count" if err.reason == "bad_kita" else "hand") \
                from None
        return wire.score_response(result)

    @_unary
    def ScoreClassicalDeal(self, request, context):
        return classical.score_classical_deal(request)

    @_streaming
    def StreamScoreClassical(self, request_iterator, context):
        yield from classical.stream_score(self, request_iterator, context)

    @_unary
    def ExpectedValues(self, request: pb.ExpectedValuesRequest, context
                       ) -> pb.ExpectedValuesResponse:
        """In ``ev_pool``'s threads: the ports submit it there (``OFFLOADED``)."""
        return expected.unary(request, context, self.ev_max_seconds, self.ev_max_nodes)

    @_streaming
    def StreamExpectedValues(self, request_iterator, context):
        yield from expected.stream(self, request_iterator, context)

    @_unary
    def ListRulePresets(self, request, context) -> pb.ListRulePresetsResponse:
        return pb.ListRulePresetsResponse(
            presets=[wire.preset_to_proto(name, text) for name, text in PRESETS.items()],
            default_preset="tenhou")

    # -- streaming bulk -------------------------------------------------------------------------

    def _batches(self, request_iterator, context, out_bytes: Callable[[Any], int]
                 ) -> Iterator[tuple[int, Any, bulk.Batch]]:
        """Decode each request batch; ``out_bytes(request)`` is the answer's size per hand,
        so a batch whose answer could not be sent is refused up front."""
        for batch_no, request in enumerate(request_iterator):
            _check_deadline(context)
            limit = min(self.max_batch,
                        max(1, (self.max_message_size - 4096) // (out_bytes(request) + 8)))
            yield batch_no, request, bulk.decode(request.hands, limit, batch_no)

    def _run(self, kernel: Callable[..., BatchResult], batch: bulk.Batch, context,
             fields: dict[str, np.ndarray]) -> dict[int, InvalidHandError] | None:
        """Run ``kernel`` over the batch chunk by chunk, copying each result array named in
        ``fields`` into it; the bad rows by index, or None when the call went away."""
        found: dict[int, InvalidHandError] = {}
        n = len(batch)
        for start, stop in _chunks(n, context):
            result = kernel(batch.counts[start:stop], batch.n_melds[start:stop],
                            n_threads=self.kernel_threads)
            for name, out in fields.items():
                out[start:stop] = getattr(result, name)
            if result.status.any():
                found.update(result.errors_by_row(start))
        if not context.is_active():
            return None
        for i, err in found.items():
            if err.reason == _NOT_IN_SANMA:
                found[i] = _not_in_play_row(batch.counts[i], i)
        found.update(batch.errors)  # framing and parse errors explain a row best
        return found

    @_streaming
    def StreamShanten(self, request_iterator, context):
        for batch_no, request, batch in self._batches(request_iterator, context,
                                                      _shanten_out):
            n = len(batch)
            rules = _stream_rules(request, batch_no)
            if batch.text_result is not None and not request.per_form and rules is None:
                errors = batch.text_result.errors_by_row()
                out = batch.text_result.shanten
                forms = None
            else:
                out = np.empty(n, dtype=np.int8)
                fields: dict[str, np.ndarray] = {"shanten": out}
                forms = None
                kernel = functools.partial(mj_batch.shanten, rules=rules)
                if request.per_form:
                    forms = np.empty((n, 3), dtype=np.int8)
                    fields["forms"] = forms
                    kernel = functools.partial(mj_batch.shanten, forms=True, rules=rules)
                found = self._run(kernel, batch, context, fields)
                if found is None:
                    return
                errors = found
            if errors:
                bad = sorted(errors)
                out[bad] = BAD_I8
                if forms is not None:
                    forms[bad] = BAD_I8
            response = pb.StreamShantenResponse(batch=batch_no, hand_count=n, shanten=out.tobytes(),
                                                errors=_hand_errors(errors))
            if forms is not None:
                response.standard = forms[:, 0].tobytes()
                response.chiitoitsu = forms[:, 1].tobytes()
                response.kokushi = forms[:, 2].tobytes()
            yield response

    @_streaming
    def StreamWaits(self, request_iterator, context):
        for batch_no, request, batch in self._batches(request_iterator, context, _waits_out):
            n = len(batch)
            masks = np.empty(n, dtype="<u8")
            advance = np.empty(n, dtype="<u8")
            shanten = np.empty(n, dtype=np.int8)
            kernel = functools.partial(mj_batch.waits, rules=_stream_rules(request, batch_no))
            errors = self._run(kernel, batch, context,
                               {"mask": masks, "advance_mask": advance, "shanten": shanten})
            if errors is None:
                return
            if errors:
                bad = sorted(errors)
                masks[bad] = 0
                advance[bad] = 0
                shanten[bad] = BAD_I8
            yield pb.StreamWaitsResponse(batch=batch_no, hand_count=n, masks=masks.tobytes(),
                                         shanten=shanten.tobytes(),
                                         advance_masks=advance.tobytes(),
                                         errors=_hand_errors(errors))

    @_streaming
    def StreamAgari(self, request_iterator, context):
        for batch_no, request, batch in self._batches(request_iterator, context, _agari_out):
            n = len(batch)
            agari = np.empty(n, dtype=np.bool_)
            kernel = functools.partial(mj_batch.is_agari,
                                       rules=_stream_rules(request, batch_no))
            errors = self._run(kernel, batch, context, {"agari": agari})
            if errors is None:
                return
            if errors:
                agari[sorted(errors)] = False
            yield pb.StreamAgariResponse(batch=batch_no, hand_count=n,
                                         agari=agari.view(np.uint8).tobytes(),
                                         errors=_hand_errors(errors))

    @_streaming
    def StreamScore(self, request_iterator, context):
        for batch_no, request, batch in self._batches(request_iterator, context, _score_out):
            n = len(batch)
            arrays = _score_arrays(request, n, batch_no)
            try:
                key = request.rules.SerializeToString(deterministic=True)
                rules = _score_rules_cache.get(
                    key, functools.partial(convert.rules_from_proto, request.rules))
            except InvalidRuleError as err:
                raise invalid_rule(err) from None
            parts = []
            found: dict[int, InvalidHandError] = {}
            for start, stop in _chunks(n, context):
                result = score_batch(
                    batch.counts[start:stop], rules=rules, n_threads=self.kernel_threads,
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
                                              errors=_hand_errors(found))
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


def _shanten_out(request: Any) -> int:
    forms = layout.SHANTEN_FORM_ARRAYS if request.per_form else {}
    return layout.row_bytes(layout.SHANTEN_RESPONSE_ARRAYS, forms)


def _waits_out(request: Any) -> int:
    return layout.row_bytes(layout.WAITS_RESPONSE_ARRAYS)


def _agari_out(request: Any) -> int:
    return layout.row_bytes(layout.AGARI_RESPONSE_ARRAYS)


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
        size = layout.row_bytes({name: spec}) * n
        if len(data) != size:
            raise RpcError(grpc.StatusCode.INVALID_ARGUMENT,
                           f"batch {batch_no}: {name} has {len(data)} bytes, expected {size} "
                           f"for {n} hands", "BAD_FIELD_LENGTH", batch=batch_no, field=name)
        arrays[name] = layout.read_rows(data, spec, n)
    return arrays


# unary methods the ports run in the servicer's ``ev_pool`` instead of where they receive
OFFLOADED = ("ExpectedValues",)


def add_to_server(servicer: HandAnalysisServicer, server: grpc.Server) -> None:
    """Serve ``servicer``'s methods on ``server``: the generated registration, except that a
    response may be an already serialized ``convert.EncodedMessage`` (AnalyzeHand's)."""
    service = pb.DESCRIPTOR.services_by_name["HandAnalysisService"]
    handlers = {}
    for method in service.methods:
        request_type = message_factory.GetMessageClass(method.input_type)
        make = (grpc.stream_stream_rpc_method_handler if method.client_streaming
                else grpc.unary_unary_rpc_method_handler)
        handlers[method.name] = make(getattr(servicer, method.name),
                                     request_deserializer=request_type.FromString,
                                     response_serializer=convert.serialize)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(
        service.full_name, handlers),))
    server.add_registered_method_handlers(service.full_name, handlers)


__all__ = ["OFFLOADED", "HandAnalysisServicer", "add_to_server"]
