"""Browsers on other origins (CORS, infra/http/common.py): both services answer preflights for what a
page sends (Authorization, Idempotency-Key, Last-Event-ID, JSON), let it read the problem and
rate-limit headers, cache preflights, never allow credentials; a configured list of origins
leaves every other origin without an Access-Control-Allow-Origin; the gateway passes it all
through. On real Postgres and Redis (the services' lifespans), nginx for the gateway."""

from __future__ import annotations

import contextlib
import secrets
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from infra.settings import Settings
from services.game.app import create_app as game_app
from services.lobby.app import create_app as lobby_app
from tests.integration.serve import serving
from tests.integration.test_gateway import NGINX, _free_port, local_config, nginx

PAGE = "https://play.example.org"
ELSEWHERE = "https://elsewhere.example.com"
# (service, path, method) a page calls: register, start a room, post a move, follow a feed,
# remove a webhook, mute a player, rename
CALLS = [
    ("lobby", "/v1/players", "POST"),
    ("lobby", "/v1/rooms/r1/start", "POST"),
    ("game", "/v1/games/g1/actions", "POST"),
    ("game", "/v1/games/g1/stream", "GET"),
    ("game", "/v1/me/webhooks/w1", "DELETE"),
    ("game", "/v1/me/chat-settings", "PUT"),  # mute a player (the web client's chat)
    ("lobby", "/v1/players/me", "PATCH"),  # rename
]
ASKED = "authorization, content-type, idempotency-key, last-event-id"


def settings_for(database_url: str, redis_url: str, stream_prefix: str, **cors: Any) -> Settings:
    return Settings(
        database_url=database_url,
        redis_url=redis_url,
        secret=secrets.token_urlsafe(48),
        stream_prefix=f"{stream_prefix}cors-{uuid.uuid4().hex[:6]}:",
        **cors,
    )


@contextlib.asynccontextmanager
async def services(settings: Settings) -> AsyncIterator[dict[str, httpx.AsyncClient]]:
    async with serving(lobby_app(settings)) as lobby, serving(game_app(settings)) as game:
        yield {"lobby": lobby, "game": game}


def preflight(origin: str, method: str) -> dict[str, str]:
    return {
        "origin": origin,
        "access-control-request-method": method,
        "access-control-request-headers": ASKED,
    }


def words(value: str) -> set[str]:
    return {w.strip().lower() for w in value.split(",")}


def assert_preflight_allowed(r: httpx.Response, origin: str, method: str) -> None:
    assert r.status_code == 204, r.text
    assert r.headers["access-control-allow-origin"] == origin
    assert words(ASKED) <= words(r.headers["access-control-allow-headers"])
    assert method.lower() in words(r.headers["access-control-allow-methods"])
    assert r.headers["access-control-max-age"] == "86400"  # cached a day
    assert "access-control-allow-credentials" not in r.headers  # bearer tokens, no cookies


async def test_any_origin_by_default(database_url: str, redis_url: str, stream_prefix: str) -> None:
    async with services(settings_for(database_url, redis_url, stream_prefix)) as svc:
        for name, path, method in CALLS:
            r = await svc[name].options(path, headers=preflight(PAGE, method))
            assert_preflight_allowed(r, "*", method)
        # what the page then reads: the answer, a problem's headers, the rate limits
        catalog = await svc["lobby"].get("/v1/catalog", headers={"origin": PAGE})
        assert catalog.status_code == 200 and catalog.headers["access-control-allow-origin"] == "*"
        exposed = words(catalog.headers["access-control-expose-headers"])
        assert {"retry-after", "location", "ratelimit-remaining", "ratelimit-reset"} <= exposed
        refused = await svc["game"].get("/v1/games/g1", headers={"origin": PAGE})
        assert refused.status_code == 401 and refused.json()["code"] == "unauthorized"
        assert refused.headers["access-control-allow-origin"] == "*"  # a problem is readable
        # a request without an Origin (not a browser) is answered as before
        plain = await svc["lobby"].options("/v1/rooms")
        assert plain.status_code == 204 and "access-control-allow-origin" not in plain.headers
        assert words(plain.headers["allow"]) == {"get", "post", "options"}


async def test_configured_origins_only(
    database_url: str, redis_url: str, stream_prefix: str
) -> None:
    configured = settings_for(
        database_url, redis_url, stream_prefix, cors_allow_origins=f"{PAGE}, https://*.turnpost.dev"
    )
    async with services(configured) as svc:
        for name, path, method in CALLS:
            r = await svc[name].options(path, headers=preflight(PAGE, method))
            assert_preflight_allowed(r, PAGE, method)
            assert "origin" in words(r.headers["vary"])
            wild = await svc[name].options(
                path, headers=preflight("https://a.turnpost.dev", method)
            )
            assert_preflight_allowed(wild, "https://a.turnpost.dev", method)
            for other in (ELSEWHERE, f"{PAGE}.evil.example", "null"):
                no = await svc[name].options(path, headers=preflight(other, method))
                assert no.status_code == 400
                assert not [h for h in no.headers if h.startswith("access-control-")]
        for name, path in (("lobby", "/v1/catalog"), ("game", "/v1/games/g1")):
            mine = await svc[name].get(path, headers={"origin": PAGE})
            assert mine.headers["access-control-allow-origin"] == PAGE
            theirs = await svc[name].get(path, headers={"origin": ELSEWHERE})
            assert "access-control-allow-origin" not in theirs.headers


@pytest.mark.skipif(NGINX is None, reason="nginx is not installed")
async def test_the_gateway_passes_preflights_through(
    database_url: str, redis_url: str, stream_prefix: str
) -> None:
    configured = settings_for(database_url, redis_url, stream_prefix, cors_allow_origins=PAGE)
    port = _free_port()
    async with services(configured) as svc:
        lobby, game = (svc[s].base_url.port or 0 for s in ("lobby", "game"))
        with nginx(local_config(Path("{folder}"), port, lobby, game), port):
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=20) as gw:
                for _, path, method in CALLS:
                    r = await gw.options(path, headers=preflight(PAGE, method))
                    assert_preflight_allowed(r, PAGE, method)
                    no = await gw.options(path, headers=preflight(ELSEWHERE, method))
                    assert no.status_code == 400
                    assert "access-control-allow-origin" not in no.headers
                r = await gw.get("/v1/catalog", headers={"origin": PAGE})
                assert r.headers["access-control-allow-origin"] == PAGE
                assert "retry-after" in words(r.headers["access-control-expose-headers"])
