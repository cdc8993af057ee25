"""Litestar pieces every service shares: problem details for every error, bearer auth."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import Any, TypeVar

import asyncpg
import msgspec
from litestar import Request, Response
from litestar.config.cors import CORSConfig
from litestar.exceptions import HTTPException, ValidationException
from litestar.handlers import HTTPRouteHandler
from litestar.types import Scope

from contracts.problems import PROBLEM_CONTENT_TYPE, ProblemError
from infra.auth.bearer import InvalidToken, Principal
from infra.auth.tokens import Held, Tokens
from infra.servers.errors import is_transient
from infra.settings import Settings, from_env

log = logging.getLogger(__name__)
DEFAULT_SETTINGS = Settings()
T = TypeVar("T")

_HTTP_CODES = {
    400: "malformed_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "payload_too_large",
    415: "unsupported_media_type",
    429: "rate_limited",
    503: "service_unavailable",
}


def problem_response(exc: ProblemError, request: Request[Any, Any, Any]) -> Response[bytes]:
    body = msgspec.json.encode(exc.problem(instance=str(request.url.path)))
    response = Response(body, status_code=exc.status, media_type=PROBLEM_CONTENT_TYPE)
    if exc.status == 503:  # this process cannot answer now: ask again (another replica)
        response.headers["Retry-After"] = "1"
    return response


def on_problem(request: Request[Any, Any, Any], exc: ProblemError) -> Response[bytes]:
    return problem_response(exc, request)


def on_http_error(request: Request[Any, Any, Any], exc: HTTPException) -> Response[bytes]:
    status = exc.status_code
    code = _HTTP_CODES.get(status, "http_error")
    extra: dict[str, Any] = {}
    if isinstance(exc, ValidationException) and isinstance(exc.extra, list):
        extra["errors"] = [e if isinstance(e, dict) else {"message": str(e)} for e in exc.extra]
    response = problem_response(ProblemError(status, code, str(exc.detail), **extra), request)
    response.headers.update(exc.headers or {})  # e.g. Allow on a 405
    return response


def on_unexpected(request: Request[Any, Any, Any], exc: Exception) -> Response[bytes]:
    if is_transient(exc):  # Postgres or Redis away or too slow: a drained pool's acquire
        log.warning("unavailable on %s %s: %r", request.method, request.url.path, exc)
        busy = ProblemError(503, "service_unavailable", "a backing service is unavailable")
        response = problem_response(busy, request)
        response.headers["Retry-After"] = "1"
        return response
    log.exception("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    error = ProblemError(500, "internal_error", "an unexpected error occurred; it has been logged")
    return problem_response(error, request)


def on_data_error(request: Request[Any, Any, Any], exc: Exception) -> Response[bytes]:
    # Postgres class 22 (a NUL in a string, a number out of range...): the input was bad.
    # The driver's text names the statement's arguments and the server's internals: logged,
    # not sent. What a client can change is said instead.
    log.info("rejected a value Postgres cannot store on %s: %s", request.url.path, exc)
    error = ProblemError(
        400,
        "malformed_request",
        "a value in the request cannot be stored (a NUL character, a lone surrogate, a number"
        " or a time out of range)",
    )
    return problem_response(error, request)


EXCEPTION_HANDLERS: dict[Any, Any] = {
    ProblemError: on_problem,
    asyncpg.DataError: on_data_error,
    HTTPException: on_http_error,
    Exception: on_unexpected,
}


async def authenticate(request: Request[Any, Any, Any]) -> Principal:
    """The caller, admitted by the app's `Tokens`: signed by a key held here, not ended."""
    return await admitted(
        request.app.state.tokens, request.headers.get("authorization"), request.scope
    )


# The request's scope remembers whom it admitted (infra/http/edge.py admits the bearer of every
# route that takes a token before anything else; the handler then asks again, for free).
ADMITTED = "turnpost.admitted"


async def admitted(tokens: Tokens, authorization: str | None, scope: Any = None) -> Principal:
    """The bearer of an Authorization header's token, or 401 with the token's fault;
    `scope`: the request's, where the rate limiter may have verified the token already and
    Edge admitted it (the same header by the same `tokens`: answered without asking again)."""
    if scope is not None:
        seen = scope.get(ADMITTED)
        if seen is not None and seen[0] is tokens and seen[1] == authorization:
            who: Principal = seen[2]
            return who
    try:
        who = await tokens.admit(authorization, scope)
    except InvalidToken as exc:
        raise ProblemError(401, exc.code, str(exc)) from exc
    if scope is not None:
        scope[ADMITTED] = (tokens, authorization, who)
    return who


def check_every(settings: Settings | None) -> float:
    """How often what a token opens that lasts checks it again (infra.auth.tokens.Held): half the
    game service's TOKEN_CHECK_TTL_S, so it ends within the TTL of its token's end."""
    return max(0.05, (settings or DEFAULT_SETTINGS).token_check_ttl_s / 2)


async def holding(request: Request[Any, Any, Any]) -> Held:
    """The caller's token, admitted (401 otherwise) and held for what the request opens that
    lasts: a stream or a long-poll checks it again while it runs (`Held`)."""
    tokens: Tokens = request.app.state.tokens
    every = check_every(request.app.state.get("settings"))
    try:
        return await tokens.hold(request.headers.get("authorization"), request.scope, every)
    except InvalidToken as exc:
        raise ProblemError(401, exc.code, str(exc)) from exc


async def while_held(held: Held, work: Awaitable[T]) -> T:
    """What `work` (a long-poll) gives, or the 401 a request with the token would get once it
    ends meanwhile (found within the token-check TTL; the work is cancelled)."""
    try:
        return await held.during(work)
    except InvalidToken as exc:
        raise ProblemError(401, exc.code, str(exc)) from exc


