"""Game service REST API v1 against real Postgres and Redis: views, moves, every error."""

from __future__ import annotations

import asyncio
import secrets
import uuid
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import httpx
import msgspec
import pytest

from contracts.streams import RoomStarted, StartedSeat
from infra.auth.bearer import issue
from infra.auth.keys import SigningKey
from infra.settings import Settings
from services.game.app import create_app
from services.game.service import GameService
from tests.integration.serve import serving
from tests.integration.tables import game_service, new_game

SECRET = secrets.token_urlsafe(48)  # this run's own
KEY = SigningKey.from_secret(SECRET)


@pytest.fixture
async def client(
    database_url: str, redis_url: str, stream_prefix: str
) -> AsyncIterator[httpx.AsyncClient]:
    settings = Settings(
        database_url=database_url, redis_url=redis_url, secret=SECRET, stream_prefix=stream_prefix
    )
    async with serving(create_app(settings)) as c:
        yield c


class Table:
    def __init__(self, client: httpx.AsyncClient, game_id: str, players: list[str]) -> None:
        self.client, self.game_id, self.players = client, game_id, players

    def auth(self, seat: int) -> dict[str, str]:
        return {"authorization": f"Bearer {issue(KEY, self.players[seat], f'p{seat}')}"}

    async def get(self, seat: int, path: str = "", **params: Any) -> Any:
        return await self.client.get(
            f"/v1/games/{self.game_id}{path}", headers=self.auth(seat), params=params
        )

    async def post(self, seat: int, body: Any, **headers: str) -> Any:
        return await self.client.post(
            f"/v1/games/{self.game_id}/actions", json=body, headers={**self.auth(seat), **headers}
        )

    async def play_first_legal(self, seat: int) -> Any:
        legal = (await self.get(seat, "/legal-actions")).json()
        return await self.post(
            seat, {"action": legal["actions"][0], "expected_version": legal["version"]}
        )


@pytest.fixture
def service(pool: asyncpg.Pool) -> GameService:
    """Sets games up beside the app under test, on the same database."""
    return game_service(pool)


@pytest.fixture
async def table(client: httpx.AsyncClient, service: GameService) -> Table:
    game_id, players = await new_game(service, [None, None, None])
    return Table(client, game_id, players)


def problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = response.json()
    assert body["code"] == code and body["status"] == status and body["title"] and body["type"]
    return body


async def test_view_is_the_callers_own(table: Table) -> None:
    views = [(await table.get(s)).json() for s in range(3)]
    for seat, v in enumerate(views):
        assert v["your_seat"] == seat and v["status"] == "active" and v["version"] == 11
        assert v["to_act"] == [0, 1, 2]  # everyone keeps a starting collector at once
        assert len(v["view"]["private"]["ittybits"]) == 3
    hands = [set(v["view"]["private"]["ittybits"]) for v in views]
    assert not (hands[0] & hands[1]) and not (hands[1] & hands[2])
    text = str(views[1])
    assert not any(card in text for card in hands[0])  # seat 1 never sees seat 0's cards


async def test_spectator_sees_public_only(table: Table, client: httpx.AsyncClient) -> None:
    outsider = {"authorization": f"Bearer {issue(KEY, 'someone-else', 'x')}"}
    view = (await client.get(f"/v1/games/{table.game_id}", headers=outsider)).json()
    assert view["your_seat"] is None and view["view"]["private"] is None
    problem(
        await client.get(f"/v1/games/{table.game_id}/legal-actions", headers=outsider),
        403,
        "not_seated",
    )
    legal = (await table.get(0, "/legal-actions")).json()
    body = {"action": legal["actions"][0], "expected_version": legal["version"]}
    r = await client.post(f"/v1/games/{table.game_id}/actions", json=body, headers=outsider)
    problem(r, 403, "not_seated")


async def test_a_move_is_accepted_and_the_feed_redacts_it(table: Table) -> None:
    r = await table.play_first_legal(0)
    assert r.status_code == 200, r.text
    accepted = r.json()
    assert accepted["version"] == 12 and accepted["events"][0]["type"] == "collector_kept"
    assert accepted["events"][0]["data"]["kept"] is not None  # my own copy
    feed = (await table.get(1, "/events", after=11)).json()
    assert feed["last_version"] == 12 and feed["events"][0]["data"]["kept"] is None
    assert feed["events"][0]["seat"] == 0


