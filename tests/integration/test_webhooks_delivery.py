"""Webhooks delivered by the real parts: the relay (in this process), a notifier process
(`python -m services.notifier`), a Celery worker process on the `webhooks` queue, Postgres
and Redis; receivers are small HTTP servers in this process. Timings are shrunk (backoff
from 0.2 s, disabled after 2 s of failures, 1 s timeouts) so it runs in seconds.

What it shows: a receiver failing its first three deliveries gets the news on the fourth
with one webhook-id, the signature verified by `standardwebhooks`, and the listing shows the
four attempts; an endpoint that always fails (slowly, past the read timeout) is disabled
after the set time, while another endpoint's deliveries arrive at once all along; payloads
name nothing private; a delivery's connection goes only to an address the worker checked.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import msgspec
import pytest
import redis.asyncio as aioredis
import uvicorn
from standardwebhooks import Webhook

from contracts.notifications import RoomLinks, RoomNews
from contracts.streams import FINISHED, GAMES, NEWS, GameEvent, RoomStarted, StartedSeat
from infra.auth.bearer import issue
from infra.auth.keys import SigningKey
from infra.notify.derive import title_of
from infra.notify.ssrf import guarded_client
from infra.settings import Settings
from services.game import relay
from services.game.app import create_app
from services.game.service import GameService
from tests.integration.serve import serving
from tests.integration.tables import game_service

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]
SECRET = secrets.token_urlsafe(48)
KEY = SigningKey.from_secret(SECRET)
FAST = {
    "WEBHOOK_ALLOW_PRIVATE": "1",
    "WEBHOOK_ALLOW_HTTP": "1",
    "WEBHOOK_BACKOFF_BASE_S": "0.2",
    "WEBHOOK_BACKOFF_MAX_S": "1",
    "WEBHOOK_DISABLE_AFTER_S": "2",
    "WEBHOOK_CONNECT_TIMEOUT_S": "1",
    "WEBHOOK_READ_TIMEOUT_S": "1",
    "DEADLINE_SOON_S": "27",
}


class Receiver:
    """HTTP endpoints that record what they get: `/ok` answers 204; `/flaky/<n>` 500 to its
    first n requests, then 204; `/down` answers 500 after 1.5 s (past the read timeout);
    `/moved` redirects to `/ok`."""

    def __init__(self) -> None:
        self.got: list[tuple[str, dict[str, str], bytes, float]] = []  # path, headers, body, when
        self.port = 0

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
        path = scope["path"]
        headers = {k.decode(): v.decode() for k, v in scope["headers"]}
        self.got.append((path, headers, body, time.monotonic()))
        status, extra = 204, []
        if path.startswith("/flaky/"):
            seen = sum(1 for p, *_ in self.got if p == path)
            status = 500 if seen <= int(path.rsplit("/", 1)[1]) else 204
        elif path == "/down":
            await asyncio.sleep(1.5)
            status = 500
        elif path == "/moved":
            status, extra = 307, [(b"location", f"http://127.0.0.1:{self.port}/ok".encode())]
        await send({"type": "http.response.start", "status": status, "headers": extra})
        await send({"type": "http.response.body", "body": b""})

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def at(self, path: str) -> list[tuple[dict[str, str], bytes, float]]:
        return [(h, b, t) for p, h, b, t in self.got if p == path]


@contextlib.asynccontextmanager
async def receiving() -> AsyncIterator[Receiver]:
    receiver = Receiver()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        receiver.port = s.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(receiver, host="127.0.0.1", port=receiver.port, log_level="warning")
    )
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    try:
        yield receiver
    finally:
        server.should_exit = True
        await task


class Process:
    """A process of the stack in a session of its own, its output in a log file."""

    def __init__(self, args: list[str], env: dict[str, str], log: Path, ready: str) -> None:
        self.log, self.ready = log, ready
        with open(log, "ab") as f:
            self.proc = subprocess.Popen(
                [sys.executable, *args],
                cwd=ROOT,
                env={**os.environ, **env, "PYTHONUNBUFFERED": "1"},
                stdout=f,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    async def wait_ready(self, seconds: float = 60) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"{self.log.name} exited:\n{self.log.read_text()[-3000:]}")
            if self.ready in self.log.read_text(errors="replace"):
                return
            await asyncio.sleep(0.1)
        raise AssertionError(f"{self.log.name} not ready:\n{self.log.read_text()[-3000:]}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


class Stack:
    """One test's stack: its own key prefix, the API, a game service to set games up."""

    def __init__(self, client: httpx.AsyncClient, service: GameService, settings: Settings):
        self.client, self.service, self.settings = client, service, settings

    def auth(self, player: str) -> dict[str, str]:
        return {"authorization": f"Bearer {issue(KEY, player, player)}"}

    async def hook(self, player: str, url: str, events: list[str]) -> dict[str, Any]:
        r = await self.client.post(
            "/v1/me/webhooks", json={"url": url, "events": events}, headers=self.auth(player)
        )
        assert r.status_code == 201, r.text
        hook: dict[str, Any] = r.json()
        return hook

    async def game(self, players: list[str], **timing: Any) -> str:
        room = f"room-{uuid.uuid4()}"
        seats = [StartedSeat(seat=i, player_id=p, name=p) for i, p in enumerate(players)]
        return await self.service.create_from_room(
            RoomStarted(room_id=room, game="itty-bitty", seats=seats, timing=timing)
        )

    async def deliveries(self, player: str, hook_id: str) -> list[dict[str, Any]]:
        r = await self.client.get(
            f"/v1/me/webhooks/{hook_id}/deliveries", headers=self.auth(player)
        )
        assert r.status_code == 200, r.text
        items: list[dict[str, Any]] = r.json()["items"]
        return items

    async def hooks(self, player: str) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = (
            await self.client.get("/v1/me/webhooks", headers=self.auth(player))
        ).json()["items"]
        return items


