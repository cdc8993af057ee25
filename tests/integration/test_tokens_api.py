"""Keys and tokens over REST, at the lobby and the game service: forged tokens, rotation,
players ending their tokens."""

from __future__ import annotations

import asyncio
import secrets
import time
import uuid
from collections.abc import AsyncIterator

import httpx
import jwt
import msgspec
import pytest

from infra.auth.bearer import ISSUER, issue
from infra.auth.keys import KNOWN_DEFAULTS, SigningKey
from infra.settings import Settings
from services.game.app import create_app as game_app
from services.lobby.app import create_app as lobby_app
from tests.integration.serve import serving

TTL_S = 0.3  # the game service's token cache, short here


@pytest.fixture
def settings(database_url: str, redis_url: str, stream_prefix: str) -> Settings:
    return Settings(
        database_url=database_url,
        redis_url=redis_url,
        secret=secrets.token_urlsafe(48),
        stream_prefix=f"{stream_prefix}tokens-{uuid.uuid4().hex[:6]}:",
        token_check_ttl_s=TTL_S,
    )


@pytest.fixture
async def lobby(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    async with serving(lobby_app(settings)) as c:
        yield c


@pytest.fixture
async def game(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    async with serving(game_app(settings)) as c:
        yield c


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


async def register(lobby: httpx.AsyncClient, name: str = "Ada") -> dict[str, str]:
    r = await lobby.post("/v1/players", json={"name": name})
    assert r.status_code == 201, r.text
    body: dict[str, str] = r.json()
    return body


async def status(lobby: httpx.AsyncClient, game: httpx.AsyncClient, token: str) -> list[str]:
    """What each service says to the token: "ok" or the problem's code."""
    said = []
    for r in (
        await lobby.post(
            "/v1/rooms", json={"game": "itty-bitty", "seats": 2}, headers=bearer(token)
        ),
        await game.get("/v1/me/games", headers=bearer(token)),
    ):
        if r.status_code in (200, 201):
            said.append("ok")
        else:
            assert r.status_code == 401, r.text
            assert r.headers["content-type"].startswith("application/problem+json")
            said.append(r.json()["code"])
    return said


@pytest.mark.filterwarnings("ignore:The HMAC key is")  # the defaults are short: the point
async def test_tokens_forged_with_each_published_default_are_refused_by_both_services(
    lobby: httpx.AsyncClient, game: httpx.AsyncClient, settings: Settings
) -> None:
    ada = await register(lobby)
    signing = settings.keyring().signing
    claims = {"sub": ada["id"], "name": "Ada", "iss": ISSUER, "exp": int(time.time()) + 3600}
    for default in KNOWN_DEFAULTS:
        forged = [
            jwt.encode(claims, default, algorithm="HS256"),  # no key named: tried on each
            jwt.encode(claims, default, algorithm="HS256", headers={"kid": signing.kid}),
            issue(SigningKey.from_secret(default), ada["id"], "Ada"),
        ]
        said = [await status(lobby, game, token) for token in forged]
        assert said == [
            ["unauthorized", "unauthorized"],
            ["unauthorized", "unauthorized"],
            ["unknown_key", "unknown_key"],
        ], default
    assert await status(lobby, game, ada["token"]) == ["ok", "ok"]


async def test_a_player_ends_their_other_tokens_at_once_here_within_the_ttl_there(
    lobby: httpx.AsyncClient, game: httpx.AsyncClient
) -> None:
    ada, bob = await register(lobby), await register(lobby, "Bob")
    old = ada["token"]
    assert await status(lobby, game, old) == ["ok", "ok"]  # the game service remembers it now

    r = await lobby.post("/v1/players/me/tokens", headers=bearer(old))
    assert r.status_code == 201, r.text
    fresh = r.json()
    assert (fresh["id"], fresh["name"]) == (ada["id"], "Ada") and fresh["token"] != old
    assert await status(lobby, game, fresh["token"]) == ["ok", "ok"]
    assert await status(lobby, game, old) == ["ok", "ok"]  # a second token ends nothing

    r = await lobby.delete("/v1/players/me/tokens", headers=bearer(fresh["token"]))
    assert r.status_code == 204, r.text
    assert (await status(lobby, game, old))[0] == "token_revoked"
    await asyncio.sleep(TTL_S + 0.1)
    assert await status(lobby, game, old) == ["token_revoked", "token_revoked"]
    assert await status(lobby, game, fresh["token"]) == ["ok", "ok"]
    assert await status(lobby, game, bob["token"]) == ["ok", "ok"]  # only Ada's ended

    # an ended token gets no other, nor ends the one kept
    for call in (lobby.post, lobby.delete):
        r = await call("/v1/players/me/tokens", headers=bearer(old))
        assert r.status_code == 401 and r.json()["code"] == "token_revoked"
    r = await lobby.post("/v1/players/me/tokens", headers=bearer(fresh["token"]))
    assert await status(lobby, game, r.json()["token"]) == ["ok", "ok"]
    assert (await lobby.delete("/v1/players/me/tokens")).status_code == 401


async def test_rotation_keeps_old_tokens_until_their_key_is_removed(
    settings: Settings,
) -> None:
    old, new = f"old:{secrets.token_urlsafe(48)}", f"new:{secrets.token_urlsafe(48)}"

    def keyed(keys: str) -> Settings:
        return msgspec.structs.replace(settings, secret="", keys=keys)

    async with serving(lobby_app(keyed(old))) as lobby, serving(game_app(keyed(old))) as game:
        before = (await register(lobby))["token"]
    async with (
        serving(lobby_app(keyed(f"{new},{old}"))) as lobby,
        serving(game_app(keyed(f"{new},{old}"))) as game,
    ):
        assert await status(lobby, game, before) == ["ok", "ok"]
        r = await lobby.post("/v1/players/me/tokens", headers=bearer(before))
        after = r.json()["token"]
        assert jwt.get_unverified_header(after)["kid"] == "new"
        assert await status(lobby, game, after) == ["ok", "ok"]
    async with serving(lobby_app(keyed(new))) as lobby, serving(game_app(keyed(new))) as game:
        assert await status(lobby, game, before) == ["unknown_key", "unknown_key"]
        assert await status(lobby, game, after) == ["ok", "ok"]
