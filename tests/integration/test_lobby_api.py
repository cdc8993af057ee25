"""Lobby REST API v1 against real Postgres and Redis."""

from __future__ import annotations

import asyncio
import errno
import secrets
import uuid
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import httpx
import msgspec
import pytest
import redis.asyncio as aioredis

from contracts.levels import measured_rating
from contracts.streams import LOBBY, RoomStarted
from infra.auth.bearer import issue
from infra.auth.keys import SigningKey
from infra.settings import Settings
from services.lobby.app import create_app
from services.lobby.rooms import Lobby
from tests.integration.serve import serving

SECRET = secrets.token_urlsafe(48)  # this run's own
DAYS_90 = 90 * 86400


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
    assert itty["bot_levels"] == ["random", "greedy", "mcts", "expert"] and itty["options_schema"]
    # each level in words, with its measured rating where the tournament measured it
    levels = [b["level"] for b in itty["bots"]]
    assert levels == itty["bot_levels"] and all(b["description"] for b in itty["bots"])
    for b in itty["bots"]:
        known = measured_rating("itty-bitty", b["level"])
        assert b.get("measured") == (
            {"rating": known["ordinal"], "mu": known["mu"], "sigma": known["sigma"]}
            if known
            else None
        )
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
    # every game: its cards in one shape, and where they are from the catalog
    for game in catalog:
        assert game["content"] == f"/v1/catalog/{game['key']}/content"
        every = (await client.get(game["content"])).json()
        assert every["game"] == game["key"] and every["all_cards"]
        for card in every["all_cards"]:
            assert {"id", "kind", "name", "traits", "text", "glyph"} == card.keys()
    umbrella = next(c for c in travel["all_cards"] if c["id"] == "item-umbrella-1")
    assert umbrella["name"] == "Umbrella" and umbrella["glyph"] == "A\u2660"
    assert "needed in Germany" in umbrella["traits"]
    assert [t["terrain"] for t in cards["terrains"]] == ["mountain", "ice", "forest", "swamp"]
    assert content["all_cards"][0] == {
        "id": "ittybit-0287",
        "kind": "ittybit",
        "name": "Ittybit #287",
        "traits": ["Female", "Mohawk", "Purple Eye Shadow", "Cigarette"],
        "text": "",
        "glyph": None,
    }
    problem(await client.get("/v1/catalog/chess/content"), 404, "unknown_game")


async def test_create_room_and_its_errors(client: httpx.AsyncClient) -> None:
    host = await player(client)
    r = await room(client, host)
    assert r["status"] == "open" and r["host"] == host["id"] and r["game_id"] is None
    assert r["created_at"].endswith("Z")  # RFC 3339 in UTC, as every time the APIs show
    assert [s["player_id"] for s in r["seats"]] == [host["id"], None, None]
    bad = [
        ({"game": "chess", "seats": 2}, 422, "unknown_game"),
        ({"game": "itty-bitty", "seats": 5}, 422, "bad_seat_count"),
        ({"game": "itty-bitty", "seats": 2, "options": {"x": 1}}, 422, "invalid_options"),
        (
            {"game": "itty-bitty", "seats": 2, "timing": {"turn_seconds": 30}},
            400,
            "malformed_request",
        ),
        ({"game": "itty-bitty"}, 400, "malformed_request"),
        ({"game": "itty-bitty", "seats": "two"}, 400, "malformed_request"),
        # JSON's own types only: what a lax conversion would take is malformed too
        ({"game": "itty-bitty", "seats": "2"}, 400, "malformed_request"),
        (
            {"game": "itty-bitty", "seats": 2, "fill_with_bots_after_s": 60, "auto_start": 0},
            400,
            "malformed_request",
        ),
    ]
    for body, status, code in bad:
        problem(await client.post("/v1/rooms", json=body, headers=auth(host)), status, code)
    problem(
        await client.post("/v1/rooms", json={"game": "itty-bitty", "seats": 2}), 401, "unauthorized"
    )
    ghost = {"authorization": f"Bearer {issue(SigningKey.from_secret(SECRET), 'p-ghost', 'ghost')}"}
    problem(
        await client.post("/v1/rooms", json={"game": "itty-bitty", "seats": 2}, headers=ghost),
        401,
        "unknown_player",
    )
    problem(await client.get("/v1/rooms/r-missing"), 404, "unknown_room")
    rid = r["id"]
    for path, body in (
        (f"/v1/rooms/{rid}/bots", {"level": "random", "seat": "1"}),
        (f"/v1/rooms/{rid}/start", {"fill_bots": 1}),
    ):
        problem(await client.post(path, json=body, headers=auth(host)), 400, "malformed_request")
    guest = await player(client, "Guest")
    problem(
        await client.post(f"/v1/rooms/{rid}/join", json={"seat": "1"}, headers=auth(guest)),
        400,
        "malformed_request",
    )


