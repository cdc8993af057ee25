"""Wire the lobby once: pool, streams, the games-stream consumer and the start sweep."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import AsyncIterator

import msgspec
from litestar import Litestar

from contracts.streams import GAMES, GROUPS, LOBBY, GameEvent
from infra.db import create_pool
from infra.keys import check_secrets
from infra.migrate import ensure_database, migrate
from infra.settings import Settings, from_env
from infra.streams import Message, Streams
from infra.streams.consumer import Consumer
from infra.streams.redis import RedisStreams
from infra.tokens import PostgresTokenLedger, Tokens
from services.lobby.rooms import Lobby

log = logging.getLogger(__name__)
_game_event = msgspec.json.Decoder(GameEvent)


def on_game_event(lobby: Lobby):  # type: ignore[no-untyped-def]
    async def handle(message: Message) -> None:
        event = _game_event.decode(message.payload)
        if event.room_id and (event.version == 1 or event.status == "finished"):
            await lobby.game_moved(event.room_id, event.game_id, event.status)

    return handle


async def republish_stuck(
    lobby: Lobby, streams: Streams, settings: Settings, every: float = 5
) -> None:
    while True:
        await asyncio.sleep(every)
        try:
            for message in await lobby.stuck_starting(older_than_seconds=every):
                await streams.publish(settings.stream(LOBBY), msgspec.json.encode(message))
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("republishing stuck rooms failed")


@contextlib.asynccontextmanager
async def lifespan(app: Litestar) -> AsyncIterator[None]:
    settings: Settings = app.state.settings or from_env()
    app.state.settings = settings
    keyring = check_secrets(settings)  # refuses forgeable keys before anything starts
    await ensure_database(settings.database_url)
    pool = await create_pool(settings.database_url)
    async with pool.acquire() as conn:
        await migrate(conn)
    streams = RedisStreams.from_url(settings.redis_url)
    lobby = Lobby(pool)
    app.state.lobby = lobby
    app.state.tokens = Tokens(keyring, PostgresTokenLedger(pool), require_player=True)
    app.state.streams = streams
    consumer = Consumer(
        streams,
        settings.stream(GAMES),
        "lobby",
        f"lobby-{os.getpid()}",
        on_game_event(lobby),
        groups=GROUPS[GAMES],
        max_deliveries=settings.max_deliveries,
    )
    tasks = [
        asyncio.create_task(consumer.run()),
        asyncio.create_task(republish_stuck(lobby, streams, settings)),
    ]
    app.state.background = tasks
    try:
        yield
    finally:
        consumer.stop()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await streams.close()
        await pool.close()
