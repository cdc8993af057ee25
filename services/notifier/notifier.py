"""Notifier: tells players' webhooks what happened in their games.

python -m services.notifier

Two sources, one truth each (DESIGN.md, "Telling players"):
- the games stream, read in the `notifier` group: after each command, the notifications
  that follow (derive.notifications) for the endpoints of the game's players; the end of a
  room's game from the FINISHED stream instead (its envelope again, once the lobby has
  recorded and rated the game: the news carries the rating changes); a room's news for a
  player (`invited`, `rematch_offered`) from the NEWS stream, which the lobby writes;
- the clock projection (`turns`), swept every second: `deadline_soon` once per deadline.

Each notification becomes a delivery row, then a task on the `webhooks` queue
(infra/notify/deliveries.py), and only then is the stream entry acked: a crash between
the two is a redelivered entry, whose rows exist already and whose tasks are pushed again
(an attempt claims its row first, so twice is once). The same sweep pushes again the tasks
of deliveries overdue for long (a task lost with its broker), and forgets old deliveries.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import uuid
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

import asyncpg
import msgspec
import redis.asyncio as aioredis

from contracts.notifications import Notification, RoomNews
from contracts.streams import (
    FINISHED,
    GAMES,
    GROUPS,
    NEWS,
    RETIRED_GROUPS,
    GameEvent,
    told_when_recorded,
)
from infra.notify.deliveries import (
    Hook,
    hooks_of_game,
    hooks_of_games,
    hooks_of_players,
    plan,
    push,
    record,
    utcnow,
)
from infra.notify.derive import Clocks, deadlines_soon, notifications
from infra.notify.facts import deadlines_of, players_of, read_facts
from infra.observability.metrics import serve_metrics
from infra.servers.db import create_pool, fetch_replanned, redis_options
from infra.servers.errors import is_transient
from infra.settings import Settings
from infra.streams import Message
from infra.streams.consumer import Consumer
from infra.streams.redis import RedisStreams
from infra.tasks import DEAD_TURN

log = logging.getLogger(__name__)

GROUP = "notifier"
SWEEP_EVERY_S = 1.0  # deadline_soon is this late at most
RESEND_EVERY_S = 10.0
RESEND_AFTER_S = 60.0  # a delivery this overdue lost its task: pushed again
PRUNE_EVERY_S = 600.0
BATCH = 500


class _Game(msgspec.Struct):
    """What `prepare` reads of an envelope (every one ends a command, but from a relay of
    before one envelope per command)."""

    game_id: str
    batch_end: bool


_game = msgspec.json.Decoder(_Game)
_event = msgspec.json.Decoder(GameEvent)
_room_news = msgspec.json.Decoder(RoomNews)

# Games with a deadline within the lead whose players have an endpoint for deadline_soon
# (next_deadline is the earliest running deadline: any within the lead makes it so).
_SOON = """
SELECT t.game_id::text AS game_id, t.game, t.version, t.deadlines::text AS deadlines,
       t.overdue, t.waiting_since, t.started::text AS started, g.seats::text AS seats
FROM turns t JOIN games g ON g.id = t.game_id
WHERE t.status = 'active' AND t.next_deadline IS NOT NULL
  AND t.next_deadline <= now() + make_interval(secs => $1)
  AND EXISTS (SELECT 1 FROM game_seats gs JOIN webhooks w ON w.player_id = gs.player_id
              WHERE gs.game_id = t.game_id AND w.disabled_at IS NULL
                AND 'deadline_soon' = ANY (w.events))
