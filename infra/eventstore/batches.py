"""Appends of several games in one statement (group commit): what one process has in flight
at a moment goes to Postgres together, so the transaction, its WAL flush, the round trip and
the statement's own work are paid once for all of them rather than once each.

No append waits for another's: while fewer than `lanes` statements are in flight one goes out
at once, alone (the single append's own statement); only what comes while they are all busy
waits, and goes out with the rest in the next. A batch holds at most one append per stream,
none of a stream in flight (a second waits: it may depend on the first), in the streams' order
(so two processes' statements lock games in one order). Each append's version check is its
own: one whose expected version is not its stream's is left out, and the others land; the
server refusing the statement (a unique key: another process took the version, or the command
was applied before) rolls it back whole, and each of its appends is tried again alone, which
gives it the answer it would have had alone (ConcurrencyError, the earlier result, the error).
A statement that may have committed (the connection lost, a timeout) is not tried again: each
caller gets the error, as a single append's would."""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, NamedTuple

import asyncpg
import msgspec

from infra.eventstore.api import AppendResult, NewEvent, StoredEvent, Turn
from infra.observability.metrics import APPEND_BATCH

MAX_BATCH = 64  # appends in one statement

# $1-$6 the events (each append's in order, one after another), $7-$8 each append's stream and
# expected version, $9-$19 the rest of each append's turns row. The version check: the stream's
# last version (0: none) is the expected one, so the expected version exists (or is 0) and the
# next one is not taken yet (a stale append is left out, not the statement's undoing). It is
# read from the primary key's end, newest first, one game at a time (LATERAL ... LIMIT 1), a
# plan Postgres keeps whatever the table's size when it planned: a semi-join was hashed over a
# whole young `events` table and, the plan kept for the connection's life, scanned all of it
# at every statement as it grew. The turns row only where the events went in, as the single
# append's when not `quiet` (a quiet append, a word of chat, goes alone).
_BATCH = """
WITH ok AS (
    SELECT s.stream_id
    FROM unnest($7::text[], $8::bigint[]) AS s(stream_id, expected)
    LEFT JOIN LATERAL (
        SELECT x.version FROM events x WHERE x.stream_id = s.stream_id
        ORDER BY x.version DESC LIMIT 1
    ) last ON true
    WHERE coalesce(last.version, 0) = s.expected
),
ins AS (
    INSERT INTO events (stream_id, version, event_id, type, data, metadata)
    SELECT e.stream_id, e.version, e.event_id, e.type, e.data::jsonb, e.metadata::jsonb
    FROM unnest($1::text[], $2::bigint[], $3::uuid[], $4::text[], $5::text[], $6::text[])
         WITH ORDINALITY AS e(stream_id, version, event_id, type, data, metadata, n)
    WHERE e.stream_id IN (SELECT stream_id FROM ok)
    ORDER BY e.n
    RETURNING stream_id, version, global_position, recorded_at
),
turn AS (
    INSERT INTO turns (game_id, room_id, game, version, status, to_act, bots, deadlines,
                       overdue, next_deadline, waiting_since, fire_after, bot_sends,
                       bot_resend_at, started)
    SELECT t.game_id, t.room_id, t.game, t.version, t.status, t.to_act::int[],
           t.bots::jsonb, t.deadlines::jsonb, t.overdue::int[], t.next_deadline, now(),
           NULL, 0, NULL, t.started::jsonb
    FROM unnest($7::text[], $9::uuid[], $10::text[], $11::text[], $12::bigint[],
                $13::text[], $14::text[], $15::text[], $16::text[], $17::text[],
                $18::timestamptz[], $19::text[])
         AS t(stream_id, game_id, room_id, game, version, status, to_act, bots, deadlines,
              overdue, next_deadline, started)
    WHERE t.stream_id IN (SELECT stream_id FROM ins)
    ON CONFLICT (game_id) DO UPDATE SET
        version = EXCLUDED.version, status = EXCLUDED.status, to_act = EXCLUDED.to_act,
        bots = EXCLUDED.bots, deadlines = EXCLUDED.deadlines, overdue = EXCLUDED.overdue,
        next_deadline = EXCLUDED.next_deadline, started = EXCLUDED.started,
        waiting_since = now(),
        fire_after = CASE WHEN turns.next_deadline = EXCLUDED.next_deadline
                          THEN turns.fire_after END,
        bot_sends = 0, bot_resend_at = NULL
    WHERE turns.version < EXCLUDED.version
)
SELECT * FROM ins
"""


