"""Live feeds through the gateway (deploy/gateway/nginx.conf) in front of a real game service:
each event arrives as it is written (unbuffered), and a stream quieter than the gateway's
request read timeout stays open. Needs nginx (.ci/run installs it); skipped without it."""

from __future__ import annotations

import time
from pathlib import Path

import asyncpg
import httpx
import pytest

from services.game.app import create_app
from tests.integration.serve import serving
from tests.integration.tables import game_service, new_game
from tests.integration.test_gateway import NGINX, _free_port, local_config, nginx
from tests.integration.test_sse import Sse, auth, settings_for

pytestmark = pytest.mark.skipif(NGINX is None, reason="nginx is not installed")


async def test_a_stream_passes_the_gateway_unbuffered_and_outlives_its_read_timeout(
    database_url: str, redis_url: str, stream_prefix: str, pool: asyncpg.Pool
) -> None:
    # heartbeats every 3 s: longer than the 2 s read timeout local_config gives requests
    settings = settings_for(database_url, redis_url, stream_prefix, heartbeat_s=3.0)
    svc = game_service(pool)
    game_id, players = await new_game(svc, [None, None])
    head = (await svc.load(game_id)).version
    port = _free_port()
    me = auth(players[0])
    async with serving(create_app(settings)) as game:
        config = local_config(Path("{folder}"), port, _free_port(), game.base_url.port or 0)
        with nginx(config, port):
            async with (
                httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=20) as gw,
                gw.stream("GET", f"/v1/games/{game_id}/stream?after={head}", headers=me) as r,
            ):
                assert r.status_code == 200  # (nginx keeps X-Accel-Buffering to itself)
                assert r.headers["content-type"].startswith("text/event-stream")
                sse = Sse(r)
                try:
                    assert (await sse.line(5) or "").startswith(": game ")
                    legal = (await gw.get(f"/v1/games/{game_id}/legal-actions", headers=me)).json()
                    began = time.monotonic()
                    posted = await gw.post(
                        f"/v1/games/{game_id}/actions",
                        json={"action": legal["actions"][0], "expected_version": head},
                        headers=me,
                    )
                    assert posted.status_code == 200, posted.text
                    event = await sse.next(seconds=5)
                    assert event is not None and int(event["id"]) == head + 1
                    assert event["data"]["version"] == head + 1  # a whole event, not a part
                    assert time.monotonic() - began < 1.5  # not held in a buffer
                    # quiet for longer than the requests' read timeout: a heartbeat, no 504
                    quiet = time.monotonic()
                    assert await sse.line(5) == ": heartbeat"
                    assert time.monotonic() - quiet > 2
                finally:
                    await sse.close()