async def test_actions_and_events_come_with_words_made_from_the_caller_s_copy(
    table: Table,
) -> None:
    legal = (await table.get(0, "/legal-actions")).json()
    kept = legal["actions"][0]["card"]

    def named(card: str) -> str:  # as a person sees it: its name, not its id
        return f"Collector {card.removeprefix('collector-')}"

    assert all(a["text"].startswith(f"Keep {named(a['card'])} (") for a in legal["actions"])
    listed = {"action": legal["actions"][0], "expected_version": 11}
    r = await table.post(0, listed, **{"Idempotency-Key": "keep"})
    assert r.status_code == 200, r.text  # posted as listed, its text and all
    bare = {k: v for k, v in legal["actions"][0].items() if k != "text"}
    again = await table.post(0, {**listed, "action": bare}, **{"Idempotency-Key": "keep"})
    assert again.json()["replayed"] is True  # the same move, with its words or without
    mine = r.json()["events"][0]["text"]
    assert mine.startswith(f"p0 kept {named(kept)} (")
    for seat in (1, 2):
        theirs = (await table.get(seat, "/events", after=11)).json()["events"][0]["text"]
        assert theirs.startswith("p0 kept a collector") and named(kept) not in theirs
    opening = (await table.get(1, "/events", after=0)).json()["events"]
    assert all(e["text"] for e in opening)
    dealt = [e["text"] for e in opening if e["type"] == "ittybits_dealt"]
    assert dealt[0] == "p0 was dealt 3 ittybits" and dealt[1].startswith("p1 was dealt Ittybit #")


async def test_errors_are_problem_details(table: Table, client: httpx.AsyncClient) -> None:
    problem(await client.get(f"/v1/games/{table.game_id}"), 401, "unauthorized")
    forged = {
        "authorization": f"Bearer {issue(SigningKey(KEY.kid, 'not-the-secret-but-just-as-long-as-one'), table.players[0], 'x')}"
    }
    problem(await client.get(f"/v1/games/{table.game_id}", headers=forged), 401, "unauthorized")
    problem(
        await client.get(f"/v1/games/{uuid.uuid4()}", headers=table.auth(0)), 404, "unknown_game"
    )
    problem(await client.get("/v1/games/not-a-uuid", headers=table.auth(0)), 404, "unknown_game")
    problem(await table.post(0, {"expected_version": 11}), 400, "malformed_request")
    problem(
        await table.post(0, {"action": {"type": "fly"}, "expected_version": 11}),
        400,
        "invalid_action_format",
    )
    problem(
        await table.post(0, {"action": {"type": "take_ittybit"}, "expected_version": "x"}),
        400,
        "malformed_request",
    )
    r = await table.client.post(
        f"/v1/games/{table.game_id}/actions", content=b"{not json", headers=table.auth(0)
    )
    problem(r, 400, "malformed_request")
    stale = problem(
        await table.post(0, {"action": {"type": "take_ittybit"}, "expected_version": 3}),
        409,
        "stale_version",
    )
    assert stale["current_version"] == 11
    illegal = problem(
        await table.post(0, {"action": {"type": "take_ittybit"}, "expected_version": 11}),
        422,
        "choose_collector_first",
    )
    assert illegal["detail"]
    bad_card = {
        "action": {"type": "keep_collector", "card": "collector-C99"},
        "expected_version": 11,
    }
    problem(await table.post(0, bad_card), 422, "not_offered")
    lax = {"action": {"type": "take_ittybit", "card": None}, "expected_version": "11"}
    problem(await table.post(0, lax), 400, "malformed_request")  # JSON's own types only
    claim = await table.client.post(
        f"/v1/games/{table.game_id}/claim", json={"seat": "1"}, headers=table.auth(0)
    )
    problem(claim, 400, "malformed_request")
    problem(await table.get(0, "/events", after=-1), 400, "malformed_request")
    problem(await table.get(0, "/events", wait=999), 400, "malformed_request")
    assert (await table.get(0)).json()["version"] == 11  # nothing was written by any of it


