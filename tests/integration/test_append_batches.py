"""Games' appends in flight at once go to Postgres in one statement (infra/eventstore/
batches.py), and each still gets the answer it would have had alone: its events at its
versions with their positions, its game's `turns` row, a ConcurrencyError when its stream
moved on, the earlier result when it was applied before; none waits on another of its own
stream, and the other games' appends of a failed statement land."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta

import asyncpg
import pytest

from infra.eventstore import ConcurrencyError, NewEvent
from infra.eventstore.api import Turn, command_uuid, event_ids
from infra.eventstore.postgres import PostgresEventStore

pytestmark = pytest.mark.integration


def events(command: str, n: int = 2) -> list[NewEvent]:
    return [
        NewEvent(event_id=i, type=f"t{k}", data=b'{"k": %d}' % k, metadata={"k": k})
        for k, i in enumerate(event_ids(command_uuid(command), n))
    ]


def game() -> tuple[str, str]:
    game_id = str(uuid.uuid4())
    return f"game-{game_id}", game_id


def turn(game_id: str, to_act: list[int], **kw: object) -> Turn:
    fields: dict[str, object] = {"bots": {}, "deadlines": {}} | kw
    return Turn(
        game_id=game_id, room_id=None, game="itty-bitty", status="active", to_act=to_act,
        **fields,  # type: ignore[arg-type]
    )  # fmt: skip


class Counting(PostgresEventStore):
    """Counts the appends that went alone (a batch of one, or again after a failed batch)."""

    def __init__(self, pool: asyncpg.Pool, lanes: int = 1) -> None:
        super().__init__(pool, lanes)
        self.alone = 0

    async def _alone(self, p):  # type: ignore[no-untyped-def]
        self.alone += 1
        return await super()._alone(p)


async def test_appends_of_many_games_at_once_land_together_as_each_would_alone(
    pool: asyncpg.Pool,
) -> None:
    store = Counting(pool)
    games = [game() for _ in range(12)]
    for s, g in games:  # each game's first command, one by one
        await store.append(s, events(s + "0", 1), 0, turn(g, [0]))
    assert store.alone == 12
    deadline = datetime.now(UTC).replace(microsecond=0) + timedelta(hours=1)
    clock = {"deadlines": {"1": deadline}, "started": {"1": deadline - timedelta(days=1)}}
    results = await asyncio.gather(
        *(store.append(s, events(s + "1", 2), 1, turn(g, [1], **clock)) for s, g in games)
    )
    assert store.alone == 12, "the twelve went in one statement"
    for (s, g), result in zip(games, results, strict=True):
        assert (result.version, result.duplicate) == (3, False)
        stored = await store.read(s)
        assert [e.version for e in stored] == [1, 2, 3]
        assert [(e.event_id, e.global_position, e.recorded_at) for e in stored[1:]] == [
            (e.event_id, e.global_position, e.recorded_at) for e in result.events
        ]
        assert result.events[1].metadata == {"k": 1}
        row = await pool.fetchrow(
            "SELECT version, to_act, deadlines::text, started::text, next_deadline FROM turns"
            " WHERE game_id = $1",
            uuid.UUID(g),
        )
        assert (row["version"], row["to_act"], row["next_deadline"]) == (3, [1], deadline)
        assert deadline.isoformat()[:19] in row["deadlines"] and row["started"] != "{}"
    # one game after another by stream (the order every process locks them in), each game's
    # events in their versions' order
    by_stream = sorted(zip(games, results, strict=True), key=lambda gr: gr[0][0])
    positions = [e.global_position for _, r in by_stream for e in r.events]
    assert positions == sorted(positions)


async def test_a_stale_append_is_refused_alone_and_the_others_of_its_statement_land(
    pool: asyncpg.Pool,
) -> None:
    store = Counting(pool)
    (s1, g1), (s2, g2), (s3, g3) = game(), game(), game()
    for s, g in ((s1, g1), (s2, g2), (s3, g3)):
        await store.append(s, events(s + "0"), 0, turn(g, [0]))
    store.alone = 0
    got = await asyncio.gather(
        store.append(s1, events(s1 + "1"), 2, turn(g1, [1])),
        store.append(s2, events(s2 + "1"), 1, turn(g2, [1])),  # the stream is at 2: stale
        store.append(s3, events(s3 + "1"), 2, turn(g3, [1])),
        return_exceptions=True,
    )
    assert [getattr(r, "version", None) for r in got] == [4, None, 4]
    assert isinstance(got[1], ConcurrencyError) and got[1].actual == 2
    assert store.alone == 1  # the stale one, alone again for its answer
    assert await pool.fetchval("SELECT version FROM turns WHERE game_id = $1", uuid.UUID(g2)) == 2


async def test_a_command_applied_before_is_answered_alone_with_its_earlier_result(
    pool: asyncpg.Pool,
) -> None:
    """Retried at the version it took (the next is taken): left out of the statement. Retried
    at the stream's latest version (its client read again): its event ids are taken, which
    rolls the statement back: each of its appends again alone, the other game's landing."""
    store = Counting(pool)
    (s1, g1), (s2, g2) = game(), game()
    await store.append(s1, events(s1 + "0"), 0, turn(g1, [0]))
    await store.append(s2, events(s2 + "0"), 0, turn(g2, [0]))
    first = await store.append(s1, events(s1 + "1"), 2, turn(g1, [1]))
    # (the retry's expected version, game 2's command, the appends that went alone)
    for retried_at, command, alone in ((2, "1", 1), (6, "2", 2)):
        if retried_at == 6:
            await store.append(s1, events(s1 + "2"), 4, turn(g1, [0]))  # the game moves on
        store.alone = 0
        mine = await store.version(s2)
        again, other = await asyncio.gather(
            store.append(s1, events(s1 + "1"), retried_at, turn(g1, [1])),
            store.append(s2, events(s2 + command), mine, turn(g2, [1])),
        )
        assert again.duplicate and again.events == first.events
        assert (other.version, other.duplicate) == (mine + 2, False)
        assert store.alone == alone
    assert [e.version for e in await store.read(s1)] == [1, 2, 3, 4, 5, 6]
    assert [e.version for e in await store.read(s2)] == [1, 2, 3, 4, 5, 6]


