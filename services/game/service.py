"""The game service: everything the REST routes and the stream consumers do to games, one
object over the modules that each hold a concern: `memory.py` (what a process remembers),
`loading.py` (a game rebuilt from its events), `commands.py` (the command path, top to
bottom) and `feeds.py` (events as each seat sees them, and the long-poll)."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import msgspec

from infra.eventstore import EventStore
from services.game.commands import Commands
from services.game.feeds import Feeds
from services.game.live import Waiters
from services.game.memory import Cached
from services.game.repository import GameRecord, GamesRepository


def utcnow() -> datetime:
    return datetime.now(UTC)


class GameService(Commands, Feeds):
    """Everything the REST routes and the stream consumers do to games."""

    def __init__(
        self,
        store: EventStore,
        games: GamesRepository,
        waiters: Waiters,
        snapshot_every: int = 100,
        cache_size: int = 2048,
        now: Callable[[], datetime] = utcnow,
        appended: Callable[[], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.clock = clock  # for how long memory may answer a read (MEMORY_TRUSTED_S)
        self.appended = appended  # told after each new append (the relay's doorbell)
        self.games = games
        self.waiters = waiters
        self.snapshot_every = snapshot_every
        self.now = now
        self._cache: OrderedDict[str, Cached] = OrderedDict()
        self._records: dict[str, GameRecord] = {}  # a game's record never changes
        self._cache_size = cache_size
        self._decoders: dict[str, msgspec.json.Decoder[Any]] = {}
