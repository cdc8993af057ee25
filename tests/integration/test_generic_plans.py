"""The statements that read `events` by key keep reading it by key under the plan Postgres
keeps for them.

asyncpg prepares each statement once per connection, and Postgres then keeps a generic plan
for it, made when it was new: in a fresh database, `events` tiny and never analysed (nothing
makes Postgres plan again until the table is analysed, and with autovacuum off, as in CI, it
never is). Planned so, a statement over several games (an array of them) could hash a scan of
the whole table, as the group commit's version check did: 886-1,125 buffers a statement by
the end of a 20 s benchmark, three times the Postgres CPU a move. Each statement here is
planned generically against an empty `events` (a temporary table of the same shape hides the
real one) and must not scan it. The sweeps over `turns` by a range of deadlines cannot be
written so: they are planned afresh at every call."""

from __future__ import annotations

import asyncpg
import pytest

from infra.eventstore import batches, outbox
from infra.notify import facts
from infra.servers.db import sweep
from services.bots import observe
from services.game import news, scheduler
from services.lobby import ratings
from services.notifier import notifier

pytestmark = pytest.mark.integration

STATEMENTS = {
    "the group commit's append": (batches._BATCH, 19),
    "the relay's read": (outbox._BATCH_NO_DATA, 3),
    "the notifier's facts": (facts._FACTS, 2),
    "the bots' reads of many games": (observe._EVENTS_OF_MANY, 2),
    "the lobby's logs of finished games": (ratings.FINISHED_LOGS, 1),
}


@pytest.mark.parametrize("name", STATEMENTS)
async def test_a_statement_planned_on_a_young_table_still_reads_events_by_key(
    pool: asyncpg.Pool, name: str
) -> None:
    sql, params = STATEMENTS[name]
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute(
            "CREATE TEMP TABLE events (LIKE public.events INCLUDING ALL) ON COMMIT DROP"
        )
        await conn.execute("SET LOCAL plan_cache_mode = force_generic_plan")
        await conn.execute(f"PREPARE young AS {sql}")
        nulls = ", ".join(["NULL"] * params)
        plan = "\n".join(r[0] for r in await conn.fetch(f"EXPLAIN EXECUTE young({nulls})"))
        await conn.execute("DEALLOCATE young")
    assert "on events" in plan, plan  # the temporary table is the one planned
    assert "Seq Scan on events" not in plan, plan


# The sweeps over `turns` by a range of deadlines, which no plan made on a young table reads
# by index: each is planned afresh at every call (infra/servers/db.py's sweep).
SWEEPS: dict[str, tuple[str, list[object]]] = {
    "the scheduler's claim of due deadlines": (scheduler.FIRE_DUE, [64, 5.0]),
    "the scheduler's next deadline": (scheduler.NEXT_DEADLINE, ["active"]),
    "/v1/me/stream's deadline_soon": (news._SOON, [60.0, ["nobody"]]),
    "the notifier's deadline_soon": (notifier._SOON, [60.0, 64]),
}


@pytest.mark.parametrize("name", SWEEPS)
async def test_a_sweep_is_planned_for_the_tables_as_they_are_at_every_call(
    database_url: str, name: str
) -> None:
    sql, args = SWEEPS[name]
    one = await asyncpg.create_pool(database_url, min_size=1, max_size=1)
    try:
        for _ in range(8):  # Postgres weighs a generic plan from the sixth call on
            await sweep(one, sql, *args)
        async with one.acquire() as conn:
            row = await conn.fetchrow(
                "SELECT generic_plans, custom_plans FROM pg_prepared_statements"
                " WHERE statement = $1",
                sql,
            )
    finally:
        await one.close()
    assert row is not None and (row["generic_plans"], row["custom_plans"]) == (0, 8)