async def test_timing_ranges_and_combinations(client: httpx.AsyncClient) -> None:
    host = await player(client)

    async def create(timing: dict[str, Any]) -> httpx.Response:
        body = {"game": "itty-bitty", "seats": 2, "timing": timing}
        return await client.post("/v1/rooms", json=body, headers=auth(host))

    for fine in (
        {"per_move_s": 5},
        {"per_move_s": DAYS_90},
        {"bank_s": DAYS_90, "on_timeout": "wait"},
        {"bank_s": 60, "increment_s": 1},
        {},
    ):
        assert (await create(fine)).status_code == 201, fine
    # ranges are refused as the body is decoded
    for out_of_range in (
        {"per_move_s": 4},
        {"per_move_s": DAYS_90 + 1},
        {"bank_s": 4},
        {"bank_s": 60, "cap_s": DAYS_90 + 1},
        {"bank_s": 60, "increment_s": -1},
        {"on_timeout": "panic"},
    ):
        problem(await create(out_of_range), 400, "malformed_request")
    for clash in (
        {"per_move_s": 30, "bank_s": 600},
        {"bank_s": 600, "cap_s": 300},
        {"increment_s": 10},
        {"per_move_s": 30, "cap_s": 600},
        {"bank_s": 600},  # bot_move (the default) with a bank that a timeout empties for good
    ):
        r = await create(clash)
        problem(r, 422, "invalid_timing")
        assert r.json()["detail"]
    bank = {"bank_s": 600, "increment_s": 10, "cap_s": 900, "on_timeout": "bot_takeover"}
    made = (await create(bank)).json()
    expected = {"per_move_s": None, **bank}
    assert made["timing"] == expected
    assert (await client.get(f"/v1/rooms/{made['id']}")).json()["timing"] == expected


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
    assert started.headers["location"] == f"/v1/rooms/{rid}"  # follow it until game_id
    assert [s["bot"] for s in started.json()["seats"]] == [None, "greedy", "greedy", "random"]
    # bots of one level are told apart by name (the log, the outcome), another level's not
    assert [s["name"] for s in started.json()["seats"]] == [
        "host",
        "greedy bot",
        "greedy bot 2",
        "random bot",
    ]
    problem(await client.post(f"/v1/rooms/{rid}/start", headers=auth(host)), 409, "room_not_open")
    entries = await redis_client.xrange(settings.stream(LOBBY))
    messages = [msgspec.json.decode(fields[b"m"], type=RoomStarted) for _, fields in entries]
    [msg] = [m for m in messages if m.room_id == rid]
    assert [s.name for s in msg.seats] == ["host", "greedy bot", "greedy bot 2", "random bot"]
    assert msg.game == "itty-bitty" and [s.bot for s in msg.seats] == [
        None,
        "greedy",
        "greedy",
        "random",
    ]
    assert msg.fill_level == "greedy"


