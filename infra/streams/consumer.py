"""The consumer loop: reclaim stale entries, read new ones, ack after the effect, dead-letter.

An outage (`infra.servers.errors.is_transient`: Postgres or Redis away) is waited out in place, the
message held by this consumer: it is not redelivered and never counts towards
dead-lettering. Only a message that fails on its own content is left pending, handed
back after `min_idle_ms`, and moved to `<stream>:dead` after `max_deliveries`.

With a `key` (e.g. the game a command is for), messages of different keys are handled
concurrently and those of one key one after another in stream order, at most `concurrency`
read and not yet finished at once; each is acked when its own effect is done.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Awaitable, Callable, Hashable, Sequence

from infra.observability.metrics import DEADLETTERS, DEADLETTERS_WAITING, STREAM_LAG, STREAM_PENDING
from infra.servers.errors import backoff, is_transient
from infra.streams.api import Message, Streams

log = logging.getLogger(__name__)

Handler = Callable[[Message], Awaitable[None]]
Key = Callable[[Message], Hashable]  # messages of one key are handled in stream order
# Before a batch is handled (without a key): what the handler will need of the whole batch,
# read at once (the notifier's endpoints of the batch's games). A failure is only logged:
# the handler must do without it (read what it needs itself).
Prepare = Callable[[Sequence[Message]], Awaitable[None]]


LINGER_FULL = 4  # a batch of this many entries or more lingers the whole `linger_s`


class Consumer:
    """One consumer of one group. The handler's effect must be idempotent (at-least-once).

    `groups` names every group of the stream (contracts.streams.GROUPS); all are made
    before the first read, so a trim by this group never drops what another group, whose
    process has not started yet, is still to read.

    Without a `key` every message is handled in turn, a batch at a time, and the batch's
    handled messages are acked together (one XACK). With one, `run` keeps up to
    `concurrency` messages in flight (read, not yet acked or given up), one lane per key: a
    slow message holds back only the later ones of its own key.

    Stale entries (a dead consumer's) are looked for at most every `claim_every_s` (by
    default 1 s, or min_idle_ms when shorter) while reads bring news, and before every read
    once they come back empty: a busy consumer does not pay a claim per read for what
    happens only when a process dies.

    `prepare` (without a key) sees each batch before its messages are handled.

    With a key, handled messages are acked together: those handled within `ack_linger_s` of
    the first in one XACK.

    `retired`: groups the stream no longer has (contracts.streams.RETIRED_GROUPS), which
    its trims do not wait for.

    `linger_s` (without a key): after a batch shorter than `batch`, wait before the next
    read, so that what arrives meanwhile comes in one read and one XACK rather than one
    each: a quarter of `linger_s` after a batch of one, half after two, ... all of it after
    four or more. The busier the stream, the more the wait gathers; a quiet one (one entry
    at a time, each perhaps the answer to the last) waits little, and what arrives while the
    consumer waits in a read is handled at once.
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
        key: Key | None = None,
        concurrency: int = 1,
        claim_every_s: float | None = None,
        prepare: Prepare | None = None,
        linger_s: float = 0.0,
        retired: Sequence[str] = (),
        ack_linger_s: float = 0.002,
    ) -> None:
        self.streams, self.stream, self.group, self.name = streams, stream, group, name
        if prepare is not None and key is not None:
            raise ValueError("prepare sees whole batches: a consumer with a key has none")
        if linger_s and key is not None:
            raise ValueError("linger_s waits between batches: a consumer with a key has none")
        self.handler = handler
        self.prepare = prepare
        self.linger_s = linger_s
        self.groups = tuple(dict.fromkeys((group, *groups)))  # its own first, each once
        self.retired = tuple(retired)  # groups the stream once had: a trim passes them by
        self.max_deliveries = max_deliveries
        self.min_idle_ms = min_idle_ms
        self.block_ms = block_ms
        self.batch = batch
        self.start = start
        self.backoff_base, self.backoff_cap = backoff_base, backoff_cap
        self.key = key
        self.concurrency = max(1, concurrency)
        self._stopping = asyncio.Event()
        self._inflight: dict[str, asyncio.Task[None]] = {}  # message id -> its handling
        self._lanes: dict[Hashable, asyncio.Task[None]] = {}  # key -> its last handling
        self._freed = asyncio.Event()
        self._acks: list[Message] = []  # handled (keyed), their XACK to come
        self._acking: asyncio.Task[None] | None = None
        self.ack_linger_s = ack_linger_s
        # an entry is stale only after min_idle_ms: looking more often than that finds nothing
        self.claim_every_s = (
            min(1.0, min_idle_ms / 1000) if claim_every_s is None else claim_every_s
        )
        self._next_claim = 0.0

    def stop(self) -> None:
        self._stopping.set()

    async def run(self, trim_every: float = 60.0, probe_every: float = 5.0) -> None:
        """Consume until stopped. Broker errors are waited out with a growing pause, and the
        groups are made again when missing (Redis restarted without persistence, stream
        deleted). Every `probe_every` seconds the group's backlog is read into the gauges."""
        try:
            await self._loop(trim_every, probe_every)
        finally:  # stopped: let what is in flight finish (an outage wait ends at stop)
            await self._drain()

    async def _loop(self, trim_every: float, probe_every: float) -> None:
        loop = asyncio.get_running_loop()
        next_trim = loop.time() + trim_every
        next_probe = loop.time()
        grouped = False
        failures = 0
        while not self._stopping.is_set():
            try:
                if not grouped:
                    await self.ensure_groups()
                    grouped = True
                await (self.step() if self.key is None else self._pump())
                if loop.time() >= next_trim:  # drop what every group has acked, nothing more
                    next_trim = loop.time() + trim_every
                    await self.streams.trim(self.stream, ignore=self.retired)
                if loop.time() >= next_probe:
                    next_probe = loop.time() + probe_every
                    await self.probe()
                failures = 0
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the broker is away or hiccuped: wait, then go on
                grouped = grouped and "NOGROUP" not in str(exc)
                log.warning("%s/%s: consumer loop error: %r", self.stream, self.group, exc)
                await self._pause(backoff(failures, self.backoff_base, self.backoff_cap))
                failures += 1

    async def probe(self) -> None:
        """The group's pending entries, backlog and the stream's dead letters, as gauges
        (every consumer of the group sets the same values; Prometheus keeps the latest)."""
        try:
            backlog = await self.streams.backlog(self.stream, self.group)
        except Exception as exc:  # a probe never stops the consumer; the next read tells
            log.debug("%s/%s: backlog: %r", self.stream, self.group, exc)
            return
        STREAM_PENDING.labels(self.stream, self.group).set(backlog.pending)
        if backlog.lag is not None:
            STREAM_LAG.labels(self.stream, self.group).set(backlog.lag)
        DEADLETTERS_WAITING.labels(self.stream).set(backlog.dead)

    async def ensure_groups(self) -> None:
        """Make every group of the stream that is missing; the others start at its head."""
        for group in self.groups:
            start = self.start if group == self.group else "0"
            await self.streams.ensure_group(self.stream, group, start)

    async def step(self) -> int:
        """Handle one round: stale entries first, then new ones. Returns how many were handled.

        With a `key`, up to `concurrency` are read, their lanes run concurrently and the round
        waits for them all."""
        if self.key is None:
            messages = await self._fetch(self.batch)
            if messages and self.prepare is not None:
                try:
                    await self.prepare(messages)
                except Exception as exc:  # the handler reads for itself
                    log.warning("%s: preparing a batch failed: %r", self.stream, exc)
            handled = [m for m in messages if await self._handle(m)]  # in order
            if handled:
                ids = [m.id for m in handled]
                await self._through_outages(
                    handled[0], lambda: self.streams.ack(self.stream, self.group, *ids)
                )
            await self._linger(len(messages))
        else:
            room = max(1, self.concurrency - len(self._inflight))
            messages = await self._fetch(min(self.batch, room))
            started = self._dispatch(messages)
            if started:
                await asyncio.wait(started)
                if self._acking is not None:  # and their acks
                    await asyncio.gather(self._acking, return_exceptions=True)
        return len(messages)

    async def _fetch(self, count: int) -> list[Message]:
        loop = asyncio.get_running_loop()
        if loop.time() >= self._next_claim:
            self._next_claim = loop.time() + self.claim_every_s
            messages = await self.streams.claim_stale(
                self.stream, self.group, self.name, self.min_idle_ms, count
            )
            if messages:
                return messages
        messages = await self.streams.read(self.stream, self.group, self.name, count, self.block_ms)
        if not messages:
            self._next_claim = 0.0  # idle: look for stale entries before the next read
        return messages

    async def _pump(self) -> int:
        """Read as many as there is room for and start them, without waiting for them."""
        while len(self._inflight) >= self.concurrency:
            self._freed.clear()
            try:  # wake now and then to notice a stop
                await asyncio.wait_for(self._freed.wait(), self.block_ms / 1000)
            except TimeoutError:
                return 0
        messages = await self._fetch(min(self.batch, self.concurrency - len(self._inflight)))
        self._dispatch(messages)
        return len(messages)

    def _dispatch(self, messages: Sequence[Message]) -> list[asyncio.Task[None]]:
        """Start each message behind the last one of its key still in flight."""
        started = []
        for message in messages:
            if message.id in self._inflight:  # ours, still handled, claimed back as stale
                continue
            lane = self._lane(message)
            task = asyncio.create_task(self._in_turn(self._lanes.get(lane), message))
            self._lanes[lane] = task
            self._inflight[message.id] = task
            task.add_done_callback(functools.partial(self._finished, message=message, lane=lane))
            started.append(task)
        return started

    def _lane(self, message: Message) -> Hashable:
        assert self.key is not None
        try:
            return self.key(message)
        except Exception:  # unreadable: a lane of its own; the handler says what is wrong
            return ("message", message.id)

    async def _in_turn(self, before: asyncio.Task[None] | None, message: Message) -> None:
        if before is not None:
            await asyncio.wait([before])  # its outcome is its own; only the order matters
        if await self._handle(message):
            self._ack_soon(message)

    def _ack_soon(self, message: Message) -> None:
        """Ack a handled message with the others handled within `ack_linger_s`, in one XACK
        (a keyed consumer's lanes finish one by one: an XACK each was a round trip each).
        Its effect is done: a later ack only widens the window in which a crash would
        redeliver it, which every handler tolerates (at-least-once)."""
        self._acks.append(message)
        if self._acking is None or self._acking.done():
            self._acking = asyncio.create_task(self._flush_acks())

    async def _flush_acks(self) -> None:
        await asyncio.sleep(self.ack_linger_s)
        while self._acks:
            batch, self._acks = self._acks, []
            ids = [m.id for m in batch]

            def ack(ids: list[str] = ids) -> Awaitable[None]:
                return self.streams.ack(self.stream, self.group, *ids)

            try:
                await self._through_outages(batch[0], ack)
            except Exception as exc:  # left pending: handed back after min_idle_ms
                log.warning("%s/%s: acking %d: %r", self.stream, self.group, len(ids), exc)

    def _finished(self, task: asyncio.Task[None], *, message: Message, lane: Hashable) -> None:
        self._inflight.pop(message.id, None)
        if self._lanes.get(lane) is task:
            del self._lanes[lane]
        self._freed.set()
        if not task.cancelled() and (exc := task.exception()) is not None:
            # the broker failed an ack or a dead-letter: left pending, claimed back later
            log.warning("%s/%s: %s: %r", self.stream, self.group, message.id, exc)

    async def _drain(self) -> None:
        """Wait for the messages in flight, then their acks; cancelled, cancel them (left
        pending, redelivered)."""
        tasks = list(self._inflight.values())
        try:
            if tasks:
                await asyncio.gather(*tasks, return_exceptions=True)
            if self._acking is not None:
                tasks.append(self._acking)
                await asyncio.gather(self._acking, return_exceptions=True)
        except asyncio.CancelledError:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise

    async def handle(self, message: Message) -> None:
        """Handle one message and ack it (or dead-letter it, or leave it pending)."""
        if await self._handle(message):
            await self._through_outages(
                message, lambda: self.streams.ack(self.stream, self.group, message.id)
            )

    async def _handle(self, message: Message) -> bool:
        """Run the handler (through outages); whether the message is now to be acked. A
        message past `max_deliveries` is dead-lettered (nothing to ack); one whose handler
        failed is left pending: claim_stale hands it back after min_idle_ms."""
        if message.deliveries > self.max_deliveries:
            await self.streams.dead_letter(
                self.stream, self.group, message, f"failed {message.deliveries - 1} times"
            )
            DEADLETTERS.labels(self.stream, self.group).inc()
            log.error("%s/%s: %s dead-lettered", self.stream, self.group, message.id)
            return False
        try:
            return await self._through_outages(message, lambda: self.handler(message))
        except Exception:
            log.exception(
                "%s/%s: %s failed (delivery %d)",
                self.stream,
                self.group,
                message.id,
                message.deliveries,
            )
            return False

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

    async def _linger(self, read: int, weight: int | None = None) -> None:
        """After a short batch of `read` entries, let the next one gather (`linger_s`, by
        the batch's `weight`: its size, or what a subclass counts in it)."""
        weight = read if weight is None else weight
        if read and read < self.batch and weight and self.linger_s:
            await self._pause(self.linger_s * min(weight, LINGER_FULL) / LINGER_FULL)

    async def _pause(self, seconds: float) -> bool:
        """Sleep, waking at once when stopped. True if stopped."""
        try:
            await asyncio.wait_for(self._stopping.wait(), seconds)
        except TimeoutError:
            return False
        return True
