"""The notifier's guarantees on real Postgres and Redis, its parts driven one by one: a crash
between writing the deliveries and pushing their tasks loses nothing (the redelivered entry
pushes them), news read twice is one delivery, a task pushed twice makes one attempt, and a
delivery whose task was lost is pushed again by the sweep."""

from __future__ import annotations

import asyncio
import uuid
from datetime import timedelta
from typing import Any

import asyncpg
import msgspec
import pytest
import redis.asyncio as aioredis

from contracts.streams import GAMES, RoomStarted, StartedSeat
from infra.settings import Settings
from infra.streams import Message
from infra.tasks import WEBHOOK_QUEUE
from services.game.relay import envelope
from services.game.repository import stream_id
from services.game.webhook_store import new_secret
from services.notifier.notifier import Notifier
from services.notifier.worker import Courier
from tests.integration.tables import game_service
from tests.integration.test_webhooks_delivery import receiving

pytestmark = pytest.mark.integration


class Away:
    """A Redis that is gone by the time the tasks are pushed (the process died there)."""

    def pipeline(self, **_: Any) -> Away:
        return self

    def lpush(self, *_: Any) -> None:
        pass

    async def execute(self) -> None:
        raise ConnectionError("the notifier died before its tasks were pushed")


@pytest.fixture
def settings(database_url: str, redis_url: str, stream_prefix: str) -> Settings:
    return Settings(
        database_url=database_url,
        redis_url=redis_url,
        stream_prefix=f"{stream_prefix}notifier-{uuid.uuid4().hex[:6]}:",
        webhook_allow_private=True,
        webhook_allow_http=True,
        webhook_backoff_base_s=0.2,
    )


async def hook(pool: asyncpg.Pool, player: str, url: str) -> str:
    hook_id = uuid.uuid4()
    await pool.execute(
        "INSERT INTO webhooks (id, player_id, url, events, secret) VALUES ($1, $2, $3, $4, $5)",
        hook_id,
        player,
        url,
        ["game_started", "your_turn"],
        new_secret(),
    )
    return str(hook_id)


async def set_up(pool: asyncpg.Pool, players: list[str]) -> tuple[str, Message]:
    """A game of these people, and the games stream's entry of its set-up's last event."""
    service = game_service(pool)
    room = f"room-{uuid.uuid4()}"
    game_id = await service.create_from_room(
        RoomStarted(
            room_id=room,
            game="itty-bitty",
            seats=[StartedSeat(seat=i, player_id=p) for i, p in enumerate(players)],
        )
    )
    last = (await service.store.read(stream_id(game_id)))[-1]
    payload = msgspec.json.encode(envelope(last))
    return game_id, Message(stream=GAMES, id="1-0", payload=payload)


async def queued(r: aioredis.Redis, settings: Settings) -> list[str]:
    """The delivery ids of the tasks waiting on the webhooks queue."""
    import base64

    out = []
    for raw in await r.lrange(settings.stream_prefix + WEBHOOK_QUEUE, 0, -1):
        message = msgspec.json.decode(raw)
        args, _, _ = msgspec.json.decode(base64.b64decode(message["body"]))
        out.append(args[0])
    return sorted(out)


async def pending(pool: asyncpg.Pool, hook_id: str) -> list[str]:
    rows = await pool.fetch(
        "SELECT id FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'pending'",
        uuid.UUID(hook_id),
    )
    return sorted(r["id"] for r in rows)


async def test_a_crash_between_the_rows_and_the_tasks_loses_nothing(
    pool: asyncpg.Pool, redis_client: aioredis.Redis, settings: Settings
) -> None:
    ada = f"ada-{uuid.uuid4().hex[:6]}"
    hook_id = await hook(pool, ada, "http://127.0.0.1:9/hook")
    _, entry = await set_up(pool, [ada, f"bob-{uuid.uuid4().hex[:6]}"])

    with pytest.raises(ConnectionError):  # the consumer does not ack: the entry comes back
        await Notifier(pool, Away(), settings).on_message(entry)  # type: ignore[arg-type]
    rows = await pending(pool, hook_id)
    assert len(rows) == 2  # game_started and your_turn, written before the push
    assert await queued(redis_client, settings) == []

    notifier = Notifier(pool, redis_client, settings)
    await notifier.on_message(entry)  # the redelivered entry
    assert await pending(pool, hook_id) == rows  # the same deliveries, not new ones
    assert await queued(redis_client, settings) == rows  # and now their tasks

    await notifier.on_message(entry)  # read once more (another notifier, a replay)
    assert await pending(pool, hook_id) == rows
    assert await queued(redis_client, settings) == sorted(rows + rows)  # pushed again: harmless


