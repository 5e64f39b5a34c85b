"""A synchronous client for the mjcore gRPC service (``mjcore serve``).

    from mjcore.client import Client

    with Client("127.0.0.1:50051", token="...") as client:
        client.analyze("123m456p789s1122z").shanten
        client.shanten(counts).shanten            # numpy (N, 34) uint8: as mjcore.batch.shanten
        client.shanten_text("hands.txt").shanten  # one hand per line: a BatchResult
        client.score("123m456p789s11122z", "2z").points   # as mjcore.score

Unary calls and bulk streams retry ``UNAVAILABLE`` with exponential backoff (a bulk stream
resumes from the first batch without an answer) and never run past ``timeout`` seconds. The
bulk helpers answer as the library's batch calls: a ``BatchResult`` or ``BatchScores`` whose
``status`` and ``errors()`` name the bad hands by index, the good ones answered
(``raise_for_errors()`` raises :class:`~mjcore.errors.BatchError`);
``expected_values_batch`` still raises BatchError with the arrays in ``partial``. A bad hand in
a unary call raises :class:`~mjcore.errors.InvalidHandError` with the server's reason and
position.
"""
from __future__ import annotations

import os
import random
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import BatchError, InvalidHandError, InvalidRuleError, ServiceError
from .status import library_reason

try:
    import grpc

    from .wire import convert as wire
    from .wire import layout, packing
    from .wire.status import error_info, retry_delay
    from .wire.v1 import analysis_service_pb2 as pb
    from .wire.v1 import analysis_service_pb2_grpc as pb_grpc
    from .wire.v1 import scoring_pb2 as sp
except ImportError as err:
    if (err.name or "").partition(".")[0] not in ("grpc", "google"):
        raise
    raise ImportError(
        f"mjcore.client needs grpcio and protobuf ({err.name} is missing), which the analysis "
        "library does not install: pip install 'mjcore[client]'", name=err.name) from err

if TYPE_CHECKING:
    from ._core.scoring import FuEntry, Yaku
    from .batch import BatchResult
    from .decomposition import Decomposition
    from .results import Shanten, Ukeire, Waits
    from .riichi.batch_scoring import BatchScores

__all__ = ["Analysis", "Client", "RemoteScoreResult", "ServiceError"]

_RETRYABLE = (grpc.StatusCode.UNAVAILABLE,)


@dataclass(frozen=True, slots=True)
class Analysis:
    """The server's analysis of one hand, as the library's own result values."""

    hand: str
    shanten: Shanten
    is_agari: bool
    waits: Waits | None
    ukeire: Ukeire


@dataclass(frozen=True, slots=True)
class RemoteScoreResult:
    """The server's score of one hand, with the attributes, ``to_dict`` and repr of the
    ``mjcore.score`` result (``mjcore.ScoreResult``); ``raw`` is the ScoreResponse itself."""

    status: str
    han: int
    fu: int
    yaku: tuple[Yaku, ...]
    dora: int
    ura: int
    aka: int
    yakuman: int
    is_kazoe: bool
    limit: int
    limit_name: str
    basic: int
    points: int
    fu_items: tuple[FuEntry, ...]
    deltas: tuple[int, ...]
    payments: tuple[int, ...]
    decomposition: Decomposition
    decomposition_index: int
    n_decompositions: int
    players: int = 4
    winner: int = 0
    raw: Any = dataclass_field(default=None, repr=False, compare=False)

    @property
    def is_win(self) -> bool:
        """True when the hand scores (status "ok")."""
        return self.status == "ok"

    @property
    def status_code(self) -> int:
        """0 ok, 1 no yaku (mjcore.status)."""
        return 0 if self.is_win else 1

    @property
    def wait(self) -> str:
        """The wait of the scored decomposition."""
        return self.decomposition.wait

    @property
    def yaku_mask(self) -> int:
        """Bit ``i`` set for each tenhou yaku id ``i`` the hand has."""
        return sum(1 << y.id for y in self.yaku)

    @property
    def yaku_han(self) -> tuple[int, ...]:
        """Han per tenhou yaku id (55 entries; yakuman ids hold the multiplier)."""
        han = [0] * 55
        for y in self.yaku:
            counted = 36 <= y.id < 52 and self.yakuman and not self.is_kazoe
            han[y.id] = y.han // 13 if counted else y.han
        return tuple(han)

    def to_dict(self) -> dict[str, Any]:
        """The layout of ``mjcore.ScoreResult.to_dict``."""
        return {
            "is_win": self.is_win, "status": self.status, "han": self.han, "fu": self.fu,
            "yaku": [y._asdict() for y in self.yaku], "dora": self.dora, "ura": self.ura,
            "aka": self.aka, "yakuman": self.yakuman, "limit": self.limit,
            "limit_name": self.limit_name, "basic": self.basic, "points": self.points,
            "fu_items": [f._asdict() for f in self.fu_items], "deltas": list(self.deltas),
            "payments": list(self.payments), "wait": self.wait,
            "decomposition": str(self.decomposition),
            "decomposition_index": self.decomposition_index,
        }

    def __repr__(self) -> str:
        if not self.is_win:
            return f"ScoreResult(no win: {self.status})"
        yaku = ", ".join(f"{y.name} {y.han}" for y in self.yaku)
        lim = f" {self.limit_name}" if self.limit else ""
        return f"ScoreResult({self.han} han {self.fu} fu{lim}, {self.points} points; {yaku})"


def _players(rules: Any) -> int:
    """The table size of a ``rules`` argument (4 when this library cannot tell)."""
    from .riichi.rules import RuleSet

    if isinstance(rules, RuleSet):
        return rules.players
    if isinstance(rules, str):
        try:
            return RuleSet.preset(rules).players
        except InvalidRuleError:
            return 4
    if isinstance(rules, dict) and "players" in rules:
        return 3 if rules["players"] == 3 else 4
    return 4


def _stub(channel: grpc.Channel) -> Any:
    """The generated stub (its module has no type annotations)."""
    return pb_grpc.HandAnalysisServiceStub(channel)  # type: ignore[no-untyped-call]


