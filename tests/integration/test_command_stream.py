"""Only the game's own bots move through turnpost:commands, and only with the service key."""

from __future__ import annotations

import uuid

import asyncpg
import msgspec
import redis.asyncio as aioredis

from contracts.streams import SubmitAction
from infra.signing import derive_key, sign
from infra.streams.consumer import Consumer
from infra.streams.redis import RedisStreams
from services.game.consumers import on_command
from tests.integration.tables import game_service, new_game

KEY = derive_key("command-stream-test-secret-of-32-bytes+")


async def test_only_signed_commands_for_bot_seats_move(
    pool: asyncpg.Pool, redis_client: aioredis.Redis, stream_prefix: str
) -> None:
    service = game_service(pool)
    game_id, _ = await new_game(service, [None, "greedy"])  # the opening: both seats choose
    loaded = await service.load(game_id)
    start = loaded.version

    def command(seat: int) -> bytes:
        action = loaded.rules.legal_actions(loaded.state, seat)[0]
        return msgspec.json.encode(
            SubmitAction(
                command_id=str(uuid.uuid4()),
                game_id=game_id,
                seat=seat,
                action=msgspec.to_builtins(action),
                expected_version=start,
            )
        )

    stream = f"{stream_prefix}commands-{uuid.uuid4().hex[:6]}"
    streams = RedisStreams(redis_client)
    consumer = Consumer(streams, stream, "game", "test", on_command(service, KEY), block_ms=10)
    await consumer.ensure_groups()
    forged = [
        sign(KEY, command(0)),  # a person's seat, even signed with the right key
        command(1),  # a bot's seat, unsigned
        sign(derive_key("another-secret-of-at-least-32-bytes!!"), command(1)),  # wrong key
        sign(KEY, command(1))[:-2] + b"}}",  # altered after signing
    ]
    for payload in forged:
        await streams.publish(stream, payload)
    while await consumer.step():
        pass
    assert await service.store.version(f"game-{game_id}") == start  # nothing appended
    assert (await redis_client.xpending(stream, "game"))["pending"] == 0  # all answered
    assert await redis_client.xlen(f"{stream}:dead") == 0  # refusals are not failures

    await streams.publish(stream, sign(KEY, command(1)))
    assert await consumer.step() == 1
    assert await service.store.version(f"game-{game_id}") > start  # the bot's own move
