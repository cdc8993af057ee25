"""One suite over both rate counters (Redis and memory): bursts, refills, the headers' numbers."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from infra.rate_counters import Counter, Limit, MemoryCounter, RedisCounter

FIVE_PER_SECOND = Limit(5, 1)  # one more every 200 ms


@pytest.fixture(params=["memory", "redis"])
async def counter(
    request: pytest.FixtureRequest, redis_url: str, stream_prefix: str
) -> AsyncIterator[Counter]:
    if request.param == "memory":
        yield MemoryCounter()
        return
    client = aioredis.Redis.from_url(redis_url)
    prefix = f"{stream_prefix}counters-{uuid.uuid4().hex[:6]}:"
    yield RedisCounter(client, prefix)
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
