"""Real Postgres and Redis for integration and end-to-end tests (DESIGN.md, "Tests").

The order of `make run` (infra/servers/embedded.py): DATABASE_URL / REDIS_URL where a server
answers there, else the local servers on their standard ports, else embedded servers from
pip packages (real PostgreSQL and Valkey processes, data in a temporary folder, stopped at
the end of the run), else testcontainers where a Docker engine exists. TURNPOST_SERVERS
(or TURNPOST_POSTGRES, TURNPOST_REDIS) = local | embedded forces a choice. Each run gets its
own database and key prefix.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import tempfile
import uuid
from collections.abc import AsyncIterator, Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import asyncpg
import pytest
import redis.asyncio as aioredis

from infra.servers.embedded import Chosen, NoServer, choose_postgres, choose_redis, mode
from infra.servers.migrate import migrate

RUN_ID = uuid.uuid4().hex[:8]
USED: list[str] = []  # which servers this run used, told at its end


def _containers(what: str) -> str:
    from testcontainers.postgres import PostgresContainer
    from testcontainers.redis import RedisContainer

    if what == "postgres":
        pg = PostgresContainer("postgres:16-alpine", driver=None).start()
        return str(pg.get_connection_url())
    rc = RedisContainer("redis:7-alpine").start()
    return f"redis://{rc.get_container_host_ip()}:{rc.get_exposed_port(6379)}/0"


def _server(what: str) -> Iterator[str]:
    """The server of this run for `what` (postgres: its admin URL), in the order above; an
    embedded one is stopped and its folder removed when the run ends."""
    folder = Path(tempfile.mkdtemp(prefix=f"turnpost-{what}-"))
    folder.chmod(0o755)  # as root, PostgreSQL runs as another user, who must reach its data
    chosen: Chosen | None = None
    try:
        try:
            chosen = (
                choose_postgres(
                    folder / "data", durable=False, database="postgres", start_local=False
                )
                if what == "postgres"
                else choose_redis(folder / "data", durable=False, start_local=False)
            )
            url = chosen.url
            USED.append(chosen.describe("PostgreSQL" if what == "postgres" else "Redis"))
        except NoServer as exc:
            if mode(what) != "auto":
                pytest.fail(f"no {what}: {exc}")
            try:
                url = _containers(what)
            except Exception as docker:  # no Docker engine either
                pytest.fail(
                    f"no {what}: nothing answers at {'DATABASE_URL' if what == 'postgres' else 'REDIS_URL'} "
                    f"or the standard port, no embedded server ({exc}) and no Docker engine for "
                    f"testcontainers ({docker})"
                )
            USED.append(f"{what}: testcontainers at {url}")
        yield url
    finally:
        if chosen is not None and chosen.server is not None:
            chosen.server.stop()
        shutil.rmtree(folder, ignore_errors=True)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    for line in USED:
        terminalreporter.write_line(line)


def _run(coro: Coroutine[Any, Any, None]) -> None:
    """asyncio.run in a thread: sync fixtures may be set up from inside a running loop."""
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, coro).result()


@pytest.fixture(scope="session")
def admin_dsn() -> Iterator[str]:
    yield from _server("postgres")


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    yield from _server("redis")


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
