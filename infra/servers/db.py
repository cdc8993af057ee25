"""The asyncpg pool every service uses, and each connection's budget (infra/settings.py)."""

from __future__ import annotations

import socket
from typing import Any

import asyncpg
from asyncpg.pool import Pool, PoolConnectionProxy

from infra.settings import Settings


async def _keep(conn: asyncpg.Connection) -> None:
    """No reset on release: the services keep no session state (no SET but a SET LOCAL, no
    LISTEN, or advisory lock on pooled connections; the relay and migrations use their own),
    so the default reset would be a wasted round trip on every query."""


async def fetch_replanned(pool: asyncpg.Pool, query: str, *args: Any) -> list[asyncpg.Record]:
    """A sweep's rows (a scheduler's, a deadline sweep's: a few calls a second), planned for
    the tables as they are now. Postgres keeps a prepared statement's generic plan, made when
    the statement was new: in a fresh database, on a `turns` it takes for ten pages, the
    sweeps' range conditions (`next_deadline <= now()`) are planned as a scan of the whole
    table, and kept so until an ANALYZE, which never comes with autovacuum off. A custom plan
    each time (SET LOCAL, in a transaction of its own) costs a planning a call."""
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute("SET LOCAL plan_cache_mode = force_custom_plan")
        rows: list[asyncpg.Record] = await conn.fetch(query, *args)
        return rows


def server_settings(settings: Settings, **extra: str) -> dict[str, str]:
    """What the server is told at connect: probe a silent client and drop it after
    keepalive_idle + interval * count seconds, or once data it was sent stays
    unacknowledged db_tcp_user_timeout_s (a peer gone without a FIN holds its session, and
    any lock of it, until then, not for the kernel's two hours)."""
    return {
        "tcp_keepalives_idle": str(settings.keepalive_idle_s),
        "tcp_keepalives_interval": str(settings.keepalive_interval_s),
        "tcp_keepalives_count": str(settings.keepalive_count),
        "tcp_user_timeout": str(int(settings.db_tcp_user_timeout_s * 1000)),
        **extra,
    }


def connect_kwargs(settings: Settings, **extra: str) -> dict[str, Any]:
    return {
        "timeout": settings.db_connect_timeout_s,
        "command_timeout": settings.db_command_timeout_s,
        "server_settings": server_settings(settings, **extra),
    }


class BudgetedPool(Pool):  # type: ignore[misc]
    """A pool whose acquire waits db_acquire_timeout_s at most unless told otherwise: a pool
    drained by a slow database fails the request (TimeoutError) instead of queueing it."""

    def __init__(self, *args: Any, acquire_timeout: float, **kwargs: Any) -> None:
        self._acquire_timeout = acquire_timeout
        super().__init__(*args, **kwargs)

    def acquire(self, *, timeout: float | None = None) -> Any:
        if timeout is None and not self._free():
            timeout = self._acquire_timeout
        return super().acquire(timeout=timeout)

    async def release(self, connection: Any, *, timeout: float | None = None) -> None:  # noqa: ASYNC109 (asyncpg's signature)
        if not self._put_back(connection):
            await super().release(connection, timeout=timeout)

    def _put_back(self, connection: Any) -> bool:
        """Return a connection left as it was taken to the pool at once, as asyncpg's
        release ends, without the task it starts for every release (`asyncio.shield` of a
        coroutine that arms a timeout around our reset, which does nothing: `_keep`): 2-3 %
        of the game service's CPU under the move-cycle load. Only a connection with nothing
        to clean: open, idle (no transaction, no query being cancelled), no listener, within
        its pool's generation and query budget; anything else, or an asyncpg whose insides
        differ, goes through asyncpg's own release. Nothing here awaits, so no cancellation
        can leave the connection half returned (what the shield is for).
        Nor while another task waits for a connection: asyncpg's release suspends the
        releasing task once, so the waiter it wakes runs first; put back here, the releasing
        task would take the connection again at its next query before the waiter ran, and a
        task running many queries in a row would keep the pool's connection from the tasks
        waiting in line (a drained pool must serve its waiters in turn)."""
        if self._waiting():
            return False
        try:
            holder = connection._holder
            con = holder._con
            protocol = con._protocol
            if (
                type(connection) is not PoolConnectionProxy
                or holder._pool is not self
                or self._closed
                or not self._initialized
                or self._reset is not _keep
                or holder._in_use is None
                or connection._con is None
                or con.is_closed()
                or protocol.queries_count >= holder._max_queries
                or holder._generation != self._generation
                or protocol._is_cancelling()
                or protocol.is_in_transaction()
                or con._top_xact is not None
                or con._listeners
                or con._log_listeners
            ):
                return False
        except AttributeError:
            return False
        con._on_release()
        holder._timeout = None
        holder._release()
        holder._setup_inactive_callback()
        return True

    def _waiting(self) -> bool:
        """Whether a task waits in the pool's queue for a connection (asyncio.Queue's own
        list of getters; without it, assume one does)."""
        getters = getattr(getattr(self, "_queue", None), "_getters", None)
        return getters is None or any(not g.done() for g in getters)

    def _free(self) -> bool:
        """Whether a connection holder waits in the pool's queue now. Then the acquire takes
        it without suspending (in `async with pool.acquire()` nothing runs between this
        check and the queue's get), so no timer is armed and cancelled for it, nor one on
        its release (3 % of the game service's profile samples under the move-cycle load).
        A holder without its connection makes one within db_connect_timeout_s (so that,
        not db_acquire_timeout_s, bounds such an acquire), and the release's wait for a
        cancelled query is bounded by db_command_timeout_s: still bounded, if longer."""
        queue = getattr(self, "_queue", None)  # asyncpg's; without it, always the timer
        return queue is not None and queue.qsize() > 0


async def create_pool(
    url: str, min_size: int = 2, max_size: int = 20, settings: Settings | None = None
) -> asyncpg.Pool:
    """A pool of min_size..max_size connections with the settings' timeouts and keepalives
    (the defaults' where none are given)."""
    budget = settings or Settings()
    pool = BudgetedPool(
        url,
        acquire_timeout=budget.db_acquire_timeout_s,
        min_size=min_size,
        max_size=max_size,
        max_queries=50_000,
        max_inactive_connection_lifetime=300.0,
        loop=None,
        connection_class=asyncpg.Connection,
        record_class=asyncpg.Record,
        reset=_keep,
        **connect_kwargs(budget),
    )
    return await pool


def redis_options(settings: Settings) -> dict[str, Any]:
    """redis-py connection options: timeouts, TCP keepalives, a PING before reusing a
    connection idle longer than redis_health_check_s."""
    keepalive: dict[int, int] = {}
    for name, value in (
        ("TCP_KEEPIDLE", settings.keepalive_idle_s),
        ("TCP_KEEPINTVL", settings.keepalive_interval_s),
        ("TCP_KEEPCNT", settings.keepalive_count),
    ):
        if hasattr(socket, name):  # Linux; macOS lacks some
            keepalive[getattr(socket, name)] = value
    return {
        "socket_timeout": settings.redis_socket_timeout_s,
        "socket_connect_timeout": settings.redis_connect_timeout_s,
        "socket_keepalive": True,
        "socket_keepalive_options": keepalive,
        "health_check_interval": settings.redis_health_check_s,
    }