async def test_idempotency_key_replays_the_first_result(table: Table) -> None:
    legal = (await table.get(0, "/legal-actions")).json()
    body = {"action": legal["actions"][0], "expected_version": 11}
    first = await table.post(0, body, **{"Idempotency-Key": "abc"})
    again = await table.post(0, body, **{"Idempotency-Key": "abc"})
    assert first.status_code == again.status_code == 200
    assert again.json()["replayed"] is True and first.json()["replayed"] is False
    assert again.json()["version"] == first.json()["version"] == 12
    assert (await table.get(0)).json()["version"] == 12
    # the same key from another player is another command
    other = await table.post(
        1,
        {
            "action": (await table.get(1, "/legal-actions")).json()["actions"][0],
            "expected_version": 12,
        },
        **{"Idempotency-Key": "abc"},
    )
    assert other.status_code == 200 and other.json()["version"] == 13


async def test_simultaneous_choices_all_land_moves_whose_meaning_changed_are_stale(
    table: Table,
) -> None:
    # The opening collector choice: three seats at once against the same version. No choice
    # changes what another seat may do, so none is refused, even racing.
    legal = [(await table.get(s, "/legal-actions")).json() for s in range(3)]
    results = await asyncio.gather(
        *(
            table.post(s, {"action": legal[s]["actions"][0], "expected_version": 11})
            for s in range(3)
        )
    )
    assert [r.status_code for r in results] == [200, 200, 200], [r.text for r in results]
    versions = sorted(r.json()["version"] for r in results)
    assert len(set(versions)) == 3  # one after another, none replayed
    game = (await table.get(0)).json()
    assert game["version"] == versions[-1]
    v = game["version"]
    # Now one seat's turn: a second move against the version before its first one is stale,
    # since the first changed what it may do.
    [seat] = game["to_act"]
    legal = (await table.get(seat, "/legal-actions")).json()
    first = await table.post(seat, {"action": legal["actions"][0], "expected_version": v})
    assert first.status_code == 200, first.text
    again = await table.post(seat, {"action": legal["actions"][-1], "expected_version": v})
    problem(again, 409, "stale_version")
    # and the other seats, whose turn it is not, are refused by the rules at any version
    other = (seat + 1) % 3
    moved = first.json()["version"]
    refused = await table.post(other, {"action": legal["actions"][0], "expected_version": moved})
    assert refused.status_code == 422


async def test_long_poll_wakes_on_a_move(table: Table) -> None:
    waiter = asyncio.create_task(table.get(1, "/events", after=11, wait=10))
    await asyncio.sleep(0.2)
    assert not waiter.done()
    await table.play_first_legal(0)
    feed = (await asyncio.wait_for(waiter, 5)).json()
    assert feed["last_version"] == 12 and len(feed["events"]) == 1
    # the feed says where the game stands, as GET /v1/games/{id} would
    game = (await table.get(1)).json()
    assert (feed["version"], feed["status"], feed["to_act"], feed["outcome"]) == (
        game["version"],
        "active",
        game["to_act"],
        None,
    )
    assert feed["your_turn"] == (1 in game["to_act"])
    empty = (await table.get(1, "/events", after=12, wait=0.2)).json()
    assert empty["events"] == [] and empty["last_version"] == 12 == empty["version"]
    # `after` past the game's version is not echoed back: the client is told the truth
    beyond = problem(await table.get(1, "/events", after=13), 400, "after_beyond_version")
    assert beyond["current_version"] == 12


async def test_me_games_lists_where_i_must_act(table: Table, client: httpx.AsyncClient) -> None:
    mine = (
        await client.get("/v1/me/games", params={"awaiting": "true"}, headers=table.auth(0))
    ).json()
    assert table.game_id in [g["id"] for g in mine["items"]]
    await table.play_first_legal(0)
    mine = (
        await client.get("/v1/me/games", params={"awaiting": "true"}, headers=table.auth(0))
    ).json()
    assert table.game_id not in [g["id"] for g in mine["items"]]
    every = (await client.get("/v1/me/games", headers=table.auth(0))).json()
    [entry] = [g for g in every["items"] if g["id"] == table.game_id]
    assert entry["your_seat"] == 0 and entry["your_turn"] is False and entry["to_act"] == [1, 2]


