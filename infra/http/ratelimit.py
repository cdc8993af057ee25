"""Rate limits per route class and subject, counted in Redis so every replica shares them.

A subject is the player a valid bearer token names, else the client's address; registering
is always per address, which is also what bounds the tokens one address can hold. Counting
is infra/http/rate_counters.py: each replica takes small leases of tokens from the shared Redis
bucket (one atomic script per lease) and spends them locally.
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import math
import re
import time
from collections.abc import AsyncIterator
from functools import lru_cache
from typing import Literal, NamedTuple

import redis.asyncio as aioredis
from litestar import Litestar
from litestar.types import Scope
from redis.exceptions import RedisError

from contracts.problems import ProblemError
from infra.auth.bearer import InvalidToken, verify_in
from infra.http.rate_counters import (
    Counter,
    LeasedCounter,
    Limit,
    MemoryCounter,
    RedisBucket,
    parse_limit,
)
from infra.settings import Settings, from_env

log = logging.getLogger(__name__)

RouteClass = Literal["register", "action", "chat", "write", "read"]
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
ACTION_ROUTES = ("/actions", "/resign", "/claim")  # under /v1/games/{id}
BYPASS_AFTER_FAILURE_S = 2.0  # an unreachable store is not asked again for this long
# not counted: the probes, the metrics and the web client's static files (/play/)
_EXEMPT = re.compile(r"^/(health|ready|metrics)$|^/play(/|$)")


def exempt(path: str) -> bool:
    if path.startswith("/v1/"):  # the API: counted (no regular expression on its requests)
        return False
    return _EXEMPT.search(path) is not None


def route_class(method: str, path: str) -> RouteClass:
    if method in ("GET", "HEAD", "OPTIONS"):
        return "read"
    if path.rstrip("/") == "/v1/players":
        return "register"
    if path.startswith("/v1/games/") and path.endswith(ACTION_ROUTES):
        return "action"
    if path.startswith("/v1/games/") and path.endswith("/chat"):
        return "chat"
    return "write"


def parse_networks(text: str) -> tuple[Network, ...]:
    return tuple(
        ipaddress.ip_network(p.strip(), strict=False) for p in text.split(",") if p.strip()
    )


@lru_cache(maxsize=4096)
def _trusted(address: str, trusted: tuple[Network, ...]) -> bool:
    """Remembered: only peers and the hops our own proxies appended are asked (a client's
    own X-Forwarded-For entries, to their left, never are), so what fills it is bounded by
    the real clients, and parsing addresses was most of what counting a request cost."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in trusted)


def client_address(scope: Scope, trusted: tuple[Network, ...]) -> str:
    """The peer, or when the peer is a trusted proxy, the last X-Forwarded-For hop before it."""
    client = scope.get("client")
    peer = client[0] if client else "unknown"
    if not trusted or not _trusted(peer, trusted):
        return peer
    forwarded = b",".join(v for k, v in scope["headers"] if k == b"x-forwarded-for")
    hops = [h.strip() for h in forwarded.decode("latin-1").split(",") if h.strip()]
    for hop in reversed(hops):  # each proxy appends the address it saw: trust from the right
        if not _trusted(hop, trusted):
            return hop
    return hops[0] if hops else peer


@lru_cache(maxsize=4096)
def address_key(address: str) -> str:
    """IPv6 clients are counted per /64: one host commonly holds the whole prefix."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address[:64]
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


@lru_cache(maxsize=16)
def _limit_headers(limit: Limit) -> tuple[tuple[bytes, bytes], tuple[bytes, bytes]]:
    """A limit's own two headers, the same on every answer under it."""
    return (
        (b"ratelimit-limit", b"%d" % limit.amount),
        (b"ratelimit-policy", b"%d;w=%d" % (limit.amount, limit.period_s)),
    )


