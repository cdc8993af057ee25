"""One streams suite, run against the in-memory twin and real Redis."""

from __future__ import annotations

import asyncio
import uuid

import msgspec
import pytest
import redis.asyncio as aioredis

from infra.streams import Message, Streams
from infra.streams.api import dead_letter_stream
from infra.streams.consumer import Consumer
from infra.streams.memory import MemoryStreams
from infra.streams.redis import RedisStreams


@pytest.fixture(params=["memory", "redis"])
def streams(request: pytest.FixtureRequest) -> Streams:
    if request.param == "memory":
        return MemoryStreams()
    client: aioredis.Redis = request.getfixturevalue("redis_client")
    return RedisStreams(client)


@pytest.fixture
def name(stream_prefix: str) -> str:
    return f"{stream_prefix}s-{uuid.uuid4().hex[:8]}"


async def test_group_reads_each_entry_once(streams: Streams, name: str) -> None:
    await streams.ensure_group(name, "g")
    await streams.ensure_group(name, "g")  # idempotent
    for i in range(3):
        await streams.publish(name, b"%d" % i)
    first = await streams.read(name, "g", "c1", 2, 100)
    second = await streams.read(name, "g", "c2", 10, 100)
    assert [m.payload for m in first + second] == [b"0", b"1", b"2"]
    assert await streams.read(name, "g", "c1", 10, 50) == []


async def test_unacked_entry_is_reclaimed_with_its_delivery_count(
    streams: Streams, name: str
) -> None:
    await streams.ensure_group(name, "g")
    await streams.publish(name, b"x")
    [m] = await streams.read(name, "g", "dead-consumer", 10, 100)
    assert await streams.claim_stale(name, "g", "c2", 60_000, 10) == []  # not stale yet
    [again] = await streams.claim_stale(name, "g", "c2", 0, 10)
    assert (again.id, again.payload, again.deliveries) == (m.id, b"x", 2)
    await streams.ack(name, "g", m.id)
    assert await streams.claim_stale(name, "g", "c2", 0, 10) == []


async def test_consumer_acks_after_the_effect_and_dead_letters_poison(
    streams: Streams, name: str
) -> None:
    seen: list[bytes] = []

    async def handler(m: Message) -> None:
        if m.payload == b"poison":
            raise RuntimeError("cannot handle")
        seen.append(m.payload)

    c = Consumer(streams, name, "g", "c", handler, max_deliveries=3, min_idle_ms=0, block_ms=50)
    await streams.ensure_group(name, "g")
    await streams.publish(name, b"ok")
    await streams.publish(name, b"poison")
    for _ in range(6):
        await c.step()
    assert seen == [b"ok"]
    assert await streams.claim_stale(name, "g", "other", 0, 10) == []  # nothing left pending
    dead = await streams.tail(dead_letter_stream(name), "0", 0)
    assert [m.payload for m in dead] == [b"poison"]


async def test_trim_keeps_unread_and_pending_entries(streams: Streams, name: str) -> None:
    await streams.ensure_group(name, "fast")
    await streams.ensure_group(name, "slow")
    for i in range(5):
        await streams.publish(name, b"%d" % i)
    fast = await streams.read(name, "fast", "c", 10, 100)
    for m in fast:
        await streams.ack(name, "fast", m.id)
    slow = await streams.read(name, "slow", "c", 2, 100)  # 0 and 1 delivered, 0 acked
    await streams.ack(name, "slow", slow[0].id)
    assert await streams.trim(name) == 1  # only entry 0: 1 is pending, 2..4 unread by slow
    rest = await streams.read(name, "slow", "c", 10, 100)
    assert [m.payload for m in rest] == [b"2", b"3", b"4"]
    for m in rest:
        await streams.ack(name, "slow", m.id)
    [pending] = await streams.claim_stale(name, "slow", "c", 0, 10)
    assert pending.payload == b"1"


async def test_trim_passes_a_retired_group_by(streams: Streams, name: str) -> None:
    """A group the stream no longer has (its readers moved to another stream) holds nothing
    back: the rest's trim drops what they have read, the retired group's unread included."""
    await streams.ensure_group(name, "live")
    await streams.ensure_group(name, "retired")
    for i in range(3):
        await streams.publish(name, b"%d" % i)
    for m in await streams.read(name, "live", "c", 10, 100):
        await streams.ack(name, "live", m.id)
    assert await streams.trim(name) == 0  # the retired group has read nothing
    assert await streams.trim(name, ignore=("retired",)) == 3
    assert await streams.read(name, "retired", "c", 10, 100) == []


