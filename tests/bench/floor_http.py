#!/usr/bin/env python3
"""The floor under the action path: what the same load costs a Litestar app under uvicorn
(the game service's server and settings) that does nothing of ours.

    .venv/bin/python -m tests.bench.floor_http [--clients 16] [--seconds 10] [--dsn DSN]

Three routes shaped as the action cycle's (GET /v1/games/{id}, GET .../legal-actions,
POST .../actions with a JSON body decoded into a Struct), each answering a canned JSON body
of the game service's typical size; clients in two processes of their own (the action
benchmark's raw HTTP client), each cycling GET, GET, POST on one keep-alive connection.
Two floors: `bare` (no middleware, no database) and `db` (one asyncpg query per request
through a pool, as each of the game service's requests makes at least one). Prints per
floor the cycles per second and the server's CPU per cycle (its process, from /proc) and,
with `--dsn`, Postgres' CPU per cycle. tests/bench/run.py runs it beside the c16 level and
prints the game service's CPU per action over each floor's.

`serve MODE PORT [DSN]` and `load URL CLIENTS SECONDS` are its two halves (subprocesses).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import msgspec  # noqa: E402
from litestar import Litestar, Request, Response, get, post  # noqa: E402

from tests.bench.proc import postgres_ticks, ticks  # noqa: E402
from tests.bench.run import free_port  # noqa: E402

HZ = os.sysconf("SC_CLK_TCK")
# bodies of the sizes the game service answers an itty-bitty seat with (a view, its legal
# actions with their texts, an accepted move)
GAME = msgspec.json.encode({"id": "g", "version": 12, "view": {"cards": ["x" * 20] * 50}})
LEGAL = msgspec.json.encode({"version": 12, "actions": [{"type": "take", "text": "y" * 40}] * 12})
ACCEPTED = msgspec.json.encode({"version": 13, "events": [{"type": "taken", "text": "z" * 60}]})


class Move(msgspec.Struct):
    action: dict[str, Any]
    expected_version: int


def make_app(mode: str, dsn: str | None = None) -> Litestar:
    import asyncpg

    state: dict[str, Any] = {}

    async def touch() -> None:
        if mode == "db":
            await state["pool"].fetchval("SELECT $1::int", 1)

    @get("/v1/games/{game_id:str}")
    async def game(game_id: str) -> Response[bytes]:
        await touch()
        return Response(GAME, media_type="application/json")

    @get("/v1/games/{game_id:str}/legal-actions")
    async def legal(game_id: str) -> Response[bytes]:
        await touch()
        return Response(LEGAL, media_type="application/json")

    @post("/v1/games/{game_id:str}/actions", status_code=200)
    async def act(game_id: str, request: Request[Any, Any, Any]) -> Response[bytes]:
        msgspec.json.decode(await request.body(), type=Move)
        await touch()
        return Response(ACCEPTED, media_type="application/json")

    async def start() -> None:
        if mode == "db":
            state["pool"] = await asyncpg.create_pool(dsn, min_size=2, max_size=10, reset=None)

    return Litestar([game, legal, act], on_startup=[start])


def serve(mode: str, port: int, dsn: str | None) -> None:
    import uvicorn

    uvicorn.run(
        make_app(mode, dsn),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        proxy_headers=False,
    )


async def load(url: str, clients: int, seconds: float) -> dict[str, int]:
    from tests.bench.actions_load import RawHTTP

    end = time.monotonic() + seconds
    counts = {"cycles": 0, "errors": 0}
    body = msgspec.json.encode({"action": {"type": "take"}, "expected_version": 12})
    headers = {"authorization": "Bearer x"}
    post_headers = {**headers, "content-type": "application/json"}

    async def client(i: int) -> None:
        async with RawHTTP(url) as http:
            while time.monotonic() < end:
                a = await http.get(f"/v1/games/g{i}", headers)
                b = await http.get(f"/v1/games/g{i}/legal-actions", headers)
                c = await http.post(f"/v1/games/g{i}/actions", body, post_headers)
                if (a.status_code, b.status_code, c.status_code) == (200, 200, 200):
                    counts["cycles"] += 1
                else:
                    counts["errors"] += 1

    await asyncio.gather(*(client(i) for i in range(clients)))
    return counts


def _wait_up(port: int, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"the floor's server did not listen on {port}")


def floor(mode: str, clients: int, seconds: float, dsn: str | None) -> dict[str, float]:
    """One floor: cycles/s, and CPU per cycle (ms) of the server and of Postgres."""
    port = free_port()
    args = [sys.executable, "-m", "tests.bench.floor_http", "serve", mode, str(port)]
    server = subprocess.Popen([*args, *([dsn] if dsn else [])], cwd=ROOT)
    try:
        _wait_up(port)
        time.sleep(0.5)  # the pool's connections made
        n = 2 if clients > 1 else 1
        shares = [clients // n + (1 if k < clients % n else 0) for k in range(n)]
        url = f"http://127.0.0.1:{port}"
        loader = [sys.executable, "-m", "tests.bench.floor_http", "load", url]
        loads = [
            subprocess.Popen([*loader, str(share), str(seconds)], cwd=ROOT, stdout=subprocess.PIPE)
            for share in shares
        ]
        began, server_before, pg_before = time.monotonic(), ticks(server.pid), postgres_ticks()
        results = [json.loads(p.communicate(timeout=seconds + 60)[0]) for p in loads]
        wall = time.monotonic() - began
        server_cpu = (ticks(server.pid) - server_before) / HZ
        pg_cpu = (postgres_ticks() - pg_before) / HZ
    finally:
        server.terminate()
        server.wait(10)
    cycles = sum(r["cycles"] for r in results)
    return {
        "cycles_per_s": cycles / wall,
        "server_cpu_per_cycle_ms": 1000 * server_cpu / cycles if cycles else float("nan"),
        "postgres_cpu_per_cycle_ms": 1000 * pg_cpu / cycles if cycles else float("nan"),
        "errors": float(sum(r["errors"] for r in results)),
    }


def floors(clients: int, seconds: float, dsn: str | None) -> dict[str, dict[str, float]]:
    modes = ["bare", "db"] if dsn else ["bare"]
    return {mode: floor(mode, clients, seconds, dsn) for mode in modes}


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "serve":
        serve(sys.argv[2], int(sys.argv[3]), sys.argv[4] if len(sys.argv) > 4 else None)
        return
    if len(sys.argv) > 1 and sys.argv[1] == "load":
        url, clients, seconds = sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
        print(json.dumps(asyncio.run(load(url, clients, seconds))), flush=True)
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--dsn", help="a Postgres to query for the `db` floor")
    a = parser.parse_args()
    for mode, figures in floors(a.clients, a.seconds, a.dsn).items():
        for name, value in figures.items():
            print(f"floor_{mode}_c{a.clients}_{name} {value:.4g}")


if __name__ == "__main__":
    main()
