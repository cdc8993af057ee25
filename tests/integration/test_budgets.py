"""Connection budgets on a real Postgres: what each connection tells the server, a pool that
fails a request rather than queueing it for ever, and a relay's lock that a silent or cut
session gives up within seconds (services/game/relay.py, infra/servers/db.py)."""

from __future__ import annotations

import asyncio
import time
import uuid

import asyncpg
import msgspec
import pytest
import redis.asyncio as aioredis

from infra.servers.db import connect_kwargs, create_pool, redis_options
from infra.settings import Settings
from services.game import relay
from services.game.relay import RELAY_LOCK

HOLDER = """SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = 0
            AND objid = $1 AND objsubid = 1
            AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"""


async def test_a_pooled_connection_carries_the_keepalives_and_timeouts(database_url: str) -> None:
    settings = Settings(keepalive_idle_s=7, keepalive_interval_s=3, keepalive_count=2,
                        db_tcp_user_timeout_s=9.0, db_command_timeout_s=0.5)  # fmt: skip
    pool = await create_pool(database_url, 1, 1, settings)
    try:
        async with pool.acquire() as conn:
            shown = [
                await conn.fetchval(f"SHOW {name}")
                for name in (
                    "tcp_keepalives_idle",
                    "tcp_keepalives_interval",
                    "tcp_keepalives_count",
                    "tcp_user_timeout",
                )
            ]
            with pytest.raises(TimeoutError):  # command_timeout: a query may not hang
                await conn.execute("SELECT pg_sleep(5)")
        assert shown == ["7", "3", "2", "9000"]  # over TCP (a Unix socket would show zeros)
    finally:
        await pool.close()


async def test_a_drained_pool_fails_an_acquire_after_the_timeout(database_url: str) -> None:
    pool = await create_pool(database_url, 1, 1, Settings(db_acquire_timeout_s=0.3))
    try:
        async with pool.acquire():
            began = time.monotonic()
            with pytest.raises(TimeoutError):
                async with pool.acquire():
                    pass
            assert 0.25 < time.monotonic() - began < 2
    finally:
        await pool.close()


async def test_an_idle_lock_holder_loses_its_session_and_lock(database_url: str) -> None:
    settings = Settings(relay_lock_timeout_s=1.0)
    key = 0x7465_7374  # not the relay's: other tests' relays may hold that
    frozen = await asyncpg.connect(
        database_url, **connect_kwargs(settings, idle_session_timeout="1000")
    )
    other = await asyncpg.connect(database_url)
    try:
        assert await frozen.fetchval("SELECT pg_try_advisory_lock($1)", key)
        assert not await other.fetchval("SELECT pg_try_advisory_lock($1)", key)
        await asyncio.sleep(2.0)  # frozen: says nothing for twice the timeout
        assert await other.fetchval("SELECT pg_try_advisory_lock($1)", key)
        with pytest.raises((asyncpg.PostgresError, asyncpg.InterfaceError, OSError)):
            await frozen.fetchval("SELECT 1")
    finally:
        await other.close()
        frozen.terminate()


async def test_a_relay_cut_off_is_replaced_and_publishes_nothing_twice(
    admin_dsn: str, redis_url: str, stream_prefix: str
) -> None:
    """Two relays on a database of their own; the active one's session is ended by the
    server (pg_terminate_backend): the lock is held again within seconds, and what was
    appended before and after reaches the stream once each."""
    from tests.conftest import fresh_database
    from tests.integration.test_relay import _insert

    name = f"turnpost_budgets_{uuid.uuid4().hex[:8]}"
    with fresh_database(admin_dsn, name) as url:
        settings = Settings(database_url=url, redis_url=redis_url, relay_lock_timeout_s=1.5,
                            stream_prefix=f"{stream_prefix}budget-{uuid.uuid4().hex[:6]}:")  # fmt: skip
        stop = asyncio.Event()
        relays = [asyncio.create_task(relay.run(settings, stop, poll_seconds=0.1))
                  for _ in range(2)]  # fmt: skip
        conn = await asyncpg.connect(url)
        r = aioredis.Redis.from_url(redis_url, **redis_options(settings))
        stream = settings.stream("turnpost:games")
        try:
            first = await _holder(conn, None, 20)
            game = f"game-{uuid.uuid4()}"
            await _insert(conn, game, 1)
            await _published(r, stream, 1, 30)
            await conn.execute("SELECT pg_terminate_backend($1)", first)
            began = time.monotonic()
            second = await _holder(conn, first, 10)
            took = time.monotonic() - began
            assert second != first and took < 3, took  # a standby asks every 0.5 s
            await _insert(conn, game, 2)
            assert await _published(r, stream, 2, 30) == [1, 2]
        finally:
            stop.set()
            await asyncio.gather(*relays, return_exceptions=True)
            await r.delete(stream, f"{stream}:relayed")
            await r.aclose()
            await conn.close()


async def _holder(conn: asyncpg.Connection, other_than: int | None, seconds: float) -> int:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        pid = await conn.fetchval(HOLDER, RELAY_LOCK)
        if pid is not None and pid != other_than:
            return int(pid)
        await asyncio.sleep(0.05)
    raise AssertionError("no relay took the lock")


async def _published(r: aioredis.Redis, stream: str, n: int, seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        entries = await r.xrange(stream)
        if len(entries) >= n:
            await asyncio.sleep(0.3)  # anything doubled would land by now
            entries = await r.xrange(stream)
            return [int(msgspec.json.decode(f[b"m"])["version"]) for _, f in entries]
        await asyncio.sleep(0.05)
    raise AssertionError(f"fewer than {n} entries on {stream}")


def test_a_request_the_pool_cannot_serve_in_time_is_a_503_to_retry() -> None:
    from litestar import Litestar, get
    from litestar.testing import TestClient

    from infra.http.common import EXCEPTION_HANDLERS

    @get("/drained")
    async def drained() -> None:
        raise TimeoutError  # what BudgetedPool.acquire raises after db_acquire_timeout_s

    @get("/bug")
    async def bug() -> None:
        raise KeyError("a bug")

    app = Litestar([drained, bug], exception_handlers=EXCEPTION_HANDLERS)
    with TestClient(app) as client:
        r = client.get("/drained")
        assert r.status_code == 503 and r.headers["retry-after"] == "1"
        assert r.json()["code"] == "service_unavailable"
        assert client.get("/bug").status_code == 500


async def test_migrations_outlast_the_command_timeout_of_a_pooled_connection(
    admin_dsn: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The services migrate at start on a pooled connection: a long migration is not cut."""
    from infra.servers import migrate as migrating
    from tests.conftest import fresh_database

    with fresh_database(admin_dsn, f"turnpost_budgets_{uuid.uuid4().hex[:8]}") as url:
        slow = [("999_slow.sql", "SELECT pg_sleep(0.6)")]
        monkeypatch.setattr(migrating, "migrations", lambda: slow)
        pool = await create_pool(url, 1, 1, Settings(db_command_timeout_s=0.2))
        try:
            async with pool.acquire() as conn:
                assert await migrating.migrate(conn) == ["999_slow.sql"]
        finally:
            await pool.close()
