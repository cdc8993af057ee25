"""Rematch offers over real Postgres and Redis (an in-process lobby): the first to ask offers
the rematch to the others, who are told `rematch_offered`; a decline frees the seat, or,
when the offer asked so, seats a bot in it and the others play on."""

from __future__ import annotations

import asyncpg
import httpx
import msgspec
import pytest

from contracts.notifications import RoomNews
from contracts.streams import LOBBY, NEWS
from infra.settings import Settings
from infra.streams.redis import RedisStreams
from tests.integration.test_lobby_api import (  # noqa: F401
    auth,
    client,
    finished_room,
    player,
    problem,
    settings,
)


@pytest.mark.parametrize("visibility", ["public", "unlisted"])
async def test_an_offer_is_told_and_a_decline_frees_the_seat(
    client: httpx.AsyncClient,  # noqa: F811
    settings: Settings,  # noqa: F811
    pool: asyncpg.Pool,
    visibility: str,
) -> None:
    host, bob = await player(client, "host"), await player(client, "bob")
    old = await finished_room(client, pool, host, bob, visibility)
    assert old["visibility"] == visibility
    streams = RedisStreams.from_url(settings.redis_url)
    try:
        since = await streams.latest_id(settings.stream(NEWS))
        offered = (await client.post(f"/v1/rooms/{old['id']}/rematch", headers=auth(host))).json()
        told = [
            msgspec.json.decode(m.payload, type=RoomNews)
            for m in await streams.tail(settings.stream(NEWS), since, 1000)
        ]
    finally:
        await streams.close()
    [news] = [n for n in told if n.room_id == offered["id"]]
    assert (news.type, news.player_id, news.seat, news.by) == (
        "rematch_offered",
        bob["id"],
        2,
        host["id"],
    )
    mine = (await client.get("/v1/me/invitations", headers=auth(bob))).json()["items"]
    assert [(i["room_id"], i["seat"]) for i in mine] == [(offered["id"], 2)]
    declined = await client.post(
        f"/v1/rooms/{offered['id']}/invitations/decline", headers=auth(bob)
    )
    assert declined.json()["status"] == "declined"
    room = (await client.get(f"/v1/rooms/{offered['id']}")).json()
    assert room["status"] == "open" and room["seats"][2] == {
        "seat": 2, "player_id": None, "name": None, "bot": None, "reserved_for": None,
        "rating": None,
    }  # fmt: skip
    # asking the rematch after declining: the seat is free, so it is taken (an accept; an
    # unlisted room's player of the old room needs no code)
    back = await client.post(f"/v1/rooms/{old['id']}/rematch", headers=auth(bob))
    assert back.status_code == 200, back.text
    assert back.json()["status"] == "starting"


async def test_with_bots_for_declined_the_others_play_on_at_once(
    client: httpx.AsyncClient,  # noqa: F811
    settings: Settings,  # noqa: F811
    pool: asyncpg.Pool,
) -> None:
    host, bob = await player(client, "host"), await player(client, "bob")
    old = await finished_room(client, pool, host, bob)
    problem(
        await client.post(f"/v1/rooms/{old['id']}/rematch", json={"bots": True}, headers=auth(bob)),
        400,
        "malformed_request",
    )
    offered = await client.post(
        f"/v1/rooms/{old['id']}/rematch", json={"bots_for_declined": True}, headers=auth(bob)
    )
    assert offered.status_code == 201, offered.text
    new_id = offered.json()["id"]
    streams = RedisStreams.from_url(settings.redis_url)
    try:
        since = await streams.latest_id(settings.stream(LOBBY))
        r = await client.post(f"/v1/rooms/{new_id}/invitations/decline", headers=auth(host))
        assert r.status_code == 200, r.text
        announced = await streams.tail(settings.stream(LOBBY), since, 1000)
    finally:
        await streams.close()
    room = (await client.get(f"/v1/rooms/{new_id}")).json()
    assert room["status"] == "starting"
    assert [s["bot"] for s in room["seats"]] == ["greedy", "greedy", None, "random"]
    assert room["seats"][2]["player_id"] == bob["id"]
    assert any(new_id.encode() in m.payload for m in announced)  # the game service is told


async def test_a_rematch_its_offerer_left_may_be_asked_again(
    client: httpx.AsyncClient,  # noqa: F811
    pool: asyncpg.Pool,
) -> None:
    host, bob = await player(client, "host"), await player(client, "bob")
    old = await finished_room(client, pool, host, bob)
    first = (await client.post(f"/v1/rooms/{old['id']}/rematch", headers=auth(host))).json()
    left = await client.post(f"/v1/rooms/{first['id']}/leave", headers=auth(host))
    assert left.json()["status"] == "cancelled"  # nobody seated to start it
    again = await client.post(f"/v1/rooms/{old['id']}/rematch", headers=auth(bob))
    assert again.status_code == 201 and again.json()["id"] != first["id"]
    assert again.json()["seats"][0]["reserved_for"] == host["id"]
