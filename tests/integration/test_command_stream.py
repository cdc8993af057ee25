"""Only the game's own bots move through turnpost:commands, and only with the service key."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import asyncpg
import msgspec
import redis.asyncio as aioredis

from contracts.streams import SubmitAction
from infra.auth.signing import derive_key, sign
from infra.streams import Message
from infra.streams.consumer import Consumer
from infra.streams.redis import RedisStreams
from services.game.consumers import command_game, on_command
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


async def test_one_games_slow_command_does_not_delay_anothers(
    pool: asyncpg.Pool, redis_client: aioredis.Redis, stream_prefix: str
) -> None:
    service = game_service(pool)
    slow_game, _ = await new_game(service, [None, "greedy"])
    other_game, _ = await new_game(service, [None, "greedy"])
    release = asyncio.Event()
    submit = service.submit

    async def held(game_id: str, *args: Any, **kwargs: Any) -> Any:
        if game_id == slow_game:
            await release.wait()  # as a game whose command waits for a lock or a slow load
        return await submit(game_id, *args, **kwargs)

    service.submit = held  # type: ignore[method-assign]

    async def command(game_id: str) -> bytes:
        loaded = await service.load(game_id)
        action = loaded.rules.legal_actions(loaded.state, 1)[0]
        body = SubmitAction(
            command_id=str(uuid.uuid4()),
            game_id=game_id,
            seat=1,
            action=msgspec.to_builtins(action),
            expected_version=loaded.version,
        )
        return sign(KEY, msgspec.json.encode(body))

    starts = {g: await service.store.version(f"game-{g}") for g in (slow_game, other_game)}
    stream = f"{stream_prefix}commands-{uuid.uuid4().hex[:6]}"
    streams = RedisStreams(redis_client)
    consumer = Consumer(
        streams,
        stream,
        "game",
        "test",
        on_command(service, KEY),
        block_ms=10,
        key=command_game,
        concurrency=4,
    )
    await consumer.ensure_groups()
    slow_id = await streams.publish(stream, await command(slow_game))
    await streams.publish(stream, await command(other_game))
    task = asyncio.create_task(consumer.run())
    try:
        for _ in range(500):  # the other game moves while the slow one's command is held
            if await service.store.version(f"game-{other_game}") > starts[other_game]:
                break
            await asyncio.sleep(0.01)
        assert await service.store.version(f"game-{other_game}") > starts[other_game]
        assert await service.store.version(f"game-{slow_game}") == starts[slow_game]
        # the other acked (its XACK follows its effect within the consumer's ack linger)
        for _ in range(500):
            pending: Any = await redis_client.xpending_range(stream, "game", "-", "+", 10)
            if [row["message_id"].decode() for row in pending] == [slow_id]:
                break
            await asyncio.sleep(0.01)
        assert [row["message_id"].decode() for row in pending] == [slow_id]
        release.set()
        for _ in range(500):
            if (await redis_client.xpending(stream, "game"))["pending"] == 0:
                break
            await asyncio.sleep(0.01)
        assert await service.store.version(f"game-{slow_game}") > starts[slow_game]
        assert (await redis_client.xpending(stream, "game"))["pending"] == 0
    finally:
        consumer.stop()
        await asyncio.wait_for(task, 5)


def test_a_commands_lane_is_its_game() -> None:
    body = SubmitAction(command_id="c", game_id="g-1", seat=1, action={}, expected_version=3)
    message = Message(
        id="1-0", stream="s", payload=sign(KEY, msgspec.json.encode(body)), deliveries=1
    )
    assert command_game(message) == "g-1"