LIMIT $2"""


class Notifier:
    """Turns news into delivery rows and tasks; keeps nothing between calls but timers."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        r: aioredis.Redis,
        settings: Settings,
        now: Callable[[], datetime] = utcnow,
    ) -> None:
        self.pool, self.r, self.settings, self.now = pool, r, settings, now
        self._next_resend = 0.0
        self._next_prune = 0.0
        self._batch_hooks: dict[str, list[Hook]] = {}  # the endpoints of this batch's games

    async def prepare(self, messages: Sequence[Message]) -> None:
        """The endpoints of every game a batch of envelopes ends a command of, in one query
        (most games have none: a query per command was most of the notifier's work)."""
        self._batch_hooks = {}
        games = set()
        for message in messages:
            with contextlib.suppress(msgspec.DecodeError):  # its handler says what is wrong
                if (head := _game.decode(message.payload)).batch_end:
                    games.add(head.game_id)
        if games:
            self._batch_hooks = await hooks_of_games(self.pool, sorted(games))

    async def on_message(self, message: Message) -> None:
        """One envelope of the games stream: its notifications, delivered (rows + tasks).
        The end of a room's game is told from the FINISHED stream instead (`on_finished`)."""
        event = _event.decode(message.payload)
        if not event.batch_end:  # an event inside a command, from a relay of before
            return
        if event.type == DEAD_TURN:  # the bots' dead letter replayed: no news of the game
            return
        if not told_when_recorded(event):
            await self._tell(event)

    async def on_finished(self, message: Message) -> None:
        """One envelope of the FINISHED stream: a room's game the lobby has recorded (and
        rated), its `game_finished` told with the rating changes."""
        event = _event.decode(message.payload)
        if told_when_recorded(event) and event.batch_end:
            await self._tell(event)

    async def _tell(self, event: GameEvent) -> None:
        hooks = self._batch_hooks.get(event.game_id)
        if hooks is None:  # not prepared (alone, or the batch's query failed)
            hooks = await hooks_of_game(self.pool, event.game_id)
        if not hooks:
            return
        facts = await read_facts(self.pool, event)
        if facts is not None:
            await self.send(notifications(event, facts), hooks)

    async def on_room_news(self, message: Message) -> None:
        """One message of the NEWS stream: a room's news for one player, delivered."""
        news = _room_news.decode(message.payload)
        hooks = await hooks_of_players(self.pool, [news.player_id])
        if hooks:
            await self.send([news], hooks)

    async def send(self, notes: Sequence[Notification | RoomNews], hooks: Sequence[Hook]) -> int:
        """Rows first, then tasks; how many tasks were pushed."""
        ids = await record(self.pool, plan(notes, hooks, self.now()))
        await push(self.r, self.settings, ids)
        return len(ids)

    async def deadlines(self) -> int:
        """`deadline_soon` for every deadline newly within the lead; how many were sent."""
        lead = timedelta(seconds=self.settings.deadline_soon_s)
        rows = await fetch_replanned(self.pool, _SOON, lead.total_seconds(), BATCH)
        if not rows:
            return 0
        told = {
            (r["game_id"], r["seat"], r["deadline"])
            for r in await self.pool.fetch(
                """SELECT game_id::text AS game_id, seat, deadline FROM deadline_notices
                   WHERE game_id = ANY ($1::uuid[])""",
                [uuid.UUID(r["game_id"]) for r in rows],
            )
        }
        now = self.now()
        notes: list[Notification] = []
        due: list[tuple[str, int, datetime]] = []
        for row in rows:
            deadlines = deadlines_of(row["deadlines"])
            clocks = Clocks(
                game_id=row["game_id"],
                game=row["game"],
                version=row["version"],
                deadlines=deadlines,
                overdue=row["overdue"],
                started=deadlines_of(row["started"]),
                since=row["waiting_since"],
            )
            for note in deadlines_soon(clocks, players_of(row["seats"]), now, lead):
                if (note.game_id, note.seat, deadlines[note.seat]) not in told:
                    notes.append(note)
                    due.append((note.game_id, note.seat, deadlines[note.seat]))
        if not notes:
            return 0
        hooks = await self._hooks({n.game_id for n in notes})
        sent = await self.send(notes, hooks)
        # told only once delivered to the queue: a crash before this tells it again, as
        # the same deliveries (their ids derive from the deadline)
        await self.pool.execute(
            """INSERT INTO deadline_notices (game_id, seat, deadline)
               SELECT * FROM unnest($1::uuid[], $2::int[], $3::timestamptz[])
               ON CONFLICT DO NOTHING""",
            [uuid.UUID(g) for g, _, _ in due],
            [s for _, s, _ in due],
            [d for _, _, d in due],
        )
        return sent

    async def _hooks(self, game_ids: set[str]) -> list[Hook]:
        hooks: dict[str, Hook] = {}
        for of_game in (await hooks_of_games(self.pool, sorted(game_ids))).values():
            hooks.update((hook.id, hook) for hook in of_game)
        return list(hooks.values())

    async def resend_lost(self) -> int:
        """Push again the tasks of deliveries overdue for long (their task was lost)."""
        rows = await self.pool.fetch(
            """UPDATE webhook_deliveries SET next_attempt_at = now()
               WHERE id IN (SELECT id FROM webhook_deliveries
                            WHERE status = 'pending'
                              AND next_attempt_at < now() - make_interval(secs => $1)
                            ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED)
               RETURNING id""",
            RESEND_AFTER_S,
            BATCH,
        )
        ids = [r["id"] for r in rows]
        await push(self.r, self.settings, ids)
        return len(ids)

    async def prune(self) -> None:
        """Forget finished deliveries past their retention, and deadlines long gone."""
        await self.pool.execute(
            """DELETE FROM webhook_deliveries WHERE status <> 'pending'
               AND finished_at < now() - make_interval(secs => $1)""",
            self.settings.webhook_retention_s,
        )
        await self.pool.execute(
            "DELETE FROM deadline_notices WHERE deadline < now() - interval '1 day'"
        )

    async def sweep(self) -> None:
        """One round of the timed work: deadlines always, the rest when due."""
        if told := await self.deadlines():
            log.info("told %d deadline_soon", told)
        loop = asyncio.get_running_loop()
        if loop.time() >= self._next_resend:
            self._next_resend = loop.time() + RESEND_EVERY_S
            if resent := await self.resend_lost():
                log.warning("pushed again %d webhook deliveries whose task was lost", resent)
        if loop.time() >= self._next_prune:
            self._next_prune = loop.time() + PRUNE_EVERY_S
            await self.prune()


