"""GET /v1/games/{id}/record over real Postgres and Redis: refused to everyone until the game
has finished, then the whole log with every hand, which `games.replay` replays."""

from __future__ import annotations

import random

import httpx
import msgspec

from games.replay import read, replay
from services.game.service import GameService
from tests.integration.tables import new_game
from tests.integration.test_game_api import Table, client, problem, service  # noqa: F401
from tests.integration.test_sse import play
from turnpost.client import AsyncClient


async def test_a_record_is_refused_until_the_end_then_hides_nothing(
    client: httpx.AsyncClient,  # noqa: F811
    service: GameService,  # noqa: F811
) -> None:
    game_id, players = await new_game(service, [None, None, None])
    table = Table(client, game_id, players)
    for seat in (0, 2):
        body = problem(await table.get(seat, "/record"), 409, "game_not_finished")
        assert "finished" in body["detail"]
    await play(service, game_id, 20, random.Random(5))
    problem(await table.get(1, "/record"), 409, "game_not_finished")  # nor mid-game
    # mid-game, a past version is the caller's own view then: no one else's hand, no state
    past = (await table.get(1, at=4)).json()
    assert past["version"] == 4 and past["state"] is None and past["room_id"].startswith("room-")
    assert past["view"]["private"] and "hands" not in past["view"]["public"]
    now = (await table.get(1)).json()
    problem(await table.get(1, at=now["version"] + 1), 400, "at_beyond_version")

    await play(service, game_id, 5_000, random.Random(6))  # to the end
    r = await table.get(1, "/record")
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("application/x-ndjson")
    header, lines = read(r.text.splitlines())
    assert header["game_id"] == game_id and header["names"] == ["p0", "p1", "p2"]
    assert [p["player_id"] for p in header["players"]] == players
    # every hand, where seat 1's own feed hides seats 0 and 2's
    dealt = [e["data"] for e in lines[0]["events"] if e["type"] == "ittybits_dealt"]
    assert all(d["cards"] for d in dealt)
    feed = (await table.get(1, "/events", after=0)).json()["events"]
    hidden = [e for e in feed if e["type"] == "ittybits_dealt" and e["data"]["seat"] != 1]
    assert hidden and all(e["data"]["cards"] is None for e in hidden)
    done = replay(header, lines)
    assert done.version == header["version"] and done.unproven == 0
    view = (await table.get(0)).json()
    assert msgspec.to_builtins(header["outcome"])["ranks"] == view["outcome"]["ranks"]
    # once finished, a past version is the whole state: every hand
    past = (await table.get(2, at=4)).json()
    assert past["version"] == 4 and past["outcome"] is None
    assert len(past["state"]["hands"]) == 3 and all(past["state"]["hands"])
    # inside the setup's deal nobody is to act yet: the game was on, not over
    assert (past["status"], past["to_act"]) == ("active", [])
    last = (await table.get(2, at=header["version"])).json()
    assert last["status"] == "finished" and last["outcome"] == view["outcome"]
    # my games by status: this one is finished now
    auth = table.auth(1)
    finished = (
        await client.get("/v1/me/games", params={"status": "finished"}, headers=auth)
    ).json()
    active = (await client.get("/v1/me/games", params={"status": "active"}, headers=auth)).json()
    assert game_id in {g["id"] for g in finished["items"]}
    assert all(g["status"] == "finished" for g in finished["items"])
    assert game_id not in {g["id"] for g in active["items"]}
    # the Python client reads it the same
    token = table.auth(2)["authorization"].removeprefix("Bearer ")
    url = str(client.base_url)
    async with AsyncClient(url, url, token) as python_client:
        assert await python_client.get_game_record(game_id) == [header, *lines]


async def test_a_record_of_an_unknown_game_is_404(client: httpx.AsyncClient) -> None:  # noqa: F811
    game_id, players = "00000000-0000-4000-8000-00000000dead", ["nobody"]
    problem(await Table(client, game_id, players).get(0, "/record"), 404, "unknown_game")