async def test_room_started_twice_creates_one_game(table: Table, service: GameService) -> None:
    record = await service.record(table.game_id)
    again = await service.create_from_room(
        RoomStarted(
            room_id=record.room_id or "",
            game="itty-bitty",
            seats=[StartedSeat(seat=s.seat, player_id=s.player_id) for s in record.seats],
        )
    )
    assert again == table.game_id
    assert (await table.get(0)).json()["version"] == 11


async def test_any_spelling_of_a_game_id_names_the_same_game(table: Table) -> None:
    for spelling in (table.game_id.upper(), table.game_id.replace("-", ""), f"{{{table.game_id}}}"):
        view = await table.client.get(f"/v1/games/{spelling}", headers=table.auth(0))
        assert view.status_code == 200 and view.json()["id"] == table.game_id
        feed = await table.client.get(f"/v1/games/{spelling}/events", headers=table.auth(0))
        assert len(feed.json()["events"]) == 11


async def test_an_idempotency_key_reused_for_another_move_is_refused(table: Table) -> None:
    legal = (await table.get(0, "/legal-actions")).json()
    first = {"action": legal["actions"][0], "expected_version": 11}
    other = {"action": legal["actions"][1], "expected_version": 11}
    assert (await table.post(0, first, **{"Idempotency-Key": "k1"})).status_code == 200
    problem(await table.post(0, other, **{"Idempotency-Key": "k1"}), 422, "idempotency_key_reused")
    assert (await table.get(0)).json()["version"] == 12


async def test_retries_racing_their_original_all_get_its_result(table: Table) -> None:
    legal = (await table.get(0, "/legal-actions")).json()
    body = {"action": legal["actions"][0], "expected_version": 11}
    replies = await asyncio.gather(
        *(table.post(0, body, **{"Idempotency-Key": "same-move"}) for _ in range(8))
    )
    assert [r.status_code for r in replies] == [200] * 8, [r.text for r in replies]
    assert {r.json()["version"] for r in replies} == {12}
    assert sum(not r.json()["replayed"] for r in replies) == 1
    assert (await table.get(0)).json()["version"] == 12


async def test_a_footprints_board_is_drawn_as_svg(
    client: httpx.AsyncClient, service: GameService
) -> None:
    import xml.etree.ElementTree as ET

    game_id, players = await new_game(service, [None, None], game="footprints")
    fp = Table(client, game_id, players)
    r = await fp.get(0, "/board.svg")
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    root = ET.fromstring(r.text)
    spaces = [e for e in root if e.get("class") == "space"]
    assert len(spaces) == 162
    # every cave site is drawn, those in play apart from those out of play
    caves = [e for e in root if (e.get("class") or "").split()[:1] == ["cave"]]
    in_play = [e for e in caves if e.get("class") == "cave"]
    assert len(caves) >= 6 and 0 < len(in_play) < len(caves)
    outsider = {"authorization": f"Bearer {issue(KEY, 'someone-else', 'x')}"}
    assert (await client.get(f"/v1/games/{game_id}/board.svg", headers=outsider)).status_code == 200
    # gzipped for a client that takes it (httpx does), named by an ETag: asked again with it
    # while nothing moved, a bodiless 304
    assert r.headers["content-encoding"] == "gzip" and r.headers["vary"] == "Accept-Encoding"
    assert int(r.headers["content-length"]) * 4 < len(r.content)
    tag = r.headers["etag"]

    async def svg(headers: dict[str, str]) -> httpx.Response:
        url = f"/v1/games/{game_id}/board.svg"
        return await client.get(url, headers={**fp.auth(0), **headers})

    again = await svg({"if-none-match": tag})
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == tag
    plain = await svg({"accept-encoding": "identity"})
    assert "content-encoding" not in plain.headers and plain.text == r.text
    assert plain.headers["etag"] != tag  # another representation, another tag
    refused = await svg({"accept-encoding": "gzip;q=0, identity"})
    assert "content-encoding" not in refused.headers
    for taken, gz in [
        ("*;q=0.5, gzip;q=0", False),
        ("deflate, *;q=0, gzip", True),
        ("gzip; level=1; q=0.000", False),
        ("br, *", True),
        ("br", False),
    ]:
        answer = await svg({"accept-encoding": taken})
        assert ("content-encoding" in answer.headers) is gz, taken
    strong = tag.removeprefix("W/")
    for asked in (strong, "*", f'W/"other", {tag}'):
        assert (await svg({"if-none-match": asked})).status_code == 304, asked
    other = await svg({"if-none-match": 'W/"something-else"'})
    assert other.status_code == 200 and other.content == r.content
    # as it stood at an earlier version (a replay): the first version's drawing is a map
    version = (await fp.get(0)).json()["version"]
    first = await fp.get(0, "/board.svg", at=1)
    assert first.status_code == 200 and len(ET.fromstring(first.text)) > 162
    assert (await fp.get(0, "/board.svg", at=version)).text == r.text
    problem(await fp.get(0, "/board.svg", at=version + 1), 400, "at_beyond_version")
    problem(await fp.get(0, "/board.svg", at=0), 400, "malformed_request")
    # the map as set up, without the pieces: fixed for the game, so kept by the browser
    bare = await fp.get(0, "/board.svg", pieces="false")
    assert bare.headers["cache-control"] == "private, max-age=86400, immutable"
    assert r.headers["cache-control"] == "private, no-cache"
    drawn = ET.fromstring(bare.text)
    assert not [e for e in drawn if e.get("class") in ("figure", "engraving")]
    assert (await fp.get(0, "/board.svg", pieces="false", at=1)).text == bare.text


