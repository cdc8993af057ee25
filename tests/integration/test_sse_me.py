"""GET /v1/me/stream against real Postgres and Redis, with the relay: a player hears their own
games' news (game_started, your_turn, deadline_soon) and nobody else's."""

from __future__ import annotations

import asyncio
import contextlib
import random
import uuid
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import httpx
import msgspec
import pytest

from contracts.streams import RoomStarted, StartedSeat
from services.game import relay
from tests.integration.tables import game_service
from tests.integration.test_sse import Sse, auth, play, served, settings_for


@contextlib.asynccontextmanager
async def news(client: httpx.AsyncClient, player: str) -> AsyncIterator[Sse]:
    async with client.stream("GET", "/v1/me/stream", headers=auth(player), timeout=30) as r:
        assert r.status_code == 200, await r.aread()
        assert r.headers["content-type"].startswith("text/event-stream")
        sse = Sse(r)
        try:
            line = await sse.line(5)
            assert line is not None and line.startswith(": news of player"), line
            yield sse
        finally:
            await sse.close()


async def heard(sse: Sse, seconds: float) -> list[dict[str, Any]]:
    """Every event within `seconds`."""
    got: list[dict[str, Any]] = []
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(seconds):
            while (event := await sse.next(seconds)) is not None:
                got.append(event)
    return got


@pytest.fixture
async def relaying(database_url: str, redis_url: str, stream_prefix: str) -> AsyncIterator[Any]:
    prefix = f"{stream_prefix}me-{uuid.uuid4().hex[:6]}:"
    settings = settings_for(database_url, redis_url, prefix)
    stop = asyncio.Event()
    task = asyncio.create_task(relay.run(settings, stop, poll_seconds=0.1))
    try:
        yield settings
    finally:
        stop.set()
        await task


async def test_your_turn_reaches_the_right_player_only(relaying: Any, pool: asyncpg.Pool) -> None:
    room = f"room-{uuid.uuid4()}"
    players = [f"{room}-{s}" for s in range(2)]
    outsider = f"outsider-{uuid.uuid4()}"
    svc = game_service(pool)
    async with served(relaying) as game:
        async with (
            news(game.client, players[0]) as p0,
            news(game.client, players[1]) as p1,
            news(game.client, outsider) as nobody,
        ):
            assert sorted(game.app.state.news.listening().values()) == [1, 1, 1]
            game_id = await svc.create_from_room(
                RoomStarted(
                    room_id=room,
                    game="itty-bitty",
                    seats=[StartedSeat(seat=s, player_id=p, name=p) for s, p in enumerate(players)],
                )
            )
            # the set-up: both choose a collector at once
            for seat, sse in enumerate((p0, p1)):
                got = await heard(sse, 3)
                assert [e["event"] for e in got] == ["game_started", "your_turn"], got
                assert all(e["data"]["player_id"] == players[seat] for e in got)
                assert all(e["data"]["game_id"] == game_id for e in got)
                assert got[1]["data"]["seat"] == seat and "view" not in got[1]["data"]
            # on until a seat must act that did not before (derive's your_turn)
            rng = random.Random(7)
            loaded = await svc.load(game_id)
            while True:
                before = svc.to_act(loaded.rules, loaded.state)
                await play(svc, game_id, 1, rng)
                loaded = await svc.load(game_id)
                to_act = sorted(svc.to_act(loaded.rules, loaded.state) - before)
                if to_act:
                    break
            [turn] = to_act
            mine = await heard((p0, p1)[turn], 3)
            assert [(e["event"], e["data"]["version"]) for e in mine][-1] == (
                "your_turn",
                loaded.version,
            )
            theirs = await heard((p1, p0)[turn], 0.5)
            assert all(e["data"]["player_id"] == players[1 - turn] for e in theirs)
            assert ("your_turn", loaded.version) not in [
                (e["event"], e["data"]["version"]) for e in theirs
            ]
            assert await heard(nobody, 0.5) == [] and "heartbeat" in nobody.comments
        for _ in range(100):
            if not game.app.state.news.listening():
                break
            await asyncio.sleep(0.05)
        assert game.app.state.news.listening() == {}


async def test_deadline_soon_once_per_deadline(relaying: Any, pool: asyncpg.Pool) -> None:
    """A 10 s clock, told 8 s ahead: about 2 s after the turn starts, once."""
    settings = msgspec.structs.replace(relaying, deadline_soon_s=8.0)
    room = f"room-{uuid.uuid4()}"
    players = [f"{room}-{s}" for s in range(2)]
    svc = game_service(pool)
    async with served(settings) as game, news(game.client, players[0]) as p0:
        await svc.create_from_room(
            RoomStarted(
                room_id=room,
                game="itty-bitty",
                seats=[StartedSeat(seat=s, player_id=p, name=p) for s, p in enumerate(players)],
                timing={"per_move_s": 10, "on_timeout": "wait"},
            )
        )
        got = await heard(p0, 4.5)
    kinds = [e["event"] for e in got]
    assert kinds == ["game_started", "your_turn", "deadline_soon"], got
    soon = got[2]["data"]
    assert soon["seat"] == 0 and soon["deadline"] == got[1]["data"]["deadline"] is not None
