"""GET /v1/games/{id}/stream (Server-Sent Events) against real Postgres and Redis: resumed
without a loss or a repeat, redacted as the feed, ended with the game, heartbeats, freed on
close, and woken by a move made through another game service (over the games stream)."""

from __future__ import annotations

import asyncio
import contextlib
import random
import secrets
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import httpx
import msgspec
import pytest
from litestar import Litestar

from infra.auth.bearer import issue
from infra.auth.keys import SigningKey
from infra.eventstore.postgres import PostgresEventStore
from infra.settings import Settings
from services.game import commands, relay
from services.game.app import create_app
from services.game.live import Feeds
from services.game.repository import stream_id
from services.game.service import GameService
from tests.integration.serve import serving
from tests.integration.tables import game_service, new_game

SECRET = secrets.token_urlsafe(48)
KEY = SigningKey.from_secret(SECRET)


def settings_for(
    database_url: str, redis_url: str, prefix: str, heartbeat_s: float = 0.3
) -> Settings:
    return Settings(
        database_url=database_url,
        redis_url=redis_url,
        secret=SECRET,
        stream_prefix=prefix,
        sse_heartbeat_s=heartbeat_s,
        rate_limit_read="100000/minute",
        rate_limit_action="100000/minute",
    )


def auth(player: str) -> dict[str, str]:
    return {"authorization": f"Bearer {issue(KEY, player, player[-6:])}"}


class Served:
    def __init__(self, app: Litestar, client: httpx.AsyncClient) -> None:
        self.app, self.client = app, client

    @property
    def feeds(self) -> Feeds:
        feeds: Feeds = self.app.state.feeds
        return feeds


@contextlib.asynccontextmanager
async def served(settings: Settings) -> AsyncIterator[Served]:
    app = create_app(settings)
    async with serving(app) as client:
        yield Served(app, client)


@pytest.fixture
async def game(database_url: str, redis_url: str, stream_prefix: str) -> AsyncIterator[Served]:
    async with served(settings_for(database_url, redis_url, stream_prefix)) as s:
        yield s


@pytest.fixture
def service(pool: asyncpg.Pool) -> GameService:
    """Another GameService on the same database: its moves reach the app only through the
    store (its reader's recheck) or the games stream, never through the app's own wake-ups."""
    return game_service(pool)


class Sse:
    """An open stream, read event by event; `comments` holds what was not an event."""

    def __init__(self, response: httpx.Response) -> None:
        self.response = response
        self.comments: list[str] = []
        self.ended = False
        self._lines: asyncio.Queue[str | None] = asyncio.Queue()
        self._reading = asyncio.create_task(self._read())

    async def _read(self) -> None:
        try:
            async for line in self.response.aiter_lines():
                self._lines.put_nowait(line)
        finally:
            self._lines.put_nowait(None)

    async def line(self, seconds: float = 10) -> str | None:
        return await asyncio.wait_for(self._lines.get(), seconds)

    async def next(self, seconds: float = 10) -> dict[str, Any] | None:
        """The next event (id, event, data decoded), or None when the stream ended; raises
        TimeoutError after `seconds` without one."""
        fields: dict[str, Any] = {}
        deadline = time.monotonic() + seconds
        while True:
            line = await self.line(max(0.0, deadline - time.monotonic()))
            if line is None:
                self.ended = True
                return None
            if line == "":
                if fields:
                    return fields
                continue
            if line.startswith(":"):
                self.comments.append(line[1:].strip())
                continue
            name, _, value = line.partition(": ")
            fields[name] = msgspec.json.decode(value) if name == "data" else value

    async def close(self) -> None:
        self._reading.cancel()
        with contextlib.suppress(asyncio.CancelledError, httpx.HTTPError):
            await self._reading

    async def until(self, version: int, seconds: float = 20) -> list[dict[str, Any]]:
        got: list[dict[str, Any]] = []
        deadline = time.monotonic() + seconds
        while not got or int(got[-1]["id"]) < version:
            event = await self.next(max(0.1, deadline - time.monotonic()))
            assert event is not None, f"the stream ended at {got[-1]['id'] if got else None}"
            got.append(event)
        return got


@contextlib.asynccontextmanager
async def stream(
    client: httpx.AsyncClient, game_id: str, player: str, **kw: Any
) -> AsyncIterator[Sse]:
    headers = {**auth(player), **kw.pop("headers", {})}
    async with client.stream(
        "GET", f"/v1/games/{game_id}/stream", headers=headers, params=kw, timeout=30
    ) as r:
        assert r.status_code == 200, await r.aread()
        assert r.headers["content-type"].startswith("text/event-stream")
        assert r.headers["cache-control"] == "no-cache" and r.headers["x-accel-buffering"] == "no"
        sse = Sse(r)
        try:
            yield sse
        finally:
            await sse.close()


