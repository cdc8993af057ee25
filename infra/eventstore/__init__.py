"""The event store port (api), its Postgres adapter and its in-memory twin."""

from infra.eventstore.api import (
    AppendResult,
    ConcurrencyError,
    EventStore,
    NewEvent,
    Snapshot,
    StoredEvent,
)

__all__ = ["AppendResult", "ConcurrencyError", "EventStore", "NewEvent", "Snapshot", "StoredEvent"]
