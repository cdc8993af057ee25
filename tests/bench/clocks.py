"""Benchmarks of the progress guarantee, run by tests/bench/run.py (`make bench`).

- `deadline_lateness_*`: 1,000 clocked games (2,000 running clocks) whose deadlines fall due
  over about ten seconds; a real scheduler process fires them through the commands stream
  into a real game service process. Lateness = when the `timed_out` event was decided (its
  `at`) and committed (`recorded_at`) minus the deadline.

The bot path's own figures (turn latency per game and level, the bot load run) are in
tests/bench/bots.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import secrets
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg

from contracts.streams import RoomStarted, StartedSeat
from infra.eventstore.postgres import PostgresEventStore
from services.game.live import Waiters
from services.game.repository import PostgresGamesRepository
from services.game.service import GameService

ROOT = Path(__file__).resolve().parents[2]
CLOCKED_GAMES = int(os.environ.get("BENCH_CLOCKED_GAMES", "1000"))
SPREAD_S = 10.0  # the deadlines fall due over this long, from LEAD_S after set-up
LEAD_S = 3.0

Out = Callable[..., None]
Pct = Callable[[list[float], float], float]


class Procs:
    """Processes of the stack (as deploy/stack.py starts them) for one measurement."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = {**os.environ, **env, "PYTHONUNBUFFERED": "1", "LOG_LEVEL": "WARNING"}
        self.log = Path(tempfile.gettempdir()) / f"turnpost-bench-clocks-{os.getpid()}.log"
        self.procs: list[subprocess.Popen[bytes]] = []

    def start(self, *cmd: str) -> None:
        with open(self.log, "ab") as f:
            self.procs.append(
                subprocess.Popen(
                    [sys.executable, *cmd],
                    cwd=ROOT,
                    env=self.env,
                    stdout=f,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            )

    def stop(self) -> None:
        for p in self.procs:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGTERM)
        for p in self.procs:
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(p.pid, signal.SIGKILL)
                p.wait()
        self.procs.clear()


SECRET = secrets.token_urlsafe(48)  # this run's own


def _env(dsn: str, redis_url: str, prefix: str, port: int) -> dict[str, str]:
    return {
        "DATABASE_URL": dsn,
        "REDIS_URL": redis_url,
        "STREAM_PREFIX": prefix,
        "GAME_PORT": str(port),
        "TURNPOST_SECRET": SECRET,
    }


async def deadline_lateness(
    dsn: str, redis_url: str, prefix: str, port: int, out: Out, pct: Pct
) -> None:
    pool = await asyncpg.create_pool(dsn, min_size=2, max_size=8)
    service = GameService(PostgresEventStore(pool), PostgresGamesRepository(pool), Waiters())
    procs = Procs(_env(dsn, redis_url, prefix, port))
    rng = random.Random(7)
    try:
        # Set-up first, clocks started in the past so that the deadlines fall due between
        # LEAD_S and LEAD_S + SPREAD_S from the end of the set-up.
        async def clocked(started: datetime, per_move_s: int = 5) -> str:
            service.now = lambda: started
            room = f"bench-clock-{uuid.uuid4()}"
            return await service.create_from_room(
                RoomStarted(
                    room_id=room,
                    game="itty-bitty",
                    seats=[StartedSeat(seat=i, player_id=f"{room}-{i}") for i in range(2)],
                    timing={"per_move_s": per_move_s, "on_timeout": "wait"},
                )
            )

        # How fast games are set up here and now (20 games whose deadlines are an hour
        # away), so that the measured deadlines fall due only after the set-up.
        t0 = time.monotonic()
        for _ in range(20):
            await clocked(datetime.now(UTC), per_move_s=3600)
        per_game = (time.monotonic() - t0) / 20
        set_up_s = 2 * per_game * CLOCKED_GAMES + 2
        per_move = 5.0
        began = time.monotonic()
        offsets = sorted(rng.uniform(0, SPREAD_S) for _ in range(CLOCKED_GAMES))
        zero = datetime.now(UTC) + timedelta(seconds=set_up_s + LEAD_S)
        ids = [await clocked(zero + timedelta(seconds=o - per_move)) for o in offsets]
        set_up = time.monotonic() - began
        out("clocked_games_set_up", len(ids), f"games in {set_up:.1f} s (2 clocks each)")
        if datetime.now(UTC) > zero:
            out("clocked_games_note", 0, "set-up overran the first deadlines; lateness is high")
        procs.start("-m", "services.game")
        procs.start("-m", "services.game.scheduler")
        expected = 2 * len(ids)
        end = zero + timedelta(seconds=SPREAD_S + 60)
        rows: list[Any] = []
        while datetime.now(UTC) < end:
            await asyncio.sleep(1)
            rows = await pool.fetch(
                """SELECT data->>'deadline' AS deadline, data->>'at' AS at, recorded_at
                   FROM events WHERE type = 'timed_out' AND stream_id LIKE 'game-%'"""
            )
            if len(rows) >= expected:
                break
        decided = [
            (
                datetime.fromisoformat(r["at"]) - datetime.fromisoformat(r["deadline"])
            ).total_seconds()
            for r in rows
        ]
        committed = [
            (r["recorded_at"] - datetime.fromisoformat(r["deadline"])).total_seconds() for r in rows
        ]
        out("deadline_fired", len(rows), f"of {expected}")
        for name, values in (("decided", decided), ("committed", committed)):
            out(f"deadline_lateness_{name}_p50_ms", 1000 * pct(values, 0.5), "ms")
            out(f"deadline_lateness_{name}_p99_ms", 1000 * pct(values, 0.99), "ms")
        twice = await pool.fetchval(
            """SELECT count(*) FROM (SELECT stream_id, data->>'seat' FROM events
               WHERE type = 'timed_out' GROUP BY 1, 2 HAVING count(*) > 1) x"""
        )
        out("deadline_fired_twice", twice, "count")
    finally:
        procs.stop()
        await pool.close()
