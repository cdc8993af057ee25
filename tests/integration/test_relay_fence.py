"""The relay publishes each event once onto the games stream, even with two relays at once
(one frozen mid-batch wakes after a standby took over), on real Postgres and Redis."""

from __future__ import annotations

import asyncio
import hashlib
import time
import uuid

import asyncpg
import msgspec
import pytest
import redis.asyncio as aioredis

from contracts.streams import GameEvent
from infra.eventstore.outbox import Checkpoint, PostgresOutbox
from services.game.relay import _PUBLISH, FencedRelay, Superseded
from tests.integration.test_relay import _insert


@pytest.fixture
async def conn(database_url: str):  # type: ignore[no-untyped-def]
    conn = await asyncpg.connect(database_url)
    yield conn
    await conn.close()


async def _from_the_tip(conn: asyncpg.Connection, consumer: str) -> None:
    """Earlier tests' events are not ours to publish."""
    tip = await conn.fetchrow(
        "SELECT coalesce(max(tx_id::text::bigint), 0) AS tx,"
        " coalesce(max(global_position), 0) AS gp FROM events"
    )
    await PostgresOutbox(conn).save_checkpoint(
        consumer, Checkpoint(tx_id=tip["tx"], global_position=tip["gp"])
    )


async def _insert_settled(conn: asyncpg.Connection, stream: str, version: int) -> None:
    """Insert, then wait until it is below the xmin horizon: a transaction still open
    anywhere on the server (another test run) holds the relay back meanwhile."""
    await _insert(conn, stream, version)
    deadline = time.monotonic() + 30
    while not await conn.fetchval(
        "SELECT max(tx_id) < pg_snapshot_xmin(pg_current_snapshot()) FROM events"
    ):
        assert time.monotonic() < deadline, "the horizon did not pass our insert"
        await asyncio.sleep(0.05)


async def _published(r: aioredis.Redis, stream: str) -> list[tuple[str, int]]:
    entries = await r.xrange(stream)
    return [
        (e.game_id, e.version)
        for e in (msgspec.json.decode(f[b"m"], type=GameEvent) for _, f in entries)
    ]


async def test_a_frozen_relay_waking_after_a_takeover_publishes_nothing_twice(
    conn: asyncpg.Connection, redis_client: aioredis.Redis, stream_prefix: str
) -> None:
    consumer = f"test-fence-{uuid.uuid4()}"
    stream = f"{stream_prefix}fence-{uuid.uuid4().hex[:8]}"
    await _from_the_tip(conn, consumer)
    game = str(uuid.uuid4())
    await _insert_settled(conn, f"game-{game}", 1)

    frozen = FencedRelay(redis_client, PostgresOutbox(conn), stream, consumer)
    await frozen.start(conn)
    standby = FencedRelay(redis_client, PostgresOutbox(conn), stream, consumer)
    await standby.start(conn)
    assert await standby.once() == 1  # the standby took over and published version 1
    await _insert_settled(conn, f"game-{game}", 2)
    with pytest.raises(Superseded):  # the frozen one wakes with its old picture
        await frozen.once()
    assert await standby.once() == 1
    assert await _published(redis_client, stream) == [(game, 1), (game, 2)]

    # a relay started afresh goes on from the stream's own position, not the checkpoint
    await PostgresOutbox(conn).save_checkpoint(consumer, Checkpoint())  # as if it lagged
    again = FencedRelay(redis_client, PostgresOutbox(conn), stream, consumer)
    await again.start(conn)
    assert await again.once() == 0
    await _insert_settled(conn, f"game-{game}", 3)
    assert await again.once() == 1
    assert await _published(redis_client, stream) == [(game, 1), (game, 2), (game, 3)]


async def test_a_position_of_another_database_is_not_believed(
    conn: asyncpg.Connection, redis_client: aioredis.Redis, stream_prefix: str
) -> None:
    consumer = f"test-fence-{uuid.uuid4()}"
    stream = f"{stream_prefix}fence-{uuid.uuid4().hex[:8]}"
    await _from_the_tip(conn, consumer)
    game = str(uuid.uuid4())
    # Redis kept over a database made anew: a position far ahead of anything here; or junk
    for n, held in enumerate([f"{2**40}:{2**40}", "not:a-position"], start=1):
        await redis_client.set(f"{stream}:relayed", held)
        await _insert_settled(conn, f"game-{game}", n)
        relay = FencedRelay(redis_client, PostgresOutbox(conn), stream, consumer)
        await relay.start(conn)
        assert await relay.once() == 1
    assert await _published(redis_client, stream) == [(game, 1), (game, 2)]


