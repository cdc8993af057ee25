"""Hot routes served without Litestar's per-request machinery, Litestar's handler the reference.

A move cycle (GET the game, GET its legal actions, POST the action) is most of what a game
service does. Litestar spends about as much CPU on each of those requests as the handler
itself: a Request, the kwargs model, the signature model's validation, the return value's
encoding through the response classes. A route handler may name, in its `opt`, a fast route
(`opt={"fast": f}`): infra/http/edge.py then calls `f(scope, receive, send, slow)` instead of the
route, after its ids, metrics, rate limit and body bounds as for any request.

The contract, checked by tests/integration/test_fast_routes.py for every case it lists (the
same requests to the service with fast routes on and off, the answers compared byte for
byte): a fast route takes only the plain shape of its request (the parameters it reads
spelled one way, the body JSON's own types) and hands anything else, before it has done
anything, to `slow`, Litestar's route with the same scope. So every refusal of a strange
request stays Litestar's, word for word. What it takes it answers with what the handler
would have: the same function behind both (services/game/routes/games.py), its errors rendered by
Litestar's own exception middleware with the app's handlers (infra/http/common.py), its answer
encoded by msgspec as Litestar encodes it. `FAST_ROUTES=0` turns them off.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol

import msgspec
from litestar import Litestar
from litestar._asgi.utils import is_valid_host, wrap_in_exception_handler
from litestar.enums import ScopeType
from litestar.exceptions import ImproperlyConfiguredException
from litestar.types import ASGIApp, Receive, Scope, Send
from litestar.utils import normalize_path
from litestar.utils.scope.state import ScopeState

from infra.auth.bearer import Principal
from infra.http.common import admitted
from infra.http.guards import replaying

_FAULT = "turnpost.fast_fault"  # the exception a fast answer renders
_JSON_HEADERS = (b"content-type", b"application/json")
_ENCODE = msgspec.json.Encoder().encode


class FastRoute(Protocol):
    async def __call__(self, scope: Scope, receive: Receive, send: Send, slow: ASGIApp) -> None:
        """Answer the request, or hand it to `slow` before doing anything."""


class Slow(Exception):
    """Not an error: this request is not of the plain shape a fast route takes, it is
    Litestar's to answer. A body already read rides in args[0] (the receive to replay)."""


async def _raise_fault(scope: Scope, receive: Receive, send: Send) -> None:
    raise scope.pop(_FAULT)  # type: ignore[misc]


# As Litestar wraps every route (litestar/_asgi/routing_trie/mapping.py): an exception is
# rendered by the handlers the router put in the scope for this route.
_RENDER = wrap_in_exception_handler(app=_raise_fault)


async def answer(
    scope: Scope, receive: Receive, send: Send, job: Callable[[], Awaitable[Any]]
) -> None:
    """200 with the JSON of what `job` returns, or the problem its exception renders to.

    The job runs before anything is sent, so only its exception needs Litestar's exception
    middleware: that is where it is rendered (the middleware raising it again), and a
    successful answer goes out without the middleware's layer and its wrapper of `send`
    (2 % of the service's CPU under the move-cycle load)."""
    try:
        body = _ENCODE(await job())
    except Exception as exc:
        scope[_FAULT] = exc  # type: ignore[literal-required]
        await _RENDER(scope, receive, send)
        return
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [_JSON_HEADERS, (b"content-length", b"%d" % len(body))],
        }
    )
    await send({"type": "http.response.body", "body": body, "more_body": False})


def header(scope: Scope, name: bytes) -> str | None:
    """The request's one `name` header (lower case), None without one; Slow with several."""
    found: bytes | None = None
    for key, value in scope["headers"]:
        if key == name:
            if found is not None:
                raise Slow
            found = value
    return None if found is None else found.decode("latin-1")


def query(
    scope: Scope, ints: Mapping[bytes, int], words: Mapping[bytes, bytes] | None = None
) -> dict[bytes, int | bytes]:
    """The query as Litestar reads a plain one: `name=value` pairs, each name at most once,
    each of `ints` (digits, no leading zero, at most its maximum) or of `words` (its one
    value); {} for no query, Slow for anything else."""
    raw: bytes = scope["query_string"]
    found: dict[bytes, int | bytes] = {}
    if not raw:
        return found
    for pair in raw.split(b"&"):
        key, sep, value = pair.partition(b"=")
        if key in found or not sep:
            raise Slow
        if key in ints:
            found[key] = _digits(value, ints[key])
        elif words is not None and words.get(key) == value:
            found[key] = value
        else:
            raise Slow
    return found


