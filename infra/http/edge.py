"""The one middleware of every HTTP service: what each request passes through between
Litestar's routing and its handler, in this order:

1. its id and context (infra/observability/context.py): the client's X-Request-ID or a new one, bound with
   the route's game id for every log line of the request and returned on the response; a
   server span when tracing is on (infra/observability/tracing.py), the caller's trace its parent;
2. its timing (infra/observability/metrics.py): one observation per request, by route template, method and
   status, at the response's headers (500 when the handler raised);
3. the rate limits (infra/http/ratelimit.py): 429 `rate_limited` over the limit, RateLimit-*
   headers always; not for the probes, the metrics or the web client's files;
4. the bearer, for a route that takes a token (`security=`): 401 with the token's fault
   before anything else of the request is read, its body included (infra/http/common.py; the
   handler's own `authenticate` then finds the bearer admitted, with no second check);
5. the bounds on the body (infra/http/guards.py): 413 `payload_too_large`, 400 `too_deep`;
6. OPTIONS: `Allow` with every method of the path (infra/http/common.py);
7. the route's fast path when it has one (infra/http/fastpath.py), else the route;
8. a request still running when the server stops (uvicorn cancels what is left after its
   graceful shutdown's wait, 5 s): not a 500 and a traceback, but a 503 `service_unavailable`
   with Retry-After, which a client asks again (another replica, in a rolling upgrade), or
   for a stream already under way its end, from which a client resumes it.

They were five Litestar middlewares, each a layer with its own checks and its own wrapper of
`send`. As one, with the rate limiter's subject remembered per token and per address, they
cost a third as much: `python -m tests.bench.edge_cost` (direct ASGI calls) reads 0.18 ms of
CPU per cycle of GET, GET, POST above Litestar's own 0.21 on a slow 2-core machine, where the
five, measured the same way before they went, cost 0.55-0.62; and the game service's CPU per
action cycle under load fell to 0.79x (tests/bench/compare_actions.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send
from litestar.utils.scope.state import ScopeState
from opentelemetry.trace import Span, SpanKind

from contracts.problems import ProblemError
from infra.auth.tokens import Tokens
from infra.http.common import admitted, allow_of, authorization_of, takes_token
from infra.http.fastpath import FastRoute
from infra.http.guards import DEFAULTS, guard_body, send_problem
from infra.http.ratelimit import RateLimiter, exempt, route_class
from infra.observability import context, tracing
from infra.observability.metrics import observe_request
from infra.settings import Settings

log = logging.getLogger(__name__)
_REPLACED = frozenset((b"x-request-id",))
_REPLACED_ON_OPTIONS = frozenset((b"x-request-id", b"allow"))


class Edge:
    """Litestar calls it with the route's app (`middleware=[Edge]`); HTTP only."""

    calls_fast_paths = True  # what infra/http/fastpath.py looks for: a route's fast path runs here

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        header = None
        parent: dict[str, str] | None = None  # a caller's trace context (W3C), when tracing
        for name, value in scope["headers"]:
            if name == b"x-request-id":
                header = value.decode("latin-1")
            elif name in (b"traceparent", b"tracestate"):
                parent = parent or {}
                parent[name.decode()] = value.decode("latin-1")
        request_id = context.request_id_of(header)
        game_id = (scope.get("path_params") or {}).get("game_id")
        method = str(scope.get("method", "GET"))
        route = scope.get("path_template") or "unmatched"
        with context.bind(request_id=request_id, game_id=str(game_id) if game_id else None):
            if not tracing.enabled():  # no span to open: not even the context manager
                await self._serve(scope, receive, send, start, request_id, method, route, None)
                return
            with tracing.span(
                f"{method} {route}",
                parent,
                SpanKind.SERVER,
                request_id=request_id,
                game_id=game_id,
            ) as server:
                if server is not None:
                    server.set_attribute("http.request.method", method)
                    server.set_attribute("http.route", route)
                await self._serve(scope, receive, send, start, request_id, method, route, server)

    async def _serve(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        start: float,
        request_id: str,
        method: str,
        route: str,
        server: Span | None,
    ) -> None:
        added: list[tuple[bytes, bytes]] = []  # rate-limit headers, then Allow
        replaced = _REPLACED
        observed = False

        async def respond(message: Message) -> None:
            nonlocal observed
            if message["type"] == "http.response.start":
                status = message["status"]
                if not observed:
                    observed = True
                    observe_request(method, route, status, time.perf_counter() - start)
                if server is not None:
                    server.set_attribute("http.response.status_code", status)
                headers = [
                    (k, v) for k, v in message.get("headers", ()) if k.lower() not in replaced
                ]
                headers += added
                headers.append((b"x-request-id", request_id.encode()))
                message = {**message, "headers": headers}
                # what Litestar's exception middleware reads, which FastFront does not wrap
                # `send` in: an exception after this is not answered with a second response
                ScopeState.from_scope(scope).response_started = True
            await send(message)

        try:
            state = scope["litestar_app"].state
            limiter: RateLimiter | None = state.get("rate_limiter")
            if limiter is not None and not exempt(scope["path"]):
                kind = route_class(method, scope.get("path_template") or scope["path"])
                decision = await limiter.check(kind, scope)
                if decision is not None:
                    added += decision.headers()
                    if not decision.allowed:
                        await send_problem(scope, respond, decision.refusal(kind))
                        return
            tokens: Tokens | None = state.get("tokens")
            if tokens is not None and takes_token(scope):
                try:
                    await admitted(tokens, authorization_of(scope), scope)
                except ProblemError as refused:  # 401: nothing else of the request is read
                    await send_problem(scope, respond, refused)
                    return
            settings: Settings = state.get("settings") or DEFAULTS
            guarded = await guard_body(scope, receive, settings)
            if guarded is None:
                return  # the client is gone: nobody to answer
            if isinstance(guarded, ProblemError):
                await send_problem(scope, respond, guarded)
                return
            if method == "OPTIONS" and (allow := allow_of(scope)):
                replaced = _REPLACED_ON_OPTIONS
                added.append((b"allow", allow.encode()))
            fast: FastRoute | None = None
            if settings.fast_routes and (handler := scope.get("route_handler")) is not None:
                fast = handler.opt.get("fast")
            if fast is not None:
                await fast(scope, guarded, respond, self.app)  # infra/http/fastpath.py
            else:
                await self.app(scope, guarded, respond)
        except asyncio.CancelledError:
            # Only the server cancels a request's own task: it is stopping, and this request
            # outlived its graceful shutdown (a long-poll, a stream). Answered, the task ends
            # here, as uvicorn wants it to; re-raised, uvicorn would answer 500 and log it.
            log.warning("the server is stopping: %s %s cut short", method, scope["path"])
            with contextlib.suppress(Exception):
                if not observed:
                    added.append((b"retry-after", b"1"))
                    stopping = ProblemError(503, "service_unavailable", "this server is stopping")
                    await send_problem(scope, respond, stopping)
                else:
                    await send({"type": "http.response.body", "body": b"", "more_body": False})
        except BaseException:
            if not observed:
                observed = True
                observe_request(method, route, 500, time.perf_counter() - start)
            raise
