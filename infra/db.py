"""The asyncpg pool every service uses."""

from __future__ import annotations

import asyncpg


async def _keep(conn: asyncpg.Connection) -> None:
    """No reset on release: the services keep no session state (no SET, LISTEN, or
    advisory lock on pooled connections; the relay and migrations use their own), so the
    default reset would be a wasted round trip on every query."""


async def create_pool(url: str, min_size: int = 2, max_size: int = 20) -> asyncpg.Pool:
    return await asyncpg.create_pool(url, min_size=min_size, max_size=max_size, reset=_keep)
