"""Apply the SQL migrations in order, once each, under an advisory lock."""

from __future__ import annotations

import asyncio
import logging
from importlib import resources

import asyncpg

from infra.settings import from_env

log = logging.getLogger(__name__)
LOCK = 0x7475726E  # "turn"
# A migration (or the wait for another process' migrations) may take longer than a pooled
# connection's command timeout (DB_COMMAND_TIMEOUT_S): they run at start, on such connections.
TIMEOUT_S = 3600.0


def migrations() -> list[tuple[str, str]]:
    folder = resources.files("infra.servers").joinpath("migrations")
    names = sorted(p.name for p in folder.iterdir() if p.name.endswith(".sql"))
    return [(n, folder.joinpath(n).read_text()) for n in names]


async def migrate(conn: asyncpg.Connection) -> list[str]:
    applied: list[str] = []
    await conn.execute("SELECT pg_advisory_lock($1)", LOCK, timeout=TIMEOUT_S)
    try:
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations "
            "(name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
            timeout=TIMEOUT_S,
        )
        done = {r["name"] for r in await conn.fetch("SELECT name FROM schema_migrations")}
        for name, sql in migrations():
            if name in done:
                continue
            async with conn.transaction():
                await conn.execute(sql, timeout=TIMEOUT_S)
                await conn.execute("INSERT INTO schema_migrations (name) VALUES ($1)", name)
            applied.append(name)
    finally:
        await conn.execute("SELECT pg_advisory_unlock($1)", LOCK)
    return applied


async def ensure_database(url: str) -> None:
    """Create the database named in `url` if it does not exist (local development)."""
    try:
        conn = await asyncpg.connect(url)
    except asyncpg.InvalidCatalogNameError:
        base, _, name = url.rpartition("/")
        name = name.split("?")[0]
        admin = await asyncpg.connect(f"{base}/postgres")
        try:
            await admin.execute(f'CREATE DATABASE "{name}"')
        except asyncpg.DuplicateDatabaseError:
            pass
        finally:
            await admin.close()
    else:
        await conn.close()


async def main() -> None:
    settings = from_env()
    await ensure_database(settings.database_url)
    conn = await asyncpg.connect(settings.database_url)
    try:
        applied = await migrate(conn)
    finally:
        await conn.close()
    print("migrations applied:", ", ".join(applied) or "none (up to date)")


if __name__ == "__main__":
    asyncio.run(main())