class Decision(NamedTuple):
    allowed: bool
    limit: Limit
    remaining: int
    reset_s: int  # until the whole allowance is back
    retry_s: int  # until the next request passes (on a refusal)

    def headers(self) -> list[tuple[bytes, bytes]]:
        """RateLimit-* of draft-ietf-httpapi-ratelimit-headers, and Retry-After on a refusal."""
        limit, policy = _limit_headers(self.limit)
        pairs = [
            limit,
            (b"ratelimit-remaining", b"%d" % self.remaining),
            (b"ratelimit-reset", b"%d" % self.reset_s),
            policy,
        ]
        if not self.allowed:
            pairs.append((b"retry-after", b"%d" % self.retry_s))
        return pairs

    def refusal(self, kind: RouteClass) -> ProblemError:
        """429 `rate_limited`, with when to come back."""
        return ProblemError(
            429,
            "rate_limited",
            f"over the limit of {self.limit.amount} {kind} requests per"
            f" {self.limit.period_s} s; retry after {self.retry_s} s",
        )


class RateLimiter:
    """Counts requests per (route class, subject); when the store fails, lets them through."""

    def __init__(self, counter: Counter, settings: Settings) -> None:
        self.settings = settings
        self._counter = counter
        self._limits: dict[RouteClass, Limit | None] = {
            "register": parse_limit(settings.rate_limit_register),
            "action": parse_limit(settings.rate_limit_action),
            "chat": parse_limit(settings.rate_limit_chat),
            "write": parse_limit(settings.rate_limit_write),
            "read": parse_limit(settings.rate_limit_read),
        }
        self._trusted = parse_networks(settings.trusted_proxies)
        self._bypass_until = 0.0

    def subject(self, scope: Scope, kind: RouteClass) -> str:
        if kind != "register":
            for name, value in scope["headers"]:
                if name == b"authorization":
                    try:  # remembered by infra/auth/bearer.py; an invalid token counts by address
                        keyring, header = self.settings.keyring(), value.decode("latin-1")
                        who = verify_in(scope, keyring, header)  # kept for the handler
                    except InvalidToken:
                        break
                    return f"player:{who.player_id}"
        return f"address:{address_key(client_address(scope, self._trusted))}"

    async def check(self, kind: RouteClass, scope: Scope) -> Decision | None:
        """Count one request; None when this class has no limit or the store cannot say."""
        limit = self._limits[kind]
        if limit is None or time.monotonic() < self._bypass_until:
            return None
        try:
            count = await self._counter.hit(f"{kind}:{self.subject(scope, kind)}", limit)
        except (RedisError, OSError, TimeoutError) as exc:
            self._bypass_until = time.monotonic() + BYPASS_AFTER_FAILURE_S
            log.warning(
                "rate limits not enforced for %ss: the store failed: %r",
                BYPASS_AFTER_FAILURE_S,
                exc,
            )
            return None
        return Decision(
            count.allowed,
            limit,
            count.remaining,
            math.ceil(count.reset_ms / 1000),
            max(1, math.ceil(count.retry_ms / 1000)),
        )


def _counter(settings: Settings, embedded: bool) -> tuple[Counter, aioredis.Redis | None]:
    if embedded:
        return MemoryCounter(), None
    # Short timeouts and no retries: a slow Redis must not hold requests (they pass instead).
    client = aioredis.Redis.from_url(
        settings.redis_url, socket_timeout=0.5, socket_connect_timeout=0.5, retry=None
    )
    return LeasedCounter(RedisBucket(client, f"{settings.stream_prefix}ratelimit:")), client


@contextlib.asynccontextmanager
async def rate_limits(app: Litestar) -> AsyncIterator[None]:
    """Lifespan: after the service's own (which settles app.state.settings)."""
    settings: Settings = app.state.get("settings") or from_env()
    counter, client = _counter(settings, bool(app.state.get("embedded")))
    app.state.rate_limiter = RateLimiter(counter, settings)
    try:
        yield
    finally:
        if client is not None:
            await client.aclose()
