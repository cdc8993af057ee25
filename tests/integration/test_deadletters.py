"""The dead-letter tool on a real Redis: list, replay one, replay the rest."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import uuid

import msgspec
import redis.asyncio as aioredis

from infra.streams.api import dead_letter_stream
from infra.streams.redis import RedisStreams

STREAM = "turnpost:commands"


async def deadletters(redis_url: str, prefix: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "REDIS_URL": redis_url, "STREAM_PREFIX": prefix}
    return await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "infra.streams.deadletters", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )


async def test_list_and_replay(
    redis_url: str, redis_client: aioredis.Redis, stream_prefix: str
) -> None:
    prefix = f"{stream_prefix}dl-{uuid.uuid4().hex[:6]}:"
    stream = prefix + STREAM
    streams = RedisStreams(redis_client)
    for group in ("game", "audit"):
        await streams.ensure_group(stream, group)
    for payload in (b'{"n":1}', b'{"n":2}', b'{"n":3,"pad":"' + b"x" * 500 + b'"}'):
        await streams.publish(stream, payload)
    read = await streams.read(stream, "game", "c", 10, 100)
    for m in read:
        await streams.dead_letter(stream, "game", msgspec.structs.replace(m, deliveries=6), "boom")
    dead = await streams.dead_letters(stream)

    listed = await deadletters(redis_url, prefix, "list", STREAM)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[-1] == f"3 dead letter(s) in {dead_letter_stream(stream)}"
    assert [line.split()[0] for line in lines[:-1]] == [d.id for d in dead]
    assert f"original={read[0].id} group=game deliveries=6 reason='boom'" in lines[0]
    assert lines[2].endswith("x…") and len(lines[2]) < 300  # payload truncated

    one = await deadletters(redis_url, prefix, "replay", STREAM, "--id", dead[1].id)
    assert one.returncode == 0, one.stderr
    assert [d.id for d in await streams.dead_letters(stream)] == [dead[0].id, dead[2].id]
    rest = await deadletters(redis_url, prefix, "replay", STREAM)
    assert rest.returncode == 0, rest.stderr
    assert rest.stdout.splitlines()[-1] == "2 replayed"
    assert await streams.dead_letters(stream) == []

    for group in ("game", "audit"):  # new entries: every group of the stream sees them
        again = await streams.read(stream, group, "c", 10, 100)
        assert [m.payload for m in again][-3:] == [
            read[1].payload,
            read[0].payload,
            read[2].payload,
        ]

    unknown = await deadletters(redis_url, prefix, "replay", STREAM, "--id", "1-1")
    assert unknown.returncode == 1
    assert "no such dead letter" in unknown.stderr