@pytest.fixture
def log_dir(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path


@pytest.fixture
async def stack(
    database_url: str, redis_url: str, stream_prefix: str, pool: asyncpg.Pool, log_dir: Path
) -> AsyncIterator[Stack]:
    prefix = f"{stream_prefix}wh-{uuid.uuid4().hex[:6]}:"
    env = {
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "STREAM_PREFIX": prefix,
        "TURNPOST_SECRET": SECRET,
        "LOG_LEVEL": "INFO",
        **FAST,
    }
    settings = Settings(
        database_url=database_url,
        redis_url=redis_url,
        stream_prefix=prefix,
        secret=SECRET,
        webhook_allow_private=True,
        webhook_allow_http=True,
    )
    worker = Process(
        ["-m", "celery", "-A", "services.notifier.worker", "worker", "--queues", "webhooks",
         "--pool", "threads", "--concurrency", "8", "--loglevel", "info", "--without-gossip",
         "--without-mingle", "--without-heartbeat", "--hostname", f"wh-{prefix}@test"],
        env, log_dir / "worker.log", " ready.",
    )  # fmt: skip
    notifier = Process(["-m", "services.notifier"], env, log_dir / "notifier.log", "")
    stop = asyncio.Event()
    relaying = asyncio.create_task(relay.run(settings, stop, poll_seconds=0.1))
    try:
        await worker.wait_ready()
        await notifier.wait_ready(1)
        async with serving(create_app(settings)) as client:
            yield Stack(client, game_service(pool), settings)
    finally:
        stop.set()
        await relaying
        notifier.stop()
        worker.stop()


async def until(check: Any, seconds: float = 20, what: str = "") -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if result := await check():
            return result
        await asyncio.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what or check}")


def verified(secret: str, headers: dict[str, str], body: bytes) -> dict[str, Any]:
    payload: dict[str, Any] = Webhook(secret).verify(body, headers)
    return payload