async def test_a_position_whose_place_another_event_took_after_a_restore_is_not_believed(
    conn: asyncpg.Connection, redis_client: aioredis.Redis, stream_prefix: str
) -> None:
    """A database restored to an earlier moment gives out its transaction ids and positions
    again: the place of the last event published (lost with the restore) may be taken by
    another. The stream's position names the moment too, so the relay goes on from the
    restored checkpoint and publishes the new event, not skipping it as published."""
    consumer = f"test-fence-{uuid.uuid4()}"
    stream = f"{stream_prefix}fence-{uuid.uuid4().hex[:8]}"
    await _from_the_tip(conn, consumer)
    restored_checkpoint = await PostgresOutbox(conn).load_checkpoint(consumer)
    game = str(uuid.uuid4())
    await _insert_settled(conn, f"game-{game}", 1)
    relay = FencedRelay(redis_client, PostgresOutbox(conn), stream, consumer)
    await relay.start(conn)
    assert await relay.once() == 1

    # the restore: the checkpoint as it was, and another event where the published one was
    await PostgresOutbox(conn).save_checkpoint(consumer, restored_checkpoint)
    await conn.execute(
        "UPDATE events SET recorded_at = recorded_at + interval '1 minute' WHERE stream_id = $1",
        f"game-{game}",
    )
    again = FencedRelay(redis_client, PostgresOutbox(conn), stream, consumer)
    await again.start(conn)
    assert await again.once() == 1
    assert await _published(redis_client, stream) == [(game, 1), (game, 1)]

    # a position of a relay of before the moment was named: its place alone
    at = await PostgresOutbox(conn).load_checkpoint(consumer)
    await redis_client.set(f"{stream}:relayed", f"{at.tx_id}:{at.global_position}")
    await PostgresOutbox(conn).save_checkpoint(consumer, restored_checkpoint)
    believed = FencedRelay(redis_client, PostgresOutbox(conn), stream, consumer)
    await believed.start(conn)
    assert await believed.once() == 0


@pytest.mark.parametrize("ends_only", [False, True], ids=["every_event", "ends_only"])
async def test_one_envelope_per_command_its_last_events_even_split_across_batches(
    conn: asyncpg.Connection, redis_client: aioredis.Redis, stream_prefix: str, ends_only: bool
) -> None:
    """Every reader of the games stream acts at the end of a command: the relay publishes
    that event's envelope alone, saying where the command began, and moves past the rest
    (also when a batch of the outbox ends inside a command). The relay's own read
    (`ends_only`) leaves the rest in Postgres: its batches hold the commands' last events
    alone, and an event of before `batch_end` was written ends its command."""
    consumer = f"test-fence-{uuid.uuid4()}"
    stream = f"{stream_prefix}fence-{uuid.uuid4().hex[:8]}"
    await _from_the_tip(conn, consumer)
    game = str(uuid.uuid4())
    sizes = [(3, 0), (3, 0), (3, 1), (2, 0), (2, 1), (0, 0)]  # (0, 0): no batch, no batch_end
    for version, (size, end) in enumerate(sizes, start=1):
        meta = {"batch": size, "batch_end": bool(end), "status": "active", "to_act": [0]}
        if not size:
            meta = {"status": "active", "to_act": [0]}
        await conn.execute(
            """INSERT INTO events (stream_id, version, event_id, type, data, metadata)
               VALUES ($1, $2, $3, 'test', '{"secret": 1}'::jsonb, $4::jsonb)""",
            f"game-{game}",
            version,
            uuid.uuid4(),
            msgspec.json.encode(meta).decode(),
        )
    await _insert_settled(conn, f"game-{uuid.uuid4()}", 1)  # waits for the horizon
    outbox = PostgresOutbox(conn, ends_only=ends_only)
    relay = FencedRelay(redis_client, outbox, stream, consumer)
    await relay.start(conn)
    if ends_only:  # v3 and v5, the commands' last events; v6 and the settling insert
        assert [await relay.once(limit=2) for _ in range(3)] == [2, 2, 0]
    else:
        assert await relay.once(limit=2) == 2  # two events read, no command ended: none
        assert await _published(redis_client, stream) == []
        assert [await relay.once(limit=2) for _ in range(4)] == [2, 2, 1, 0]
    entries = [
        msgspec.json.decode(f[b"m"], type=GameEvent) for _, f in await redis_client.xrange(stream)
    ]
    mine = [(e.version, e.first_version, e.batch_end) for e in entries if e.game_id == game]
    assert mine == [(3, 1, True), (5, 4, True), (6, 0, True)]
    assert all(b"secret" not in f[b"m"] for _, f in await redis_client.xrange(stream))


