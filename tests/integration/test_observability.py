"""Metrics and probes against real Postgres and Redis: /metrics of both services, append and
conflict counters, the relay's lag on its port, /ready apart from /health."""

from __future__ import annotations

import asyncio
import secrets
import socket
import uuid
from collections.abc import AsyncIterator, Sequence
from typing import Any

import asyncpg
import httpx
import msgspec
import pytest
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from infra.auth.bearer import issue
from infra.auth.keys import SigningKey
from infra.eventstore.api import AppendResult, NewEvent, Turn
from infra.eventstore.postgres import PostgresEventStore
from infra.settings import Settings
from services.game import relay
from services.game.app import create_app as game_app
from services.game.live import Waiters
from services.game.repository import PostgresGamesRepository
from services.game.service import GameService
from services.lobby.app import create_app as lobby_app
from tests.integration.serve import serving
from tests.integration.tables import game_service, new_game

SECRET = secrets.token_urlsafe(48)
KEY = SigningKey.from_secret(SECRET)
DURATION = "turnpost_http_request_duration_seconds"


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # nothing listens there once closed


def samples(text: str, name: str) -> list[Any]:
    return [s for f in text_string_to_metric_families(text) for s in f.samples if s.name == name]


def value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


@pytest.fixture
def settings(database_url: str, redis_url: str, stream_prefix: str) -> Settings:
    prefix = f"{stream_prefix}obs-{uuid.uuid4().hex[:6]}:"
    return Settings(
        database_url=database_url, redis_url=redis_url, secret=SECRET, stream_prefix=prefix
    )


@pytest.fixture
async def game(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    async with serving(game_app(settings)) as c:
        yield c


@pytest.fixture
async def lobby(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    async with serving(lobby_app(settings)) as c:
        yield c


async def test_game_metrics_label_the_route_template_not_the_path(
    game: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    game_id, players = await new_game(game_service(pool), [None, None])
    auth = {"authorization": f"Bearer {issue(KEY, players[0], 'p0')}"}
    assert (await game.get(f"/v1/games/{game_id}", headers=auth)).status_code == 200
    r = await game.get("/metrics")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    counts = {
        (s.labels["method"], s.labels["route"], s.labels["status"]): s.value
        for s in samples(r.text, f"{DURATION}_count")
    }
    assert counts[("GET", "/v1/games/{game_id}", "200")] >= 1
    assert game_id not in r.text and players[0] not in r.text  # no raw ids, no player ids
    assert "turnpost_appends_total" in r.text  # the game's own counters are on the same page


async def test_lobby_metrics_and_errors_by_status(lobby: httpx.AsyncClient) -> None:
    room = uuid.uuid4().hex
    missing = await lobby.get(f"/v1/rooms/{room}")  # no such room: a 404 on a templated route
    assert missing.status_code == 404
    text = (await lobby.get("/metrics")).text
    routes = {(s.labels["route"], s.labels["status"]) for s in samples(text, f"{DURATION}_count")}
    assert ("/v1/rooms/{room_id}", "404") in routes
    assert room not in text


async def test_metrics_and_probes_stay_out_of_the_schema_and_the_rate_limit(
    settings: Settings,
) -> None:
    strict = msgspec.structs.replace(settings, rate_limit_read="1/minute")
    async with serving(game_app(strict)) as game:
        schema = (await game.get("/schema/openapi.json")).json()
        assert not {"/metrics", "/ready", "/health"} & set(schema["paths"])
        for _ in range(3):  # over a limit of one a minute, were it counted
            assert (await game.get("/metrics")).status_code == 200
            assert (await game.get("/ready")).status_code == 200


class RacedStore(PostgresEventStore):
    """Before its first append, lets `rival` move first: the append then finds the stream
    moved on (a real conflict in Postgres)."""

    rival: Any = None

    async def append(
        self,
        stream_id: str,
        events: Sequence[NewEvent],
        expected_version: int,
        turn: Turn | None = None,
    ) -> AppendResult:
        if self.rival is not None:
            rival, self.rival = self.rival, None
            await rival()
        return await super().append(stream_id, events, expected_version, turn)


async def test_appends_and_conflicts_are_counted(pool: asyncpg.Pool) -> None:
    game_id, _ = await new_game(game_service(pool), [None, None, None])
    other = game_service(pool)
    store = RacedStore(pool)
    raced = GameService(store, PostgresGamesRepository(pool), Waiters())
    loaded = await raced.load(game_id)
    rules = loaded.rules

    async def first_move(svc: GameService, seat: int) -> None:
        action = msgspec.to_builtins(rules.legal_actions(loaded.state, seat)[0])
        await svc.submit(game_id, seat, action, loaded.version, uuid.uuid4())

    store.rival = lambda: first_move(other, 1)
    appends, conflicts = (
        value("turnpost_appends_total", game="itty-bitty"),
        value("turnpost_append_conflicts_total", game="itty-bitty"),
    )
    await first_move(raced, 0)  # loses the race once, decides again, appends
    assert value("turnpost_append_conflicts_total", game="itty-bitty") == conflicts + 1
    assert value("turnpost_appends_total", game="itty-bitty") == appends + 2
    assert (await raced.load(game_id)).version == loaded.version + 2


async def test_relay_lag_on_its_metrics_port(settings: Settings) -> None:
    port = closed_port()
    stop = asyncio.Event()
    task = asyncio.create_task(
        relay.run(msgspec.structs.replace(settings, metrics_port=port), stop, poll_seconds=0.1)
    )
    try:
        async with httpx.AsyncClient() as client:
            for _ in range(100):
                try:
                    text = (await client.get(f"http://127.0.0.1:{port}/metrics")).text
                    if samples(text, "turnpost_relay_lag_seconds"):
                        break
                except httpx.TransportError:
                    pass
                await asyncio.sleep(0.05)
        (lag,) = samples(text, "turnpost_relay_lag_seconds")
        (events,) = samples(text, "turnpost_relay_lag_events")
        assert lag.value >= 0 and events.value >= 0
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)


@pytest.mark.parametrize("make_app", [game_app, lobby_app], ids=["game", "lobby"])
async def test_ready_fails_while_redis_is_away_and_health_does_not(
    settings: Settings, make_app: Any
) -> None:
    async with serving(make_app(settings)) as up:
        assert (await up.get("/ready")).json() == {"status": "ready"}
        assert (await up.get("/health")).status_code == 200
    away = msgspec.structs.replace(settings, redis_url=f"redis://127.0.0.1:{closed_port()}/0")
    async with serving(make_app(away)) as down:
        r = await down.get("/ready")
        assert r.status_code == 503, r.text
        assert r.headers["content-type"].startswith("application/problem+json")
        assert r.json()["code"] == "not_ready" and "redis" in r.json()["detail"]
        assert "postgres" not in r.json()["detail"]
        assert (await down.get("/health")).status_code == 200  # liveness: no restart for it
