"""One suite over the rate counters (Redis per request, Redis by leases, memory): bursts,
refills, the headers' numbers; then what leases alone promise, over a real Redis."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
import redis.asyncio as aioredis

from infra.http.rate_counters import (
    TAKE_LUA,
    Counter,
    LeasedCounter,
    Limit,
    MemoryCounter,
    RedisBucket,
    RedisCounter,
    lease_s,
)

FIVE_PER_SECOND = Limit(5, 1)  # one more every 200 ms
DAILY = Limit(600, 86400)  # leases of up to 30, and no refill while a test runs


def leased(
    client: aioredis.Redis, prefix: str, clock: Callable[[], float] | None = None
) -> LeasedCounter:
    bucket = RedisBucket(client, prefix)
    return LeasedCounter(bucket) if clock is None else LeasedCounter(bucket, clock)


@pytest.fixture(params=["memory", "redis", "leased"])
async def counter(
    request: pytest.FixtureRequest, redis_url: str, stream_prefix: str
) -> AsyncIterator[Counter]:
    if request.param == "memory":
        yield MemoryCounter()
        return
    client = aioredis.Redis.from_url(redis_url)
    prefix = f"{stream_prefix}counters-{uuid.uuid4().hex[:6]}:"
    yield RedisCounter(client, prefix) if request.param == "redis" else leased(client, prefix)
    keys = [k async for k in client.scan_iter(match=f"{prefix}*")]
    if keys:
        await client.delete(*keys)
    await client.aclose()


async def test_a_burst_of_the_limit_passes_then_one_per_interval(counter: Counter) -> None:
    counts = [await counter.hit("k", FIVE_PER_SECOND) for _ in range(7)]
    assert [c.allowed for c in counts] == [True] * 5 + [False] * 2
    assert [c.remaining for c in counts[:5]] == [4, 3, 2, 1, 0]
    assert all(c.retry_ms == 0 for c in counts[:5])
    for refused in counts[5:]:
        assert refused.remaining == 0 and 150 <= refused.retry_ms <= 200
        assert 950 <= refused.reset_ms <= 1000
    await asyncio.sleep(refused.retry_ms / 1000 + 0.02)
    again = await counter.hit("k", FIVE_PER_SECOND)
    assert again.allowed and again.remaining == 0
    assert not (await counter.hit("k", FIVE_PER_SECOND)).allowed  # refusals were not counted


async def test_keys_and_limits_are_counted_apart(counter: Counter) -> None:
    for _ in range(5):
        assert (await counter.hit("a", FIVE_PER_SECOND)).allowed
    assert not (await counter.hit("a", FIVE_PER_SECOND)).allowed
    assert (await counter.hit("b", FIVE_PER_SECOND)).remaining == 4
    hourly = await counter.hit("c", Limit(20, 3600))
    assert hourly.allowed and hourly.remaining == 19 and 179_000 <= hourly.reset_ms <= 180_000


async def test_the_allowance_comes_back_whole(counter: Counter) -> None:
    for _ in range(5):
        await counter.hit("k", FIVE_PER_SECOND)
    await asyncio.sleep(1.05)
    assert (await counter.hit("k", FIVE_PER_SECOND)).remaining == 4


async def test_concurrent_hits_never_pass_more_than_the_limit(counter: Counter) -> None:
    counts = await asyncio.gather(*(counter.hit("k", Limit(10, 60)) for _ in range(40)))
    assert sum(c.allowed for c in counts) == 10
    assert sorted(c.remaining for c in counts if c.allowed) == list(range(10))


async def test_the_headers_count_down_one_per_hit_to_a_refusal(counter: Counter) -> None:
    hundred = Limit(100, 3600)  # leases of up to 5
    counts = [await counter.hit("k", hundred) for _ in range(102)]
    assert [c.allowed for c in counts] == [True] * 100 + [False] * 2
    assert [c.remaining for c in counts] == [*range(99, -1, -1), 0, 0]
    assert all(30_000 <= c.retry_ms <= 36_000 for c in counts[100:])


class CountingRedis(aioredis.Redis):
    """A client that counts the scripts it runs: one round trip each."""

    scripts = 0

    async def execute_command(self, *args: Any, **options: Any) -> Any:
        if str(args[0]).upper() in ("EVALSHA", "EVAL"):
            self.scripts += 1
        return await super().execute_command(*args, **options)  # type: ignore[no-untyped-call]


def counting(redis_url: str) -> CountingRedis:
    client = CountingRedis.from_url(redis_url)
    assert isinstance(client, CountingRedis)
    return client


@pytest.fixture
async def redis(redis_url: str, stream_prefix: str) -> AsyncIterator[tuple[CountingRedis, str]]:
    client = counting(redis_url)
    prefix = f"{stream_prefix}leases-{uuid.uuid4().hex[:6]}:"
    await client.script_load(TAKE_LUA)  # so that no NOSCRIPT retry is counted
    yield client, prefix
    keys = [k async for k in client.scan_iter(match=f"{prefix}*")]
    if keys:
        await client.delete(*keys)
    await client.aclose()


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_a_busy_key_costs_a_few_scripts(redis: tuple[CountingRedis, str]) -> None:
    client, prefix = redis
    counter = leased(client, prefix, Clock())
    counts = [await counter.hit("k", Limit(600, 60)) for _ in range(100)]
    assert all(c.allowed and c.remaining >= 0 for c in counts)
    assert client.scripts <= 5  # leases of 1, 16, 30...: 5, not 100
    # one less a hit, as when each hit was a script (where no refill comes between them)
    remaining = [(await counter.hit("d", DAILY)).remaining for _ in range(100)]
    assert remaining == list(range(599, 499, -1))


async def test_two_replicas_never_pass_more_than_the_limit(
    redis: tuple[CountingRedis, str], redis_url: str
) -> None:
    client, prefix = redis
    other = counting(redis_url)
    try:
        replicas = [leased(client, prefix, Clock()), leased(other, prefix, Clock())]
        counts = await asyncio.gather(*(replicas[i % 2].hit("k", DAILY) for i in range(1000)))
    finally:
        scripts = client.scripts + other.scripts
        await other.aclose()
    assert 600 - 2 * 30 <= sum(c.allowed for c in counts) <= 600
    assert all(c.remaining >= 0 for c in counts)
    assert all(c.retry_ms > 0 for c in counts if not c.allowed)
    assert scripts < 60


async def test_held_tokens_are_lost_when_the_lease_expires(
    redis: tuple[CountingRedis, str],
) -> None:
    client, prefix = redis
    clock = Clock()
    counter = leased(client, prefix, clock)
    assert (await counter.hit("k", DAILY)).remaining == 599
    assert (await counter.hit("k", DAILY)).remaining == 598  # a lease of 16: fifteen held here
    clock.now += lease_s(DAILY) + 0.01
    assert (await counter.hit("k", DAILY)).remaining == 582  # not 597: the fifteen held are gone
    assert client.scripts == 3


async def test_twenty_per_hour_is_leased_one_at_a_time(
    redis: tuple[CountingRedis, str],
) -> None:
    client, prefix = redis
    hourly = Limit(20, 3600)
    counter, exact = leased(client, prefix), RedisCounter(client, prefix)
    for _ in range(22):
        mine, old = await counter.hit("leased", hourly), await exact.hit("exact", hourly)
        assert (mine.allowed, mine.remaining) == (old.allowed, old.remaining)
        assert abs(mine.reset_ms - old.reset_ms) <= 50 and abs(mine.retry_ms - old.retry_ms) <= 50
    assert client.scripts == 21 + 22  # one a hit, but the refusal held here