async def test_a_games_next_append_waits_for_its_last_not_for_a_statement_of_its_own(
    pool: asyncpg.Pool,
) -> None:
    """Two commands of one game in flight (the second after the first, as a seat's two
    choices): never in one statement, so the second is judged on the first's result."""
    store = Counting(pool)
    (s1, g1), (s2, g2) = game(), game()
    await store.append(s1, events(s1 + "0"), 0, turn(g1, [0]))
    await store.append(s2, events(s2 + "0"), 0, turn(g2, [0]))
    store.alone = 0
    a, b, c = await asyncio.gather(
        store.append(s1, events(s1 + "1"), 2, turn(g1, [0])),
        store.append(s1, events(s1 + "2"), 4, turn(g1, [1])),
        store.append(s2, events(s2 + "1"), 2, turn(g2, [1])),
    )
    assert (a.version, b.version, c.version) == (4, 6, 4)
    assert store.alone == 1  # the second of the game after the statement of the others
    assert [e.version for e in await store.read(s1)] == [1, 2, 3, 4, 5, 6]
    assert await pool.fetchval("SELECT version FROM turns WHERE game_id = $1", uuid.UUID(g1)) == 6


async def test_another_process_taking_a_version_first_is_a_concurrency_error_as_alone(
    pool: asyncpg.Pool,
) -> None:
    ours, theirs = Counting(pool), PostgresEventStore(pool, lanes=0)
    (s1, g1), (s2, g2) = game(), game()
    await ours.append(s1, events(s1 + "0"), 0, turn(g1, [0]))
    await ours.append(s2, events(s2 + "0"), 0, turn(g2, [0]))
    await theirs.append(s1, events(s1 + "x", 1), 2, turn(g1, [1]))  # version 3 is theirs
    got = await asyncio.gather(
        ours.append(s1, events(s1 + "1"), 2, turn(g1, [1])),
        ours.append(s2, events(s2 + "1"), 2, turn(g2, [1])),
        return_exceptions=True,
    )
    assert isinstance(got[0], ConcurrencyError) and got[0].actual == 3
    assert getattr(got[1], "version", None) == 4
    assert [e.version for e in await ours.read(s1)] == [1, 2, 3]