class Pending(NamedTuple):
    """One append waiting for its statement."""

    stream_id: str
    events: Sequence[NewEvent]
    expected_version: int
    turn: Turn
    metadata: list[str]  # each event's, as JSON text
    done: asyncio.Future[AppendResult]


def _ints(values: Sequence[int]) -> str:
    return "{" + ",".join(str(v) for v in values) + "}"


_encode = msgspec.json.encode
_metadata = msgspec.json.Decoder(dict[str, Any])


class Batches:
    """The appends of one process, grouped (see the module's docstring). `alone` is the
    single append's own path: a batch of one, and each append of a batch that failed."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        alone: Callable[[Pending], Awaitable[AppendResult]],
        lanes: int = 1,
    ) -> None:
        self.pool = pool
        self.alone = alone
        self.lanes = lanes
        self.waiting: list[Pending] = []
        self.writing = 0  # writers running: counted down by each as it finds nothing waiting
        self.writers: set[asyncio.Task[None]] = set()  # referenced while they run
        self.flying: set[str] = set()  # the streams of the statements in flight

    async def append(
        self,
        stream_id: str,
        events: Sequence[NewEvent],
        expected_version: int,
        turn: Turn,
        metadata: list[str],
    ) -> AppendResult:
        loop = asyncio.get_running_loop()
        done: asyncio.Future[AppendResult] = loop.create_future()
        # an outcome nobody awaits any more (its caller was cancelled) is not an error to log
        done.add_done_callback(lambda f: f.cancelled() or f.exception())
        self.waiting.append(Pending(stream_id, events, expected_version, turn, metadata, done))
        if self.writing < self.lanes:
            self._start(loop)
        return await asyncio.shield(done)  # a caller gone leaves the append to finish

    def _start(self, loop: asyncio.AbstractEventLoop) -> None:
        self.writing += 1
        ran: list[bool] = []  # the writer's first step came (it counts itself down then)
        # a context of its own: not the trace and log fields of the request that began it
        writer = loop.create_task(self._write(ran), context=contextvars.Context())
        self.writers.add(writer)
        writer.add_done_callback(lambda task: self._ended(task, ran))

    def _ended(self, writer: asyncio.Task[None], ran: list[bool]) -> None:
        """A writer is done. One cancelled before its first step never counted itself down;
        one stopped short (cancelled, an error) may leave appends waiting with no writer to
        take them: another does, so no caller waits for ever."""
        self.writers.discard(writer)
        if not ran:
            self.writing -= 1
        loop = writer.get_loop()
        if self.waiting and self.writing < self.lanes and not loop.is_closed():
            self._start(loop)

    async def _write(self, ran: list[bool]) -> None:
        ran.append(True)
        try:
            while batch := self._take():
                APPEND_BATCH.observe(len(batch))
                self.flying.update(p.stream_id for p in batch)
                try:
                    if len(batch) == 1:
                        await self._settle(batch[0], self.alone(batch[0]))
                    else:
                        await self._together(batch)
                except BaseException as exc:  # cancelled: the process is stopping
                    _tell(batch, exc)  # whatever stopped the writer, its callers are answered
                    raise
                finally:
                    self.flying.difference_update(p.stream_id for p in batch)
        finally:
            # no await since nothing was found to take: an append that comes next sees this
            # writer gone and starts one (a count kept by the done callbacks would lag)
            self.writing -= 1

    def _take(self) -> list[Pending]:
        """Up to MAX_BATCH of the waiting appends, one per stream and none of a stream in
        flight (its next append waits for its last), ordered by stream: every process's
        statements then lock the games' rows in one order, and never deadlock each other."""
        batch: list[Pending] = []
        streams = set(self.flying)
        kept: list[Pending] = []
        for p in self.waiting:
            if len(batch) < MAX_BATCH and p.stream_id not in streams:
                batch.append(p)
                streams.add(p.stream_id)
            else:
                kept.append(p)
        self.waiting = kept
        return sorted(batch, key=lambda p: p.stream_id)

    @staticmethod
    async def _settle(p: Pending, work: Awaitable[AppendResult]) -> None:
        try:
            result = await work
        except BaseException as exc:
            if not p.done.done():
                p.done.set_exception(exc)
            if isinstance(exc, asyncio.CancelledError):
                raise
            return
        if not p.done.done():
            p.done.set_result(result)

    async def _together(self, batch: list[Pending]) -> None:
        try:
            async with self.pool.acquire() as conn:
                rows = await conn.fetch(_BATCH, *_arguments(batch))
        except Exception as exc:
            if isinstance(exc, asyncpg.PostgresError) and not isinstance(exc, _UNSURE):
                # Refused by the server, so rolled back whole (a unique key, a value Postgres
                # refuses, a deadlock): each alone, for the answer it would have had alone.
                await asyncio.gather(*(self._settle(p, self.alone(p)) for p in batch))
            else:
                _tell(batch, exc)
            return
        added: dict[str, dict[int, asyncpg.Record]] = {}
        for r in rows:
            added.setdefault(r["stream_id"], {})[r["version"]] = r
        left = []
        for p in batch:
            mine = added.get(p.stream_id)
            if mine is None:
                left.append(p)
            elif not p.done.done():
                p.done.set_result(
                    appended(p.stream_id, p.events, p.expected_version, p.metadata, mine)
                )
        # each whose expected version was not its stream's: alone, for why
        await asyncio.gather(*(self._settle(p, self.alone(p)) for p in left))