async def test_a_receiver_failing_three_times_gets_the_news_once_on_the_fourth(
    stack: Stack,
) -> None:
    ada, bob = f"ada-{uuid.uuid4().hex[:6]}", f"bob-{uuid.uuid4().hex[:6]}"
    async with receiving() as receiver:
        flaky = await stack.hook(ada, receiver.url("/flaky/3"), ["game_started"])
        ok = await stack.hook(bob, receiver.url("/ok"), ["game_started", "your_turn"])
        game_id = await stack.game([ada, bob])

        got = await until(
            lambda: _at_least(receiver.at("/flaky/3"), 4), what="4 attempts at /flaky/3"
        )
        ids = {h["webhook-id"] for h, _, _ in got}
        assert len(ids) == 1 and next(iter(ids)).startswith("msg_")
        payloads = [verified(flaky["secret"], h, b) for h, b, _ in got]
        assert all(p == payloads[0] for p in payloads)  # the same body every time
        news = payloads[0]
        assert news["type"] == "game_started" and news["timestamp"].endswith("Z")
        assert news["data"] == {
            "type": "game_started",
            "game_id": game_id,
            "game": "itty-bitty",
            "title": title_of("itty-bitty"),
            "version": news["data"]["version"],
            "seat": 0,
            "player_id": ada,
            "deadline": None,
            "links": {
                "game": f"/v1/games/{game_id}",
                "legal_actions": f"/v1/games/{game_id}/legal-actions",
            },
            "outcome": None,  # game_finished's result only
            "ratings": None,  # game_finished's rating changes only
            "recorded_at": news["data"]["recorded_at"],  # when its event was recorded
        }
        assert news["data"]["recorded_at"].endswith("Z")
        # exactly these fields: no card, no view, nothing of another seat's
        assert set(news) == {"type", "timestamp", "data"}
        # the other endpoint's own news, signed with its own secret; no other's
        await until(lambda: _at_least(receiver.at("/ok"), 2), what="bob's news")
        await asyncio.sleep(0.5)
        bobs = [verified(ok["secret"], h, b) for h, b, _ in receiver.at("/ok")]
        assert sorted(p["type"] for p in bobs) == ["game_started", "your_turn"]
        assert {p["data"]["player_id"] for p in bobs} == {bob}
        assert len(receiver.at("/flaky/3")) == 4  # delivered: tried no more

        [delivery] = await until(
            lambda: _delivered(stack.deliveries(ada, flaky["id"])), what="the listing"
        )
        assert delivery["id"] in ids and delivery["type"] == "game_started"
        attempts = delivery["attempts"]
        assert [a["attempt"] for a in attempts] == [1, 2, 3, 4]
        assert [a["status_code"] for a in attempts] == [500, 500, 500, 204]
        assert all(a["error"] for a in attempts[:3]) and attempts[3]["error"] is None
        assert all(a["latency_ms"] >= 0 and a["at"].endswith("Z") for a in attempts)
        # backoff: each wait longer than the last (0.2 s doubling, less up to half)
        sent = [t for _, _, t in got]
        gaps = [b - a for a, b in itertools.pairwise(sent)]
        assert gaps[0] >= 0.09 and gaps[2] >= 0.39, gaps
        assert (await stack.hooks(ada))[0]["failing_since"] is None  # it succeeded since


async def _at_least(items: list[Any], n: int) -> list[Any] | None:
    return items if len(items) >= n else None


async def _delivered(listing: Any) -> list[dict[str, Any]] | None:
    items: list[dict[str, Any]] = await listing
    return items if items and all(d["status"] == "delivered" for d in items) else None


async def test_an_endpoint_that_always_fails_is_disabled_and_slows_no_other(
    stack: Stack,
) -> None:
    ada, bob = f"ada-{uuid.uuid4().hex[:6]}", f"bob-{uuid.uuid4().hex[:6]}"
    everything = ["your_turn", "game_started", "game_finished", "deadline_soon"]
    async with receiving() as receiver:
        down = await stack.hook(ada, receiver.url("/down"), everything)
        ok = await stack.hook(bob, receiver.url("/ok"), everything)
        made = time.monotonic()
        game_id = await stack.game([ada, bob])
        await until(lambda: _at_least(receiver.at("/ok"), 2), what="bob's news", seconds=10)
        first = receiver.at("/ok")[0][2] - made
        assert first < 1.5, first  # at once, though ada's endpoint hangs on every attempt

        hook = await until(lambda: _disabled(stack.hooks(ada)), what="ada's endpoint disabled")
        assert hook["disabled_at"].endswith("Z") and "failed" in hook["disabled_reason"]
        listed = await until(lambda: _finished(stack.deliveries(ada, down["id"])))
        assert sorted(d["type"] for d in listed) == ["game_started", "your_turn"]
        assert {d["status"] for d in listed} == {"failed"}
        attempts = [a for d in listed for a in d["attempts"]]
        assert len(attempts) >= 3 and all("ReadTimeout" in a["error"] for a in attempts)
        assert (await stack.hooks(bob))[0]["disabled"] is False

        # more news: bob's arrives at once, ada's disabled endpoint hears nothing more
        tried = len(receiver.at("/down"))
        legal = (
            await stack.client.get(f"/v1/games/{game_id}/legal-actions", headers=stack.auth(bob))
        ).json()
        before = len(receiver.at("/ok"))
        moved = time.monotonic()
        posted = await stack.client.post(
            f"/v1/games/{game_id}/actions",
            json={"action": legal["actions"][0], "expected_version": legal["version"]},
            headers=stack.auth(bob),
        )
        assert posted.status_code == 200, posted.text
        test = await stack.client.post(f"/v1/me/webhooks/{ok['id']}/test", headers=stack.auth(bob))
        assert test.status_code == 202
        got = await until(lambda: _at_least(receiver.at("/ok"), before + 1), what="the test")
        assert got[-1][2] - moved < 1.5
        webhook_test = verified(ok["secret"], got[-1][0], got[-1][1])
        assert webhook_test["type"] == "webhook_test"
        assert webhook_test["data"] == {"webhook_id": ok["id"], "player_id": bob}
        await asyncio.sleep(1)
        assert len(receiver.at("/down")) == tried
        r = await stack.client.post(f"/v1/me/webhooks/{down['id']}/test", headers=stack.auth(ada))
        assert r.status_code == 409 and r.json()["code"] == "webhook_disabled"