async def test_each_command_goes_also_on_the_streams_of_its_kind(
    conn: asyncpg.Connection, redis_client: aioredis.Redis, stream_prefix: str
) -> None:
    """Beside the games stream (every command): the bot turns stream takes the commands
    after which a bot must act, the lifecycle stream a game's set-up and its end; a word at
    the table goes on neither."""
    consumer = f"test-fence-{uuid.uuid4()}"
    prefix = f"{stream_prefix}route-{uuid.uuid4().hex[:8]}:"
    games = f"{prefix}turnpost:games"
    await _from_the_tip(conn, consumer)
    game = str(uuid.uuid4())
    commands = [  # (type, events, to_act, bots, status)
        ("set_up", 2, [0], {}, "active"),  # v2, began at 1: lifecycle
        ("played", 1, [1], {"1": "greedy"}, "active"),  # v3: a bot's turn
        ("chat_said", 1, [1], {"1": "greedy"}, "active"),  # v4: still its turn, no news
        ("played", 1, [0], {"1": "greedy"}, "active"),  # v5: a person's turn, a bot seated
        ("played", 2, [], {}, "finished"),  # v7: lifecycle
    ]
    version = 0
    for kind, size, to_act, bots, status in commands:
        for i in range(size):
            version += 1
            meta = {"batch": size, "batch_end": i == size - 1, "to_act": to_act,
                    "bots": bots, "status": status, "room_id": "r"}  # fmt: skip
            await conn.execute(
                """INSERT INTO events (stream_id, version, event_id, type, data, metadata)
                   VALUES ($1, $2, $3, $4, '{}'::jsonb, $5::jsonb)""",
                f"game-{game}",
                version,
                uuid.uuid4(),
                kind,
                msgspec.json.encode(meta).decode(),
            )
    await _insert_settled(conn, f"game-{uuid.uuid4()}", 1)
    relay = FencedRelay(redis_client, PostgresOutbox(conn, ends_only=True), games, consumer)
    await relay.start(conn)
    while await relay.once(limit=3):
        pass

    async def versions(stream: str) -> list[int]:
        entries = await redis_client.xrange(stream)
        got = (msgspec.json.decode(f[b"m"], type=GameEvent) for _, f in entries)
        return [e.version for e in got if e.game_id == game]

    assert await versions(games) == [2, 3, 4, 5, 7]
    assert await versions(f"{prefix}turnpost:bot-turns") == [3]
    assert await versions(f"{prefix}turnpost:lifecycle") == [2, 7]


async def test_the_postgres_checkpoint_follows_at_most_so_often_and_when_told(
    conn: asyncpg.Connection, redis_client: aioredis.Redis, stream_prefix: str
) -> None:
    consumer = f"test-fence-{uuid.uuid4()}"
    stream = f"{stream_prefix}fence-{uuid.uuid4().hex[:8]}"
    await _from_the_tip(conn, consumer)
    outbox = PostgresOutbox(conn)
    game = str(uuid.uuid4())
    relay = FencedRelay(redis_client, outbox, stream, consumer, checkpoint_every_s=3600)
    await relay.start(conn)
    await _insert_settled(conn, f"game-{game}", 1)
    assert await relay.once() == 1  # the first batch: saved at once
    first = await outbox.load_checkpoint(consumer)
    assert first == relay.at
    await _insert_settled(conn, f"game-{game}", 2)
    assert await relay.once() == 1  # busy, within the hour: the checkpoint waits
    assert await outbox.load_checkpoint(consumer) == first != relay.at
    assert await relay.once() == 0
    assert await outbox.load_checkpoint(consumer) == first  # not at every empty read
    await relay.save_checkpoint()  # what the loop does when quiet for a poll, or stopping
    assert await outbox.load_checkpoint(consumer) == relay.at
    assert await _published(redis_client, stream) == [(game, 1), (game, 2)]


async def test_a_redis_that_lost_its_scripts_still_takes_the_batch(
    conn: asyncpg.Connection, redis_client: aioredis.Redis, stream_prefix: str
) -> None:
    """The relay publishes by the script's hash (EVALSHA); a Redis restarted or flushed of
    its scripts answers NOSCRIPT, and the script is loaded again, the batch published once.
    (A hash Redis never held stands for the flush: SCRIPT FLUSH would empty the scripts of
    every test run sharing this Redis.)"""
    consumer = f"test-fence-{uuid.uuid4()}"
    stream = f"{stream_prefix}fence-{uuid.uuid4().hex[:8]}"
    await _from_the_tip(conn, consumer)
    game = str(uuid.uuid4())
    relay = FencedRelay(redis_client, PostgresOutbox(conn, ends_only=True), stream, consumer)
    await relay.start(conn)
    await _insert_settled(conn, f"game-{game}", 1)
    assert await relay.once() == 1
    relay._script.sha = "0" * 40  # a hash Redis does not hold
    await _insert_settled(conn, f"game-{game}", 2)
    assert await relay.once() == 1
    assert relay._script.sha == hashlib.sha1(_PUBLISH.encode()).hexdigest()
    assert await _published(redis_client, stream) == [(game, 1), (game, 2)]
