"""Streams port: consumer groups, ack after the effect, reclaim, dead-letter, safe trim."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import msgspec


class Message(msgspec.Struct, frozen=True, kw_only=True):
    stream: str
    id: str
    payload: bytes
    deliveries: int = 1  # how many times this entry was handed to a consumer of the group


class DeadLetter(msgspec.Struct, frozen=True, kw_only=True):
    """An entry of `<stream>:dead`: a message some group gave up on, and why."""

    id: str  # in the dead-letter stream
    stream: str  # where it came from
    original_id: str
    group: str
    deliveries: int
    reason: str
    payload: bytes


class Backlog(msgspec.Struct, frozen=True, kw_only=True):
    """What one group of a stream has yet to do: a gauge's worth, read now and then."""

    pending: int  # handed to a consumer, not acked yet
    lag: int | None  # not yet handed to any consumer of the group (None: Redis cannot tell)
    dead: int  # entries of `<stream>:dead` (every group's)


TAIL_COUNT = 100  # entries a read of a tail (Streams.tail) takes at most


def dead_letter_stream(stream: str) -> str:
    return f"{stream}:dead"


def entry_key(entry_id: str) -> tuple[int, int]:
    """A stream entry id ("1700000000000-3") as a sortable pair."""
    ms, _, seq = entry_id.partition("-")
    return int(ms), int(seq or 0)


class Streams(Protocol):
    async def publish(self, stream: str, payload: bytes) -> str: ...
    async def ensure_group(self, stream: str, group: str, start: str = "0") -> None: ...
    async def read(
        self, stream: str, group: str, consumer: str, count: int, block_ms: int
    ) -> list[Message]: ...
    async def ack(self, stream: str, group: str, *message_ids: str) -> None:
        """Acknowledge entries of the group (one round trip for them all)."""
        ...

    async def claim_stale(
        self, stream: str, group: str, consumer: str, min_idle_ms: int, count: int
    ) -> list[Message]: ...
    async def touch(self, stream: str, group: str, consumer: str, message_id: str) -> bool:
        """Keep a pending entry with `consumer` and reset its idle time without counting a
        delivery (so no one reclaims it while it is retried in place). False if the entry is
        no longer pending: someone else acked or dead-lettered it."""
        ...

    async def dead_letter(self, stream: str, group: str, message: Message, reason: str) -> None: ...
    async def dead_letters(
        self, stream: str, after: str = "0-0", count: int = 100
    ) -> list[DeadLetter]:
        """Up to `count` entries of `<stream>:dead` with ids after `after`, oldest first."""
        ...

    async def replay(self, stream: str, dead_id: str) -> str | None:
        """Publish a dead letter's payload to `stream` again and delete it from
        `<stream>:dead`, both or neither. The new entry's id; None if there is no such
        dead letter."""
        ...

    async def tail(self, stream: str, last_id: str, block_ms: int) -> list[Message]: ...
    async def latest_id(self, stream: str) -> str:
        """The id of the newest entry ("0-0" if none): a tail can start after it."""
        ...

    async def backlog(self, stream: str, group: str) -> Backlog:
        """How many entries `group` holds pending, has not read yet, and lie dead."""
        ...

    async def trim(self, stream: str, ignore: Sequence[str] = ()) -> int:
        """Drop the entries every group (but those in `ignore`) has read and acked."""
        ...

    async def close(self) -> None: ...
