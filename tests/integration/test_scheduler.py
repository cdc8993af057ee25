"""Real scheduler processes over the real `turns` table: every deadline fires once."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg
import msgspec
import pytest
import redis.asyncio as aioredis

from contracts.streams import COMMANDS, ClockTimeout, RoomStarted, StartedSeat
from infra.auth.signing import derive_key, verify
from infra.streams.consumer import Consumer
from infra.streams.redis import RedisStreams
from services.game.consumers import on_command
from services.game.scheduler import repair_rooms, resend_bot_turns
from services.game.service import GameService
from tests.conftest import RUN_ID, fresh_database
from tests.integration.tables import game_service

ROOT = Path(__file__).resolve().parents[2]
SECRET = "scheduler-test-secret-of-at-least-32-bytes"


class Schedulers:
    """Scheduler processes (python -m services.game.scheduler) on this run's database."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        self.procs: list[subprocess.Popen[bytes]] = []

    def start(self) -> None:
        self.procs.append(
            subprocess.Popen(
                [sys.executable, "-m", "services.game.scheduler"],
                cwd=ROOT,
                env=self.env,
                start_new_session=True,
            )
        )

    def stop(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
        self.procs.clear()


@pytest.fixture(scope="module")
def database_url(admin_dsn: str) -> Iterator[str]:
    """A database of this module's own: a scheduler scans every game of its database, and
    other tests leave clocked games behind whose deadlines fall due while the suite runs."""
    with fresh_database(admin_dsn, f"turnpost_sched_{RUN_ID}") as url:
        yield url


@pytest.fixture
async def pool(database_url: str) -> AsyncIterator[asyncpg.Pool]:
    p = await asyncpg.create_pool(database_url, min_size=1, max_size=8)
    yield p
    await p.close()


@pytest.fixture
def prefix(stream_prefix: str) -> str:
    return f"{stream_prefix}sched-{uuid.uuid4().hex[:6]}:"


@pytest.fixture
def schedulers(database_url: str, redis_url: str, prefix: str) -> Iterator[Schedulers]:
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "STREAM_PREFIX": prefix,
        "LOG_LEVEL": "WARNING",
        "TIMEOUT_RESEND_AFTER_S": "30",  # a resend would show as a second message
        "TURNPOST_SECRET": SECRET,
    }
    s = Schedulers(env)
    yield s
    s.stop()


@pytest.fixture
async def applied(
    pool: asyncpg.Pool, redis_url: str, prefix: str
) -> AsyncIterator[tuple[GameService, RedisStreams]]:
    """The game service applying what reaches the commands stream, in this process."""
    service = game_service(pool)
    streams = RedisStreams.from_url(redis_url)
    consumer = Consumer(
        streams,
        f"{prefix}{COMMANDS}",
        "game",
        "test",
        on_command(service, derive_key(SECRET)),
        block_ms=100,
    )
    task = asyncio.create_task(consumer.run())
    yield service, streams
    consumer.stop()
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    await streams.close()


async def clocked_game(
    service: GameService, seats: list[str | None], timing: dict[str, object], started: datetime
) -> str:
    """An itty bitty game whose clocks started at `started` (in the past: already due)."""
    room = f"room-{uuid.uuid4()}"
    real = service.now
    service.now = lambda: started
    try:
        return await service.create_from_room(
            RoomStarted(
                room_id=room,
                game="itty-bitty",
                seats=[
                    StartedSeat(seat=i, player_id=f"{room}-{i}", bot=level)
                    for i, level in enumerate(seats)
                ],
                timing=timing,
            )
        )
    finally:
        service.now = real


async def timeouts_of(service: GameService, game_id: str) -> list[dict[str, object]]:
    stored = await service.store.read(f"game-{game_id}")
    return [msgspec.json.decode(e.data) for e in stored if e.type == "timed_out"]


async def published(redis_url: str, stream: str) -> list[ClockTimeout]:
    r = aioredis.Redis.from_url(redis_url)
    try:
        entries = await r.xrange(stream)
    finally:
        await r.aclose()
    key = derive_key(SECRET)
    return [msgspec.json.decode(verify(key, f[b"m"]), type=ClockTimeout) for _, f in entries]


async def _until(check: object, seconds: float = 20) -> None:
    deadline = asyncio.get_running_loop().time() + seconds
    while asyncio.get_running_loop().time() < deadline:
        if await check():  # type: ignore[operator]
            return
        await asyncio.sleep(0.1)
    raise AssertionError("timed out")


