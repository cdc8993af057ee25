"""Webhook delivery latency, run by tests/bench/run.py (`make bench`).

- `webhook_delivery_latency_*`: games set up at a steady pace (BENCH_WEBHOOK_GAMES, default
  100, over about five seconds), each of two people with an endpoint for everything, so
  each set-up is four deliveries (`game_started` and `your_turn` to each). The real path:
  the relay, a notifier process and a webhook worker process (threads), to a receiver in
  this process. Latency = the receiver's clock at arrival minus the event's `recorded_at`
  (the commit of the command whose news it is), over every delivery.
"""

from __future__ import annotations

import asyncio
import os
import socket
import time
import uuid
from typing import Any

import asyncpg
import msgspec
import uvicorn

from contracts.streams import RoomStarted, StartedSeat
from infra.eventstore.postgres import PostgresEventStore
from services.game.live import Waiters
from services.game.repository import PostgresGamesRepository
from services.game.service import GameService
from services.game.webhook_store import new_secret
from tests.bench.clocks import SECRET, Out, Pct, Procs

GAMES = int(os.environ.get("BENCH_WEBHOOK_GAMES", "100"))
PACE_S = 0.05  # between two set-ups: a steady trickle, not a burst


class Receiver:
    """Records (game id, version, arrival time) of every delivery; answers 204."""

    def __init__(self) -> None:
        self.got: list[tuple[str, int, float]] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        at = time.time()
        data = msgspec.json.decode(body)["data"]
        self.got.append((data["game_id"], data["version"], at))
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})


async def webhook_latency(dsn: str, redis_url: str, prefix: str, out: Out, pct: Pct) -> None:
    pool = await asyncpg.create_pool(dsn, min_size=2, max_size=8)
    service = GameService(PostgresEventStore(pool), PostgresGamesRepository(pool), Waiters())
    receiver = Receiver()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(receiver, port=port, log_level="warning"))
    serving = asyncio.create_task(server.serve())
    procs = Procs(
        {
            "DATABASE_URL": dsn,
            "REDIS_URL": redis_url,
            "STREAM_PREFIX": prefix,
            "TURNPOST_SECRET": SECRET,
            "WEBHOOK_ALLOW_PRIVATE": "1",
            "WEBHOOK_ALLOW_HTTP": "1",
        }
    )
    try:
        procs.start("-m", "services.game.relay")
        procs.start("-m", "services.notifier")
        procs.start(
            "-m", "celery", "-A", "services.notifier.worker", "worker", "--queues", "webhooks",
            "--pool", "threads", "--concurrency", "16", "--loglevel", "WARNING",
            "--without-gossip", "--without-mingle", "--without-heartbeat",
        )  # fmt: skip
        rooms = [f"bench-hook-{uuid.uuid4()}" for _ in range(GAMES)]
        hooks = [(uuid.uuid4(), f"{room}-{seat}") for room in rooms for seat in range(2)]
        await pool.executemany(
            """INSERT INTO webhooks (id, player_id, url, events, secret)
               VALUES ($1, $2, $3, $4, $5)""",
            [
                (i, p, f"http://127.0.0.1:{port}/hook",
                 ["your_turn", "game_started", "game_finished", "deadline_soon"], new_secret())
                for i, p in hooks
            ],
        )  # fmt: skip
        await asyncio.sleep(3)  # the processes start (a delivery before that would wait)
        ids = []
        for room in rooms:
            ids.append(
                await service.create_from_room(
                    RoomStarted(
                        room_id=room,
                        game="itty-bitty",
                        seats=[StartedSeat(seat=i, player_id=f"{room}-{i}") for i in range(2)],
                    )
                )
            )
            await asyncio.sleep(PACE_S)
        expected = 4 * len(ids)
        for _ in range(600):  # a minute at most
            if len(receiver.got) >= expected:
                break
            await asyncio.sleep(0.1)
        recorded = {
            (r["game_id"], r["version"]): r["at"]
            for r in await pool.fetch(
                """SELECT substr(stream_id, 6) AS game_id, version,
                          extract(epoch FROM recorded_at) AS at
                   FROM events WHERE stream_id = ANY ($1::text[])""",
                [f"game-{g}" for g in ids],
            )
        }
        latencies = [
            (at - float(recorded[(game_id, version)])) * 1000
            for game_id, version, at in receiver.got
            if (game_id, version) in recorded
        ]
        out("webhook_deliveries", len(receiver.got), f"of {expected} ({len(ids)} games set up)")
        if latencies:
            out(
                "webhook_delivery_latency_p50_ms",
                pct(latencies, 0.5),
                "ms (event commit -> receiver)",
            )
            out("webhook_delivery_latency_p99_ms", pct(latencies, 0.99), "ms")
    finally:
        procs.stop()
        server.should_exit = True
        await serving
        await pool.close()


async def _alone() -> None:
    """python -m tests.bench.webhooks: this figure alone, in a database of its own."""
    from tests.bench import run

    name, dsn = await run.create_database()
    try:
        await webhook_latency(dsn, run.REDIS_URL, f"bench-{run.RUN}:hooks:", run.out, run.pct)
    finally:
        await run.cleanup_redis(f"bench-{run.RUN}:")
        await run.drop_database(name)


if __name__ == "__main__":
    asyncio.run(_alone())
