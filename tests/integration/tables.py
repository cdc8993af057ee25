"""Games set up straight from a RoomStarted, on the real Postgres adapters."""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Iterator
from typing import Any

import asyncpg
import redis

from contracts.streams import RoomStarted, StartedSeat
from infra.eventstore.postgres import PostgresEventStore
from infra.settings import Settings
from services.game.live import Waiters
from services.game.repository import PostgresGamesRepository
from services.game.service import GameService


def game_service(pool: asyncpg.Pool) -> GameService:
    return GameService(PostgresEventStore(pool), PostgresGamesRepository(pool), Waiters())


async def new_game(
    service: GameService,
    bots: list[str | None],
    game: str = "itty-bitty",
    options: dict[str, Any] | None = None,
) -> tuple[str, list[str]]:
    """A game with one seat per entry of `bots` (None: a person); its id and player ids."""
    room = f"room-{uuid.uuid4()}"
    players = [f"{room}-{seat}" for seat in range(len(bots))]
    seats = [
        StartedSeat(seat=seat, player_id=players[seat], name=f"p{seat}", bot=level)
        for seat, level in enumerate(bots)
    ]
    game_id = await service.create_from_room(
        RoomStarted(room_id=room, game=game, seats=seats, options=options or {})
    )
    return game_id, players


def bot_settings(database_url: str, redis_url: str, name: str, **kw: Any) -> Iterator[Settings]:
    """A bot worker's settings on a stream prefix of its own, whose Redis keys go after (the
    body of a fixture: `yield from bot_settings(...)`)."""
    prefix = f"test-{name}-{uuid.uuid4().hex[:8]}:"
    yield Settings(
        database_url=database_url,
        redis_url=redis_url,
        stream_prefix=prefix,
        secret=secrets.token_urlsafe(48),
        **kw,
    )
    r = redis.Redis.from_url(redis_url)
    keys = list(r.scan_iter(match=f"{prefix}*"))
    if keys:
        r.delete(*keys)
    r.close()
