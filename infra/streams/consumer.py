"""The consumer loop: reclaim stale entries, read new ones, ack after the effect, dead-letter."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from infra.streams.api import Message, Streams

log = logging.getLogger(__name__)

Handler = Callable[[Message], Awaitable[None]]


class Consumer:
    """One consumer of one group. The handler's effect must be idempotent (at-least-once)."""

    def __init__(
        self,
        streams: Streams,
        stream: str,
        group: str,
        name: str,
        handler: Handler,
        *,
        max_deliveries: int = 5,
        min_idle_ms: int = 30_000,
        block_ms: int = 1_000,
        batch: int = 32,
        start: str = "0",
    ) -> None:
        self.streams, self.stream, self.group, self.name = streams, stream, group, name
        self.handler = handler
        self.max_deliveries = max_deliveries
        self.min_idle_ms = min_idle_ms
        self.block_ms = block_ms
        self.batch = batch
        self.start = start
        self._stopping = asyncio.Event()

    def stop(self) -> None:
        self._stopping.set()

    async def run(self, trim_every: float = 60.0) -> None:
        """Consume until stopped. Broker errors are retried forever, and the group is made
        again when it is missing (Redis restarted without persistence, stream deleted)."""
        loop = asyncio.get_running_loop()
        next_trim = loop.time() + trim_every
        grouped = False
        while not self._stopping.is_set():
            try:
                if not grouped:
                    await self.streams.ensure_group(self.stream, self.group, self.start)
                    grouped = True
                await self.step()
                if loop.time() >= next_trim:  # drop what every group has acked, nothing more
                    next_trim = loop.time() + trim_every
                    await self.streams.trim(self.stream)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the broker hiccuped: wait, then go on
                grouped = grouped and "NOGROUP" not in str(exc)
                log.warning("%s/%s: consumer loop error: %r", self.stream, self.group, exc)
                await asyncio.sleep(1)

    async def step(self) -> int:
        """Handle one round: stale entries first, then new ones. Returns how many were handled."""
        messages = await self.streams.claim_stale(
            self.stream, self.group, self.name, self.min_idle_ms, self.batch
        )
        if not messages:
            messages = await self.streams.read(
                self.stream, self.group, self.name, self.batch, self.block_ms
            )
        for message in messages:  # in order; stop reading new ones once asked to stop
            await self.handle(message)
        return len(messages)

    async def handle(self, message: Message) -> None:
        if message.deliveries > self.max_deliveries:
            await self.streams.dead_letter(
                self.stream, self.group, message, f"failed {message.deliveries - 1} times"
            )
            log.error("%s/%s: %s dead-lettered", self.stream, self.group, message.id)
            return
        try:
            await self.handler(message)
        except asyncio.CancelledError:
            raise
        except Exception:
            # left pending: claim_stale hands it back after min_idle_ms, up to max_deliveries
            log.exception(
                "%s/%s: %s failed (delivery %d)",
                self.stream,
                self.group,
                message.id,
                message.deliveries,
            )
            return
        await self.streams.ack(self.stream, self.group, message.id)
