"""Wire the lobby once: pool, streams, the games-stream consumer, the start and fill sweeps."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import AsyncIterator, Sequence

import msgspec
import redis.asyncio as aioredis
from litestar import Litestar
from redis.exceptions import RedisError

from contracts.streams import (
    FINISHED,
    GROUPS,
    LIFECYCLE,
    LOBBY,
    NEWS,
    GameEvent,
    RoomStarted,
    begins,
    told_when_recorded,
)
from infra.auth.keys import check_secrets
from infra.auth.tokens import PostgresTokenLedger, Tokens
from infra.servers.db import create_pool, redis_options
from infra.servers.errors import is_transient
from infra.servers.migrate import ensure_database, migrate
from infra.settings import Settings, from_env
from infra.streams import Message, Streams
from infra.streams.consumer import Consumer
from infra.streams.redis import RedisStreams
from services.lobby.invitations import RoomInvitations
from services.lobby.matching import Matchmaker
from services.lobby.profiles import Profiles
from services.lobby.ratings import Ratings
from services.lobby.rematches import Rematches
from services.lobby.rooms import Lobby

log = logging.getLogger(__name__)
_game_event = msgspec.json.Decoder(GameEvent)
FILL_EVERY_S = 1.0  # how late a timed fill may be (the shortest wait is 5 s)


def on_game_event(lobby: Lobby):  # type: ignore[no-untyped-def]
    async def handle(message: Message) -> None:
        event = _game_event.decode(message.payload)
        if event.room_id and (begins(event) or event.status == "finished"):
            await lobby.game_moved(event.room_id, event.game_id, event.status)

    return handle


class OnGameFinished:
    """The ratings consumer: each finished game recorded and rated once (ratings.py). A
    batch's finished games are rated together (`prepare`: one transaction); a message whose
    batch failed is rated alone by the handler.

    Then each finished game's envelope goes on to the FINISHED stream, whence its
    `game_finished` news is told with the rating changes in it (contracts/streams.py). Only
    after the commit, and before the ack: a process killed in between records nothing twice
    (the redelivered game's row is there) and publishes again, which the notifier's delivery
    keys make one delivery."""

    def __init__(self, ratings: Ratings, streams: Streams, finished: str) -> None:
        self.ratings = ratings
        self.streams, self.finished = streams, finished
        self.done: set[str] = set()  # message ids their batch recorded and published

    @staticmethod
    def _finished(message: Message) -> GameEvent | None:
        event = _game_event.decode(message.payload)
        return event if event.status == "finished" and event.batch_end else None

    async def prepare(self, messages: Sequence[Message]) -> None:
        found = [(m, e) for m in messages if (e := self._finished(m)) is not None]
        if found:
            await self.ratings.games_finished([(e.game_id, e.room_id, e.game) for _, e in found])
            for m, e in found:
                await self._publish(m, e)
            self.done.update(m.id for m, _ in found)

    async def handle(self, message: Message) -> None:
        if message.id in self.done:
            self.done.discard(message.id)
        elif (event := self._finished(message)) is not None:
            await self.ratings.game_finished(event.game_id, event.room_id, event.game)
            await self._publish(message, event)

    async def _publish(self, message: Message, event: GameEvent) -> None:
        if told_when_recorded(event):
            await self.streams.publish(self.finished, message.payload)


async def announce(streams: Streams, settings: Settings, message: RoomStarted) -> None:
    """Tell the game service a room started. If this fails or the message is lost, the start
    sweep (republish_stuck) sends it again; the game side is idempotent."""
    try:
        await streams.publish(settings.stream(LOBBY), msgspec.json.encode(message))
    except RedisError as exc:
        log.warning(
            "RoomStarted for %s not published yet (%r); the sweep will retry", message.room_id, exc
        )


async def fill_rooms(
    lobby: Lobby, streams: Streams, settings: Settings, every: float = FILL_EVERY_S
) -> None:
    """The timed fill, in every lobby process: Lobby.fill_due takes each due room once."""
    while True:
        try:
            for message in await lobby.fill_due():
                await announce(streams, settings, message)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if is_transient(exc):
                log.warning("filling rooms: Postgres or Redis unreachable (%r); retrying", exc)
            else:
                log.exception("filling rooms failed")
        await asyncio.sleep(every)


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
    pool = await create_pool(
        settings.database_url, settings.db_pool_min, settings.db_pool_max, settings
    )
    async with pool.acquire() as conn:
        await migrate(conn)
    streams = RedisStreams(aioredis.Redis.from_url(settings.redis_url, **redis_options(settings)))
    lobby = Lobby(pool, settings.max_open_rooms_per_player)
    app.state.lobby = lobby
    app.state.matchmaker = Matchmaker(lobby)
    app.state.invitations = RoomInvitations(lobby, streams, settings.stream(NEWS))
    app.state.rematches = Rematches(app.state.invitations)
    ratings = Ratings(pool)
    app.state.profiles = Profiles(pool)
    app.state.tokens = Tokens(keyring, PostgresTokenLedger(pool), require_player=True)
    app.state.streams = streams
    app.state.pool = pool  # what /ready asks
    app.state.redis = streams.r
    consumer = Consumer(
        streams,
        settings.stream(LIFECYCLE),
        "lobby",
        f"lobby-{os.getpid()}",
        on_game_event(lobby),
        groups=GROUPS[LIFECYCLE],
        max_deliveries=settings.max_deliveries,
        linger_s=settings.follow_linger_s,
    )
    rated = OnGameFinished(ratings, streams, settings.stream(FINISHED))
    rater = Consumer(
        streams,
        settings.stream(LIFECYCLE),
        "ratings",
        f"ratings-{os.getpid()}",
        rated.handle,
        prepare=rated.prepare,
        groups=GROUPS[LIFECYCLE],
        max_deliveries=settings.max_deliveries,
        linger_s=settings.follow_linger_s,
    )
    tasks = [
        asyncio.create_task(consumer.run()),
        asyncio.create_task(rater.run()),
        asyncio.create_task(republish_stuck(lobby, streams, settings)),
        asyncio.create_task(fill_rooms(lobby, streams, settings)),
    ]
    app.state.background = tasks
    try:
        yield
    finally:
        consumer.stop()
        rater.stop()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await streams.close()
        await pool.close()
