"""The web analyser's ASGI app: the page (static files of the package) and the JSON API.

Endpoints (``/api/v1/...``, POST with a JSON object unless said): ``analyze``
(AnalyzeHandRequest), ``decompose``, ``score`` (ScoreRequest), ``score_classical``
(ScoreClassicalDealRequest), ``presets`` (GET), ``ev`` (ExpectedValuesRequest, in the
servicer's expected-value pool) and ``review`` (a game record). ``/api/v1/openapi.json``
describes them. The limits (body size, JSON depth and values, calls in progress, time per
call, a slow body) and the optional bearer token are ``WebConfig``'s.
"""
from __future__ import annotations

import asyncio
import json
import logging
import math
import re
import time
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from .errors import ApiError, bad_request

log = logging.getLogger("mjcore.web")


@dataclass
class WebConfig:
    """``host``/``port``: where to listen (loopback by default; port 0 picks a free one);
    ``token``: the bearer token the API needs (None: open); ``max_body``/``max_review_body``:
    bytes of a request body; ``max_depth``/``max_values``: JSON nesting and values;
    ``max_in_flight``: calls being computed at once (beyond: 503 with Retry-After at once);
    ``max_in_flight_per_host``: those of one client host (beyond: 429 with Retry-After; a
    quarter of the whole, as the gRPC service's ``max_calls_per_peer`` 256 of its
    ``max_concurrent_calls`` 1024; larger than ``max_in_flight`` it is the whole);
    ``workers``: threads computing them; ``call_seconds``/``review_seconds``: the time a call
    may take; ``ev_seconds``, ``ev_workers``, ``ev_queue``, ``ev_max_nodes``: the bounds of
    the servicer's expected-value pool (as ``mjcore serve --ev-*``); ``body_seconds``: the
    time a client may take to send its body, ``header_seconds`` its request head;
    ``max_connections``: open connections."""

    host: str = "127.0.0.1"
    port: int = 8080
    token: str | None = None
    max_body: int = 64 * 1024
    max_review_body: int = 4 * 1024 * 1024
    max_depth: int = 16
    max_values: int = 2000
    max_in_flight: int = 8
    max_in_flight_per_host: int = 2
    workers: int = 2
    call_seconds: float = 10.0
    ev_seconds: float = 5.0
    ev_workers: int = 2
    ev_queue: int = 8
    ev_max_nodes: int = 2_000_000
    review_seconds: float = 60.0
    body_seconds: float = 10.0
    header_seconds: float = 10.0
    max_connections: int = 256
    extra: dict[str, Any] = field(default_factory=dict)


_STRINGS = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)
_BRACKETS = re.compile(rb"[\[\]{}]")


