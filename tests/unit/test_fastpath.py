"""infra/http/fastpath.py's FastFront: which requests skip Litestar's outer layers, and that the
route's own stack (Edge, the fast path, its errors) answers them as it would."""

from __future__ import annotations

from typing import Any

import pytest
from litestar import Response, get
from litestar.config.compression import CompressionConfig
from litestar.config.csrf import CSRFConfig
from litestar.exceptions import ImproperlyConfiguredException, LitestarException
from litestar.middleware import DefineMiddleware
from litestar.params import FromPath
from litestar.testing import AsyncTestClient
from litestar.types import ASGIApp, Receive, Scope, Send

from contracts.game import PostAction
from infra.http.common import EXCEPTION_HANDLERS
from infra.http.edge import Edge
from infra.http.fastpath import FastFront, FastLitestar, Slow, answer, json_body, query
from infra.settings import Settings


async def fast(scope: Scope, receive: Receive, send: Send, slow: ASGIApp) -> None:
    if scope["query_string"] == b"early":  # out of the fast path itself, before its answer
        raise LookupError("before the answer")
    if scope["query_string"] == b"late":  # after the response started
        await send({"type": "http.response.start", "status": 200, "headers": []})
        raise LookupError("after the start")

    async def job() -> dict[str, Any]:
        if scope["query_string"] == b"fail":
            raise RuntimeError("boom")
        return {"by": "fast", "path": scope["path"], "params": scope["path_params"]}

    await answer(scope, receive, send, job)


@get("/things/{thing:str}", opt={"fast": fast})
async def thing(thing: FromPath[str]) -> dict[str, str]:
    return {"by": "litestar"}


@get("/plain")
async def plain() -> dict[str, str]:
    return {"by": "litestar"}


def app_with(settings: Settings | None) -> tuple[FastLitestar, list[str]]:
    app = FastLitestar(
        [thing, plain],
        middleware=[Edge],
        exception_handlers=EXCEPTION_HANDLERS,
        logging_config=None,
    )
    app.state.settings = settings
    front = app.asgi_handler
    assert isinstance(front, FastFront)
    passed: list[str] = []
    default = front.default

    async def spy(scope: Scope, receive: Receive, send: Send) -> None:
        passed.append(scope["path"])
        await default(scope, receive, send)

    front.default = spy
    return app, passed


@pytest.mark.parametrize(
    ("method", "path", "headers", "status", "by", "through_litestar"),
    [
        ("GET", "/things/a", {}, 200, "fast", False),
        ("GET", "/things/a/", {}, 200, "fast", False),  # normalised, as the router does
        ("GET", "/things//a", {}, 200, "fast", False),
        ("GET", "/things/a", {"host": "a b"}, 400, None, True),  # Litestar refuses the host
        ("GET", "/things/a", {"origin": "https://x.example"}, 200, "fast", True),
        ("GET", "/plain", {}, 200, "litestar", True),
        ("GET", "/missing", {}, 404, None, True),
        ("POST", "/things/a", {}, 405, None, True),
    ],
)
async def test_which_requests_skip_the_outer_layers(
    method: str,
    path: str,
    headers: dict[str, str],
    status: int,
    by: str | None,
    through_litestar: bool,
) -> None:
    app, passed = app_with(Settings())
    async with AsyncTestClient(app) as client:
        response = await client.request(method, path, headers=headers)
    assert response.status_code == status, response.text
    if by is not None:
        assert response.json()["by"] == by
    if by == "fast":
        assert response.json()["path"] == "/things/a"
        assert response.json()["params"] == {"thing": "a"}
        assert response.headers["x-request-id"]  # Edge ran
    assert bool(passed) is through_litestar


def test_the_front_keeps_only_valid_hosts_as_valid() -> None:
    app, _ = app_with(Settings())
    front = app.asgi_handler
    assert isinstance(front, FastFront)
    assert front._valid_host(b"game.example:8000") and front._hosts == {b"game.example:8000"}
    assert not front._valid_host(b"a b") and not front._valid_host(b"a b")
    assert front._hosts == {b"game.example:8000"}
    for n in range(100):
        front._valid_host(b"h%d" % n)
    assert len(front._hosts) == 64 and front._valid_host(b"h99")  # bounded, still answered


