"""Real Postgres and Redis for integration and end-to-end tests (DESIGN.md, "Tests").

DATABASE_URL / REDIS_URL when set, else the local servers on their standard ports, else
testcontainers where a Docker engine exists. Each run gets its own database and key prefix.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import uuid
from collections.abc import AsyncIterator, Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import asyncpg
import pytest
import redis.asyncio as aioredis

from infra.migrate import migrate

RUN_ID = uuid.uuid4().hex[:8]


def _reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


def _containers_or_fail(what: str) -> str:
    try:
        if what == "postgres":
            from testcontainers.postgres import PostgresContainer

            pg = PostgresContainer("postgres:16-alpine", driver=None).start()
            return str(pg.get_connection_url())
        from testcontainers.redis import RedisContainer

        rc = RedisContainer("redis:7-alpine").start()
        return f"redis://{rc.get_container_host_ip()}:{rc.get_exposed_port(6379)}/0"
    except Exception as exc:  # no Docker engine either
        pytest.fail(
            f"no {what} reachable: set {'DATABASE_URL' if what == 'postgres' else 'REDIS_URL'}, "
            f"start the local server ({'pg_ctlcluster 15 main start' if what == 'postgres' else 'redis-server --daemonize yes'}) "
            f"or run a Docker engine for testcontainers ({exc})"
        )


def _run(coro: Coroutine[Any, Any, None]) -> None:
    """asyncio.run in a thread: sync fixtures may be set up from inside a running loop."""
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, coro).result()


@pytest.fixture(scope="session")
def admin_dsn() -> str:
    if url := os.environ.get("DATABASE_URL"):
        return url
    if _reachable("127.0.0.1", 5432):
        return "postgresql://postgres@127.0.0.1:5432/postgres"
    return _containers_or_fail("postgres")


@pytest.fixture(scope="session")
def redis_url() -> str:
    if url := os.environ.get("REDIS_URL"):
        return url
    if _reachable("127.0.0.1", 6379):
        return "redis://127.0.0.1:6379/0"
    return _containers_or_fail("redis")


@contextlib.contextmanager
def fresh_database(admin_dsn: str, name: str) -> Iterator[str]:
    """A new, migrated database, dropped afterwards."""
    base = admin_dsn.rsplit("/", 1)[0]

    async def create() -> None:
        conn = await asyncpg.connect(admin_dsn)
        await conn.execute(f'CREATE DATABASE "{name}"')
        await conn.close()
        conn = await asyncpg.connect(f"{base}/{name}")
        await migrate(conn)
        await conn.close()

    async def drop() -> None:
        conn = await asyncpg.connect(admin_dsn)
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await conn.close()

    _run(create())
    try:
        yield f"{base}/{name}"
    finally:
        _run(drop())


@pytest.fixture(scope="session")
def database_url(admin_dsn: str) -> Iterator[str]:
    """This run's database for integration tests."""
    with fresh_database(admin_dsn, f"turnpost_test_{RUN_ID}") as url:
        yield url


@pytest.fixture(scope="session")
def stream_prefix() -> str:
    return f"test-{RUN_ID}:"


@pytest.fixture
async def pool(database_url: str) -> AsyncIterator[asyncpg.Pool]:
    p = await asyncpg.create_pool(database_url, min_size=1, max_size=24)
    yield p
    await p.close()


@pytest.fixture
async def redis_client(redis_url: str, stream_prefix: str) -> AsyncIterator[aioredis.Redis]:
    r = aioredis.Redis.from_url(redis_url)
    yield r
    keys = [k async for k in r.scan_iter(match=f"{stream_prefix}*")]
    if keys:
        await r.delete(*keys)
    await r.aclose()