def authorization_of(scope: Scope) -> str | None:
    """The request's Authorization header (latin-1), None without one. Several are refused
    (400): whose request it is must not hang on which one a reader takes (RFC 6750's
    invalid_request: more than one way of carrying a token)."""
    found: bytes | None = None
    for name, value in scope["headers"]:
        if name == b"authorization":
            if found is not None:
                raise ProblemError(
                    400, "malformed_request", "a request carries one Authorization header"
                )
            found = value
    return None if found is None else found.decode("latin-1")


def takes_token(scope: Scope) -> bool:
    """Whether the request's route takes a bearer token: it declares one (`security=`, what
    its OpenAPI operation says). OPTIONS never does (CORS preflights, Allow)."""
    handler = scope.get("route_handler")
    return (
        isinstance(handler, HTTPRouteHandler)
        and scope.get("method") != "OPTIONS"
        and bool(handler.resolve_security())
    )


def decode_body(raw: bytes, type_: Any) -> Any:
    """Decode a JSON body strictly, as JSON Schema reads it: JSON's own types (no 0 for
    false, no "2" for 2), where a number with no fraction is an integer (9.0 is 9).
    Every failure is a 400 that says what was wrong."""
    if not raw:
        raise ProblemError(400, "malformed_request", "a JSON body is required")
    try:
        return msgspec.convert(_whole_numbers(msgspec.json.decode(raw)), type_, strict=True)
    except msgspec.ValidationError as exc:
        raise ProblemError(400, "malformed_request", f"invalid body: {exc}") from exc
    except msgspec.DecodeError as exc:
        raise ProblemError(400, "malformed_request", f"body is not valid JSON: {exc}") from exc


def _whole_numbers(value: Any) -> Any:
    """Floats with no fraction as ints, everywhere in a decoded JSON value (a float field
    still takes an int)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_whole_numbers(v) for v in value]
    if isinstance(value, dict):
        return {k: _whole_numbers(v) for k, v in value.items()}
    return value


async def strictly(request: Request[Any, Any, Any], data: T) -> T:
    """The body again, decoded strictly. Litestar converts a handler's body laxly (JSON 0 is
    false, "2" is 2); the API's contract is JSON's own types, so what only the lax conversion
    accepts is a 400 `malformed_request` like any other malformed body."""
    if data is None:
        return data
    decoded: T = decode_body(await request.body(), type(data))
    return decoded


def check_background(request: Request[Any, Any, Any]) -> dict[str, str]:
    """Health: 503 when a background loop (a stream consumer, a follower) has died."""
    dead = [t.get_name() for t in getattr(request.app.state, "background", []) if t.done()]
    if dead:
        raise ProblemError(503, "degraded", f"background work stopped: {', '.join(dead)}")
    return {"status": "ok"}


READY_TIMEOUT_S = 1.0  # a probe times out in 2 s: each check answers well before


async def check_ready(request: Request[Any, Any, Any]) -> dict[str, str]:
    """Readiness: 503 `not_ready` while Postgres (`SELECT 1`) or Redis (`PING`) does not answer
    within READY_TIMEOUT_S, or a background loop has died. Liveness (/health) asks neither:
    an outage of theirs is no reason to restart this process."""
    check_background(request)
    state = request.app.state
    down: list[str] = []
    pool = state.get("pool")
    if pool is not None and not await _answers(pool.fetchval("SELECT 1")):
        down.append("postgres")
    redis = state.get("redis")
    if redis is not None and not await _answers(redis.ping()):
        down.append("redis")
    if down:
        raise ProblemError(503, "not_ready", f"no answer from {' and '.join(down)}")
    return {"status": "ready"}


async def _answers(check: Awaitable[Any]) -> bool:
    try:
        await asyncio.wait_for(check, READY_TIMEOUT_S)
    except Exception:
        return False
    return True


def allow_of(scope: Scope) -> str | None:
    """`Allow` for an OPTIONS request: every method of its path (infra/http/edge.py sets it).
    Litestar answers OPTIONS from the first handler registered for a path, so GET and POST
    /v1/rooms (two handlers) would say only GET; the app's routes know them all."""
    app = scope["litestar_app"]
    methods = app.state.get("allow_by_path")
    if methods is None:
        methods = {
            r.path_format: ", ".join(sorted(r.methods)) for r in app.routes if hasattr(r, "methods")
        }
        app.state["allow_by_path"] = methods
    allow: str | None = methods.get(scope.get("path_template", ""))
    return allow


# Browsers: what a page on another origin may send and read (CORS). Bearer tokens, never
# cookies, so no credentials; a page reads the problem and rate-limit headers beside the body.
# X-Request-ID: a page may name its requests, and read the id of each (infra/observability/context.py)
CORS_REQUEST_HEADERS = (
    "Authorization",
    "Content-Type",
    "Idempotency-Key",
    "Last-Event-ID",
    "X-Request-ID",
)
CORS_EXPOSED_HEADERS = (
    "Location",
    "X-Request-ID",
    "Retry-After",
    "RateLimit-Limit",
    "RateLimit-Remaining",
    "RateLimit-Reset",
    "RateLimit-Policy",
)


def cors(settings: Settings | None) -> CORSConfig:
    """`cors_config=` of a service: its settings' origins ("*" any; none when empty)."""
    settings = settings or from_env()
    origins = [o.strip() for o in settings.cors_allow_origins.split(",") if o.strip()]
    return CORSConfig(
        allow_origins=origins,
        allow_methods=["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
        allow_headers=list(CORS_REQUEST_HEADERS),
        expose_headers=list(CORS_EXPOSED_HEADERS),
        allow_credentials=False,
        max_age=settings.cors_max_age_s,
    )
