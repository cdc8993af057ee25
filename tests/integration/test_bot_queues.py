"""Real Celery workers of the bots (tests/integration/bots_app.py) against the real broker:
one queue per kind of level, so a long search never holds up a cheap move; a worker killed
with SIGKILL in the middle of a turn loses no move and plays none twice.

The game here is a GameService in the test's process that applies the commands stream as the
game service's consumer does (services/game/consumers.py); the tasks are pushed as the
dispatcher pushes them (or sent as the scheduler's sweep sends them).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import asyncpg
import msgspec
import pytest
import redis.asyncio as aioredis

from contracts.streams import BOT_TURNS, COMMANDS
from infra.auth import signing
from infra.settings import Settings
from infra.streams import Message
from infra.streams.redis import RedisStreams
from infra.tasks import celery_app, send_bot_turn
from services.bots.dispatcher import BotTurn, pusher
from services.game.consumers import on_command
from services.game.service import GameService
from tests.integration.tables import game_service, new_game

ROOT = Path(__file__).resolve().parents[2]


class Worker:
    """`celery -A tests.integration.bots_app worker` on one queue, in a session of its own."""

    def __init__(self, env: dict[str, str], log: Path, queue: str, pool: str, n: int) -> None:
        self.log = log
        with open(log, "ab") as f:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "tests.integration.bots_app", "worker",
                 "--queues", queue, "--pool", pool, "--concurrency", str(n),
                 "--loglevel", "info", "--without-gossip", "--without-mingle",
                 "--without-heartbeat", "--hostname", f"{queue}-{uuid.uuid4().hex[:6]}@test"],
                cwd=ROOT,
                env={**os.environ, **env, "PYTHONUNBUFFERED": "1"},
                stdout=f,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip

    def wait_ready(self, seconds: float = 60) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"worker exited:\n{self.log.read_text()[-3000:]}")
            if " ready." in self.log.read_text(errors="replace"):
                return
            time.sleep(0.1)
        raise AssertionError(f"worker not ready:\n{self.log.read_text()[-3000:]}")

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()


class Table:
    """One test's broker prefix, settings, game service and the commands it has applied."""

    def __init__(self, pool: asyncpg.Pool, database_url: str, redis_url: str, tmp: Path) -> None:
        self.prefix = f"test-bots-{uuid.uuid4().hex[:8]}:"
        secret = secrets.token_urlsafe(48)
        self.settings = Settings(
            database_url=database_url, redis_url=redis_url, stream_prefix=self.prefix,
            secret=secret,
        )  # fmt: skip
        self.env = {
            "DATABASE_URL": database_url,
            "REDIS_URL": redis_url,
            "STREAM_PREFIX": self.prefix,
            "TURNPOST_SECRET": secret,
            "LOG_LEVEL": "INFO",
        }
        self.tmp = tmp
        self.service: GameService = game_service(pool)
        self.redis = aioredis.Redis.from_url(redis_url)
        self.applied: list[tuple[str, float]] = []  # (command id, when)
        self.workers: list[Worker] = []

    def worker(self, queue: str, pool: str = "solo", n: int = 1, **env: str) -> Worker:
        w = Worker({**self.env, **env}, self.tmp / f"{queue}-{len(self.workers)}.log", queue,
                   pool, n)  # fmt: skip
        self.workers.append(w)
        return w

    async def game(self, level: str) -> tuple[str, int]:
        """A person and a `level` bot, both to choose their collector: (game id, version)."""
        game_id, _ = await new_game(self.service, [None, level])
        return game_id, (await self.service.load(game_id)).version

    async def push(self, *turns: BotTurn) -> None:
        await pusher(self.settings, self.redis)(turns)

    async def apply_commands(self) -> None:
        """The game service's commands consumer, in short: verify, apply, note when."""
        handle = on_command(self.service, self.settings.command_key())
        stream, last = self.settings.stream(COMMANDS), "0-0"
        while True:
            reply: Any = await self.redis.xread({stream: last}, block=200, count=50)
            for _, entries in reply or []:
                for mid, fields in entries:
                    last = mid.decode()
                    await handle(Message(stream=stream, id=last, payload=fields[b"m"]))
                    cmd = command_id_of(self.settings.command_key(), fields[b"m"])
                    self.applied.append((cmd, time.monotonic()))

    async def stalled_pid(self, seconds: float = 30) -> int:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if pid := await self.redis.get(f"{self.prefix}test:stalled"):
                return int(pid)
            await asyncio.sleep(0.05)
        raise AssertionError("no turn stalled")

    async def moves(self, game_id: str, seat: int) -> int:
        events = await self.service.store.read(f"game-{game_id}")
        return sum(1 for e in events if e.type == "collector_kept" and e.metadata["seat"] == seat)

    async def wait_moved(self, game_id: str, seat: int, seconds: float = 30) -> float:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if await self.moves(game_id, seat):
                return time.monotonic()
            await asyncio.sleep(0.05)
        raise AssertionError(f"seat {seat} of {game_id} did not move")

    async def close(self) -> None:
        for w in self.workers:
            w.stop()
        keys = [k async for k in self.redis.scan_iter(match=f"{self.prefix}*")]
        if keys:
            await self.redis.delete(*keys)
        await self.redis.aclose()