async def test_with_fast_routes_off_everything_is_litestar_s() -> None:
    app, passed = app_with(Settings(fast_routes=False))
    async with AsyncTestClient(app) as client:
        response = await client.get("/things/a")
    assert response.json() == {"by": "litestar"} and passed == ["/things/a"]


@pytest.mark.parametrize("where", ["fail", "early"])  # in the answer's job; before the answer
async def test_an_error_past_the_front_is_rendered_as_litestar_renders_it(where: str) -> None:
    app, passed = app_with(Settings())
    async with AsyncTestClient(app) as client:
        response = await client.get(f"/things/a?{where}")
    assert response.status_code == 500 and not passed
    assert response.json()["code"] == "internal_error"
    assert response.headers["content-type"].startswith("application/problem+json")


async def test_an_error_after_the_response_started_is_not_answered_again() -> None:
    app, _ = app_with(Settings())
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Any) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": "/things/a",
        "raw_path": b"/things/a",
        "root_path": "",
        "query_string": b"late",
        "headers": [(b"host", b"testserver")],
        "client": ("127.0.0.1", 1),
        "server": ("testserver", 80),
        "state": {},
    }
    with pytest.raises(LitestarException, match="after response started"):
        await app(scope, receive, send)  # type: ignore[arg-type]
    assert [m["type"] for m in sent] == ["http.response.start"]


async def deny(connection: Any, handler: Any) -> None:
    raise RuntimeError("a guard that the fast path would skip")


@pytest.mark.parametrize(
    "layer",
    [
        {"guards": [deny]},
        {"response_headers": {"x-extra": "1"}},
        {"before_request": lambda request: None},
        {"type_encoders": {complex: str}},
        {"allowed_hosts": ["game.example"]},
        {"csrf_config": CSRFConfig(secret="x" * 32)},
        {"compression_config": CompressionConfig(backend="gzip")},
    ],
)
def test_a_fast_path_may_not_skip_what_litestar_would_apply(layer: dict[str, Any]) -> None:
    with pytest.raises(ImproperlyConfiguredException, match="thing has a fast path"):
        FastLitestar([thing, plain], middleware=[Edge], logging_config=None, **layer)


def test_a_fast_path_may_not_skip_a_response_cache_nor_be_without_edge() -> None:
    cached = get("/cached/{thing:str}", opt={"fast": fast}, cache=True)(thing.fn)
    with pytest.raises(ImproperlyConfiguredException, match="its cache"):
        FastLitestar([cached], middleware=[Edge], logging_config=None)
    with pytest.raises(ImproperlyConfiguredException, match="no Edge among its middleware"):
        FastLitestar([thing, plain], logging_config=None)
    FastLitestar([thing, plain], middleware=[DefineMiddleware(Edge)], logging_config=None)


class Other:
    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.app(scope, receive, send)


@pytest.mark.parametrize(
    "where",
    [
        {"app": [Edge, Other]},  # inside Edge: the fast path would skip it
        {"app": [Other, Edge]},
        {"app": [Edge], "route": [Other]},  # a route's own: inside the app's Edge
        {"app": [Edge], "route": [DefineMiddleware(Other)]},
    ],
)
def test_a_fast_route_has_edge_and_no_other_middleware(where: dict[str, list[Any]]) -> None:
    route = get("/others/{thing:str}", opt={"fast": fast}, middleware=where.get("route"))(thing.fn)
    with pytest.raises(ImproperlyConfiguredException, match=r"\(Other\): only Edge may wrap"):
        FastLitestar([route, plain], middleware=where["app"], logging_config=None)
    # a route without a fast path may have what it likes
    slow = get("/slow/{thing:str}", middleware=[Other])(thing.fn)
    FastLitestar([thing, slow], middleware=[Edge], logging_config=None)