async def test_a_game_without_a_map_has_no_board(table: Table) -> None:
    problem(await table.get(0, "/board.svg"), 404, "no_board")
    refused = await table.get(0, "/map")
    problem(refused, 404, "no_board")
    assert "cache-control" not in refused.headers  # only a map is kept


async def test_a_footprints_map_reaches_a_client_once_in_the_coordinates_moves_use(
    client: httpx.AsyncClient, service: GameService
) -> None:
    from games.footprints.board import Layout, assemble
    from games.footprints.content import load

    game_id, players = await new_game(service, [None, None], game="footprints")
    fp = Table(client, game_id, players)
    r = await fp.get(0, "/map")
    assert r.status_code == 200, r.text
    assert {"private", "immutable"} <= {d.strip() for d in r.headers["cache-control"].split(",")}
    body = r.json()
    assert (body["id"], body["game"]) == (game_id, "footprints")
    m = body["map"]
    layout = (await fp.get(0)).json()["view"]["public"]["map"]
    houses = tuple((tile, side) for tile, side in layout["houses"])
    board = assemble(load(), Layout(tiles=layout["tiles"], turned=layout["turned"], houses=houses))
    spaces = {(s["at"][0], s["at"][1]): s for s in m["spaces"]}
    assert len(m["spaces"]) == len(spaces) == len(board.places) == 162
    for pos, space in spaces.items():
        assert sorted((r, c) for r, c in space["neighbours"]) == sorted(board.adjacent(pos))
    assert {c["site"]: c["token"] for c in m["caves"] if c["token"]} == layout["caves"]
    # a client places both figures and reads its first moves: each names spaces of the map
    named: list[list[int]] = []
    for played in range(60):  # the setup's choices first: on until some move names spaces
        if named and played >= 8:
            break
        seat = (await fp.get(0)).json()["to_act"][0]
        for action in (await fp.get(seat, "/legal-actions")).json()["actions"]:
            named += [*action.get("path", []), *action.get("fire_path", [])]
            named += [action["to"]] if action.get("to") is not None else []
        assert (await fp.play_first_legal(seat)).status_code == 200
    assert named and all((r, c) in spaces for r, c in named)
    standing = [p["position"] for p in (await fp.get(0)).json()["view"]["public"]["players"]]
    at = {(h["at"][0], h["at"][1]) for h in m["houses"]} | spaces.keys()
    assert all((r, c) in at for r, c in standing)
    # the same for everyone (a spectator too), and described in the OpenAPI document
    outsider = {"authorization": f"Bearer {issue(KEY, 'someone-else', 'x')}"}
    again = await client.get(f"/v1/games/{game_id}/map", headers=outsider)
    assert again.status_code == 200 and again.json() == body
    document = (await client.get("/schema/openapi.json")).json()
    ok = document["paths"]["/v1/games/{game_id}/map"]["get"]["responses"]["200"]
    assert ok["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/GameMap"}
    schemas = document["components"]["schemas"]
    assert {"$ref": "#/components/schemas/Footprints.AssembledMap"} in schemas["AnyMap"]["anyOf"]
    assert {"at", "terrains", "bonus", "caves", "neighbours"} <= set(
        schemas["Footprints.MapSpace"]["required"]
    )