async def test_a_writer_cancelled_before_it_ran_leaves_no_append_waiting(
    pool: asyncpg.Pool,
) -> None:
    store = Counting(pool)
    assert store.batches is not None
    s1, g1 = game()
    first = asyncio.create_task(store.append(s1, events(s1 + "0"), 0, turn(g1, [0])))
    await asyncio.sleep(0)  # the append waits; its writer is made, not yet begun
    [writer] = store.batches.writers
    writer.cancel()
    assert (await asyncio.wait_for(first, 10)).version == 2  # another writer took it
    s2, g2 = game()
    assert (await asyncio.wait_for(store.append(s2, events(s2), 0, turn(g2, [0])), 10)).version == 2


async def test_a_writer_cancelled_mid_statement_answers_its_own_and_the_next_go_on(
    pool: asyncpg.Pool,
) -> None:
    """The statement of game 1 held by a lock on its `turns` row; its writer cancelled (the
    process stopping): game 1's caller is told, game 2's append waiting meanwhile lands."""
    store = Counting(pool)
    assert store.batches is not None
    (s1, g1), (s2, g2) = game(), game()
    await store.append(s1, events(s1 + "0"), 0, turn(g1, [0]))
    async with pool.acquire() as holder, holder.transaction():
        await holder.execute("SELECT 1 FROM turns WHERE game_id = $1 FOR UPDATE", uuid.UUID(g1))
        held = asyncio.create_task(store.append(s1, events(s1 + "1"), 2, turn(g1, [1])))
        await asyncio.sleep(0.3)  # its statement waits on the lock
        waiting = asyncio.create_task(store.append(s2, events(s2 + "0"), 0, turn(g2, [0])))
        await asyncio.sleep(0)
        [writer] = store.batches.writers
        writer.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(held, 10)
    assert (await asyncio.wait_for(waiting, 10)).version == 2
    assert [e.version for e in await store.read(s1)] == [1, 2]  # rolled back with its statement


class LostReply:
    """A pool whose connections lose the batch statement's reply after it committed."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    def acquire(self) -> LostReply:
        return self

    async def __aenter__(self) -> LostReply:
        self.held = self.pool.acquire()
        self.conn = await self.held.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.held.__aexit__(*exc)

    async def fetch(self, query: str, *args: object) -> list[asyncpg.Record]:
        await self.conn.fetch(query, *args)
        raise asyncpg.ConnectionDoesNotExistError(
            "connection was closed in the middle of operation"
        )


async def test_a_statement_that_may_have_committed_is_told_to_its_callers_not_tried_again(
    pool: asyncpg.Pool,
) -> None:
    """As a single append whose connection is lost: the callers hear of the loss (the game
    service then reads the store), rather than each trying again and finding itself stored,
    answered as a retry of a command the client sent once."""
    store = Counting(pool)
    assert store.batches is not None
    (s1, g1), (s2, g2) = game(), game()
    for s, g in ((s1, g1), (s2, g2)):
        await store.append(s, events(s + "0"), 0, turn(g, [0]))
    store.batches.pool = LostReply(pool)  # type: ignore[assignment]
    store.alone = 0
    got = await asyncio.gather(
        store.append(s1, events(s1 + "1"), 2, turn(g1, [1])),
        store.append(s2, events(s2 + "1"), 2, turn(g2, [1])),
        return_exceptions=True,
    )
    assert all(isinstance(r, asyncpg.ConnectionDoesNotExistError) for r in got), got
    assert store.alone == 0
    assert [e.version for e in await store.read(s1)] == [1, 2, 3, 4]  # it had committed


async def test_new_games_first_appends_land_together(pool: asyncpg.Pool) -> None:
    """Expected version 0, no event yet: the version check passes them (a check that needed
    a last version would send each alone)."""
    store = Counting(pool)
    games = [game() for _ in range(8)]
    results = await asyncio.gather(
        *(store.append(s, events(s + "0"), 0, turn(g, [0])) for s, g in games)
    )
    assert [r.version for r in results] == [2] * 8
    assert store.alone == 0, "all eight in one statement (the writer starts after they came)"