async def test_each_fast_route_s_errors_are_rendered_by_its_own_handlers() -> None:
    def teapot(request: Any, exc: Exception) -> Response[dict[str, str]]:
        return Response({"by": "teapot"}, status_code=418)

    other = get(
        "/others/{thing:str}", opt={"fast": fast}, exception_handlers={RuntimeError: teapot}
    )(thing.fn)
    app = FastLitestar(
        [thing, other],
        middleware=[Edge],
        exception_handlers=EXCEPTION_HANDLERS,
        logging_config=None,
    )
    app.state.settings = Settings()
    async with AsyncTestClient(app) as client:
        for _ in range(2):  # the second time from what the front keeps of each route
            assert (await client.get("/things/a?fail")).status_code == 500
            teapots = await client.get("/others/a?fail")
            assert teapots.status_code == 418 and teapots.json() == {"by": "teapot"}


def body(raw: bytes) -> Receive:
    async def receive() -> Any:
        return {"type": "http.request", "body": raw, "more_body": False}

    return receive


async def test_a_body_is_the_fast_path_s_only_when_it_decodes_strictly_without_a_float() -> None:
    plain = b'{"action": {"type": "take", "n": 2, "cards": ["a"]}, "expected_version": 9}'
    decoded, again = await json_body(body(plain), PostAction)
    assert decoded == PostAction(
        action={"type": "take", "n": 2, "cards": ["a"]}, expected_version=9
    )
    assert (await again())["body"] == plain  # handed on whole, for Litestar
    for raw in (
        b'{"action": {"type": "take"}, "expected_version": 9.0}',  # Litestar: 9
        b'{"action": {"type": "take"}, "expected_version": 1e16}',  # Litestar: 400
        b'{"action": {"type": "take", "n": 2.0}, "expected_version": 9}',  # strictly: 2
        b'{"action": {"type": "take", "n": [0.5]}, "expected_version": 9}',
        b'{"action": {"type": "take"}, "expected_version": "9"}',
        b'{"action": {"type": "take"}, "expected_version": 9, "more": 1}',
        b'{"action": {"type": "take"}}',
        b"",
        b"nonsense",
    ):
        with pytest.raises(Slow) as slow:
            await json_body(body(raw), PostAction)
        assert (await slow.value.args[0]())["body"] == raw, raw


async def test_a_client_gone_before_its_body_is_read_is_litestar_s() -> None:
    async def gone() -> Any:
        return {"type": "http.disconnect"}

    with pytest.raises(Slow) as slow:
        await json_body(gone, PostAction)
    assert slow.value.args[0] is gone


def _query(raw: bytes) -> dict[bytes, int | bytes]:
    return query({"query_string": raw}, {b"n": 100, b"m": 9}, {b"include": b"legal_actions"})


def test_a_query_is_the_fast_path_s_only_when_plain() -> None:
    """Names each once, in any order, ints as Litestar reads them (digits, no leading zero,
    at most their maximum), words with their one value; anything else is Litestar's."""
    assert _query(b"") == {}
    assert _query(b"n=0") == {b"n": 0}
    assert _query(b"n=100&include=legal_actions&m=9") == {
        b"n": 100,
        b"include": b"legal_actions",
        b"m": 9,
    }
    assert _query(b"include=legal_actions&n=7") == {b"include": b"legal_actions", b"n": 7}
    for slow in (
        b"n=101",  # past the maximum
        b"m=10",
        b"n=01",  # a leading zero
        b"n=00",
        b"n=",
        b"n",
        b"n=-1",
        b"n=1.0",
        b"n=" + b"1" * 20,
        b"n=1&n=1",  # twice
        b"include=legal_actions&include=legal_actions",
        b"include=view",
        b"include=",
        b"x=1",  # a name it does not know
        b"n=1&x=1",
        b"n=1&",
        b"&n=1",
    ):
        with pytest.raises(Slow):
            _query(slow)
    # the largest a version may be has 19 digits: read as it is
    assert query({"query_string": b"v=4611686018427387904"}, {b"v": 2**62}) == {b"v": 2**62}
    # no words: every name must be an int's
    with pytest.raises(Slow):
        query({"query_string": b"include=legal_actions"}, {b"n": 100})