async def _finished(listing: Any) -> list[dict[str, Any]] | None:
    items: list[dict[str, Any]] = await listing
    return items if items and all(d["status"] != "pending" for d in items) else None


async def _disabled(listing: Any) -> dict[str, Any] | None:
    [hook] = await listing
    return hook if hook["disabled"] else None


async def test_deadline_soon_once_per_deadline(stack: Stack) -> None:
    """A 30 s clock, told 27 s before: about 3 s after the turn starts, once."""
    ada, bob = f"ada-{uuid.uuid4().hex[:6]}", f"bob-{uuid.uuid4().hex[:6]}"
    async with receiving() as receiver:
        hook = await stack.hook(ada, receiver.url("/ok"), ["deadline_soon"])
        game_id = await stack.game([ada, bob], per_move_s=30, on_timeout="wait")
        [(headers, body, _)] = await until(lambda: _at_least(receiver.at("/ok"), 1))
        news = verified(hook["secret"], headers, body)["data"]
        assert news["type"] == "deadline_soon" and news["game_id"] == game_id
        assert news["seat"] == 0 and news["deadline"].endswith("Z")
        await asyncio.sleep(2.5)  # the sweep runs every second: still once
        assert len(receiver.at("/ok")) == 1


async def test_a_delivery_connects_only_to_an_address_it_checked() -> None:
    """The worker's client (infra/notify/ssrf.py) against a live local receiver: with
    private addresses not allowed, 127.0.0.1 is refused before any connection, whatever the
    registration let through (DNS changes); allowed, it is reached; a redirect is an answer,
    never followed."""
    async with receiving() as receiver:
        strict = guarded_client(False, 1, 1)
        with pytest.raises(httpx.ConnectError, match=r"127\.0\.0\.1"):
            await asyncio.to_thread(strict.post, receiver.url("/ok"), content=b"{}")
        with pytest.raises(httpx.ConnectError, match="loopback"):
            await asyncio.to_thread(strict.post, f"http://localhost:{receiver.port}/ok")
        assert receiver.got == []
        lax = guarded_client(True, 1, 1)
        reply = await asyncio.to_thread(lax.post, receiver.url("/ok"), content=b"{}")
        assert reply.status_code == 204 and len(receiver.at("/ok")) == 1
        moved = await asyncio.to_thread(lax.post, receiver.url("/moved"), content=b"{}")
        assert moved.status_code == 307 and len(receiver.at("/ok")) == 1


async def _caught_up(r: Any, stream: str) -> bool:
    """The notifier group has read `stream` to its end and acked all of it."""
    newest = await r.xrevrange(stream, count=1)
    mine = next(g for g in await r.xinfo_groups(stream) if g["name"].decode() == "notifier")
    return bool(mine["pending"] == 0 and newest and mine["last-delivered-id"] == newest[0][0])


