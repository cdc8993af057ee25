#!/usr/bin/env python3
"""Append throughput with and without the events table's notify trigger, 64 clients.

`python -m tests.bench.notify` (about a minute): the real event store's append
(`PostgresEventStore.append`, one event and its `turns` row per append, each client its own
game) from 64 clients in 4 processes of their own (16 each, one connection each), while one
session LISTENs on `turnpost_events` as the relay did. Phases alternate, trigger on then off
(migration 004's trigger, which 010 dropped, made again here and switched with `ALTER TABLE
events ENABLE|DISABLE TRIGGER`), BENCH_NOTIFY_ROUNDS times (3), BENCH_NOTIFY_SECONDS each
(6, after 1 s of warm-up), so a machine's drift falls on both; each figure is the median
over the rounds. Its own database, dropped at the end.

A NOTIFY is queued at commit under one cluster-wide lock held through the commit's WAL
flush, so every committing transaction that notifies waits for the one before it, and group
commit cannot gather them: the question was whether that shows at 64 clients. It does
(docs/operations.md "Scale-out and connection budgets"), so the trigger is gone and the relay polls;
the run ends with what the relay costs polling (idle, 10 s: its process and its Postgres
backend, % of a core) and an append's time to the games stream (40 appends, one at a time).
"""

from __future__ import annotations

import asyncio
import multiprocessing as mp
import os
import random
import statistics
import subprocess
import sys
import time
import uuid
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import asyncpg  # noqa: E402
import redis.asyncio as aioredis  # noqa: E402

from contracts.streams import GAMES  # noqa: E402
from infra.eventstore import NewEvent  # noqa: E402
from infra.eventstore.api import Turn  # noqa: E402
from infra.eventstore.outbox import Checkpoint, PostgresOutbox  # noqa: E402
from infra.eventstore.postgres import PostgresEventStore  # noqa: E402
from infra.servers.migrate import migrate  # noqa: E402
from services.game.relay import CONSUMER, RELAY_LOCK  # noqa: E402
from tests.bench.proc import postgres_ticks, ticks  # noqa: E402

ADMIN_DSN = os.environ.get("BENCH_ADMIN_DSN", "postgresql://postgres@127.0.0.1:5432/postgres")
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")
CLIENTS = int(os.environ.get("BENCH_NOTIFY_CLIENTS", "64"))
PROCESSES = 4
ROUNDS = int(os.environ.get("BENCH_NOTIFY_ROUNDS", "3"))
SECONDS = float(os.environ.get("BENCH_NOTIFY_SECONDS", "6"))
WARMUP = 1.0
DATA = b'{"type": "ittybit_taken", "seat": 0, "card": "ittybit-0287", "from_market": true}'


def out(name: str, value: Any, unit: str = "") -> None:
    print(f"{name} {value} {unit}".rstrip(), flush=True)


async def _load(dsn: str, clients: int, conn: Connection) -> None:
    """One load process: `clients` appenders, each its own game, run when told."""
    pool = await asyncpg.create_pool(dsn, min_size=clients, max_size=clients)
    store = PostgresEventStore(pool)
    games = [str(uuid.uuid4()) for _ in range(clients)]
    versions = [0] * clients

    async def appender(i: int, until: float, counting_from: float, took: list[float]) -> None:
        turn = Turn(game_id=games[i], room_id=None, game="itty-bitty", status="active",
                    to_act=[1], bots={}, deadlines={})  # fmt: skip
        meta = {"seat": 0, "to_act": [1], "status": "active", "game": "itty-bitty"}
        while (now := time.monotonic()) < until:
            event = NewEvent(event_id=uuid.uuid4(), type="ittybit_taken", data=DATA, metadata=meta)
            await store.append(f"game-{games[i]}", [event], versions[i], turn)
            versions[i] += 1
            if now >= counting_from:
                took.append(time.monotonic() - now)

    while True:
        order = await asyncio.to_thread(conn.recv)
        if order is None:
            break
        seconds = float(order)
        began = time.monotonic()
        took: list[float] = []
        await asyncio.gather(
            *(appender(i, began + WARMUP + seconds, began + WARMUP, took) for i in range(clients))
        )
        conn.send(took)
    await pool.close()


