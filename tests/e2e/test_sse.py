"""Live feeds across game-service processes: two real `python -m services.game` on one
database and Redis, with the relay; a move posted to the second reaches a stream served by
the first through the games stream (its own recheck of the store is set to a minute)."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
import uuid
from pathlib import Path

import asyncpg
import httpx
import pytest

from infra.auth.bearer import issue
from infra.auth.keys import SigningKey
from tests.conftest import RUN_ID, fresh_database
from tests.e2e.servers import Processes, _wait_port, free_port
from tests.integration.tables import game_service, new_game
from tests.integration.test_sse import Sse
from turnpost.client import AsyncClient

pytestmark = pytest.mark.e2e


async def test_a_move_through_a_second_process_wakes_a_stream_of_the_first(
    admin_dsn: str, redis_url: str, stream_prefix: str, tmp_path: Path
) -> None:
    secret = secrets.token_urlsafe(48)
    key = SigningKey.from_secret(secret)
    ports = [free_port(), free_port()]
    with fresh_database(admin_dsn, f"turnpost_e2e_sse_{RUN_ID}") as database_url:
        env = {
            "DATABASE_URL": database_url,
            "REDIS_URL": redis_url,
            "STREAM_PREFIX": f"{stream_prefix}e2e-sse-{uuid.uuid4().hex[:6]}:",
            "TURNPOST_SECRET": secret,
            "LOG_LEVEL": "WARNING",
            "SSE_HEARTBEAT_S": "60",
        }
        first = Processes({**env, "GAME_PORT": str(ports[0])}, tmp_path / "first.log")
        second = Processes({**env, "GAME_PORT": str(ports[1])}, tmp_path / "second.log")
        try:
            first.migrate()
            first.start("game")
            first.start("relay")
            second.start("game")
            for port in ports:
                await asyncio.to_thread(_wait_port, port)
            pool = await asyncpg.create_pool(database_url, min_size=1, max_size=2)
            try:
                game_id, players = await new_game(game_service(pool), [None, None])
            finally:
                await pool.close()
            them = {"authorization": f"Bearer {issue(key, players[1], 'p1')}"}
            # the stream is read raw: the test waits for its opening comment (the stream is
            # served) before the move, which the client's iterator keeps to itself
            async with (
                httpx.AsyncClient(base_url=f"http://127.0.0.1:{ports[0]}", timeout=30) as a,
                AsyncClient(
                    game=f"http://127.0.0.1:{ports[1]}", token=issue(key, players[0], "p0")
                ) as b,
            ):
                legal = await b.get_legal_actions(game_id)
                head = legal.version
                path = f"/v1/games/{game_id}/stream?after={head}"
                async with a.stream("GET", path, headers=them) as r:
                    assert r.status_code == 200
                    sse = Sse(r)
                    try:
                        assert (await sse.line(10) or "").startswith(": game ")
                        began = time.monotonic()
                        posted = await b.post_action(game_id, legal.actions[0], head)
                        assert posted.events  # 200, or a problem raised
                        event = await sse.next(seconds=10)
                        took = time.monotonic() - began
                    finally:
                        await sse.close()
            assert event is not None and int(event["id"]) == head + 1
            assert event["data"]["seat"] == 0 and event["data"]["data"]["kept"] is None
            assert took < 5, took  # the relay's and the stream's wake-ups, not a recheck
        finally:
            for procs in (second, first):
                with contextlib.suppress(Exception):
                    procs.stop_all()