def _digits(value: bytes, maximum: int) -> int:
    if not value.isdigit() or len(value) > 19:
        raise Slow
    if value[0] == 0x30 and len(value) > 1:
        raise Slow  # Litestar reads no leading zero
    number = int(value)
    if number > maximum:
        raise Slow
    return number


async def json_body(receive: Receive, type_: Any) -> tuple[Any, Receive]:
    """The body (infra/http/guards.py has read it whole) decoded strictly as `type_`, and a receive
    that hands it on again; Slow(receive) for any other body: one that does not decode
    strictly, or holds a number with a fraction part or exponent anywhere (Litestar's lax
    reading and infra.http.common.strictly's turn some of those into integers, each by its own
    rule), or a client gone before it was read. Litestar answers those, in its words."""
    message = await receive()
    if message["type"] != "http.request" or message.get("more_body", False):
        raise Slow(receive)  # a disconnect: Litestar meets it as it would have
    raw: bytes = message.get("body", b"")
    again = replaying(raw, receive)
    try:
        decoded = msgspec.json.decode(raw, type=type_, strict=True)
    except (msgspec.ValidationError, msgspec.DecodeError):
        raise Slow(again) from None
    if _has_float(msgspec.to_builtins(decoded)):
        raise Slow(again)
    return decoded, again


