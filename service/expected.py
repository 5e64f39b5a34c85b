"""ExpectedValues and StreamExpectedValues: the expected-value search over gRPC.

A search can take tens of milliseconds or more, so neither port runs it where it receives
calls: both hand it to one ``EvPool`` (a few threads and a short queue; the kernel releases the
GIL). A full pool refuses at once with RESOURCE_EXHAUSTED (SERVER_BUSY, a RetryInfo hint);
each search gets the call's remaining deadline as its ``max_seconds`` (capped by the server's
limit), so a call past its deadline stops computing and is DEADLINE_EXCEEDED.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import grpc
import numpy as np

from mjcore.errors import InvalidHandError, InvalidRuleError
from mjcore.games import GAMES, game_of
from mjcore.riichi.batch_expected import expected_values as batch_expected
from mjcore.riichi.expected import MAX_TURNS, expected_values
from mjcore.riichi.rules import RuleSet
from mjcore.wire import convert as wire
from mjcore.wire import layout
from mjcore.wire.v1 import analysis_service_pb2 as pb
from mjcore.wire.v1 import types_pb2

from . import bulk
from .errors import RpcError, invalid_hand, invalid_rule
from .limits import MAX_VISIBLE_TILES
from .requests import (
    NOT_IN_SANMA_REASON,
    SelectionCache,
    batch_limit,
    batch_rows,
    check_enum,
    hand_errors,
    not_in_play_row,
    parse_hand,
    parse_tiles,
    rules_from_proto,
)

MAX_DORA = 5
_WINDS = (types_pb2.WIND_UNSPECIFIED, *wire.WIND_NAMES)
_MODELS = (pb.EXPECTED_VALUE_MODEL_UNSPECIFIED, *wire.EV_MODELS)
# the library's reason -> the request field it is about (the rest: the hand)
_FIELDS = {"bad_seats": "seat_wind", "bad_kita": "kita_count"}
_rules_cache = SelectionCache()


class EvPool:
    """``workers`` threads for searches and at most ``queue`` calls waiting for one; ``submit``
    refuses (None) past that. Shared by both ports, so one budget bounds the server."""

    def __init__(self, workers: int, queue: int) -> None:
        self.workers = workers
        self.capacity = workers + queue
        self.in_flight = 0
        self.refused = 0
        self._mean = 0.05             # seconds per search, smoothed: the retry hint
        self._lock = threading.Lock()
        self._executor = ThreadPoolExecutor(workers, thread_name_prefix="mjcore-ev")

    def submit(self, work: Callable[..., Any], *args: Any) -> Future[Any] | None:
        with self._lock:
            if self.in_flight >= self.capacity:
                self.refused += 1
                return None
            self.in_flight += 1
        try:
            future = self._executor.submit(self._timed, work, *args)
        except RuntimeError:          # shut down
            self._leave(None)
            return None
        future.add_done_callback(self._cancelled)
        return future

    def _cancelled(self, future: Future[Any]) -> None:
        """A call cancelled while queued (its client went away) never ran ``_timed``."""
        if future.cancelled():
            self._leave(None)

    def _timed(self, work: Callable[..., Any], *args: Any) -> Any:
        start = time.monotonic()
        try:
            return work(*args)
        finally:
            self._leave(time.monotonic() - start)

    def _leave(self, seconds: float | None) -> None:
        with self._lock:
            self.in_flight -= 1
            if seconds is not None:
                self._mean += (seconds - self._mean) / 8

    def busy(self) -> RpcError:
        """The refusal of a call the pool has no room for."""
        with self._lock:
            delay = min(5.0, max(0.01, self._mean * self.capacity / self.workers))
        err = RpcError(grpc.StatusCode.RESOURCE_EXHAUSTED,
                       f"the server is running or queueing {self.capacity} expected-value "
                       f"searches already; retry in about {delay:.2f} s", "SERVER_BUSY",
                       limit=self.capacity)
        err.retry_delay = delay
        return err

    def shutdown(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)


def _bad_option(name: str, value: object, lo: int, hi: int) -> RpcError:
    return RpcError(grpc.StatusCode.INVALID_ARGUMENT,
                    f"options.{name}: {value} is outside {lo}..{hi}", "EV_BAD_OPTION",
                    field=f"options.{name}", index=0)


def options_of(opts: pb.ExpectedValueOptions, max_nodes: int) -> dict[str, Any]:
    """The library's keyword options of ``opts``; ``max_nodes``: the server's cap (and the
    default)."""
    check_enum(opts.model, _MODELS, "options.model", pb.ExpectedValueModel)
    out: dict[str, Any] = {"model": wire.EV_MODELS.get(opts.model, "consistent")}
    for name, key, lo, hi in (("max_turn", "t_max", 1, MAX_TURNS), ("extra", "extra", 0, 4),
                              ("max_shanten", "max_shanten", -1, 6),
                              ("max_node_count", "max_nodes", 1, max_nodes)):
        if opts.HasField(name):
            value = getattr(opts, name)
            if not lo <= value <= hi:
                raise _bad_option(name, value, lo, hi)
            out[key] = value
    out.setdefault("max_nodes", max_nodes)
    for name in ("red", "ura", "shanten_down", "tegawari"):
        if opts.HasField(name):
            out[name] = getattr(opts, name)
    return out


# the presets of the games the registry lists without an expected-value model
_WITHOUT_MODEL = frozenset(p for g in GAMES.values() if not g.offers("expected_value")
                           for p in g.presets)


def rules_of(sel: Any) -> RuleSet:
    """The riichi rules of a selection (empty: tenhou); a preset of a game without an
    expected-value model (the registry's ``expected_value``) is refused naming the game."""
    try:
        if sel.preset in _WITHOUT_MODEL:
            game = game_of(sel.preset)
            raise InvalidRuleError(f"preset {sel.preset!r}: the {game.name} game has no "
                                   "expected-value model")
        rules: RuleSet = _rules_cache.get(sel.SerializeToString(deterministic=True),
                                          lambda: rules_from_proto(sel))
        return rules
    except InvalidRuleError as err:
        raise invalid_rule(err) from None


def _budget(context: Any, cap: float) -> tuple[float, bool]:
    """Seconds the search may take and whether the call's deadline (not ``cap``) sets them."""
    remaining = context.time_remaining()
    if remaining is not None and remaining <= 0:
        raise RpcError(grpc.StatusCode.DEADLINE_EXCEEDED, "deadline exceeded",
                       "DEADLINE_EXCEEDED")
    if remaining is None or remaining >= cap:
        return cap, False
    return remaining, True


def unary(request: pb.ExpectedValuesRequest, context: Any, max_seconds: float,
          max_nodes: int) -> pb.ExpectedValuesResponse:
    """ExpectedValues' answer (runs in the pool)."""
    hand = parse_hand(request.hand)
    parse_tiles(request.dora_indicators, "dora_indicators", MAX_DORA)
    parse_tiles(request.visible, "visible", MAX_VISIBLE_TILES)
    for field in ("round_wind", "seat_wind"):
        check_enum(getattr(request, field), _WINDS, field, types_pb2.Wind)
    rules = rules_of(request.rules)
    kita = request.kita_count
    if kita and not rules.nukidora:
        raise RpcError(grpc.StatusCode.INVALID_ARGUMENT,
                       f"kita_count {kita}: norths set aside need three-player rules with "
                       "nukidora (tenhou_sanma)", "BAD_KITA", field="kita_count", index=0)
    if not 0 <= kita <= 4:
        raise RpcError(grpc.StatusCode.INVALID_ARGUMENT, f"kita_count {kita}: expected 0..4",
                       "BAD_KITA", field="kita_count", index=0)
    options = options_of(request.options, max_nodes)
    seconds, by_deadline = _budget(context, max_seconds)
    try:
        result = expected_values(
            hand, dora=request.dora_indicators,
            round_wind=wire.WIND_NAMES.get(request.round_wind, "E"),
            seat_wind=wire.WIND_NAMES.get(request.seat_wind, "E"),
            visible=request.visible or None, rules=rules, kita=kita, max_seconds=seconds,
            **options)
    except InvalidHandError as err:
        raise invalid_hand(err, _FIELDS.get(err.reason, "hand")) from None
    if result.status == "ev_deadline" and by_deadline:
        raise RpcError(grpc.StatusCode.DEADLINE_EXCEEDED,
                       f"deadline exceeded: the search stopped after {result.nodes:,} nodes",
                       "DEADLINE_EXCEEDED")
    return wire.expected_values_response(result)


def _row_arrays(request: pb.StreamExpectedValuesRequest, n: int, batch_no: int
                ) -> dict[str, Any]:
    """The per-hand arrays of a batch, checked for length; None = the default."""
    arrays: dict[str, Any] = {}
    slots = request.dora_slot_count
    if slots > MAX_DORA:
        raise RpcError(grpc.StatusCode.INVALID_ARGUMENT,
                       f"batch {batch_no}: dora_slot_count {slots}: at most {MAX_DORA}",
                       "BAD_FIELD_LENGTH", batch=batch_no, field="dora_slot_count")
    specs = dict(layout.EV_REQUEST_ARRAYS)
    specs["dora"] = ("u1", (slots,))
    for name, spec in specs.items():
        data = getattr(request, name)
        if not data:
            arrays[name] = None
            continue
        arrays[name] = batch_rows(data, name, spec, n, batch_no).copy()
    return arrays


def _check_rows(arrays: dict[str, Any], players: int
                ) -> dict[int, InvalidHandError]:
    """Rows whose winds are out of range: bad hands (the library refuses the whole batch)."""
    found: dict[int, InvalidHandError] = {}
    for name, hi in (("seat_wind", players - 1), ("round_wind", 3)):
        a = arrays.get(name)
        if a is None:
            continue
        for i in np.flatnonzero(a > hi).tolist():
            found.setdefault(i, InvalidHandError(f"{name} {int(a[i])}: expected 0..{hi}",
                                                 reason="bad_seats", index=i))
            a[i] = 0
    return found


ROWS_PER_CALL = 256     # rows per kernel call: the deadline is checked between them


def stream(servicer: Any, request_iterator: Iterator[Any], context: Any) -> Iterator[Any]:
    """StreamExpectedValues: each batch through ``mjcore.batch.expected_values``."""
    out_row = layout.row_bytes(layout.EV_RESPONSE_ARRAYS)
    for batch_no, request in enumerate(request_iterator):
        remaining = context.time_remaining()
        if remaining is not None and remaining <= 0:
            raise RpcError(grpc.StatusCode.DEADLINE_EXCEEDED, "deadline exceeded",
                           "DEADLINE_EXCEEDED")
        batch = bulk.decode(request.hands, batch_limit(servicer, out_row), batch_no)
        n = len(batch)
        arrays = _row_arrays(request, n, batch_no)
        rules = rules_of(request.rules)
        options = options_of(request.options, servicer.ev_max_nodes)
        t_max = options.get("t_max", 18)
        turn = request.turn or 1
        if turn > t_max:
            raise RpcError(grpc.StatusCode.INVALID_ARGUMENT,
                           f"batch {batch_no}: turn {turn} is past max_turn {t_max}",
                           "EV_BAD_OPTION", batch=batch_no, field="turn")
        found = _check_rows(arrays, rules.players)
        fixed: dict[str, Any] = {"use_red" if k == "red" else k: v for k, v in options.items()}
        fixed.update(turn=turn, rules=rules, n_threads=servicer.kernel_threads)
        out = layout.empty(layout.EV_RESPONSE_ARRAYS, n)
        for start in range(0, n, ROWS_PER_CALL):
            if not context.is_active():
                return
            stop = min(n, start + ROWS_PER_CALL)
            # each row may take what is left of the deadline; the next chunk then stops
            seconds, _ = _budget(context, servicer.ev_max_seconds)
            rows: dict[str, Any] = {k: None if v is None else v[start:stop]
                                    for k, v in arrays.items()}
            result = batch_expected(batch.counts[start:stop], max_seconds=seconds,
                                    **rows, **fixed)
            for name in layout.EV_RESPONSE_ARRAYS:
                out[name][start:stop] = getattr(result, name)
            for i, err in result.errors_by_row(start).items():
                found.setdefault(i, err)
        if not context.is_active():
            return
        for i, err in found.items():
            if err.reason == NOT_IN_SANMA_REASON:
                found[i] = not_in_play_row(batch.counts[i], i)
        found.update(batch.errors)
        bad = sorted(found)
        if bad:
            out["status"][bad] = np.minimum(out["status"][bad], -1)
        response = pb.StreamExpectedValuesResponse(batch=batch_no, hand_count=n,
                                                   errors=hand_errors(found))
        for name, (dtype, _shape) in layout.EV_RESPONSE_ARRAYS.items():
            setattr(response, name, out[name].astype(dtype, copy=False).tobytes())
        yield response


__all__ = ["EvPool", "options_of", "rules_of", "stream", "unary"]
