"""The game service with GAME_WORKERS=2: a real `python -m services.game` on the test database
and Redis. Two uvicorn workers run under the supervisor; a room started on the lobby stream
becomes a game (a worker's own consumer, game-<pid>, takes it); moves over fresh connections
(spread over the workers by the kernel; which one answers is not checked) are appended and in
the feed; both workers still run at the end."""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import httpx
import msgspec
import pytest
import redis.asyncio as aioredis

from contracts.streams import LOBBY, RoomStarted, StartedSeat
from infra.auth.bearer import issue
from infra.auth.keys import SigningKey
from infra.servers.local import free_port as _free_port
from services.game.commands import game_id_for_room
from tests.integration.tables import game_service, new_game

ROOT = Path(__file__).resolve().parents[2]
SECRET = secrets.token_urlsafe(48)
KEY = SigningKey.from_secret(SECRET)


def _workers(pid: int) -> list[int]:
    """uvicorn's worker processes under its supervisor `pid` (not multiprocessing's tracker)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            children = [int(c) for c in f.read().split()]
    except OSError:
        return []
    found = []
    for child in children:
        try:
            with open(f"/proc/{child}/cmdline", "rb") as f:
                if b"spawn_main" in f.read():
                    found.append(child)
        except OSError:
            pass
    return found


def _start(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with open(log, "wb") as f:
        return subprocess.Popen(
            [sys.executable, "-m", "services.game"],
            cwd=ROOT,
            env=env,
            stdout=f,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


@pytest.fixture
async def two_workers(
    database_url: str, redis_url: str, stream_prefix: str, tmp_path: Path
) -> AsyncIterator[tuple[httpx.AsyncClient, subprocess.Popen[bytes], str]]:
    port = _free_port()
    prefix = f"{stream_prefix}workers-{uuid.uuid4().hex[:6]}:"
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "STREAM_PREFIX": prefix,
        "GAME_PORT": str(port),
        "GAME_WORKERS": "2",
        "TURNPOST_SECRET": SECRET,
        "LOG_LEVEL": "WARNING",
    }
    log = tmp_path / "game.log"
    proc = _start(env, log)
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=10) as http:
            deadline = time.monotonic() + 60
            while True:
                assert proc.poll() is None, log.read_text(errors="replace")
                with contextlib.suppress(httpx.HTTPError):
                    if (await http.get("/ready")).status_code == 200:
                        break
                assert time.monotonic() < deadline, log.read_text(errors="replace")
                await asyncio.sleep(0.2)
            yield http, proc, prefix
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGINT)
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        text = log.read_text(errors="replace")
        assert "Traceback" not in text, text


async def test_two_workers_answer_append_and_consume(
    two_workers: tuple[httpx.AsyncClient, subprocess.Popen[bytes], str],
    pool: asyncpg.Pool,
    redis_url: str,
) -> None:
    http, proc, prefix = two_workers
    workers = _workers(proc.pid)
    assert len(workers) == 2, workers  # uvicorn's supervisor and its two workers

    # a room started on the lobby stream becomes a game, made by one worker's consumer
    r = aioredis.Redis.from_url(redis_url)
    try:
        room = f"room-{uuid.uuid4()}"
        players = [f"{room}-{s}" for s in range(2)]
        started = RoomStarted(
            room_id=room,
            game="itty-bitty",
            seats=[
                StartedSeat(seat=s, player_id=p, name=p, bot=None) for s, p in enumerate(players)
            ],
        )
        await r.xadd(f"{prefix}{LOBBY}", {"m": msgspec.json.encode(started)})
        from_lobby = game_id_for_room(room)
        auth0 = {"authorization": f"Bearer {issue(KEY, players[0], 'p0')}"}
        deadline = time.monotonic() + 30
        while (await http.get(f"/v1/games/{from_lobby}", headers=auth0)).status_code != 200:
            assert time.monotonic() < deadline, "the lobby's room never became a game"
            await asyncio.sleep(0.1)
        # the group's members are the workers' own consumers (game-<pid>)
        consumers = await r.xinfo_consumers(f"{prefix}{LOBBY}", "game")
        names = {
            c["name"].decode() if isinstance(c["name"], bytes) else c["name"] for c in consumers
        }
        assert names and names <= {f"game-{pid}" for pid in workers}, (names, workers)
    finally:
        await r.aclose()

    # moves through both workers (new connections are spread by the kernel): each appends
    game_id, ids = await new_game(game_service(pool), [None, None])
    auths = [{"authorization": f"Bearer {issue(KEY, p, p)}"} for p in ids]
    moves = 0
    for _ in range(12):
        async with httpx.AsyncClient(base_url=http.base_url, timeout=10) as fresh:
            view = (await fresh.get(f"/v1/games/{game_id}", headers=auths[0])).json()
            if view["status"] == "finished":
                break
            seat = view["to_act"][0]
            legal = (
                await fresh.get(f"/v1/games/{game_id}/legal-actions", headers=auths[seat])
            ).json()
            r2 = await fresh.post(
                f"/v1/games/{game_id}/actions",
                json={"action": legal["actions"][0], "expected_version": legal["version"]},
                headers=auths[seat],
            )
            assert r2.status_code == 200, r2.text
            assert r2.json()["version"] > legal["version"]
            moves += 1
    assert moves >= 2
    stored = await pool.fetchval(
        "SELECT count(*) FROM events WHERE stream_id = $1", f"game-{game_id}"
    )
    feed = (await http.get(f"/v1/games/{game_id}/events", headers=auths[0])).json()
    assert feed["last_version"] == stored and stored > moves
    assert proc.poll() is None and sorted(_workers(proc.pid)) == sorted(workers)
