"""The consumer loop: reclaim stale entries, read new ones, ack after the effect, dead-letter.

An outage (`infra.errors.is_transient`: Postgres or Redis away) is waited out in place, the
message held by this consumer: it is not redelivered and never counts towards
dead-lettering. Only a message that fails on its own content is left pending, handed
back after `min_idle_ms`, and moved to `<stream>:dead` after `max_deliveries`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence

from infra.errors import backoff, is_transient
from infra.streams.api import Message, Streams

log = logging.getLogger(__name__)

Handler = Callable[[Message], Awaitable[None]]


class Consumer:
    """One consumer of one group. The handler's effect must be idempotent (at-least-once).

    `groups` names every group of the stream (contracts.streams.GROUPS); all are made
    before the first read, so a trim by this group never drops what another group, whose
    process has not started yet, is still to read.
    """

    def __init__(
        self,
        streams: Streams,
        stream: str,
        group: str,
        name: str,
        handler: Handler,
        *,
        groups: Sequence[str] = (),
        max_deliveries: int = 5,
        min_idle_ms: int = 30_000,
        block_ms: int = 1_000,
        batch: int = 32,
        start: str = "0",
        backoff_base: float = 0.1,
        backoff_cap: float = 10.0,
    ) -> None:
        self.streams, self.stream, self.group, self.name = streams, stream, group, name
        self.handler = handler
        self.groups = tuple(dict.fromkeys((group, *groups)))  # its own first, each once
        self.max_deliveries = max_deliveries
        self.min_idle_ms = min_idle_ms
        self.block_ms = block_ms
        self.batch = batch
        self.start = start
        self.backoff_base, self.backoff_cap = backoff_base, backoff_cap
        self._stopping = asyncio.Event()

    def stop(self) -> None:
        self._stopping.set()

    async def run(self, trim_every: float = 60.0) -> None:
        """Consume until stopped. Broker errors are waited out with a growing pause, and the
        groups are made again when missing (Redis restarted without persistence, stream
        deleted)."""
        loop = asyncio.get_running_loop()
        next_trim = loop.time() + trim_every
        grouped = False
        failures = 0
        while not self._stopping.is_set():
            try:
                if not grouped:
                    await self.ensure_groups()
                    grouped = True
                await self.step()
                if loop.time() >= next_trim:  # drop what every group has acked, nothing more
                    next_trim = loop.time() + trim_every
                    await self.streams.trim(self.stream)
                failures = 0
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the broker is away or hiccuped: wait, then go on
                grouped = grouped and "NOGROUP" not in str(exc)
                log.warning("%s/%s: consumer loop error: %r", self.stream, self.group, exc)
                await self._pause(backoff(failures, self.backoff_base, self.backoff_cap))
                failures += 1

    async def ensure_groups(self) -> None:
        """Make every group of the stream that is missing; the others start at its head."""
        for group in self.groups:
            start = self.start if group == self.group else "0"
            await self.streams.ensure_group(self.stream, group, start)

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
            handled = await self._through_outages(message, lambda: self.handler(message))
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
        if handled:
            await self._through_outages(
                message, lambda: self.streams.ack(self.stream, self.group, message.id)
            )

    async def _through_outages(
        self, message: Message, attempt: Callable[[], Awaitable[None]]
    ) -> bool:
        """Run `attempt`, retrying it in place while it fails for an outage. False if stopped
        first, or the entry is no longer ours (another consumer finished it); any other
        error is raised."""
        retries = 0
        while True:
            try:
                await attempt()
                return True
            except Exception as exc:
                if not is_transient(exc):
                    raise
                delay = self._delay(retries)
                log.warning(
                    "%s/%s: %s waits %.2fs out an outage (retry %d): %r",
                    self.stream,
                    self.group,
                    message.id,
                    delay,
                    retries + 1,
                    exc,
                )
            if await self._pause(delay) or not await self._still_ours(message):
                return False
            retries += 1

    async def _still_ours(self, message: Message) -> bool:
        """Reset the entry's idle time so no one reclaims it (and counts a delivery) while it
        is retried here; False if it is no longer pending."""
        try:
            return await self.streams.touch(self.stream, self.group, self.name, message.id)
        except Exception as exc:  # Redis is away too: the next attempt tells
            log.debug("%s/%s: touch %s: %r", self.stream, self.group, message.id, exc)
            return True

    def _delay(self, retries: int) -> float:
        delay = backoff(retries, self.backoff_base, self.backoff_cap)
        if self.min_idle_ms:  # touch well within min_idle_ms, before another consumer reclaims
            delay = min(delay, self.min_idle_ms / 2000)
        return delay

    async def _pause(self, seconds: float) -> bool:
        """Sleep, waking at once when stopped. True if stopped."""
        try:
            await asyncio.wait_for(self._stopping.wait(), seconds)
        except TimeoutError:
            return False
        return True
