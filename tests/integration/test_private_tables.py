"""Private tables and invitations over real Postgres and Redis (an in-process lobby): an
unlisted room is never listed and wants its code, which only its members see; a seat held
for an invited player is nobody else's; the invited player is told, accepts by joining or
declines; the hold ends with its time."""

from __future__ import annotations

import asyncpg
import httpx
import msgspec

from contracts.notifications import RoomNews
from contracts.streams import NEWS
from infra.settings import Settings
from infra.streams.redis import RedisStreams
from tests.integration.test_lobby_api import auth, client, player, problem, settings  # noqa: F401


async def listed(client: httpx.AsyncClient, room_id: str) -> bool:  # noqa: F811
    cursor = None
    while True:
        params = {"limit": 100, **({"cursor": cursor} if cursor else {})}
        page = (await client.get("/v1/rooms", params=params)).json()
        if any(r["id"] == room_id for r in page["items"]):
            return True
        cursor = page["next"]
        if cursor is None:
            return False


def near_miss(code: str) -> str:
    """The code with its last character changed (never the code itself)."""
    return code[:-1] + ("x" if code[-1] != "x" else "y")


async def test_an_unlisted_room_is_joined_by_its_code_alone_and_never_listed(
    client: httpx.AsyncClient,  # noqa: F811
) -> None:
    ada, bob, cy = [await player(client, n) for n in ("Ada", "Bob", "Cy")]
    body = {"game": "itty-bitty", "seats": 3, "visibility": "unlisted"}
    made = (await client.post("/v1/rooms", json=body, headers=auth(ada))).json()
    code = made["invite_code"]
    assert made["visibility"] == "unlisted" and code and len(code) >= 16
    assert not await listed(client, made["id"])
    # its code only for its members: not to a stranger, nor to anyone without a token
    assert (await client.get(f"/v1/rooms/{made['id']}")).json()["invite_code"] is None
    seen = await client.get(f"/v1/rooms/{made['id']}", headers=auth(bob))
    assert seen.json()["invite_code"] is None
    assert (await client.get(f"/v1/rooms/{made['id']}", headers=auth(ada))).json()[
        "invite_code"
    ] == code
    mine = (await client.get("/v1/me/rooms", headers=auth(ada))).json()["items"]
    assert [r["invite_code"] for r in mine if r["id"] == made["id"]] == [code]

    join = f"/v1/rooms/{made['id']}/join"
    problem(await client.post(join, headers=auth(bob)), 403, "bad_invite_code")
    problem(
        await client.post(join, json={"invite_code": near_miss(code)}, headers=auth(bob)),
        403,
        "bad_invite_code",
    )
    for wrong in ("é" * 16, "\u202e" + code):  # any text at all: refused, never a 500
        r = await client.post(join, json={"invite_code": wrong}, headers=auth(bob))
        problem(r, 403, "bad_invite_code")
    joined = await client.post(join, json={"invite_code": code}, headers=auth(bob))
    assert joined.status_code == 200 and joined.json()["invite_code"] == code
    # a public room shows no code, and needs none
    public = (
        await client.post("/v1/rooms", json={"game": "itty-bitty", "seats": 2}, headers=auth(cy))
    ).json()
    assert public["visibility"] == "public" and public["invite_code"] is None
    assert await listed(client, public["id"])


async def test_an_invited_player_is_told_and_their_seat_is_nobody_else_s(
    client: httpx.AsyncClient,  # noqa: F811
    settings: Settings,  # noqa: F811
    pool: asyncpg.Pool,
) -> None:
    ada, bob, cy, dee = [await player(client, n) for n in ("Ada", "Bob", "Cy", "Dee")]
    body = {"game": "itty-bitty", "seats": 3, "visibility": "unlisted"}
    room = (await client.post("/v1/rooms", json=body, headers=auth(ada))).json()
    invitations = f"/v1/rooms/{room['id']}/invitations"
    streams = RedisStreams.from_url(settings.redis_url)
    try:
        since = await streams.latest_id(settings.stream(NEWS))
        r = await client.post(
            invitations, json={"player_id": bob["id"], "seat": 2}, headers=auth(ada)
        )
        assert r.status_code == 201, r.text
        invitation = r.json()
        assert (invitation["seat"], invitation["status"]) == (2, "pending")
        assert invitation["invited_by_name"] == "Ada"
        told = [
            msgspec.json.decode(m.payload, type=RoomNews)
            for m in await streams.tail(settings.stream(NEWS), since, 1000)
        ]
    finally:
        await streams.close()
    [news] = [n for n in told if n.room_id == room["id"]]
    assert (news.type, news.player_id, news.seat, news.by_name) == ("invited", bob["id"], 2, "Ada")
    assert news.expires_at == invitation["expires_at"]
    # nothing of the room's code in the news: the invitation is the key
    assert room["invite_code"] not in msgspec.json.encode(news).decode()

    seats = (await client.get(f"/v1/rooms/{room['id']}")).json()["seats"]
    assert seats[2]["reserved_for"] == bob["id"] and seats[2]["player_id"] is None
    mine = (await client.get("/v1/me/invitations", headers=auth(bob))).json()["items"]
    assert [(i["room_id"], i["seat"]) for i in mine] == [(room["id"], 2)]
    # nobody else takes it: not by naming it, not as the first free seat, not as a bot
    join = f"/v1/rooms/{room['id']}/join"
    code = {"invite_code": room["invite_code"]}
    problem(
        await client.post(join, json={**code, "seat": 2}, headers=auth(cy)), 409, "seat_reserved"
    )
    assert (await client.post(join, json=code, headers=auth(cy))).json()["seats"][1][
        "player_id"
    ] == cy["id"]
    problem(await client.post(join, json=code, headers=auth(dee)), 409, "room_full")
    bots = f"/v1/rooms/{room['id']}/bots"
    r = await client.post(bots, json={"level": "random", "seat": 2}, headers=auth(ada))
    problem(r, 409, "seat_reserved")
    # Bob accepts by joining, with no code: the held seat is his
    accepted = (await client.post(join, headers=auth(bob))).json()
    assert accepted["seats"][2]["player_id"] == bob["id"]
    assert (await client.get(invitations, headers=auth(ada))).json()["items"][0][
        "status"
    ] == "accepted"
    problem(await client.get(invitations, headers=auth(bob)), 403, "not_host")
    assert (await client.get("/v1/me/invitations", headers=auth(bob))).json()["items"] == []


