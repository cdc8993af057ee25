"""Bot dispatcher: reads the bot turns stream and enqueues a task per bot seat in `to_act`.

python -m services.bots.dispatcher
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import msgspec
import redis.asyncio as aioredis
from opentelemetry.trace import SpanKind

from contracts.streams import BOT_TURNS, GROUPS, bots_to_act
from infra.observability import tracing
from infra.observability.context import bind_carried
from infra.observability.metrics import serve_metrics
from infra.servers.db import redis_options
from infra.servers.process import run_until_signalled
from infra.settings import Settings
from infra.streams import Message
from infra.streams.consumer import LINGER_FULL, Consumer
from infra.streams.redis import RedisStreams
from infra.tasks import (
    DEAD_TURN,
    FAST_QUEUE,
    MANY_AT_MOST,
    bot_turn_message,
    bot_turns_message,
    queue_for,
    turn_key,
)

log = logging.getLogger(__name__)


class Turns(msgspec.Struct):
    """What the dispatcher reads of an envelope that ends a command (contracts.GameEvent)."""

    game_id: str
    game: str
    version: int
    type: str
    to_act: list[int]
    status: str
    bots: dict[str, str]  # seat (as a string) -> bot level
    batch_end: bool
    trace: dict[
        str, str
    ] = {}  # what began it (infra/observability/context.py), on to the task's headers


_turns = msgspec.json.Decoder(Turns)


class BotTurn(msgspec.Struct, frozen=True):
    game: str
    game_id: str
    seat: int
    level: str
    version: int
    fresh: bool = False  # a replayed dead letter: its tries count from the start
    trace: dict[str, str] = {}  # what began it: the task's headers carry it to the worker


def turns_of(payload: bytes) -> list[BotTurn]:
    """The bot turns an envelope of the bot turns stream asks for (every one ends a command:
    the relay puts no other there)."""
    event = _turns.decode(payload)
    fresh = event.type == DEAD_TURN  # a replayed dead letter
    trace = event.trace
    if tracing.enabled() and event.batch_end:  # the dispatcher's hop, child of the relay's
        trace = dict(trace)
        with tracing.span("dispatch", event.trace, SpanKind.CONSUMER, game_id=event.game_id):
            tracing.inject(trace)
    turns = [
        BotTurn(event.game, event.game_id, seat, level, event.version, fresh, trace)
        for seat, level in bots_to_act(event)
    ]
    if turns and log.isEnabledFor(logging.DEBUG):
        with bind_carried(event.trace, game_id=event.game_id):
            for t in turns:
                log.debug("v%d: seat %d (%s) to move", t.version, t.seat, t.level)
    return turns


Enqueue = Callable[[Sequence[BotTurn]], Awaitable[None]]


def task_messages(settings: Settings, turns: Sequence[BotTurn]) -> list[tuple[str, bytes]]:
    """The tasks of a batch's turns: the cheap levels' in tasks of up to MANY_AT_MOST turns
    each (one Celery task's cost for all), each search its own task (a long search must not
    hold up the turns batched with it)."""
    cheap = [t for t in turns if queue_for(t.level) == FAST_QUEUE]
    out = [
        bot_turns_message(
            settings,
            [(t.game, t.game_id, t.seat, t.level, t.version, t.fresh) for t in chunk],
            {turn_key(t.game_id, t.version, t.seat): t.trace for t in chunk if t.trace},
        )
        for chunk in (cheap[i : i + MANY_AT_MOST] for i in range(0, len(cheap), MANY_AT_MOST))
    ]
    out += [
        bot_turn_message(settings, t.game, t.game_id, t.seat, t.level, t.version, t.fresh, t.trace)
        for t in turns
        if queue_for(t.level) != FAST_QUEUE
    ]
    return out


def _weight(turns: Sequence[BotTurn]) -> int:
    """How long the next read lingers (infra/streams/consumer.py): all of it when this read
    held the bots of two games or more (tables busy at once: the next read will gather
    several turns, one Celery task and one round trip of the worker for them all), a
    quarter otherwise. One table's turns come one at a time, each the answer to the last:
    lingering would only delay them. The step matters: weighed by turns alone, a busy
    stream read every few ms settles at about one turn a read and a short linger."""
    return LINGER_FULL if len({t.game_id for t in turns}) >= 2 else 1


class Dispatcher:
    """Enqueues a bot task for every bot seat that must act at the end of a command.

    It keeps nothing: a task lost for good (its retries spent, the broker flushed) is sent
    again by the scheduler's sweep over the `turns` table in Postgres; the command id derives
    from the version the bot acts at, so sending the same turn twice moves once.
    """

    def __init__(self, enqueue: Enqueue) -> None:
        self.enqueue = enqueue

    async def on_message(self, message: Message) -> None:
        if turns := turns_of(message.payload):
            await self.enqueue(turns)


class BatchConsumer(Consumer):
    """The dispatcher's consumer: what it reads in one batch costs two round trips to Redis
    whatever the batch holds (the read; the push of every task with the XACK of every entry,
    in one MULTI), where the generic consumer acks each entry alone; and stale entries are
    looked for every few seconds, not before every read (a dispatcher's entries go stale
    only when one dies).

    The same guarantees: an entry is acked only with its tasks pushed; an outage is waited
    out in place; an entry that cannot be read stays pending, is handed back after
    `min_idle_ms` and dead-lettered after `max_deliveries`. Without `settings` (or on the
    memory twin) the tasks go through `enqueue`, and the entries are acked after."""

    def __init__(
        self,
        *args: Any,
        enqueue: Enqueue,
        settings: Settings | None = None,
        claim_every_s: float = 5.0,
        **kw: Any,
    ):
        super().__init__(*args, **kw)
        self.enqueue = enqueue
        self.settings = settings
        self.claim_every_s = claim_every_s
        self._next_claim = 0.0

    async def step(self) -> int:
        loop = asyncio.get_running_loop()
        messages: list[Message] = []
        if loop.time() >= self._next_claim:
            self._next_claim = loop.time() + self.claim_every_s
            messages = await self.streams.claim_stale(
                self.stream, self.group, self.name, self.min_idle_ms, self.batch
            )
        if not messages:
            messages = await self.streams.read(
                self.stream, self.group, self.name, self.batch, self.block_ms
            )
        turns: list[BotTurn] = []
        done: list[Message] = []
        for message in messages:
            if message.deliveries > self.max_deliveries:
                await self.handle(message)  # dead-letters it
                continue
            try:
                turns += turns_of(message.payload)
            except Exception:
                log.exception("%s: %s unreadable (delivery %d)", self.stream, message.id,
                              message.deliveries)  # fmt: skip
                continue
            done.append(message)
        if done:
            ids = [m.id for m in done]
            await self._through_outages(done[0], lambda: self._push_and_ack(turns, ids))
        await self._linger(len(messages), _weight(turns) if messages else 0)
        return len(messages)

    async def _push_and_ack(self, turns: list[BotTurn], ids: list[str]) -> None:
        if self.settings is not None and isinstance(self.streams, RedisStreams):
            pipe = self.streams.r.pipeline(transaction=True)
            for key, message in task_messages(self.settings, turns):
                pipe.lpush(key, message)
            pipe.xack(self.stream, self.group, *ids)
            await pipe.execute()
            return
        if turns:
            await self.enqueue(turns)
        await self.streams.ack(self.stream, self.group, *ids)


def pusher(settings: Settings, r: aioredis.Redis) -> Enqueue:
    """Push the tasks straight onto their queues' lists, in one round trip, in this loop."""

    async def enqueue(turns: Sequence[BotTurn]) -> None:
        pipe = r.pipeline(transaction=False)
        for key, message in task_messages(settings, turns):
            pipe.lpush(key, message)
        await pipe.execute()

    return enqueue


async def run(settings: Settings, stop: asyncio.Event) -> None:
    serve_metrics(settings.metrics_port)
    streams = RedisStreams(  # the broker's Redis too
        aioredis.Redis.from_url(settings.redis_url, **redis_options(settings))
    )
    consumer = BatchConsumer(
        streams,
        settings.stream(BOT_TURNS),
        "bots",
        f"dispatcher-{os.getpid()}",
        _no_handler,
        enqueue=pusher(settings, streams.r),
        settings=settings,
        groups=GROUPS[BOT_TURNS],
        max_deliveries=settings.max_deliveries,
        batch=256,
        linger_s=settings.dispatch_linger_s,
    )
    task = asyncio.create_task(consumer.run())
    await stop.wait()
    consumer.stop()
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    await streams.close()


async def _no_handler(message: Message) -> None:
    raise AssertionError("BatchConsumer handles its batches itself")


if __name__ == "__main__":
    run_until_signalled(run)
