"""One limit across replicas: two lobby processes sharing Redis accept exactly the limit."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis.asyncio as aioredis

from infra.servers.local import free_port as _free_port

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 5


@contextlib.contextmanager
def lobbies(env: dict[str, str], count: int, log: Path) -> Iterator[list[str]]:
    """`python -m services.lobby` started `count` times on free ports; their base URLs."""
    ports = [_free_port() for _ in range(count)]
    with open(log, "wb") as out:
        procs = [
            subprocess.Popen(
                [sys.executable, "-m", "services.lobby"],
                cwd=ROOT,
                env={**os.environ, **env, "LOBBY_PORT": str(port)},
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            for port in ports
        ]
    urls = [f"http://127.0.0.1:{port}" for port in ports]
    try:
        deadline = time.monotonic() + 60
        for proc, url in zip(procs, urls, strict=True):
            while True:
                if proc.poll() is not None:
                    pytest.fail(f"a lobby exited at start:\n{log.read_text()[-4000:]}")
                with contextlib.suppress(httpx.HTTPError):
                    if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                        break
                if time.monotonic() > deadline:
                    pytest.fail(f"a lobby did not come up:\n{log.read_text()[-4000:]}")
                time.sleep(0.1)
        yield urls
    finally:
        for proc in procs:
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signal.SIGINT)
        for proc in procs:
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


async def test_the_limit_holds_across_two_processes(
    database_url: str,
    redis_url: str,
    stream_prefix: str,
    redis_client: aioredis.Redis,  # removes this run's keys afterwards
    tmp_path: Path,
) -> None:
    env = {
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "STREAM_PREFIX": f"{stream_prefix}replicas-{uuid.uuid4().hex[:6]}:",
        "TURNPOST_SECRET": "replicas-test-secret-of-at-least-32-bytes",
        "RATE_LIMIT_REGISTER": f"{LIMIT}/minute",
        "LOG_LEVEL": "WARNING",
    }
    with lobbies(env, 2, tmp_path / "lobbies.log") as urls:
        clients = [httpx.AsyncClient(base_url=url, timeout=10) for url in urls]
        try:
            # a burst, alternating between the two, all in flight at once
            answers = await asyncio.gather(
                *(
                    clients[i % 2].post("/v1/players", json={"name": f"p{i}"})
                    for i in range(4 * LIMIT)
                )
            )
        finally:
            for c in clients:
                await c.aclose()
    codes = [r.status_code for r in answers]  # separate counts would accept 2 * LIMIT
    assert codes.count(201) == LIMIT, codes
    assert codes.count(429) == 3 * LIMIT, codes
    for r in answers:
        assert r.headers["ratelimit-limit"] == str(LIMIT)
        if r.status_code == 429:
            assert r.headers["content-type"].startswith("application/problem+json")
            assert r.json()["code"] == "rate_limited"
            assert 1 <= int(r.headers["retry-after"]) <= 60
