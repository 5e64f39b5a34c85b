"""Chinese classical rules over gRPC: the `rules` of the analysis RPCs, and ScoreClassicalDeal.

A `RuleSelection` naming a classical preset ("classical", "bradfield"), with classical option
overrides by name, selects the classical winning forms; empty, or a riichi preset, keeps the
riichi forms (so riichi answers are unchanged). ScoreClassicalDeal scores one finished deal
with ``mjcore.classical.scoring.score_deal``. Every text field is length-checked before it is
parsed; errors are INVALID_ARGUMENT with an ErrorInfo naming the field and the seat (index).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import grpc
import numpy as np

import mjcore
from mjcore.analysis import ukeire_rows, winning_forms
from mjcore.classical.batch import score_deals
from mjcore.classical.rules import ClassicalRules
from mjcore.classical.scoring import Deal, PlayerHand, score_deal
from mjcore.errors import InvalidHandError, InvalidRuleError
from mjcore.games import GAMES
from mjcore.riichi.rules import RuleSet
from mjcore.status import NOT_AGARI, reason_of, status_error
from mjcore.tiles import parse_kinds, parse_tile
from mjcore.wire import layout
from mjcore.wire.convert import CLAIMS, CONDITIONS, deal_response
from mjcore.wire.v1 import analysis_service_pb2 as pb
from mjcore.wire.v1 import scoring_pb2 as sp

from . import convert
from .errors import RpcError, invalid_hand, invalid_rule, reason_code
from .limits import FIELD_CHARS, MAX_RULE_OPTIONS, MAX_VISIBLE_TILES, quote

CLASSICAL_PRESETS = GAMES["classical"].presets
RIICHI_PRESETS = GAMES["riichi"].presets
MAX_CONDITIONS = len(CONDITIONS)
INT32 = 1 << 31
_MISSING = object()


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


_rules_cache = SelectionCache()


def _bad(message: str, reason: str, field: str, index: int | None = None,
         **metadata: object) -> RpcError:
    return RpcError(grpc.StatusCode.INVALID_ARGUMENT, message, reason, field=field, index=index,
                    **metadata)


def _classical_options(sel: sp.RuleSelection) -> dict[str, Any]:
    if len(sel.options) > MAX_RULE_OPTIONS:
        raise InvalidRuleError(f"{len(sel.options)} rule options, at most {MAX_RULE_OPTIONS} "
                               "allowed")
    opts: dict[str, Any] = {}
    for opt in sel.options:
        value = convert.option_from_proto(opt)   # checks the name's and values' lengths
        if opt.name in opts:
            raise InvalidRuleError(f"rule option {opt.name!r} given twice")
        if isinstance(value, int) and not isinstance(value, bool) and not (
                -INT32 <= value < INT32):
            # the compiled scorer takes its options as C ints
            raise InvalidRuleError(f"rule option {opt.name!r}: {value} is out of range")
        opts[opt.name] = value
    return opts


def _resolve(sel: sp.RuleSelection, default: str | None) -> ClassicalRules | None:
    """Classical rules of ``sel``, or None for riichi; ``default``: the preset of an empty
    selection (None = riichi)."""
    convert._check_rule_text(sel.preset, "rule preset", "rules.preset")
    preset = sel.preset or default or ""
    if preset in CLASSICAL_PRESETS:
        return ClassicalRules.preset(preset).replace(**_classical_options(sel))
    if default is not None or preset not in ("", *RIICHI_PRESETS):
        allowed = CLASSICAL_PRESETS if default is not None else (*RIICHI_PRESETS,
                                                                  *CLASSICAL_PRESETS)
        raise InvalidRuleError(f"unknown rule preset {quote(preset)!r}; expected one of "
                               f"{', '.join(allowed)}")
    if sel.options:  # riichi options do not change the winning forms, but must be valid
        RuleSet.preset(preset or "tenhou").replace(**_classical_options(sel))
    return None


def rules_of(sel: sp.RuleSelection, default: str | None = None) -> ClassicalRules | None:
    """``_resolve`` with a small cache of the serialized selection (a stream repeats it)."""
    key = (default or "").encode() + b"\0" + sel.SerializeToString(deterministic=True)
    return cast("ClassicalRules | None", _rules_cache.get(key, lambda: _resolve(sel, default)))


def stream_rules(request: Any, batch_no: int, default: str | None = None
                 ) -> ClassicalRules | None:
    """The rules of one bulk request batch; a bad selection fails the call, naming the batch."""
    if default is None and not request.HasField("rules"):
        return None
    try:
        return rules_of(request.rules, default)
    except InvalidRuleError as err:
        raise RpcError(grpc.StatusCode.INVALID_ARGUMENT, f"batch {batch_no}: rules: {err}",
                       "INVALID_RULE", field="rules", batch=batch_no) from None


def analyze_hand(request: pb.AnalyzeHandRequest) -> convert.EncodedMessage | None:
    """AnalyzeHand's answer (serialized) under the classical rules of ``request.rules``; None
    when those rules are riichi (the caller answers as before)."""
    try:
        rules = rules_of(request.rules)
    except InvalidRuleError as err:
        raise invalid_rule(err) from None
    if rules is None:
        return None
    from .servicer import _parse_hand, _parse_tiles  # servicer imports this module

    hand = _parse_hand(request.hand)
    text = request.visible
    visible = _parse_tiles(text, "visible", MAX_VISIBLE_TILES) if text else None
    try:
        shanten = mjcore.shanten(hand, rules)       # also refuses red fives, bonus tiles
        ukeire = ukeire_rows(hand, visible, winning_forms(rules))
        tiles = hand.n_closed + 3 * hand.n_melds
        agari = tiles == 14 and mjcore.is_agari(hand, rules)
    except InvalidHandError as err:
        raise invalid_hand(err, "hand") from None
    return convert.analyze_hand_bytes(hand, shanten, agari, ukeire, tiles == 13)


# -- ScoreClassicalDeal ---------------------------------------------------------------------------

def _text(value: str, field: str, limit: int, index: int | None = None) -> str:
    if len(value) > limit:
        raise _bad(f"{field}: {len(value)} characters, at most {limit} allowed",
                   "FIELD_TOO_LONG", field, index, limit=limit, size=len(value))
    position = value.replace("0f", "  ").find("0")   # "0f" is not a red five
    if position >= 0:
        raise _bad(f"{field}: red fives (0) are not tiles of the classical set; write 5",
                   "RED_FIVE_NOT_IN_SET", field, index, position=position)
    return value


def _seat(value: int, field: str, index: int | None = None) -> int:
    if not 0 <= value <= 3:
        raise _bad(f"{field}: seat {value}, expected 0..3", "BAD_SEATS", field, index)
    return value


_Enum = TypeVar("_Enum", bound=int)


def _enum(value: _Enum, field: str, allowed: range, index: int | None = None) -> _Enum:
    if value not in allowed:
        raise _bad(f"{field}: {value} is not a value of the enum", "BAD_ENUM_VALUE", field,
                   index)
    return value


def _hand_error(err: InvalidHandError, field: str, index: int | None) -> RpcError:
    return _bad(f"{field}: {err}", reason_code(err.reason), field, index,
                position=err.position)


def deal_of(request: sp.ScoreClassicalDealRequest) -> Deal:
    """The deal of a request: every field checked (lengths and ranges before parsing)."""
    if len(request.hands) != 4:
        raise _bad(f"hands: {len(request.hands)} given, a deal has 4 (seat 0 East first)",
                   "BAD_HAND_COUNT", "hands")
    texts = [_text(t, "hands", FIELD_CHARS["hand"], i) for i, t in enumerate(request.hands)]
    win_text = _text(request.win_tile, "win_tile", FIELD_CHARS["win_tile"])
    pair_text = _text(request.pair, "pair", FIELD_CHARS["pair"])
    dead_text = _text(request.dead_tiles, "dead_tiles", FIELD_CHARS["dead_tiles"])
    wind = _enum(request.prevailing_wind, "prevailing_wind", range(5))
    claim = _enum(request.claim, "claim", range(len(CLAIMS)))
    if len(request.conditions) > MAX_CONDITIONS:
        raise _bad(f"conditions: {len(request.conditions)} given, at most {MAX_CONDITIONS}",
                   "TOO_MANY_VALUES", "conditions")
    how = frozenset(CONDITIONS[_enum(c, "conditions", range(1, MAX_CONDITIONS + 1), i)]
                    for i, c in enumerate(request.conditions))
    if len(request.hidden) > 3:
        raise _bad(f"hidden: {len(request.hidden)} seats given, at most 3", "TOO_MANY_VALUES",
                   "hidden")
    hidden = frozenset(_seat(s, "hidden", i) for i, s in enumerate(request.hidden))
    winner = _seat(request.winner, "winner")
    discarder = (_seat(request.discarder, "discarder") if request.HasField("discarder")
                 else None)
    cannon = _seat(request.cannon, "cannon") if request.HasField("cannon") else None
    hands = []
    for i, text in enumerate(texts):
        try:
            hands.append(PlayerHand.parse(text))
        except InvalidHandError as err:
            raise _hand_error(err, "hands", i) from None
        except ValueError as err:   # a malformed token the parser does not classify
            raise _bad(f"hands: {quote(str(err))}", "BAD_HAND", "hands", i) from None
    tiles = {}
    for field, text in (("win_tile", win_text), ("pair", pair_text)):
        if field == "pair" and not text:
            continue
        try:
            if not text:
                raise InvalidHandError("no tile given", reason="missing_tile")
            tiles[field] = parse_tile(text)
        except InvalidHandError as err:
            raise _hand_error(err, field, None) from None
    try:
        dead = frozenset(parse_kinds(dead_text)) if dead_text else frozenset()
        return Deal(hands=tuple(hands),  # type: ignore[arg-type]  # four, checked above
                    prevailing=max(0, wind - 1), winner=winner,
                    win_tile=tiles["win_tile"], how=how, discarder=discarder,
                    claim=CLAIMS[claim], cannon=cannon, dead_kinds=dead,
                    pair=tiles.get("pair"), hidden=hidden)
    except InvalidHandError as err:
        field = "dead_tiles" if err.reason not in ("bad_win", "bad_seats", "bad_deal") else "deal"
        raise _hand_error(err, field, None) from None


def score_classical_deal(request: sp.ScoreClassicalDealRequest) -> sp.ScoreClassicalDealResponse:
    deal = deal_of(request)
    try:
        rules = rules_of(request.rules, default="classical")
    except InvalidRuleError as err:
        raise invalid_rule(err) from None
    assert rules is not None
    try:
        result = score_deal(deal, rules)
    except InvalidHandError as err:
        index = deal.winner if err.reason == reason_of(NOT_AGARI) else None
        raise _hand_error(err, "hands", index) from None
    return deal_response(result)


# -- StreamScoreClassical -------------------------------------------------------------------------

DEAL_ARRAYS = layout.DEAL_REQUEST_ARRAYS
DEAL_OUT_BYTES = layout.row_bytes(layout.DEAL_RESPONSE_ARRAYS)


def deal_arrays(request: pb.StreamScoreClassicalRequest, max_batch: int, batch_no: int
                ) -> dict[str, np.ndarray]:
    """The arrays of one bulk batch, each length checked (N from ``counts``)."""
    per_deal = 4 * 34
    data = request.counts
    if len(data) % per_deal:
        raise _bad(f"batch {batch_no}: counts has {len(data)} bytes, not a multiple of "
                   f"{per_deal} (4 seats x 34 kinds)", "BAD_BATCH_LENGTH", "counts",
                   batch=batch_no)
    n = len(data) // per_deal
    if n == 0:
        raise _bad(f"batch {batch_no}: no deals", "EMPTY_BATCH", "counts", batch=batch_no)
    if n > max_batch:
        raise RpcError(grpc.StatusCode.RESOURCE_EXHAUSTED,
                       f"batch {batch_no}: {n} deals, the server accepts at most {max_batch}",
                       "BATCH_TOO_LARGE", batch=batch_no, limit=max_batch, size=n)
    out: dict[str, np.ndarray] = {}
    for name, (dtype, shape) in DEAL_ARRAYS.items():
        data = getattr(request, name)
        if name == "dead_kinds" and not data:
            out[name] = np.zeros(n, np.uint64)
            continue
        size = layout.row_bytes({name: (dtype, shape)}) * n
        if len(data) != size:
            raise _bad(f"batch {batch_no}: {name} has {len(data)} bytes, expected {size} for "
                       f"{n} deals", "BAD_FIELD_LENGTH", name, batch=batch_no)
        out[name] = np.frombuffer(data, dtype=dtype).reshape((n, *shape))
    return out


def stream_score(servicer: Any, request_iterator: Any, context: Any) -> Any:
    """StreamScoreClassical: each batch scored chunk by chunk with ``score_deals``."""
    from .servicer import _check_deadline, _chunks, _hand_errors

    for batch_no, request in enumerate(request_iterator):
        _check_deadline(context)
        limit = min(servicer.max_batch,
                    max(1, (servicer.max_message_size - 4096) // (DEAL_OUT_BYTES + 8)))
        arrays = deal_arrays(request, limit, batch_no)
        rules = stream_rules(request, batch_no, default="classical")
        assert rules is not None
        n = len(arrays["counts"])
        out = layout.empty(layout.DEAL_RESPONSE_ARRAYS, n)
        # the library's words for a bad deal (the tile and where its copies are)
        errors: dict[int, InvalidHandError] = {}
        for start, stop in _chunks(n, context):
            part = score_deals(*(arrays[k][start:stop] for k in DEAL_ARRAYS), rules=rules,
                               n_threads=servicer.kernel_threads)
            for name, arr in out.items():
                arr[start:stop] = getattr(part, name)
            errors.update(part.errors_by_row(start))
        if not context.is_active():
            return
        status = out["status"]
        for i in np.flatnonzero(status).tolist():
            if i not in errors:
                errors[i] = status_error(int(status[i]), f"deal {i}", index=i)
        yield pb.StreamScoreClassicalResponse(
            batch=batch_no, deal_count=n, errors=_hand_errors(errors),
            **{name: arr.tobytes() for name, arr in out.items()})


__all__ = ["analyze_hand", "deal_arrays", "deal_of", "rules_of",
           "score_classical_deal", "stream_rules", "stream_score"]
