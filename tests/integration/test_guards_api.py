"""The guards over real Postgres and Redis: rate limits (429 + Retry-After), body size (413),
JSON depth (400), 405 with Allow, a Redis outage failing open, and no 500 from any body."""

from __future__ import annotations

import contextlib
import socket
import uuid
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import httpx
import msgspec
import pytest
import redis.asyncio as aioredis

from infra.auth.bearer import issue
from infra.http.ratelimit import RateLimiter, _counter
from infra.settings import Settings
from services.game.app import create_app as game_app
from services.lobby.app import create_app as lobby_app
from tests.integration.serve import serving
from tests.integration.tables import game_service, new_game

SECRET = "guards-test-secret-at-least-32-bytes-long"
TWO_MB = 2 * 1024 * 1024
DEEP_ACTION = b'{"action": ' + b"[" * 10_000 + b"]" * 10_000 + b', "expected_version": 1}'


@pytest.fixture
def settings(
    database_url: str, redis_url: str, stream_prefix: str, redis_client: aioredis.Redis
) -> Settings:
    """Each test counts under its own key prefix (redis_client removes the run's keys after)."""
    return Settings(
        database_url=database_url,
        redis_url=redis_url,
        secret=SECRET,
        stream_prefix=f"{stream_prefix}guards-{uuid.uuid4().hex[:6]}:",
    )


