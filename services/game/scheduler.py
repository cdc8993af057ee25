"""Scheduler: fires due deadlines, sends again bot turns that waited too long, repairs rooms.

python -m services.game.scheduler

It acts only on the `turns` table, which the game service writes in the same statement as
the events, so nothing it needs lives in a process's memory or in Redis. Any number may
run: each takes its rows `FOR UPDATE SKIP LOCKED`, and every command it sends has an id
derived from (game, seat, deadline), so a deadline fires once however many schedulers run,
and one that was down fires on its return what fell due meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime

import asyncpg
import msgspec
import redis.asyncio as aioredis

from contracts.streams import COMMANDS, ClockTimeout
from infra.auth import signing
from infra.eventstore.api import command_uuid
from infra.observability.context import bind, carry, new_request_id
from infra.observability.metrics import SCHEDULER_LATENESS, serve_metrics
from infra.servers.db import create_pool, fetch_replanned, redis_options
from infra.servers.errors import is_transient
from infra.servers.process import run_until_signalled
from infra.settings import Settings
from infra.streams import Streams
from infra.streams.redis import RedisStreams
from infra.tasks import celery_app, send_bot_turn

log = logging.getLogger(__name__)

BATCH = 200
MAX_SLEEP_S = 1.0  # how long it sleeps at most; a deadline set meanwhile is at least 5 s away
SWEEP_EVERY_S = 2.0
BOT_BACKOFF_MAX = 6  # the n-th resend of one turn waits bot_resend_after_s * 2**n at most

SendBotTurn = Callable[[str, str, int, str, int], None]


def timeout_command_id(game_id: str, seat: int, deadline: str) -> str:
    """One id per deadline: the seat's deadline is set once per turn start (a version), so
    however often and at whatever later version it is sent, the game applies it once."""
    return str(command_uuid("timeout", game_id, str(seat), deadline))


# The due deadlines' rows, claimed (fire_due)
FIRE_DUE = """
UPDATE turns SET fire_after = now() + make_interval(secs => $2)
WHERE game_id IN (
    SELECT game_id FROM turns
    WHERE next_deadline <= now() AND status = 'active'
      AND (fire_after IS NULL OR fire_after <= now())
    ORDER BY next_deadline LIMIT $1 FOR UPDATE SKIP LOCKED)
