"""Run by test_redelivery: consume one command, then die by SIGKILL before acking it.

usage: python consumer_that_dies.py DATABASE_URL REDIS_URL STREAM (before|after)
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys

import asyncpg

from infra.auth.signing import derive_key
from infra.eventstore.postgres import PostgresEventStore
from infra.streams import Message
from infra.streams.consumer import Consumer
from infra.streams.redis import RedisStreams
from services.game.consumers import on_command
from services.game.live import Waiters
from services.game.repository import PostgresGamesRepository
from services.game.service import GameService


async def main(database_url: str, redis_url: str, stream: str, when: str) -> None:
    pool = await asyncpg.create_pool(database_url, min_size=1, max_size=2)
    service = GameService(PostgresEventStore(pool), PostgresGamesRepository(pool), Waiters())
    apply = on_command(service, derive_key("redelivery-test-secret-of-at-least-32-bytes"))

    async def handler(message: Message) -> None:
        if when == "before":
            os.kill(os.getpid(), signal.SIGKILL)
        await apply(message)
        os.kill(os.getpid(), signal.SIGKILL)  # the effect committed; the ack never comes

    consumer = Consumer(RedisStreams.from_url(redis_url), stream, "game", "doomed", handler)
    await consumer.step()
    raise SystemExit("no message to consume")


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:5]))
