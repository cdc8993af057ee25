"""Streams port: consumer groups, ack after the effect, reclaim, dead-letter, safe trim."""

from __future__ import annotations

from typing import Protocol

import msgspec


class Message(msgspec.Struct, frozen=True, kw_only=True):
    stream: str
    id: str
    payload: bytes
    deliveries: int = 1  # how many times this entry was handed to a consumer of the group


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
    async def ack(self, stream: str, group: str, message_id: str) -> None: ...
    async def claim_stale(
        self, stream: str, group: str, consumer: str, min_idle_ms: int, count: int
    ) -> list[Message]: ...
    async def dead_letter(self, stream: str, group: str, message: Message, reason: str) -> None: ...
    async def tail(self, stream: str, last_id: str, block_ms: int) -> list[Message]: ...
    async def latest_id(self, stream: str) -> str:
        """The id of the newest entry ("0-0" if none): a tail can start after it."""
        ...

    async def trim(self, stream: str) -> int: ...
    async def close(self) -> None: ...
