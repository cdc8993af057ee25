#!/usr/bin/env python3
"""What the services' one middleware (infra/http/edge.py) costs a request, apart from everything else.

    .venv/bin/python -m tests.bench.edge_cost [--cycles 5000] [--rounds 3]

A Litestar app with two trivial handlers, called directly as ASGI (no network, no server),
cycles of GET, GET, POST with a valid bearer token and the rate limiter on real Redis
(leases, as the services run it; limits set high so nothing is refused), alternately
without the middleware and with it. Prints the process CPU per cycle of each, their
difference (the middleware's own cost) and its ratio to Litestar's. Needs Redis at
REDIS_URL (default redis://127.0.0.1:6379/0); its keys go under `bench-edge:`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import redis.asyncio as aioredis  # noqa: E402
from litestar import Litestar, get, post  # noqa: E402
from litestar.params import FromPath  # noqa: E402

from infra.auth.bearer import issue  # noqa: E402
from infra.http.edge import Edge  # noqa: E402
from infra.http.rate_counters import LeasedCounter, RedisBucket  # noqa: E402
from infra.http.ratelimit import RateLimiter  # noqa: E402
from infra.settings import Settings  # noqa: E402

HIGH = "1000000/second"


@get("/v1/games/{game_id:str}", sync_to_thread=False)
def a_game(game_id: FromPath[str]) -> dict[str, Any]:
    return {"id": game_id, "version": 3}


@post("/v1/games/{game_id:str}/actions", sync_to_thread=False, status_code=200)
def an_action(game_id: FromPath[str]) -> dict[str, bool]:
    return {"ok": True}


def app(with_edge: bool, settings: Settings, client: aioredis.Redis) -> Litestar:
    made = Litestar(
        [a_game, an_action],
        middleware=[Edge] if with_edge else [],
        debug=False,
        logging_config=None,
    )
    made.state.settings = settings
    made.state.rate_limiter = RateLimiter(
        LeasedCounter(RedisBucket(client, "bench-edge:")), settings
    )
    return made


async def cpu_per_cycle(target: Litestar, token: str, cycles: int) -> float:
    """Milliseconds of this process's CPU per cycle of GET, GET, POST."""
    body = b'{"type":"pass"}'

    async def call(method: str, path: str, payload: bytes) -> None:
        headers = [(b"host", b"bench"), (b"authorization", b"Bearer " + token.encode())]
        if payload:
            headers += [(b"content-length", str(len(payload)).encode())]
            headers += [(b"content-type", b"application/json")]
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "root_path": "",
            "headers": headers,
            "client": ("127.0.0.1", 5555),
            "server": ("127.0.0.1", 80),
        }
        sent = False

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": payload, "more_body": False}
            await asyncio.sleep(3600)  # never: the handlers do not read on
            return {"type": "http.disconnect"}

        statuses: list[int] = []

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                statuses.append(message["status"])

        await target(scope, receive, send)  # type: ignore[arg-type]
        if statuses != [200]:
            raise SystemExit(f"{method} {path} answered {statuses}")

    async def cycle() -> None:
        await call("GET", "/v1/games/g", b"")
        await call("GET", "/v1/games/g", b"")
        await call("POST", "/v1/games/g/actions", body)

    for _ in range(cycles // 10):  # warm: routes compiled, leases taken
        await cycle()
    start = time.process_time()
    for _ in range(cycles):
        await cycle()
    return 1000 * (time.process_time() - start) / cycles


async def main(cycles: int, rounds: int) -> None:
    settings = Settings(
        secret="b" * 48,
        rate_limit_read=HIGH,
        rate_limit_action=HIGH,
        rate_limit_write=HIGH,
    )
    token = issue(settings.keyring().signing, "bench-player", "Bench")
    client = aioredis.Redis.from_url(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    figures: dict[str, list[float]] = {"bare": [], "edge": []}
    try:
        for r in range(rounds):
            order = [False, True] if r % 2 == 0 else [True, False]
            for with_edge in order:
                ms = await cpu_per_cycle(app(with_edge, settings, client), token, cycles)
                figures["edge" if with_edge else "bare"].append(ms)
        async for key in client.scan_iter("bench-edge:*"):
            await client.delete(key)
    finally:
        await client.aclose()
    bare, edge = (statistics.median(figures[k]) for k in ("bare", "edge"))
    print(f"edge_cost_litestar_alone_cpu_per_cycle {bare:.3f} ms (GET, GET, POST)")
    print(f"edge_cost_with_edge_cpu_per_cycle {edge:.3f} ms")
    print(f"edge_cost_edge_own_cpu_per_cycle {edge - bare:.3f} ms")
    print(f"edge_cost_edge_vs_litestar_ratio {(edge - bare) / bare:.3f} x")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cycles", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    asyncio.run(main(args.cycles, args.rounds))
