"""Ending a token ends what it opened: a game's stream, the player's news stream and a
long-poll of the feed, opened with a token its player then ends (DELETE
/v1/players/me/tokens at the lobby) or whose `exp` passes while they run, end within the
game service's TOKEN_CHECK_TTL_S; a stream with a comment that says why, a long-poll with
the 401 a new request gets. Real Postgres and Redis, the lobby and the game service."""

from __future__ import annotations

import asyncio
import contextlib
import random
import secrets
import time
import uuid
from collections.abc import AsyncIterator

import asyncpg
import httpx
import msgspec
import pytest

from contracts.streams import RoomStarted, StartedSeat
from infra.auth.bearer import issue
from infra.settings import Settings
from services.game.app import create_app as game_app
from services.game.service import GameService
from services.lobby.app import create_app as lobby_app
from tests.integration.serve import serving
from tests.integration.tables import game_service

TTL_S = 1.0  # the game service's token check, short here
SLACK_S = 0.5  # scheduling, a busy test machine
HEARTBEAT_S = 30.0  # no heartbeat could be what ends them


@pytest.fixture
def settings(database_url: str, redis_url: str, stream_prefix: str) -> Settings:
    return Settings(
        database_url=database_url,
        redis_url=redis_url,
        secret=secrets.token_urlsafe(48),
        stream_prefix=f"{stream_prefix}ended-{uuid.uuid4().hex[:6]}:",
        token_check_ttl_s=TTL_S,
        sse_heartbeat_s=HEARTBEAT_S,
        rate_limit_read="100000/minute",
        rate_limit_write="100000/minute",
        rate_limit_register="100000/minute",
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


class Lines:
    """An open stream's lines, each with when it arrived; None once the server ended it."""

    def __init__(self, response: httpx.Response) -> None:
        self.response = response
        self.got: list[tuple[float, str]] = []
        self.ended_at: float | None = None
        self._task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for line in self.response.aiter_lines():
            self.got.append((time.monotonic(), line))
        self.ended_at = time.monotonic()

    async def ended(self, seconds: float) -> float:
        """When the server ended the stream; TimeoutError if it did not within `seconds`."""
        await asyncio.wait_for(asyncio.shield(self._task), seconds)
        assert self.ended_at is not None
        return self.ended_at

    def ids(self) -> list[int]:
        return [int(line[4:]) for _, line in self.got if line.startswith("id: ")]

    def comments(self) -> list[str]:
        return [line[1:].strip() for _, line in self.got if line.startswith(":")]

    async def close(self) -> None:
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError, httpx.HTTPError):
            await self._task


@contextlib.asynccontextmanager
async def opened(client: httpx.AsyncClient, path: str, token: str) -> AsyncIterator[Lines]:
    async with client.stream("GET", path, headers=bearer(token), timeout=60) as r:
        assert r.status_code == 200, await r.aread()
        lines = Lines(r)
        try:
            for _ in range(200):  # its opening comment: it is served from now on
                if lines.got:
                    break
                await asyncio.sleep(0.01)
            assert lines.got and lines.got[0][1].startswith(":"), lines.got
            yield lines
        finally:
            await lines.close()


async def register(lobby: httpx.AsyncClient, name: str) -> dict[str, str]:
    r = await lobby.post("/v1/players", json={"name": name})
    assert r.status_code == 201, r.text
    body: dict[str, str] = r.json()
    return body


async def seated(service: GameService, player_id: str) -> str:
    """A 3-seat itty bitty game with the player in seat 0 (people in the others)."""
    room = f"room-{uuid.uuid4()}"
    players = [player_id, f"{room}-1", f"{room}-2"]
    return await service.create_from_room(
        RoomStarted(
            room_id=room,
            game="itty-bitty",
            seats=[StartedSeat(seat=s, player_id=p, name=f"p{s}") for s, p in enumerate(players)],
        )
    )


async def end_others(lobby: httpx.AsyncClient, old: str) -> str:
    """The player's fresh token; `old` ended (the leaked-token recipe of docs/api.md)."""
    fresh = await lobby.post("/v1/players/me/tokens", headers=bearer(old))
    assert fresh.status_code == 201, fresh.text
    token: str = fresh.json()["token"]
    ended = await lobby.delete("/v1/players/me/tokens", headers=bearer(token))
    assert ended.status_code == 204, ended.text
    return token


