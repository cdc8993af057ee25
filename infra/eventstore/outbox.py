"""Reading the events table as an outbox: only below the xmin horizon, with a checkpoint."""

from __future__ import annotations

from typing import Protocol

import asyncpg
import msgspec

from infra.eventstore.api import StoredEvent
from infra.eventstore.memory import MemoryEventStore
from infra.eventstore.postgres import stored_event


class Checkpoint(msgspec.Struct, frozen=True, kw_only=True):
    tx_id: int = 0
    global_position: int = 0


class Outbox(Protocol):
    async def batch(
        self, after: Checkpoint, limit: int
    ) -> list[tuple[Checkpoint, StoredEvent]]: ...
    async def load_checkpoint(self, consumer: str) -> Checkpoint: ...
    async def save_checkpoint(self, consumer: str, checkpoint: Checkpoint) -> None: ...


# Rows commit out of order: a transaction that took an earlier position may commit later.
# Below pg_snapshot_xmin every transaction has ended, so nothing can still appear there.
_BATCH = """
SELECT tx_id::text::bigint AS tx, stream_id, version, event_id, type, data::text AS data,
       metadata::text AS metadata, global_position, recorded_at
FROM events
WHERE (tx_id, global_position) > ($1::text::xid8, $2::bigint)
  AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
ORDER BY tx_id, global_position
LIMIT $3
"""


# The relay's: only the last event of each command (metadata `batch_end` anything but false,
# absent included: events of before it was written each ended theirs), without its data (an
# envelope never carries it: it may be private). The other events' rows never leave Postgres
# (writers put true or false; the relay's `publishes` still judges what comes). Its
# checkpoint is the last such event read; the rows it skipped after that one are skipped
# again next time.
_ENDS = _BATCH.replace("data::text AS data", "'' AS data").replace(
    "ORDER BY", "  AND metadata -> 'batch_end' IS DISTINCT FROM 'false'::jsonb\nORDER BY"
)


class PostgresOutbox:
    """Every event, with its data; `ends_only`: the relay's read (`_ENDS`), each command's
    last event alone, its data left out (b"")."""

    def __init__(self, conn: asyncpg.Connection, ends_only: bool = False) -> None:
        self.conn = conn
        self.query = _ENDS if ends_only else _BATCH

    async def batch(self, after: Checkpoint, limit: int) -> list[tuple[Checkpoint, StoredEvent]]:
        rows = await self.conn.fetch(self.query, str(after.tx_id), after.global_position, limit)
        return [
            (
                Checkpoint(tx_id=r["tx"], global_position=r["global_position"]),
                stored_event(r),
            )
            for r in rows
        ]

    async def load_checkpoint(self, consumer: str) -> Checkpoint:
        row = await self.conn.fetchrow(
            "SELECT tx_id::text::bigint AS tx, global_position FROM checkpoints WHERE consumer = $1",
            consumer,
        )
        return (
            Checkpoint(tx_id=row["tx"], global_position=row["global_position"])
            if row
            else Checkpoint()
        )

    async def save_checkpoint(self, consumer: str, checkpoint: Checkpoint) -> None:
        await self.conn.execute(
            """INSERT INTO checkpoints (consumer, tx_id, global_position)
               VALUES ($1, $2::text::xid8, $3)
               ON CONFLICT (consumer) DO UPDATE
               SET tx_id = EXCLUDED.tx_id, global_position = EXCLUDED.global_position,
                   updated_at = now()""",
            consumer,
            str(checkpoint.tx_id),
            checkpoint.global_position,
        )


class MemoryOutbox:
    """Every append is committed at once in memory, so the order is the global position."""

    def __init__(self, store: MemoryEventStore) -> None:
        self.store = store
        self.checkpoints: dict[str, Checkpoint] = {}

    async def batch(self, after: Checkpoint, limit: int) -> list[tuple[Checkpoint, StoredEvent]]:
        events = sorted(
            (e for e in self.store.by_id.values() if e.global_position > after.global_position),
            key=lambda e: e.global_position,
        )[:limit]
        return [(Checkpoint(global_position=e.global_position), e) for e in events]

    async def load_checkpoint(self, consumer: str) -> Checkpoint:
        return self.checkpoints.get(consumer, Checkpoint())

    async def save_checkpoint(self, consumer: str, checkpoint: Checkpoint) -> None:
        self.checkpoints[consumer] = checkpoint