async def test_a_declined_or_expired_invitation_frees_its_seat(
    client: httpx.AsyncClient,  # noqa: F811
    pool: asyncpg.Pool,
) -> None:
    ada, bob, cy = [await player(client, n) for n in ("Ada", "Bob", "Cy")]
    room = (
        await client.post("/v1/rooms", json={"game": "itty-bitty", "seats": 2}, headers=auth(ada))
    ).json()
    invitations = f"/v1/rooms/{room['id']}/invitations"
    r = await client.post(invitations, json={"player_id": bob["id"]}, headers=auth(ada))
    assert r.json()["seat"] == 1
    problem(await client.post(f"/v1/rooms/{room['id']}/join", headers=auth(cy)), 409, "room_full")
    declined = await client.post(f"{invitations}/decline", headers=auth(bob))
    assert declined.json()["status"] == "declined"
    problem(await client.post(f"{invitations}/decline", headers=auth(bob)), 404, "no_invitation")
    assert (await client.get(f"/v1/rooms/{room['id']}")).json()["seats"][1]["reserved_for"] is None

    # held again, then its time runs out: free, and shown as expired
    await client.post(invitations, json={"player_id": bob["id"]}, headers=auth(ada))
    await pool.execute(
        "UPDATE room_invitations SET expires_at = now() - interval '1 second' WHERE room_id = $1",
        room["id"],
    )
    listing = (await client.get(invitations, headers=auth(ada))).json()["items"]
    assert [i["status"] for i in listing] == ["expired"]
    joined = await client.post(f"/v1/rooms/{room['id']}/join", headers=auth(cy))
    assert joined.json()["seats"][1]["player_id"] == cy["id"]
    # the host's other refusals
    for payload, status, code in [
        ({"player_id": ada["id"]}, 422, "own_invitation"),
        ({"player_id": "p-nobody"}, 404, "unknown_player"),
        ({"player_id": bob["id"], "expires_after_s": 1}, 422, "invalid_expiry"),
    ]:
        problem(await client.post(invitations, json=payload, headers=auth(ada)), status, code)
    problem(
        await client.post(invitations, json={"player_id": ada["id"]}, headers=auth(cy)),
        403,
        "not_host",
    )


async def test_a_room_that_starts_or_closes_holds_no_seat_for_an_invitation(
    client: httpx.AsyncClient,  # noqa: F811
) -> None:
    ada, bob, cy = [await player(client, n) for n in ("Ada", "Bob", "Cy")]
    made = []
    for _ in range(2):
        body = {"game": "itty-bitty", "seats": 3}
        room = (await client.post("/v1/rooms", json=body, headers=auth(ada))).json()
        r = await client.post(
            f"/v1/rooms/{room['id']}/invitations", json={"player_id": bob["id"]}, headers=auth(ada)
        )
        assert r.json()["status"] == "pending"
        made.append(room["id"])
    started, closed = made
    assert (await client.post(f"/v1/rooms/{started}/start", headers=auth(ada))).status_code == 202
    assert (await client.post(f"/v1/rooms/{closed}/leave", headers=auth(ada))).status_code == 200
    for room_id in made:  # the host's list and the invited's agree: nothing is held any more
        listing = (await client.get(f"/v1/rooms/{room_id}/invitations", headers=auth(ada))).json()
        assert [(i["player_id"], i["status"]) for i in listing["items"]] == [(bob["id"], "expired")]
        problem(
            await client.post(f"/v1/rooms/{room_id}/invitations/decline", headers=auth(bob)),
            404,
            "no_invitation",
        )
    assert (await client.get("/v1/me/invitations", headers=auth(bob))).json()["items"] == []
    problem(
        await client.post("/v1/rooms/r-nope/invitations/decline", headers=auth(cy)),
        404,
        "unknown_room",
    )