async def move(service: GameService, game_id: str, rng: random.Random) -> int:
    loaded = await service.load(game_id)
    to_act = sorted(service.to_act(loaded.rules, loaded.state))
    if not to_act:
        return loaded.version
    seat = rng.choice(to_act)
    action = rng.choice(list(loaded.rules.legal_actions(loaded.state, seat)))
    accepted = await service.submit(
        game_id, seat, msgspec.to_builtins(action), loaded.version, uuid.uuid4(), False
    )
    return accepted.version


async def test_a_revoked_token_s_streams_close_within_the_ttl_and_nothing_follows_the_check(
    lobby: httpx.AsyncClient, game: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    ada = await register(lobby, "Ada")
    old = ada["token"]
    service = game_service(pool)
    game_id = await seated(service, ada["id"])
    rng = random.Random(7)
    async with (
        opened(game, f"/v1/games/{game_id}/stream", old) as events,
        opened(game, "/v1/me/stream", old) as news,
    ):
        await move(service, game_id, rng)
        await end_others(lobby, old)
        revoked = time.monotonic()
        # the game goes on meanwhile; the first answer of the game service that refuses the
        # token marks the check: whatever is appended after it reaches no stream of it
        refused_at: int | None = None
        while refused_at is None:
            assert time.monotonic() - revoked < TTL_S + SLACK_S, "requests still admitted"
            await move(service, game_id, rng)
            r = await game.get(f"/v1/games/{game_id}", headers=bearer(old))
            if r.status_code == 401:
                assert r.json()["code"] == "token_revoked"
                refused_at = (await service.load(game_id)).version
            await asyncio.sleep(0.05)
        after = [await move(service, game_id, rng) for _ in range(5)]
        assert after[-1] > refused_at  # moves that no stream of the old token may carry

        ended = await events.ended(TTL_S + SLACK_S + 1)
        assert ended - revoked <= TTL_S + SLACK_S, ended - revoked
        assert events.ids() and max(events.ids()) <= refused_at, (events.ids(), refused_at)
        assert events.comments()[-1].startswith("token_revoked"), events.comments()

        news_ended = await news.ended(TTL_S + SLACK_S + 1)
        assert news_ended - revoked <= TTL_S + SLACK_S, news_ended - revoked
        assert news.comments()[-1].startswith("token_revoked"), news.comments()

    # asked again, the stream is refused as any request: what an EventSource stops at
    r = await game.get(f"/v1/games/{game_id}/stream", headers=bearer(old))
    assert r.status_code == 401 and r.json()["code"] == "token_revoked"


async def test_a_long_poll_of_a_revoked_token_is_refused_within_the_ttl(
    lobby: httpx.AsyncClient, game: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    ada = await register(lobby, "Ada")
    old = ada["token"]
    service = game_service(pool)
    game_id = await seated(service, ada["id"])
    head = (await service.load(game_id)).version
    polling = asyncio.create_task(
        game.get(
            f"/v1/games/{game_id}/events",
            params={"after": head, "wait": 30},
            headers=bearer(old),
        )
    )
    await asyncio.sleep(0.2)  # it waits, nothing moves
    assert not polling.done()
    await end_others(lobby, old)
    revoked = time.monotonic()
    r = await asyncio.wait_for(polling, TTL_S + SLACK_S + 1)
    assert time.monotonic() - revoked <= TTL_S + SLACK_S
    assert r.status_code == 401 and r.json()["code"] == "token_revoked", r.text


async def test_an_expired_token_s_streams_and_long_polls_end_when_it_expires(
    lobby: httpx.AsyncClient, game: httpx.AsyncClient, pool: asyncpg.Pool, settings: Settings
) -> None:
    ada = await register(lobby, "Ada")
    service = game_service(pool)
    game_id = await seated(service, ada["id"])
    head = (await service.load(game_id)).version
    lasts_s = 2.0
    short = issue(settings.keyring().signing, ada["id"], "Ada", ttl_days=lasts_s / 86400)  # type: ignore[arg-type]
    expires = time.time() + lasts_s
    async with (
        opened(game, f"/v1/games/{game_id}/stream", short) as events,
        opened(game, "/v1/me/stream", short) as news,
    ):
        polling = asyncio.create_task(
            game.get(
                f"/v1/games/{game_id}/events",
                params={"after": head, "wait": 30},
                headers=bearer(short),
            )
        )
        bound = expires + TTL_S + SLACK_S - time.time() + 1
        r = await asyncio.wait_for(polling, bound)
        assert r.status_code == 401 and r.json()["code"] == "token_expired", r.text
        for lines in (events, news):
            await lines.ended(max(0.1, expires + TTL_S + SLACK_S - time.time()))
            assert lines.comments()[-1].startswith("token_expired"), lines.comments()
    assert time.time() - expires <= TTL_S + SLACK_S
