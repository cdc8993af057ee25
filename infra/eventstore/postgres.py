"""Postgres event store through asyncpg (DESIGN.md, "Event store")."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import asyncpg
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
from infra.eventstore.batches import Batches, Pending, appended

COLUMNS = "stream_id, version, event_id, type, data::text AS data, metadata::text AS metadata, global_position, recorded_at"

# One statement, so one round trip and no explicit transaction: the expected version must
# exist (or be 0); the primary key rejects a version someone else already took. It returns
# only what the server adds: the events themselves are the caller's (sending their jsonb
# back as text was Postgres' work and ours for nothing). So an append's `data` is the bytes
# the caller gave, a read's jsonb's text: the same JSON, not the same bytes (key order,
# spaces, 1e16 read back as an integer); readers decode it with their event types.
_INSERT = """
INSERT INTO events (stream_id, version, event_id, type, data, metadata)
SELECT $1, $2 + n, e.event_id, e.type, e.data::jsonb, e.metadata::jsonb
FROM unnest($3::uuid[], $4::text[], $5::text[], $6::text[])
     WITH ORDINALITY AS e(event_id, type, data, metadata, n)
WHERE $2 = 0 OR EXISTS (SELECT 1 FROM events WHERE stream_id = $1 AND version = $2)
RETURNING version, global_position, recorded_at
"""

# The same insert, and the game's `turns` row replaced in the same statement: both or neither.
_INSERT_WITH_TURN = f"""
WITH ins AS ({_INSERT.strip()}),
turn AS (
    INSERT INTO turns (game_id, room_id, game, version, status, to_act, bots, deadlines,
                       overdue, next_deadline, waiting_since, fire_after, bot_sends,
                       bot_resend_at, started)
    SELECT $7::uuid, $8, $9, $2 + cardinality($3::uuid[]), $10, $11::int[], $12::jsonb,
           $13::jsonb, $15::int[], $14, now(), NULL, 0, NULL, $17::jsonb
    WHERE EXISTS (SELECT 1 FROM ins)
    ON CONFLICT (game_id) DO UPDATE SET
        version = EXCLUDED.version, status = EXCLUDED.status, to_act = EXCLUDED.to_act,
        bots = EXCLUDED.bots, deadlines = EXCLUDED.deadlines, overdue = EXCLUDED.overdue,
        next_deadline = EXCLUDED.next_deadline, started = EXCLUDED.started,
        waiting_since = CASE WHEN $16::bool THEN turns.waiting_since ELSE now() END,
        fire_after = CASE WHEN turns.next_deadline = EXCLUDED.next_deadline
                          THEN turns.fire_after END,
        bot_sends = CASE WHEN $16::bool THEN turns.bot_sends ELSE 0 END,
        bot_resend_at = CASE WHEN $16::bool THEN turns.bot_resend_at END
    WHERE turns.version < EXCLUDED.version
)
SELECT * FROM ins
"""

_metadata = msgspec.json.Decoder(dict[str, Any])


def stored_event(row: asyncpg.Record) -> StoredEvent:
    """A row of events (with data and metadata as text) as a StoredEvent."""
    return StoredEvent(
        stream_id=row["stream_id"],
        version=row["version"],
        event_id=row["event_id"],
        type=row["type"],
        data=row["data"].encode(),
        metadata=_metadata.decode(row["metadata"]),
        global_position=row["global_position"],
        recorded_at=row["recorded_at"],
    )


_bots = msgspec.json.Decoder(dict[str, str])
_deadlines = msgspec.json.Decoder(dict[str, datetime])


def turn_row(row: asyncpg.Record) -> TurnRow:
    """A row of turns (bots and deadlines as text) as a TurnRow."""
    return TurnRow(
        turn=Turn(
            game_id=row["game_id"],
            room_id=row["room_id"],
            game=row["game"],
            status=row["status"],
            to_act=list(row["to_act"]),
            bots=_bots.decode(row["bots"]),
            deadlines=_deadlines.decode(row["deadlines"]),
            overdue=list(row["overdue"]),
        ),
        version=row["version"],
        waiting_since=row["waiting_since"],
    )


class PostgresEventStore:
    """`lanes`: the appends of a game's move (its `turns` row beside) in flight at once go to
    Postgres together, in at most that many statements at a time (infra/eventstore/batches.py);
    0: each alone."""

    def __init__(self, pool: asyncpg.Pool, lanes: int = 1) -> None:
        self.pool = pool
        self.batches = Batches(pool, self._alone, lanes) if lanes > 0 else None

    async def append(
        self,
        stream_id: str,
        events: Sequence[NewEvent],
        expected_version: int,
        turn: Turn | None = None,
    ) -> AppendResult:
        if not events:
            raise ValueError("append needs at least one event")
        metadata = [msgspec.json.encode(e.metadata).decode() for e in events]
        if self.batches is not None and turn is not None and not turn.quiet:
            return await self.batches.append(stream_id, events, expected_version, turn, metadata)
        return await self._append(stream_id, events, expected_version, turn, metadata)

    async def _alone(self, p: Pending) -> AppendResult:
        return await self._append(p.stream_id, p.events, p.expected_version, p.turn, p.metadata)

    async def _append(
        self,
        stream_id: str,
        events: Sequence[NewEvent],
        expected_version: int,
        turn: Turn | None,
        metadata: list[str],
    ) -> AppendResult:
        args: list[Any] = [
            stream_id,
            expected_version,
            [e.event_id for e in events],
            [e.type for e in events],
            [e.data.decode() for e in events],
            metadata,
        ]
        statement = _INSERT
        if turn is not None:
            statement = _INSERT_WITH_TURN
            args += [
                turn.game_id,  # asyncpg parses a uuid's text itself, faster than uuid.UUID
                turn.room_id,
                turn.game,
                turn.status,
                turn.to_act,
                msgspec.json.encode(turn.bots).decode(),
                msgspec.json.encode(turn.deadlines).decode(),
                turn.next_deadline,
                turn.overdue,
                turn.quiet,
                msgspec.json.encode(turn.started).decode(),
            ]
        async with self.pool.acquire() as conn:
            try:
                rows = await conn.fetch(statement, *args)
                if not rows:  # the expected version is not in the stream
                    raise ConcurrencyError(
                        stream_id, expected_version, await self._version(conn, stream_id)
                    )
            except (asyncpg.UniqueViolationError, ConcurrencyError) as exc:
                # Whichever constraint fired first, a stored event_id means "already applied".
                stored = await self._find(conn, [e.event_id for e in events])
                if stored:
                    return AppendResult(version=stored[-1].version, events=stored, duplicate=True)
                if isinstance(exc, ConcurrencyError):
                    raise
                actual = await self._version(conn, stream_id)
                raise ConcurrencyError(stream_id, expected_version, actual) from exc
        added = {r["version"]: r for r in rows}
        return appended(stream_id, events, expected_version, metadata, added)

    async def read(
        self, stream_id: str, after: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        rows = await self.pool.fetch(
            f"SELECT {COLUMNS} FROM events WHERE stream_id = $1 AND version > $2 "
            "ORDER BY version LIMIT $3",
            stream_id,
            after,
            limit,
        )
        return [stored_event(r) for r in rows]

    async def turn(self, game_id: str) -> TurnRow | None:
        row = await self.pool.fetchrow(
            """SELECT game_id::text AS game_id, room_id, game, version, status, to_act,
                      bots::text AS bots, deadlines::text AS deadlines, overdue, waiting_since
               FROM turns WHERE game_id = $1""",
            uuid.UUID(game_id),
        )
        return turn_row(row) if row else None

    async def version(self, stream_id: str) -> int:
        async with self.pool.acquire() as conn:
            return await self._version(conn, stream_id)

    async def find(self, event_ids: Sequence[uuid.UUID]) -> list[StoredEvent]:
        async with self.pool.acquire() as conn:
            return await self._find(conn, event_ids)

    async def save_snapshot(self, snapshot: Snapshot) -> None:
        await self.pool.execute(
            """INSERT INTO snapshots (stream_id, version, schema_ver, state) VALUES ($1, $2, $3, $4)
               ON CONFLICT (stream_id) DO UPDATE
               SET version = EXCLUDED.version, schema_ver = EXCLUDED.schema_ver,
                   state = EXCLUDED.state, taken_at = now()
               WHERE snapshots.version <= EXCLUDED.version""",
            snapshot.stream_id,
            snapshot.version,
            snapshot.schema_ver,
            snapshot.state,
        )

    async def load_snapshot(self, stream_id: str) -> Snapshot | None:
        row = await self.pool.fetchrow(
            "SELECT stream_id, version, schema_ver, state FROM snapshots WHERE stream_id = $1",
            stream_id,
        )
        return Snapshot(**dict(row)) if row else None

    @staticmethod
    async def _version(conn: asyncpg.Connection, stream_id: str) -> int:
        v = await conn.fetchval(
            "SELECT coalesce(max(version), 0) FROM events WHERE stream_id = $1", stream_id
        )
        return int(v)

    @staticmethod
    async def _find(conn: asyncpg.Connection, event_ids: Sequence[uuid.UUID]) -> list[StoredEvent]:
        rows = await conn.fetch(
            f"SELECT {COLUMNS} FROM events WHERE event_id = ANY($1::uuid[]) ORDER BY stream_id, version",
            list(event_ids),
        )
        return [stored_event(r) for r in rows]
