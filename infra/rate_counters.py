"""Counting requests against a limit: GCRA (a token bucket kept as one timestamp), in Redis
for every replica at once, or in memory for the embedded mode and unit tests.

A limit of N per period lets N requests through at once, then one per period/N. The Redis
counter is one Lua script per request (atomic, on Redis's clock, whatever the replicas'
clocks say) that also returns what the RateLimit headers need.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable
from typing import NamedTuple, Protocol

import redis.asyncio as aioredis

UNITS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400}
_LIMIT = re.compile(r"(\d+)\s*(?:/|per)\s*(\d*)\s*(second|minute|hour|day)s?", re.IGNORECASE)


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


class Counter(Protocol):
    async def hit(self, key: str, limit: Limit) -> Count: ...


def _gcra(tat: float, now: float, limit: Limit) -> tuple[Count, float | None]:
    """The decision and the new theoretical arrival time (None: unchanged), times in ms."""
    period = limit.period_s * 1000.0
    interval = period / limit.amount
    tat = max(tat, now)
    new_tat = tat + interval
    allow_at = new_tat - period
    if now < allow_at:
        return Count(False, 0, math.ceil(tat - now), math.ceil(allow_at - now)), None
    remaining = math.floor((now - allow_at) / interval + 1e-9)
    return Count(True, remaining, math.ceil(new_tat - now), 0), new_tat


# The same arithmetic as _gcra, on Redis's clock. Returns allowed, remaining, reset, retry.
GCRA_LUA = """
local amount = tonumber(ARGV[1])
local period = tonumber(ARGV[2])
local interval = period / amount
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local tat = tonumber(redis.call('GET', KEYS[1])) or now
if tat < now then tat = now end
local new_tat = tat + interval
local allow_at = new_tat - period
if now < allow_at then
  return {0, 0, math.ceil(tat - now), math.ceil(allow_at - now)}
end
redis.call('SET', KEYS[1], string.format('%.3f', new_tat), 'PX', math.ceil(new_tat - now))
return {1, math.floor((now - allow_at) / interval + 1e-9), math.ceil(new_tat - now), 0}
"""


class RedisCounter:
    """Shared by every replica: one atomic script per request."""

    def __init__(self, client: aioredis.Redis, prefix: str = "") -> None:
        self._prefix = prefix
        self._script = client.register_script(GCRA_LUA)

    async def hit(self, key: str, limit: Limit) -> Count:
        allowed, remaining, reset_ms, retry_ms = await self._script(
            keys=[f"{self._prefix}{key}"], args=[limit.amount, limit.period_s * 1000]
        )
        return Count(bool(allowed), int(remaining), int(reset_ms), int(retry_ms))


class MemoryCounter:
    """One process's count (the embedded mode, unit tests)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._tats: dict[str, float] = {}
        self._clock = clock

    async def hit(self, key: str, limit: Limit) -> Count:
        now = self._clock() * 1000.0
        count, new_tat = _gcra(self._tats.get(key, now), now, limit)
        if new_tat is not None:
            if len(self._tats) > 10_000:  # forget the keys whose allowance is whole again
                self._tats = {k: v for k, v in self._tats.items() if v > now}
            self._tats[key] = new_tat
        return count