def problem(r: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = r.json()
    assert body["code"] == code and body["status"] == status and body["title"] and body["type"]
    return body


def bearer(settings: Settings, player: str) -> dict[str, str]:
    return {"authorization": f"Bearer {issue(settings.keyring().signing, player, player)}"}


class Table:
    """A started itty-bitty game of two people, served by a game service."""

    def __init__(
        self, client: httpx.AsyncClient, settings: Settings, game_id: str, players: list[str]
    ) -> None:
        self.client, self.id = client, game_id
        self.auth = [bearer(settings, p) for p in players]
        self.start = 0  # the version it was set up at

    async def post(
        self, seat: int, body: Any, path: str = "/actions", **headers: str
    ) -> httpx.Response:
        content = body if isinstance(body, bytes) else msgspec.json.encode(body)
        return await self.client.post(
            f"/v1/games/{self.id}{path}",
            content=content,
            headers={**self.auth[seat], "content-type": "application/json", **headers},
        )

    async def version(self) -> int:
        r = await self.client.get(f"/v1/games/{self.id}", headers=self.auth[0])
        assert r.status_code == 200, r.text
        return int(r.json()["version"])


@contextlib.asynccontextmanager
async def table(pool: asyncpg.Pool, settings: Settings) -> AsyncIterator[Table]:
    game_id, players = await new_game(game_service(pool), [None, None])
    async with serving(game_app(settings)) as client:
        t = Table(client, settings, game_id, players)
        t.start = await t.version()
        yield t


async def test_a_burst_of_moves_is_429_with_retry_after(
    pool: asyncpg.Pool, settings: Settings
) -> None:
    settings = msgspec.structs.replace(settings, rate_limit_action="5/minute")
    async with table(pool, settings) as t:
        answers = [
            await t.post(0, {"action": {"type": "fly"}, "expected_version": 1}) for _ in range(8)
        ]
        assert [r.status_code for r in answers[:5]] == [409] * 5  # counted, whatever the answer
        for n, r in enumerate(answers[:5]):
            assert r.headers["ratelimit-limit"] == "5"
            assert r.headers["ratelimit-remaining"] == str(4 - n)
            assert 1 <= int(r.headers["ratelimit-reset"]) <= 60
        for r in answers[5:]:
            body = problem(r, 429, "rate_limited")
            assert "5 action requests per 60 s" in body["detail"]
            assert 10 <= int(r.headers["retry-after"]) <= 12  # one more every 60/5 s
            assert r.headers["ratelimit-remaining"] == "0"
        # per player: the other seat still moves, and reading is another class
        assert (
            await t.post(1, {"action": {"type": "fly"}, "expected_version": 1})
        ).status_code == 409
        assert await t.version() == t.start
        r = await t.post(0, {}, path="/resign")
        problem(r, 429, "rate_limited")  # resigning counts as an action


async def test_registering_is_limited_per_address(settings: Settings) -> None:
    settings = msgspec.structs.replace(settings, rate_limit_register="3/hour")
    async with serving(lobby_app(settings)) as client:
        made = [await client.post("/v1/players", json={"name": f"p{i}"}) for i in range(3)]
        assert [r.status_code for r in made] == [201] * 3
        token = {"authorization": f"Bearer {made[0].json()['token']}"}
        r = await client.post("/v1/players", json={"name": "again"}, headers=token)
        problem(r, 429, "rate_limited")  # a token does not lift the per-address limit
        assert int(r.headers["retry-after"]) >= 1
        assert (await client.get("/v1/catalog")).status_code == 200
        r = await client.post("/v1/rooms", json={"game": "itty-bitty", "seats": 2}, headers=token)
        assert r.status_code == 201, r.text
        assert (await client.get("/health")).headers.get("ratelimit-limit") is None


async def test_deep_nesting_is_400_before_any_decoder(
    pool: asyncpg.Pool, settings: Settings
) -> None:
    async with table(pool, settings) as t:
        problem(await t.post(0, DEEP_ACTION), 400, "too_deep")
        deep_object = (
            b'{"action": ' + b'{"a":' * 10_000 + b"1" + b"}" * 10_000 + b', "expected_version": 1}'
        )
        problem(await t.post(0, deep_object), 400, "too_deep")
        problem(await t.post(0, b"[" * 33 + b"]" * 33), 400, "too_deep")
        assert (await t.post(0, b"[" * 32 + b"]" * 32)).status_code == 400  # shape, not depth
        assert await t.version() == t.start
    async with serving(lobby_app(settings)) as client:
        r = await client.post("/v1/players", json={"name": "Ada"})
        auth = {"authorization": f"Bearer {r.json()['token']}"}
        options = (
            b'{"game": "itty-bitty", "seats": 2, "options": ' + b"[" * 5000 + b"]" * 5000 + b"}"
        )
        problem(await client.post("/v1/rooms", content=options, headers=auth), 400, "too_deep")


async def test_a_large_body_is_413(pool: asyncpg.Pool, settings: Settings) -> None:
    big = b'{"action": {"type": "' + b"x" * TWO_MB + b'"}, "expected_version": 1}'
    async with table(pool, settings) as t:
        problem(await t.post(0, big), 413, "payload_too_large")

        async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: counted as it comes
            for i in range(0, len(big), 65_536):
                yield big[i : i + 65_536]

        r = await t.client.post(
            f"/v1/games/{t.id}/actions",
            content=chunks(),
            headers={**t.auth[0], "content-type": "application/json"},
        )
        problem(r, 413, "payload_too_large")
        near = {"action": {"type": "x" * 60_000}, "expected_version": t.start}
        problem(await t.post(0, near), 400, "invalid_action_format")  # under 64 KB: read
        assert await t.version() == t.start
    async with serving(lobby_app(settings)) as client:
        r = await client.post("/v1/players", content=b'{"name": "' + b"a" * TWO_MB + b'"}')
        problem(r, 413, "payload_too_large")
    small = msgspec.structs.replace(settings, max_body_bytes=100)
    async with serving(lobby_app(small)) as client:
        problem(
            await client.post("/v1/players", json={"name": "x" * 100}), 413, "payload_too_large"
        )
        assert (await client.post("/v1/players", json={"name": "Ada"})).status_code == 201


async def test_a_wrong_method_is_405_with_allow(pool: asyncpg.Pool, settings: Settings) -> None:
    async with table(pool, settings) as t:
        r = await t.client.put(f"/v1/games/{t.id}/actions", headers=t.auth[0])
        problem(r, 405, "method_not_allowed")
        assert "POST" in {m.strip() for m in r.headers["allow"].split(",")}
        r = await t.client.delete(f"/v1/games/{t.id}", headers=t.auth[0])
        problem(r, 405, "method_not_allowed")
        assert "GET" in r.headers["allow"]
    async with serving(lobby_app(settings)) as client:
        r = await client.get("/v1/rooms/x/join")
        problem(r, 405, "method_not_allowed")
        assert "POST" in r.headers["allow"]


def _dead_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # closed again: nothing listens there


async def test_the_limiter_fails_open_and_backs_off(settings: Settings) -> None:
    dead = msgspec.structs.replace(settings, redis_url=f"redis://127.0.0.1:{_dead_port()}/0")
    counter, client = _counter(dead, embedded=False)
    limiter = RateLimiter(counter, settings)
    scope: Any = {"client": ("127.0.0.1", 1), "headers": []}
    assert await limiter.check("read", scope) is None  # no exception: no limit said
    assert await limiter.check("read", scope) is None  # and not asked again for a while
    assert client is not None
    await client.aclose()


async def test_the_app_fails_open_when_its_redis_is_gone(
    pool: asyncpg.Pool, settings: Settings
) -> None:
    settings = msgspec.structs.replace(settings, rate_limit_read="1/minute")
    app = game_app(settings)
    game_id, players = await new_game(game_service(pool), [None, None])
    async with serving(app) as client:
        auth = bearer(settings, players[0])
        assert (await client.get(f"/v1/games/{game_id}", headers=auth)).status_code == 200
        problem(await client.get(f"/v1/games/{game_id}", headers=auth), 429, "rate_limited")
        dead = msgspec.structs.replace(settings, redis_url=f"redis://127.0.0.1:{_dead_port()}/0")
        counter, redis = _counter(dead, embedded=False)
        app.state.rate_limiter = RateLimiter(counter, settings)  # its Redis, gone
        for _ in range(3):
            r = await client.get(f"/v1/games/{game_id}", headers=auth)
            assert r.status_code == 200, r.text
            assert "ratelimit-limit" not in r.headers
        assert redis is not None
        await redis.aclose()


HOSTILE: list[bytes] = [
    b"",
    b"null",
    b"[]",
    b"{}",
    b"\xff\xfe\x00",
    b'{"a":',
    b"[" * 100_000,
    b"{" * 60_000,
    b'{"action": {"type": "\\ud800"}, "expected_version": 1}',
    b'{"action": {"type": "take_ittybit", "x": "\\u0000"}, "expected_version": 1}',
    b'{"action": {"type": "take_ittybit"}, "expected_version": 99999999999999999999999}',
    b'{"action": {"type": "take_ittybit"}, "expected_version": -1}',
    b'{"action": {"type": 1e400}, "expected_version": NaN}',
    b'{"action": {"type": "take_ittybit", "n": 123456789012345678901234567890}, "expected_version": 11}',
    b'{"action": {"type": "take_ittybit"}, "action": [], "expected_version": 11}',
    b'{"name": "' + b"\\u0000" * 100 + b'"}',
    b'{"game": "itty-bitty", "seats": 99999999999999999999, "options": {"a": [1e999]}}',
    b'{"game": "itty-bitty", "seats": 2, "timing": {"per_move_s": 1e308}}',
    b'{"seat": -99999999999999999999}',
    b'{"level": "\\udfff", "seat": 1.5}',
    b'{"fill_bots": {"a": "b"}}',
    b'"' + b"\\" * 1001 + b'"',
]


async def test_nothing_a_client_sends_is_a_500(pool: asyncpg.Pool, settings: Settings) -> None:
    off = {f"rate_limit_{kind}": "off" for kind in ("register", "action", "write", "read")}
    settings = msgspec.structs.replace(settings, **off)
    async with table(pool, settings) as t:
        for body in HOSTILE:
            for path in ("/actions", "/claim", "/resign"):
                r = await t.post(0, body, path=path)
                assert r.status_code < 500, (path, body[:80], r.text)
    async with serving(lobby_app(settings)) as client:
        r = await client.post("/v1/players", json={"name": "Ada"})
        auth = {"authorization": f"Bearer {r.json()['token']}"}
        room = (
            await client.post("/v1/rooms", json={"game": "itty-bitty", "seats": 2}, headers=auth)
        ).json()
        paths = [
            "/v1/players",
            "/v1/rooms",
            *(f"/v1/rooms/{room['id']}/{a}" for a in ("join", "bots", "start")),
        ]
        for body in HOSTILE:
            for path in paths:
                for content_type in ("application/json", "text/plain"):
                    headers = {**auth, "content-type": content_type}
                    r = await client.post(path, content=body, headers=headers)
                    assert r.status_code < 500, (path, body[:80], r.text)


async def test_options_names_every_method_of_a_path_with_several_handlers(
    settings: Settings,
) -> None:
    # GET and POST /v1/rooms are two handlers; Litestar alone would answer "GET, OPTIONS"
    async with serving(lobby_app(settings)) as lobby:
        allowed = await lobby.options("/v1/rooms")
        assert allowed.status_code == 204
        assert set(allowed.headers["allow"].split(", ")) == {"GET", "OPTIONS", "POST"}
        tokens = await lobby.options("/v1/players/me/tokens")
        assert set(tokens.headers["allow"].split(", ")) == {"DELETE", "OPTIONS", "POST"}
        one = await lobby.options("/v1/catalog")
        assert set(one.headers["allow"].split(", ")) == {"GET", "OPTIONS"}
