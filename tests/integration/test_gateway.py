"""The gateway (deploy/gateway/nginx.conf) in front of a real lobby: its own errors are
problems, the services' pass through, and its body limit matches theirs. Needs nginx (.ci/run
installs it); skipped without it."""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis

from infra.servers.local import free_port as _free_port
from infra.settings import Settings
from services.lobby.app import create_app as lobby_app
from tests.integration.serve import serving

ROOT = Path(__file__).resolve().parents[2]
CONF = ROOT / "deploy" / "gateway" / "nginx.conf"
NGINX = shutil.which("nginx", path=f"{os.environ.get('PATH', '')}:/usr/sbin:/sbin")
pytestmark = pytest.mark.skipif(NGINX is None, reason="nginx is not installed")


def local_config(folder: Path, port: int, lobby: int, game: int) -> str:
    """The real config, pointed at local ports and a private folder (what compose sets up)."""
    text = CONF.read_text()
    swaps = [
        (r"pid [^;]+;", f"pid {folder}/nginx.pid;"),
        (r"error_log [^;]+;", f"error_log {folder}/error.log warn;"),
        (r"access_log /dev/stdout;", "access_log off;"),
        (r"listen 8000;", f"listen 127.0.0.1:{port};"),
        (r"server lobby:8010[^;]*;", f"server 127.0.0.1:{lobby};"),
        (r"server game:8020[^;]*;", f"server 127.0.0.1:{game};"),
        (r"proxy_read_timeout 65s;", "proxy_read_timeout 2s;"),  # a quicker 504
    ]
    for pattern, replacement in swaps:
        text, n = re.subn(pattern, replacement, text)
        assert n == 1, f"{pattern!r} is not in {CONF} once"
    temp = "".join(
        f"    {kind}_temp_path {folder}/{kind};\n"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    # workers as this user (ignored unless root), so they can use the private folder
    return f"user {getpass.getuser()};\n" + text.replace("http {\n", "http {\n" + temp, 1)


@contextlib.contextmanager
def nginx(config: str, port: int) -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="turnpost-gateway-"))
    conf = folder / "nginx.conf"
    conf.write_text(config.replace("{folder}", str(folder)))
    assert NGINX is not None
    subprocess.run([NGINX, "-t", "-q", "-p", str(folder), "-c", str(conf)], check=True)
    proc = subprocess.Popen(
        [NGINX, "-p", str(folder), "-c", str(conf), "-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
                break
            assert proc.poll() is None and time.monotonic() < deadline, "nginx did not start"
            time.sleep(0.05)
        yield folder
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.asynccontextmanager
async def hung_service() -> AsyncIterator[asyncio.Server]:
    """Accepts connections and never answers: a service stuck behind the gateway."""
    held: list[asyncio.StreamWriter] = []

    async def hold(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)

    server = await asyncio.start_server(hold, "127.0.0.1", 0)
    try:
        yield server
    finally:
        server.close()
        for w in held:
            w.close()


def gateway_problem(r: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/problem+json"), r.headers
    body: dict[str, Any] = json.loads(r.content)
    assert body["status"] == status and body["code"] == code, body
    assert body["type"].startswith("https://turnpost.dev/problems/") and body["title"]
    assert body["detail"]
    return body


@pytest.fixture
def settings(
    database_url: str, redis_url: str, stream_prefix: str, redis_client: aioredis.Redis
) -> Settings:
    return Settings(
        database_url=database_url,
        redis_url=redis_url,
        secret="gateway-test-secret-at-least-32-bytes-long",
        stream_prefix=f"{stream_prefix}gateway-{uuid.uuid4().hex[:6]}:",
        rate_limit_register="4/hour",  # two bodies the service reads, then two players
    )


async def test_the_gateway_answers_problems(settings: Settings) -> None:
    port = _free_port()
    async with serving(lobby_app(settings)) as lobby, hung_service() as stuck:
        game_port = stuck.sockets[0].getsockname()[1]
        config = local_config(Path("{folder}"), port, lobby.base_url.port or 0, game_port)
        with nginx(config, port):
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=20) as gw:
                await _through(gw)
                gateway_problem(await gw.get("/v1/games/x"), 504, "gateway_timeout")
                stuck.close()
                await stuck.wait_closed()
                gateway_problem(await gw.get("/v1/games/x"), 502, "bad_gateway")
                raw = await _raw(port, b"GET /v1/catalog HTTP/1.1\r\nHost: x\r\nNo colon\r\n\r\n")
                assert raw.startswith(b"HTTP/1.1 400") and b"application/problem+json" in raw
                assert b'"code":"malformed_request"' in raw


async def _through(gw: httpx.AsyncClient) -> None:
    assert (await gw.get("/healthz")).status_code == 200
    assert (await gw.get("/v1/catalog")).status_code == 200
    gateway_problem(await gw.get("/nowhere"), 404, "not_found")
    for internal in ("/health", "/ready", "/metrics"):  # the services' stay internal
        gateway_problem(await gw.get(internal), 404, "not_found")
    # the web client: the lobby's files, the page calling /v1/* on the gateway's own origin
    page = await gw.get("/play/")
    assert page.status_code == 200 and 'type="module"' in page.text
    assert (await gw.get("/play/config.json")).json() == {"lobby_url": "", "game_url": ""}
    assert (await gw.get("/play/app.js")).headers["content-type"].startswith("text/javascript")
    # over the limit: the gateway's own 413, before the body is read
    big = b'{"name": "' + b"a" * (2 * 1024 * 1024) + b'"}'
    gateway_problem(await gw.post("/v1/players", content=big), 413, "payload_too_large")
    over = b'{"name": "' + b"a" * 65_600 + b'"}'
    gateway_problem(await gw.post("/v1/players", content=over), 413, "payload_too_large")
    # under it: the service reads it (a 41+ character name is its 400, not a 413)
    under = b'{"name": "' + b"a" * 60_000 + b'"}'
    r = await gw.post("/v1/players", content=under, headers={"content-type": "application/json"})
    assert r.status_code == 400 and r.json()["code"] == "malformed_request", r.text
    # the services' own problems pass through untouched, headers and all
    deep = b'{"name": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    assert (await gw.post("/v1/players", content=deep)).json()["code"] == "too_deep"
    made = [await gw.post("/v1/players", json={"name": f"p{i}"}) for i in range(3)]
    assert [r.status_code for r in made] == [201, 201, 429]
    assert made[2].json()["code"] == "rate_limited" and int(made[2].headers["retry-after"]) >= 1


async def _raw(port: int, request: bytes) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    await writer.drain()
    answer = await asyncio.wait_for(reader.read(65_536), 10)
    writer.close()
    return answer
