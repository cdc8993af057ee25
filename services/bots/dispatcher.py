"""Bot dispatcher: reads the games stream and enqueues a task per bot seat in `to_act`.

python -m services.bots.dispatcher
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
from collections.abc import Callable

import msgspec

from contracts.streams import GAMES, GROUPS, GameEvent
from infra.process import run_until_signalled
from infra.settings import Settings
from infra.streams import Message
from infra.streams.consumer import Consumer
from infra.streams.redis import RedisStreams
from infra.tasks import celery_app, send_bot_turn

log = logging.getLogger(__name__)
_decoder = msgspec.json.Decoder(GameEvent)


def bot_turns(event: GameEvent) -> list[tuple[int, str]]:
    """(seat, level) of every bot that must act after this event, once per command."""
    if not event.batch_end or event.status != "active":
        return []
    return [(seat, event.bots[str(seat)]) for seat in event.to_act if str(seat) in event.bots]


Enqueue = Callable[[str, str, int, str, int], None]


class Dispatcher:
    """Enqueues a bot task for every bot seat that must act at the end of a command.

    It keeps nothing: a task lost for good (its retries spent, the broker flushed) is sent
    again by the scheduler's sweep over the `turns` table in Postgres; the command id derives
    from the trigger, so sending the same turn twice moves once.
    """

    def __init__(self, enqueue: Enqueue) -> None:
        self.enqueue = enqueue

    async def on_message(self, message: Message) -> None:
        event = _decoder.decode(message.payload)
        for seat, level in bot_turns(event):
            await asyncio.to_thread(
                self.enqueue, event.game, event.game_id, seat, level, event.version
            )


async def run(settings: Settings, stop: asyncio.Event) -> None:
    streams = RedisStreams.from_url(settings.redis_url)
    celery = celery_app(settings, "turnpost-dispatcher")
    dispatcher = Dispatcher(functools.partial(send_bot_turn, celery, settings))
    consumer = Consumer(
        streams,
        settings.stream(GAMES),
        "bots",
        f"dispatcher-{os.getpid()}",
        dispatcher.on_message,
        groups=GROUPS[GAMES],
        max_deliveries=settings.max_deliveries,
    )
    task = asyncio.create_task(consumer.run())
    await stop.wait()
    consumer.stop()
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    await streams.close()


if __name__ == "__main__":
    run_until_signalled(run)
