"""infra/db.BudgetedPool's release: a clean connection goes back to the pool at once, and any
connection with something to clean goes through asyncpg's own release, which cleans it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest
from asyncpg.pool import Pool

from infra.servers.db import BudgetedPool, create_pool
from infra.settings import Settings


@pytest.fixture
async def pool(database_url: str) -> AsyncIterator[BudgetedPool]:
    made = await create_pool(database_url, 1, 1, Settings(db_command_timeout_s=0.5))
    assert isinstance(made, BudgetedPool)
    try:
        yield made
    finally:
        await made.close()


@pytest.fixture
def asyncpg_releases(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Each connection handed to asyncpg's own release."""
    seen: list[Any] = []
    original = Pool.release

    async def counted(self: Pool, connection: Any, *, timeout: float | None = None) -> None:  # noqa: ASYNC109
        seen.append(connection)
        await original(self, connection, timeout=timeout)

    monkeypatch.setattr(Pool, "release", counted)
    return seen


async def backend(pool: BudgetedPool) -> int:
    async with pool.acquire() as conn:
        pid: int = await conn.fetchval("SELECT pg_backend_pid()")
        return pid


async def test_a_clean_connection_is_back_at_once_and_used_again(
    pool: BudgetedPool, asyncpg_releases: list[Any]
) -> None:
    first = await backend(pool)
    tasks_before = len(asyncio.all_tasks())
    for _ in range(20):
        async with pool.acquire() as conn:
            assert await conn.fetchval("SELECT 1") == 1
        assert len(asyncio.all_tasks()) == tasks_before  # no task per release
    assert await backend(pool) == first  # one connection, reused: never closed
    assert asyncpg_releases == []
    with pytest.raises(asyncpg.InterfaceError):  # the proxy is let go, as asyncpg does
        await conn.fetchval("SELECT 1")
    # concurrent users of a pool of one: each waits for the connection the last put back,
    # and while one waits the release is asyncpg's (see the next test); the last is quick
    await asyncio.gather(*(backend(pool) for _ in range(10)))
    assert len(asyncpg_releases) == 9


async def test_a_task_waiting_for_the_connection_gets_it_before_the_releaser_asks_again(
    pool: BudgetedPool, asyncpg_releases: list[Any]
) -> None:
    """A pool of one: A runs 30 queries in a row, B asks once after A's first. B must be
    served at A's next release, as asyncpg's release does it (it suspends the releaser, so
    the waiter it woke runs first), not after all of A's queries."""
    order: list[str] = []

    async def a() -> None:
        for i in range(30):
            await pool.fetchval("SELECT 1")
            order.append(f"A{i}")

    async def b() -> None:
        await asyncio.sleep(0)  # A holds the connection now
        await pool.fetchval("SELECT 1")
        order.append("B")

    await asyncio.gather(a(), b())
    assert order.index("B") <= 2, order
    assert asyncpg_releases  # the releases made while B waited
    assert len(asyncpg_releases) < 30  # and only those: A's others were quick


async def test_a_connection_left_in_a_transaction_is_rolled_back(
    pool: BudgetedPool, asyncpg_releases: list[Any]
) -> None:
    async with pool.acquire() as conn:
        await conn.execute("BEGIN; CREATE TEMP TABLE left_behind (x int)")
    assert len(asyncpg_releases) == 1
    async with pool.acquire() as conn:
        assert await conn.fetchval("SELECT txid_current_if_assigned()") is None
        assert await conn.fetchval("SELECT to_regclass('pg_temp.left_behind')") is None


async def test_a_connection_with_a_listener_goes_through_asyncpg(
    pool: BudgetedPool, asyncpg_releases: list[Any]
) -> None:
    with pytest.warns(Warning, match="notification listener"):  # asyncpg's own warning
        async with pool.acquire() as conn:
            await conn.add_listener("somewhere", lambda *args: None)
    assert len(asyncpg_releases) == 1
    async with pool.acquire() as conn:
        assert not conn._con._listeners


async def test_a_cancelled_query_is_waited_for_by_asyncpg(
    pool: BudgetedPool, asyncpg_releases: list[Any]
) -> None:
    async with pool.acquire() as conn:
        with pytest.raises(TimeoutError):
            await conn.execute("SELECT pg_sleep(5)", timeout=0.2)
    assert len(asyncpg_releases) == 1
    async with pool.acquire() as conn:
        assert await conn.fetchval("SELECT 2") == 2


async def test_an_expired_connection_is_closed_by_asyncpg(
    pool: BudgetedPool, asyncpg_releases: list[Any]
) -> None:
    first = await backend(pool)
    async with pool.acquire() as conn:
        await pool.expire_connections()
        await conn.fetchval("SELECT 1")
    assert len(asyncpg_releases) == 1
    assert await backend(pool) != first  # a new connection
    assert len(asyncpg_releases) == 1  # which is clean again


async def test_a_connection_at_its_query_budget_is_closed_by_asyncpg(
    database_url: str, asyncpg_releases: list[Any]
) -> None:
    pool = await create_pool(database_url, 1, 1)
    try:
        first = await backend(pool)
        pool._holders[0]._max_queries = 3  # create_pool's is 50,000
        for _ in range(3):
            await backend(pool)
        assert len(asyncpg_releases) >= 1
        assert await backend(pool) != first
    finally:
        await pool.close()
