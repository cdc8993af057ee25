"""Metrics of the processes without HTTP, against real Postgres and Redis: each serves them on
its METRICS_PORT; a group's pending entries, backlog and dead letters; the scheduler's
lateness; a prefork worker's children counted through the client's multiprocess mode."""

from __future__ import annotations

import asyncio
import json
import secrets
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import msgspec
import pytest
import redis.asyncio as aioredis
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from contracts.streams import ClockTimeout
from infra.settings import Settings
from infra.streams import Message
from infra.streams.consumer import Consumer
from infra.streams.redis import RedisStreams
from services.bots import dispatcher
from services.bots.dispatcher import BotTurn
from services.game import scheduler
from services.notifier import notifier
from tests.integration.tables import game_service, new_game
from tests.integration.test_bot_queues import Table, started
from tests.integration.test_bot_queues import table as table
from tests.integration.test_observability import closed_port


def value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def samples(text: str, name: str) -> list[Any]:
    return [s for f in text_string_to_metric_families(text) for s in f.samples if s.name == name]


async def scrape(port: int, until: Callable[[str], bool], seconds: float = 20) -> str:
    """The page on :port/metrics once `until` holds of it (or the last one seen)."""
    text = ""
    deadline = asyncio.get_running_loop().time() + seconds
    async with httpx.AsyncClient() as client:
        while asyncio.get_running_loop().time() < deadline:
            try:
                text = (await client.get(f"http://127.0.0.1:{port}/metrics")).text
                if until(text):
                    return text
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.1)
    return text


@pytest.fixture
def settings(database_url: str, redis_url: str, stream_prefix: str) -> Settings:
    return Settings(
        database_url=database_url,
        redis_url=redis_url,
        secret=secrets.token_urlsafe(48),
        stream_prefix=f"{stream_prefix}mp-{uuid.uuid4().hex[:6]}:",
    )


async def test_a_groups_pending_backlog_and_dead_letters_are_counted(
    redis_client: aioredis.Redis, stream_prefix: str
) -> None:
    streams = RedisStreams(redis_client)
    stream = f"{stream_prefix}backlog-{uuid.uuid4().hex[:6]}"

    async def handler(m: Message) -> None:
        if m.payload == b"poison":
            raise RuntimeError("cannot handle")

    c = Consumer(
        streams, stream, "g", "c", handler, groups=("idle",), max_deliveries=1, min_idle_ms=0
    )
    await c.ensure_groups()
    for payload in (b"ok", b"poison", b"ok"):
        await streams.publish(stream, payload)
    before = value("turnpost_deadletters_total", stream=stream, group="g")
    for _ in range(4):
        await c.step()
    assert value("turnpost_deadletters_total", stream=stream, group="g") == before + 1
    await streams.read(stream, "idle", "x", 1, 10)  # one read by another group, not acked
    await c.probe()
    await Consumer(streams, stream, "idle", "x", handler).probe()
    assert value("turnpost_stream_pending", stream=stream, group="g") == 0
    assert value("turnpost_stream_lag", stream=stream, group="g") == 0
    assert value("turnpost_stream_pending", stream=stream, group="idle") == 1
    assert value("turnpost_stream_lag", stream=stream, group="idle") == 2
    assert value("turnpost_deadletters_waiting", stream=stream) == 1


async def test_the_schedulers_lateness_is_how_long_after_the_deadline_it_fired(
    pool: asyncpg.Pool,
) -> None:
    game_id, _ = await new_game(game_service(pool), [None, None])
    deadline = datetime.now(UTC) - timedelta(seconds=7)
    await pool.execute(
        """UPDATE turns SET deadlines = $2::jsonb, next_deadline = $3, fire_after = NULL
           WHERE game_id = $1""",
        uuid.UUID(game_id),
        json.dumps({"0": deadline.isoformat()}),
        deadline,
    )
    sent: list[ClockTimeout] = []

    async def publish(command: ClockTimeout) -> None:
        sent.append(command)

    count = value("turnpost_scheduler_lateness_seconds_count")
    total = value("turnpost_scheduler_lateness_seconds_sum")
    late_bucket = value("turnpost_scheduler_lateness_seconds_bucket", le="5.0")
    await scheduler.fire_due(pool, publish, 60)
    mine = [c for c in sent if c.game_id == game_id]
    assert len(mine) == 1
    lateness = value("turnpost_scheduler_lateness_seconds_sum") - total
    assert value("turnpost_scheduler_lateness_seconds_count") >= count + 1
    assert lateness >= 7  # other games of the database may have fallen due too
    # ours is over 5 s late: not in the 5 s bucket
    assert value("turnpost_scheduler_lateness_seconds_bucket", le="5.0") - late_bucket <= len(
        sent
    ) - len(mine)


Run = Callable[[Settings, asyncio.Event], Awaitable[None]]


@pytest.mark.parametrize(
    ("run", "metric", "group"),
    [
        (dispatcher.run, "turnpost_stream_pending", ("turnpost:bot-turns", "bots")),
        (notifier.run, "turnpost_stream_pending", ("turnpost:games", "notifier")),
        (scheduler.run, "turnpost_scheduler_lateness_seconds_count", None),
    ],
    ids=["dispatcher", "notifier", "scheduler"],
)
async def test_each_process_serves_its_metrics_on_its_port(
    settings: Settings, run: Run, metric: str, group: tuple[str, str] | None
) -> None:
    port = closed_port()

    def shown(text: str) -> bool:
        return any(
            group is None
            or (s.labels["stream"], s.labels["group"]) == (settings.stream(group[0]), group[1])
            for s in samples(text, metric)
        )

    stop = asyncio.Event()
    task = asyncio.create_task(run(msgspec.structs.replace(settings, metrics_port=port), stop))
    try:
        text = await scrape(port, shown)
        assert shown(text), text
    finally:
        stop.set()
        await asyncio.wait_for(task, 15)


def test_a_taken_metrics_port_is_logged_not_fatal(caplog: pytest.LogCaptureFixture) -> None:
    from infra.observability.metrics import serve_metrics

    port = closed_port()
    serve_metrics(port)
    serve_metrics(port)  # taken now: the process goes on without
    assert any("cannot listen" in r.getMessage() for r in caplog.records)


async def test_a_prefork_workers_children_count_their_turns_on_its_port(
    table: Table,
    tmp_path: Path,
) -> None:
    port = closed_port()
    counts = tmp_path / "counts"
    counts.mkdir()
    (counts / "histogram_1.db").write_bytes(b"")  # a dead process' file: forgotten at start
    worker = table.worker(
        "bots-mcts",
        pool="prefork",
        n=2,
        METRICS_PORT=str(port),
        PROMETHEUS_MULTIPROC_DIR=str(counts),
        TEST_MCTS_S="0",
    )
    game_id, version = await table.game("mcts")
    with started(worker):
        await table.push(BotTurn("itty-bitty", game_id, 1, "mcts", version))
        await table.wait_moved(game_id, 1)

        def counted(text: str) -> bool:
            return any(
                s.labels.get("level") == "mcts" and s.value >= 1
                for s in samples(text, "turnpost_bot_task_seconds_count")
            )

        text = await scrape(port, counted)
    assert counted(text), text
    assert not (counts / "histogram_1.db").exists()