def _process(dsn: str, clients: int, conn: Connection) -> None:
    asyncio.run(_load(dsn, clients, conn))


async def _listen(dsn: str, heard: list[int]) -> asyncpg.Connection:
    listener = await asyncpg.connect(dsn)
    await listener.add_listener("turnpost_events", lambda *_: heard.__setitem__(0, heard[0] + 1))
    return listener


async def relay_figures(dsn: str, conn: asyncpg.Connection) -> None:
    """The relay as it now runs (no trigger, polling every RELAY_POLL_S): its cost idle, and
    an append's way to the games stream at one append at a time."""
    await conn.execute("ALTER TABLE events DISABLE TRIGGER events_notify")
    tip = await conn.fetchrow(
        "SELECT max(tx_id::text::bigint) AS tx, max(global_position) AS gp FROM events"
    )
    await PostgresOutbox(conn).save_checkpoint(
        CONSUMER, Checkpoint(tx_id=tip["tx"], global_position=tip["gp"])
    )  # from here: the rounds' events are not the relay's to publish
    prefix = f"bench-notify-{uuid.uuid4().hex[:6]}:"
    env = {**os.environ, "DATABASE_URL": dsn, "REDIS_URL": REDIS_URL, "STREAM_PREFIX": prefix,
           "LOG_LEVEL": "WARNING", "METRICS_PORT": "0"}  # fmt: skip
    relay = [sys.executable, "-m", "services.game.relay"]
    proc = subprocess.Popen(relay, cwd=ROOT, env=env)  # noqa: ASYNC220 (a moment, once)
    r = aioredis.Redis.from_url(REDIS_URL)
    stream = f"{prefix}{GAMES}"
    try:
        backend = None
        for _ in range(200):
            backend = await conn.fetchval(
                "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted"
                " AND objid = $1 AND objsubid = 1 AND database ="
                " (SELECT oid FROM pg_database WHERE datname = current_database())",
                RELAY_LOCK,
            )
            if backend:
                break
            await asyncio.sleep(0.1)
        assert backend, "the relay did not take its lock"
        await asyncio.sleep(1)
        hz = os.sysconf("SC_CLK_TCK")
        before, t0 = (ticks(proc.pid), ticks(backend)), time.monotonic()
        await asyncio.sleep(10)
        elapsed = time.monotonic() - t0
        out("relay_idle_cpu", round((ticks(proc.pid) - before[0]) / hz / elapsed * 100, 2), "%")
        out("relay_idle_pg_cpu", round((ticks(backend) - before[1]) / hz / elapsed * 100, 2), "%")
        pool = await asyncpg.create_pool(dsn, min_size=1, max_size=1)
        store = PostgresEventStore(pool)
        stream_id, last, lags = f"game-{uuid.uuid4()}", "0-0", []
        for version in range(40):
            event = NewEvent(event_id=uuid.uuid4(), type="t", data=DATA,
                             metadata={"seat": 0, "to_act": [1], "status": "active"})  # fmt: skip
            await store.append(stream_id, [event], version)
            committed = time.monotonic()
            while True:
                reply: Any = await r.xread({stream: last}, block=2000, count=10)
                assert reply, "nothing reached the games stream in 2 s"
                last = reply[0][1][-1][0]
                if any(b'"version":%d' % (version + 1) in f[b"m"] for _, f in reply[0][1]):
                    break
            lags.append((time.monotonic() - committed) * 1000)
            await asyncio.sleep(random.uniform(0.02, 0.12))
        await pool.close()
        lags.sort()
        out("relay_append_to_stream_p50", round(lags[len(lags) // 2], 1), "ms")
        out("relay_append_to_stream_max", round(lags[-1], 1), "ms")
    finally:
        proc.terminate()
        proc.wait(10)
        await r.delete(stream, f"{stream}:relayed")
        await r.aclose()


async def main() -> int:
    name = f"turnpost_bench_notify_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(ADMIN_DSN)
    free = await admin.fetchval(
        "SELECT current_setting('max_connections')::int"
        " - current_setting('superuser_reserved_connections')::int - count(*)"
        " FROM pg_stat_activity WHERE backend_type = 'client backend'"
    )
    if free < CLIENTS + 4:
        print(f"Postgres has {free} connections free, {CLIENTS + 4} needed: try later "
              "(or BENCH_NOTIFY_CLIENTS)", file=sys.stderr)  # fmt: skip
        await admin.close()
        return 1
    await admin.execute(f'CREATE DATABASE "{name}"')
    dsn = ADMIN_DSN.rsplit("/", 1)[0] + f"/{name}"
    ctx = mp.get_context("spawn")
    pipes: list[Connection] = []
    procs: list[Any] = []
    try:
        conn = await asyncpg.connect(dsn)
        await migrate(conn)
        # the trigger as migration 004 made it (010 drops it), to be switched on and off
        await conn.execute((ROOT / "infra/servers/migrations/004_events_notify.sql").read_text())
        heard = [0]
        listener = await _listen(dsn, heard)
        share = [CLIENTS // PROCESSES + (i < CLIENTS % PROCESSES) for i in range(PROCESSES)]
        for n in share:
            ours, theirs = ctx.Pipe()
            p = ctx.Process(target=_process, args=(dsn, n, theirs), daemon=True)
            p.start()
            pipes.append(ours)
            procs.append(p)
        results: dict[bool, list[tuple[float, float, float, float]]] = {True: [], False: []}
        for _ in range(ROUNDS):
            for notify in (True, False):
                verb = "ENABLE" if notify else "DISABLE"
                await conn.execute(f"ALTER TABLE events {verb} TRIGGER events_notify")
                before_heard = heard[0]
                for pipe in pipes:
                    pipe.send(SECONDS)
                await asyncio.sleep(WARMUP)
                pg_before = postgres_ticks()
                took: list[float] = []
                for pipe in pipes:
                    took += await asyncio.to_thread(pipe.recv)
                pg_cpu_s = (postgres_ticks() - pg_before) / os.sysconf("SC_CLK_TCK")
                took.sort()
                rate = len(took) / SECONDS
                results[notify].append(
                    (
                        rate,
                        took[len(took) // 2] * 1000,
                        took[int(len(took) * 0.99)] * 1000,
                        pg_cpu_s / max(len(took), 1) * 1e6,
                    )
                )
                if notify:
                    assert heard[0] > before_heard, "the listener heard nothing"
        for notify, label in ((True, "on"), (False, "off")):
            rows = results[notify]
            out(
                f"notify_{label}_c{CLIENTS}_appends",
                round(statistics.median(r[0] for r in rows)),
                "per_s",
            )
            out(
                f"notify_{label}_c{CLIENTS}_append_p50",
                round(statistics.median(r[1] for r in rows), 2),
                "ms",
            )
            out(
                f"notify_{label}_c{CLIENTS}_append_p99",
                round(statistics.median(r[2] for r in rows), 2),
                "ms",
            )
            out(
                f"notify_{label}_c{CLIENTS}_pg_cpu_per_append",
                round(statistics.median(r[3] for r in rows)),
                "us",
            )
        on = statistics.median(r[0] for r in results[True])
        off = statistics.median(r[0] for r in results[False])
        out(f"notify_off_vs_on_c{CLIENTS}_appends_ratio", round(off / on, 3))
        pairs = zip(results[True], results[False], strict=True)
        out("notify_off_vs_on_each_round", " ".join(f"{b[0] / a[0]:.2f}" for a, b in pairs))
        out("notify_rounds_on", " ".join(str(round(r[0])) for r in results[True]), "per_s")
        out("notify_rounds_off", " ".join(str(round(r[0])) for r in results[False]), "per_s")
        await listener.close()
        await relay_figures(dsn, conn)
        await conn.close()
    finally:
        for pipe in pipes:
            try:
                pipe.send(None)
            except OSError:
                pass
        for p in procs:
            p.join(10)
            if p.is_alive():
                p.kill()
        await admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", name
        )
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
        await admin.close()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