# The connection lost, the server stopping it, a timeout: the statement may have committed, as
# a single append may have. Each caller is told so, as a single append's would be (it then
# reads the store), not tried again and answered as a duplicate of itself.
_UNSURE = (asyncpg.PostgresConnectionError, asyncpg.exceptions.OperatorInterventionError)


def _tell(batch: list[Pending], exc: BaseException) -> None:
    for p in batch:
        if not p.done.done():
            p.done.set_exception(exc)


def _arguments(batch: list[Pending]) -> list[Any]:
    streams: list[str] = []
    versions: list[int] = []
    ids: list[Any] = []
    types: list[str] = []
    data: list[str] = []
    metadata: list[str] = []
    for p in batch:
        for i, e in enumerate(p.events):
            streams.append(p.stream_id)
            versions.append(p.expected_version + 1 + i)
            ids.append(e.event_id)
            types.append(e.type)
            data.append(e.data.decode())
        metadata += p.metadata
    turns = [p.turn for p in batch]
    return [
        streams,
        versions,
        ids,
        types,
        data,
        metadata,
        [p.stream_id for p in batch],
        [p.expected_version for p in batch],
        [t.game_id for t in turns],
        [t.room_id for t in turns],
        [t.game for t in turns],
        [p.expected_version + len(p.events) for p in batch],
        [t.status for t in turns],
        [_ints(t.to_act) for t in turns],
        [_encode(t.bots).decode() for t in turns],
        [_encode(t.deadlines).decode() for t in turns],
        [_ints(t.overdue) for t in turns],
        [t.next_deadline for t in turns],
        [_encode(t.started).decode() for t in turns],
    ]


def appended(
    stream_id: str,
    events: Sequence[NewEvent],
    expected_version: int,
    metadata: list[str],
    added: Mapping[int, Mapping[str, Any]],
) -> AppendResult:
    """The result of an append that went in: its events as a read gives them (`added`: the
    server's position and time by version)."""
    out = [
        StoredEvent(
            stream_id=stream_id,
            version=version,
            event_id=e.event_id,
            type=e.type,
            data=e.data,
            metadata=_metadata.decode(meta),  # as a read gives it: JSON's own types
            global_position=added[version]["global_position"],
            recorded_at=added[version]["recorded_at"],
        )
        for version, e, meta in zip(
            range(expected_version + 1, expected_version + 1 + len(events)),
            events,
            metadata,
            strict=True,
        )
    ]
    return AppendResult(version=out[-1].version, events=out, duplicate=False)