async def test_a_room_s_game_end_is_told_once_recorded_with_its_rating_changes(
    stack: Stack,
) -> None:
    """The end of a room's game is not told from the games stream: the lobby's ratings group
    records (and rates) it, then publishes the envelope on the FINISHED stream, whence the
    notifier tells `game_finished` with each seat's rating change; twice published, once
    delivered."""
    ada, bob = f"ada-{uuid.uuid4().hex[:6]}", f"bob-{uuid.uuid4().hex[:6]}"
    r = aioredis.Redis.from_url(stack.settings.redis_url)
    games, finished = stack.settings.stream(GAMES), stack.settings.stream(FINISHED)
    async with receiving() as receiver:
        hook = await stack.hook(ada, receiver.url("/ok"), ["game_finished"])
        game_id = await stack.game([ada, bob])
        for _ in range(2_000):  # first legal moves to the end
            loaded = await stack.service.load(game_id)
            to_act = sorted(loaded.rules.to_act(loaded.state))
            if not to_act:
                break
            action = next(iter(loaded.rules.legal_actions(loaded.state, to_act[0])))
            await stack.service.submit(
                game_id, to_act[0], msgspec.to_builtins(action), loaded.version, uuid.uuid4()
            )
        await until(lambda: _ends(r, games, game_id), what="the end on the games stream")
        await until(lambda: _caught_up(r, games), what="the notifier's read of it")
        # not told from the games stream (its rows come before its ack): it waits for the record
        assert await stack.deliveries(ada, hook["id"]) == []

        seats = [
            {"seat": 0, "player_id": ada, "name": ada, "bot": None, "rank": 1,
             "rating_before": 1.25, "rating_after": 2.5, "rating_change": 1.25},
            {"seat": 1, "player_id": bob, "name": bob, "bot": None, "rank": 2,
             "rating_before": 0.5, "rating_after": -0.25, "rating_change": -0.75},
        ]  # fmt: skip
        await stack.service.games.pool.execute(  # type: ignore[attr-defined]
            """INSERT INTO finished_games (game_id, room_id, game, rated, finished_at, options,
                   outcome, seats) VALUES ($1, 'r', 'itty-bitty', true, now(), '{}', '{}', $2)""",
            game_id,
            json.dumps(seats),
        )
        [end] = await _ends(r, games, game_id)
        for _ in range(2):  # a lobby killed between its publication and its ack: again
            await r.xadd(finished, {b"m": end})
        [(headers, body, _)] = await until(lambda: _at_least(receiver.at("/ok"), 1))
        await until(lambda: _caught_up(r, finished), what="the second copy read")
        await asyncio.sleep(0.5)
        assert len(receiver.at("/ok")) == 1
        news = verified(hook["secret"], headers, body)["data"]
        assert news["type"] == "game_finished" and news["game_id"] == game_id
        assert news["outcome"]["ranks"] in ([1, 2], [2, 1], [1, 1])
        assert news["ratings"] == [
            {k: s[k] for k in ("seat", "rating_before", "rating_after", "rating_change")}
            for s in seats
        ]
    await r.aclose()


async def _ends(r: Any, stream: str, game_id: str) -> list[bytes] | None:
    """The payloads of the game's last envelope on the games stream, once it is there."""
    found = [
        fields[b"m"]
        for _, fields in await r.xrevrange(stream, count=200)
        if (e := msgspec.json.decode(fields[b"m"], type=GameEvent)).game_id == game_id
        and e.status == "finished"
        and e.batch_end
    ]
    return found or None


async def test_a_room_s_news_reaches_its_player_s_endpoints_for_no_one_game(stack: Stack) -> None:
    """`invited` from the lobby's NEWS stream: delivered, signed, as a RoomWebhookPayload, to
    the player's endpoints that asked for it (not one kept to a game); twice published, once
    delivered."""
    bob = f"bob-{uuid.uuid4().hex[:6]}"
    r = aioredis.Redis.from_url(stack.settings.redis_url)
    async with receiving() as receiver:
        hook = await stack.hook(bob, receiver.url("/ok"), ["invited"])
        other = await stack.hook(bob, receiver.url("/turns"), ["your_turn"])
        news = RoomNews(
            type="invited",
            room_id="r-1",
            game="itty-bitty",
            title=title_of("itty-bitty"),
            player_id=bob,
            seat=1,
            by="p-ada",
            by_name="Ada",
            expires_at="2027-01-01T00:00:00Z",
            created_at="2026-12-05T00:00:00Z",
            links=RoomLinks(room="/v1/rooms/r-1", answer="/v1/rooms/r-1/invitations/decline"),
        )
        for _ in range(2):
            await r.xadd(stack.settings.stream(NEWS), {b"m": msgspec.json.encode(news)})
        [(headers, body, _)] = await until(lambda: _at_least(receiver.at("/ok"), 1))
        await until(lambda: _caught_up(r, stack.settings.stream(NEWS)), what="both read")
        await asyncio.sleep(0.5)
        assert len(receiver.at("/ok")) == 1 and receiver.at("/turns") == []
        payload = verified(hook["secret"], headers, body)
        assert payload["type"] == "invited"
        assert payload["data"] == msgspec.to_builtins(news)
        assert other["id"] != hook["id"]
    await r.aclose()
