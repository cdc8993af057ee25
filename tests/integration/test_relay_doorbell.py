"""The relay's doorbell (services/game/relay.py): an append rung by the game service reaches
the games stream at once, not at the relay's next poll; a ring nobody hears costs nothing."""

from __future__ import annotations

import asyncio
import time
import uuid

import asyncpg
import redis.asyncio as aioredis

from infra.servers.db import redis_options
from infra.settings import Settings
from services.game import relay
from services.game.relay import Doorbell, doorbell_channel
from tests.conftest import fresh_database
from tests.integration.test_relay import _insert

POLL_S = 20.0  # the relay's poll, far longer than the test waits


async def _on_stream(r: aioredis.Redis, stream: str, game: str, seconds: float) -> float | None:
    """When the game's first event was on the stream, or None after `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        entries = await r.xrange(stream)
        if any(game.removeprefix("game-").encode() in fields[b"m"] for _, fields in entries):
            return time.monotonic()
        await asyncio.sleep(0.02)
    return None


async def test_an_append_rung_reaches_the_stream_without_waiting_for_the_poll(
    admin_dsn: str, redis_url: str, stream_prefix: str
) -> None:
    name = f"turnpost_doorbell_{uuid.uuid4().hex[:8]}"
    with fresh_database(admin_dsn, name) as url:
        settings = Settings(database_url=url, redis_url=redis_url, relay_lock_timeout_s=90.0,
                            stream_prefix=f"{stream_prefix}bell-{uuid.uuid4().hex[:6]}:")  # fmt: skip
        stop = asyncio.Event()
        task = asyncio.create_task(relay.run(settings, stop, poll_seconds=POLL_S))
        conn = await asyncpg.connect(url)
        r = aioredis.Redis.from_url(redis_url, **redis_options(settings))
        stream = settings.stream("turnpost:games")
        bell = Doorbell(r, doorbell_channel(settings))
        try:
            first = f"game-{uuid.uuid4()}"  # the relay's first read publishes this one
            await _insert(conn, first, 1)
            assert await _on_stream(r, stream, first, 30) is not None
            await asyncio.sleep(0.5)  # the relay now waits on its poll (and the bell)

            quiet = f"game-{uuid.uuid4()}"  # appended, never rung: waits for the poll
            await _insert(conn, quiet, 1)
            assert await _on_stream(r, stream, quiet, 1.5) is None

            rung = f"game-{uuid.uuid4()}"
            await _insert(conn, rung, 1)
            began = time.monotonic()
            bell.ring()
            bell.ring()  # rung twice at once: one publish in flight, one more after
            heard = await _on_stream(r, stream, rung, 5)
            assert heard is not None and heard - began < 2.0
            assert await _on_stream(r, stream, quiet, 0.1) is not None  # read with it
        finally:
            stop.set()
            await asyncio.gather(task, return_exceptions=True)
            await r.delete(stream, f"{stream}:relayed")
            await r.aclose()
            await conn.close()


async def test_a_ring_with_redis_away_is_dropped_quietly() -> None:
    r = aioredis.Redis.from_url("redis://127.0.0.1:1/0", socket_connect_timeout=0.2)
    bell = Doorbell(r, "nobody")
    bell.ring()
    assert bell._task is not None
    await bell._task  # no exception: the relay's poll finds the append anyway
    await r.aclose()


async def test_the_rings_of_one_moment_are_one_publish(redis_url: str) -> None:
    """A ring on a quiet service is published at once; the rings made while it is published
    and for `linger_s` after it are one PUBLISH more (and so cost the relay one read of the
    outbox), not one each; once that is done, a ring is published at once again."""
    r = aioredis.Redis.from_url(redis_url)
    channel = f"bell-{uuid.uuid4().hex}"
    heard: list[float] = []
    async with r.pubsub() as ps:
        await ps.subscribe(channel)
        bell = Doorbell(r, channel, linger_s=0.5)

        async def hear(seconds: float) -> None:
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline:
                message = await ps.get_message(ignore_subscribe_messages=True, timeout=0.02)
                if message is not None:
                    heard.append(time.monotonic())

        began = time.monotonic()
        bell.ring()
        await hear(0.2)
        assert len(heard) == 1 and heard[0] - began < 0.2  # at once, not after the linger
        for _ in range(20):  # within the linger after the first
            bell.ring()
            await asyncio.sleep(0)
        assert bell._task is not None
        await bell._task
        await hear(0.2)
        assert len(heard) == 2 and heard[1] - heard[0] >= 0.45  # one more, after the linger
        again = time.monotonic()
        bell.ring()
        await hear(0.2)
        assert len(heard) == 3 and heard[2] - again < 0.2
        await bell._task  # its linger over, with no ring in it: nothing more
        await hear(0.05)
        assert len(heard) == 3
        bell.ring()  # published at once; its linger is cut short by close
        await hear(0.1)
        waiting = bell._task
        assert len(heard) == 4 and not waiting.done()
        await bell.close()
        assert waiting.cancelled()
    await r.aclose()