async def test_fill_level_is_kept_and_republished(
    client: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    host = await player(client, "host")
    rid = (await room(client, host, seats=2))["id"]
    await client.post(f"/v1/rooms/{rid}/bots", json={"level": "random"}, headers=auth(host))
    # a full room has nothing to fill, but a seat taken over later gets this level
    problem(
        await client.post(
            f"/v1/rooms/{rid}/start", json={"fill_bots": "genius"}, headers=auth(host)
        ),
        422,
        "unknown_bot_level",
    )
    started = await client.post(
        f"/v1/rooms/{rid}/start", json={"fill_bots": "random"}, headers=auth(host)
    )
    assert started.status_code == 202, started.text
    full = (await room(client, host, seats=2))["id"]
    await client.post(f"/v1/rooms/{full}/bots", json={"level": "random"}, headers=auth(host))
    started = await client.post(
        f"/v1/rooms/{full}/start", json={"fill_bots": None}, headers=auth(host)
    )
    assert started.status_code == 202, started.text
    levels = {
        r["id"]: r["fill_level"]
        for r in await pool.fetch(
            "SELECT id, fill_level FROM rooms WHERE id = ANY($1)", [rid, full]
        )
    }
    assert levels == {rid: "random", full: "greedy"}
    # as if their RoomStarted had been lost a day ago: the sweep announces them again
    await pool.execute(
        "UPDATE rooms SET updated_at = now() - interval '1 day' WHERE id = ANY($1)", [rid, full]
    )
    swept = {m.room_id: m.fill_level for m in await Lobby(pool).stuck_starting(3600)}
    assert (swept[rid], swept[full]) == ("random", "greedy")


async def finished_room(
    client: httpx.AsyncClient,
    pool: asyncpg.Pool,
    host: dict[str, str],
    bob: dict[str, str],
    visibility: str = "public",
) -> dict[str, Any]:
    """A finished 4-seat itchy-feet room: host at 0, a greedy filler at 1, bob at 2, random at 3."""
    body = {
        "game": "itchy-feet",
        "seats": 4,
        "options": {"events": True, "characters": "random"},
        "timing": {"bank_s": 600, "increment_s": 5},
        "visibility": visibility,
    }
    r = await client.post("/v1/rooms", json=body, headers=auth(host))
    assert r.status_code == 201, r.text
    rid = r.json()["id"]
    code = {"invite_code": r.json()["invite_code"]} if visibility == "unlisted" else {}
    await client.post(f"/v1/rooms/{rid}/join", json={"seat": 2, **code}, headers=auth(bob))
    await client.post(
        f"/v1/rooms/{rid}/bots", json={"level": "random", "seat": 3}, headers=auth(host)
    )
    started = await client.post(f"/v1/rooms/{rid}/start", headers=auth(host))
    assert started.status_code == 202, started.text
    await Lobby(pool).game_moved(rid, f"g-{uuid.uuid4()}", "finished")
    done: dict[str, Any] = (await client.get(f"/v1/rooms/{rid}")).json()
    assert done["status"] == "finished"
    return done


async def test_rematch(client: httpx.AsyncClient, pool: asyncpg.Pool) -> None:
    host, bob, eve = [await player(client, n) for n in ("host", "bob", "eve")]
    problem(
        await client.post("/v1/rooms/r-missing/rematch", headers=auth(host)), 404, "unknown_room"
    )
    early = (await room(client, host))["id"]
    problem(
        await client.post(f"/v1/rooms/{early}/rematch", headers=auth(host)),
        409,
        "room_not_finished",
    )
    old = await finished_room(client, pool, host, bob)
    assert old["rematch_of"] is None and old["rematch_id"] is None
    problem(
        await client.post(f"/v1/rooms/{old['id']}/rematch", headers=auth(eve)), 403, "not_seated"
    )
    first = await client.post(f"/v1/rooms/{old['id']}/rematch", headers=auth(bob))
    assert first.status_code == 201, first.text
    offered = first.json()
    assert offered["status"] == "open" and offered["host"] == bob["id"]  # who offered hosts
    assert offered["seats"][0]["player_id"] is None
    assert offered["seats"][0]["reserved_for"] == host["id"]  # held for the other person
    again = await client.post(f"/v1/rooms/{old['id']}/rematch", headers=auth(host))
    assert again.status_code == 200, again.text  # accepted
    new = again.json()
    assert new["id"] == offered["id"] != old["id"]
    assert new["status"] == "starting"  # every seat taken: it starts by itself
    assert new["rematch_of"] == old["id"] and new["rematch_id"] is None
    for same in ("game", "options", "timing"):
        assert new[same] == old[same]
    assert [s["player_id"] for s in new["seats"]][::2] == [host["id"], bob["id"]]
    assert [s["bot"] for s in new["seats"]] == [None, "greedy", None, "random"]
    old_bots = {s["player_id"] for s in old["seats"] if s["bot"]}
    assert all(s["player_id"] not in old_bots for s in new["seats"])  # new bot players
    assert (await client.get(f"/v1/rooms/{old['id']}")).json()["rematch_id"] == new["id"]
    # asked again once started: the same room, as it is
    third = await client.post(f"/v1/rooms/{old['id']}/rematch", headers=auth(host))
    assert (third.status_code, third.json()["id"]) == (200, new["id"])


async def test_rematch_asked_at_once_makes_one_room(
    client: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    host, bob = await player(client, "host"), await player(client, "bob")
    old = await finished_room(client, pool, host, bob)
    a, b = await asyncio.gather(
        client.post(f"/v1/rooms/{old['id']}/rematch", headers=auth(host)),
        client.post(f"/v1/rooms/{old['id']}/rematch", headers=auth(bob)),
    )
    assert sorted((a.status_code, b.status_code)) == [200, 201], (a.text, b.text)
    assert a.json()["id"] == b.json()["id"]
    assert await pool.fetchval("SELECT count(*) FROM rooms WHERE rematch_of = $1", old["id"]) == 1


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
    # the game filter: none of these itty bitty rooms (other tests' rooms may be listed)
    other = (await client.get("/v1/rooms", params={"game": "footprints", "limit": 100})).json()
    assert all(r["game"] == "footprints" for r in other["items"])
    assert not {r["id"] for r in other["items"]} & set(ids)
    problem(await client.get("/v1/rooms", params={"status": "lost"}), 400, "malformed_request")
    problem(await client.get("/v1/rooms", params={"limit": 0}), 400, "malformed_request")
    problem(await client.get("/v1/rooms", params={"cursor": "garbage"}), 400, "bad_cursor")


async def test_a_player_sits_in_so_many_open_rooms_at_once(settings: Settings) -> None:
    """Hosting or joining alike; a room left, started or cancelled no longer counts."""
    async with serving(
        create_app(msgspec.structs.replace(settings, max_open_rooms_per_player=3))
    ) as c:
        ada, bob = await player(c, "Ada"), await player(c, "Bob")
        mine = [await room(c, ada) for _ in range(2)]
        bobs = [await room(c, bob) for _ in range(2)]
        joined = await c.post(f"/v1/rooms/{bobs[0]['id']}/join", headers=auth(ada))
        assert joined.status_code == 200, joined.text  # the third
        again = await c.post(
            "/v1/rooms", json={"game": "itty-bitty", "seats": 2}, headers=auth(ada)
        )
        problem(again, 409, "too_many_open_rooms")
        assert "3 open rooms" in again.json()["detail"]
        problem(
            await c.post(f"/v1/rooms/{bobs[1]['id']}/join", headers=auth(ada)),
            409,
            "too_many_open_rooms",
        )
        seated = [
            s["player_id"] for s in (await c.get(f"/v1/rooms/{bobs[1]['id']}")).json()["seats"]
        ]
        assert ada["id"] not in seated
        # left (cancelled: nobody else was in it): one place again
        assert (
            await c.post(f"/v1/rooms/{mine[0]['id']}/leave", headers=auth(ada))
        ).status_code == 200
        await room(c, ada)
        problem(
            await c.post(f"/v1/rooms/{bobs[1]['id']}/join", headers=auth(ada)),
            409,
            "too_many_open_rooms",
        )
        # started: no longer open
        start = await c.post(
            f"/v1/rooms/{mine[1]['id']}/start", json={"fill_bots": "random"}, headers=auth(ada)
        )
        assert start.status_code in (200, 202), start.text
        assert (
            await c.post(f"/v1/rooms/{bobs[1]['id']}/join", headers=auth(ada))
        ).status_code == 200
        # the others are not held by ada's cap, nor bots by anyone's
        assert (
            await c.post(
                f"/v1/rooms/{bobs[1]['id']}/bots", json={"level": "random"}, headers=auth(bob)
            )
        ).status_code == 200
        await room(c, bob)


async def test_the_open_rooms_cap_holds_under_concurrent_creates_and_joins(
    settings: Settings,
) -> None:
    """Each create or join of a player locks its own room, if any: the player's row orders them."""
    capped = msgspec.structs.replace(
        settings, max_open_rooms_per_player=3, rate_limit_write="10000/minute"
    )
    async with serving(create_app(capped)) as c:
        ada = await player(c, "Ada")
        hosts = [await player(c, f"Host {i}") for i in range(6)]
        theirs = [await room(c, h) for h in hosts]
        for _ in range(3):
            answers = await asyncio.gather(
                *[
                    c.post("/v1/rooms", json={"game": "itty-bitty", "seats": 2}, headers=auth(ada))
                    for _ in range(6)
                ],
                *[c.post(f"/v1/rooms/{r['id']}/join", headers=auth(ada)) for r in theirs],
            )
            taken = [a for a in answers if a.status_code in (200, 201)]
            assert len(taken) == 3, [a.status_code for a in answers]
            for a in answers:
                if a not in taken:
                    problem(a, 409, "too_many_open_rooms")
            for a in taken:  # leave them all for the next round
                left = await c.post(f"/v1/rooms/{a.json()['id']}/leave", headers=auth(ada))
                assert left.status_code == 200, left.text


async def test_the_catalog_serves_without_the_bots_live_ratings_while_the_database_is_away(
    client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from services.lobby.profiles import Profiles

    async def away(self: Profiles, levels: Any) -> Any:
        raise ConnectionRefusedError(errno.ECONNREFUSED, "refused")

    monkeypatch.setattr(Profiles, "bot_ratings", away)
    r = await client.get("/v1/catalog")
    assert r.status_code == 200
    for game in r.json()["games"]:
        assert [b["level"] for b in game["bots"]] == game["bot_levels"]
        assert all(b["rating"] is None for b in game["bots"])