async def test_two_schedulers_fire_each_deadline_once(
    schedulers: Schedulers,
    applied: tuple[GameService, RedisStreams],
    redis_url: str,
    prefix: str,
) -> None:
    service, _ = applied
    past = datetime.now(UTC) - timedelta(seconds=60)
    timing = {"per_move_s": 5, "on_timeout": "wait"}
    games = [await clocked_game(service, [None, None], timing, past) for _ in range(20)]
    schedulers.start()
    schedulers.start()

    async def all_fired() -> bool:
        return all([len(await timeouts_of(service, g)) == 2 for g in games])

    await _until(all_fired)
    await asyncio.sleep(1.5)  # time for a second firing, if there were one
    sent = await published(redis_url, f"{prefix}{COMMANDS}")
    # each deadline sent exactly once by the two schedulers together (SKIP LOCKED, then
    # fire_after), and an overdue seat is not fired again once its timeout landed
    assert Counter((t.game_id, t.seat) for t in sent) == {(g, s): 1 for g in games for s in (0, 1)}
    for g in games:
        fired = await timeouts_of(service, g)
        assert sorted(t["seat"] for t in fired) == [0, 1]  # once each
        view = await service.load(g)
        assert all(s.overdue for s in view.table.seats)


async def test_a_scheduler_down_across_a_deadline_fires_it_once_on_its_return(
    schedulers: Schedulers, applied: tuple[GameService, RedisStreams], pool: asyncpg.Pool
) -> None:
    service, _ = applied
    started = datetime.now(UTC) - timedelta(seconds=3)
    game_id = await clocked_game(
        service, [None, "greedy"], {"per_move_s": 5, "on_timeout": "bot_move"}, started
    )
    deadline = (await service.load(game_id)).table.seats[0].deadline
    assert deadline is not None
    await asyncio.sleep((deadline - datetime.now(UTC)).total_seconds() + 1.0)
    assert await timeouts_of(service, game_id) == []  # nobody was there to fire it
    schedulers.start()

    async def fired() -> bool:
        return len(await timeouts_of(service, game_id)) == 1

    await _until(fired)
    [event] = await timeouts_of(service, game_id)
    assert event["seat"] == 0 and event["on_timeout"] == "bot_move"
    assert datetime.fromisoformat(str(event["at"])) > deadline
    await asyncio.sleep(1.5)
    assert len(await timeouts_of(service, game_id)) == 1
    table = (await service.load(game_id)).table
    assert table.seats[0].bot == "greedy" and table.seats[0].once  # a bot makes that move
    row = await pool.fetchrow(
        "SELECT bots::text, next_deadline FROM turns WHERE game_id = $1", uuid.UUID(game_id)
    )
    assert row["next_deadline"] is None and '"0": "greedy"' in row["bots"]


async def test_the_sweep_sends_waiting_bot_turns_again_and_repairs_rooms(
    pool: asyncpg.Pool,
) -> None:
    service = game_service(pool)
    game_id = await clocked_game(service, [None, "greedy"], {}, datetime.now(UTC))
    await pool.execute(
        "UPDATE turns SET waiting_since = now() - interval '1 minute' WHERE game_id = $1",
        uuid.UUID(game_id),
    )
    sent: list[tuple[str, str, int, str, int]] = []
    version = (await service.load(game_id)).version
    assert await resend_bot_turns(pool, lambda *a: sent.append(a), after=30) == 1
    assert sent == [("itty-bitty", game_id, 1, "greedy", version)]
    # backing off: not again at once
    assert await resend_bot_turns(pool, lambda *a: sent.append(a), after=30) == 0

    # a room left `starting` whose game exists becomes playing
    record = await service.record(game_id)
    host = f"{record.room_id}-0"
    await pool.execute("INSERT INTO players (id, name) VALUES ($1, 'h')", host)
    await pool.execute(
        "INSERT INTO rooms (id, game, status, host, seat_count) VALUES ($1, 'itty-bitty',"
        " 'starting', $2, 2)",
        record.room_id,
        host,
    )
    assert await repair_rooms(pool) >= 1
    room = await pool.fetchrow("SELECT status, game_id FROM rooms WHERE id = $1", record.room_id)
    assert (room["status"], room["game_id"]) == ("playing", game_id)
