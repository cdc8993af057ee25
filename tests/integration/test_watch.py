"""Games to watch over real Postgres (in-process lobby and game service): GET /v1/games lists
the games of public rooms being played now (or over), newest first, paged; never a game of
an unlisted room; each watchable with the spectator's view, which holds no seat's secret."""

from __future__ import annotations

from typing import Any

import asyncpg
import httpx

from infra.settings import Settings
from services.game.app import create_app as game_app
from services.lobby.ratings import Ratings
from services.lobby.rooms import Lobby
from tests.integration.serve import serving
from tests.integration.tables import game_service, new_game
from tests.integration.test_lobby_api import auth, client, player, problem, settings  # noqa: F401
from tests.integration.test_ratings import finished_game


async def started(
    client: httpx.AsyncClient,  # noqa: F811
    pool: asyncpg.Pool,
    host: dict[str, str],
    visibility: str,
) -> str:
    body = {"game": "itty-bitty", "seats": 2, "visibility": visibility}
    room = (await client.post("/v1/rooms", json=body, headers=auth(host))).json()
    r = await client.post(f"/v1/rooms/{room['id']}/start", headers=auth(host))
    assert r.status_code == 202, r.text
    [message] = [m for m in await Lobby(pool).stuck_starting(-1) if m.room_id == room["id"]]
    return await game_service(pool).create_from_room(message)


async def listing(service: httpx.AsyncClient, **params: Any) -> list[dict[str, Any]]:
    """Every page of GET /v1/games, one game a page (the cursor walked)."""
    items, cursor = [], None
    while True:
        query = {**params, "limit": 1, **({"cursor": cursor} if cursor else {})}
        r = await service.get("/v1/games", params=query)
        assert r.status_code == 200, r.text
        items += r.json()["items"]
        cursor = r.json()["next"]
        if cursor is None:
            return items


async def test_the_games_of_public_rooms_are_listed_to_watch_and_unlisted_ones_never(
    client: httpx.AsyncClient,  # noqa: F811
    settings: Settings,  # noqa: F811
    pool: asyncpg.Pool,
) -> None:
    ada, bob, cy = [await player(client, n) for n in ("Ada", "Bob", "Cy")]
    public = await started(client, pool, ada, "public")
    hidden = await started(client, pool, ada, "unlisted")
    newer = await started(client, pool, bob, "public")
    _, over = await finished_game(client, pool, ada, bob, seed=6)
    orphan, _ = await new_game(game_service(pool), [None, None])  # a room the lobby lacks
    async with serving(game_app(settings)) as game:
        active = await listing(game, game="itty-bitty")
        ids = [g["id"] for g in active]
        assert hidden not in ids and over not in ids and orphan not in ids
        assert ids.index(newer) < ids.index(public)  # newest first
        assert len(ids) == len(set(ids))  # each once across the pages
        [mine] = [g for g in active if g["id"] == public]
        assert mine["status"] == "active" and mine["title"] == "The itty bitty card game"
        assert mine["seats"][0]["player_id"] == ada["id"]
        assert mine["seats"][1]["bot"] == "greedy" and mine["started_at"].endswith("Z")
        finished = [g["id"] for g in await listing(game, status="finished")]
        assert over in finished and public not in finished
        assert public not in [g["id"] for g in await listing(game, game="footprints")]
        # watched: the spectator's view, no seat of theirs, nobody's hand
        view = (await game.get(f"/v1/games/{public}", headers=auth(cy))).json()
        assert view["your_seat"] is None and view["view"]["private"] is None
        problem(await game.get("/v1/games", params={"cursor": "nope"}), 400, "bad_cursor")
        # an unlisted room's finished game: its record is its players' alone, and its place
        # in a player's history is not shown to others
        room, private = await finished_game(client, pool, ada, bob, seed=7, visibility="unlisted")
        problem(await game.get(f"/v1/games/{private}/record", headers=auth(cy)), 403, "not_seated")
        assert (await game.get(f"/v1/games/{private}/record", headers=auth(bob))).status_code == 200
        # nor its hands version by version: the whole state at N is its players' too
        at = {"at": 3}
        then = (await game.get(f"/v1/games/{private}", params=at, headers=auth(cy))).json()
        assert then["version"] == 3 and then["state"] is None and then["your_seat"] is None
        assert then["view"]["private"] is None
        theirs_then = await game.get(f"/v1/games/{private}", params=at, headers=auth(bob))
        assert theirs_then.json()["state"]["hands"]
        public_then = await game.get(f"/v1/games/{over}", params=at, headers=auth(cy))
        assert public_then.json()["state"]["hands"]  # a public room's: anyone's
        assert private not in [g["id"] for g in await listing(game, status="finished")]
        assert await Ratings(pool).game_finished(private, room, "itty-bitty")
        path = f"/v1/players/{ada['id']}/games"
        theirs = (await client.get(path, headers=auth(cy))).json()["items"]
        mine = (await client.get(path, headers=auth(ada))).json()["items"]
        assert private in [g["game_id"] for g in mine]
        assert private not in [g["game_id"] for g in theirs]
        problem(await game.get("/v1/games", params={"status": "open"}), 400, "malformed_request")