async def test_a_task_pushed_twice_makes_one_attempt_and_a_lost_one_is_pushed_again(
    pool: asyncpg.Pool, redis_client: aioredis.Redis, settings: Settings
) -> None:
    ada = f"ada-{uuid.uuid4().hex[:6]}"
    async with receiving() as receiver:
        hook_id = await hook(pool, ada, receiver.url("/ok"))
        _, entry = await set_up(pool, [ada, f"bob-{uuid.uuid4().hex[:6]}"])
        notifier = Notifier(pool, redis_client, settings)
        await notifier.on_message(entry)
        first, second = await pending(pool, hook_id)

        courier = await asyncio.to_thread(Courier, settings)
        try:
            assert await asyncio.to_thread(courier.attempt, first) is None
            assert await asyncio.to_thread(courier.attempt, first) is None  # done: nothing
            assert len(receiver.at("/ok")) == 1

            # the second's task was lost (its broker flushed): the sweep pushes it again
            # once it is overdue by RESEND_AFTER_S, and only then
            await redis_client.delete(settings.stream_prefix + WEBHOOK_QUEUE)
            assert await notifier.resend_lost() == 0
            await pool.execute(
                """UPDATE webhook_deliveries SET next_attempt_at = now() - interval '2 minutes'
                   WHERE id = $1""",
                second,
            )
            assert await notifier.resend_lost() == 1
            assert await queued(redis_client, settings) == [second]
            assert await notifier.resend_lost() == 0  # not again until overdue again
            assert await asyncio.to_thread(courier.attempt, second) is None
            assert len(receiver.at("/ok")) == 2
            assert await pending(pool, hook_id) == []
        finally:
            await asyncio.to_thread(courier.close)


async def test_after_a_restore_news_at_a_version_reached_again_is_new_and_lost_news_is_none(
    pool: asyncpg.Pool, redis_client: aioredis.Redis, settings: Settings
) -> None:
    """The database restored to a moment before the set-up's last event was recorded, and
    the game at that version again by another append (docs/operations-backup.md): the
    envelope the lost event left on the games stream tells nothing now, and the news of the
    new event has webhook-ids of its own, not those a receiver has seen and would drop."""
    ada = f"ada-{uuid.uuid4().hex[:6]}"
    hook_id = await hook(pool, ada, "http://127.0.0.1:9/hook")
    game_id, lost = await set_up(pool, [ada, f"bob-{uuid.uuid4().hex[:6]}"])
    notifier = Notifier(pool, redis_client, settings)
    await notifier.on_message(lost)
    told = await pending(pool, hook_id)
    assert len(told) == 2  # game_started, your_turn

    # the restore: the deliveries were never recorded, another event holds the version
    await pool.execute("DELETE FROM webhook_deliveries WHERE webhook_id = $1", uuid.UUID(hook_id))
    version = msgspec.json.decode(lost.payload)["version"]
    await pool.execute(
        """UPDATE events SET recorded_at = recorded_at + interval '1 minute'
           WHERE stream_id = $1 AND version = $2""",
        stream_id(game_id),
        version,
    )
    await notifier.on_message(lost)  # still on the stream: not this database's event
    assert await pending(pool, hook_id) == []

    [again] = await game_service(pool).store.read(stream_id(game_id), after=version - 1)
    await notifier.on_message(
        Message(stream=GAMES, id="2-0", payload=msgspec.json.encode(envelope(again)))
    )
    new = await pending(pool, hook_id)
    assert len(new) == 2 and not set(new) & set(told)