def command_id_of(key: bytes, payload: bytes) -> str:
    return str(msgspec.json.decode(signing.verify(key, payload))["command_id"])


@pytest.fixture
async def table(
    pool: asyncpg.Pool, database_url: str, redis_url: str, tmp_path: Path
) -> AsyncIterator[Table]:
    t = Table(pool, database_url, redis_url, tmp_path)
    applier = asyncio.create_task(t.apply_commands())
    try:
        yield t
    finally:
        applier.cancel()
        await asyncio.gather(applier, return_exceptions=True)
        await t.close()


@contextlib.contextmanager
def started(*workers: Worker) -> Iterator[None]:
    for w in workers:
        w.wait_ready()
    yield


async def test_a_long_search_does_not_hold_up_greedy_moves(table: Table) -> None:
    fast = table.worker("bots")
    search = table.worker("bots-mcts", pool="prefork", n=1, TEST_MCTS_S="8")
    searching = [await table.game("mcts") for _ in range(2)]
    greedy = [await table.game("greedy") for _ in range(6)]
    with started(fast, search):
        await table.push(*(BotTurn("itty-bitty", g, 1, "mcts", v) for g, v in searching))
        await asyncio.sleep(1)  # the first search is under way, the second waits behind it
        pushed = time.monotonic()
        await table.push(*(BotTurn("itty-bitty", g, 1, "greedy", v) for g, v in greedy))
        landed = [await table.wait_moved(g, 1) - pushed for g, _ in greedy]
        assert max(landed) < 3.0, landed  # promptly, while the searches run
        assert not any([await table.moves(g, 1) for g, _ in searching])
        for g, _ in searching:
            await table.wait_moved(g, 1, seconds=40)


async def test_searches_queued_behind_one_another_share_the_budget_and_land_within_it(
    table: Table,
) -> None:
    """One search process, three searches sent at once, each with a budget of 1.5 s counted
    from when it was sent: the first sees two waiting behind it and spends a third of it, the
    second half of what is left, the last the rest: each searches about 0.5 s and all land
    within the budget (one after another at 1.5 s each, the last would land at 4.5 s; with
    the budget counted from the send but no sharing, the first would take it all and the
    others play at once without searching)."""
    search = table.worker(
        "bots-mcts", pool="prefork", n=1, TEST_MCTS_S="budget:1.5", BOT_MCTS_S="1.5"
    )
    searching = [await table.game("mcts") for _ in range(3)]
    with started(search):
        pushed = time.monotonic()
        await table.push(*(BotTurn("itty-bitty", g, 1, "mcts", v) for g, v in searching))
        landed = sorted([await table.wait_moved(g, 1) - pushed for g, _ in searching])
    spent = [b - a for a, b in zip([0.0, *landed], landed, strict=False)]
    assert all(0.3 < s < 0.9 for s in spent), landed  # each searched its share
    assert landed[-1] < 1.5 + 0.5, landed


async def test_a_worker_killed_before_sending_its_move_loses_nothing(table: Table) -> None:
    worker = table.worker("bots", pool="prefork", n=1, TEST_STALL="policy")
    game_id, v = await table.game("greedy")
    with started(worker):
        await table.push(BotTurn("itty-bitty", game_id, 1, "greedy", v))
        os.kill(await table.stalled_pid(), signal.SIGKILL)  # the pool process, mid-turn
        await table.wait_moved(game_id, 1)
    await asyncio.sleep(1)
    assert await table.moves(game_id, 1) == 1
    assert len(table.applied) == 1  # sent once: the killed try had sent nothing


async def test_a_worker_killed_after_sending_its_move_plays_it_once(table: Table) -> None:
    worker = table.worker("bots", pool="prefork", n=1, TEST_STALL="sent")
    game_id, v = await table.game("greedy")
    with started(worker):
        await table.push(BotTurn("itty-bitty", game_id, 1, "greedy", v))
        os.kill(await table.stalled_pid(), signal.SIGKILL)  # sent, not yet acked
        await table.wait_moved(game_id, 1)
        await asyncio.sleep(2)  # the redelivered task has run by now
    assert await table.moves(game_id, 1) == 1
    assert len({cmd for cmd, _ in table.applied}) == 1  # sent again at most: the same command


