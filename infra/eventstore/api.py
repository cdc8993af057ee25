"""Event store port: append with expected version, idempotent by event_id, snapshots."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from hashlib import sha1
from random import getrandbits
from typing import Any, Protocol

import msgspec

COMMAND_NAMESPACE = uuid.UUID("8f3a6c1e-7b51-4f0e-9a55-2d1f4c7e9b10")


class NewEvent(msgspec.Struct, frozen=True, kw_only=True):
    event_id: uuid.UUID
    type: str
    data: bytes  # JSON
    metadata: dict[str, Any] = {}


class StoredEvent(msgspec.Struct, frozen=True, kw_only=True):
    stream_id: str
    version: int
    event_id: uuid.UUID
    type: str
    data: bytes
    metadata: dict[str, Any]
    global_position: int
    recorded_at: datetime


class AppendResult(msgspec.Struct, frozen=True, kw_only=True):
    version: int  # the stream's version after this append (or after the original one)
    events: list[StoredEvent]
    duplicate: bool  # the command had already been applied: nothing was appended


class Snapshot(msgspec.Struct, frozen=True, kw_only=True):
    stream_id: str
    version: int
    schema_ver: int
    state: bytes


class Turn(msgspec.Struct, frozen=True, kw_only=True):
    """The `turns` projection row of a game after an append: who must act, and by when."""

    game_id: str
    room_id: str | None
    game: str
    status: str
    to_act: list[int]
    bots: dict[str, str]  # seats in to_act that a bot plays -> level
    deadlines: dict[str, datetime]  # seat -> deadline of each running clock
    started: dict[str, datetime] = {}  # seat -> when each running clock's turn began
    overdue: list[int] = []  # seats past their deadline under policy `wait`: not fired again
    # an append that changes nothing of who must act or by when (a word of table chat): the
    # row's timers (waiting since, the bot turns' resends) stay as they were
    quiet: bool = False

    @property
    def next_deadline(self) -> datetime | None:
        """The earliest deadline still to fire."""
        due = [d for s, d in self.deadlines.items() if int(s) not in self.overdue]
        return min(due, default=None)


class TurnRow(msgspec.Struct, frozen=True, kw_only=True):
    """A stored `turns` row."""

    turn: Turn
    version: int
    waiting_since: datetime


class ConcurrencyError(Exception):
    """The stream moved on: `actual` is its current version."""

    def __init__(self, stream_id: str, expected: int, actual: int) -> None:
        super().__init__(f"{stream_id}: expected version {expected}, stream is at {actual}")
        self.stream_id = stream_id
        self.expected = expected
        self.actual = actual


def event_ids(command_id: uuid.UUID, count: int) -> list[uuid.UUID]:
    """event_id = uuid5(command_id, index): a retried command collides with itself.

    uuid.uuid5's own steps, with the UUID made from its 128 bits as uuid.UUID makes it
    at the end of its checks: half the time (tests/unit/test_eventstore_ids.py holds
    them equal to uuid.uuid5's)."""
    base = command_id.bytes
    return [
        _uuid_of(int.from_bytes(sha1(base + b"%d" % i).digest()[:16], "big") & _VERSIONED | _V5)
        for i in range(count)
    ]


_VERSIONED = ~(0xF000 << 64) & ~(0xC000 << 48)  # the version and variant bits cleared
_V5 = (5 << 76) | (0x8000 << 48)  # version 5, RFC 4122's variant
_V4 = (4 << 76) | (0x8000 << 48)
_new_uuid = uuid.UUID.__new__
_set = object.__setattr__


def _uuid_of(value: int) -> uuid.UUID:
    """The UUID of these 128 bits, whose version and variant are set (uuid.UUID's slots)."""
    made = _new_uuid(uuid.UUID)
    _set(made, "int", value)
    _set(made, "is_safe", uuid.SafeUUID.unknown)
    return made


def random_command_id() -> uuid.UUID:
    """A version 4 UUID from the process's Mersenne Twister, not the kernel: a command's id
    names it, it protects nothing (a client cannot choose it, and an Idempotency-Key's id
    is the player's own, command_uuid), and os.urandom cost a system call a move. random
    reseeds after a fork, so workers do not repeat each other (as infra/context's ids)."""
    return _uuid_of(getrandbits(128) & _VERSIONED | _V4)


def command_uuid(*parts: str) -> uuid.UUID:
    return uuid.uuid5(COMMAND_NAMESPACE, ":".join(parts))


class EventStore(Protocol):
    async def append(
        self,
        stream_id: str,
        events: Sequence[NewEvent],
        expected_version: int,
        turn: Turn | None = None,
    ) -> AppendResult:
        """Append at expected_version + 1...; ConcurrencyError if the stream is elsewhere.

        If the first event_id is already stored, nothing is appended and the events stored
        under those ids are returned with duplicate=True. `turn` replaces the game's `turns`
        row in the same transaction as the events, or not at all.
        """
        ...

    async def turn(self, game_id: str) -> TurnRow | None: ...

    async def read(
        self, stream_id: str, after: int = 0, limit: int | None = None
    ) -> list[StoredEvent]: ...
    async def version(self, stream_id: str) -> int: ...
    async def find(self, event_ids: Sequence[uuid.UUID]) -> list[StoredEvent]: ...
    async def save_snapshot(self, snapshot: Snapshot) -> None: ...
    async def load_snapshot(self, stream_id: str) -> Snapshot | None: ...
