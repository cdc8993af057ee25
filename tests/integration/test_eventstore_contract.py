"""One event-store suite, run against the in-memory twin and the real Postgres adapter."""

from __future__ import annotations

import asyncio
import uuid

import asyncpg
import msgspec
import pytest

from infra.eventstore import ConcurrencyError, EventStore, NewEvent, Snapshot
from infra.eventstore.api import command_uuid, event_ids
from infra.eventstore.memory import MemoryEventStore
from infra.eventstore.postgres import PostgresEventStore


@pytest.fixture(params=["memory", "postgres"])
def store(request: pytest.FixtureRequest) -> EventStore:
    if request.param == "memory":
        return MemoryEventStore()
    pool: asyncpg.Pool = request.getfixturevalue("pool")
    return PostgresEventStore(pool)


def batch(command: str, n: int = 2) -> list[NewEvent]:
    ids = event_ids(command_uuid(command), n)
    return [
        NewEvent(event_id=i, type=f"t{k}", data=b'{"k": %d}' % k, metadata={"k": k})
        for k, i in enumerate(ids)
    ]


def stream() -> str:
    return f"test-{uuid.uuid4()}"


async def test_append_then_read_in_order(store: EventStore) -> None:
    s = stream()
    r1 = await store.append(s, batch(s + "a"), 0)
    r2 = await store.append(s, batch(s + "b", 3), 2)
    assert (r1.version, r2.version) == (2, 5)
    events = await store.read(s)
    assert [e.version for e in events] == [1, 2, 3, 4, 5]
    assert [e.type for e in events] == ["t0", "t1", "t0", "t1", "t2"]
    assert events[0].metadata == {"k": 0}
    assert [e.version for e in await store.read(s, after=3)] == [4, 5]
    assert [e.version for e in await store.read(s, after=1, limit=2)] == [2, 3]
    assert await store.version(s) == 5
    assert await store.version(stream()) == 0


async def test_an_append_returns_the_events_as_a_read_gives_them(store: EventStore) -> None:
    s = stream()
    await store.append(s, batch(s + "a"), 0)
    appended = (await store.append(s, batch(s + "b", 3), 2)).events
    read = await store.read(s, after=2)
    assert [e.version for e in appended] == [3, 4, 5]
    for mine, stored in zip(appended, read, strict=True):
        assert msgspec.json.decode(mine.data) == msgspec.json.decode(stored.data)
        assert msgspec.structs.replace(mine, data=b"") == msgspec.structs.replace(stored, data=b"")
    # metadata as JSON has it, whatever the caller handed in
    odd = [NewEvent(event_id=uuid.uuid4(), type="t", data=b"{}", metadata={"id": uuid.UUID(int=7)})]
    (given,) = (await store.append(s, odd, 5)).events
    assert (
        given.metadata
        == {"id": str(uuid.UUID(int=7))}
        == (await store.read(s, after=5))[0].metadata
    )


async def test_stale_expected_version_is_a_conflict(store: EventStore) -> None:
    s = stream()
    await store.append(s, batch(s + "a"), 0)
    with pytest.raises(ConcurrencyError) as err:
        await store.append(s, batch(s + "b"), 1)
    assert err.value.actual == 2
    with pytest.raises(ConcurrencyError):
        await store.append(s, batch(s + "c"), 0)


async def test_expected_version_ahead_of_the_stream_is_a_conflict(store: EventStore) -> None:
    s = stream()
    await store.append(s, batch(s + "a"), 0)
    with pytest.raises(ConcurrencyError) as err:
        await store.append(s, batch(s + "b"), 7)
    assert err.value.actual == 2
    assert await store.version(s) == 2


async def test_retried_command_appends_nothing_and_returns_the_original(store: EventStore) -> None:
    s = stream()
    first = await store.append(s, batch(s + "cmd"), 0)
    again = await store.append(s, batch(s + "cmd"), 0)
    assert again.duplicate and not first.duplicate
    assert [e.event_id for e in again.events] == [e.event_id for e in first.events]
    assert again.version == 2
    assert await store.version(s) == 2
    later = await store.append(s, batch(s + "next"), 2)
    assert (await store.append(s, batch(s + "cmd"), 2)).version == 2  # even after the stream moved
    assert later.version == 4


async def test_snapshots_are_kept_newest(store: EventStore) -> None:
    s = stream()
    assert await store.load_snapshot(s) is None
    await store.save_snapshot(Snapshot(stream_id=s, version=10, schema_ver=1, state=b"ten"))
    await store.save_snapshot(Snapshot(stream_id=s, version=5, schema_ver=1, state=b"five"))
    snap = await store.load_snapshot(s)
    assert snap is not None and (snap.version, snap.state) == (10, b"ten")


async def test_racing_writers_exactly_one_wins(store: EventStore) -> None:
    s = stream()
    await store.append(s, batch(s + "seed", 1), 0)

    async def writer(i: int) -> bool:
        try:
            await store.append(s, batch(f"{s}w{i}"), 1)
            return True
        except ConcurrencyError:
            return False

    results = await asyncio.gather(*(writer(i) for i in range(20)))
    assert sum(results) == 1
    assert await store.version(s) == 3