async def test_a_whole_worker_killed_mid_turn_the_sweep_and_the_broker_lose_nothing(
    table: Table,
) -> None:
    """Everything of the worker dies (no parent left to hand the task back): the scheduler's
    sweep sends the turn again; when the broker hands the old task back too (after its
    visibility timeout, forced here), it plays nothing more."""
    first = table.worker("bots", TEST_STALL="policy")
    game_id, v = await table.game("greedy")
    with started(first):
        await table.push(BotTurn("itty-bitty", game_id, 1, "greedy", v))
        await table.stalled_pid()
        first.kill()
    second = table.worker("bots")
    with started(second):
        celery = celery_app(table.settings)
        await asyncio.to_thread(
            send_bot_turn, celery, table.settings, "itty-bitty", game_id, 1, "greedy", v
        )  # as the scheduler's sweep does for a bot turn that waited too long
        await table.wait_moved(game_id, 1)
        celery.conf.broker_transport_options = {
            **celery.conf.broker_transport_options,
            "visibility_timeout": 0,
        }
        with celery.connection_for_write() as conn:
            restored = conn.default_channel.qos.restore_visible(num=100)
        await asyncio.sleep(2)
    del restored
    assert await table.moves(game_id, 1) == 1
    assert len({cmd for cmd, _ in table.applied}) == 1


async def queued(table: Table, queue: str) -> int:
    return int(await table.redis.llen(f"{table.prefix}{queue}"))


async def test_a_batchs_cheap_turns_ride_one_task_and_each_is_played_once(table: Table) -> None:
    greedy = [await table.game("greedy") for _ in range(5)]
    searching = await table.game("mcts")
    await table.push(
        *(BotTurn("itty-bitty", g, 1, "greedy", v) for g, v in greedy),
        BotTurn("itty-bitty", searching[0], 1, "mcts", searching[1]),
    )
    assert (await queued(table, "bots"), await queued(table, "bots-mcts")) == (1, 1)
    with started(table.worker("bots"), table.worker("bots-mcts", TEST_MCTS_S="0")):
        for g, _ in [*greedy, searching]:
            await table.wait_moved(g, 1)
        await asyncio.sleep(1)
    assert [await table.moves(g, 1) for g, _ in [*greedy, searching]] == [1] * 6
    assert len(table.applied) == len({cmd for cmd, _ in table.applied}) == 6


async def test_a_worker_killed_mid_batch_loses_no_turn_and_plays_none_twice(table: Table) -> None:
    worker = table.worker("bots", pool="prefork", n=1, TEST_STALL="sent")
    games = [await table.game("greedy") for _ in range(4)]
    with started(worker):
        await table.push(*(BotTurn("itty-bitty", g, 1, "greedy", v) for g, v in games))
        os.kill(await table.stalled_pid(), signal.SIGKILL)  # the first turn sent, 3 to play
        for g, _ in games:
            await table.wait_moved(g, 1)
        await asyncio.sleep(2)  # the redelivered batch has run by now
    assert [await table.moves(g, 1) for g, _ in games] == [1] * 4
    assert len({cmd for cmd, _ in table.applied}) == 4  # the first sent again at most: the same


async def test_a_turn_failing_in_a_batch_holds_up_none_and_ends_a_dead_letter(
    table: Table,
) -> None:
    worker = table.worker("bots", TEST_BROKEN="random", MAX_DELIVERIES="3")
    broken = await table.game("random")
    fine = [await table.game("greedy") for _ in range(3)]
    turns = [BotTurn("itty-bitty", g, 1, "greedy", v) for g, v in fine]
    with started(worker):
        await table.push(
            turns[0], BotTurn("itty-bitty", broken[0], 1, "random", broken[1]), *turns[1:]
        )
        for g, _ in fine:
            await table.wait_moved(g, 1, seconds=10)
        streams = RedisStreams.from_url(table.settings.redis_url)
        try:
            deadline = time.monotonic() + 30
            while not (dead := await streams.dead_letters(table.settings.stream(BOT_TURNS))):
                assert time.monotonic() < deadline, "no dead letter"
                await asyncio.sleep(0.2)
            await asyncio.sleep(2)  # nothing more comes of it
            assert len(await streams.dead_letters(table.settings.stream(BOT_TURNS))) == 1
        finally:
            await streams.close()
    assert broken[0] in dead[0].payload.decode()
    assert "3 times" in dead[0].reason
    assert await table.moves(broken[0], 1) == 0
