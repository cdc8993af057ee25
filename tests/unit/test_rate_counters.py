"""Leases over an in-memory bucket, on a clock the test moves: their sizes, their expiry,
refusals, and hits that wait for one lease (the same over Redis: tests/integration)."""

from __future__ import annotations

import asyncio

import pytest

from infra.http import rate_counters
from infra.http.rate_counters import (
    Bucket,
    Grant,
    LeasedCounter,
    Limit,
    MemoryBucket,
    MemoryCounter,
)

BUSY = Limit(600, 60)  # leases of up to 30
DAILY = Limit(600, 86400)  # leases of up to 30, and no refill while a test runs


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class CountingBucket:
    """A bucket that yields as a round trip would, and keeps what it was asked (one script
    call each, in Redis)."""

    def __init__(self, bucket: Bucket) -> None:
        self.bucket = bucket
        self.wants: list[int] = []
        self.fail: Exception | None = None

    async def take(self, key: str, limit: Limit, want: int) -> Grant:
        self.wants.append(want)
        await asyncio.sleep(0)
        if self.fail is not None:
            raise self.fail
        return await self.bucket.take(key, limit, want)


def leased(clock: Clock, shared: Bucket | None = None) -> tuple[LeasedCounter, CountingBucket]:
    bucket = CountingBucket(shared or MemoryBucket(clock))
    return LeasedCounter(bucket, clock), bucket


async def test_a_busy_key_costs_a_few_calls_and_counts_down_one_per_hit() -> None:
    counter, bucket = leased(Clock())
    counts = [await counter.hit("k", BUSY) for _ in range(100)]
    assert all(c.allowed and c.retry_ms == 0 for c in counts)
    assert [c.remaining for c in counts] == list(range(599, 499, -1))  # as one per call
    assert bucket.wants == [1, 16, 30, 30, 30]  # growing up to amount // 20


async def test_a_slow_client_costs_a_call_every_few_requests_and_holds_little() -> None:
    """A person's client, a request every 2 s on a key: a lease sized to what it spends in
    a lease's lifetime (6 s), so a call every third request, and never more than two tokens
    held here for nothing (with leases of 1 s it cost a call per request)."""
    clock = Clock()
    counter, bucket = leased(clock)
    for _ in range(12):
        assert (await counter.hit("k", BUSY)).allowed
        clock.now += 2.0  # 30 a minute: well under the limit
    assert bucket.wants == [1, 3, 3, 3, 3]
    assert (await counter.hit("k", BUSY)).remaining >= 597  # the bucket whole but what is held


async def test_twenty_per_hour_is_counted_exactly_as_one_per_call() -> None:
    clock = Clock()
    counter, bucket = leased(clock)
    exact = MemoryCounter(clock)
    hourly = Limit(20, 3600)
    for _ in range(25):
        assert await counter.hit("k", hourly) == await exact.hit("k", hourly)
        clock.now += 1.0
    assert len(bucket.wants) == 21 and set(bucket.wants) == {1}  # refusals held: 21, not 25


async def test_held_tokens_are_lost_when_the_lease_expires() -> None:
    clock = Clock()
    counter, bucket = leased(clock)
    assert (await counter.hit("k", DAILY)).remaining == 599
    assert (await counter.hit("k", DAILY)).remaining == 598  # a lease of 16: fifteen held here
    clock.now += rate_counters.lease_s(DAILY) + 0.01
    after = await counter.hit("k", DAILY)
    assert after.allowed and after.remaining == 582  # the held tokens are gone: strict side
    assert bucket.wants == [1, 16, 1]  # and the next lease is sized by what was spent


async def test_a_refusal_holds_until_its_retry_time_without_asking_again() -> None:
    clock = Clock()
    counter, bucket = leased(clock)
    forty = Limit(40, 60)  # leases of up to 2; one more every 1.5 s
    counts = [await counter.hit("k", forty) for _ in range(42)]
    assert [c.allowed for c in counts] == [True] * 40 + [False] * 2
    assert [c.remaining for c in counts[:40]] == list(range(39, -1, -1))
    refused = counts[40]
    assert refused.remaining == 0 and 1 <= refused.retry_ms <= 1500
    calls = len(bucket.wants)
    clock.now += 1.0
    again = await counter.hit("k", forty)
    assert not again.allowed and 1 <= again.retry_ms <= 500
    assert len(bucket.wants) == calls  # told here
    clock.now += again.retry_ms / 1000
    assert (await counter.hit("k", forty)).allowed
    assert len(bucket.wants) == calls + 1


async def test_two_replicas_never_pass_more_than_the_bucket_grants() -> None:
    clock = Clock()
    shared = MemoryBucket(clock)
    replicas = [leased(clock, shared) for _ in range(2)]
    counts = await asyncio.gather(*(replicas[i % 2][0].hit("k", DAILY) for i in range(1000)))
    assert 600 - 2 * 30 <= sum(c.allowed for c in counts) <= 600
    assert all(c.remaining >= 0 for c in counts)
    assert sum(len(b.wants) for _, b in replicas) < 60


async def test_hits_in_flight_together_wait_for_one_lease() -> None:
    counter, bucket = leased(Clock())
    counts = await asyncio.gather(*(counter.hit("k", DAILY) for _ in range(50)))
    assert all(c.allowed for c in counts)
    assert sorted(c.remaining for c in counts) == list(range(550, 600))
    assert bucket.wants == [1, 30, 30]  # the first alone, then as many as wait (at most 30)


async def test_a_failing_bucket_fails_the_waiting_hits_too_then_recovers() -> None:
    counter, bucket = leased(Clock())
    bucket.fail = ConnectionError("gone")
    answers = await asyncio.gather(
        *(counter.hit("k", DAILY) for _ in range(5)), return_exceptions=True
    )
    assert all(isinstance(a, ConnectionError) for a in answers)
    assert len(bucket.wants) == 1  # asked once for them all
    bucket.fail = None
    assert (await counter.hit("k", DAILY)).allowed


async def test_a_cancelled_lease_lets_a_waiting_hit_ask() -> None:
    counter, _ = leased(Clock())
    first = asyncio.ensure_future(counter.hit("k", DAILY))
    await asyncio.sleep(0)  # its lease asked, not answered
    second = asyncio.ensure_future(counter.hit("k", DAILY))
    await asyncio.sleep(0)  # waiting for it
    first.cancel()
    assert (await second).allowed


async def test_leases_that_are_over_are_forgotten(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rate_counters, "MAX_KEYS", 10)
    clock = Clock()
    counter, _ = leased(clock)
    for n in range(50):
        await counter.hit(f"k{n}", DAILY)
    clock.now += rate_counters.lease_s(DAILY) + 1.0
    await counter.hit("last", DAILY)
    assert len(counter._leases) <= 11