def _has_float(value: Any) -> bool:
    if isinstance(value, float):
        return True
    if isinstance(value, dict):
        return any(_has_float(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_float(v) for v in value)
    return False


def json_content(scope: Scope) -> None:
    """Slow unless the body is declared JSON (or not declared: Litestar reads it as JSON)."""
    content_type = header(scope, b"content-type")
    if content_type is not None and content_type.split(";", 1)[0].strip() != "application/json":
        raise Slow


async def admit(scope: Scope, authorization: str | None) -> Principal:
    """The bearer of the token (`header(scope, b"authorization")`), as
    infra.http.common.authenticate admits it: 401 with the token's fault otherwise."""
    return await admitted(scope["litestar_app"].state.tokens, authorization, scope)


class FastFront:
    """Before Litestar's own stack (CORS, the app's exception handler, the router): a request
    for a route with a fast path, from a client that is not a browser (no Origin: nothing for
    CORS to add), is routed here by Litestar's router itself (`handle_routing`, the same
    cached lookup) and handed to the route's own stack (infra/http/edge.py, then the fast path or
    the route), with the scope the router would have left. Anything else, or a request this
    does not route, is Litestar's as before. What escapes the route's stack is rendered by
    Litestar's exception middleware, as around the router, but only when something escapes:
    the middleware's layer and its wrapper of `send` are not on every answer's way. Edge
    marks the response started in the scope, as that wrapper did, so an exception after the
    start is raised on, not answered twice.

    Litestar's layers around the router cost the game service 7 % of its CPU under the
    move-cycle load (tests/bench/profile_actions.py), most of it the CORS middleware reading
    every request's headers into a `Headers` to find none."""

    def __init__(self, app: Any, default: ASGIApp) -> None:
        self.app = app
        self.default = default
        # each route's exception handlers, which Litestar resolves again on every call
        self._handlers: dict[int, Any] = {}
        self._hosts: set[bytes] = set()  # Host values found valid

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP or scope.get("root_path") or not _fast_on(self.app):
            await self.default(scope, receive, send)
            return
        for name, value in scope["headers"]:
            if name == b"origin" or (name == b"host" and not self._valid_host(value)):
                await self.default(scope, receive, send)
                return
        path = scope["path"]
        if path.endswith("/") or "//" in path or not path.startswith("/"):
            path = normalize_path(path)  # what it leaves alone needs no regular expression
        try:
            routed = self.app.asgi_router.handle_routing(path=path, method=scope["method"])
        except Exception:  # not found, method not allowed...: Litestar says so
            await self.default(scope, receive, send)
            return
        asgi_app, handler, path, params, template = routed
        if handler.opt.get("fast") is None:
            await self.default(scope, receive, send)
            return
        scope["path"], scope["path_params"] = path, params
        scope["route_handler"], scope["path_template"] = handler, template
        handlers = self._handlers.get(id(handler))
        if handlers is None:
            handlers = self._handlers[id(handler)] = handler.resolve_exception_handlers()
        ScopeState.from_scope(scope).exception_handlers = handlers
        try:
            await asgi_app(scope, receive, send)
        except Exception as exc:  # rendered as Litestar's exception middleware renders it
            scope[_FAULT] = exc  # type: ignore[literal-required]
            await _RENDER(scope, receive, send)

    def _valid_host(self, host: bytes) -> bool:
        """Litestar's check of the Host header, its answer kept for the few hosts a service
        is reached by (a regular expression on every request otherwise)."""
        if host in self._hosts:
            return True
        if not is_valid_host(host):
            return False
        if len(self._hosts) < 64:
            self._hosts.add(host)
        return True


def _is_edge(middleware: Any) -> bool:
    """Whether a middleware is infra/http/edge.py's Edge (it imports this module: it says so by
    its `calls_fast_paths`, not by an import back)."""
    inner = getattr(middleware, "middleware", middleware)
    return getattr(inner, "calls_fast_paths", False) is True


def _name_of(middleware: Any) -> str:
    return getattr(middleware, "__name__", None) or type(middleware).__name__


def _fast_on(app: Any) -> bool:
    settings = app.state.get("settings")
    return settings is None or bool(settings.fast_routes)


class FastLitestar(Litestar):
    """Litestar with a FastFront before its stack (services/game/app.py). It refuses to be
    made when a route with a fast path has what only Litestar's route would apply (a guard,
    a hook, response headers or cookies, encoders, a DTO, a dependency, the app's allowed
    hosts, CSRF or compression, a response cache): the fast path would skip it without a
    word. Nor without Edge among the route's middleware: Edge calls the fast path."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for route in self.routes:
            for handler in getattr(route, "route_handlers", ()):
                if handler.opt.get("fast") is not None:
                    _check_nothing_skipped(self, handler)

    def _create_asgi_handler(self) -> ASGIApp:
        return FastFront(self, super()._create_asgi_handler())


def _check_nothing_skipped(app: Litestar, handler: Any) -> None:
    middleware = handler.resolve_middleware()
    if not any(_is_edge(m) for m in middleware):
        raise ImproperlyConfiguredException(
            f"{handler.handler_name} has a fast path (infra/http/fastpath.py) but no Edge among its "
            "middleware: its ids, limits and body bounds, and the mark of a response started "
            "that FastFront's error rendering reads, are Edge's"
        )
    # Edge alone: a middleware inside it is skipped by the fast path Edge calls, and one
    # outside could start a response that Edge never marked started, then raise, and be
    # answered a second time by FastFront's error rendering
    if others := [m for m in middleware if not _is_edge(m)]:
        names = ", ".join(_name_of(getattr(m, "middleware", m)) for m in others)
        raise ImproperlyConfiguredException(
            f"{handler.handler_name} has a fast path (infra/http/fastpath.py), which would skip its "
            f"middleware or answer around it ({names}): only Edge may wrap a fast route"
        )
    skipped = [
        name
        for name, there in (
            # what Litestar puts inside the route's middleware, so inside Edge, for every route
            ("allowed_hosts", app.allowed_hosts),
            ("csrf_config", app.csrf_config),
            ("compression_config", app.compression_config),
            ("cache", handler.cache),
            ("guards", handler.resolve_guards()),
            ("before_request", handler.resolve_before_request()),
            ("after_request", getattr(handler, "after_request", None)),
            ("after_response", handler.resolve_after_response()),
            ("response_headers", handler.resolve_response_headers()),
            ("response_cookies", handler.resolve_response_cookies()),
            ("type_encoders", handler.resolve_type_encoders()),
            ("return_dto", handler.resolve_return_dto()),
            ("dependencies", handler.resolve_dependencies()),
        )
        if there
    ]
    if skipped:
        raise ImproperlyConfiguredException(
            f"{handler.handler_name} has a fast path (infra/http/fastpath.py), which would skip its "
            f"{', '.join(skipped)}: apply them in the fast path and Edge, or drop the fast path"
        )
