"""A game service's tail of the games stream lets entries gather after a short read
(services/game/live.py, follow_stream): a busy stream in a few reads, every entry in order."""

from __future__ import annotations

import asyncio
import contextlib

import msgspec

from infra.streams.api import Message
from infra.streams.memory import MemoryStreams
from services.game.live import follow_stream


class Counting(MemoryStreams):
    def __init__(self) -> None:
        super().__init__()
        self.reads: list[int] = []

    async def tail(self, stream: str, last_id: str, block_ms: int) -> list[Message]:
        got = await super().tail(stream, last_id, block_ms)
        if got:
            self.reads.append(len(got))
        return got


async def _until(done: object, seconds: float = 5.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not done():  # type: ignore[operator]
        assert loop.time() < deadline
        await asyncio.sleep(0.005)


async def _follow(linger_s: float, apart: bool) -> tuple[list[int], list[int]]:
    """Publish 1, then (once it is heard) 2, 3, 4, 10 ms apart, or each once the last is
    heard."""
    streams = Counting()
    await streams.publish("s", b"0")  # before the tail: not heard
    heard: list[int] = []
    task = asyncio.create_task(
        follow_stream(streams, "s", msgspec.json.Decoder(int), heard.append, linger_s)
    )
    await asyncio.sleep(0.05)
    await streams.publish("s", b"1")
    await _until(lambda: heard == [1])
    for n in (2, 3, 4):
        await streams.publish("s", b"%d" % n)
        if apart:
            await _until(lambda n=n: heard[-1] == n)
        else:
            await asyncio.sleep(0.01)
    await _until(lambda: len(heard) == 4)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    return heard, streams.reads


async def test_entries_arriving_while_it_lingers_come_in_one_read() -> None:
    heard, reads = await _follow(linger_s=0.8, apart=False)  # 0.2 s after one entry
    assert heard == [1, 2, 3, 4]
    assert reads == [1, 3]


async def test_without_a_linger_each_entry_is_a_read() -> None:
    heard, reads = await _follow(linger_s=0.0, apart=True)
    assert heard == [1, 2, 3, 4]
    assert reads == [1, 1, 1, 1]
