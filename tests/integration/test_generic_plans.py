"""The statements that read `events` by key keep reading it by key under the plan Postgres
keeps for them.

asyncpg prepares each statement once per connection, and Postgres then keeps a generic plan
for it, made when it was new: in a fresh database, `events` tiny and never analysed (nothing
makes Postgres plan again until the table is analysed, and with autovacuum off, as in CI, it
never is). Planned so, a statement over several games (an array of them) could hash a scan of
the whole table, as the group commit's version check did: 886-1,125 buffers a statement by
the end of a benchmark's 15 s window, three times the Postgres CPU a move. Each statement here is
planned generically against an empty `events` (a temporary table of the same shape hides the
real one) and must find its rows through an index condition on the game's stream, not scan
the table or every entry of an index. The sweeps over `turns` by a range of deadlines cannot be
written so: they are planned afresh at every call."""

from __future__ import annotations

import re
from typing import Any

import asyncpg
import pytest

from infra.eventstore import batches, outbox
from infra.notify import facts
from infra.servers.db import fetch_replanned
from infra.settings import Settings
from services.bots import observe
from services.game import news, scheduler
from services.lobby import ratings
from services.notifier import notifier

pytestmark = pytest.mark.integration

STATEMENTS = {
    "the group commit's append": (batches._BATCH, 19),
    "the relay's read": (outbox._ENDS, 3),
    "the notifier's facts": (facts._FACTS, 2),
    "the bots' reads of many games": (observe._EVENTS_OF_MANY, 2),
    "the lobby's logs of finished games": (ratings.FINISHED_LOGS, 1),
}


def keyed(plan: str) -> bool:
    """Whether every scan of `events` (or of one of its indexes) in the plan is bounded by a
    game's stream (or, for the relay, by the transaction order): an index condition on
    `stream_id` or `tx_id`, not a filter applied to every row or index entry it reads."""
    nodes: list[list[str]] = []
    for line in plan.splitlines():
        if "->" in line or not nodes:
            nodes.append([line])
        else:
            nodes[-1].append(line)
    scans = [n for n in nodes if re.search(r"Scan.* on events\b|Scan on events_", n[0])]
    for node in scans:
        conditions = [ln for ln in node if "Index Cond:" in ln or "Recheck Cond:" in ln]
        if not any("stream_id" in c or "tx_id" in c for c in conditions):
            return False
    return bool(scans)


def test_keyed_tells_a_scan_of_every_entry_from_a_lookup() -> None:
    lookup = """Index Only Scan Backward using events_pkey on events x  (cost=0.15..12.18)
      Index Cond: (stream_id = s.stream_id)"""
    every_entry = """Nested Loop Left Join
  ->  Bitmap Heap Scan on events e  (cost=4.18..12.64 rows=4 width=8)
        Recheck Cond: (version = $2)
        ->  Bitmap Index Scan on events_pkey  (cost=0.00..4.18 rows=4 width=0)
              Index Cond: (version = $2)"""
    assert keyed(lookup)
    assert not keyed(every_entry)
    assert not keyed("Seq Scan on events  (cost=0.00..14.00 rows=400 width=40)")
    assert not keyed("Result  (cost=0.00..0.01 rows=1 width=4)")  # no events at all


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
    assert keyed(plan), plan


# The sweeps over `turns` by a range of deadlines, which no plan made on a young table reads
# by index: each is planned afresh at every call (infra/servers/db.py's fetch_replanned).
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
            await fetch_replanned(one, sql, *args)
        async with one.acquire() as conn:
            row = await conn.fetchrow(
                "SELECT generic_plans, custom_plans FROM pg_prepared_statements"
                " WHERE statement = $1",
                sql,
            )
    finally:
        await one.close()
    assert row is not None and (row["generic_plans"], row["custom_plans"]) == (0, 8)


async def test_the_sweeps_call_sites_plan_afresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each sweep goes through fetch_replanned, not a pooled connection's kept plan."""
    asked: list[str] = []

    async def spy(pool: object, query: str, *args: object) -> list[object]:
        asked.append(query)
        return [[None]] if query == scheduler.NEXT_DEADLINE else []

    for module in (scheduler, news, notifier):
        monkeypatch.setattr(module, "fetch_replanned", spy)

    async def publish(_: object) -> None:
        raise AssertionError("nothing is due")

    nowhere: Any = object()  # no pool, no service: the spy answers for them
    assert await scheduler.fire_due(nowhere, publish, 5.0) == 0
    assert await scheduler.seconds_to_next_deadline(nowhere) == scheduler.MAX_SLEEP_S
    await news.PlayerNews(nowhere, None, lead_s=60, sweep_s=15)._deadlines(nowhere)
    assert await notifier.Notifier(nowhere, nowhere, Settings()).deadlines() == 0
    assert asked == [scheduler.FIRE_DUE, scheduler.NEXT_DEADLINE, news._SOON, notifier._SOON]