async def play(svc: GameService, game_id: str, moves: int, rng: random.Random) -> int:
    """Random legal moves (up to `moves`, or to the end); the version reached."""
    loaded = await svc.load(game_id)
    for _ in range(moves):
        to_act = sorted(svc.to_act(loaded.rules, loaded.state))
        if not to_act:
            break
        seat = rng.choice(to_act)
        action = rng.choice(list(loaded.rules.legal_actions(loaded.state, seat)))
        await svc.submit(
            game_id, seat, msgspec.to_builtins(action), loaded.version, uuid.uuid4(), False
        )
        loaded = await svc.load(game_id)
    return loaded.version


async def feed(client: httpx.AsyncClient, game_id: str, player: str) -> list[dict[str, Any]]:
    r = await client.get(f"/v1/games/{game_id}/events", params={"after": 0}, headers=auth(player))
    assert r.status_code == 200, r.text
    events: list[dict[str, Any]] = r.json()["events"]
    return events


async def test_resumed_with_last_event_id_nothing_is_lost_or_repeated(
    game: Served, service: GameService
) -> None:
    game_id, players = await new_game(service, [None, None, None])
    rng = random.Random(11)
    async with stream(game.client, game_id, players[0]) as sse:
        first = await sse.until(5)
        assert [int(e["id"]) for e in first] == [1, 2, 3, 4, 5]
        assert all(e["event"] == e["data"]["type"] for e in first)
    # dropped; the game moves on meanwhile, then live news while the stream is open again
    await play(service, game_id, 6, rng)
    resumed: list[dict[str, Any]] = []
    # EventSource reconnects to the same URL (?after=0) with Last-Event-ID: the header wins
    async with stream(
        game.client, game_id, players[0], after=0, headers={"Last-Event-ID": first[-1]["id"]}
    ) as sse:
        caught_up = (await service.load(game_id)).version
        resumed += await sse.until(caught_up)
        reached = await play(service, game_id, 8, rng)
        resumed += await sse.until(reached)
    got = first + resumed
    ids = [int(e["id"]) for e in got]
    assert ids == sorted(set(ids)), "an event repeated or out of order"
    # exactly the feed's items, as the feed gives them to this seat
    assert [e["data"] for e in got] == await feed(game.client, game_id, players[0])
    assert ids == list(range(1, reached + 1))  # itty bitty shows every event to every seat


SECRETS_DEAL = 20261206