def _read(data: bytes | str | os.PathLike[str] | None) -> bytes | None:
    if data is None or isinstance(data, bytes):
        return data
    return Path(data).read_bytes()


def _error_info(err: grpc.RpcError) -> tuple[str, dict[str, str]]:
    from google.protobuf.message import DecodeError

    try:
        info = error_info(err)
    except (DecodeError, ValueError):  # a status without (valid) rich details
        info = None
    if info is None:
        return "", {}
    return info.reason, dict(info.metadata)


def _convert_error(err: grpc.RpcError) -> Exception:
    code = err.code()
    reason, meta = _error_info(err)
    message = err.details() or code.name
    if code == grpc.StatusCode.INVALID_ARGUMENT and meta.get("field") == "rules":
        return InvalidRuleError(message)
    if code == grpc.StatusCode.INVALID_ARGUMENT and "field" in meta:
        position = int(meta["position"]) if "position" in meta else None
        index = int(meta["index"]) if "index" in meta else None
        return InvalidHandError(message, reason=library_reason(reason), position=position,
                                index=index)
    return ServiceError(f"{code.name}: {message}", code, reason, meta)


class Client:
    """A connection to one server. Thread-safe; share one instance between threads.

    ``target`` is ``host:port``. ``token`` is sent as ``authorization: Bearer <token>``.
    TLS is used when ``tls`` is true or any certificate is given: ``root_certificates`` (PEM
    bytes or a path; None = system roots), ``client_cert`` and ``client_key`` for mutual TLS.
    ``timeout`` is the deadline of each call in seconds (retries included); ``retries`` is how
    many times ``UNAVAILABLE`` is retried, starting after ``backoff`` s and doubling up to
    ``max_backoff`` s. Bulk helpers send ``batch_size`` hands per message over ``streams``
    concurrent streams, packed as ``encoding``: "nibble" (17 bytes a hand), "packed" (3 bits a
    kind, 16 bytes) or "counts" (34 bytes); a batch whose message would be over
    ``max_message_size`` (16 MiB, the server's default limit) is cut into pieces that fit.
    ``unary_target`` is the ``host:port`` of the server's unary front (``mjcore serve
    --unary-port``): the unary calls go there, over the same TLS and token, and the bulk
    streams to ``target``.
    """

    def __init__(self, target: str = "127.0.0.1:50051", *, token: str | None = None,
                 tls: bool = False,
                 root_certificates: bytes | str | os.PathLike[str] | None = None,
                 client_cert: bytes | str | os.PathLike[str] | None = None,
                 client_key: bytes | str | os.PathLike[str] | None = None,
                 server_name: str | None = None, timeout: float | None = 60.0,
                 retries: int = 5, backoff: float = 0.05, max_backoff: float = 2.0,
                 max_message_size: int = 16 * 1024 * 1024, batch_size: int = 1 << 16,
                 streams: int = 2, encoding: str = "nibble",
                 unary_target: str | None = None) -> None:
        if batch_size < 1 or streams < 1:
            raise ValueError("batch_size and streams must be at least 1")
        if max_message_size < 1024:
            raise ValueError(f"max_message_size {max_message_size}: expected >= 1024")
        if encoding not in packing.ENCODINGS:
            raise ValueError(f"encoding {encoding!r}: expected one of "
                             f"{', '.join(packing.ENCODINGS)}")
        self._pb = pb
        options: list[tuple[str, Any]] = [
            ("grpc.max_receive_message_length", max_message_size),
            ("grpc.max_send_message_length", max_message_size),
        ]
        if server_name:
            options.append(("grpc.ssl_target_name_override", server_name))
        secure = tls or root_certificates is not None or client_cert is not None
        creds = grpc.ssl_channel_credentials(
            root_certificates=_read(root_certificates), private_key=_read(client_key),
            certificate_chain=_read(client_cert)) if secure else None

        def channel(address: str) -> grpc.Channel:
            if creds is None:
                return grpc.insecure_channel(address, options=options)
            return grpc.secure_channel(address, creds, options=options)

        self._channel = channel(target)
        self._stub = _stub(self._channel)
        self._unary_channel = channel(unary_target) if unary_target else None
        self._unary_stub = (_stub(self._unary_channel)
                            if self._unary_channel is not None else self._stub)
        self._metadata = (("authorization", f"Bearer {token}"),) if token else ()
        self.target = target
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.batch_size = batch_size
        self.max_message_size = max_message_size
        self.streams = streams
        self.encoding = packing.ENCODINGS[encoding]

    # -- plumbing -------------------------------------------------------------------------------

    def check(self, timeout: float = 5.0) -> None:
        """Fail fast: wait up to ``timeout`` s for the connection, then make one small
        authenticated call, so that an unreachable server, a failed TLS handshake or a refused
        token is one clear :class:`ServiceError` instead of an error per call."""
        settled = threading.Event()
        state: list[grpc.ChannelConnectivity] = []

        def watch(s: grpc.ChannelConnectivity) -> None:
            if s in (grpc.ChannelConnectivity.READY, grpc.ChannelConnectivity.TRANSIENT_FAILURE):
                state.append(s)
                settled.set()

        self._channel.subscribe(watch, try_to_connect=True)
        try:
            settled.wait(timeout)
        finally:
            self._channel.unsubscribe(watch)
        if not state or state[0] != grpc.ChannelConnectivity.READY:
            why = "the connection failed" if state else f"no connection within {timeout:g} s"
            raise ServiceError(
                f"server {self.target} is unreachable: {why} (nothing listening there, a "
                "firewall, or a failed TLS handshake)", grpc.StatusCode.UNAVAILABLE,
                "unreachable")
        try:
            self._stub.ListRulePresets(self._pb.ListRulePresetsRequest(), timeout=timeout,
                                       metadata=self._metadata)
        except grpc.RpcError as err:
            code = err.code()
            if code == grpc.StatusCode.UNAUTHENTICATED:
                raise ServiceError(
                    f"server {self.target} refused the token"
                    f"{'' if self._metadata else ' (none was given)'}: {err.details()}",
                    code, "unauthenticated") from None
            raise _convert_error(err) from None

    def close(self) -> None:
        """Close the channels."""
        self._channel.close()
        if self._unary_channel is not None:
            self._unary_channel.close()

    def __enter__(self) -> Client:  # noqa: PYI034
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _deadline(self, timeout: float | None) -> float | None:
        timeout = self.timeout if timeout is None else timeout
        return None if timeout is None else time.monotonic() + timeout

    def _sleep_before_retry(self, attempt: int, deadline: float | None) -> bool:
        """Back off before retry ``attempt`` (1-based); False when out of retries or time."""
        if attempt > self.retries:
            return False
        delay = min(self.max_backoff, self.backoff * 2 ** (attempt - 1))
        delay *= 0.5 + random.random() / 2
        if deadline is not None and time.monotonic() + delay >= deadline:
            return False
        time.sleep(delay)
        return True

    def _unary(self, method: Callable[..., Any], request: Any, timeout: float | None) -> Any:
        deadline = self._deadline(timeout)
        attempt = 0
        while True:
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                return method(request, timeout=remaining, metadata=self._metadata)
            except grpc.RpcError as err:
                attempt += 1
                if err.code() in _RETRYABLE and self._sleep_before_retry(attempt, deadline):
                    continue
                if self._wait_when_busy(err, attempt, deadline):
                    continue
                raise _convert_error(err) from None

    def _wait_when_busy(self, err: grpc.RpcError, attempt: int, deadline: float | None) -> bool:
        """A full server (RESOURCE_EXHAUSTED, SERVER_BUSY): sleep its RetryInfo hint (with
        jitter) and return True, within ``retries`` and the deadline; else False."""
        if err.code() != grpc.StatusCode.RESOURCE_EXHAUSTED or attempt > self.retries or \
                _error_info(err)[0] != "SERVER_BUSY":
            return False
        try:
            hint = retry_delay(err)
        except ValueError:
            hint = None
        delay = min(self.max_backoff, hint if hint is not None else self.backoff)
        delay *= 0.5 + random.random()
        if deadline is not None and time.monotonic() + delay >= deadline:
            return False
        time.sleep(delay)
        return True

    def _stream(self, method: Callable[..., Any], requests: Sequence[Any],
                deadline: float | None, on_response: Callable[[int, Any], None]) -> None:
        """Send ``requests`` on one stream; resume after UNAVAILABLE from the first unanswered."""
        done = 0
        attempt = 0
        while done < len(requests):
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            start = done
            try:
                for response in method(iter(requests[start:]), timeout=remaining,
                                       metadata=self._metadata):
                    on_response(start + int(response.batch), response)
                    done += 1
                    attempt = 0
            except grpc.RpcError as err:
                attempt += 1
                if err.code() in _RETRYABLE and self._sleep_before_retry(attempt, deadline):
                    continue
                raise _convert_error(err) from None

    # -- unary RPCs -----------------------------------------------------------------------------

    def analyze(self, hand: str, visible: str = "", *, rules: Any = None,
                timeout: float | None = None) -> Analysis:
        """Shanten by form, agari, waits (13 - 3k tiles) and ukeire of one hand; ``rules``:
        None (riichi), a riichi preset name ("tenhou_sanma": the three-player tile set, 2m-8m
        refused with reason not_in_sanma), a RuleSet, "classical", "bradfield", a
        ClassicalRules or a dict of options."""
        return Analysis(*wire.analysis_values(self.analyze_raw(hand, visible, rules=rules,
                                                               timeout=timeout)))

    def analyze_raw(self, hand: str, visible: str = "", *, rules: Any = None,
                    timeout: float | None = None) -> Any:
        """The AnalyzeHandResponse message itself."""
        return self._unary(self._unary_stub.AnalyzeHand,
                           self._pb.AnalyzeHandRequest(hand=str(hand), visible=visible,
                                                       **_rules_field(rules)), timeout)

    def score_classical(self, hands: Sequence[str], winner: int, win_tile: str, *,
                        self_drawn: bool = False, conditions: Iterable[str] = (),
                        discarder: int | None = None, claim: str = "any",
                        cannon: int | None = None, prevailing: str = "E", dead_tiles: str = "",
                        pair: str = "", hidden: Iterable[int] = (), rules: Any = "classical",
                        timeout: float | None = None) -> dict[str, Any]:
        """Score one finished Chinese classical deal (ScoreClassicalDeal): ``hands`` for seats
        0..3 as ``PlayerHand.parse`` reads them, ``conditions`` names of
        ``mjcore.classical.scoring.WIN_FLAGS``. Returns the layout of ``DealScore.to_dict``."""
        conditions = list(conditions)
        bad = [c for c in conditions if c not in wire.CONDITION_OF_NAME]
        if bad:
            raise InvalidHandError(f"unknown win condition(s): {', '.join(bad)}",
                                   reason="bad_win")
        how = [wire.CONDITION_OF_NAME[c] for c in conditions]
        self_draw = wire.CONDITION_OF_NAME["self_drawn"]
        if self_drawn and self_draw not in how:
            how.insert(0, self_draw)
        if claim not in wire.CLAIM_OF_NAME:
            raise InvalidHandError(f"claim {claim!r}: expected one of "
                                   f"{', '.join(wire.CLAIM_OF_NAME)}", reason="bad_win")
        wind = prevailing[:1].upper()
        if len(prevailing) != 1 or wind not in "ESWN":
            raise InvalidHandError(f"prevailing wind {prevailing!r}: expected E, S, W or N",
                                   reason="bad_seats")
        request = sp.ScoreClassicalDealRequest(
            hands=list(hands), winner=winner, win_tile=win_tile, conditions=how,
            claim=wire.CLAIM_OF_NAME[claim], prevailing_wind=wire.WIND_OF_NAME[wind],
            dead_tiles=dead_tiles, pair=pair, hidden=list(hidden),
            rules=wire.rule_selection(rules))
        if discarder is not None:
            request.discarder = discarder
        if cannon is not None:
            request.cannon = cannon
        return wire.deal_to_dict(self._unary(self._unary_stub.ScoreClassicalDeal, request,
                                             timeout))

    def decompose(self, hand: str, win_tile: str, *, timeout: float | None = None) -> Any:
        """The DecomposeResponse: every reading of a complete hand for ``win_tile``."""
        return self._unary(self._unary_stub.Decompose,
                           self._pb.DecomposeRequest(hand=str(hand), win_tile=win_tile), timeout)

    def score(self, hand: str, win_tile: str, *, tsumo: bool = False,
              seat_wind: str | None = None, round_wind: str = "E", dealer: int | None = None,
              dora: str = "", ura: str = "", honba: int = 0, riichi_sticks: int = 0,
              kita: int = 0, winner: int | None = None, from_who: int | None = None,
              pao_seat: int | None = None, rules: Any = None, timeout: float | None = None,
              **situation: bool) -> RemoteScoreResult:
        """The score of one winning hand, in the shape of ``mjcore.score``'s result (``.raw``
        is the ScoreResponse); the arguments mirror ``mjcore.score`` (winds as "E" "S" "W" "N";
        ``rules`` a preset name, a RuleSet or a dict of options; ``kita`` the norths set aside
        under ``rules="tenhou_sanma"``; situation flags such as ``riichi=True``)."""
        raw = self.score_raw(hand, win_tile, tsumo=tsumo, seat_wind=seat_wind,
                             round_wind=round_wind, dealer=dealer, dora=dora, ura=ura,
                             honba=honba, riichi_sticks=riichi_sticks, kita=kita, winner=winner,
                             from_who=from_who, pao_seat=pao_seat, rules=rules, timeout=timeout,
                             **situation)
        from .tiles import parse_tile

        return RemoteScoreResult(**wire.score_values(raw, parse_tile(win_tile)),
                                 players=_players(rules), winner=winner or 0, raw=raw)

    def score_raw(self, hand: str, win_tile: str, *, tsumo: bool = False,
                  seat_wind: str | None = None, round_wind: str = "E",
                  dealer: int | None = None, dora: str = "", ura: str = "", honba: int = 0,
                  riichi_sticks: int = 0, kita: int = 0, winner: int | None = None,
                  from_who: int | None = None, pao_seat: int | None = None, rules: Any = None,
                  timeout: float | None = None, **situation: bool) -> Any:
        """The ScoreResponse message itself (the arguments of :meth:`score`)."""
        unknown = set(situation) - set(wire.SITUATION_FLAGS)
        if unknown:
            raise TypeError(f"unknown situation flag(s): {', '.join(sorted(unknown))}")
        for name, wind in (("round_wind", round_wind), ("seat_wind", seat_wind)):
            if wind is not None and wind not in wire.WIND_OF_NAME:
                raise InvalidHandError(f"{name} {wind!r}: expected E, S, W or N",
                                       reason="bad_seats")
        req = sp.ScoreRequest(
            hand=str(hand), win_tile=win_tile,
            win_method=sp.WIN_METHOD_TSUMO if tsumo else sp.WIN_METHOD_RON,
            round_wind=wire.WIND_OF_NAME[round_wind], dora_indicators=dora, ura_indicators=ura,
            honba_count=honba, riichi_stick_count=riichi_sticks, kita_count=kita,
            situation=sp.Situation(**situation), rules=wire.rule_selection(rules))
        if seat_wind is not None:
            req.seat_wind = wire.WIND_OF_NAME[seat_wind]
        for field, value in (("dealer", dealer), ("winner", winner), ("discarder", from_who),
                             ("liable", pao_seat)):
            if value is not None:
                setattr(req, field, value)
        return self._unary(self._unary_stub.Score, req, timeout)

    def expected_values(self, hand: str, *, dora: str = "", round_wind: str = "E",
                        seat_wind: str = "E", visible: str | None = None, rules: Any = None,
                        kita: int = 0, model: str = "consistent", t_max: int | None = None,
                        extra: int | None = None, red: bool | None = None,
                        ura: bool | None = None, shanten_down: bool | None = None,
                        tegawari: bool | None = None, max_shanten: int | None = None,
                        max_nodes: int | None = None, timeout: float | None = None) -> Any:
        """The expected values of one hand on the server (ExpectedValues), as the library's
        ``mjcore.expected_values`` result (``ExpectedValues``); the arguments are its own
        (None: the library's default; ``max_nodes`` at most the server's limit). The search
        stops at ``timeout``. A full server (RESOURCE_EXHAUSTED, SERVER_BUSY) is asked again
        after its retry hint, up to ``retries`` times within the timeout; then ServiceError
        (``reason`` "SERVER_BUSY", ``metadata["limit"]``)."""
        return wire.expected_values_value(self.expected_values_raw(
            hand, dora=dora, round_wind=round_wind, seat_wind=seat_wind, visible=visible,
            rules=rules, kita=kita, model=model, t_max=t_max, extra=extra, red=red, ura=ura,
            shanten_down=shanten_down, tegawari=tegawari, max_shanten=max_shanten,
            max_nodes=max_nodes, timeout=timeout))

    def expected_values_raw(self, hand: str, *, dora: str = "", round_wind: str = "E",
                            seat_wind: str = "E", visible: str | None = None,
                            rules: Any = None, kita: int = 0, model: str = "consistent",
                            timeout: float | None = None, **options: Any) -> Any:
        """The ExpectedValuesResponse message itself (the arguments of
        :meth:`expected_values`)."""
        request = self._pb.ExpectedValuesRequest(
            hand=str(hand), dora_indicators=dora, visible=visible or "", kita_count=kita,
            options=_ev_options(model, options), **_rules_field(rules))
        for name, wind in (("round_wind", round_wind), ("seat_wind", seat_wind)):
            if wind not in wire.WIND_OF_NAME:
                raise InvalidHandError(f"{name} {wind!r}: expected E, S, W or N",
                                       reason="bad_seats")
            setattr(request, name, wire.WIND_OF_NAME[wind])
        return self._unary(self._unary_stub.ExpectedValues, request, timeout)

    def rule_presets(self, *, timeout: float | None = None) -> Any:
        """The ListRulePresetsResponse: every preset with all its options."""
        return self._unary(self._unary_stub.ListRulePresets, self._pb.ListRulePresetsRequest(),
                           timeout)

    def health(self, service: str = "", *, timeout: float | None = None) -> str:
        """The health status name of ``service`` ("" = the whole server), e.g. "SERVING"."""
        from grpc_health.v1 import health_pb2, health_pb2_grpc

        stub = health_pb2_grpc.HealthStub(self._channel)
        r = self._unary(stub.Check, health_pb2.HealthCheckRequest(service=service), timeout)
        return str(health_pb2.HealthCheckResponse.ServingStatus.Name(r.status))

    # -- bulk -----------------------------------------------------------------------------------

    def _bulk(self, rpc: str, counts: np.ndarray, n_melds: np.ndarray | None,
              make_request: Callable[[], Any], collect: Callable[[int, int, Any], None],
              timeout: float | None) -> dict[int, InvalidHandError]:
        counts = np.ascontiguousarray(counts, dtype=np.uint8)
        if counts.ndim != 2 or counts.shape[1] != 34:
            raise InvalidHandError(f"counts must have shape (N, 34), not {counts.shape}",
                                   reason="bad_counts")
        if n_melds is not None:
            n_melds = np.ascontiguousarray(n_melds, dtype=np.uint8)
            if n_melds.shape != (counts.shape[0],):
                raise InvalidHandError(f"n_melds must have shape ({counts.shape[0]},)",
                                       reason="bad_melds")
        def build(a: int, b: int) -> Any:
            request = make_request()
            packing.encode_into(request.hands, counts[a:b],
                                None if n_melds is None else n_melds[a:b], self.encoding)
            return request

        bounds, requests = self._batches(counts.shape[0], build)
        return self._run_streams(rpc, requests, bounds, collect, timeout)

    def _batches(self, n: int, build: Callable[[int, int], Any]
                 ) -> tuple[list[tuple[int, int]], list[Any]]:
        """Rows 0..n cut into requests of at most ``batch_size`` rows (``build(a, b)`` makes the
        request of rows a..b), each one over ``max_message_size`` (the server's limit by
        default) cut again into as many pieces as its size needs, so a batch of long rows is
        never refused on size. A single row that does not fit is an InvalidHandError naming
        it."""
        bounds: list[tuple[int, int]] = []
        requests: list[Any] = []

        def add(a: int, b: int) -> None:
            request = build(a, b)
            size = request.ByteSize()
            if size <= self.max_message_size:
                bounds.append((a, b))
                requests.append(request)
                return
            if b - a == 1:
                raise InvalidHandError(
                    f"row {a}: its request is {size:,} bytes, over the client's "
                    f"max_message_size ({self.max_message_size:,})", reason="too_large",
                    index=a)
            pieces = min(b - a, size // self.max_message_size + 1)
            for lo, hi in pairwise([a + (b - a) * i // pieces for i in range(pieces + 1)]):
                add(lo, hi)

        for s in range(0, n, self.batch_size):
            add(s, min(n, s + self.batch_size))
        return bounds, requests

    def _run_streams(self, rpc: str, requests: list[Any], bounds: list[tuple[int, int]],
                     collect: Callable[[int, int, Any], None], timeout: float | None
                     ) -> dict[int, InvalidHandError]:
        method = getattr(self._stub, rpc)
        deadline = self._deadline(timeout)
        errors: dict[int, InvalidHandError] = {}
        lock = threading.Lock()

        def on_response(offset: int, index: int, response: Any) -> None:
            if not 0 <= offset + index < len(bounds):
                raise ServiceError(f"{rpc}: answer for batch {index}, which was not sent")
            start, stop = bounds[offset + index]
            count = response.deal_count if rpc == "StreamScoreClassical" else response.hand_count
            if count != stop - start:
                raise ServiceError(f"{rpc}: batch {index} answered {count} hands, "
                                   f"sent {stop - start}")
            collect(start, stop, response)
            if response.errors:
                with lock:
                    for e in response.errors:
                        errors[start + e.index] = InvalidHandError(
                            e.message, reason=library_reason(e.reason), index=start + e.index)

        k = max(1, min(self.streams, len(requests)))
        parts = [(i * len(requests) // k, (i + 1) * len(requests) // k) for i in range(k)]
        if k == 1:
            self._stream(method, requests, deadline, lambda i, r: on_response(0, i, r))
            return errors
        failures: list[BaseException] = []

        def run(a: int, b: int) -> None:
            try:
                self._stream(method, requests[a:b], deadline,
                             lambda i, r: on_response(a, i, r))
            except BaseException as exc:  # noqa: BLE001  (re-raised in the calling thread)
                failures.append(exc)

        threads = [threading.Thread(target=run, args=p, daemon=True) for p in parts[1:]]
        for t in threads:
            t.start()
        run(*parts[0])
        for t in threads:
            t.join()
        if failures:
            raise failures[0]
        return errors

    @staticmethod
    def _raise_bad_rows(errors: dict[int, InvalidHandError], partial: Any) -> None:
        if errors:
            raise BatchError(errors, partial)

    def shanten(self, counts: np.ndarray, n_melds: np.ndarray | None = None, *,
                forms: bool = False, rules: Any = None,
                timeout: float | None = None) -> BatchResult:
        """Minimum shanten of each row of ``counts`` (StreamShanten), as
        ``mjcore.batch.shanten`` gives it: a BatchResult with ``.shanten`` (int8, -128 on bad
        rows), with ``forms`` also ``.forms`` (N, 3: standard, seven pairs, thirteen orphans),
        the per-row ``status`` and the bad rows in ``errors()`` by index. ``n_melds`` None:
        the server derives each row's called melds from its tile count (13 - 3k or 14 - 3k)."""
        n = len(counts)
        out = np.empty(n, dtype=np.int8)
        form_out = np.empty((n, 3), dtype=np.int8)

        def collect(a: int, b: int, r: Any) -> None:
            out[a:b] = np.frombuffer(r.shanten, dtype=np.int8)
            if forms:
                form_out[a:b, 0] = np.frombuffer(r.standard, dtype=np.int8)
                form_out[a:b, 1] = np.frombuffer(r.chiitoitsu, dtype=np.int8)
                form_out[a:b, 2] = np.frombuffer(r.kokushi, dtype=np.int8)

        errors = self._bulk(
            "StreamShanten", counts, n_melds,
            lambda: self._pb.StreamShantenRequest(per_form=forms, **_rules_field(rules)),
            collect, timeout)
        values = {"shanten": out, "forms": form_out} if forms else {"shanten": out}
        return _batch_result(values, errors)

    def waits(self, counts: np.ndarray, n_melds: np.ndarray | None = None, *,
              rules: Any = None, timeout: float | None = None) -> BatchResult:
        """Waits of 13 - 3k tile rows (StreamWaits), as ``mjcore.batch.waits`` gives them: a
        BatchResult with ``.shanten``, ``.mask`` (uint64 winning tiles, 0 when not tenpai),
        ``.advance_mask`` (the tiles that lower the shanten) and ``.tenpai``; bad rows in
        ``status`` and ``errors()``. ``n_melds`` as for :meth:`shanten`."""
        n = len(counts)
        masks = np.empty(n, dtype=np.uint64)
        advance = np.empty(n, dtype=np.uint64)
        shanten = np.empty(n, dtype=np.int8)

        def collect(a: int, b: int, r: Any) -> None:
            masks[a:b] = np.frombuffer(r.masks, dtype="<u8")
            shanten[a:b] = np.frombuffer(r.shanten, dtype=np.int8)
            advance[a:b] = _advance_masks(r, b - a)

        errors = self._bulk("StreamWaits", counts, n_melds,
                            lambda: self._pb.StreamWaitsRequest(**_rules_field(rules)),
                            collect, timeout)
        return _batch_result({"shanten": shanten, "mask": masks, "advance_mask": advance,
                              "tenpai": shanten == 0}, errors)

    def is_agari(self, counts: np.ndarray, n_melds: np.ndarray | None = None, *,
                 rules: Any = None, timeout: float | None = None) -> BatchResult:
        """Whether each 14 - 3k tile row is complete (StreamAgari), as
        ``mjcore.batch.is_agari`` gives it: a BatchResult with ``.agari`` (bool); bad rows in
        ``status`` and ``errors()``. ``n_melds`` as for :meth:`shanten`."""
        n = len(counts)
        agari = np.empty(n, dtype=np.bool_)

        def collect(a: int, b: int, r: Any) -> None:
            agari[a:b] = np.frombuffer(r.agari, dtype=np.uint8).astype(np.bool_)

        errors = self._bulk("StreamAgari", counts, n_melds,
                            lambda: self._pb.StreamAgariRequest(**_rules_field(rules)),
                            collect, timeout)
        return _batch_result({"agari": agari}, errors)

    def score_batch(self, counts: np.ndarray, win_tile: np.ndarray, *, rules: Any = None,
                    details: bool = True, timeout: float | None = None,
                    **arrays: np.ndarray | None) -> BatchScores:
        """Score N winning hands through StreamScore, as ``mjcore.batch.score`` does: the
        per-hand ``arrays`` of ``mjcore.riichi.batch_scoring.score`` (melds, red, flags,
        seat_wind, round_wind, from_rel, pao_rel, dora, ura, honba, riichi_sticks, kita) in, a
        ``BatchScores`` out (status, han, fu, limit, yakuman, basic, points, yaku_mask,
        dora_ura_aka, deltas, payments, decomposition_index, yaku_han, fu_items, n_fu_items;
        ``as_dict()``), the bad rows in ``status`` and ``errors()``. ``details=False`` leaves
        out yaku_han, fu_items and n_fu_items (a smaller answer)."""
        counts = np.ascontiguousarray(counts, dtype=np.uint8)
        n = counts.shape[0]
        fields = {"win_tile": win_tile, **arrays}
        inputs = layout.SCORE_REQUEST_ARRAYS
        unknown = set(fields) - set(inputs) - set(layout.INDICATOR_ARRAYS)
        if unknown:
            raise TypeError(f"unknown array(s): {', '.join(sorted(unknown))}")
        prepared: dict[str, np.ndarray] = {}
        for name, value in fields.items():
            if value is None:
                continue
            dtype = inputs[name][0] if name in inputs else "u1"
            arr = np.asarray(value)
            if arr.ndim == 0:
                arr = np.full(n, arr)
            if arr.shape[0] != n:
                raise InvalidHandError(f"{name}: {arr.shape[0]} rows for {n} hands",
                                       reason="bad_shape")
            prepared[name] = np.ascontiguousarray(arr, dtype=dtype)
        selection = wire.rule_selection(rules)
        out_specs = dict(layout.SCORE_RESPONSE_ARRAYS)
        if details:
            out_specs.update(layout.SCORE_DETAIL_ARRAYS)
        out = layout.empty(out_specs, n)

        def build(a: int, b: int) -> Any:
            req = self._pb.StreamScoreRequest(rules=selection, details=details)
            packing.encode_into(req.hands, counts[a:b], None, self.encoding)
            for name, arr in prepared.items():
                setattr(req, name, arr[a:b].tobytes())
            for name, width_field in layout.INDICATOR_ARRAYS.items():
                if name in prepared:
                    setattr(req, width_field,
                            prepared[name].shape[1] if prepared[name].ndim > 1 else 1)
            return req

        bounds, requests = self._batches(n, build)

        def collect(a: int, b: int, r: Any) -> None:
            for name, spec in out_specs.items():
                out[name][a:b] = layout.read_rows(getattr(r, name), spec, b - a)

        errors = self._run_streams("StreamScore", requests, bounds, collect, timeout)
        from .riichi.batch_scoring import BatchScores

        out["status"] = out["status"].astype(np.int32)       # as the local kernel's
        scores = BatchScores(out)
        scores.row_detail = _server_detail(errors)
        return scores

    def expected_values_batch(self, counts: np.ndarray, *, turn: int = 1, rules: Any = None,
                              model: str = "consistent", timeout: float | None = None,
                              **arrays: Any) -> dict[str, np.ndarray]:
        """Expected values of N hands through StreamExpectedValues: the arrays and options of
        ``mjcore.batch.expected_values`` (red, melds, visible, visible_red, dora, seat_wind,
        round_wind, kita, discard; t_max, extra, use_red, ura, shanten_down, tegawari,
        max_shanten, max_nodes). Returns the result arrays by name (status, shanten, nodes,
        best_tile, best_tenpai, best_win, best_ev, discard_shanten, discard_tenpai,
        discard_win, discard_ev); bad rows raise BatchError with the others in ``partial``
        (rows past the search's bounds do not: their ``status`` is the ``ev_*`` code)."""
        counts = np.ascontiguousarray(counts, dtype=np.uint8)
        if counts.ndim != 2 or counts.shape[1] != 34:
            raise InvalidHandError(f"counts must have shape (N, 34), not {counts.shape}",
                                   reason="bad_counts")
        n = counts.shape[0]
        # the option "red" is use_red here: "red" is the array of red fives held
        options = {("red" if k == "use_red" else k): arrays.pop(k) for k in list(arrays)
                   if k == "use_red" or (k in _EV_OPTIONS and k != "red")}
        unknown = set(arrays) - set(layout.EV_REQUEST_ARRAYS) - {"dora"}
        if unknown:
            raise TypeError(f"unknown array(s): {', '.join(sorted(unknown))}")
        prepared: dict[str, np.ndarray] = {}
        for name, value in arrays.items():
            if value is None:
                continue
            dtype, shape = layout.EV_REQUEST_ARRAYS.get(name, ("u1", ()))
            arr = np.asarray(value)
            if arr.ndim == 0:
                arr = np.full((n, *shape), arr)
            if name == "dora" and arr.ndim == 1:
                arr = arr[:, None]
            if arr.shape[0] != n:
                raise InvalidHandError(f"{name}: {arr.shape[0]} rows for {n} hands",
                                       reason="bad_shape")
            prepared[name] = np.ascontiguousarray(arr, dtype=dtype)
        ev_options = _ev_options(model, options)
        selection = {} if rules is None else {"rules": wire.rule_selection(rules)}
        out = layout.empty(layout.EV_RESPONSE_ARRAYS, n)

        def build(a: int, b: int) -> Any:
            req = self._pb.StreamExpectedValuesRequest(turn=turn, options=ev_options,
                                                       **selection)
            packing.encode_into(req.hands, counts[a:b], None, self.encoding)
            for name, arr in prepared.items():
                setattr(req, name, arr[a:b].tobytes())
            if "dora" in prepared:
                req.dora_slot_count = prepared["dora"].shape[1]
            return req

        bounds, requests = self._batches(n, build)

        def collect(a: int, b: int, r: Any) -> None:
            for name, spec in layout.EV_RESPONSE_ARRAYS.items():
                out[name][a:b] = layout.read_rows(getattr(r, name), spec, b - a)

        errors = self._run_streams("StreamExpectedValues", requests, bounds, collect, timeout)
        # a row past the search's bounds is an answer (its status says which), not a bad row
        self._raise_bad_rows({i: e for i, e in errors.items() if e.reason not in _EV_BOUNDS},
                             out)
        return out

    def score_classical_batch(self, counts: Any, melds: Any, n_melds: Any, bonus: Any,
                              info: Any, dead_kinds: Any = None, *, rules: Any = "classical",
                              timeout: float | None = None) -> BatchResult:
        """Bulk Chinese classical deal scoring (StreamScoreClassical), as
        ``mjcore.classical.batch.score_deals`` does: its arrays (``pack_deals`` builds them)
        in, a BatchResult with ``score``, ``points``, ``doubles``, ``limit_hand``, ``net`` and
        the per-deal ``status`` out, the bad deals in ``errors()``."""
        arrays = {"counts": counts, "melds": melds, "n_melds": n_melds, "bonus": bonus,
                  "info": info, "dead_kinds": dead_kinds}
        n = int(np.shape(counts)[0]) if np.ndim(counts) else 0
        prepared = {}
        for name, (dtype, shape) in layout.DEAL_REQUEST_ARRAYS.items():
            if arrays[name] is None:
                continue
            arr = np.asarray(arrays[name])
            if arr.shape != (n, *shape):
                raise InvalidHandError(f"{name}: shape {arr.shape}, expected {(n, *shape)}",
                                       reason="bad_shape")
            prepared[name] = np.ascontiguousarray(arr, dtype=dtype)
        selection = wire.rule_selection(rules)

        def build(a: int, b: int) -> Any:
            req = self._pb.StreamScoreClassicalRequest(rules=selection)
            for name, arr in prepared.items():
                setattr(req, name, arr[a:b].tobytes())
            return req

        bounds, requests = self._batches(n, build)
        out = layout.empty(layout.DEAL_RESPONSE_ARRAYS, n)

        def collect(a: int, b: int, r: Any) -> None:
            for name, spec in layout.DEAL_RESPONSE_ARRAYS.items():
                out[name][a:b] = layout.read_rows(getattr(r, name), spec, b - a)

        errors = self._run_streams("StreamScoreClassical", requests, bounds, collect, timeout)
        from .batch import BatchResult

        status = out.pop("status")
        return BatchResult(status, out, row_detail=_server_detail(errors))

    def _text_rows(self, rpc: str, make_request: Callable[[], Any],
                   source: str | os.PathLike[str] | bytes | Iterable[str],
                   columns: dict[str, tuple[Any, str]], timeout: float | None
                   ) -> tuple[dict[str, np.ndarray], dict[int, InvalidHandError]]:
        """Stream text hands (one per line) through ``rpc``; the server parses them. The
        answer ``columns`` (name: dtype and response field) of every line and the bad lines'
        errors."""
        if isinstance(source, bytes):
            lines = source.decode("utf-8").split("\n")
        elif isinstance(source, (str, os.PathLike)):
            lines = Path(source).read_text(encoding="utf-8").split("\n")
        else:
            lines = [line.rstrip("\n") for line in source]
        if isinstance(source, (bytes, str, os.PathLike)) and lines and lines[-1] == "":
            lines.pop()
        lines = [line.rstrip("\r") for line in lines]
        n = len(lines)

        def build(a: int, b: int) -> Any:
            request = make_request()
            request.hands.encoding = packing.TEXT_LINES
            request.hands.data = "\n".join(lines[a:b]).encode("utf-8") + b"\n"
            return request

        bounds, requests = self._batches(n, build)
        out = {name: np.empty(n, dtype=dtype) for name, (dtype, _) in columns.items()}

        def collect(a: int, b: int, r: Any) -> None:
            for name, (_, wire_field) in columns.items():
                out[name][a:b] = _response_column(r, wire_field, b - a)

        return out, self._run_streams(rpc, requests, bounds, collect, timeout)

    def shanten_text(self, source: str | os.PathLike[str] | bytes | Iterable[str], *,
                     rules: Any = None, timeout: float | None = None) -> BatchResult:
        """Shanten of text hands, one closed hand per line (a path, bytes, or an iterable of
        lines), as ``mjcore.batch.shanten_text`` gives it: a BatchResult with ``.shanten``
        (int8), the per-row ``status`` and the bad lines in ``errors()`` by line index
        (0-based; the server's messages). ``rules`` as for ``shanten``."""
        out, errors = self._text_rows(
            "StreamShanten", lambda: self._pb.StreamShantenRequest(**_rules_field(rules)),
            source, {"shanten": (np.int8, "shanten")}, timeout)
        return _batch_result(out, errors)

    def waits_text(self, source: str | os.PathLike[str] | bytes | Iterable[str], *,
                   rules: Any = None, timeout: float | None = None) -> BatchResult:
        """Waits of 13-tile text hands, one per line: a BatchResult with ``.mask`` (uint64
        winning tiles), ``.shanten``, ``.advance_mask`` and ``.tenpai`` as
        ``mjcore.batch.waits`` gives them for the lines' counts, the bad lines in ``status``
        and ``errors()`` by line index."""
        out, errors = self._text_rows(
            "StreamWaits", lambda: self._pb.StreamWaitsRequest(**_rules_field(rules)), source,
            {"mask": (np.uint64, "masks"), "shanten": (np.int8, "shanten"),
             "advance_mask": (np.uint64, "advance_masks")}, timeout)
        out["tenpai"] = out["shanten"] == 0
        return _batch_result(out, errors)

    def is_agari_text(self, source: str | os.PathLike[str] | bytes | Iterable[str], *,
                      rules: Any = None, timeout: float | None = None) -> BatchResult:
        """Whether each 14-tile text hand (one per line) is complete: a BatchResult with
        ``.agari`` (bool), the bad lines in ``status`` and ``errors()`` by line index."""
        out, errors = self._text_rows(
            "StreamAgari", lambda: self._pb.StreamAgariRequest(**_rules_field(rules)), source,
            {"agari": (np.bool_, "agari")}, timeout)
        return _batch_result(out, errors)


_EV_BOUNDS = ("ev_shanten_too_high", "ev_node_budget", "ev_deadline", "ev_out_of_memory")
_EV_OPTIONS = {"t_max": "max_turn", "extra": "extra", "red": "red", "ura": "ura",
               "shanten_down": "shanten_down", "tegawari": "tegawari",
               "max_shanten": "max_shanten", "max_nodes": "max_node_count"}


def _ev_options(model: str, options: dict[str, Any]) -> Any:
    """ExpectedValueOptions of the library's keyword options (None: unset)."""
    if model not in wire.EV_MODEL_OF_NAME:
        raise InvalidHandError(f"option model={model!r}: expected one of "
                               f"{', '.join(wire.EV_MODEL_OF_NAME)}", reason="ev_bad_option")
    unknown = set(options) - set(_EV_OPTIONS)
    if unknown:
        raise TypeError(f"unknown option(s): {', '.join(sorted(unknown))}")
    return pb.ExpectedValueOptions(model=wire.EV_MODEL_OF_NAME[model],
                                   **{_EV_OPTIONS[k]: v for k, v in options.items()
                                      if v is not None})


def _rules_field(rules: Any) -> dict[str, Any]:
    """The ``rules`` keyword of an analysis request: nothing for riichi (None), so riichi
    requests stay as they were."""
    return {} if rules is None else {"rules": wire.rule_selection(rules)}


# the wire type of each per-row bytes field of the analysis streams' responses
_RESPONSE_DTYPES: dict[str, Any] = {"shanten": np.int8, "standard": np.int8, "chiitoitsu": np.int8,
                                    "kokushi": np.int8, "masks": np.dtype("<u8"),
                                    "advance_masks": np.dtype("<u8"), "agari": np.uint8}


def _response_column(response: Any, wire_field: str, rows: int) -> np.ndarray:
    """Per-row field ``wire_field`` of a stream response as an array of ``rows`` values; a
    server that does not send it (older than the field) is a ServiceError naming it."""
    data = getattr(response, wire_field)
    if rows and not data:
        raise ServiceError(f"the server's answer has no {wire_field} (a server older than "
                           "this client)", reason="missing_field")
    column: np.ndarray = np.frombuffer(data, dtype=_RESPONSE_DTYPES[wire_field])
    return column


def _advance_masks(response: Any, rows: int) -> np.ndarray:
    """The advancing-tile masks of a StreamWaits response."""
    return _response_column(response, "advance_masks", rows)


_ROW_PREFIX = "row "


def _server_detail(errors: dict[int, InvalidHandError]) -> Callable[[int, int], str | None]:
    """``row_detail`` of a result answered by the server: its message for each bad row
    (a "row N: " prefix, which an older server sends chunk-relative, dropped)."""
    messages: dict[int, str] = {}
    for i, err in errors.items():
        text = str(err)
        messages[i] = text.split(": ", 1)[-1] if text.startswith(_ROW_PREFIX) else text
    return lambda row, _code: messages.get(row)


def _batch_result(values: dict[str, np.ndarray], errors: dict[int, InvalidHandError]
                  ) -> BatchResult:
    """A BatchResult of the server's answer: ``status`` 0 but for the bad rows (the status
    code of each one's reason), ``errors()`` with the server's messages."""
    from .batch import BatchResult
    from .status import code_of

    n = len(next(iter(values.values())))
    status = np.zeros(n, dtype=np.int8)
    for i, err in errors.items():
        status[i] = code_of(err.reason)
    return BatchResult(status, values, row_detail=_server_detail(errors))
