"""Counting requests against a limit: GCRA (a token bucket kept as one timestamp), in Redis
for every replica at once, or in memory for the embedded mode and unit tests.

A limit of N per period lets N requests through at once, then one per period/N. The shared
bucket is one Lua script (atomic, on Redis's clock, whatever the replicas' clocks say) that
takes up to `want` tokens at once and returns what the RateLimit headers need. RedisCounter
asks it for every request; LeasedCounter, what the services use, takes a small lease of
tokens per key and spends it locally, so a busy key costs one script call per lease, not
per request.
"""

from __future__ import annotations

import asyncio
import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple, Protocol

import redis.asyncio as aioredis

UNITS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400}
_LIMIT = re.compile(r"(\d+)\s*(?:/|per)\s*(\d*)\s*(second|minute|hour|day)s?", re.IGNORECASE)
MAX_KEYS = 10_000  # past this many, the keys whose state is over are forgotten


class Limit(NamedTuple):
    amount: int
    period_s: int

    def __str__(self) -> str:
        return f"{self.amount}/{self.period_s}s"


def parse_limit(text: str) -> Limit | None:
    """`N/second|minute|hour|day`, `N per M minutes`...; None for `off` (or empty): no limit."""
    text = text.strip()
    if text.lower() in ("", "off", "none"):
        return None
    match = _LIMIT.fullmatch(text)
    if match is None or int(match[1]) < 1 or match[2] == "0":
        raise ValueError(f"not a rate limit: {text!r} (e.g. 120/minute, 20 per hour, off)")
    return Limit(int(match[1]), int(match[2] or 1) * UNITS[match[3].lower()])


class Count(NamedTuple):
    allowed: bool
    remaining: int  # requests that would still pass now
    reset_ms: int  # until the whole allowance is back
    retry_ms: int  # until the next request passes (0 when this one did)


class Grant(NamedTuple):
    taken: int  # tokens taken from the bucket, at most the `want` asked (0: refused)
    remaining: int  # left in the bucket after them
    reset_ms: int  # until the whole allowance is back
    retry_ms: int  # until a token is there again (0 when some were taken)


class Counter(Protocol):
    async def hit(self, key: str, limit: Limit) -> Count: ...


class Bucket(Protocol):
    async def take(self, key: str, limit: Limit, want: int) -> Grant: ...


def _take(tat: float, now: float, limit: Limit, want: int) -> tuple[Grant, float | None]:
    """Up to `want` tokens and the new theoretical arrival time (None: unchanged), in ms."""
    period = limit.period_s * 1000.0
    interval = period / limit.amount
    tat = max(tat, now)
    allow_at = tat + interval - period
    if now < allow_at:
        return Grant(0, 0, math.ceil(tat - now), math.ceil(allow_at - now)), None
    taken = max(1, min(want, math.floor((now + period - tat) / interval + 1e-9)))
    new_tat = tat + taken * interval
    remaining = math.floor((now + period - new_tat) / interval + 1e-9)
    return Grant(taken, remaining, math.ceil(new_tat - now), 0), new_tat


# The same arithmetic as _take, on Redis's clock. Returns taken, remaining, reset, retry.
TAKE_LUA = """
local amount = tonumber(ARGV[1])
local period = tonumber(ARGV[2])
local want = tonumber(ARGV[3])
local interval = period / amount
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local tat = tonumber(redis.call('GET', KEYS[1])) or now
if tat < now then tat = now end
local allow_at = tat + interval - period
if now < allow_at then
  return {0, 0, math.ceil(tat - now), math.ceil(allow_at - now)}
end
local taken = math.max(1, math.min(want, math.floor((now + period - tat) / interval + 1e-9)))
local new_tat = tat + taken * interval
redis.call('SET', KEYS[1], string.format('%.3f', new_tat), 'PX', math.ceil(new_tat - now))
return {taken, math.floor((now + period - new_tat) / interval + 1e-9), math.ceil(new_tat - now), 0}
"""