async def test_another_seats_private_part_never_appears(
    game: Served, service: GameService, pool: asyncpg.Pool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A fixed deal: after 30 random moves seat 0 still holds ittybits it was dealt or drew
    # face down (about 1 deal in 550 leaves it none, and the test nothing secret to look for)
    monkeypatch.setattr(commands, "new_seed", lambda: SECRETS_DEAL)
    game_id, players = await new_game(service, [None, None, None])
    async with (
        stream(game.client, game_id, players[1]) as theirs,
        stream(game.client, game_id, players[0]) as mine,
    ):
        version = await play(service, game_id, 30, random.Random(5))
        seen_by_1 = await theirs.until(version)
        seen_by_0 = await mine.until(version)
    # seat 0's secrets, from the store: the collectors it kept (face down, even once
    # completed), and the ittybits it was dealt or drew from the deck that it still holds
    kept: set[str] = set()
    dealt: set[str] = set()
    for e in await PostgresEventStore(pool).read(stream_id(game_id), after=0, limit=10_000):
        data = msgspec.json.decode(e.data)
        if data.get("seat") != 0:
            continue
        if e.type == "collector_kept":
            kept.add(data["kept"])
        if e.type == "ittybits_dealt" or (e.type == "ittybit_taken" and not data["from_market"]):
            dealt.update(data["cards"] if "cards" in data else [data["card"]])
    hand = (await service.load(game_id)).state.hands[0]
    secret = kept | (dealt & set(hand.ittybits))
    assert kept and dealt & set(hand.ittybits)
    text_1 = msgspec.json.encode(seen_by_1).decode()
    text_0 = msgspec.json.encode(seen_by_0).decode()
    assert not [c for c in secret if c in text_1], "seat 1 saw seat 0's cards"
    assert all(c in text_0 for c in secret)  # seat 0 sees its own
    assert [e["data"] for e in seen_by_1] == await feed(game.client, game_id, players[1])


async def test_the_stream_ends_after_the_game_finishes(game: Served, service: GameService) -> None:
    game_id, players = await new_game(service, [None, None])
    async with stream(game.client, game_id, players[0]) as sse:
        await sse.until(1)
        last = await play(service, game_id, 5_000, random.Random(3))  # to the end
        loaded = await service.load(game_id)
        assert loaded.rules.outcome(loaded.state) is not None
        events = await sse.until(last, seconds=60)
        assert await sse.next() is None and sse.ended  # closed by the server, right after
    assert int(events[-1]["id"]) == last
    # from the start, a finished game's stream gives it all and ends
    async with stream(game.client, game_id, players[1], after=last - 3) as sse:
        assert [int(e["id"]) for e in await sse.until(last)] == [last - 2, last - 1, last]
        assert await sse.next() is None
    # nothing after the end: 204, which tells an EventSource to stop reconnecting
    r = await game.client.get(
        f"/v1/games/{game_id}/stream", headers={**auth(players[0]), "Last-Event-ID": str(last)}
    )
    assert r.status_code == 204 and r.content == b""


async def test_heartbeats_while_quiet(game: Served, service: GameService) -> None:
    game_id, players = await new_game(service, [None, None])
    head = (await service.load(game_id)).version
    async with stream(game.client, game_id, players[0], after=head) as sse:
        with pytest.raises(TimeoutError):
            await sse.next(seconds=1.2)  # 0.3 s heartbeats, no event
        assert sse.comments[0].startswith("game ") and sse.comments.count("heartbeat") >= 2


async def test_a_closed_connection_frees_what_it_held(game: Served, service: GameService) -> None:
    game_id, players = await new_game(service, [None, None])
    other_id, others = await new_game(service, [None, None])
    head = (await service.load(game_id)).version
    async with contextlib.AsyncExitStack() as held:
        for p in (*players, None):
            who = p or f"spectator-{uuid.uuid4()}"
            sse = await held.enter_async_context(stream(game.client, game_id, who, after=head))
            assert sse.comments == [] and await _comment(sse)
        await _comment(await held.enter_async_context(stream(game.client, other_id, others[0])))
        assert game.feeds.followed() == {game_id: 3, other_id: 1}  # one reader per game
        version = await play(service, game_id, 2, random.Random(1))
    for _ in range(100):  # the server hears of each close within moments
        if not game.feeds.followed():
            break
        await asyncio.sleep(0.05)
    assert game.feeds.followed() == {}, "a closed stream still holds its game"
    assert version > head


async def _comment(sse: Sse) -> str:
    """Waits for the opening comment (the stream is served from then on)."""
    line = await sse.line(5)
    assert line is not None and line.startswith(":"), line
    return line


async def test_problems(game: Served, service: GameService) -> None:
    game_id, players = await new_game(service, [None, None])
    url = f"/v1/games/{game_id}/stream"

    async def problem(status: int, code: str, path: str = url, **kw: Any) -> None:
        r = await game.client.get(path, **kw)
        assert r.status_code == status, r.text
        assert r.headers["content-type"].startswith("application/problem+json")
        assert r.json()["code"] == code

    await problem(401, "unauthorized")
    me = auth(players[0])
    await problem(404, "unknown_game", f"/v1/games/{uuid.uuid4()}/stream", headers=me)
    for bad in ("x", "-1", "1.5", "9" * 30):
        await problem(400, "bad_last_event_id", headers={**me, "Last-Event-ID": bad})
    await problem(400, "after_beyond_version", headers={**me, "Last-Event-ID": "999"})
    await problem(400, "after_beyond_version", params={"after": 999}, headers=me)
    await problem(400, "malformed_request", params={"after": -1}, headers=me)
    # a spectator reads the public stream, as the feed
    spectator = f"spectator-{uuid.uuid4()}"
    async with stream(game.client, game_id, spectator) as sse:
        seen = await sse.until(3)
    assert [e["data"] for e in seen] == (await feed(game.client, game_id, spectator))[:3]


async def test_a_move_through_another_service_wakes_the_stream(
    database_url: str, redis_url: str, stream_prefix: str
) -> None:
    """Two game services on one database and Redis, and the relay: a move posted to B
    reaches a stream served by A through the games stream (A's reader rechecks the store
    only every 60 s here, so nothing else could bring it in time)."""
    prefix = f"{stream_prefix}sse-{uuid.uuid4().hex[:6]}:"
    settings = settings_for(database_url, redis_url, prefix, heartbeat_s=60)
    stop = asyncio.Event()
    relaying = asyncio.create_task(relay.run(settings, stop, poll_seconds=0.1))
    try:
        async with served(settings) as a, served(settings) as b:
            pool = await asyncpg.create_pool(database_url, min_size=1, max_size=2)
            try:
                game_id, players = await new_game(game_service(pool), [None, None])
            finally:
                await pool.close()
            legal = (
                await b.client.get(f"/v1/games/{game_id}/legal-actions", headers=auth(players[0]))
            ).json()
            async with stream(a.client, game_id, players[1], after=legal["version"]) as sse:
                await _comment(sse)
                began = time.monotonic()
                posted = await b.client.post(
                    f"/v1/games/{game_id}/actions",
                    json={"action": legal["actions"][0], "expected_version": legal["version"]},
                    headers=auth(players[0]),
                )
                assert posted.status_code == 200, posted.text
                event = await sse.next(seconds=10)
                took = time.monotonic() - began
            assert event is not None and int(event["id"]) == legal["version"] + 1
            assert took < 5, took
    finally:
        stop.set()
        await relaying
