"""Bot dispatcher: reads the games stream and enqueues a task per bot seat in `to_act`.

python -m services.bots.dispatcher
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal

import msgspec

from contracts.streams import GAMES, GameEvent
from infra.logging import configure
from infra.settings import Settings, from_env
from infra.streams import Message
from infra.streams.consumer import Consumer
from infra.streams.redis import RedisStreams

log = logging.getLogger(__name__)
_decoder = msgspec.json.Decoder(GameEvent)


def bot_turns(event: GameEvent) -> list[tuple[int, str]]:
    """(seat, level) of every bot that must act after this event, once per command."""
    if not event.batch_end or event.status != "active":
        return []
    return [(seat, event.bots[str(seat)]) for seat in event.to_act if str(seat) in event.bots]


def on_game_event(enqueue):  # type: ignore[no-untyped-def]
    async def handle(message: Message) -> None:
        event = _decoder.decode(message.payload)
        for seat, level in bot_turns(event):
            await asyncio.to_thread(enqueue, event.game, event.game_id, seat, level, event.version)

    return handle


def celery_enqueue(game: str, game_id: str, seat: int, level: str, version: int) -> None:
    from services.bots.worker import play

    play.apply_async(args=(game, game_id, seat, level, version))


async def run(settings: Settings, stop: asyncio.Event) -> None:
    streams = RedisStreams.from_url(settings.redis_url)
    consumer = Consumer(
        streams,
        settings.stream(GAMES),
        "bots",
        f"dispatcher-{os.getpid()}",
        on_game_event(celery_enqueue),
        max_deliveries=settings.max_deliveries,
    )
    task = asyncio.create_task(consumer.run())
    await stop.wait()
    consumer.stop()
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    await streams.close()


async def main() -> None:
    settings = from_env()
    configure(settings.log_level)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await run(settings, stop)


if __name__ == "__main__":
    asyncio.run(main())