class RedisBucket:
    """The bucket every replica shares: one atomic script per take."""

    def __init__(self, client: aioredis.Redis, prefix: str = "") -> None:
        self._prefix = prefix
        self._script = client.register_script(TAKE_LUA)

    async def take(self, key: str, limit: Limit, want: int) -> Grant:
        taken, remaining, reset_ms, retry_ms = await self._script(
            keys=[f"{self._prefix}{key}"], args=[limit.amount, limit.period_s * 1000, want]
        )
        return Grant(int(taken), int(remaining), int(reset_ms), int(retry_ms))


class MemoryBucket:
    """One process's bucket (the embedded mode, unit tests)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._tats: dict[str, float] = {}
        self._clock = clock

    async def take(self, key: str, limit: Limit, want: int) -> Grant:
        now = self._clock() * 1000.0
        grant, new_tat = _take(self._tats.get(key, now), now, limit, want)
        if new_tat is not None:
            if len(self._tats) > MAX_KEYS:  # forget the keys whose allowance is whole again
                self._tats = {k: v for k, v in self._tats.items() if v > now}
            self._tats[key] = new_tat
        return grant


def _one(grant: Grant) -> Count:
    return Count(grant.taken > 0, grant.remaining, grant.reset_ms, grant.retry_ms)


class RedisCounter:
    """Shared by every replica: one atomic script per request."""

    def __init__(self, client: aioredis.Redis, prefix: str = "") -> None:
        self._bucket = RedisBucket(client, prefix)

    async def hit(self, key: str, limit: Limit) -> Count:
        return _one(await self._bucket.take(key, limit, 1))


class MemoryCounter:
    """One process's count (the embedded mode, unit tests)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._bucket = MemoryBucket(clock)

    async def hit(self, key: str, limit: Limit) -> Count:
        return _one(await self._bucket.take(key, limit, 1))


MAX_LEASE = 64  # tokens, whatever the limit
# How much larger a key's next lease may be than what it spent of its last. The leases stay
# bounded by lease_cap (a twentieth of the allowance), so the factor only says how soon a
# busy key gets there. A call to Redis costs the game service more CPU than a whole request
# served from a lease (redis-py's own machinery): with 2, the move-cycle benchmark's new
# players (a pair a game) made 1,715 script calls in a `profile_actions` run, with 16 909.
GROWTH = 16
# The longest a lease's tokens are held. Long enough that a person's client, a request or
# two a second on a key, renews a lease every few requests rather than at each one (with
# leases of 1 s, every request of such a client cost a script call: the lease was gone by
# the next); short enough that tokens a client leaves unspent come back soon.
LEASE_S = 6.0


