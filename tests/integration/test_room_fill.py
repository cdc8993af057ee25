"""Rooms filled with bots on a timer (`fill_with_bots_after_s`), on real Postgres and Redis:
the lobby's own sweep in a served app (services/lobby/bootstrap.py, `fill_rooms`), two
lobbies racing over the same due rooms, and an auto-started room becoming a game."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import httpx
import msgspec
import pytest
import redis.asyncio as aioredis

from contracts.lobby import NewRoom
from contracts.streams import GROUPS, LOBBY, RoomStarted
from infra.settings import Settings
from infra.streams.consumer import Consumer
from infra.streams.redis import RedisStreams
from services.game.consumers import on_room_started
from services.game.scheduler import repair_rooms, resend_bot_turns
from services.lobby.app import create_app
from services.lobby.rooms import Lobby
from tests.conftest import RUN_ID, fresh_database
from tests.integration.serve import serving
from tests.integration.tables import game_service
from tests.integration.test_lobby_api import SECRET, auth, player, problem

ROOM = {"game": "itty-bitty", "seats": 3}


@pytest.fixture(scope="module")
def database_url(admin_dsn: str) -> Iterator[str]:
    """A database of this module's own: every lobby sweeps every room of its database, and
    the race below counts what two lobbies did with nobody else sweeping."""
    with fresh_database(admin_dsn, f"turnpost_fill_{RUN_ID}") as url:
        yield url


@pytest.fixture
def settings(database_url: str, redis_url: str, stream_prefix: str) -> Settings:
    prefix = f"{stream_prefix}fill-{uuid.uuid4().hex[:6]}:"
    return Settings(
        database_url=database_url, redis_url=redis_url, secret=SECRET, stream_prefix=prefix
    )


@pytest.fixture
async def client(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    async with serving(create_app(settings)) as c:
        yield c


async def new_room(client: httpx.AsyncClient, host: dict[str, str], **fill: Any) -> dict[str, Any]:
    r = await client.post("/v1/rooms", json={**ROOM, **fill}, headers=auth(host))
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    return body


async def get_room(client: httpx.AsyncClient, room_id: str) -> dict[str, Any]:
    body: dict[str, Any] = (await client.get(f"/v1/rooms/{room_id}")).json()
    return body


def moment(text: str) -> datetime:
    assert text.endswith("Z"), text  # RFC 3339 in UTC, spelt as every time the API shows
    return datetime.fromisoformat(text)


async def until(check: Callable[[], Awaitable[Any]], seconds: float = 15) -> Any:
    deadline = asyncio.get_running_loop().time() + seconds
    while asyncio.get_running_loop().time() < deadline:
        if found := await check():
            return found
        await asyncio.sleep(0.1)
    raise AssertionError("timed out")


async def bots_seated_at(pool: asyncpg.Pool, room_id: str) -> list[datetime]:
    """When each bot of the room was made (the fill's transaction time)."""
    rows = await pool.fetch(
        """SELECT p.created_at FROM room_seats rs JOIN players p ON p.id = rs.player_id
           WHERE rs.room_id = $1 AND p.bot IS NOT NULL""",
        room_id,
    )
    return [r["created_at"] for r in rows]


async def announced(redis_url: str, stream: str) -> list[RoomStarted]:
    r = aioredis.Redis.from_url(redis_url)
    try:
        entries = await r.xrange(stream)
    finally:
        await r.aclose()
    return [msgspec.json.decode(fields[b"m"], type=RoomStarted) for _, fields in entries]


async def test_fill_settings_are_shown_and_bad_ones_are_422(client: httpx.AsyncClient) -> None:
    host = await player(client)
    before = datetime.now(UTC)
    r = await new_room(
        client, host, fill_with_bots_after_s=600, fill_level="random", auto_start=True
    )
    assert (r["fill_with_bots_after_s"], r["fill_level"], r["auto_start"]) == (600, "random", True)
    due = moment(r["fill_due_at"])
    assert before + timedelta(seconds=599) < due < datetime.now(UTC) + timedelta(seconds=601)
    assert (await get_room(client, r["id"]))["fill_due_at"] == r["fill_due_at"]
    plain = await new_room(client, host)
    assert [plain[k] for k in ("fill_with_bots_after_s", "fill_due_at", "fill_level")] == [None] * 3
    assert plain["auto_start"] is False
    shortest = await new_room(client, host, fill_with_bots_after_s=5)
    assert shortest["fill_level"] == "greedy" and shortest["auto_start"] is False
    longest = await new_room(client, host, fill_with_bots_after_s=30 * 86400)
    assert moment(longest["fill_due_at"]) > datetime.now(UTC) + timedelta(days=29)
    bad: list[tuple[dict[str, Any], int, str]] = [
        ({"fill_with_bots_after_s": 4}, 422, "invalid_fill"),
        ({"fill_with_bots_after_s": 0}, 422, "invalid_fill"),
        ({"fill_with_bots_after_s": -60}, 422, "invalid_fill"),
        ({"fill_with_bots_after_s": 30 * 86400 + 1}, 422, "invalid_fill"),
        ({"fill_with_bots_after_s": 10**12}, 422, "invalid_fill"),
        ({"auto_start": True}, 422, "invalid_fill"),  # nothing would start it
        ({"fill_level": "random"}, 422, "invalid_fill"),  # nothing would seat them
        ({"fill_with_bots_after_s": 60, "fill_level": "genius"}, 422, "unknown_bot_level"),
        ({"fill_with_bots_after_s": "soon"}, 400, "malformed_request"),
        ({"auto_start": "yes", "fill_with_bots_after_s": 60}, 400, "malformed_request"),
    ]
    for body, status, code in bad:
        response = await client.post("/v1/rooms", json={**ROOM, **body}, headers=auth(host))
        problem(response, status, code)
        if code == "invalid_fill":
            assert response.json()["title"] == "Unprocessable content"
            assert "fill_with_bots_after_s" in response.json()["detail"], response.text


async def test_the_fill_comes_after_the_wait_and_not_before(
    client: httpx.AsyncClient, pool: asyncpg.Pool, settings: Settings, redis_url: str
) -> None:
    host = await player(client)
    r = await new_room(client, host, fill_with_bots_after_s=5, fill_level="random")
    due = moment(r["fill_due_at"])
    await asyncio.sleep(max(0.0, (due - datetime.now(UTC)).total_seconds() - 1.5))
    waiting = await get_room(client, r["id"])
    assert [s["player_id"] for s in waiting["seats"]][1:] == [None, None]  # not before
    assert waiting["fill_due_at"] == r["fill_due_at"]

    async def filled() -> dict[str, Any] | None:
        room = await get_room(client, r["id"])
        return room if all(s["player_id"] for s in room["seats"]) else None

    room = await until(filled)
    assert [s["bot"] for s in room["seats"]] == [None, "random", "random"]
    assert all(at >= due for at in await bots_seated_at(pool, r["id"]))  # at its moment
    # without auto_start it stays open, full, for its host to start; the fill is spent
    assert room["status"] == "open" and room["fill_due_at"] is None and room["game_id"] is None
    assert r["id"] not in {m.room_id for m in await announced(redis_url, settings.stream(LOBBY))}
    started = await client.post(f"/v1/rooms/{r['id']}/start", headers=auth(host))
    assert started.status_code == 202, started.text
    assert [s["bot"] for s in started.json()["seats"]] == [None, "random", "random"]


async def test_a_join_restarts_the_wait(client: httpx.AsyncClient, pool: asyncpg.Pool) -> None:
    host, bob = await player(client, "host"), await player(client, "bob")
    r = await new_room(client, host, fill_with_bots_after_s=5)
    first_due = moment(r["fill_due_at"])
    await asyncio.sleep(2.5)
    joined = (await client.post(f"/v1/rooms/{r['id']}/join", headers=auth(bob))).json()
    due = moment(joined["fill_due_at"])
    assert due >= first_due + timedelta(seconds=2)  # five seconds from the join, not creation
    # the first moment passed (and the sweep ran since): nothing filled
    await asyncio.sleep(max(0.0, (first_due - datetime.now(UTC)).total_seconds() + 1.5))
    assert datetime.now(UTC) < due
    waiting = await get_room(client, r["id"])
    assert [s["player_id"] for s in waiting["seats"]] == [host["id"], bob["id"], None]

    async def filled() -> dict[str, Any] | None:
        room = await get_room(client, r["id"])
        return room if room["seats"][2]["player_id"] else None

    room = await until(filled)
    assert room["seats"][2]["bot"] == "greedy"
    [seated] = await bots_seated_at(pool, r["id"])
    assert seated >= due


async def test_starting_or_closing_a_room_ends_its_wait(client: httpx.AsyncClient) -> None:
    host = await player(client)
    started = await new_room(client, host, fill_with_bots_after_s=600, auto_start=True)
    r = await client.post(f"/v1/rooms/{started['id']}/start", headers=auth(host))
    assert r.status_code == 202 and r.json()["fill_due_at"] is None
    closed = await new_room(client, host, fill_with_bots_after_s=600)
    left = (await client.post(f"/v1/rooms/{closed['id']}/leave", headers=auth(host))).json()
    assert left["status"] == "cancelled" and left["fill_due_at"] is None


async def test_a_start_without_a_body_fills_with_the_rooms_own_level(
    client: httpx.AsyncClient,
) -> None:
    """The level chosen at creation is the room's: the host's plain start uses it too (a
    body's `fill_bots` still chooses, as before)."""
    host = await player(client)
    own = await new_room(client, host, fill_with_bots_after_s=600, fill_level="random")
    r = await client.post(f"/v1/rooms/{own['id']}/start", headers=auth(host))
    assert r.status_code == 202 and [s["bot"] for s in r.json()["seats"]][1:] == ["random"] * 2
    told = await new_room(client, host, fill_with_bots_after_s=600, fill_level="random")
    r = await client.post(
        f"/v1/rooms/{told['id']}/start", json={"fill_bots": "greedy"}, headers=auth(host)
    )
    assert r.status_code == 202 and [s["bot"] for s in r.json()["seats"]][1:] == ["greedy"] * 2
    plain = await new_room(client, host)  # no fill_level: greedy, as always
    r = await client.post(f"/v1/rooms/{plain['id']}/start", headers=auth(host))
    assert r.status_code == 202 and [s["bot"] for s in r.json()["seats"]][1:] == ["greedy"] * 2


async def test_a_rematch_holds_its_seats_instead_of_a_timed_fill(
    client: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    host, bob = await player(client), await player(client, "Bob")
    old = await new_room(client, host, fill_with_bots_after_s=3600, fill_level="random")
    await client.post(f"/v1/rooms/{old['id']}/join", headers=auth(bob))
    r = await client.post(
        f"/v1/rooms/{old['id']}/start", json={"fill_bots": "greedy"}, headers=auth(host)
    )
    assert r.status_code == 202, r.text
    await Lobby(pool).game_moved(old["id"], f"g-{uuid.uuid4()}", "finished")
    new = (await client.post(f"/v1/rooms/{old['id']}/rematch", headers=auth(host))).json()
    assert (new["fill_with_bots_after_s"], new["auto_start"]) == (3600, False)
    assert new["fill_level"] == "greedy"  # the level its start chose, as its bots have
    assert [s["bot"] for s in new["seats"]] == [None, None, "greedy"]
    assert new["seats"][1]["reserved_for"] == bob["id"]
    # no timed fill: the bots would take the seat held for Bob before his answer
    assert new["fill_due_at"] is None and new["status"] == "open"
    # a room of bots and its host alone: nobody to ask, the rematch starts at once
    plain = await new_room(client, host)
    await client.post(f"/v1/rooms/{plain['id']}/start", headers=auth(host))
    await Lobby(pool).game_moved(plain["id"], f"g-{uuid.uuid4()}", "finished")
    again = (await client.post(f"/v1/rooms/{plain['id']}/rematch", headers=auth(host))).json()
    assert (again["status"], again["fill_due_at"]) == ("starting", None)


async def test_two_lobbies_racing_fill_each_room_once(
    database_url: str, pool: asyncpg.Pool, caplog: pytest.LogCaptureFixture
) -> None:
    lobby = Lobby(pool, max_open_rooms=1000)  # one host opens them all
    host = await lobby.new_player("host")
    rooms = [
        await lobby.create_room(
            host,
            NewRoom(
                game="itty-bitty",
                seats=4,
                fill_with_bots_after_s=3600,
                fill_level="random",
                auto_start=i % 2 == 0,
            ),
        )
        for i in range(30)
    ]
    ids = [r.id for r in rooms]
    auto = {r.id for r in rooms if r.auto_start}
    await pool.execute(
        "UPDATE rooms SET fill_due_at = now() - interval '1 second' WHERE id = ANY($1)", ids
    )
    other = await asyncpg.create_pool(database_url, min_size=1, max_size=4)
    started: list[RoomStarted] = []

    async def sweep(lobby: Lobby) -> None:  # as fill_rooms does, in small batches
        for _ in range(20):
            started.extend(await lobby.fill_due(limit=2))

    caplog.set_level(logging.WARNING, logger="services.lobby")
    try:
        await asyncio.gather(sweep(Lobby(pool)), sweep(Lobby(other)))
    finally:
        await other.close()
    assert not caplog.records
    assert Counter(m.room_id for m in started) == {rid: 1 for rid in auto}
    for m in started:
        assert [s.bot for s in m.seats] == [None, "random", "random", "random"]
        assert m.fill_level == "random"
    for rid in ids:
        room = await lobby.get(rid)
        assert room.status == ("starting" if rid in auto else "open"), rid
        assert [s.bot for s in room.seats] == [None, "random", "random", "random"]
        assert room.fill_due_at is None
    seated = await pool.fetchval("SELECT count(*) FROM room_seats WHERE room_id = ANY($1)", ids)
    assert seated == 4 * len(ids)


async def test_auto_start_starts_the_game_as_a_start_would(
    client: httpx.AsyncClient, pool: asyncpg.Pool, settings: Settings, redis_url: str
) -> None:
    host = await player(client)
    r = await new_room(client, host, fill_with_bots_after_s=5, fill_level="random", auto_start=True)
    # the game service's consumer of turnpost:lobby, as it runs in the game process
    service = game_service(pool)
    streams = RedisStreams.from_url(redis_url)
    consumer = Consumer(
        streams,
        settings.stream(LOBBY),
        "game",
        "test",
        on_room_started(service),
        groups=GROUPS[LOBBY],
        block_ms=100,
    )
    task = asyncio.create_task(consumer.run())
    try:

        async def game_made() -> asyncpg.Record | None:
            row: asyncpg.Record | None = await pool.fetchrow(
                "SELECT game_id::text AS game_id, to_act, bots::text FROM turns WHERE room_id = $1",
                r["id"],
            )
            return row

        turn = await until(game_made)
    finally:
        consumer.stop()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await streams.close()
    [message] = [
        m for m in await announced(redis_url, settings.stream(LOBBY)) if m.room_id == r["id"]
    ]
    assert [s.bot for s in message.seats] == [None, "random", "random"]
    assert message.seats[0].player_id == host["id"] and message.fill_level == "random"
    record = await service.record(turn["game_id"])
    assert [s.bot for s in record.seats] == [None, "random", "random"]
    assert record.room_id == r["id"] and record.fill_level == "random"
    # the game waits on every seat, the bots' among them: their turns go to the workers
    assert list(turn["to_act"]) == [0, 1, 2]
    assert msgspec.json.decode(turn["bots"]) == {"1": "random", "2": "random"}
    sent: list[tuple[str, str, int, str, int]] = []
    await pool.execute(
        "UPDATE turns SET waiting_since = now() - interval '1 minute' WHERE room_id = $1",
        r["id"],
    )
    await resend_bot_turns(pool, lambda *a: sent.append(a), after=30)
    assert {(game, seat, level) for game, g, seat, level, _ in sent if g == turn["game_id"]} == {
        ("itty-bitty", 1, "random"),
        ("itty-bitty", 2, "random"),
    }
    # the room follows its game as after any start (here the sweep's repair: no relay runs)
    await repair_rooms(pool)
    room = await get_room(client, r["id"])
    assert (room["status"], room["game_id"], room["fill_due_at"]) == (
        "playing",
        turn["game_id"],
        None,
    )


async def test_a_room_the_game_has_no_bots_for_is_passed_over(
    pool: asyncpg.Pool, caplog: pytest.LogCaptureFixture
) -> None:
    """A level gone from its game since the room was made (a deploy) fills nothing, ends its
    wait and holds up no other room: the room is for its host to start."""
    lobby = Lobby(pool)
    host = await lobby.new_player("host")
    made = [
        await lobby.create_room(
            host, NewRoom(game="itty-bitty", seats=2, fill_with_bots_after_s=60)
        )
        for _ in range(2)
    ]
    gone, fine = made[0].id, made[1].id
    await pool.execute("UPDATE rooms SET fill_level = 'retired' WHERE id = $1", gone)
    await pool.execute(
        "UPDATE rooms SET fill_due_at = now() - interval '1 second' WHERE id = ANY($1)",
        [gone, fine],
    )
    caplog.set_level(logging.WARNING, logger="services.lobby")
    for _ in range(3):  # one room a round: a room retried for ever would starve the other
        await lobby.fill_due(limit=1)
    assert (await lobby.get(gone)).fill_due_at is None
    assert [s.bot for s in (await lobby.get(fine)).seats] == [None, "greedy"]
    left = await lobby.get(gone)
    assert [s.player_id for s in left.seats] == [host, None] and left.status == "open"
    [warning] = caplog.records
    assert gone in warning.getMessage() and "retired" in warning.getMessage()
