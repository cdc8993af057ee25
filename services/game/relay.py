"""Outbox relay: publish committed commands to the games stream in commit-safe order.

python -m services.game.relay — one active relay at a time (advisory lock); others wait.

One envelope per command, its last event's (`batch_end`), not one per event: every reader
of the stream (dispatcher, lobby, ratings, notifier, the game services' waiters) acts only
at the end of a command, and a command is a few events (itty bitty ~2.5, Footprints ~4.8),
so each read, decode and ack of the stream was paid that many times for one piece of news.
The envelope says where the command began (`first_version`). An event of a command still
being appended never shows: a command's events commit together.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from datetime import UTC, datetime, timedelta

import asyncpg
import msgspec
import redis.asyncio as aioredis
from opentelemetry.trace import SpanKind
from redis.exceptions import RedisError

from contracts.streams import BOT_TURNS, GAMES, LIFECYCLE, GameEvent, streams_of
from infra.eventstore.api import StoredEvent
from infra.eventstore.outbox import Checkpoint, Outbox, PostgresOutbox
from infra.observability import tracing
from infra.observability.context import bind_carried
from infra.observability.metrics import RELAY_LAG_EVENTS, RELAY_LAG_SECONDS, serve_metrics
from infra.servers.db import connect_kwargs, redis_options
from infra.servers.errors import TRANSIENT
from infra.servers.migrate import ensure_database, migrate
from infra.servers.process import run_until_signalled
from infra.settings import Settings
from infra.streams import Streams

log = logging.getLogger(__name__)
RELAY_LOCK = 0x72656C61  # "rela"
CONSUMER = "relay:games"


def publishes(event: StoredEvent) -> bool:
    """Whether the event ends its command, so goes on the stream (events of before
    `batch_end` was written ended theirs)."""
    return bool(event.metadata.get("batch_end", True))


def envelope(event: StoredEvent) -> GameEvent:
    m = event.metadata
    trace = dict(m.get("trace") or {})  # the request that began it (infra/observability/context.py)
    game_id = event.stream_id.removeprefix("game-")
    if tracing.enabled():  # the relay's hop: its span, child of the append, goes on instead
        with tracing.span("relay", trace, SpanKind.PRODUCER, game_id=game_id, type=event.type):
            tracing.inject(trace)
    if log.isEnabledFor(logging.DEBUG):
        with bind_carried(trace, game_id=game_id):
            log.debug("relaying v%d %s", event.version, event.type)
    return GameEvent(
        game_id=game_id,
        game=m.get("game", ""),
        room_id=m.get("room_id"),
        version=event.version,
        type=event.type,
        to_act=list(m.get("to_act", [])),
        status=m.get("status", "active"),
        bots=dict(m.get("bots", {})),
        batch_end=bool(m.get("batch_end", True)),
        first_version=event.version - int(m["batch"]) + 1 if m.get("batch") else 0,
        global_position=event.global_position,
        recorded_at=event.recorded_at,
        trace=trace,
    )


async def relay_once(
    outbox: Outbox, streams: Streams, stream: str, limit: int = 500, consumer: str = CONSUMER
) -> int:
    """Publish the next batch's commands and checkpoint it, unfenced (FencedRelay is the
    relay's; this one publishes entry by entry, on a Streams port). At-least-once: consumers
    dedupe by version."""
    checkpoint = await outbox.load_checkpoint(consumer)
    batch = await _batch(outbox, checkpoint, limit)
    prefix = stream.removesuffix(GAMES)
    for _, event in batch:
        if publishes(event):
            out = envelope(event)
            payload = msgspec.json.encode(out)
            await streams.publish(stream, payload)
            bots, lifecycle = streams_of(out)
            if bots:
                await streams.publish(f"{prefix}{BOT_TURNS}", payload)
            if lifecycle:
                await streams.publish(f"{prefix}{LIFECYCLE}", payload)
    if batch:
        await outbox.save_checkpoint(consumer, batch[-1][0])
    return len(batch)


async def _batch(
    outbox: Outbox, after: Checkpoint, limit: int
) -> list[tuple[Checkpoint, StoredEvent]]:
    batch = await outbox.batch(after, limit)
    oldest = batch[0][1].recorded_at if batch else None
    RELAY_LAG_SECONDS.set((datetime.now(UTC) - oldest).total_seconds() if oldest else 0.0)
    RELAY_LAG_EVENTS.set(len(batch))
    return batch


class Superseded(Exception):
    """Another relay published since this one last did: this one stands down."""


# Publish a batch and the position it reaches, all or nothing, only if the stream is still
# where this relay left it. KEYS: games, position, bot turns, lifecycle; ARGV: expected, new,
# then per envelope its routes (1 games, +2 bot turns, +4 lifecycle) and its payload.
_PUBLISH = """
if (redis.call('GET', KEYS[2]) or '') ~= ARGV[1] then return -1 end
for i = 3, #ARGV, 2 do
    local routes = tonumber(ARGV[i])
    redis.call('XADD', KEYS[1], '*', 'm', ARGV[i + 1])
    if routes % 4 >= 2 then redis.call('XADD', KEYS[3], '*', 'm', ARGV[i + 1]) end
    if routes >= 4 then redis.call('XADD', KEYS[4], '*', 'm', ARGV[i + 1]) end
