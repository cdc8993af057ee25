"""The consumer over both adapters: outages waited out in place, poison dead-lettered,
every group of a stream made before anything can trim it."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import asyncpg
import pytest
import redis.asyncio as aioredis
import redis.exceptions

from infra.streams import Message, Streams
from infra.streams.consumer import Consumer
from infra.streams.memory import MemoryStreams
from infra.streams.redis import RedisStreams

FAST: dict[str, Any] = {"backoff_base": 0.001, "backoff_cap": 0.01, "block_ms": 50}


@pytest.fixture(params=["memory", "redis"])
def streams(request: pytest.FixtureRequest) -> Streams:
    if request.param == "memory":
        return MemoryStreams()
    client: aioredis.Redis = request.getfixturevalue("redis_client")
    return RedisStreams(client)


@pytest.fixture
def name(stream_prefix: str) -> str:
    return f"{stream_prefix}c-{uuid.uuid4().hex[:8]}"


async def pending(streams: Streams, stream: str, group: str) -> dict[str, int]:
    """Pending entries of a group -> their delivery counts."""
    if isinstance(streams, MemoryStreams):
        return {
            mid: p.deliveries for mid, p in streams.streams[stream].groups[group].pending.items()
        }
    assert isinstance(streams, RedisStreams)
    rows: Any = await streams.r.xpending_range(stream, group, "-", "+", 100)
    return {row["message_id"].decode(): int(row["times_delivered"]) for row in rows}


async def groups_of(streams: Streams, stream: str) -> set[str]:
    if isinstance(streams, MemoryStreams):
        return set(streams.streams[stream].groups)
    assert isinstance(streams, RedisStreams)
    return {g["name"].decode() for g in await streams.r.xinfo_groups(stream)}


async def length(streams: Streams, stream: str) -> int:
    if isinstance(streams, MemoryStreams):
        return streams.length(stream)
    assert isinstance(streams, RedisStreams)
    return int(await streams.r.xlen(stream))


async def until(condition: Callable[[], bool | Awaitable[bool]], seconds: float = 5) -> None:
    for _ in range(int(seconds / 0.01)):
        result = condition()
        if result if isinstance(result, bool) else await result:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("timed out")


async def test_an_outage_is_waited_out_in_place_and_never_counts(
    streams: Streams, name: str
) -> None:
    outages: list[Exception] = [ConnectionRefusedError(111, "refused")] * 5
    outages += [asyncpg.CannotConnectNowError("the database system is starting up")] * 5
    calls: list[tuple[str, int, dict[str, int]]] = []

    async def handler(m: Message) -> None:
        calls.append((m.id, m.deliveries, await pending(streams, name, "g")))
        if outages:
            raise outages.pop(0)

    c = Consumer(streams, name, "g", "c", handler, max_deliveries=2, min_idle_ms=0, **FAST)
    await streams.ensure_group(name, "g")
    mid = await streams.publish(name, b"move")
    assert await c.step() == 1
    assert calls == [(mid, 1, {mid: 1})] * 11  # the same delivery, retried in place
    assert await pending(streams, name, "g") == {}  # acked
    assert await streams.dead_letters(name) == []
    assert await c.step() == 0


async def test_poison_is_dead_lettered_after_max_deliveries(streams: Streams, name: str) -> None:
    calls: list[int] = []

    async def handler(m: Message) -> None:
        calls.append(m.deliveries)
        raise ValueError("not a move")

    c = Consumer(streams, name, "g", "c", handler, max_deliveries=2, min_idle_ms=0, **FAST)
    await streams.ensure_group(name, "g")
    mid = await streams.publish(name, b"poison")
    for _ in range(4):
        await c.step()
    assert calls == [1, 2]
    [dead] = await streams.dead_letters(name)
    assert (dead.original_id, dead.group, dead.deliveries, dead.payload) == (mid, "g", 3, b"poison")
    assert dead.reason == "failed 2 times"
    assert await pending(streams, name, "g") == {}


async def test_a_consumer_stopped_during_an_outage_leaves_the_message_pending(
    streams: Streams, name: str
) -> None:
    attempts = 0

    async def down(m: Message) -> None:
        nonlocal attempts
        attempts += 1
        raise asyncpg.exceptions.AdminShutdownError("terminating connection")

    c = Consumer(streams, name, "g", "c", down, max_deliveries=2, min_idle_ms=0, **FAST)
    task = asyncio.create_task(c.run())
    mid = await streams.publish(name, b"move")
    await until(lambda: attempts >= 3)
    c.stop()
    await asyncio.wait_for(task, 2)
    assert await pending(streams, name, "g") == {mid: 1}
    assert await streams.dead_letters(name) == []

    seen: list[Message] = []

    async def up(m: Message) -> None:
        seen.append(m)

    survivor = Consumer(streams, name, "g", "s", up, max_deliveries=2, min_idle_ms=0, **FAST)
    assert await survivor.step() == 1
    assert [(m.id, m.deliveries) for m in seen] == [(mid, 2)]


class Flaky:
    """Streams whose reads fail while `down` is set, as when Redis is unreachable."""

    def __init__(self, streams: Streams) -> None:
        self.streams, self.down, self.reads = streams, True, 0

    def __getattr__(self, attr: str) -> Any:
        return getattr(self.streams, attr)

    async def read(self, *args: Any) -> list[Message]:
        self.reads += 1
        if self.down:
            raise redis.exceptions.ConnectionError("Connection refused")
        return await self.streams.read(*args)


async def test_the_loop_backs_off_while_the_broker_is_away(streams: Streams, name: str) -> None:
    flaky = Flaky(streams)
    seen: list[bytes] = []

    async def handler(m: Message) -> None:
        seen.append(m.payload)

    slow: dict[str, Any] = {"backoff_base": 0.02, "backoff_cap": 0.1, "block_ms": 50}
    c = Consumer(flaky, name, "g", "c", handler, **slow)
    task = asyncio.create_task(c.run())
    await asyncio.sleep(0.5)
    assert 3 <= flaky.reads <= 12  # 0.02, 0.04, 0.08, then 0.1 apiece: no spinning
    flaky.down = False
    await streams.publish(name, b"back")
    await until(lambda: seen == [b"back"])
    c.stop()
    await asyncio.wait_for(task, 2)


async def test_every_group_is_made_before_one_trims(streams: Streams, name: str) -> None:
    for i in range(3):
        await streams.publish(name, b"%d" % i)  # before any group exists
    got: dict[str, list[bytes]] = {"a": [], "b": []}

    def consumer(group: str) -> Consumer:
        async def handler(m: Message) -> None:
            got[group].append(m.payload)

        return Consumer(streams, name, group, group, handler, groups=("a", "b"), **FAST)

    a = consumer("a")
    a_task = asyncio.create_task(a.run(trim_every=0))  # trims after every round
    for i in range(3, 6):
        await streams.publish(name, b"%d" % i)
    await until(lambda: len(got["a"]) == 6)
    await asyncio.sleep(0.1)  # a few more rounds, each with a trim
    assert await length(streams, name) == 6  # b has read none of them: nothing trimmed

    b = consumer("b")
    b_task = asyncio.create_task(b.run())
    await until(lambda: len(got["b"]) == 6)
    assert got["a"] == got["b"] == [b"%d" % i for i in range(6)]

    async def trimmed() -> bool:
        return await length(streams, name) == 0

    await until(trimmed)  # both groups acked everything: a's trim drops it all
    for c in (a, b):
        c.stop()
    await asyncio.wait_for(asyncio.gather(a_task, b_task), 2)


async def test_every_group_is_made_again_when_the_stream_is_gone(
    streams: Streams, name: str
) -> None:
    seen: list[bytes] = []

    async def handler(m: Message) -> None:
        seen.append(m.payload)

    a = Consumer(streams, name, "a", "a", handler, groups=("a", "b"), **FAST)
    task = asyncio.create_task(a.run())
    await streams.publish(name, b"before")
    await until(lambda: seen == [b"before"])
    if isinstance(streams, MemoryStreams):
        streams.delete(name)
    else:
        assert isinstance(streams, RedisStreams)
        await streams.r.delete(name)
    await asyncio.sleep(0.1)
    await streams.publish(name, b"after")
    await until(lambda: seen == [b"before", b"after"])
    assert await groups_of(streams, name) == {"a", "b"}
    [missed] = await streams.read(name, "b", "b", 10, 50)  # b's group is back, from the start
    assert missed.payload == b"after"
    a.stop()
    await asyncio.wait_for(task, 2)


# Lanes: a key per message (the game a command is for), lanes concurrent, one lane in order.


def count_acks(streams: Streams) -> list[tuple[str, ...]]:
    """The ids of every ack `streams` makes from now on, one tuple a call."""
    acks: list[tuple[str, ...]] = []
    ack = streams.ack

    async def counting_ack(stream: str, group: str, *ids: str) -> None:
        acks.append(ids)
        await ack(stream, group, *ids)

    streams.ack = counting_ack  # type: ignore[method-assign]
    return acks


def lane_of(m: Message) -> str:
    return m.payload.decode().split(":")[0]


async def run_until(c: Consumer, condition: Callable[[], bool | Awaitable[bool]]) -> None:
    task = asyncio.create_task(c.run())
    try:
        await until(condition)
    finally:
        c.stop()
        await asyncio.wait_for(task, 5)


async def test_a_slow_lane_does_not_hold_back_another(streams: Streams, name: str) -> None:
    release = asyncio.Event()
    done: list[str] = []

    async def handler(m: Message) -> None:
        if lane_of(m) == "a":
            await release.wait()  # game a's command is slow
        done.append(m.payload.decode())

    c = Consumer(streams, name, "g", "c", handler, key=lane_of, concurrency=4, **FAST)
    await streams.ensure_group(name, "g")
    first = await streams.publish(name, b"a:1")
    for i in range(3):
        await streams.publish(name, f"b:{i}".encode())
    task = asyncio.create_task(c.run())
    await until(lambda: len(done) == 3)
    assert done == ["b:0", "b:1", "b:2"]  # while a:1 is still being applied

    async def only_a_pending() -> bool:  # each acked once its handler is done (a moment later)
        return await pending(streams, name, "g") == {first: 1}

    await until(only_a_pending)
    await streams.publish(name, b"b:3")  # read and applied past the slow one too
    await until(lambda: len(done) == 4)
    await until(only_a_pending)
    release.set()
    await until(lambda: len(done) == 5)
    c.stop()
    await asyncio.wait_for(task, 5)
    assert done[-1] == "a:1"
    assert await pending(streams, name, "g") == {}


async def test_one_lane_is_handled_in_stream_order_one_at_a_time(
    streams: Streams, name: str
) -> None:
    events: list[tuple[str, str]] = []
    busy: set[str] = set()

    async def handler(m: Message) -> None:
        lane, seq = m.payload.decode().split(":")
        assert lane not in busy, "two of one lane at once"
        busy.add(lane)
        events.append((lane, seq))
        await asyncio.sleep(0.001 * (7 - int(seq) % 7))  # earlier ones slower
        busy.discard(lane)

    c = Consumer(streams, name, "g", "c", handler, key=lane_of, concurrency=8, **FAST)
    await streams.ensure_group(name, "g")
    for i in range(30):  # interleaved lanes, more than one read's room
        await streams.publish(name, f"{'xyz'[i % 3]}:{i}".encode())
    await run_until(c, lambda: len(events) == 30)
    for lane in "xyz":
        seqs = [int(s) for k, s in events if k == lane]
        assert seqs == sorted(seqs) and len(seqs) == 10
    assert len({k for k, _ in events[:3]}) > 1  # lanes did interleave
    assert await pending(streams, name, "g") == {}


async def test_a_failing_message_is_not_acked_while_the_others_are(
    streams: Streams, name: str
) -> None:
    outage = asyncio.Event()  # set: Postgres is back
    calls: list[str] = []

    async def handler(m: Message) -> None:
        body = m.payload.decode()
        calls.append(body)
        if body == "bad:1":
            raise ValueError("not a move")  # its own content: refused, left for redelivery
        if body == "down:1" and not outage.is_set():
            raise asyncpg.CannotConnectNowError("the database system is starting up")

    c = Consumer(
        streams, name, "g", "c", handler, key=lane_of, concurrency=4, min_idle_ms=60_000, **FAST
    )
    await streams.ensure_group(name, "g")
    bad = await streams.publish(name, b"bad:1")
    down = await streams.publish(name, b"down:1")
    goods = [await streams.publish(name, f"ok{i}:1".encode()) for i in range(3)]
    task = asyncio.create_task(c.run())
    await until(lambda: calls.count("down:1") >= 3 and all(f"ok{i}:1" in calls for i in range(3)))

    async def only_failures_pending() -> bool:
        return set(await pending(streams, name, "g")) == {bad, down}

    await until(only_failures_pending)  # the good ones acked, the failing ones not
    assert not set(goods) & set(await pending(streams, name, "g"))
    outage.set()  # the outage ends: retried in place, then acked; the bad one stays
    await until(lambda: calls.count("down:1") >= 4)

    async def only_bad_pending() -> bool:
        return await pending(streams, name, "g") == {bad: 1}

    await until(only_bad_pending)
    c.stop()
    await asyncio.wait_for(task, 5)
    assert await streams.dead_letters(name) == []


async def test_poison_in_a_lane_is_dead_lettered(streams: Streams, name: str) -> None:
    async def handler(m: Message) -> None:
        if lane_of(m) == "bad":
            raise ValueError("not a move")

    c = Consumer(
        streams, name, "g", "c", handler, key=lane_of, concurrency=4, max_deliveries=2,
        min_idle_ms=0, **FAST,
    )  # fmt: skip
    await streams.ensure_group(name, "g")
    mid = await streams.publish(name, b"bad:1")
    ok = await streams.publish(name, b"ok:1")
    for _ in range(4):
        await c.step()
    [dead] = await streams.dead_letters(name)
    assert (dead.original_id, dead.deliveries) == (mid, 3)
    assert ok not in await pending(streams, name, "g")
    assert await pending(streams, name, "g") == {}


async def test_at_most_concurrency_messages_are_in_flight(streams: Streams, name: str) -> None:
    release = asyncio.Event()
    running: set[str] = set()
    most = 0
    done: list[str] = []

    async def handler(m: Message) -> None:
        nonlocal most
        running.add(m.id)
        most = max(most, len(running))
        await release.wait()
        running.discard(m.id)
        done.append(m.id)

    c = Consumer(streams, name, "g", "c", handler, key=lane_of, concurrency=3, **FAST)
    await streams.ensure_group(name, "g")
    for i in range(10):  # ten games at once: a burst
        await streams.publish(name, f"game{i}:1".encode())
    task = asyncio.create_task(c.run())
    await until(lambda: len(running) == 3)
    await asyncio.sleep(0.2)  # several reads' worth: it must not take more
    assert most == 3
    assert len(await pending(streams, name, "g")) == 3  # read = in flight, no more
    release.set()
    await until(lambda: len(done) == 10)
    c.stop()
    await asyncio.wait_for(task, 5)
    assert most == 3
    assert await pending(streams, name, "g") == {}


async def test_stopped_with_lanes_in_an_outage_leaves_them_pending(
    streams: Streams, name: str
) -> None:
    calls: list[str] = []

    async def down(m: Message) -> None:
        calls.append(m.id)
        raise asyncpg.exceptions.AdminShutdownError("terminating connection")

    c = Consumer(streams, name, "g", "c", down, key=lane_of, concurrency=4, **FAST)
    await streams.ensure_group(name, "g")
    mids = [await streams.publish(name, f"{lane}:1".encode()) for lane in "ab"]
    task = asyncio.create_task(c.run())
    await until(lambda: all(calls.count(mid) >= 2 for mid in mids))
    c.stop()
    await asyncio.wait_for(task, 2)
    assert await pending(streams, name, "g") == {mid: 1 for mid in mids}
    assert await streams.dead_letters(name) == []


async def test_a_batch_is_acked_in_one_round_trip_and_a_failure_stays_pending(
    streams: Streams, name: str
) -> None:
    """A round's handled entries are acked together, after the round's last handler; the one
    that failed is left pending for redelivery."""
    seen: list[bytes] = []
    acks: list[tuple[str, ...]] = []
    ack = streams.ack

    async def counting_ack(stream: str, group: str, *ids: str) -> None:
        acks.append(ids)
        assert await pending(streams, stream, group)  # nothing acked before the round's end
        await ack(stream, group, *ids)

    async def handler(m: Message) -> None:
        seen.append(m.payload)
        if m.payload == b"bad":
            raise ValueError("not a move")

    streams.ack = counting_ack  # type: ignore[method-assign]
    c = Consumer(streams, name, "g", "c", handler, min_idle_ms=60_000, **FAST)
    await streams.ensure_group(name, "g")
    ids = [await streams.publish(name, p) for p in (b"a", b"bad", b"c")]
    assert await c.step() == 3
    assert seen == [b"a", b"bad", b"c"]  # in order, the failure holding up nothing
    assert acks == [(ids[0], ids[2])]
    assert await pending(streams, name, "g") == {ids[1]: 1}


async def test_lanes_finished_together_are_acked_in_one_round_trip(
    streams: Streams, name: str
) -> None:
    """A keyed consumer acks what its lanes handled within the ack linger in one XACK, each
    after its handler; the failure stays pending."""
    acks = count_acks(streams)

    async def handler(m: Message) -> None:
        await asyncio.sleep(0.001 * int(m.payload.split(b":")[1]))
        if m.payload.endswith(b"bad"):
            raise ValueError("not a move")

    c = Consumer(streams, name, "g", "c", handler, key=lane_of, concurrency=8,
                 min_idle_ms=60_000, ack_linger_s=0.25, **FAST)  # fmt: skip
    await streams.ensure_group(name, "g")
    ids = [await streams.publish(name, b"%d:%d" % (n, n)) for n in range(6)]
    bad = await streams.publish(name, b"6:1:bad")
    assert await c.step() == 7  # the round waits for its handlers and their acks
    assert acks == [tuple(ids)]  # in the order they finished: here the order they came in
    assert await pending(streams, name, "g") == {bad: 1}


async def test_a_busy_consumer_looks_for_stale_entries_once_a_second_an_idle_one_each_read(
    streams: Streams, name: str
) -> None:
    claims = 0
    claim = streams.claim_stale

    async def counting_claim(*args: Any) -> list[Message]:
        nonlocal claims
        claims += 1
        return await claim(*args)

    async def handler(m: Message) -> None:
        return None

    streams.claim_stale = counting_claim  # type: ignore[method-assign]
    c = Consumer(streams, name, "g", "c", handler, min_idle_ms=30_000, **FAST)
    await streams.ensure_group(name, "g")
    for n in range(5):  # busy: every read brings news
        await streams.publish(name, b"m%d" % n)
        assert await c.step() == 1
    assert claims == 1
    assert await c.step() == 0  # idle: the read came back empty...
    assert await c.step() == 0
    assert claims == 2  # ...so the next round looked for stale entries first


async def test_a_lingering_consumer_takes_what_arrives_after_a_short_batch_in_one_read(
    streams: Streams, name: str
) -> None:
    """`linger_s`: after a short batch the next read waits, so entries arriving one after
    another are read and acked together; a full batch reads again at once; a stop ends the
    wait."""
    seen: list[bytes] = []
    acks = count_acks(streams)

    async def handler(m: Message) -> None:
        seen.append(m.payload)

    c = Consumer(streams, name, "g", "c", handler, batch=8, linger_s=2.0, **FAST)
    await streams.ensure_group(name, "g")
    task = asyncio.create_task(c.run())
    first = await streams.publish(name, b"a")
    await until(lambda: seen == [b"a"])  # read at once: it waited in a read
    later = []
    for p in (b"b", b"c", b"d"):  # one after another, within the linger (0.5 s after one)
        later.append(await streams.publish(name, p))
        await asyncio.sleep(0.03)
    await until(lambda: len(seen) == 4)
    assert acks == [(first,), tuple(later)]
    c.stop()
    await asyncio.wait_for(task, 0.4)  # the stop ends the linger at once


async def test_the_linger_grows_with_the_batch_and_a_full_one_reads_again_at_once(
    streams: Streams, name: str
) -> None:
    loop = asyncio.get_running_loop()
    c = Consumer(streams, name, "g", "c", _nothing, batch=8, linger_s=0.8, **FAST)
    await streams.ensure_group(name, "g")
    waited = []
    for n in (1, 4):
        for _ in range(n):
            await streams.publish(name, b"x")
        began = loop.time()
        assert await c.step() == n
        waited.append(loop.time() - began)
    assert 0.2 <= waited[0] < 0.6 and waited[1] >= 0.8  # a quarter after one, all after four
    c = Consumer(streams, name, "g", "c", _nothing, batch=2, linger_s=5, **FAST)
    for p in (b"a", b"b", b"c"):
        await streams.publish(name, p)
    assert await asyncio.wait_for(c.step(), 1) == 2  # full: no linger
    started = asyncio.get_running_loop().time()
    c.stop()
    assert await c.step() == 1  # short, but stopped: no linger either
    assert asyncio.get_running_loop().time() - started < 1


async def _nothing(m: Message) -> None:
    return None
