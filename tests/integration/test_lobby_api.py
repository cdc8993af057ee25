"""Lobby REST API v1 against real Postgres and Redis."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx
import msgspec
import pytest
import redis.asyncio as aioredis

from contracts.streams import LOBBY, RoomStarted
from infra.auth import issue
from infra.settings import Settings
from services.lobby.app import create_app
from tests.integration.serve import serving

SECRET = "lobby-test-secret-at-least-32-bytes"


@pytest.fixture
def settings(database_url: str, redis_url: str, stream_prefix: str) -> Settings:
    prefix = f"{stream_prefix}lobby-{uuid.uuid4().hex[:6]}:"
    return Settings(
        database_url=database_url, redis_url=redis_url, secret=SECRET, stream_prefix=prefix
    )


@pytest.fixture
async def client(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    async with serving(create_app(settings)) as c:
        yield c


async def player(client: httpx.AsyncClient, name: str = "Ada") -> dict[str, str]:
    r = await client.post("/v1/players", json={"name": name})
    assert r.status_code == 201, r.text
    body: dict[str, str] = r.json()
    return {"authorization": f"Bearer {body['token']}", "id": body["id"]}


def auth(p: dict[str, str]) -> dict[str, str]:
    return {"authorization": p["authorization"]}


def problem(r: httpx.Response, status: int, code: str) -> None:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    assert r.json()["code"] == code


async def room(client: httpx.AsyncClient, host: dict[str, str], seats: int = 3) -> dict[str, Any]:
    r = await client.post(
        "/v1/rooms", json={"game": "itty-bitty", "seats": seats}, headers=auth(host)
    )
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    return body


async def test_players_and_catalog(client: httpx.AsyncClient) -> None:
    p = await player(client, "  Grace  ")
    assert p["id"].startswith("p-")
    problem(await client.post("/v1/players", json={"name": "   "}), 422, "invalid_name")
    problem(await client.post("/v1/players", json={"name": ""}), 400, "malformed_request")
    problem(await client.post("/v1/players", json={"name": "a\u0000b"}), 400, "malformed_request")
    problem(await client.post("/v1/players", json={"name": "x" * 41}), 400, "malformed_request")
    problem(await client.post("/v1/players", json={}), 400, "malformed_request")
    problem(await client.post("/v1/players", content=b"nope"), 400, "malformed_request")
    catalog = (await client.get("/v1/catalog")).json()["games"]
    [itty] = [g for g in catalog if g["key"] == "itty-bitty"]
    assert (itty["min_seats"], itty["max_seats"]) == (2, 4)
    assert itty["bot_levels"] == ["random", "greedy"] and itty["options_schema"]
    content = (await client.get("/v1/catalog/itty-bitty/content")).json()
    assert len(content["ittybits"]) == 72 and len(content["collectors"]) == 36
    [itchy] = [g for g in catalog if g["key"] == "itchy-feet"]
    assert (itchy["min_seats"], itchy["max_seats"]) == (2, 6)
    schema = itchy["options_schema"]
    options = schema["$defs"]["Options"]["properties"]
    assert {"events", "special_items", "forbidden_items", "postcards", "characters"} <= set(options)
    assert sorted(options["characters"]["enum"]) == ["choose", "off", "random"]
    [fp] = [g for g in catalog if g["key"] == "footprints"]
    assert (fp["min_seats"], fp["max_seats"]) == (1, 6)
    fp_options = fp["options_schema"]["$defs"]["Options"]["properties"]
    assert {"advanced", "snake", "two_leaders"} <= set(fp_options)
    cards = (await client.get("/v1/catalog/footprints/content")).json()
    assert len(cards["fire_cards"]) == 20 and len(cards["footprint_cards"]) == 28
    travel = (await client.get("/v1/catalog/itchy-feet/content")).json()
    assert len(travel["countries"]) == 13 and len(travel["cards"]) == 76
    problem(await client.get("/v1/catalog/chess/content"), 404, "unknown_game")


async def test_create_room_and_its_errors(client: httpx.AsyncClient) -> None:
    host = await player(client)
    r = await room(client, host)
    assert r["status"] == "open" and r["host"] == host["id"] and r["game_id"] is None
    assert [s["player_id"] for s in r["seats"]] == [host["id"], None, None]
    bad = [
        ({"game": "chess", "seats": 2}, 422, "unknown_game"),
        ({"game": "itty-bitty", "seats": 5}, 422, "bad_seat_count"),
        ({"game": "itty-bitty", "seats": 2, "options": {"x": 1}}, 422, "invalid_options"),
        ({"game": "itty-bitty", "seats": 2, "timing": {"turn_seconds": 1}}, 422, "invalid_timing"),
        ({"game": "itty-bitty"}, 400, "malformed_request"),
        ({"game": "itty-bitty", "seats": "two"}, 400, "malformed_request"),
    ]
    for body, status, code in bad:
        problem(await client.post("/v1/rooms", json=body, headers=auth(host)), status, code)
    problem(
        await client.post("/v1/rooms", json={"game": "itty-bitty", "seats": 2}), 401, "unauthorized"
    )
    ghost = {"authorization": f"Bearer {issue(SECRET, 'p-ghost', 'ghost')}"}
    problem(
        await client.post("/v1/rooms", json={"game": "itty-bitty", "seats": 2}, headers=ghost),
        401,
        "unknown_player",
    )
    problem(await client.get("/v1/rooms/r-missing"), 404, "unknown_room")


async def test_join_leave_and_seats(client: httpx.AsyncClient) -> None:
    host, bob, cy, dee = [await player(client, n) for n in ("host", "bob", "cy", "dee")]
    r = await room(client, host)
    rid = r["id"]
    joined = await client.post(f"/v1/rooms/{rid}/join", json={"seat": 2}, headers=auth(bob))
    assert joined.status_code == 200 and joined.json()["seats"][2]["player_id"] == bob["id"]
    problem(
        await client.post(f"/v1/rooms/{rid}/join", json={"seat": 1}, headers=auth(bob)),
        409,
        "already_seated",
    )
    problem(
        await client.post(f"/v1/rooms/{rid}/join", json={"seat": 2}, headers=auth(cy)),
        409,
        "seat_taken",
    )
    problem(
        await client.post(f"/v1/rooms/{rid}/join", json={"seat": 9}, headers=auth(cy)),
        422,
        "no_such_seat",
    )
    assert (await client.post(f"/v1/rooms/{rid}/join", headers=auth(cy))).json()["seats"][1][
        "player_id"
    ] == cy["id"]
    problem(await client.post(f"/v1/rooms/{rid}/join", headers=auth(dee)), 409, "room_full")
    problem(await client.post(f"/v1/rooms/{rid}/leave", headers=auth(dee)), 409, "not_in_room")
    # the host leaves: the next person hosts
    left = (await client.post(f"/v1/rooms/{rid}/leave", headers=auth(host))).json()
    assert left["host"] == cy["id"] and left["seats"][0]["player_id"] is None
    await client.post(f"/v1/rooms/{rid}/leave", headers=auth(cy))
    last = (await client.post(f"/v1/rooms/{rid}/leave", headers=auth(bob))).json()
    assert last["status"] == "cancelled"
    problem(await client.post(f"/v1/rooms/{rid}/join", headers=auth(dee)), 409, "room_not_open")


async def test_bots_and_start_publish_room_started(
    client: httpx.AsyncClient, settings: Settings, redis_client: aioredis.Redis
) -> None:
    host, bob = await player(client, "host"), await player(client, "bob")
    rid = (await room(client, host, seats=4))["id"]
    problem(
        await client.post(f"/v1/rooms/{rid}/bots", json={"level": "greedy"}, headers=auth(bob)),
        403,
        "not_host",
    )
    problem(
        await client.post(f"/v1/rooms/{rid}/bots", json={"level": "genius"}, headers=auth(host)),
        422,
        "unknown_bot_level",
    )
    problem(
        await client.post(f"/v1/rooms/{rid}/bots", json={"level": "mcts"}, headers=auth(host)),
        422,
        "unknown_bot_level",
    )
    with_bot = (
        await client.post(
            f"/v1/rooms/{rid}/bots", json={"level": "random", "seat": 3}, headers=auth(host)
        )
    ).json()
    assert with_bot["seats"][3]["bot"] == "random" and with_bot["seats"][3]["player_id"].startswith(
        "bot-"
    )
    problem(await client.post(f"/v1/rooms/{rid}/start", headers=auth(bob)), 403, "not_host")
    problem(
        await client.post(f"/v1/rooms/{rid}/start", json={"fill_bots": None}, headers=auth(host)),
        409,
        "seats_empty",
    )
    started = await client.post(
        f"/v1/rooms/{rid}/start", json={"fill_bots": "greedy"}, headers=auth(host)
    )
    assert started.status_code == 202 and started.json()["status"] == "starting"
    assert [s["bot"] for s in started.json()["seats"]] == [None, "greedy", "greedy", "random"]
    problem(await client.post(f"/v1/rooms/{rid}/start", headers=auth(host)), 409, "room_not_open")
    entries = await redis_client.xrange(settings.stream(LOBBY))
    messages = [msgspec.json.decode(fields[b"m"], type=RoomStarted) for _, fields in entries]
    [msg] = [m for m in messages if m.room_id == rid]
    assert msg.game == "itty-bitty" and [s.bot for s in msg.seats] == [
        None,
        "greedy",
        "greedy",
        "random",
    ]


async def test_list_filters_and_pages(client: httpx.AsyncClient) -> None:
    host = await player(client)
    ids = [(await room(client, host, seats=2))["id"] for _ in range(5)]
    page = (
        await client.get("/v1/rooms", params={"game": "itty-bitty", "status": "open", "limit": 2})
    ).json()
    seen = [r["id"] for r in page["items"]]
    while page["next"]:
        page = (
            await client.get(
                "/v1/rooms", params={"status": "open", "limit": 2, "cursor": page["next"]}
            )
        ).json()
        seen += [r["id"] for r in page["items"]]
    assert [i for i in seen if i in ids] == list(reversed(ids))  # newest first, no repeats
    assert len(seen) == len(set(seen))
    assert (await client.get("/v1/rooms", params={"game": "footprints"})).json()["items"] == []
    problem(await client.get("/v1/rooms", params={"status": "lost"}), 400, "malformed_request")
    problem(await client.get("/v1/rooms", params={"limit": 0}), 400, "malformed_request")
    problem(await client.get("/v1/rooms", params={"cursor": "garbage"}), 400, "bad_cursor")
