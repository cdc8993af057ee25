"""Wake long-polling readers when a game moves: local appends and the games stream."""

from __future__ import annotations

import asyncio
import contextlib
import logging

import msgspec

from contracts.streams import GameEvent
from infra.streams import Streams

log = logging.getLogger(__name__)


class Waiters:
    def __init__(self) -> None:
        self._events: dict[str, asyncio.Event] = {}

    def notify(self, game_id: str) -> None:
        event = self._events.pop(game_id, None)
        if event is not None:
            event.set()

    def subscribe(self, game_id: str) -> asyncio.Event:
        """Take this before reading the store, so a move in between is not missed."""
        return self._events.setdefault(game_id, asyncio.Event())

    @staticmethod
    async def wait(event: asyncio.Event, seconds: float) -> bool:
        """True if the game moved within `seconds`."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(event.wait(), seconds)
            return True
        return False


async def follow_games_stream(streams: Streams, stream: str, waiters: Waiters) -> None:
    """Moves made through another instance reach this one's waiters via the relay."""
    decoder = msgspec.json.Decoder(GameEvent)
    last: str | None = None  # a concrete id: "$" would skip what lands between two reads
    while True:
        try:
            if last is None:
                last = await streams.latest_id(stream)
            messages = await streams.tail(stream, last, 5_000)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("following %s failed; retrying", stream)
            await asyncio.sleep(1)
            continue
        for m in messages:
            last = m.id
            with contextlib.suppress(msgspec.DecodeError):
                waiters.notify(decoder.decode(m.payload).game_id)