class CountingPool:
    """The pool, counting the queries that look for endpoints."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool
        self.hook_queries = 0

    async def fetch(self, query: str, *args: Any) -> Any:
        if "FROM webhooks w JOIN game_seats" in query:
            self.hook_queries += 1
        return await self.pool.fetch(query, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.pool, name)


async def test_a_batch_of_news_looks_for_its_games_endpoints_once(
    pool: asyncpg.Pool, redis_client: aioredis.Redis, settings: Settings
) -> None:
    ada = f"ada-{uuid.uuid4().hex[:6]}"
    hook_id = await hook(pool, ada, "http://127.0.0.1:9/hook")
    games = [await set_up(pool, [ada, f"bob-{uuid.uuid4().hex[:6]}"])]
    games += [await set_up(pool, [f"cy-{uuid.uuid4().hex[:6]}", f"di-{i}"]) for i in range(3)]
    counting = CountingPool(pool)
    notifier = Notifier(counting, redis_client, settings)  # type: ignore[arg-type]
    batch = [entry for _, entry in games]
    await notifier.prepare(batch)
    assert counting.hook_queries == 1
    for entry in batch:
        await notifier.on_message(entry)
    assert counting.hook_queries == 1  # none per envelope
    rows = await pending(pool, hook_id)
    assert len(rows) == 2  # ada's game_started and your_turn; the other games have no endpoint
    assert await queued(redis_client, settings) == rows

    # the same without preparing: a query per envelope, the same deliveries
    alone = CountingPool(pool)
    again = Notifier(alone, redis_client, settings)  # type: ignore[arg-type]
    for entry in batch:
        await again.on_message(entry)
    assert alone.hook_queries == len(batch)
    assert await pending(pool, hook_id) == rows


async def test_a_consumer_prepares_each_batch_before_handling_it(
    redis_client: aioredis.Redis, settings: Settings
) -> None:
    from infra.streams.consumer import Consumer
    from infra.streams.redis import RedisStreams

    streams = RedisStreams(redis_client)
    stream = settings.stream("prepared")
    for i in range(5):
        await streams.publish(stream, f"{i}".encode())
    seen: list[str] = []

    async def prepare(messages: Any) -> None:
        seen.append("batch:" + ",".join(m.payload.decode() for m in messages))
        raise ConnectionError("the batch's query failed")  # only logged: handlers go on

    async def handle(message: Message) -> None:
        seen.append(message.payload.decode())

    consumer = Consumer(streams, stream, "g", "c", handle, batch=3, prepare=prepare)
    await consumer.ensure_groups()
    while await consumer.step():
        pass
    assert seen == ["batch:0,1,2", "0", "1", "2", "batch:3,4", "3", "4"]
    with pytest.raises(ValueError):  # a consumer with a key handles no whole batches
        Consumer(streams, stream, "g", "c", handle, key=lambda m: m.id, prepare=prepare)


async def test_deadline_soon_of_a_long_turn_is_told_though_another_seat_moved_within_the_lead(
    pool: asyncpg.Pool, redis_client: aioredis.Redis, settings: Settings
) -> None:
    """Ada's turn began 80 s before its deadline (a minute ago); Bob's choice rewrites the
    game's `turns` row 20 s before it, within the 27 s lead: the sweep after it tells Ada
    (her own turn is longer than the lead), as it would have without Bob's move."""
    ada, bob = f"ada-{uuid.uuid4().hex[:6]}", f"bob-{uuid.uuid4().hex[:6]}"
    hook_id = uuid.uuid4()
    await pool.execute(
        "INSERT INTO webhooks (id, player_id, url, events, secret) VALUES ($1, $2, $3, $4, $5)",
        hook_id, ada, "http://127.0.0.1:9/hook", ["deadline_soon"], new_secret(),
    )  # fmt: skip
    service = game_service(pool)
    real = service.now
    service.now = lambda: real() - timedelta(seconds=60)  # the clocks began a minute ago
    try:
        game_id = await service.create_from_room(
            RoomStarted(
                room_id=f"room-{uuid.uuid4()}",
                game="itty-bitty",
                seats=[StartedSeat(seat=0, player_id=ada), StartedSeat(seat=1, player_id=bob)],
                timing={"per_move_s": 80, "on_timeout": "wait"},
            )
        )
    finally:
        service.now = real
    loaded = await service.load(game_id)
    assert sorted(loaded.rules.to_act(loaded.state)) == [0, 1]  # the opening: both choose
    action = msgspec.to_builtins(loaded.rules.legal_actions(loaded.state, 1)[0])
    await service.submit(game_id, 1, action, loaded.version, uuid.uuid4())  # Bob, just now

    lead = msgspec.structs.replace(settings, deadline_soon_s=27)
    await Notifier(pool, redis_client, lead).deadlines()
    rows = await pool.fetch("SELECT body FROM webhook_deliveries WHERE webhook_id = $1", hook_id)
    told = [msgspec.json.decode(r["body"])["data"] for r in rows]
    assert [(n["type"], n["seat"]) for n in told] == [("deadline_soon", 0)]
