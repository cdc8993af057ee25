"""Players' news for GET /v1/me/stream: the notifier's own derivation (your_turn,
game_started, game_finished from the games stream; deadline_soon from the clock projection),
fanned out to the players listening to this process."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator, Callable, Coroutine
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg

from contracts.notifications import ROOM_NEWS_TYPES, Notification, RoomNews
from contracts.problems import ProblemError
from contracts.streams import GameEvent, told_when_recorded
from infra.notify.derive import Clocks, deadlines_soon, notifications
from infra.notify.facts import deadlines_of, players_of, read_facts
from infra.servers.db import fetch_replanned
from infra.tasks import DEAD_TURN
from services.game.live import Waiters
from services.game.service import GameService

log = logging.getLogger(__name__)
QUEUED = 256  # news waiting for one slow listener; more is dropped (and logged)

# The listeners' games with a running deadline within the lead.
_SOON = """
SELECT t.game_id::text AS game_id, t.game, t.version, t.deadlines::text AS deadlines,
       t.overdue, t.waiting_since, t.started::text AS started, g.seats::text AS seats
FROM turns t JOIN games g ON g.id = t.game_id
WHERE t.status = 'active' AND t.next_deadline IS NOT NULL
  AND t.next_deadline <= now() + make_interval(secs => $1)
  AND EXISTS (SELECT 1 FROM game_seats gs
              WHERE gs.game_id = t.game_id AND gs.player_id = ANY ($2::text[]))"""


class _Listener:
    def __init__(self) -> None:
        self.news: asyncio.Queue[Notification | RoomNews] = asyncio.Queue(QUEUED)
        self.told: set[str] = set()  # deadline_soon keys, once each

    def tell(self, note: Notification | RoomNews) -> None:
        # deadline_soon is swept again and again; game_finished and a room's news may be
        # published twice (a lobby killed between its commit and its ack): each told once
        if note.type in ("deadline_soon", "game_finished", *ROOM_NEWS_TYPES):
            if note.key() in self.told:
                return
            self.told.add(note.key())
        try:
            self.news.put_nowait(note)
        except asyncio.QueueFull:
            log.warning("a /v1/me/stream listener is %d behind; dropped %s", QUEUED, note.key())


class PlayerNews:
    """One derivation per process, whatever the number of listeners: an envelope that ends a
    command is looked at only when a player of its game listens here."""

    def __init__(
        self, svc: GameService, pool: asyncpg.Pool | None, lead_s: float, sweep_s: float
    ) -> None:
        self._svc, self._pool = svc, pool
        self._lead = timedelta(seconds=lead_s)
        # a deadline is looked for at least four times within its lead: one coming within a
        # lead shorter than the heartbeat is not missed between two sweeps
        self._sweep_s = min(sweep_s, max(0.5, lead_s / 4))
        self._listeners: dict[str, set[_Listener]] = {}
        self._envelopes: asyncio.Queue[GameEvent] = asyncio.Queue()
        self._kick = asyncio.Event()  # a new listener: its deadlines now, not at the next sweep
        self._tasks: list[asyncio.Task[None]] = []
        self._unlisten: Callable[[], None] | None = None

    def start(self, waiters: Waiters, *followers: Coroutine[Any, Any, None]) -> None:
        """Listen to the games stream's envelopes (through `waiters`) and to what
        `followers` hear: the FINISHED stream (to `self.recorded`), the ends of rooms' games
        the lobby has recorded; the NEWS stream (to `self.room_news`), rooms' news."""
        self._unlisten = waiters.listen(self._heard)
        self._tasks = [asyncio.create_task(self._derive()), asyncio.create_task(self._sweep())]
        self._tasks += [asyncio.create_task(f) for f in followers]

    async def close(self) -> None:
        if self._unlisten is not None:
            self._unlisten()
        for t in self._tasks:
            t.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def listening(self) -> dict[str, int]:
        return {player: len(ls) for player, ls in self._listeners.items()}

    async def follow(
        self, player_id: str, idle_s: float
    ) -> AsyncGenerator[list[Notification | RoomNews]]:
        """The player's news as it comes; an empty list after `idle_s` quiet seconds."""
        me = _Listener()
        self._listeners.setdefault(player_id, set()).add(me)
        self._kick.set()
        try:
            while True:
                try:
                    first = await asyncio.wait_for(me.news.get(), idle_s)
                except TimeoutError:
                    yield []
                    continue
                batch = [first]
                while not me.news.empty():
                    batch.append(me.news.get_nowait())
                yield batch
        finally:
            mine = self._listeners.get(player_id, set())
            mine.discard(me)
            if not mine:
                self._listeners.pop(player_id, None)

    def _heard(self, envelope: GameEvent) -> None:
        # a replayed dead letter of the bots is no news of the game (as the notifier); the
        # end of a room's game is told when the lobby has recorded it (`recorded`)
        if (
            envelope.batch_end
            and envelope.type != DEAD_TURN
            and self._listeners
            and not told_when_recorded(envelope)
        ):
            self._envelopes.put_nowait(envelope)

    def room_news(self, news: RoomNews) -> None:
        """A room's news for one player (the lobby's NEWS stream): told if they listen here."""
        for listener in list(self._listeners.get(news.player_id, ())):
            listener.tell(news)

    def recorded(self, envelope: GameEvent) -> None:
        """An envelope of the FINISHED stream: a room's game ended and the lobby recorded
        (and rated) it; its `game_finished` carries the rating changes."""
        if envelope.batch_end and self._listeners and told_when_recorded(envelope):
            self._envelopes.put_nowait(envelope)

    async def _derive(self) -> None:
        while True:
            envelope = await self._envelopes.get()
            try:
                await self._derive_one(envelope)
            except Exception:
                log.exception("news of %s v%d not derived", envelope.game_id, envelope.version)

    async def _derive_one(self, envelope: GameEvent) -> None:
        try:
            record = await self._svc.record(envelope.game_id)  # kept: one read per game
        except ProblemError:
            return  # not a game of this database
        people = {s.player_id for s in record.seats if s.bot is None}
        if self._pool is None or not people & self._listeners.keys():
            return
        facts = await read_facts(self._pool, envelope)
        if facts is not None:
            for note in notifications(envelope, facts):
                for listener in list(self._listeners.get(note.player_id, ())):
                    listener.tell(note)

    async def _sweep(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._kick.wait(), self._sweep_s)
            self._kick.clear()
            if not self._listeners or self._pool is None:
                continue
            try:
                await self._deadlines(self._pool)
            except Exception:
                log.exception("deadline_soon for /v1/me/stream not swept")

    async def _deadlines(self, pool: asyncpg.Pool) -> None:
        rows = await fetch_replanned(pool, _SOON, self._lead.total_seconds(), list(self._listeners))
        now = datetime.now(UTC)
        for row in rows:
            clocks = Clocks(
                game_id=row["game_id"],
                game=row["game"],
                version=row["version"],
                deadlines=deadlines_of(row["deadlines"]),
                overdue=row["overdue"],
                started=deadlines_of(row["started"]),
                since=row["waiting_since"],
            )
            for note in deadlines_soon(clocks, players_of(row["seats"]), now, self._lead):
                for listener in list(self._listeners.get(note.player_id, ())):
                    listener.tell(note)
