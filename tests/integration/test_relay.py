"""The outbox relay publishes in commit-safe order and never skips a late-committing event."""

from __future__ import annotations

import uuid

import asyncpg
import msgspec
import pytest

from contracts.streams import GameEvent
from infra.eventstore.api import NewEvent
from infra.eventstore.memory import MemoryEventStore
from infra.eventstore.outbox import Checkpoint, MemoryOutbox, PostgresOutbox
from infra.streams.memory import MemoryStreams
from services.game.relay import relay_once

CONSUMER = f"test-relay-{uuid.uuid4()}"

META = {"to_act": [1], "status": "active", "bots": {}, "batch_end": True, "game": "itty-bitty"}


async def _insert(conn: asyncpg.Connection, stream: str, version: int) -> None:
    await conn.execute(
        """INSERT INTO events (stream_id, version, event_id, type, data, metadata)
           VALUES ($1, $2, $3, 'test', '{}'::jsonb, $4::jsonb)""",
        stream,
        version,
        uuid.uuid4(),
        msgspec.json.encode(META).decode(),
    )


@pytest.fixture
async def outbox_conn(database_url: str):  # type: ignore[no-untyped-def]
    conn = await asyncpg.connect(database_url)
    # Start this test from the tip: earlier tests' events are not ours to publish.
    tip = await conn.fetchrow(
        "SELECT coalesce(max(tx_id::text::bigint), 0) AS tx, coalesce(max(global_position), 0) AS gp FROM events"
    )
    outbox = PostgresOutbox(conn)
    await outbox.save_checkpoint(CONSUMER, Checkpoint(tx_id=tip["tx"], global_position=tip["gp"]))
    yield conn
    await conn.close()


async def test_relay_waits_for_an_earlier_uncommitted_transaction(
    database_url: str, outbox_conn: asyncpg.Connection
) -> None:
    slow = await asyncpg.connect(database_url)
    fast = await asyncpg.connect(database_url)
    streams = MemoryStreams()
    outbox = PostgresOutbox(outbox_conn)
    s_slow, s_fast = f"game-{uuid.uuid4()}", f"game-{uuid.uuid4()}"
    try:
        tx = slow.transaction()
        await tx.start()
        await _insert(slow, s_slow, 1)  # takes the earlier position and xid, commits late
        await _insert(fast, s_fast, 1)  # commits at once, later position
        assert (
            await relay_once(outbox, streams, "games", consumer=CONSUMER) == 0
        )  # held back by the open tx
        assert streams.length("games") == 0
        await tx.commit()
        assert await relay_once(outbox, streams, "games", consumer=CONSUMER) == 2
    finally:
        await slow.close()
        await fast.close()
    published = [
        msgspec.json.decode(m.payload, type=GameEvent) for m in await streams.tail("games", "0", 0)
    ]
    assert [f"game-{e.game_id}" for e in published] == [s_slow, s_fast]
    assert (
        await relay_once(outbox, streams, "games", consumer=CONSUMER) == 0
    )  # checkpointed: nothing twice


async def test_relay_envelope_carries_no_event_data(outbox_conn: asyncpg.Connection) -> None:
    streams = MemoryStreams()
    stream = f"game-{uuid.uuid4()}"
    await outbox_conn.execute(
        """INSERT INTO events (stream_id, version, event_id, type, data, metadata)
           VALUES ($1, 1, $2, 'ittybit_taken', '{"card": "ittybit-0287"}'::jsonb, $3::jsonb)""",
        stream,
        uuid.uuid4(),
        msgspec.json.encode(META).decode(),
    )
    assert await relay_once(PostgresOutbox(outbox_conn), streams, "games", consumer=CONSUMER) == 1
    [message] = await streams.tail("games", "0", 0)
    assert b"ittybit-0287" not in message.payload
    event = msgspec.json.decode(message.payload, type=GameEvent)
    assert (event.type, event.version, event.to_act, event.batch_end) == (
        "ittybit_taken",
        1,
        [1],
        True,
    )


async def test_memory_outbox_publishes_in_append_order() -> None:
    store = MemoryEventStore()
    streams = MemoryStreams()
    for n in range(3):
        ev = NewEvent(event_id=uuid.uuid4(), type="t", data=b"{}", metadata=META)
        await store.append(f"game-{n}", [ev], 0)
    outbox = MemoryOutbox(store)
    assert await relay_once(outbox, streams, "games", limit=2) == 2
    assert await relay_once(outbox, streams, "games", limit=2) == 1
    published = [
        msgspec.json.decode(m.payload, type=GameEvent) for m in await streams.tail("games", "0", 0)
    ]
    assert [e.game_id for e in published] == ["0", "1", "2"]
