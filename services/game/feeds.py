"""What a game looks like to each reader: its stored events as a seat may see them, with their
words, and the long-poll that waits for news."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import msgspec

from contracts.game import FeedEvent, timestamp
from games.registry import narrator
from games.table import TableEvent
from games.text import narrate_table
from infra.eventstore import StoredEvent
from services.game.loading import Loaded, Loading, beyond_version, status_of
from services.game.repository import GameRecord, stream_id


class Feeds(Loading):
    """The event feed and its long-poll (`/events`, the SSE streams build on it)."""

    def feed(
        self, rules: Any, stored: list[StoredEvent], seat: int | None, names: Sequence[str]
    ) -> list[FeedEvent]:
        """Stored events as `seat` may see them, each with its text made from that copy alone
        (`names`: who sits in each seat)."""
        words = narrator(rules.key)
        out = []
        for e in stored:
            event = self._decode(rules, e)
            if isinstance(event, TableEvent):
                visible, text = event, narrate_table(event, names)  # type: ignore[arg-type]
            elif (visible := rules.redact(event, seat)) is not None:
                text = words.narrate(visible, names)
            else:
                continue
            out.append(
                FeedEvent(
                    version=e.version,
                    type=e.type,
                    data=msgspec.to_builtins(visible),
                    seat=e.metadata.get("seat"),
                    recorded_at=timestamp(e.recorded_at),
                    text=text,
                )
            )
        return out

    async def events_since(
        self, record: GameRecord, after: int, wait: float, limit: int = 500
    ) -> tuple[Loaded, list[StoredEvent]]:
        """The game now and its stored events after `after`; when there are none, waits up to
        `wait` seconds for some (none once the game is over). A wake-up that brings nothing
        (the relay's envelope of a move this process already announced, say) waits on for
        the time left: an empty answer means the whole wait passed without news, never that a
        client must ask again at once.

        The first round reads the store once, for what came after the cached state (`load`),
        so an answer holds everything committed before the request, whichever process
        committed it. A long-poll (`wait` > 0) whose client has seen what this process holds
        (`after` as `read_needed`'s `min_version`) skips that read: what another replica
        committed just before and this process has not heard of yet wakes the poll when the
        games stream brings it (milliseconds), and the answer then holds it. A round after a
        wake-up reads only if the cached state is behind the
        latest version this process was told of (another process's move, heard through the
        relay, or a wake of unknown version): a wake by this process's own append finds its
        cache already there. The events the feed returns come from memory when the cache holds
        them (RECENT_EVENTS), else from a second read. 400 `after_beyond_version` when `after`
        is past the game's version."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait
        woken = False
        while True:
            moved = self.waiters.subscribe(record.id)  # before reading: a move between is seen
            if woken:
                read = self._behind(record.id)
            else:
                read = wait <= 0 or self.read_needed(record.id, after)
            loaded = await self.load(record.id, record, read=read)
            if after > loaded.version:
                raise beyond_version(loaded.version, "`after` can be at most that")
            if status_of(loaded.rules, loaded.state) == "finished":
                deadline = loop.time()  # nothing more will come
            stored = self._recent_events(record.id, after, loaded.version, limit)
            if stored is None:  # older than memory holds
                stored = await self.store.read(stream_id(record.id), after=after, limit=limit)
                if stored and stored[-1].version > loaded.version:
                    loaded = await self.load(record.id, record)  # where it stands after them
            left = deadline - loop.time()
            if stored or left <= 0 or not await self.waiters.wait(moved, left):
                return loaded, stored
            woken = True
