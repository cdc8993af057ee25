"""Telling an outage from a failure, and how long to wait out an outage.

A transient error says the infrastructure is away (a refused or lost connection, a
database restarting or full): the same work succeeds later, so it is retried and never
counts against the work. Anything else is a failure of the work itself.
"""

from __future__ import annotations

import random

import asyncpg
import redis.exceptions

TRANSIENT: tuple[type[BaseException], ...] = (
    OSError,  # with ConnectionError and TimeoutError (asyncio's too)
    asyncpg.PostgresConnectionError,  # lost or refused connections, ConnectionDoesNotExistError
    asyncpg.InterfaceError,  # "connection is closed", "pool is closing"
    asyncpg.CannotConnectNowError,  # the server is starting up or shutting down
    asyncpg.TooManyConnectionsError,
    asyncpg.exceptions.OperatorInterventionError,  # admin or crash shutdown on a restart
    redis.exceptions.ConnectionError,  # with BusyLoadingError (a restart reading its data)
    redis.exceptions.TimeoutError,
)

# Subclasses of the above that blame the work, not the infrastructure: bad query
# arguments or a client misconfiguration fail the same way however often they are retried.
NOT_TRANSIENT: tuple[type[BaseException], ...] = (
    asyncpg.exceptions.DataError,
    asyncpg.exceptions.ClientConfigurationError,
    asyncpg.exceptions.UnsupportedClientFeatureError,
    asyncpg.exceptions.UnsupportedServerFeatureError,
)


def is_transient(exc: BaseException) -> bool:
    """True if `exc` means an outage (retry the same work later), not bad work."""
    if isinstance(exc, BaseExceptionGroup):  # a task group: transient if every part is
        return all(is_transient(e) for e in exc.exceptions)
    return isinstance(exc, TRANSIENT) and not isinstance(exc, NOT_TRANSIENT)


def backoff(attempt: int, base: float = 0.1, cap: float = 10.0) -> float:
    """Seconds to wait before retry `attempt` (0, 1, ...): doubling from `base` up to `cap`,
    less up to a fifth at random so that many waiting processes do not return at once."""
    delay: float = min(cap, base * 2.0 ** min(attempt, 62))
    return delay * random.uniform(0.8, 1.0)
