"""Outbox relay: publish committed events to the games stream in commit-safe order.

python -m services.game.relay — one active relay at a time (advisory lock); others wait.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import UTC, datetime

import asyncpg
import msgspec
from redis.exceptions import RedisError

from contracts.streams import GAMES, GameEvent
from infra.eventstore.api import StoredEvent
from infra.eventstore.outbox import Outbox, PostgresOutbox
from infra.metrics import RELAY_LAG_EVENTS, RELAY_LAG_SECONDS, serve_metrics
from infra.migrate import ensure_database, migrate
from infra.process import run_until_signalled
from infra.settings import Settings
from infra.streams import Streams
from infra.streams.redis import RedisStreams

log = logging.getLogger(__name__)
RELAY_LOCK = 0x72656C61  # "rela"
CONSUMER = "relay:games"


def envelope(event: StoredEvent) -> GameEvent:
    m = event.metadata
    return GameEvent(
        game_id=event.stream_id.removeprefix("game-"),
        game=m.get("game", ""),
        room_id=m.get("room_id"),
        version=event.version,
        type=event.type,
        to_act=list(m.get("to_act", [])),
        status=m.get("status", "active"),
        bots=dict(m.get("bots", {})),
        batch_end=bool(m.get("batch_end", True)),
        global_position=event.global_position,
    )


async def relay_once(
    outbox: Outbox, streams: Streams, stream: str, limit: int = 500, consumer: str = CONSUMER
) -> int:
    """Publish the next batch and checkpoint it. At-least-once: consumers dedupe by version."""
    checkpoint = await outbox.load_checkpoint(consumer)
    batch = await outbox.batch(checkpoint, limit)
    oldest = batch[0][1].recorded_at if batch else None
    RELAY_LAG_SECONDS.set((datetime.now(UTC) - oldest).total_seconds() if oldest else 0.0)
    RELAY_LAG_EVENTS.set(len(batch))
    for _, event in batch:
        await streams.publish(stream, msgspec.json.encode(envelope(event)))
    if batch:
        await outbox.save_checkpoint(consumer, batch[-1][0])
    return len(batch)


# What a lost Postgres or Redis connection raises: the relay reconnects (and re-locks).
# InternalClientError: asyncpg's connection left mid-operation by a server shutting down
# ("cannot switch to state 12; another operation (2) is in progress"); the relay died of it
# in test_faults' Postgres restart, leaving the games stream silent.
CONNECTION_ERRORS = (
    OSError,
    asyncpg.PostgresError,
    asyncpg.InterfaceError,
    asyncpg.InternalClientError,
    RedisError,
)


async def run(settings: Settings, stop: asyncio.Event, poll_seconds: float = 0.5) -> None:
    """Relay until stopped, reconnecting after any lost connection; its metrics on
    METRICS_PORT (none when 0)."""
    serve_metrics(settings.metrics_port)
    while not stop.is_set():
        try:
            await _relay(settings, stop, poll_seconds)
        except CONNECTION_ERRORS as exc:
            log.warning("relay lost a connection (%r); reconnecting", exc)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 1)


async def _relay(settings: Settings, stop: asyncio.Event, poll_seconds: float) -> None:
    await ensure_database(settings.database_url)
    conn = await asyncpg.connect(settings.database_url)
    streams = RedisStreams.from_url(settings.redis_url)
    wake = asyncio.Event()
    try:
        await migrate(conn)
        # A session lock: it goes with the connection, so a dead relay frees it at once.
        while not await conn.fetchval("SELECT pg_try_advisory_lock($1)", RELAY_LOCK):
            log.info("another relay is active; standing by")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 2)
            if stop.is_set():
                return
        await conn.add_listener("turnpost_events", lambda *_: wake.set())
        outbox = PostgresOutbox(conn)
        stream = settings.stream(GAMES)
        log.info("relay active, publishing to %s", stream)
        while not stop.is_set():
            wake.clear()
            if await relay_once(outbox, streams, stream):
                continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(wake.wait(), poll_seconds)
    finally:
        await streams.close()
        if not conn.is_closed():
            await conn.close()


if __name__ == "__main__":
    run_until_signalled(run)
