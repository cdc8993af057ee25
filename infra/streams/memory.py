"""In-memory streams with the same consumer-group semantics as Redis (for unit tests)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from infra.streams.api import Backlog, DeadLetter, Message, dead_letter_stream
from infra.streams.api import entry_key as _key


@dataclass
class _Pending:
    consumer: str
    since: float
    deliveries: int


@dataclass
class _Group:
    last: int = 0  # index into entries of the last delivered entry
    pending: dict[str, _Pending] = field(default_factory=dict)


@dataclass
class _Stream:
    entries: list[tuple[str, bytes]] = field(default_factory=list)
    groups: dict[str, _Group] = field(default_factory=dict)
    seq: int = 0
    trimmed: int = 0  # entries dropped from the head


class MemoryStreams:
    def __init__(self) -> None:
        self.streams: dict[str, _Stream] = {}
        self._dead: dict[tuple[str, str], DeadLetter] = {}  # (dead stream, id) -> what it was
        self._changed = asyncio.Condition()

    def _stream(self, name: str) -> _Stream:
        return self.streams.setdefault(name, _Stream())

    def _group(self, stream: str, group: str) -> _Group:
        groups = self._stream(stream).groups
        if group not in groups:  # as Redis answers
            raise RuntimeError(f"NOGROUP No such key '{stream}' or consumer group '{group}'")
        return groups[group]

    def delete(self, stream: str) -> None:
        """Drop a stream and its groups (as DEL does, or a Redis restart without data)."""
        self.streams.pop(stream, None)

    async def publish(self, stream: str, payload: bytes) -> str:
        s = self._stream(stream)
        s.seq += 1
        mid = f"{s.seq}-0"
        s.entries.append((mid, payload))
        async with self._changed:
            self._changed.notify_all()
        return mid

    async def ensure_group(self, stream: str, group: str, start: str = "0") -> None:
        s = self._stream(stream)
        if group not in s.groups:
            s.groups[group] = _Group(last=s.trimmed + len(s.entries) if start == "$" else 0)

    async def read(
        self, stream: str, group: str, consumer: str, count: int, block_ms: int
    ) -> list[Message]:
        s = self._stream(stream)
        g = self._group(stream, group)
        deadline = time.monotonic() + block_ms / 1000
        while g.last >= s.trimmed + len(s.entries):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return []
            async with self._changed:
                try:
                    await asyncio.wait_for(self._changed.wait(), remaining)
                except TimeoutError:
                    return []
        start = g.last - s.trimmed
        batch = s.entries[start : start + count]
        g.last += len(batch)
        now = time.monotonic()
        for mid, _ in batch:
            g.pending[mid] = _Pending(consumer=consumer, since=now, deliveries=1)
        return [Message(stream=stream, id=mid, payload=p) for mid, p in batch]

    async def ack(self, stream: str, group: str, *message_ids: str) -> None:
        pending = self._group(stream, group).pending
        for message_id in message_ids:
            pending.pop(message_id, None)

    async def claim_stale(
        self, stream: str, group: str, consumer: str, min_idle_ms: int, count: int
    ) -> list[Message]:
        s = self._stream(stream)
        g = self._group(stream, group)
        now = time.monotonic()
        payloads = dict(s.entries)
        out: list[Message] = []
        for mid, p in sorted(g.pending.items(), key=lambda kv: _key(kv[0])):
            if len(out) >= count:
                break
            if (now - p.since) * 1000 < min_idle_ms:
                continue
            if mid not in payloads:
                g.pending.pop(mid)
                continue
            p.consumer, p.since, p.deliveries = consumer, now, p.deliveries + 1
            out.append(
                Message(stream=stream, id=mid, payload=payloads[mid], deliveries=p.deliveries)
            )
        return out

    async def touch(self, stream: str, group: str, consumer: str, message_id: str) -> bool:
        pending = self._group(stream, group).pending.get(message_id)
        if pending is None:
            return False
        pending.consumer, pending.since = consumer, time.monotonic()
        return True

    async def dead_letter(self, stream: str, group: str, message: Message, reason: str) -> None:
        dead = dead_letter_stream(stream)
        dead_id = await self.publish(dead, message.payload)
        self._dead[dead, dead_id] = DeadLetter(
            id=dead_id,
            stream=stream,
            original_id=message.id,
            group=group,
            deliveries=message.deliveries,
            reason=reason,
            payload=message.payload,
        )
        await self.ack(stream, group, message.id)

    async def dead_letters(
        self, stream: str, after: str = "0-0", count: int = 100
    ) -> list[DeadLetter]:
        dead = dead_letter_stream(stream)
        return [
            self._dead[dead, mid]
            for mid, _ in self._stream(dead).entries
            if _key(mid) > _key(after) and (dead, mid) in self._dead
        ][:count]

    async def replay(self, stream: str, dead_id: str) -> str | None:
        dead = dead_letter_stream(stream)
        letter = self._dead.pop((dead, dead_id), None)
        if letter is None:
            return None
        s = self._stream(dead)
        at = next(i for i, (mid, _) in enumerate(s.entries) if mid == dead_id)
        del s.entries[at]  # as XDEL: groups reading the dead stream keep their place
        for g in s.groups.values():
            if g.last > s.trimmed + at:
                g.last -= 1
        return await self.publish(stream, letter.payload)

    async def tail(self, stream: str, last_id: str, block_ms: int) -> list[Message]:
        s = self._stream(stream)

        def after() -> list[Message]:
            if last_id == "$":
                return []
            return [
                Message(stream=stream, id=m, payload=p)
                for m, p in s.entries
                if _key(m) > _key(last_id)
            ]

        found = after()
        if found or block_ms <= 0:
            return found
        async with self._changed:
            try:
                await asyncio.wait_for(self._changed.wait(), block_ms / 1000)
            except TimeoutError:
                return []
        if last_id == "$":
            return [Message(stream=stream, id=m, payload=p) for m, p in s.entries[-1:]]
        return after()

    async def latest_id(self, stream: str) -> str:
        entries = self._stream(stream).entries
        return entries[-1][0] if entries else "0-0"

    async def backlog(self, stream: str, group: str) -> Backlog:
        s, g = self._stream(stream), self._group(stream, group)
        dead = len(self._stream(dead_letter_stream(stream)).entries)
        return Backlog(pending=len(g.pending), lag=s.trimmed + len(s.entries) - g.last, dead=dead)

    async def trim(self, stream: str, ignore: Sequence[str] = ()) -> int:
        s = self._stream(stream)
        groups = [g for name, g in s.groups.items() if name not in ignore]
        if not groups:
            return 0
        floor = min(
            min(
                (i for i, (m, _) in enumerate(s.entries) if m in g.pending),
                default=g.last - s.trimmed,
            )
            for g in groups
        )
        floor = max(0, min(floor, len(s.entries)))
        del s.entries[:floor]
        s.trimmed += floor
        return floor

    async def close(self) -> None:
        return None

    def length(self, stream: str) -> int:
        return len(self._stream(stream).entries)
