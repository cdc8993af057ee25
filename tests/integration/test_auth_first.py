"""Authentication before anything else: every route that takes a token answers a request
without one 401 `unauthorized`, whatever its body (malformed, of the wrong shape, too deep
or too large), its parameters or its headers; only then are they read. Every POST, PATCH,
PUT and DELETE route of both services is walked from their route tables."""

from __future__ import annotations

import re
import secrets
import uuid
from typing import Any

import httpx
import msgspec
import pytest
from litestar import Litestar

from infra.settings import Settings
from services.game.app import create_app as game_app
from services.lobby.app import create_app as lobby_app
from tests.integration.serve import serving

UNSAFE = {"POST", "PATCH", "PUT", "DELETE"}
PUBLIC = {("lobby", "POST", "/v1/players")}  # registering takes no token: the only one
BAD_BODIES = [
    b'{"action": [',  # not JSON
    b'{"no_such_field": "x", "seat": "two", "expected_version": -1}',  # the wrong shape
    b"[" * 200 + b"]" * 200,  # deeper than any service reads (400 too_deep)
    b'{"name": "' + b"x" * 200_000 + b'"}',  # larger than any service takes (413)
]
BAD_HEADERS = [
    {},
    {"idempotency-key": "k" * 500},  # longer than postAction takes
    {"authorization": "Basic abc"},  # not a bearer token: unauthorized all the same
]


@pytest.fixture(params=[True, False], ids=["fast-routes", "litestar-routes"])
def settings(
    request: pytest.FixtureRequest, database_url: str, redis_url: str, stream_prefix: str
) -> Settings:
    return Settings(
        database_url=database_url,
        redis_url=redis_url,
        secret=secrets.token_urlsafe(48),
        stream_prefix=f"{stream_prefix}auth-first-{uuid.uuid4().hex[:6]}:",
        fast_routes=request.param,
        rate_limit_write="100000/minute",  # the walk is many requests from one address
        rate_limit_action="100000/minute",
        rate_limit_chat="100000/minute",
        rate_limit_register="100000/minute",
    )


def unsafe_routes(app: Litestar) -> list[tuple[str, str, bool]]:
    """(method, path template, whether it declares a token) for each unsafe route."""
    found = []
    for route in app.routes:
        for handler in getattr(route, "route_handlers", ()):
            for method in sorted(set(handler.http_methods) & UNSAFE):
                found.append((method, route.path_format, bool(handler.resolve_security())))
    return found


def concrete(template: str) -> str:
    return re.sub(r"\{[^}]+\}", str(uuid.uuid4()), template)


async def walk(service: str, app: Litestar) -> list[str]:
    """Every unsafe route's answer to each bad request without a token that is not 401
    `unauthorized`; registering asserted public, every other route asserted to declare its
    token."""
    wrong: list[str] = []
    async with serving(app) as client:
        routes = unsafe_routes(app)
        assert routes, service
        for method, template, secured in routes:
            public = (service, method, template) in PUBLIC
            assert secured != public, f"{service} {method} {template}: security {secured}"
            if public:
                continue
            path = concrete(template)
            for body in BAD_BODIES:
                for headers in BAD_HEADERS:
                    r = await client.request(
                        method,
                        path,
                        content=body,
                        params={"wait": "x", "limit": "-1"},
                        headers={"content-type": "application/json", **headers},
                    )
                    code = _code(r)
                    if (r.status_code, code) != (401, "unauthorized"):
                        wrong.append(f"{method} {template} {body[:20]!r}: {r.status_code} {code}")
    return wrong


def _code(r: httpx.Response) -> Any:
    try:
        return msgspec.json.decode(r.content).get("code")
    except msgspec.DecodeError:
        return r.text[:80]


async def test_every_authenticated_route_of_both_services_refuses_no_token_before_its_body(
    settings: Settings,
) -> None:
    wrong = await walk("game", game_app(settings)) + await walk("lobby", lobby_app(settings))
    assert not wrong, "\n".join(wrong)


async def test_the_openapi_documents_name_a_token_on_every_route_walked(
    settings: Settings,
) -> None:
    """What the route tables say is what clients read: every operation whose route takes a
    token says so (`security`), and 401 among its answers."""
    for service, app in (("game", game_app(settings)), ("lobby", lobby_app(settings))):
        async with serving(app) as client:
            doc = (await client.get("/schema/openapi.json")).json()
        for method, template, secured in unsafe_routes(app):
            path = re.sub(r"\{(\w+):\w+\}", r"{\1}", template)
            operation = doc["paths"][path][method.lower()]
            assert bool(operation.get("security")) == secured, (service, method, path)
            if secured:
                assert "401" in operation["responses"], (service, method, path)


async def test_a_request_with_two_authorization_headers_is_refused_whichever_comes_first(
    settings: Settings,
) -> None:
    """Two tokens in one request: 400 on every route that takes one (the fast routes' and
    Litestar's alike), whichever token is valid; a reader taking the first and another the
    last would act for two people at once."""
    async with serving(lobby_app(settings)) as lobby, serving(game_app(settings)) as game:
        r = await lobby.post("/v1/players", json={"name": "Twice"})
        assert r.status_code == 201, r.text
        valid = f"Bearer {r.json()['token']}"
        game_id = uuid.uuid4()
        for pair in ([valid, "Bearer forged"], ["Bearer forged", valid], [valid, valid]):
            headers = [("authorization", value) for value in pair]
            for client, method, path in (
                (lobby, "GET", "/v1/me/rooms"),
                (game, "GET", f"/v1/games/{game_id}"),  # a fast route
                (game, "GET", f"/v1/games/{game_id}/legal-actions"),
                (game, "POST", f"/v1/games/{game_id}/actions"),
            ):
                r = await client.request(method, path, headers=headers, json={})
                assert (r.status_code, _code(r)) == (400, "malformed_request"), (pair, path)
            r = await lobby.get("/v1/me/rooms", headers={"authorization": valid})
            assert r.status_code == 200, r.text
