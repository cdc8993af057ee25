"""Wire the game service once: pool, store, streams, consumers (real or in-memory)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import redis.asyncio as aioredis
from litestar import Litestar

from contracts.streams import COMMANDS, GAMES, GROUPS, LOBBY
from infra.auth.keys import check_secrets
from infra.auth.tokens import (
    CachedTokenLedger,
    MemoryTokenLedger,
    PostgresTokenLedger,
    TokenLedger,
    Tokens,
)
from infra.eventstore.memory import MemoryEventStore
from infra.eventstore.postgres import PostgresEventStore
from infra.servers.db import create_pool, redis_options
from infra.servers.migrate import ensure_database, migrate
from infra.settings import Settings, from_env
from infra.streams.consumer import Consumer
from infra.streams.memory import MemoryStreams
from infra.streams.redis import RedisStreams
from services.game.consumers import command_game, on_command, on_room_started
from services.game.live import Waiters, follow_games_stream
from services.game.relay import Doorbell, doorbell_channel
from services.game.repository import MemoryGamesRepository, PostgresGamesRepository
from services.game.service import GameService

log = logging.getLogger(__name__)


@contextlib.asynccontextmanager
async def lifespan(app: Litestar) -> AsyncIterator[None]:
    settings: Settings = app.state.settings or from_env()
    app.state.settings = settings
    keyring = check_secrets(settings)  # refuses forgeable keys before anything starts
    waiters = Waiters()
    pool: asyncpg.Pool | None = None
    doorbell: Doorbell | None = None
    streams: Any
    if app.state.embedded:
        store = MemoryEventStore()
        service = GameService(store, MemoryGamesRepository(store), waiters, settings.snapshot_every)
        streams = MemoryStreams()
        ledger: TokenLedger = MemoryTokenLedger()  # no players table: no token ends here
    else:
        await ensure_database(settings.database_url)
        pool = await create_pool(
            settings.database_url, settings.db_pool_min, settings.db_pool_max, settings
        )
        async with pool.acquire() as conn:
            await migrate(conn)
        streams = RedisStreams(
            aioredis.Redis.from_url(settings.redis_url, **redis_options(settings))
        )
        doorbell = Doorbell(streams.r, doorbell_channel(settings))
        service = GameService(
            PostgresEventStore(pool, settings.append_lanes),
            PostgresGamesRepository(pool),
            waiters,
            settings.snapshot_every,
            appended=doorbell.ring,
        )
        # The lobby's players table, remembered per player for token_check_ttl_s.
        ledger = CachedTokenLedger(PostgresTokenLedger(pool), settings.token_check_ttl_s)
    app.state.tokens = Tokens(keyring, ledger, require_player=False)
    app.state.service = service
    app.state.streams = streams
    app.state.pool = pool  # what /ready asks (none embedded)
    app.state.redis = None if app.state.embedded else streams.r
    name = f"game-{os.getpid()}"
    consumers = [
        Consumer(
            streams,
            settings.stream(LOBBY),
            "game",
            name,
            on_room_started(service),
            groups=GROUPS[LOBBY],
            max_deliveries=settings.max_deliveries,
        ),
        Consumer(
            streams,
            settings.stream(COMMANDS),
            "game",
            name,
            on_command(service, settings.command_key()),
            groups=GROUPS[COMMANDS],
            max_deliveries=settings.max_deliveries,
            key=command_game,  # games apart, each game's commands in order
            concurrency=settings.command_concurrency,
        ),
    ]
    tasks = [asyncio.create_task(c.run()) for c in consumers]
    follow = follow_games_stream(streams, settings.stream(GAMES), waiters, settings.tail_linger_s)
    tasks.append(asyncio.create_task(follow))
    app.state.background = tasks
    try:
        yield
    finally:
        for c in consumers:
            c.stop()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if doorbell is not None:
            await doorbell.close()
        await streams.close()
        if pool is not None:
            await pool.close()
