"""Telling an outage from a failure, and how long to wait out an outage.

A transient error says the infrastructure is away (a refused or lost connection, a
database restarting or full): the same work succeeds later, so it is retried and never
counts against the work. Anything else is a failure of the work itself.
"""

from __future__ import annotations

import errno
import random
import socket

import asyncpg
import redis.exceptions

TRANSIENT: tuple[type[BaseException], ...] = (
    ConnectionError,  # refused, reset, aborted, broken pipe
    TimeoutError,  # a connect or read that timed out (asyncio's too)
    socket.gaierror,  # a name that does not resolve (DNS away)
    asyncpg.PostgresConnectionError,  # lost or refused connections, ConnectionDoesNotExistError
    asyncpg.CannotConnectNowError,  # the server is starting up or shutting down
    asyncpg.TooManyConnectionsError,
    asyncpg.exceptions.AdminShutdownError,  # a restart ended the session
    asyncpg.exceptions.CrashShutdownError,
    # asyncpg's connection left mid-operation by a server shutting down ("cannot switch to
    # state 12; another operation (2) is in progress"): seen once when PostgreSQL stopped
    # during a request, and the relay died of it in test_faults' restart. Its other ones
    # (a protocol waiter gone, the pool's bookkeeping) come of the same races.
    asyncpg.InternalClientError,
    redis.exceptions.ConnectionError,  # with BusyLoadingError (a restart reading its data)
    redis.exceptions.TimeoutError,
)

# Network errors that are not ConnectionErrors: a host or network away for now.
_NETWORK_ERRNOS = frozenset(
    {errno.ENETUNREACH, errno.EHOSTUNREACH, errno.ENETDOWN, errno.EHOSTDOWN, errno.EADDRNOTAVAIL}
)

# asyncpg says "connection is closed" / "pool is closing" with a bare InterfaceError; the
# other InterfaceErrors ("another operation is in progress", bad arguments) are our bugs.
_CLOSED = ("connection is closed", "pool is closing", "pool is closed")


def is_transient(exc: BaseException) -> bool:
    """True if `exc` means an outage (retry the same work later), not bad work."""
    if isinstance(exc, BaseExceptionGroup):  # a task group: transient if every part is
        return all(is_transient(e) for e in exc.exceptions)
    if type(exc) is asyncpg.InterfaceError:
        return any(words in str(exc) for words in _CLOSED)
    if isinstance(exc, TRANSIENT):
        return True
    return isinstance(exc, OSError) and exc.errno in _NETWORK_ERRNOS


def backoff(attempt: int, base: float = 0.1, cap: float = 10.0) -> float:
    """Seconds to wait before retry `attempt` (0, 1, ...): doubling from `base` up to `cap`,
    less up to a fifth at random so that many waiting processes do not return at once."""
    delay: float = min(cap, base * 2.0 ** min(attempt, 62))
    return delay * random.uniform(0.8, 1.0)