async def test_my_games_are_paged_and_awaiting_ones_come_nearest_deadline_first(
    client: httpx.AsyncClient, service: GameService
) -> None:
    from datetime import UTC, datetime, timedelta

    me = f"pager-{uuid.uuid4()}"
    auth = {"authorization": f"Bearer {issue(KEY, me, 'me')}"}
    real = service.now
    ids = []
    # five clocked games whose clocks started at different times, created in an order
    # unlike their deadlines
    for minutes in (3, 1, 4, 0, 2):
        started = datetime.now(UTC) + timedelta(minutes=minutes)
        service.now = lambda started=started: started  # type: ignore[misc]
        room = f"room-{uuid.uuid4()}"
        ids.append(
            await service.create_from_room(
                RoomStarted(
                    room_id=room,
                    game="itty-bitty",
                    seats=[StartedSeat(seat=0, player_id=me), StartedSeat(seat=1, player_id=room)],
                    timing={"per_move_s": 60, "on_timeout": "wait"},
                )
            )
        )
    service.now = real
    by_deadline = [ids[i] for i in (3, 1, 4, 0, 2)]

    async def pages(**params: Any) -> list[list[dict[str, Any]]]:
        out, cursor = [], None
        while True:
            query = {**params, "limit": 2, **({"cursor": cursor} if cursor else {})}
            page = (await client.get("/v1/me/games", params=query, headers=auth)).json()
            out.append(page["items"])
            cursor = page["next"]
            if cursor is None:
                return out

    awaiting = await pages(awaiting="true")
    assert [len(p) for p in awaiting] == [2, 2, 1]
    listed = [g["id"] for p in awaiting for g in p]
    assert listed == by_deadline
    deadlines = [g["deadline"] for p in awaiting for g in p]
    assert deadlines == sorted(deadlines)
    every = [g["id"] for p in await pages() for g in p]
    assert every == list(reversed(ids))  # newest first
    bad = await client.get("/v1/me/games", params={"cursor": "not-a-cursor"}, headers=auth)
    problem(bad, 400, "bad_cursor")


async def test_the_feed_is_paged(table: Table) -> None:
    first = (await table.get(0, "/events", after=0, limit=4)).json()
    assert len(first["events"]) == 4 and first["has_more"] and first["last_version"] == 4
    rest = (await table.get(0, "/events", after=4, limit=500)).json()
    assert not rest["has_more"] and rest["last_version"] == rest["version"] == 11


async def test_legal_actions_name_the_question_and_say_why_an_answer_is_missing(
    client: httpx.AsyncClient, service: GameService
) -> None:
    from games.itchy_feet.content import load

    content = load()
    kind = content.kind
    game_id, players = await new_game(service, [None, None], game="itchy-feet")
    table = Table(client, game_id, players)
    [asker] = (await table.get(0)).json()["to_act"]
    responder = 1 - asker
    held = {kind(c) for c in (await table.get(responder)).json()["view"]["private"]["hand"]}
    legal = (await table.get(asker, "/legal-actions")).json()
    assert legal["unavailable"] == []  # a turn, no question
    offer = next(
        a
        for a in legal["actions"]
        if a["type"] == "offer_trade" and a["to"] == responder and a["want"][0] not in held
    )
    r = await table.post(asker, {"action": offer, "expected_version": legal["version"]})
    assert r.status_code == 200, r.text
    question = {
        "kind": "trade",
        "seat": responder,
        "asker": asker,
        "give": [content.alike[c] for c in offer["give"]],  # the table sees copies' kinds
        "want": offer["want"],
    }
    view = (await table.get(responder)).json()["view"]
    assert view["private"]["questions"] == [question]
    answers = (await table.get(responder, "/legal-actions")).json()
    # the responder cannot hand over what is asked: the decline alone, and why
    assert answers["actions"] == [
        {"type": "decline_trade", "question": question, "text": "Decline the trade"}
    ]
    why = f"you do not hold 1 x {offer['want'][0]}: decline"
    assert answers["unavailable"] == [
        {"type": "accept_trade", "code": "cannot_fulfil_trade", "message": why}
    ]
    version = answers["version"]
    accept = {"type": "accept_trade", "question": question}
    r = await table.post(responder, {"action": accept, "expected_version": version})
    assert problem(r, 422, "cannot_fulfil_trade")["detail"] == why
    other = {**question, "want": ["passport"]}
    stale = {"type": "decline_trade", "question": other}
    problem(
        await table.post(responder, {"action": stale, "expected_version": version}),
        422,
        "stale_question",
    )
    r = await table.post(responder, {"action": answers["actions"][0], "expected_version": version})
    assert r.status_code == 200, r.text


