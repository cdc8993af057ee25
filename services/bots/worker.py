"""Celery app of the bots: `celery -A services.bots.worker worker`.

At-least-once: acks_late + reject_on_worker_lost redeliver a task whose worker died; the
broker's visibility timeout is far above the task time limit, so a slow task is not handed
out twice while it runs; and the command id derives from the triggering event, so a task
that does run twice sends the same command, which the game applies once.
"""

from __future__ import annotations

import asyncio
import logging
from random import Random

import asyncpg
import msgspec
import redis
from celery import signals

from contracts.streams import COMMANDS, SubmitAction
from infra import signing
from infra.eventstore.api import command_uuid
from infra.process import refuse_unsafe_secrets
from infra.settings import from_env
from infra.tasks import PLAY_TASK, TASK_TIME_LIMIT, celery_app
from services.bots.observe import observe
from services.bots.policies import policy_for

log = logging.getLogger(__name__)
settings = from_env()

app = celery_app(settings)
app.conf.update(
    task_acks_late=True,
    task_reject_on_worker_lost=True,
    task_acks_on_failure_or_timeout=True,
    worker_prefetch_multiplier=1,
    task_time_limit=TASK_TIME_LIMIT,
    task_soft_time_limit=TASK_TIME_LIMIT - 10,
)


@signals.worker_init.connect
def _refuse_unsafe_secrets(**_: object) -> None:
    refuse_unsafe_secrets(settings)  # the worker signs the bots' commands


_redis: redis.Redis | None = None


def _commands() -> redis.Redis:
    global _redis
    if _redis is None:
        _redis = redis.Redis.from_url(settings.redis_url)
    return _redis


def bot_command_id(game_id: str, version: int, seat: int) -> str:
    return str(command_uuid("bot", game_id, str(version), str(seat)))


async def decide(
    database_url: str, game: str, game_id: str, seat: int, level: str, version: int
) -> SubmitAction | None:
    """The bot's move for the trigger (game at `version`), or None if the game moved on."""
    conn = await asyncpg.connect(database_url)
    try:
        obs = await observe(conn, game, game_id, seat)
    finally:
        await conn.close()
    if obs is None or obs.version != version or seat not in obs.to_act:
        return None  # the game moved on; the newer event triggers its own task
    command_id = bot_command_id(game_id, version, seat)
    action = policy_for(game, level)(obs, Random(command_id))
    return SubmitAction(
        command_id=command_id,
        game_id=game_id,
        seat=seat,
        action=msgspec.to_builtins(action),
        expected_version=version,
    )


@app.task(
    name=PLAY_TASK,
    bind=True,
    # what a busy or restarting Postgres or Redis raises; the scheduler's sweep covers the rest
    autoretry_for=(
        OSError,
        asyncpg.PostgresConnectionError,
        asyncpg.InterfaceError,
        asyncpg.TooManyConnectionsError,
        asyncpg.CannotConnectNowError,
        redis.RedisError,
    ),
    retry_backoff=True,
    max_retries=5,
)
def play(self: object, game: str, game_id: str, seat: int, level: str, version: int) -> str:
    command = asyncio.run(decide(settings.database_url, game, game_id, seat, level, version))
    if command is None:
        return "stale"
    payload = signing.sign(settings.command_key(), msgspec.json.encode(command))
    _commands().xadd(settings.stream(COMMANDS), {b"m": payload})
    return command.command_id