RETURNING game_id::text AS game_id, version, deadlines::text AS deadlines, overdue,
          now() AS now"""


async def fire_due(
    pool: asyncpg.Pool, publish: Callable[[ClockTimeout], Awaitable[None]], resend_after: float
) -> int:
    """Send a timeout for every deadline that has passed; how many were sent.

    The rows are claimed first (marked as sent, in a statement of their own that skips rows
    another scheduler holds) and the messages published after, so no row stays locked while
    Redis is slow: an append to the same game never waits on the scheduler. A message lost
    on its way is sent again once `resend_after` has passed."""
    rows = await fetch_replanned(pool, FIRE_DUE, BATCH, resend_after)
    sent = 0
    for row in rows:
        for seat, deadline in json.loads(row["deadlines"]).items():
            due = datetime.fromisoformat(deadline)
            if int(seat) in row["overdue"] or due > row["now"]:
                continue
            SCHEDULER_LATENESS.observe((row["now"] - due).total_seconds())
            command_id = timeout_command_id(row["game_id"], int(seat), deadline)
            # a request of its own: what the timeout sets moving (a bot taking over) is
            # followed in the logs from here
            with bind(request_id=new_request_id(), game_id=row["game_id"], command_id=command_id):
                log.info("seat %s timed out (deadline %s)", seat, deadline)
                await publish(
                    ClockTimeout(
                        command_id=command_id,
                        game_id=row["game_id"],
                        seat=int(seat),
                        version=row["version"],
                        deadline=deadline,
                        trace=carry(),
                    )
                )
            sent += 1
    return sent


async def resend_bot_turns(pool: asyncpg.Pool, send: SendBotTurn, after: float) -> int:
    """Send again the turns of bots that have waited `after` seconds or more, backing off
    (claimed first, then sent, like fire_due); how many turns were sent."""
    rows = await pool.fetch(
        """UPDATE turns SET bot_sends = bot_sends + 1,
                  bot_resend_at = now() + make_interval(
                      secs => $2 * power(2, least(bot_sends + 1, $3)))
           WHERE game_id IN (
               SELECT game_id FROM turns
               WHERE bots <> '{}' AND status = 'active'
                 AND waiting_since <= now() - make_interval(secs => $2)
                 AND (bot_resend_at IS NULL OR bot_resend_at <= now())
               ORDER BY waiting_since LIMIT $1 FOR UPDATE SKIP LOCKED)
           RETURNING game_id::text AS game_id, game, version, bots::text AS bots""",
        BATCH,
        after,
        BOT_BACKOFF_MAX,
    )
    sent = 0
    for row in rows:
        with bind(request_id=new_request_id(), game_id=row["game_id"]):
            log.warning(
                "game %s has waited on bots at v%d for %.0f s or more; sending again",
                row["game_id"],
                row["version"],
                after,
            )
            for seat, level in json.loads(row["bots"]).items():
                await asyncio.to_thread(  # the thread sees the bound ids (a copy of them)
                    send, row["game"], row["game_id"], int(seat), level, row["version"]
                )
                sent += 1
    return sent


async def repair_rooms(pool: asyncpg.Pool) -> int:
    """Rooms the lobby has not yet followed to their game: `starting` whose game exists
    becomes `playing`, and a finished game finishes its room. The lobby does the same from
    the games stream; this makes it certain when a message was lost."""
    status = await pool.execute(
        """UPDATE rooms r
           SET status = CASE WHEN t.status = 'finished' THEN 'finished' ELSE 'playing' END,
               game_id = t.game_id::text, updated_at = now()
           FROM turns t
           WHERE t.room_id = r.id
             AND (r.status = 'starting' OR (r.status = 'playing' AND t.status = 'finished'))"""
    )
    return int(status.split()[-1])


# How long until the next deadline not yet claimed. $1 is 'active': a statement without a
# parameter has only its generic plan, whatever plan_cache_mode says (fetch_replanned).
NEXT_DEADLINE = """SELECT extract(epoch FROM min(next_deadline) - now()) FROM turns
WHERE next_deadline IS NOT NULL AND status = $1
  AND (fire_after IS NULL OR fire_after <= now())"""


async def seconds_to_next_deadline(pool: asyncpg.Pool) -> float:
    rows = await fetch_replanned(pool, NEXT_DEADLINE, "active")
    wait = rows[0][0]
    return MAX_SLEEP_S if wait is None else float(min(max(wait, 0.01), MAX_SLEEP_S))


class Scheduler:
    """One scheduler's loop: deadlines at once, the slower sweeps every few seconds."""

    def __init__(
        self, pool: asyncpg.Pool, streams: Streams, send: SendBotTurn, settings: Settings
    ) -> None:
        self.pool, self.streams, self.send, self.settings = pool, streams, send, settings
        self._next_sweep = 0.0

    async def publish(self, command: ClockTimeout) -> None:
        payload = signing.sign(self.settings.command_key(), msgspec.json.encode(command))
        await self.streams.publish(self.settings.stream(COMMANDS), payload)

    async def step(self) -> float:
        """One round; returns how long to sleep before the next."""
        fired = await fire_due(self.pool, self.publish, self.settings.timeout_resend_after_s)
        if fired:
            log.info("fired %d timeouts", fired)
        loop = asyncio.get_running_loop()
        if loop.time() >= self._next_sweep:
            self._next_sweep = loop.time() + SWEEP_EVERY_S
            await resend_bot_turns(self.pool, self.send, self.settings.bot_resend_after_s)
            if repaired := await repair_rooms(self.pool):
                log.warning("repaired %d rooms from their games", repaired)
        return 0.0 if fired else await seconds_to_next_deadline(self.pool)


async def run(settings: Settings, stop: asyncio.Event) -> None:
    serve_metrics(settings.metrics_port)
    pool = await create_pool(settings.database_url, min_size=1, max_size=4, settings=settings)
    streams = RedisStreams(aioredis.Redis.from_url(settings.redis_url, **redis_options(settings)))
    celery = celery_app(settings, "turnpost-scheduler")

    def send(game: str, game_id: str, seat: int, level: str, version: int) -> None:
        send_bot_turn(celery, settings, game, game_id, seat, level, version, trace=carry())

    scheduler = Scheduler(pool, streams, send, settings)
    backoff = 0.5
    try:
        while not stop.is_set():
            try:
                wait = await scheduler.step()
                backoff = 0.5
            except Exception as exc:
                if not is_transient(exc):
                    log.exception("scheduler round failed")
                else:
                    log.warning("scheduler: Postgres or Redis unreachable (%r); retrying", exc)
                wait, backoff = backoff, min(backoff * 2, 10.0)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), wait)
    finally:
        await streams.close()
        await pool.close()


if __name__ == "__main__":
    run_until_signalled(run, uses_secrets=True)  # it signs the timeouts it sends