async def test_tail_sees_new_entries(streams: Streams, name: str) -> None:
    first = await streams.publish(name, b"a")
    waiter = asyncio.create_task(streams.tail(name, first, 2_000))
    await asyncio.sleep(0.05)
    await streams.publish(name, b"b")
    got = await waiter
    assert [m.payload for m in got] == [b"b"]


async def test_latest_id_lets_a_tail_start_after_what_is_there(streams: Streams, name: str) -> None:
    assert await streams.latest_id(name) == "0-0"
    await streams.publish(name, b"old")
    start = await streams.latest_id(name)
    await streams.publish(name, b"new")
    assert [m.payload for m in await streams.tail(name, start, 0)] == [b"new"]


async def test_a_consumer_makes_its_group_again_when_the_stream_is_gone(
    streams: Streams, name: str, request: pytest.FixtureRequest
) -> None:
    seen: list[bytes] = []

    async def handler(m: Message) -> None:
        seen.append(m.payload)

    consumer = Consumer(streams, name, "g", "c", handler, block_ms=50)
    task = asyncio.create_task(consumer.run())
    await streams.publish(name, b"before")
    for _ in range(100):
        if seen:
            break
        await asyncio.sleep(0.02)
    if isinstance(streams, MemoryStreams):
        streams.delete(name)
    else:
        await request.getfixturevalue("redis_client").delete(name)
    await asyncio.sleep(0.1)
    await streams.publish(name, b"after")
    for _ in range(200):
        if b"after" in seen:
            break
        await asyncio.sleep(0.02)
    consumer.stop()
    await asyncio.wait_for(task, 5)
    assert seen == [b"before", b"after"]


async def test_touch_holds_a_pending_entry_without_counting_a_delivery(
    streams: Streams, name: str
) -> None:
    await streams.ensure_group(name, "g")
    await streams.publish(name, b"x")
    [m] = await streams.read(name, "g", "c1", 10, 100)
    await asyncio.sleep(0.2)
    assert await streams.touch(name, "g", "c1", m.id)
    assert await streams.claim_stale(name, "g", "c2", 150, 10) == []  # idle again from the touch
    [again] = await streams.claim_stale(name, "g", "c2", 0, 10)
    assert again.deliveries == 2  # the touch did not count
    await streams.ack(name, "g", m.id)
    assert not await streams.touch(name, "g", "c1", m.id)  # acked: no longer anyone's


async def test_dead_letters_are_listed_and_replayed(streams: Streams, name: str) -> None:
    await streams.ensure_group(name, "g")
    for payload in (b"a", b"b", b"c"):
        await streams.publish(name, payload)
    read = await streams.read(name, "g", "c", 10, 100)
    for m in read:
        await streams.dead_letter(name, "g", msgspec.structs.replace(m, deliveries=4), "boom")
    dead = await streams.dead_letters(name)
    assert [(d.payload, d.original_id, d.group, d.deliveries, d.reason) for d in dead] == [
        (m.payload, m.id, "g", 4, "boom") for m in read
    ]
    assert {d.stream for d in dead} == {name}
    assert [d.payload for d in await streams.dead_letters(name, dead[0].id, 1)] == [b"b"]

    new_id = await streams.replay(name, dead[1].id)
    assert new_id is not None
    assert await streams.replay(name, dead[1].id) is None  # gone from the dead stream
    assert [d.payload for d in await streams.dead_letters(name)] == [b"a", b"c"]
    [again] = await streams.read(name, "g", "c", 10, 100)  # a new entry for every group
    assert (again.id, again.payload, again.deliveries) == (new_id, b"b", 1)


async def test_backlog_counts_pending_unread_and_dead_entries(streams: Streams, name: str) -> None:
    await streams.ensure_group(name, "g")
    for i in range(4):
        await streams.publish(name, b"%d" % i)
    first, second = await streams.read(name, "g", "c", 2, 100)
    await streams.ack(name, "g", first.id)
    assert (await streams.backlog(name, "g")).pending == 1
    await streams.dead_letter(name, "g", second, "poison")
    backlog = await streams.backlog(name, "g")
    assert (backlog.pending, backlog.lag, backlog.dead) == (0, 2, 1)
