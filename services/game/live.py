"""Wake readers when a game moves (local appends and the games stream), and fan each game's
news out to every live feed of this process through one reader of the store."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict, deque
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import TypeVar

import msgspec

from contracts.streams import GameEvent
from infra.eventstore import StoredEvent
from infra.streams import Streams
from infra.streams.api import TAIL_COUNT

log = logging.getLogger(__name__)
T = TypeVar("T")

Read = Callable[[str, int, int], Awaitable[list[StoredEvent]]]  # (game_id, after, limit)
Heard = Callable[[GameEvent], None]


KNOWN_AT_MOST = 10_000  # games whose latest version is remembered (the latest told)


class Waiters:
    def __init__(self) -> None:
        self._events: dict[str, asyncio.Event] = {}
        self._listeners: list[Heard] = []
        self._known: OrderedDict[str, int] = OrderedDict()  # oldest news first

    def notify(self, game_id: str, version: int | None = None) -> None:
        """The game moved, to `version` if known (this process's append, the relay's
        envelope); a move of unknown version makes the game's latest version unknown."""
        if version is None:
            self._known.pop(game_id, None)
        elif version > self._known.get(game_id, 0):
            self._known[game_id] = version
            self._known.move_to_end(game_id)
            if len(self._known) > KNOWN_AT_MOST:  # the game told of longest ago: read again
                self._known.popitem(last=False)
        event = self._events.pop(game_id, None)
        if event is not None:
            event.set()

    def known(self, game_id: str) -> int | None:
        """The latest version of the game this process has been told of, if it knows it."""
        return self._known.get(game_id)

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

    def heard(self, envelope: GameEvent) -> None:
        """An envelope off the games stream: wakes the game's readers, tells the listeners."""
        self.notify(envelope.game_id, envelope.version)
        for listener in self._listeners:
            try:
                listener(envelope)
            except Exception:
                log.exception("a games-stream listener failed on %s", envelope.game_id)

    def listen(self, listener: Heard) -> Callable[[], None]:
        """Every envelope this process hears from now on; returns what stops it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)


async def follow_games_stream(
    streams: Streams, stream: str, waiters: Waiters, linger_s: float = 0.0
) -> None:
    """Moves made through another instance reach this one's waiters via the relay."""
    await follow_envelopes(streams, stream, waiters.heard, linger_s)


async def follow_envelopes(
    streams: Streams, stream: str, heard: Callable[[GameEvent], None], linger_s: float = 0.0
) -> None:
    """Every envelope published on `stream` from now on, to `heard`, in order (a tail, not a
    consumer group: each process hears everything)."""
    await follow_stream(streams, stream, msgspec.json.Decoder(GameEvent), heard, linger_s)


async def follow_stream(
    streams: Streams,
    stream: str,
    decoder: msgspec.json.Decoder[T],
    heard: Callable[[T], None],
    linger_s: float = 0.0,
) -> None:
    """Every message published on `stream` from now on, decoded, to `heard`, in order; one
    that does not decode is skipped. After a short read, `linger_s` lets the next entries
    gather (a quarter of it after one entry, all of it after four or more), so that a busy
    stream is read in a few round trips a second, not one per entry."""
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
                heard(decoder.decode(m.payload))
        if linger_s and 0 < len(messages) < TAIL_COUNT:
            await asyncio.sleep(linger_s * min(len(messages), 4) / 4)


class _Game:
    """One game followed by this process: what its reader has read lately, and its news."""

    def __init__(self, head: int, keep: int) -> None:
        self.head = head  # the last version read
        self.recent: deque[StoredEvent] = deque(maxlen=keep)
        self.moved = asyncio.Event()  # set (and replaced) whenever head moves
        self.feeds = 0
        self.reader: asyncio.Task[None] | None = None


class Feeds:
    """Live feeds of games: each game followed by any feed here has one reader of the store,
    woken by the Waiters (this process' appends, the games stream for the others'), whatever
    the number of feeds; a feed behind what the reader keeps catches up from the store
    alone. The last feed of a game to close stops its reader and forgets the game."""

    def __init__(self, read: Read, waiters: Waiters, recheck_s: float, keep: int = 256) -> None:
        self._read = read
        self._waiters = waiters
        self._recheck_s = recheck_s  # a read without a wake-up: Redis may lose a message
        self._keep = keep
        self._games: dict[str, _Game] = {}

    def followed(self) -> dict[str, int]:
        """Feeds open per game (what a closed connection must give back)."""
        return {game_id: g.feeds for game_id, g in self._games.items()}

    async def follow(
        self, game_id: str, after: int, head: int, idle_s: float, batch: int = 500
    ) -> AsyncGenerator[list[StoredEvent]]:
        """The game's events after `after`, in order, each once, as they come; an empty list
        after `idle_s` seconds without any (a heartbeat's cue). `head`: a version the game
        is known to have reached."""
        game = self._games.get(game_id)
        if game is None:
            game = self._games[game_id] = _Game(head, self._keep)
            game.reader = asyncio.create_task(self._reader(game_id, game))
        game.feeds += 1
        try:
            while True:
                moved = game.moved
                if after < game.head:
                    if game.recent and game.recent[0].version <= after + 1:
                        news = [e for e in game.recent if e.version > after][:batch]
                    else:  # further back than the reader keeps: from the store, alone
                        news = await self._read(game_id, after, batch)
                    if news:
                        after = news[-1].version
                        yield news
                        continue
                try:
                    await asyncio.wait_for(moved.wait(), idle_s)
                except TimeoutError:
                    yield []
        finally:
            game.feeds -= 1
            if game.feeds == 0 and self._games.get(game_id) is game:
                del self._games[game_id]
                if game.reader is not None:
                    game.reader.cancel()

    async def _reader(self, game_id: str, game: _Game) -> None:
        while True:
            woken = self._waiters.subscribe(game_id)  # before reading: a move between is seen
            try:
                news = await self._read(game_id, game.head, 500)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("reading game %s for its live feeds failed; retrying", game_id)
                await asyncio.sleep(1)
                continue
            if news:
                game.recent.extend(news)
                game.head = news[-1].version
                game.moved.set()
                game.moved = asyncio.Event()
                if len(news) == 500:
                    continue
            await Waiters.wait(woken, self._recheck_s)

    async def close(self) -> None:
        readers = [g.reader for g in self._games.values() if g.reader is not None]
        for r in readers:
            r.cancel()
        await asyncio.gather(*readers, return_exceptions=True)
        self._games.clear()
