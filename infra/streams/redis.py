"""Redis streams adapter (redis-py asyncio)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import ResponseError, WatchError

from infra.streams.api import TAIL_COUNT, Backlog, DeadLetter, Message, dead_letter_stream
from infra.streams.api import entry_key as _key


def _s(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class RedisStreams:
    def __init__(self, client: aioredis.Redis) -> None:
        self.r = client

    @classmethod
    def from_url(cls, url: str) -> RedisStreams:
        # Blocking reads last up to a few seconds: the socket timeout must be well above that.
        return cls(aioredis.Redis.from_url(url, socket_timeout=30, socket_connect_timeout=5))

    async def publish(self, stream: str, payload: bytes) -> str:
        return _s(await self.r.xadd(stream, {b"m": payload}))

    async def ensure_group(self, stream: str, group: str, start: str = "0") -> None:
        try:
            await self.r.xgroup_create(stream, group, id=start, mkstream=True)
        except ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise

    async def read(
        self, stream: str, group: str, consumer: str, count: int, block_ms: int
    ) -> list[Message]:
        reply: Any = await self.r.xreadgroup(
            group, consumer, {stream: ">"}, count=count, block=block_ms
        )
        return [
            Message(stream=stream, id=_s(mid), payload=fields.get(b"m", b""))
            for _, entries in reply or []
            for mid, fields in entries
            if fields is not None
        ]

    async def ack(self, stream: str, group: str, *message_ids: str) -> None:
        if message_ids:
            await self.r.xack(stream, group, *message_ids)

    async def claim_stale(
        self, stream: str, group: str, consumer: str, min_idle_ms: int, count: int
    ) -> list[Message]:
        reply = await self.r.xautoclaim(stream, group, consumer, min_idle_ms, "0-0", count=count)
        claimed = reply[1] if reply else []
        out: list[Message] = []
        for mid, fields in claimed:
            if fields is None:  # deleted by a trim while pending: nothing to redo
                await self.r.xack(stream, group, mid)
                continue
            pending = await self.r.xpending_range(stream, group, min=mid, max=mid, count=1)
            deliveries = int(pending[0]["times_delivered"]) if pending else 1
            out.append(
                Message(
                    stream=stream, id=_s(mid), payload=fields.get(b"m", b""), deliveries=deliveries
                )
            )
        return out

    async def touch(self, stream: str, group: str, consumer: str, message_id: str) -> bool:
        # XCLAIM with JUSTID resets the idle time and leaves the delivery count alone
        claimed = await self.r.xclaim(stream, group, consumer, 0, [message_id], justid=True)
        return bool(claimed)

    async def dead_letter(self, stream: str, group: str, message: Message, reason: str) -> None:
        fields = {
            b"m": message.payload,
            b"stream": stream,
            b"group": group,
            b"id": message.id,
            b"deliveries": str(message.deliveries),
            b"reason": reason[:2000],
        }
        async with self.r.pipeline(transaction=True) as pipe:
            pipe.xadd(dead_letter_stream(stream), fields)  # type: ignore[arg-type]
            pipe.xack(stream, group, message.id)
            await pipe.execute()

    async def dead_letters(
        self, stream: str, after: str = "0-0", count: int = 100
    ) -> list[DeadLetter]:
        entries: Any = await self.r.xrange(
            dead_letter_stream(stream), min=_next_id(after), max="+", count=count
        )
        return [_dead_letter(stream, _s(mid), fields) for mid, fields in entries]

    async def replay(self, stream: str, dead_id: str) -> str | None:
        dead = dead_letter_stream(stream)
        async with self.r.pipeline(transaction=True) as pipe:
            while True:
                try:  # WATCH: two replays of one dead letter publish it once
                    await pipe.watch(dead)
                    found: Any = await pipe.xrange(dead, min=dead_id, max=dead_id)
                    if not found:
                        return None
                    pipe.multi()  # type: ignore[no-untyped-call]
                    pipe.xadd(stream, {b"m": found[0][1].get(b"m", b"")})
                    pipe.xdel(dead, dead_id)
                    new_id, _ = await pipe.execute()
                    return _s(new_id)
                except WatchError:  # the dead stream changed meanwhile: look again
                    continue

    async def tail(self, stream: str, last_id: str, block_ms: int) -> list[Message]:
        reply: Any = await self.r.xread({stream: last_id}, block=block_ms, count=TAIL_COUNT)
        return [
            Message(stream=stream, id=_s(mid), payload=fields.get(b"m", b""))
            for _, entries in reply or []
            for mid, fields in entries
        ]

    async def latest_id(self, stream: str) -> str:
        newest: Any = await self.r.xrevrange(stream, count=1)
        return _s(newest[0][0]) if newest else "0-0"

    async def backlog(self, stream: str, group: str) -> Backlog:
        async with self.r.pipeline(transaction=False) as pipe:
            pipe.xpending(stream, group)
            pipe.xinfo_groups(stream)
            pipe.xlen(dead_letter_stream(stream))
            summary, groups, dead = await pipe.execute()
        lag = next((g.get("lag") for g in groups if _s(g["name"]) == group), None)
        return Backlog(
            pending=int(summary["pending"]) if summary else 0,
            lag=None if lag is None else int(lag),
            dead=int(dead),
        )

    async def trim(self, stream: str, ignore: Sequence[str] = ()) -> int:
        """Trim entries every group has read and acked; never drop unread or pending ones.
        Groups named in `ignore` (retired) are not waited for."""
        try:
            groups = await self.r.xinfo_groups(stream)
        except ResponseError:
            return 0
        if not groups:
            return 0
        floor: str | None = None
        for g in groups:
            name = _s(g["name"])
            if name in ignore:
                continue
            summary = await self.r.xpending(stream, name)
            oldest = _s(summary["min"]) if summary and summary.get("pending") else None
            last = _s(g["last-delivered-id"])
            # keep everything from the oldest pending entry, or after the last delivered one
            bound = oldest if oldest else _next_id(last)
            if floor is None or _key(bound) < _key(floor):
                floor = bound
        if floor is None:
            return 0
        return int(await self.r.xtrim(stream, minid=floor, approximate=False))

    async def close(self) -> None:
        await self.r.aclose()


def _dead_letter(stream: str, dead_id: str, fields: dict[bytes, bytes]) -> DeadLetter:
    return DeadLetter(
        id=dead_id,
        stream=_s(fields.get(b"stream", stream)),
        original_id=_s(fields.get(b"id", b"")),
        group=_s(fields.get(b"group", b"")),
        deliveries=int(fields.get(b"deliveries", b"0")),
        reason=_s(fields.get(b"reason", b"")),
        payload=fields.get(b"m", b""),
    )


def _next_id(mid: str) -> str:
    ms, seq = _key(mid)
    return f"{ms}-{seq + 1}"
