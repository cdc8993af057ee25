"""In-memory event store for unit tests and the embedded mode (same contract as Postgres)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime

import msgspec

from infra.eventstore.api import (
    AppendResult,
    ConcurrencyError,
    NewEvent,
    Snapshot,
    StoredEvent,
    Turn,
    TurnRow,
)


class MemoryEventStore:
    def __init__(self) -> None:
        self.streams: dict[str, list[StoredEvent]] = {}
        self.by_id: dict[uuid.UUID, StoredEvent] = {}
        self.snapshots: dict[str, Snapshot] = {}
        self.turns: dict[str, TurnRow] = {}
        self.position = 0
        self._lock = asyncio.Lock()

    async def append(
        self,
        stream_id: str,
        events: Sequence[NewEvent],
        expected_version: int,
        turn: Turn | None = None,
    ) -> AppendResult:
        async with self._lock:
            if events and events[0].event_id in self.by_id:
                earlier = await self.find([e.event_id for e in events])
                return AppendResult(version=earlier[-1].version, events=earlier, duplicate=True)
            stream = self.streams.setdefault(stream_id, [])
            if len(stream) != expected_version:
                raise ConcurrencyError(stream_id, expected_version, len(stream))
            if any(e.event_id in self.by_id for e in events):
                raise ValueError("event ids of one append must be new together")
            now = datetime.now(UTC)
            out = []
            for i, e in enumerate(events):
                self.position += 1
                stored = StoredEvent(
                    stream_id=stream_id,
                    version=expected_version + i + 1,
                    event_id=e.event_id,
                    type=e.type,
                    data=e.data,
                    # as Postgres keeps it: JSON's own types (a UUID as its string)
                    metadata=msgspec.json.decode(msgspec.json.encode(e.metadata)),
                    global_position=self.position,
                    recorded_at=now,
                )
                out.append(stored)
            stream.extend(out)
            self.by_id.update({e.event_id: e for e in out})
            if turn is not None:
                was = self.turns.get(turn.game_id)
                since = was.waiting_since if turn.quiet and was is not None else now
                self.turns[turn.game_id] = TurnRow(
                    turn=turn, version=len(stream), waiting_since=since
                )
            return AppendResult(version=len(stream), events=out, duplicate=False)

    async def read(
        self, stream_id: str, after: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        events = self.streams.get(stream_id, [])[after:]
        return events[:limit] if limit is not None else list(events)

    async def turn(self, game_id: str) -> TurnRow | None:
        return self.turns.get(game_id)

    async def version(self, stream_id: str) -> int:
        return len(self.streams.get(stream_id, []))

    async def find(self, event_ids: Sequence[uuid.UUID]) -> list[StoredEvent]:
        found = [self.by_id[i] for i in event_ids if i in self.by_id]
        return sorted(found, key=lambda e: (e.stream_id, e.version))

    async def save_snapshot(self, snapshot: Snapshot) -> None:
        current = self.snapshots.get(snapshot.stream_id)
        if current is None or current.version <= snapshot.version:
            self.snapshots[snapshot.stream_id] = snapshot

    async def load_snapshot(self, stream_id: str) -> Snapshot | None:
        return self.snapshots.get(stream_id)