async def sweep_forever(notifier: Notifier, stop: asyncio.Event) -> None:
    backoff = SWEEP_EVERY_S
    while not stop.is_set():
        try:
            await notifier.sweep()
            backoff = SWEEP_EVERY_S
        except Exception as exc:
            if is_transient(exc):
                log.warning("notifier sweep: Postgres or Redis unreachable (%r)", exc)
            else:
                log.exception("notifier sweep failed")
            backoff = min(backoff * 2, 30.0)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), backoff)


async def run(settings: Settings, stop: asyncio.Event) -> None:
    serve_metrics(settings.metrics_port)
    pool = await create_pool(settings.database_url, min_size=1, max_size=4, settings=settings)
    streams = RedisStreams(
        aioredis.Redis.from_url(settings.redis_url, **redis_options(settings))
    )  # the broker's Redis too
    notifier = Notifier(pool, streams.r, settings)
    ends = Notifier(pool, streams.r, settings)  # its own batch's endpoints, not the other's

    def consumer(stream: str, handler: Any, prepare: Any = None) -> Consumer:
        """The `notifier` group's consumer of one stream (batches of 128 where prepared)."""
        return Consumer(
            streams,
            settings.stream(stream),
            GROUP,
            f"notifier-{os.getpid()}",
            handler,
            groups=GROUPS[stream],
            max_deliveries=settings.max_deliveries,
            retired=RETIRED_GROUPS.get(stream, ()),
            **({"batch": 128, "prepare": prepare, "linger_s": settings.follow_linger_s}
               if prepare else {}),
        )  # fmt: skip

    games = consumer(GAMES, notifier.on_message, notifier.prepare)
    finished = consumer(FINISHED, ends.on_finished, ends.prepare)
    rooms = consumer(NEWS, notifier.on_room_news)
    tasks = [
        asyncio.create_task(games.run(), name="notifier-games"),
        asyncio.create_task(finished.run(), name="notifier-finished"),
        asyncio.create_task(rooms.run(), name="notifier-rooms"),
        asyncio.create_task(sweep_forever(notifier, stop), name="notifier-sweep"),
    ]
    try:
        await stop.wait()
    finally:
        games.stop()
        finished.stop()
        rooms.stop()
        await asyncio.wait(tasks, timeout=5)
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await streams.close()
        await pool.close()
