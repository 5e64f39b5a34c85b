"""The Chinese classical RPCs' bodies: AnalyzeHand under classical rules, ScoreClassicalDeal and
StreamScoreClassical.

A `RuleSelection` naming a classical preset ("classical", "bradfield"), with classical option
overrides by name, selects the classical winning forms (``requests.classical_rules_of``); empty,
or a riichi preset, keeps the riichi forms (so riichi answers are unchanged). ScoreClassicalDeal
scores one finished deal with ``mjcore.classical.scoring.score_deal``. Every text field is
length-checked before it is parsed; errors are INVALID_ARGUMENT with an ErrorInfo naming the
field and the seat (index).
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any, TypeVar

import grpc
import numpy as np

import mjcore
from mjcore.analysis import ukeire_rows, winning_forms
from mjcore.classical.batch import score_deals
from mjcore.classical.rules import ClassicalRules
from mjcore.classical.scoring import Deal, PlayerHand, score_deal
from mjcore.errors import InvalidHandError, InvalidRuleError
from mjcore.status import NOT_AGARI, reason_of, status_error
from mjcore.tiles import parse_kinds, parse_tile
from mjcore.wire import layout
from mjcore.wire.convert import CLAIMS, CONDITIONS, deal_response
from mjcore.wire.v1 import analysis_service_pb2 as pb
from mjcore.wire.v1 import scoring_pb2 as sp

from .errors import RpcError, invalid_hand, invalid_rule, reason_code
from .limits import FIELD_CHARS, MAX_VISIBLE_TILES, quote
from .requests import (
    EncodedMessage,
    analyze_hand_bytes,
    batch_limit,
    check_deadline,
    chunks,
    classical_rules_of,
    hand_errors,
    parse_hand,
    parse_tiles,
    stream_rules,
)

MAX_CONDITIONS = len(CONDITIONS)


def _bad(message: str, reason: str, field: str, index: int | None = None,
         **metadata: object) -> RpcError:
    return RpcError(grpc.StatusCode.INVALID_ARGUMENT, message, reason, field=field, index=index,
                    **metadata)


def analyze_hand(request: pb.AnalyzeHandRequest, rules: ClassicalRules) -> EncodedMessage:
    """AnalyzeHand's answer (serialized) under the classical ``rules`` of ``request.rules``."""
    hand = parse_hand(request.hand)
    text = request.visible
    visible = parse_tiles(text, "visible", MAX_VISIBLE_TILES) if text else None
    try:
        shanten = mjcore.shanten(hand, rules)       # also refuses red fives, bonus tiles
        ukeire = ukeire_rows(hand, visible, winning_forms(rules))
        tiles = hand.n_closed + 3 * hand.n_melds
        agari = tiles == 14 and mjcore.is_agari(hand, rules)
    except InvalidHandError as err:
        raise invalid_hand(err, "hand") from None
    return analyze_hand_bytes(hand, shanten, agari, ukeire, tiles == 13)


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
        rules = classical_rules_of(request.rules, default="classical")
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


def stream_score(servicer: Any, request_iterator: Iterator[Any], context: Any
                 ) -> Iterator[pb.StreamScoreClassicalResponse]:
    """StreamScoreClassical: each batch scored chunk by chunk with ``score_deals``."""
    for batch_no, request in enumerate(request_iterator):
        check_deadline(context)
        arrays = deal_arrays(request, batch_limit(servicer, DEAL_OUT_BYTES), batch_no)
        rules = stream_rules(request, batch_no, default="classical")
        assert isinstance(rules, ClassicalRules)     # a classical default: classical rules
        n = len(arrays["counts"])
        out = layout.empty(layout.DEAL_RESPONSE_ARRAYS, n)
        # the library's words for a bad deal (the tile and where its copies are)
        errors: dict[int, InvalidHandError] = {}
        for start, stop in chunks(n, context):
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
            batch=batch_no, deal_count=n, errors=hand_errors(errors),
            **{name: arr.tobytes() for name, arr in out.items()})


__all__ = ["analyze_hand", "deal_arrays", "deal_of", "score_classical_deal", "stream_score"]
