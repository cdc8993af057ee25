"""Live feeds under load: 1,000 idle SSE subscribers of one game on one game-service process.

Reports the service's memory growth with them (RSS before they connect, after) and, for each
of a series of moves posted to the game, the time from just before the POST to the moment
the last subscriber has the move's event (p50/p99 over the moves). The subscribers are
processes of their own (`python -m tests.bench.sse subscribe ...`, raw sockets, a few
hundred connections each), so their parsing does not starve the service.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import secrets
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import asyncpg
import httpx

from contracts.streams import RoomStarted, StartedSeat
from infra.auth.bearer import issue
from infra.auth.keys import SigningKey
from infra.eventstore.postgres import PostgresEventStore
from services.game.live import Waiters
from services.game.repository import PostgresGamesRepository
from services.game.service import GameService

ROOT = Path(__file__).resolve().parents[2]
SUBSCRIBERS = int(os.environ.get("BENCH_SSE_SUBSCRIBERS", "1000"))
CLIENT_PROCESSES = 2
MOVES = int(os.environ.get("BENCH_SSE_MOVES", "30"))
MOVE_GAP_S = 0.2  # between moves: each is measured alone
SECRET = secrets.token_urlsafe(48)

Out = Callable[..., None]
Pct = Callable[[list[float], float], float]


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


async def fanout(dsn: str, redis_url: str, prefix: str, port: int, out: Out, pct: Pct) -> None:
    pool = await asyncpg.create_pool(dsn, min_size=1, max_size=4)
    svc = GameService(PostgresEventStore(pool), PostgresGamesRepository(pool), Waiters())
    room = f"bench-sse-{uuid.uuid4()}"
    players = [f"{room}-{s}" for s in range(2)]
    game_id = await svc.create_from_room(
        RoomStarted(
            room_id=room,
            game="itty-bitty",
            seats=[StartedSeat(seat=s, player_id=p, name=p) for s, p in enumerate(players)],
        )
    )
    key = SigningKey.from_secret(SECRET)
    tokens = [issue(key, p, p[-6:]) for p in players] + [issue(key, "bench-spectator", "spec")]
    env = {
        **os.environ,
        "DATABASE_URL": dsn,
        "REDIS_URL": redis_url,
        "STREAM_PREFIX": prefix,
        "GAME_PORT": str(port),
        "TURNPOST_SECRET": SECRET,
        "LOG_LEVEL": "WARNING",
        "PYTHONUNBUFFERED": "1",
        "RATE_LIMIT_READ": "1000000/minute",
        "RATE_LIMIT_ACTION": "1000000/minute",
    }
    server = _server(env)
    clients: list[subprocess.Popen[str]] = []
    url = f"http://127.0.0.1:{port}"
    try:
        async with httpx.AsyncClient(base_url=url, timeout=30) as http:
            auth = [{"authorization": f"Bearer {t}"} for t in tokens]
            for _ in range(600):
                with contextlib.suppress(httpx.HTTPError):
                    if (await http.get(f"/v1/games/{game_id}", headers=auth[0])).status_code == 200:
                        break
                await asyncio.sleep(0.1)
            for _ in range(20):  # warm: the game cached, the first requests' allocations made
                await http.get(f"/v1/games/{game_id}/events", headers=auth[2])
            head = (await http.get(f"/v1/games/{game_id}", headers=auth[0])).json()["version"]
            before = rss_mb(server.pid)
            began = time.monotonic()
            per = SUBSCRIBERS // CLIENT_PROCESSES
            for i in range(CLIENT_PROCESSES):
                n = per if i < CLIENT_PROCESSES - 1 else SUBSCRIBERS - per * i
                clients.append(_client(port, f"/v1/games/{game_id}/stream?after={head}", n, tokens))
            for c in clients:
                assert c.stdout is not None
                ready = await asyncio.to_thread(c.stdout.readline)
                assert ready.startswith("ready"), ready
            out("sse_subscribers_connected", SUBSCRIBERS, f"in {time.monotonic() - began:.1f} s")
            await asyncio.sleep(1)
            connected = rss_mb(server.pid)
            # the moves: seat by seat, random legal actions, one at a time
            rng = random.Random(3)
            sent: dict[int, float] = {}
            cpu0 = _cpu(server.pid)
            t_moves = time.monotonic()
            for _ in range(MOVES):
                game = (await http.get(f"/v1/games/{game_id}", headers=auth[0])).json()
                if not game["to_act"]:
                    break
                seat = rng.choice(game["to_act"])
                legal = (
                    await http.get(f"/v1/games/{game_id}/legal-actions", headers=auth[seat])
                ).json()
                t0 = time.time()
                r = await http.post(
                    f"/v1/games/{game_id}/actions",
                    json={
                        "action": rng.choice(legal["actions"]),
                        "expected_version": legal["version"],
                    },
                    headers=auth[seat],
                )
                if r.status_code == 200:
                    sent[r.json()["version"]] = t0
                await asyncio.sleep(MOVE_GAP_S)
            await asyncio.sleep(1)
            cpu = (_cpu(server.pid) - cpu0) / (time.monotonic() - t_moves)
            after = rss_mb(server.pid)
        last: dict[int, float] = {}
        count: dict[int, int] = {}
        for c in clients:
            assert c.stdin is not None and c.stdout is not None
            c.stdin.close()
            seen = json.loads(await asyncio.to_thread(c.stdout.read))
            for v, (t, k) in seen.items():
                last[int(v)] = max(last.get(int(v), 0.0), t)
                count[int(v)] = count.get(int(v), 0) + k
        lat = [1000 * (last[v] - t0) for v, t0 in sent.items() if count.get(v) == SUBSCRIBERS]
        out("sse_rss_before_mb", before, "MB")
        out("sse_rss_growth_1000_mb", connected - before, f"MB (target < 60; {SUBSCRIBERS} idle)")
        out("sse_rss_growth_after_moves_mb", after - before, "MB")
        out("sse_moves_delivered_to_all", len(lat), f"of {len(sent)}")
        out("sse_append_to_last_subscriber_p50_ms", pct(lat, 0.5), "ms")
        out("sse_append_to_last_subscriber_p99_ms", pct(lat, 0.99), "ms (target < 1000)")
        out("sse_cpu_game_service_during_moves", 100 * cpu, "%")
    finally:
        for c in clients:
            if c.poll() is None:
                c.kill()
                c.wait()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
        await pool.close()


def _server(env: dict[str, str]) -> subprocess.Popen[bytes]:
    log = Path(tempfile.gettempdir()) / f"turnpost-bench-sse-{os.getpid()}.log"
    with open(log, "wb") as f:
        return subprocess.Popen(
            [sys.executable, "-m", "services.game"],
            cwd=ROOT,
            env=env,
            stdout=f,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def _client(port: int, path: str, n: int, tokens: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.bench.sse",
            "subscribe",
            *(str(port), path, str(n)),
            json.dumps(tokens),
        ],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def _cpu(pid: int) -> float:
    from tests.bench.proc import ticks

    return ticks(pid) / os.sysconf("SC_CLK_TCK")


# -- the subscribers' side (its own process) ------------------------------------------------


async def _subscriber(
    port: int, path: str, token: str, seen: dict[int, list[float]], ready: asyncio.Queue[bool]
) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        f"GET {path} HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer {token}\r\n"
        "Accept: text/event-stream\r\n\r\n".encode()
    )
    status = await reader.readline()
    assert b" 200 " in status, status
    buf = b""
    told = False
    while chunk := await reader.read(65_536):
        now = time.time()
        buf += chunk
        frames = buf.split(b"\n\n")
        buf = frames.pop()
        for frame in frames:
            if not told and b": game " in frame:
                told = True
                ready.put_nowait(True)
            m = re.search(rb"id: (\d+)\n", frame + b"\n")
            if m:
                entry = seen.setdefault(int(m.group(1)), [0.0, 0])
                entry[0] = max(entry[0], now)
                entry[1] += 1


async def _subscribe(port: int, path: str, n: int, tokens: list[str]) -> None:
    seen: dict[int, list[float]] = {}
    ready: asyncio.Queue[bool] = asyncio.Queue()
    tasks = []
    for i in range(n):
        tasks.append(asyncio.create_task(_subscriber(port, path, tokens[i % 3], seen, ready)))
        if i % 50 == 49:
            await asyncio.sleep(0.05)  # a burst the listen backlog takes
    for _ in range(n):
        await ready.get()
    print("ready", flush=True)
    await asyncio.to_thread(sys.stdin.read)  # until the bench closes it
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    print(json.dumps({v: e for v, e in seen.items()}), flush=True)


async def _alone() -> None:
    """This measurement alone, on a database and stream prefix of its own."""
    from tests.bench import run

    name, dsn = await run.create_database()
    prefix = f"bench-sse-{uuid.uuid4().hex[:8]}:"
    try:
        await fanout(dsn, run.REDIS_URL, prefix, run.free_port(), run.out, run.pct)
    finally:
        await run.cleanup_redis(prefix)
        await run.drop_database(name)


def main(argv: list[str]) -> int:
    if not argv:
        asyncio.run(_alone())
        return 0
    if argv[:1] == ["subscribe"]:
        _, port, path, n, tokens = argv
        asyncio.run(_subscribe(int(port), path, int(n), json.loads(tokens)))
        return 0
    print(f"usage: python -m tests.bench.sse [subscribe PORT PATH N TOKENS_JSON]: {argv}")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