end
redis.call('SET', KEYS[2], ARGV[2])
return (#ARGV - 2) / 2
"""


def routes(event: GameEvent) -> int:
    """The streams an envelope goes on, as _PUBLISH reads them."""
    bots, lifecycle = streams_of(event)
    return 1 + (2 if bots else 0) + (4 if lifecycle else 0)


def _position(c: Checkpoint, recorded_at: datetime) -> str:
    """The stream's position: the last event published, by its place in the outbox and the
    moment it was recorded. The place alone can be taken again after the database was
    restored to an earlier moment (transaction ids and the sequence go back with it), by
    another event; the two together name one event."""
    return f"{c.tx_id}:{c.global_position}:{_micros(recorded_at)}"


def _micros(moment: datetime) -> int:
    return (moment - _EPOCH) // timedelta(microseconds=1)


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class FencedRelay:
    """The relay's publishing: exactly once onto the games stream, whatever the lock does.

    The lock keeps one relay busy, but cannot stop a relay frozen mid-batch (SIGSTOP, a long
    pause) from waking after a standby took over and publishing that batch again. So the
    stream's position (the last event published) lives in Redis beside it, moved by the same
    script that publishes, which refuses when the position is not the one this relay last
    saw. The Postgres checkpoint follows (for a Redis that lost the position)."""

    def __init__(
        self,
        r: aioredis.Redis,
        outbox: Outbox,
        stream: str,
        consumer: str = CONSUMER,
        bot_turns: str | None = None,
        lifecycle: str | None = None,
        checkpoint_every_s: float = 1.0,
    ) -> None:
        """`bot_turns`, `lifecycle`: those streams' names (by default `stream`'s, with the
        same prefix: settings.stream(BOT_TURNS) where `stream` is settings.stream(GAMES))."""
        self.r, self.outbox, self.stream, self.consumer = r, outbox, stream, consumer
        prefix = stream.removesuffix(GAMES)
        self.bot_turns = bot_turns or f"{prefix}{BOT_TURNS}"
        self.lifecycle = lifecycle or f"{prefix}{LIFECYCLE}"
        self.key = f"{stream}:relayed"
        self.at: Checkpoint | None = None
        self.published = 0  # commands the last batch published
        # The Postgres checkpoint is read only when Redis lost the stream's position (its
        # own, moved with every publish, is what a relay goes on from): saved with a batch at
        # most every `checkpoint_every_s`, and by the loop once the outbox stayed quiet for a
        # poll and at a stop, not once a batch. Going on from a lagging one publishes again
        # what the consumers dedupe anyway.
        self.checkpoint_every_s = checkpoint_every_s
        self._saved: Checkpoint | None = None
        self._saved_at = -math.inf
        self.known = ""  # the position as Redis holds it ("" none)
        # EVALSHA, the script loaded again by redis-py where Redis lost it (NOSCRIPT): its
        # text is not sent, nor hashed by Redis, at every batch
        self._script = r.register_script(_PUBLISH)

    async def start(self, conn: asyncpg.Connection) -> None:
        """Where to go on from: Redis' position if it names an event of this database (a
        Redis kept over a database made anew, or restored to an earlier moment, holds an
        event it does not), else the checkpoint. A position without the moment (a relay of
        before it) is taken at its place alone."""
        held = await self.r.get(self.key)
        self.known = held.decode() if held else ""
        parts = self.known.split(":")
        if 2 <= len(parts) <= 3 and all(p.isdigit() for p in parts):
            tx, gp = parts[0], int(parts[1])
            recorded = await conn.fetchval(
                "SELECT recorded_at FROM events WHERE global_position = $1"
                " AND tx_id = $2::text::xid8",
                gp,
                tx,
            )
            if recorded is not None and (len(parts) == 2 or _micros(recorded) == int(parts[2])):
                self.at = Checkpoint(tx_id=int(tx), global_position=gp)
                return
        if self.known:
            log.warning("the games stream's position %r is not of this database", self.known)
        self.at = self._saved = await self.outbox.load_checkpoint(self.consumer)

    async def once(self, limit: int = 500) -> int:
        assert self.at is not None, "start() first"
        batch = await _batch(self.outbox, self.at, limit)
        if not batch:
            return 0
        reached = batch[-1][0]
        position = _position(reached, batch[-1][1].recorded_at)
        routed: list[str | bytes] = []
        for _, e in batch:
            if publishes(e):
                out = envelope(e)
                routed += [str(routes(out)), msgspec.json.encode(out)]
        keys = (self.stream, self.key, self.bot_turns, self.lifecycle)
        published = await self._script(keys=keys, args=[self.known, position, *routed])
        if int(published) < 0:
            raise Superseded(f"{self.stream} moved past {self.known or 'nothing'}")
        self.at, self.known = reached, position
        self.published = len(routed) // 2
        if time.monotonic() - self._saved_at >= self.checkpoint_every_s:
            await self.save_checkpoint()
        return len(batch)

    async def save_checkpoint(self) -> None:
        """The Postgres checkpoint moved to where the stream is, if it lags (the relay's loop
        calls it when the outbox stayed quiet for a poll, and when it stops)."""
        if self.at is not None and self.at != self._saved:
            await self.outbox.save_checkpoint(self.consumer, self.at)
            self._saved, self._saved_at = self.at, time.monotonic()


# What a lost Postgres or Redis connection raises: the relay reconnects (and re-locks). Every
# outage (infra/errors.TRANSIENT, asyncpg's InternalClientError among them, as every process
# takes it), and, its session being its lock, any error of its connections or its fence.
CONNECTION_ERRORS = (
    *TRANSIENT,
    OSError,
    asyncpg.PostgresError,
    asyncpg.InterfaceError,
    RedisError,
    Superseded,
)


def doorbell_channel(settings: Settings) -> str:
    """Where the game service rings when it has appended (Redis pub/sub)."""
    return f"{settings.stream(GAMES)}:appended"


# How long after a PUBLISH the doorbell waits before it rings again for the appends made
# meanwhile: one PUBLISH (and one read of the outbox by the relay, one checkpoint) for the
# appends of these milliseconds, not one for each. A ring on a quiet service goes out at
# once. At c16 a publish per append cost the game service a round trip to Redis per move
# and the relay a batch per move.
DOORBELL_LINGER_S = 0.005


class Doorbell:
    """Tells the active relay that an append committed, so it reads the outbox now rather
    than at its next poll (RELAY_POLL_S): one Redis PUBLISH at once, then, for the rings
    made during it and the `linger_s` after it, one more. Lossy by design (no subscriber,
    Redis away): the relay's poll still finds everything, only later. A NOTIFY from the
    append's transaction did this before and serialised every commit (migration 010)."""

    def __init__(
        self, r: aioredis.Redis, channel: str, linger_s: float = DOORBELL_LINGER_S
    ) -> None:
        self.r, self.channel, self.linger_s = r, channel, linger_s
        self._task: asyncio.Task[None] | None = None
        self._again = False

    def ring(self) -> None:
        if self._task is not None and not self._task.done():
            self._again = True
            return
        self._task = asyncio.create_task(self._publish())

    async def _publish(self) -> None:
        while True:
            self._again = False
            try:
                await self.r.publish(self.channel, b"1")
            except Exception as exc:  # the relay's poll finds it anyway
                log.debug("doorbell not rung: %r", exc)
                return
            await asyncio.sleep(self.linger_s)  # the rings of the next moment: one more
            if not self._again:
                return

    async def close(self) -> None:
        """Stop ringing (at shutdown, before the Redis client closes): a ring that waits
        is dropped, the relay's poll finds its append."""
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)


