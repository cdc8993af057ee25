"""What a game service process remembers of each game: the latest state it knows, a few earlier
ones and the last stored events, and when the store last confirmed them; and whether a read
may be answered from that memory without asking the store."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import msgspec

from games.table import TableState
from infra.eventstore import StoredEvent
from services.game.live import Waiters

# Engine states kept per game (the cached one's predecessors, one per command that changed
# it), so a move against a recent version is judged without a replay. A simultaneous phase is
# at most twelve commands (six Footprints seats choose a leader and a card each), and a seat's
# choice may come after all ten of the others' (and a few clock commands): 8 was too few. They
# share most of their structure: under 1 KB each beside the current state. A command that
# leaves the engine's state as it was (a chat message) takes no place of its own: the state's
# span of versions grows (`Span`), so no one's chatter pushes a seat's version out.
RECENT_STATES = 16


class Span(NamedTuple):
    """An engine state and the versions it stood at, first to last, each seen."""

    first: int
    last: int
    state: Any


def kept(spans: tuple[Span, ...], version: int, state: Any) -> tuple[Span, ...]:
    """`spans` with the state seen at `version` (after every version they hold): the last
    span grows when it is the same state at the version after it, else a span begins."""
    if spans and spans[-1].state is state and spans[-1].last == version - 1:
        return (*spans[:-1], spans[-1]._replace(last=version))
    return (*spans, Span(version, version, state))[-RECENT_STATES:]


def state_at(spans: tuple[Span, ...], version: int) -> Any | None:
    """The engine state at `version`, if a kept span holds it."""
    return next((s.state for s in spans if s.first <= version <= s.last), None)


# A read that says what it has seen is answered from memory only within this long of the store
# last confirming the cached version (a read, an append): the games stream tells of other
# replicas' appends within milliseconds while the relay and Redis work, and if they do not,
# a client's reads lag by at most this much.
MEMORY_TRUSTED_S = 2.0


# Stored events kept per cached game, so an event feed that has just read the store answers
# with the events before it from memory (a feed is mostly a few events behind). Stored events
# never change: only whether there are newer ones needs the store.
RECENT_EVENTS = 16


class Cached(msgspec.Struct, kw_only=True):
    version: int
    state: Any
    table: TableState
    recent: tuple[Span, ...] = ()  # a few earlier engine states and their versions
    events: tuple[StoredEvent, ...] = ()  # the last few stored events, ending at `version`
    confirmed: float = 0.0  # time.monotonic() when the store last said `version` was its latest


class Memory:
    """The games a process holds in memory (an LRU of `cache_size`), as the service's base."""

    _cache: OrderedDict[str, Cached]
    _cache_size: int
    clock: Callable[[], float]
    waiters: Waiters

    def read_needed(self, game_id: str, min_version: int | None) -> bool:
        """Whether a read that has seen `min_version` (the client's newest; None: not said)
        must ask the store: not when the cache is at least that recent and this process was
        told of nothing newer, by its own appends or the games stream (`_behind`), and the store
        confirmed the cached version within MEMORY_TRUSTED_S. The client then sees its own
        moves and never goes back, as a read would give; it may miss a move of another replica
        within the relay's lag (milliseconds; while the relay or Redis is down, up to
        MEMORY_TRUSTED_S), as if it had read a moment sooner."""
        if min_version is None:
            return True
        cached = self._cache.get(game_id)
        return (
            cached is None
            or cached.version < min_version
            or self._behind(game_id)
            or self.clock() - cached.confirmed > MEMORY_TRUSTED_S  # the news may have stopped
        )

    def _behind(self, game_id: str) -> bool:
        """Whether the cached state may be older than the game's latest version this process
        was told of (or it was not told the version, or holds no state)."""
        cached = self._cache.get(game_id)
        known = self.waiters.known(game_id)
        return cached is None or known is None or cached.version < known

    def _recent_events(
        self, game_id: str, after: int, upto: int, limit: int
    ) -> list[StoredEvent] | None:
        """The stored events in (after, upto] from memory, at most `limit`; None when memory
        does not hold them all."""
        if after >= upto:
            return []
        cached = self._cache.get(game_id)
        events = cached.events if cached is not None else ()
        if not events or events[0].version > after + 1 or events[-1].version < upto:
            return None
        return [e for e in events if after < e.version <= upto][:limit]

    def _remember(
        self,
        game_id: str,
        version: int,
        state: Any,
        table: TableState,
        passed: Sequence[tuple[int, Any]] = (),
        events: Sequence[StoredEvent] = (),
        *,
        confirmed: float,
    ) -> None:
        """The game at `version`; `events`: the stored events that led there from the cached
        version (kept while they join on to those kept before); `confirmed`: when the store
        was asked what said `version` was the latest (before the read or the append went
        out: a move committed while it was on the way is younger than that)."""
        cached = self._cache.get(game_id)
        if cached is not None and cached.version > version:
            return
        recent: tuple[Span, ...] = ()
        stored: tuple[StoredEvent, ...] = ()
        if cached is not None:
            recent = cached.recent
            if cached.version < version:
                recent = kept(recent, cached.version, cached.state)
            stored = cached.events
        for at, was in passed:
            if at < version and (not recent or at > recent[-1].last):
                recent = kept(recent, at, was)
        if events and (not stored or stored[-1].version != events[0].version - 1):
            stored = ()  # a gap: only the new ones join
        stored = (*stored, *events)[-RECENT_EVENTS:]
        if stored and stored[-1].version != version:
            stored = ()
        self._cache[game_id] = Cached(
            version=version,
            state=state,
            table=table,
            recent=recent,
            events=stored,
            confirmed=confirmed,
        )
        self._cache.move_to_end(game_id)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