def lease_cap(limit: Limit) -> int:
    """The most one lease takes: a twentieth of the allowance (20/hour: 1, 600/minute: 30)."""
    return max(1, min(limit.amount // 20, MAX_LEASE))


def lease_s(limit: Limit) -> float:
    """How long a lease's tokens are held: LEASE_S, or a tenth of a shorter period."""
    return min(LEASE_S, limit.period_s / 10)


@dataclass(slots=True)
class _Lease:
    """What one key holds here: tokens to spend until `expires`, or a refusal in force until
    then. Times are seconds on the counter's clock."""

    taken_at: float
    expires: float
    taken: int
    tokens: int  # still unspent
    remaining: int  # the bucket's, when taken
    reset_at: float
    refused: bool


class _InFlight:
    """A lease being asked for one key, and how many hits wait for it."""

    def __init__(self) -> None:
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.waiting = 0


def _ms(until: float, now: float) -> int:
    return max(1, math.ceil((until - now) * 1000))


def _want(lease: _Lease | None, now: float, waiting: int, limit: Limit) -> int:
    """The next lease for a key: what it spent per lease lifetime lately (at most GROWTH
    times the last lease), or as many hits as wait for it now."""
    cap, lifetime = lease_cap(limit), lease_s(limit)
    if lease is None or lease.refused or now >= lease.expires + lifetime:
        pace = 1  # new, refused or idle: one at a time, as if unleased
    else:
        spent, elapsed = lease.taken - lease.tokens, min(now, lease.expires) - lease.taken_at
        pace = GROWTH * spent  # at most GROWTH-fold: a burst's pace is not known yet
        if elapsed > 0:
            pace = min(pace, math.ceil(spent * lifetime / elapsed))
    return max(1, min(cap, max(pace, waiting)))


class LeasedCounter:
    """Shared by every replica, spent locally: per key, a lease of tokens taken from the
    bucket in one call and spent here; the bucket is asked again when it is spent or expired.

    A lease holds what the key spent per lease lifetime lately: one token at first, up to
    GROWTH times as many while leases run out early, so about a lifetime's worth of the
    key's pace (a fast client of a new key, a game's new player, asks 1, 16, 30 under the
    default read limit rather than 1, 2, 4, 8, 16, 30; 1, 16, 64 under the benchmark's).
    Two quick hits of a new key take 16 tokens (or its cap): a lease that expires unspent
    loses them, and its RateLimit-Remaining drops by as many at once. A client that comes
    back every second or two holds a few tokens, never much for nothing, where a fixed
    lease would keep its bucket empty.
    A lease is at most lease_cap(limit): a replica never holds more than a twentieth of a
    client's allowance.

    Tokens unspent when a lease expires (lease_s, at most 6 s) are lost: they were taken
    from the shared bucket, so the limit only ever errs on the strict side, by at most one
    lease per replica and lifetime. The headers' remaining is the bucket's at the lease plus
    the tokens still held here (what one token per hit would have left); it misses what
    other replicas took and the bucket regained since, for at most a lease's lifetime. A
    refusal is kept until its retry time (nothing gives tokens back sooner), so a client
    over its limit costs no call either. Hits of a key while its lease is asked for wait
    for that lease instead of each asking, and size the next one.
    """

    def __init__(self, bucket: Bucket, clock: Callable[[], float] = time.monotonic) -> None:
        self._bucket = bucket
        self._clock = clock
        self._leases: dict[str, _Lease] = {}
        self._in_flight: dict[str, _InFlight] = {}

    async def hit(self, key: str, limit: Limit) -> Count:
        waiting = 1
        while True:
            now = self._clock()
            lease = self._leases.get(key)
            if lease is not None and now < lease.expires:
                if lease.refused:
                    return Count(False, 0, _ms(lease.reset_at, now), _ms(lease.expires, now))
                if lease.tokens > 0:
                    lease.tokens -= 1
                    remaining = lease.remaining + lease.tokens
                    return Count(True, remaining, _ms(lease.reset_at, now), 0)
            flight = self._in_flight.get(key)
            if flight is None:
                return await self._lease(key, limit, _want(lease, now, waiting, limit))
            flight.waiting += 1
            await asyncio.shield(flight.done)  # the one asking raises: so do those waiting
            waiting = flight.waiting

    async def _lease(self, key: str, limit: Limit, want: int) -> Count:
        flight = None if lease_cap(limit) == 1 else _InFlight()  # a lease of one: one hit
        if flight is not None:
            self._in_flight[key] = flight
        try:
            return self._keep(key, limit, await self._bucket.take(key, limit, want))
        except Exception as exc:
            if flight is not None:
                flight.done.set_exception(exc)
                flight.done.exception()  # retrieved: nobody need be waiting
            raise
        finally:
            if flight is not None:
                if self._in_flight.get(key) is flight:
                    del self._in_flight[key]
                if not flight.done.done():  # cancelled: a waiting hit asks instead
                    flight.done.set_result(None)

    def _keep(self, key: str, limit: Limit, grant: Grant) -> Count:
        now = self._clock()
        reset_at = now + grant.reset_ms / 1000
        if grant.taken == 0:
            lease = _Lease(now, now + grant.retry_ms / 1000, 0, 0, 0, reset_at, refused=True)
            count = Count(False, 0, grant.reset_ms, grant.retry_ms)
        else:  # this hit spends the first token
            left = grant.taken - 1
            lease = _Lease(
                now, now + lease_s(limit), grant.taken, left, grant.remaining, reset_at, False
            )
            count = Count(True, grant.remaining + left, grant.reset_ms, 0)
        if len(self._leases) > MAX_KEYS:  # forget the leases and refusals that are over
            self._leases = {k: v for k, v in self._leases.items() if v.expires > now}
        self._leases[key] = lease
        return count
