"""One move followed through the logs of real processes (game service, relay, dispatcher, bots'
worker), JSON lines on their stderr: a POST's X-Request-ID is on the game service's lines for
it, and on the relay's, the dispatcher's and the worker's lines for the bot's answer, and the
game service applies the bot's command under it too."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import signal
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest

from infra.auth.bearer import issue
from infra.auth.keys import SigningKey
from infra.servers.local import free_port
from tests.conftest import RUN_ID, fresh_database
from tests.integration.tables import game_service, new_game

ROOT = Path(__file__).resolve().parents[2]
SECRET = secrets.token_urlsafe(48)


@pytest.fixture(scope="module")
def database_url(admin_dsn: str) -> Iterator[str]:
    """A database of its own: the relay publishes every game of its database."""
    with fresh_database(admin_dsn, f"turnpost_logs_{RUN_ID}") as url:
        yield url


class Stack:
    """The processes, each writing its stderr to a file of its own."""

    def __init__(self, env: dict[str, str], tmp: Path) -> None:
        self.env, self.tmp = env, tmp
        self.procs: dict[str, subprocess.Popen[bytes]] = {}

    def start(self, name: str, *cmd: str) -> None:
        with (
            open(self.tmp / f"{name}.err", "wb") as err,
            open(self.tmp / f"{name}.out", "wb") as out,
        ):
            self.procs[name] = subprocess.Popen(
                [sys.executable, *cmd],
                cwd=ROOT,
                env=self.env,
                stdout=out,
                stderr=err,
                start_new_session=True,
            )

    def lines(self, name: str) -> list[dict[str, Any]]:
        """Every line of the process' stderr, each a JSON object (fails on one that is not).

        Only what Celery writes before it sets up logging is let through: its warning to a
        worker run as root (as here; the containers run as another user)."""
        text = (self.tmp / f"{name}.err").read_text(errors="replace")
        out: list[dict[str, Any]] = []
        for line in text.splitlines():
            if not line.strip() or (name == "worker" and not out and not line.startswith("{")):
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                pytest.fail(f"{name}: a line that is not JSON: {line!r}")
        return out

    def stop(self) -> None:
        for p in self.procs.values():
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
        for p in self.procs.values():
            try:
                p.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()


@pytest.fixture
async def stack(
    database_url: str, redis_url: str, stream_prefix: str, tmp_path: Path
) -> AsyncIterator[tuple[Stack, str]]:
    port = free_port()
    env = {
        **os.environ,
        "PYTHONUNBUFFERED": "1",
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "STREAM_PREFIX": f"{stream_prefix}logs-{uuid.uuid4().hex[:6]}:",
        "TURNPOST_SECRET": SECRET,
        "GAME_PORT": str(port),
        "LOG_FORMAT": "json",
        "LOG_LEVEL": "DEBUG",
        "METRICS_PORT": "0",
    }
    s = Stack(env, tmp_path)
    s.start("game", "-m", "services.game")
    s.start("relay", "-m", "services.game.relay")
    s.start("dispatcher", "-m", "services.bots.dispatcher")
    s.start("worker", "-m", "celery", "-A", "services.bots.worker", "worker", "--queues", "bots",
            "--pool", "solo", "--loglevel", "debug", "--without-gossip", "--without-mingle", "--without-heartbeat",
            "--hostname", f"logs-{uuid.uuid4().hex[:6]}@test")  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        async with httpx.AsyncClient() as client:
            for _ in range(300):
                try:
                    if (await client.get(f"{url}/ready")).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                for name, p in s.procs.items():
                    assert p.poll() is None, (
                        f"{name} exited: {(tmp_path / f'{name}.err').read_text()[-3000:]}"
                    )
                await asyncio.sleep(0.1)
        yield s, url
    finally:
        s.stop()


async def bot_answer(pool: asyncpg.Pool, game_id: str, request_id: str) -> asyncpg.Record | None:
    """The bot's (seat 1) first event appended under `request_id`, if there is one yet."""
    return await pool.fetchrow(
        """SELECT metadata->>'command_id' AS command_id, version FROM events
           WHERE stream_id = $1 AND (metadata->>'seat')::int = 1
             AND metadata->'trace'->>'request_id' = $2
           ORDER BY version LIMIT 1""",
        f"game-{game_id}",
        request_id,
    )


async def test_a_posts_request_id_follows_the_move_to_the_bots_answer(
    stack: tuple[Stack, str], pool: asyncpg.Pool
) -> None:
    procs, url = stack
    game_id, players = await new_game(game_service(pool), [None, "greedy"])
    auth = {"authorization": f"Bearer {issue(SigningKey.from_secret(SECRET), players[0], 'p0')}"}
    request_id = f"trail-{uuid.uuid4().hex[:12]}"
    posted: list[str] = []  # the versions our moves were appended at
    answer = None
    async with httpx.AsyncClient(base_url=url, headers=auth, timeout=10) as client:
        for _ in range(600):  # move whenever it is our turn, until the bot answers one
            if answer := await bot_answer(pool, game_id, request_id):
                break
            legal = await client.get(f"/v1/games/{game_id}/legal-actions")
            body = legal.json()
            if legal.status_code == 200 and body["actions"]:
                r = await client.post(
                    f"/v1/games/{game_id}/actions",
                    json={"action": body["actions"][0], "expected_version": body["version"]},
                    headers={"x-request-id": request_id, "idempotency-key": uuid.uuid4().hex},
                )
                assert r.headers["x-request-id"] == request_id  # returned as it came
                if r.status_code == 200:
                    posted.append(str(r.json()["version"]))
            await asyncio.sleep(0.05)
    assert answer is not None, "the bot never answered our move"
    assert posted
    bot_command = answer["command_id"]
    await asyncio.sleep(1)  # the last lines reach the files

    def ours(name: str, **fields: str) -> list[dict[str, Any]]:
        return [
            line
            for line in procs.lines(name)
            if line.get("request_id") == request_id
            and all(line.get(k) == v for k, v in fields.items())
        ]

    # the game service: the POST (its access line) and the append, with the game and command
    assert ours("game", game_id=game_id, logger="uvicorn.access")
    assert any("command_id" in line for line in ours("game", game_id=game_id))
    # the relay published our events, the dispatcher sent the bot's turn on, the worker moved
    assert ours("relay", game_id=game_id)
    assert ours("dispatcher", game_id=game_id)
    assert ours("worker", game_id=game_id, command_id=bot_command)
    # and the game service applied the bot's command under the same request id
    assert ours("game", game_id=game_id, command_id=bot_command)


def test_an_invented_or_unsafe_request_id_is_replaced() -> None:
    from infra.observability.context import request_id_of

    assert request_id_of("abc-123_x.y") == "abc-123_x.y"
    for bad in (None, "", "a b", "x" * 129, "line\nbreak", '"quoted"'):
        made = request_id_of(bad)
        assert made != bad and len(made) == 32