async def _listen(r: aioredis.Redis, channel: str, wake: asyncio.Event) -> None:
    """Set `wake` at each ring of the doorbell; resubscribe after a lost connection."""
    while True:
        try:
            async with r.pubsub() as ps:
                await ps.subscribe(channel)
                async for message in ps.listen():
                    if message.get("type") == "message":
                        wake.set()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # polling goes on meanwhile
            log.debug("doorbell listener: %r; subscribing again", exc)
            await asyncio.sleep(1)


async def run(settings: Settings, stop: asyncio.Event, poll_seconds: float | None = None) -> None:
    """Relay until stopped, reconnecting after any lost connection; its metrics on
    METRICS_PORT (none when 0). It reads the outbox when the game service rings its
    Doorbell, and every `poll_seconds` (RELAY_POLL_S) while nothing is new (a ring lost),
    at once again after a batch."""
    serve_metrics(settings.metrics_port)
    poll = settings.relay_poll_s if poll_seconds is None else poll_seconds
    while not stop.is_set():
        try:
            await _relay(settings, stop, poll)
        except CONNECTION_ERRORS as exc:
            log.warning("relay lost a connection (%r); reconnecting", exc)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 1)


async def _relay(settings: Settings, stop: asyncio.Event, poll_seconds: float) -> None:
    await ensure_database(settings.database_url)
    # The lock goes with this session: a relay killed frees it at once; one frozen or cut
    # off goes idle, and the server ends its session after relay_lock_timeout_s (a peer
    # gone silent: the keepalives, sooner than the kernel's hours).
    timeout_ms = str(int(settings.relay_lock_timeout_s * 1000))
    conn = await asyncpg.connect(
        settings.database_url, **connect_kwargs(settings, idle_session_timeout=timeout_ms)
    )
    r = aioredis.Redis.from_url(settings.redis_url, **redis_options(settings))
    # the standby asks within the timeout too, or its own session would end
    standby_s = min(2.0, settings.relay_lock_timeout_s / 3)
    poll_seconds = min(poll_seconds, settings.relay_lock_timeout_s / 3)
    try:
        await migrate(conn)
        while not await conn.fetchval("SELECT pg_try_advisory_lock($1)", RELAY_LOCK):
            log.info("another relay is active; standing by")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), standby_s)
            if stop.is_set():
                return
        stream = settings.stream(GAMES)
        relay = FencedRelay(r, PostgresOutbox(conn, ends_only=True), stream)
        await relay.start(conn)
        log.info("relay active, publishing to %s", stream)
        wake = asyncio.Event()
        listener = asyncio.create_task(_listen(r, doorbell_channel(settings), wake))
        try:
            while not stop.is_set():
                wake.clear()  # a ring while reading is heard after
                if await relay.once():
                    # let the next commands gather (a quarter of the linger after a batch
                    # of one, all of it after four or more): one read, one script for them
                    await asyncio.sleep(settings.relay_linger_s * min(relay.published, 4) / 4)
                    continue
                try:
                    await asyncio.wait_for(wake.wait(), poll_seconds)
                except TimeoutError:  # quiet for a poll: the checkpoint catches up
                    await relay.save_checkpoint()
            await relay.save_checkpoint()
        finally:
            listener.cancel()
            await asyncio.gather(listener, return_exceptions=True)
    finally:
        await r.aclose()
        if not conn.is_closed():
            await conn.close()


if __name__ == "__main__":
    run_until_signalled(run)