async def test_a_read_with_min_version_is_never_older_than_what_its_client_has_seen(
    table: Table, service: GameService
) -> None:
    """`min_version`: this process answers from memory when it holds that version and was
    told of nothing newer; a move made through another replica (here `service`, which the
    app is not told of: no relay runs) is seen by a plain read, and by one whose client has
    seen it, but may be missed by a read whose client has not (as if it read a moment sooner)."""
    moved = (await table.play_first_legal(0)).json()["version"]
    for path in ("", "/legal-actions"):
        seen = await table.get(0, path, min_version=moved)
        assert seen.status_code == 200, seen.text
        assert seen.json()["version"] == moved
    loaded = await service.load(table.game_id)
    seat = sorted(loaded.rules.to_act(loaded.state))[0]
    action = msgspec.to_builtins(loaded.rules.legal_actions(loaded.state, seat)[0])
    other = (
        await service.submit(table.game_id, seat, action, loaded.version, uuid.uuid4())
    ).version
    assert other > moved
    # from memory (no read of the store): the other replica's move is not seen yet
    assert (await table.get(0, "", min_version=moved)).json()["version"] == moved
    assert (await table.get(0, "", min_version=other)).json()["version"] == other  # read
    for path in ("", "/legal-actions"):
        assert (await table.get(0, path)).json()["version"] == other
    # the app has read it now: a client that saw only its own move gets the newest too
    assert (await table.get(0, "", min_version=moved)).json()["version"] == other
    beyond = problem(
        await table.get(0, "", min_version=other + 1), 400, "min_version_beyond_version"
    )
    assert beyond["current_version"] == other
    problem(await table.get(0, "", min_version=-1), 400, "malformed_request")
    problem(await table.get(0, "/legal-actions", min_version="x"), 400, "malformed_request")


async def test_a_game_under_rules_newer_than_this_release_is_neither_shown_nor_moved(
    client: httpx.AsyncClient, service: GameService, pool: asyncpg.Pool
) -> None:
    """In a rolling upgrade a game set up by an upgraded replica may reach one not yet
    upgraded: it answers 503 with Retry-After (asked again, an upgraded one answers) rather
    than read events it may not understand or rule a move under other rules."""
    from games import table as tables
    from games.registry import get as get_rules
    from services.game.repository import stream_id

    game_id, players = await new_game(service, [None, None])
    setup = "SELECT metadata FROM events WHERE stream_id = $1 AND version = 1"
    metadata = msgspec.json.decode(await pool.fetchval(setup, stream_id(game_id)))
    assert metadata["table_rules"] == tables.RULES_VERSION  # recorded at the setup
    view = (await Table(client, game_id, players).get(0)).json()
    assert view["rules_version"] == get_rules("itty-bitty").rules_version
    newer = {
        # the engine's rules, in its setup event; the table's, in the setup's metadata
        "engine": "UPDATE events SET data = jsonb_set(data, '{rules}', '99') "
        "WHERE stream_id = $1 AND version = 1",
        "table": "UPDATE events SET metadata = jsonb_set(metadata, '{table_rules}', '99') "
        "WHERE stream_id = $1 AND version = 1",
    }
    for which, bump in newer.items():
        game_id, players = await new_game(service, [None, None])
        await pool.execute(bump, stream_id(game_id))  # before this replica ever read it
        table = Table(client, game_id, players)
        for answer in (
            await table.get(0),
            await table.get(1, "/legal-actions"),
            await table.post(0, {"action": {"type": "keep"}, "expected_version": 11}),
            await table.get(0),  # and again: nothing of it was kept
        ):
            body = problem(answer, 503, "rules_unknown_here")
            assert answer.headers["retry-after"] == "1" and "99" in body["detail"], which