def json_depth(body: bytes) -> int:
    """The deepest nesting of a JSON text, strings skipped (checked before parsing it)."""
    depth = deepest = 0
    for m in _BRACKETS.finditer(_STRINGS.sub(b"", body)):
        if m.group() in (b"[", b"{"):
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def _count_values(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + sum(_count_values(v) for v in value.values()) + len(value)
    if isinstance(value, list):
        return 1 + sum(_count_values(v) for v in value)
    return 1


class Api:
    """The handlers and the state they share (the bridge, the slots in progress)."""

    def __init__(self, config: WebConfig) -> None:
        from .bridge import Bridge

        self.config = config
        self.bridge = Bridge({"ev_workers": config.ev_workers, "ev_queue": config.ev_queue,
                              "ev_max_seconds": config.ev_seconds,
                              "ev_max_nodes": config.ev_max_nodes})
        self.in_flight = 0
        self.in_flight_by_host: dict[str, int] = {}
        self.refused = 0
        self.answered = 0
        self._expected: bytes | None = None
        if config.token is not None:
            from mjcore.service.auth import bearer

            self._expected = bearer(config.token)
        import anyio

        self.limiter = anyio.CapacityLimiter(config.workers)

    # -- the common path ------------------------------------------------------------------------

    def _check_token(self, request: Request) -> None:
        from mjcore.service.auth import denial

        given = [v for k, v in request.headers.raw if k == b"authorization"]
        why = denial(given, self._expected)
        if why is not None:
            raise ApiError("UNAUTHENTICATED", why, "UNAUTHENTICATED",
                           headers={"WWW-Authenticate": "Bearer"})

    async def _body(self, request: Request, limit: int) -> dict[str, Any]:
        """The JSON object of the body: at most ``limit`` bytes, sent within body_seconds,
        at most max_depth deep and max_values values."""
        declared = request.headers.get("content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > limit):
            raise ApiError("INVALID_ARGUMENT", f"body: {declared} bytes, at most {limit} "
                           "allowed", "BODY_TOO_LARGE", http=413, limit=limit)
        chunks: list[bytes] = []
        size = 0
        try:
            async with asyncio.timeout(self.config.body_seconds):
                async for chunk in request.stream():
                    size += len(chunk)
                    if size > limit:
                        raise ApiError("INVALID_ARGUMENT", f"body: more than {limit} bytes",
                                       "BODY_TOO_LARGE", http=413, limit=limit)
                    chunks.append(chunk)
        except TimeoutError:
            raise ApiError("DEADLINE_EXCEEDED", f"body: not received within "
                           f"{self.config.body_seconds:g} s", "BODY_TIMEOUT", http=408,
                           headers={"Connection": "close"}) from None
        raw = b"".join(chunks)
        if not raw.strip():
            return {}
        depth = json_depth(raw)
        if depth > self.config.max_depth:
            raise bad_request(f"body: JSON nested {depth} deep, at most "
                              f"{self.config.max_depth} allowed", "JSON_TOO_DEEP",
                              limit=self.config.max_depth)
        try:
            value = json.loads(raw)
        except (ValueError, RecursionError) as err:
            raise bad_request(f"body: not JSON ({err})", "BAD_JSON") from None
        if not isinstance(value, dict):
            raise bad_request(f"body: expected a JSON object, got a JSON "
                              f"{type(value).__name__}", "BAD_JSON")
        n = _count_values(value)
        if n > self.config.max_values:
            raise bad_request(f"body: {n} JSON values, at most {self.config.max_values} "
                              "allowed", "TOO_MANY_VALUES", limit=self.config.max_values)
        return value

    async def _run(self, work: Any, host: str, *args: Any) -> Any:
        """``work(*args)`` on a worker thread, holding one of the max_in_flight slots (none
        free: 503 at once, not a queue) and one of ``host``'s max_in_flight_per_host (none
        free: 429 at once)."""
        import anyio

        if self.in_flight >= self.config.max_in_flight:
            self.refused += 1
            raise ApiError("UNAVAILABLE", "the server is busy: try again shortly",
                           "OVERLOADED", headers={"Retry-After": "1"})
        share = min(self.config.max_in_flight_per_host, self.config.max_in_flight)
        mine = self.in_flight_by_host.get(host, 0)
        if mine >= share:
            self.refused += 1
            raise ApiError("RESOURCE_EXHAUSTED", f"{share} calls from this client are in "
                           "progress already (max_in_flight_per_host)", "TOO_MANY_CALLS",
                           headers={"Retry-After": "1"}, limit=share)
        self.in_flight += 1
        self.in_flight_by_host[host] = mine + 1
        try:
            return await anyio.to_thread.run_sync(work, *args, limiter=self.limiter)
        finally:
            self.in_flight -= 1
            left = self.in_flight_by_host[host] - 1
            if left:
                self.in_flight_by_host[host] = left
            else:
                del self.in_flight_by_host[host]

    async def handle(self, request: Request, work: Any, limit: int | None = None) -> Response:
        """Token, body, a slot, ``work(body)`` on a worker thread; its JSON or the error."""
        try:
            self._check_token(request)
            body = await self._body(request, limit or self.config.max_body) \
                if request.method == "POST" else {}
            answer = await self._run(work, client_host(request), body)
            self.answered += 1
            return JSONResponse(_finite(answer))
        except ApiError as err:
            return error_response(err)

    # -- the endpoints --------------------------------------------------------------------------

    def _unary(self, method: str) -> Any:
        seconds = self.config.call_seconds

        def work(body: dict[str, Any]) -> dict[str, Any]:
            return self.bridge.call(method, body, seconds)

        async def endpoint(request: Request) -> Response:
            return await self.handle(request, work)
        return endpoint

    def ev_work(self, body: dict[str, Any]) -> dict[str, Any]:
        """The ``ev`` endpoint's answer (worker thread): the servicer's ExpectedValues in its
        pool, as the gRPC service answers it."""
        return self.bridge.call_in_pool("ExpectedValues", body, self.config.ev_seconds)

    def review_work(self, body: dict[str, Any]) -> dict[str, Any]:
        """The ``review`` endpoint's answer (worker thread)."""
        from .ev import review_call

        return review_call(body, self.config.review_seconds)

    async def ev(self, request: Request) -> Response:
        """POST /api/v1/ev."""
        return await self.handle(request, self.ev_work)

    async def review(self, request: Request) -> Response:
        """POST /api/v1/review (its body may be --max-review-body)."""
        return await self.handle(request, self.review_work, self.config.max_review_body)

    async def health(self, request: Request) -> Response:
        """GET /api/v1/health: serving, with the calls in flight, refused and answered."""
        return JSONResponse({"status": "SERVING", "in_flight": self.in_flight,
                             "refused": self.refused, "answered": self.answered})

    async def openapi(self, request: Request) -> Response:
        """GET /api/v1/openapi.json."""
        from .openapi import schema

        return JSONResponse(schema())


def client_host(request: Request) -> str:
    """The client host of a request, keyed as the gRPC service keys its peers
    (``mjcore.service.limits.peer_host``: an IPv6 client is its /64, a Unix socket one host)."""
    from mjcore.service.limits import peer_host

    client = request.client
    if client is None:
        return "unix"
    host = client.host
    key: str = peer_host(f"ipv6:[{host}]:{client.port}" if ":" in host
                         else f"ipv4:{host}:{client.port}")
    return key


def error_response(err: ApiError) -> Response:
    """The HTTP answer of ``err``."""
    return JSONResponse(err.body(), status_code=err.http, headers=err.headers)


def _finite(value: Any) -> Any:
    """JSON has no NaN: a float that is not finite becomes null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


async def _not_found(request: Request, exc: Exception) -> Response:
    code = getattr(exc, "status_code", 500)
    if code == 404:
        err = ApiError("NOT_FOUND", f"{request.url.path}: no such page or endpoint",
                       "NOT_FOUND")
    elif code == 405:
        err = ApiError("INVALID_ARGUMENT", f"{request.method} {request.url.path}: method not "
                       "allowed", "METHOD_NOT_ALLOWED", http=405)
    else:
        log.error("%s %s failed: %s", request.method, request.url.path, exc)
        err = ApiError("INTERNAL", "internal error", "INTERNAL")
    return error_response(err)


def create_app(config: WebConfig | None = None) -> Starlette:
    """The ASGI app of ``config`` (the page at ``/``, the API under ``/api/v1``)."""
    config = config or WebConfig()
    api = Api(config)
    static = resources.files("mjcore.web") / "static"
    index = (static / "index.html").read_bytes()

    async def page(request: Request) -> Response:
        return Response(index, media_type="text/html; charset=utf-8",
                        headers={"Cache-Control": "no-cache"})

    async def cjk_font(request: Request) -> Response:
        """Noto Sans CJK JP (OFL, the ``noto-cjk-sans-jp-regular`` package of the web extra)
        for the players' names; the page asks for it only for CJK text (unicode-range)."""
        try:
            import noto_cjk_sans_jp_regular as noto
        except ImportError:
            raise HTTPException(404) from None
        return FileResponse(str(noto.FONT_PATH), media_type="font/otf",
                            headers={"Cache-Control": "max-age=86400"})

    routes = [
        Route("/", page),
        Route("/fonts/cjk.otf", cjk_font),
        Route("/api/v1/health", api.health),
        Route("/api/v1/openapi.json", api.openapi),
        Route("/api/v1/analyze", api._unary("AnalyzeHand"), methods=["POST"]),
        Route("/api/v1/decompose", api._unary("Decompose"), methods=["POST"]),
        Route("/api/v1/score", api._unary("Score"), methods=["POST"]),
        Route("/api/v1/score_classical", api._unary("ScoreClassicalDeal"), methods=["POST"]),
        Route("/api/v1/presets", api._unary("ListRulePresets"), methods=["GET"]),
        Route("/api/v1/ev", api.ev, methods=["POST"]),
        Route("/api/v1/review", api.review, methods=["POST"]),
        Mount("/static", StaticFiles(directory=str(static)), name="static"),
    ]
    from starlette.middleware import Middleware
    from starlette.middleware.gzip import GZipMiddleware

    # a review's steps are ~1 MB of JSON: gzip makes it a tenth of that
    app = Starlette(routes=routes, exception_handlers={404: _not_found, 405: _not_found,
                                                       500: _not_found},
                    middleware=[Middleware(GZipMiddleware, minimum_size=4096)])
    app.state.api = api
    return app


# -- the server: uvicorn, with a deadline on each request head (slowloris) -------------------

def _busy_answer() -> bytes:
    body = json.dumps(ApiError("UNAVAILABLE", "the server has too many connections: try again "
                               "shortly", "OVERLOADED").body()).encode()
    return (b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\n"
            b"Content-Type: application/json\r\nConnection: close\r\n"
            b"Content-Length: %d\r\n\r\n%s" % (len(body), body))


def _guarded_protocol(header_seconds: float, max_connections: int) -> Any:
    from uvicorn.protocols.http.h11_impl import H11Protocol

    busy = _busy_answer()

    class GuardedH11(H11Protocol):
        """uvicorn's HTTP/1.1, closing a connection whose request head takes longer than
        ``header_seconds`` (uvicorn times out only idle keep-alive connections), and answering
        a connection past ``max_connections`` 503 with Retry-After at once."""

        _head_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            if len(self.connections) > max_connections:
                transport.write(busy)
                transport.close()
                return
            self._arm()

        def _arm(self) -> None:
            if self._head_timer is None:
                self._head_timer = self.loop.call_later(header_seconds, self._head_late)

        def _head_late(self) -> None:
            self._head_timer = None
            if self.cycle is None or self.cycle.response_complete:
                self.transport.close()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.cycle is not None and not self.cycle.response_complete:
                if self._head_timer is not None:
                    self._head_timer.cancel()
                    self._head_timer = None
            else:
                self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None
            super().connection_lost(exc)

    return GuardedH11


def server(config: WebConfig) -> Any:
    """A ``uvicorn.Server`` for ``config`` (``await server.serve()`` or ``server.run()``)."""
    import uvicorn

    uv = uvicorn.Config(create_app(config), host=config.host, port=config.port,
                        http=_guarded_protocol(config.header_seconds,
                                               config.max_connections),
                        lifespan="off", timeout_keep_alive=5,
                        log_level="warning", access_log=False, server_header=False)
    return uvicorn.Server(uv)


def started_port(srv: Any) -> int:
    """The port a started ``uvicorn.Server`` listens on."""
    for s in srv.servers:
        for sock in s.sockets:
            return int(sock.getsockname()[1])
    raise RuntimeError("server not started")


def wait_started(srv: Any, timeout: float = 10.0) -> int:
    """Wait (in another thread than the server's) until it listens; its port."""
    end = time.monotonic() + timeout
    while not srv.started:
        if time.monotonic() > end:
            raise RuntimeError("the web server did not start")
        time.sleep(0.01)
    return started_port(srv)
