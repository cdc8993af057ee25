"""A consumer killed before its ack: the command is redelivered and applied exactly once."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import asyncpg
import msgspec
import pytest
import redis.asyncio as aioredis

from contracts.streams import SubmitAction
from infra.auth.signing import derive_key, sign
from infra.streams.consumer import Consumer
from infra.streams.redis import RedisStreams
from services.game.consumers import on_command
from tests.integration.tables import game_service, new_game

HERE = Path(__file__).parent
KEY = derive_key("redelivery-test-secret-of-at-least-32-bytes")


@pytest.mark.parametrize("dies", ["before", "after"])
async def test_killed_consumer_redelivers_and_applies_once(
    dies: str,
    pool: asyncpg.Pool,
    database_url: str,
    redis_url: str,
    redis_client: aioredis.Redis,
    stream_prefix: str,
) -> None:
    service = game_service(pool)
    game_id, _ = await new_game(service, [None, "greedy"])  # the stream moves bot seats only
    loaded = await service.load(game_id)
    start = loaded.version
    action = loaded.rules.legal_actions(loaded.state, 1)[0]
    stream = f"{stream_prefix}commands-{uuid.uuid4().hex[:6]}"
    streams = RedisStreams(redis_client)
    await streams.ensure_group(stream, "game")
    command = SubmitAction(
        command_id=str(uuid.uuid4()),
        game_id=game_id,
        seat=1,
        action=msgspec.to_builtins(action),
        expected_version=start,
    )
    await streams.publish(stream, sign(KEY, msgspec.json.encode(command)))

    proc = await asyncio.to_thread(
        subprocess.run,
        [
            sys.executable,
            str(HERE / "consumer_that_dies.py"),
            database_url,
            redis_url,
            stream,
            dies,
        ],
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()[-2000:]
    after_death = await service.store.version(f"game-{game_id}")
    assert after_death == (start if dies == "before" else start + 1)
    assert (await redis_client.xpending(stream, "game"))["pending"] == 1

    survivor = Consumer(
        streams, stream, "game", "survivor", on_command(service, KEY), min_idle_ms=0
    )
    assert await survivor.step() == 1
    assert await service.store.version(f"game-{game_id}") == start + 1  # applied exactly once
    assert (await redis_client.xpending(stream, "game"))["pending"] == 0
    events = await service.store.read(f"game-{game_id}", after=start)
    assert {e.metadata["command_id"] for e in events} == {command.command_id}
