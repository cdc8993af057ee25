"""Bot dispatcher: reads the games stream and enqueues a task per bot seat in `to_act`.

python -m services.bots.dispatcher
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable

import msgspec

from contracts.streams import GAMES, GameEvent
from infra.process import run_until_signalled
from infra.settings import Settings
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


Enqueue = Callable[[str, str, int, str, int], None]


class Waiting(msgspec.Struct, kw_only=True):
    game: str
    version: int
    turns: list[tuple[int, str]]
    sent_at: float
    resends: int = 0


class Dispatcher:
    """Enqueues bot turns, and enqueues them again when a game stays waiting on a bot.

    A task can be lost for good (its retries spent, the broker flushed); the command id
    derives from the triggering event, so sending the same turn twice moves once.
    """

    def __init__(self, enqueue: Enqueue, resend_after: float = 30.0) -> None:
        self.enqueue = enqueue
        self.resend_after = resend_after
        self.waiting: dict[str, Waiting] = {}

    async def on_message(self, message: Message) -> None:
        event = _decoder.decode(message.payload)
        if not event.batch_end:
            return
        turns = bot_turns(event)
        current = self.waiting.get(event.game_id)
        if current is not None and current.version > event.version:
            return  # a redelivered, older envelope
        if not turns:
            self.waiting.pop(event.game_id, None)
            return
        self.waiting[event.game_id] = Waiting(
            game=event.game, version=event.version, turns=turns, sent_at=time.monotonic()
        )
        await self._send(event.game_id, self.waiting[event.game_id])

    async def resend_stale(self) -> int:
        """Send again every turn that has waited too long (backing off); how many."""
        now = time.monotonic()
        sent = 0
        for game_id, w in list(self.waiting.items()):
            if now - w.sent_at >= self.resend_after * 2**w.resends:
                w.sent_at, w.resends = now, min(w.resends + 1, 6)
                log.warning("game %s still waits on bots at v%d; sending again", game_id, w.version)
                await self._send(game_id, w)
                sent += 1
        return sent

    async def _send(self, game_id: str, w: Waiting) -> None:
        for seat, level in w.turns:
            await asyncio.to_thread(self.enqueue, w.game, game_id, seat, level, w.version)


def celery_enqueue(game: str, game_id: str, seat: int, level: str, version: int) -> None:
    from services.bots.worker import play

    play.apply_async(args=(game, game_id, seat, level, version))


async def run(settings: Settings, stop: asyncio.Event) -> None:
    streams = RedisStreams.from_url(settings.redis_url)
    dispatcher = Dispatcher(celery_enqueue)
    consumer = Consumer(
        streams,
        settings.stream(GAMES),
        "bots",
        f"dispatcher-{os.getpid()}",
        dispatcher.on_message,
        max_deliveries=settings.max_deliveries,
    )
    tasks = [asyncio.create_task(consumer.run()), asyncio.create_task(_sweep(dispatcher, stop))]
    await stop.wait()
    consumer.stop()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await streams.close()


async def _sweep(dispatcher: Dispatcher, stop: asyncio.Event, every: float = 5.0) -> None:
    while not stop.is_set():
        await asyncio.sleep(every)
        try:
            await dispatcher.resend_stale()
        except Exception as exc:  # the broker is down: try again next round
            log.warning("resending bot turns failed: %r", exc)


if __name__ == "__main__":
    run_until_signalled(run)
