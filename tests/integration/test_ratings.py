"""Players' records over real Postgres and Redis: each finished game rated once (by a direct
call, and by the lobby's ratings consumer however often the news comes), unrated rooms, the
profile, the history, my rooms and the leaderboards."""

from __future__ import annotations

import asyncio
import base64
import json
import random
import uuid
from typing import Any

import asyncpg
import httpx
import msgspec
import pytest

from contracts.streams import FINISHED, LIFECYCLE, GameEvent
from infra.auth.bearer import Principal
from infra.settings import Settings
from infra.streams.redis import RedisStreams
from services.game.routes.games import game_view
from services.game.seats import resign
from services.game.service import GameService
from services.lobby.ratings import Rating, Ratings, Seat, fresh, rate
from services.lobby.rooms import Lobby
from tests.integration.tables import game_service
from tests.integration.test_lobby_api import auth, client, player, problem, settings  # noqa: F401


async def finished_game(
    client: httpx.AsyncClient,  # noqa: F811
    pool: asyncpg.Pool,
    host: dict[str, str],
    guest: dict[str, str],
    rated: bool = True,
    seed: int = 1,
    resigns: int | None = None,
    visibility: str = "public",
) -> tuple[str, str]:
    """A 3-seat itty bitty room (host, guest, a random bot) played to its end: (room, game);
    `resigns`: that seat's person resigns first (its fill-level bot plays it on)."""
    body = {"game": "itty-bitty", "seats": 3, "rated": rated, "visibility": visibility}
    r = await client.post("/v1/rooms", json=body, headers=auth(host))
    assert r.status_code == 201, r.text
    room_id = r.json()["id"]
    assert r.json()["rated"] is rated
    joining = {"seat": 1, "invite_code": r.json()["invite_code"]}
    await client.post(f"/v1/rooms/{room_id}/join", json=joining, headers=auth(guest))
    await client.post(f"/v1/rooms/{room_id}/bots", json={"level": "random"}, headers=auth(host))
    assert (await client.post(f"/v1/rooms/{room_id}/start", headers=auth(host))).status_code == 202
    [started] = [m for m in await Lobby(pool).stuck_starting(-1) if m.room_id == room_id]
    svc: GameService = game_service(pool)
    game_id = await svc.create_from_room(started)
    if resigns is not None:
        await resign(svc, game_id, resigns)
    rng = random.Random(seed)
    for _ in range(5_000):  # random legal moves to the end, the bot's seat played as a bot
        loaded = await svc.load(game_id)
        to_act = sorted(loaded.rules.to_act(loaded.state))
        if not to_act:  # what the lobby hears from the relay
            await Lobby(pool).game_moved(room_id, game_id, "finished")
            return room_id, game_id
        seat = rng.choice(to_act)
        action = rng.choice(list(loaded.rules.legal_actions(loaded.state, seat)))
        by_bot = loaded.table.seats[seat].bot is not None
        await svc.submit(
            game_id, seat, msgspec.to_builtins(action), loaded.version, uuid.uuid4(), by_bot=by_bot
        )
    raise AssertionError("the game did not end")


async def ratings_of(pool: asyncpg.Pool, subjects: list[str]) -> dict[str, tuple[float, int]]:
    rows = await pool.fetch(
        "SELECT subject, mu, games FROM ratings WHERE game = 'itty-bitty' AND subject = ANY($1)",
        subjects,
    )
    return {r["subject"]: (r["mu"], r["games"]) for r in rows}


def test_the_model_moves_a_winner_up_and_a_level_in_two_seats_once() -> None:
    seats = [Seat(0, "a", "A", None), Seat(1, "b1", "B", "greedy"), Seat(2, "b2", "B", "greedy")]
    before = {"a": fresh(), "bot:greedy": fresh()}
    after = rate(seats, [1, 2, 3], before)
    assert set(after) == {"a", "bot:greedy"}
    assert after["a"].mu > before["a"].mu > after["bot:greedy"].mu
    assert after["a"].sigma < before["a"].sigma
    tied = rate(seats[:2], [1, 1], {"a": fresh(), "bot:greedy": fresh()})
    assert abs(tied["a"].mu - tied["bot:greedy"].mu) < 1e-9


async def test_a_finished_game_is_rated_once_and_read_back(
    client: httpx.AsyncClient,  # noqa: F811
    pool: asyncpg.Pool,
) -> None:
    ada, bob, eve = [await player(client, n) for n in ("Ada", "Bob", "Eve")]
    room_id, game_id = await finished_game(client, pool, ada, bob)
    ratings = Ratings(pool)
    # the random level is every test's: its count goes on from where other tests left it
    level = (await ratings_of(pool, ["bot:random"])).get("bot:random", (0.0, 0))[1]
    assert await ratings.game_finished(game_id, room_id, "itty-bitty") is True
    first = await ratings_of(pool, [ada["id"], bob["id"], "bot:random"])
    counts = {s: n for s, (_, n) in first.items()}
    assert counts == {ada["id"]: 1, bob["id"]: 1, "bot:random": level + 1}
    # the same news again, and at once from two consumers: nothing moves
    again = await asyncio.gather(
        *(ratings.game_finished(game_id, room_id, "itty-bitty") for _ in range(3))
    )
    assert again == [False, False, False]
    assert await ratings_of(pool, [ada["id"], bob["id"], "bot:random"]) == first
    # the catalog shows the level's rating from rated games, beside the tournament's
    catalog = (await client.get("/v1/catalog")).json()["games"]
    [itty] = [g for g in catalog if g["key"] == "itty-bitty"]
    bots = {b["level"]: b for b in itty["bots"]}
    assert list(bots) == itty["bot_levels"] and all(b["description"] for b in bots.values())
    shown = bots["random"]["rating"]
    assert shown["games"] == level + 1 and shown["mu"] == pytest.approx(
        first["bot:random"][0], abs=1e-3
    )
    # and the room shows each seat's rating in the game: people's and the bot level's
    seats = (await client.get(f"/v1/rooms/{room_id}", headers=auth(ada))).json()["seats"]
    ordinals = await pool.fetch(
        "SELECT subject, ordinal FROM ratings WHERE game = 'itty-bitty' AND subject = ANY($1)",
        [ada["id"], bob["id"], "bot:random"],
    )
    by = {r["subject"]: round(r["ordinal"], 1) for r in ordinals}
    assert [s["rating"] for s in seats] == [by[ada["id"]], by[bob["id"]], by["bot:random"]]

    # the history: the result, every seat's rank and change, mine
    r = await client.get(f"/v1/players/{bob['id']}/games", headers=auth(eve))
    assert r.status_code == 200, r.text
    [item] = r.json()["items"]
    assert item["game_id"] == game_id and item["rated"] is True and item["room_id"] == room_id
    ranks = item["outcome"]["ranks"]
    assert [s["rank"] for s in item["seats"]] == ranks and item["rank"] == ranks[1]
    assert [s["bot"] for s in item["seats"]] == [None, None, "random"]
    winner = ranks.index(1)
    assert (
        item["seats"][winner]["rating_change"] > 0 > min(s["rating_change"] for s in item["seats"])
    )
    assert item["rating_change"] == item["seats"][1]["rating_change"]
    # the finished game's own view shows each seat's change, as the game service reads it
    view = await game_view(
        game_service(pool), Principal(player_id=bob["id"], name="Bob"), game_id, None
    )
    assert view.room_id == room_id and view.ratings is not None
    assert [r.rating_change for r in view.ratings] == [s["rating_change"] for s in item["seats"]]

    # a second game, unrated: recorded, rated nobody
    room2, game2 = await finished_game(client, pool, ada, bob, rated=False, seed=2)
    assert await ratings.game_finished(game2, room2, "itty-bitty") is True
    assert await ratings_of(pool, [ada["id"], bob["id"], "bot:random"]) == first
    page = (
        await client.get(f"/v1/players/{bob['id']}/games", params={"limit": 1}, headers=auth(bob))
    ).json()
    assert [i["game_id"] for i in page["items"]] == [game2] and page["next"]
    assert page["items"][0]["rated"] is False and page["items"][0]["rating_change"] is None
    older = await client.get(
        f"/v1/players/{bob['id']}/games",
        params={"limit": 1, "cursor": page["next"]},
        headers=auth(bob),
    )
    assert [i["game_id"] for i in older.json()["items"]] == [game_id] and older.json()[
        "next"
    ] is None
    problem(
        await client.get(
            f"/v1/players/{bob['id']}/games", params={"cursor": "nope"}, headers=auth(bob)
        ),
        400,
        "bad_cursor",
    )

    # who I am: games played and won (rated or not), my rating, provisional
    me = (await client.get("/v1/players/me", headers=auth(ada))).json()
    assert me["id"] == ada["id"] and me["name"] == "Ada" and me["since"]
    [itty] = me["games"]
    assert itty["game"] == "itty-bitty" and itty["played"] == 2 and itty["current"] == 0
    assert itty["rating"]["games"] == 1 and itty["rating"]["provisional"] is True
    history = (await client.get(f"/v1/players/{ada['id']}/games", headers=auth(ada))).json()
    assert itty["won"] == sum(i["rank"] == 1 for i in history["items"])
    assert (await client.get(f"/v1/players/{eve['id']}", headers=auth(ada))).json()["games"] == []
    problem(await client.get("/v1/players/p-nobody", headers=auth(ada)), 404, "unknown_player")
    renamed = await client.patch("/v1/players/me", json={"name": " Ada L. "}, headers=auth(ada))
    assert renamed.status_code == 200 and renamed.json()["name"] == "Ada L."
    problem(
        await client.patch("/v1/players/me", json={"name": "   "}, headers=auth(ada)),
        422,
        "invalid_name",
    )

    # my rooms: the two I sat in, not Eve's
    mine = (await client.get("/v1/me/rooms", headers=auth(bob))).json()
    assert [x["id"] for x in mine["items"]] == [room2, room_id]
    assert (await client.get("/v1/me/rooms", headers=auth(eve))).json()["items"] == []
    finished = (
        await client.get("/v1/me/rooms", params={"status": "open"}, headers=auth(ada))
    ).json()
    assert finished["items"] == []

    # the leaderboard: provisional ratings apart, walked page by page (other tests' players
    # share the board), places and ratings running on across the pages
    items: list[dict[str, Any]] = []
    cursor = None
    while True:
        params = {"provisional": "true", "limit": 40, **({"cursor": cursor} if cursor else {})}
        page = (await client.get("/v1/leaderboards/itty-bitty", params=params)).json()
        items += page["items"]
        if (cursor := page["next"]) is None:
            break
    ours = [x for x in items if x["subject"] in (ada["id"], bob["id"], "bot:random")]
    assert len(ours) == 3 and all(x["rating"]["provisional"] for x in items)
    shown = [(x["rating"]["rating"], x["subject"]) for x in items]
    assert shown == sorted(shown, reverse=True)
    assert [x["place"] for x in items] == list(range(1, len(items) + 1))
    bot = next(x for x in ours if x["subject"] == "bot:random")
    assert bot["bot"] == "random" and bot["name"] == "random"
    settled = (await client.get("/v1/leaderboards/itty-bitty")).json()
    assert all(not x["rating"]["provisional"] for x in settled["items"])
    problem(await client.get("/v1/leaderboards/chess"), 404, "unknown_game")
    # a cursor this API did not make, however well formed, is a 400, never a 500
    for crafted in (
        [1, 2],
        ["x", "y", 3],
        [True, "b", 1],
        ["not a time", "g"],
        ["2026-01-01", "g"],
    ):
        cursor = base64.urlsafe_b64encode(json.dumps(crafted).encode()).decode()
        for path in ("/v1/leaderboards/itty-bitty", f"/v1/players/{ada['id']}/games"):
            problem(
                await client.get(path, params={"cursor": cursor}, headers=auth(ada)),
                400,
                "bad_cursor",
            )


async def test_a_person_whose_seat_a_bot_took_over_is_rated_last_and_the_bot_not_at_all(
    client: httpx.AsyncClient,  # noqa: F811
    pool: asyncpg.Pool,
) -> None:
    ada, bob = await player(client, "Ada"), await player(client, "Bob")
    room_id, game_id = await finished_game(client, pool, ada, bob, seed=4, resigns=0)
    greedy_before = await ratings_of(pool, ["bot:greedy"])
    level = await rating_of(pool, "bot:random")  # other tests' games move it too
    assert await Ratings(pool).game_finished(game_id, room_id, "itty-bitty") is True
    row = await pool.fetchrow(
        "SELECT outcome::text, seats::text FROM finished_games WHERE game_id = $1", game_id
    )
    outcome, seats = json.loads(row["outcome"]), json.loads(row["seats"])
    assert outcome["detail"]["forfeited"] == [0] and outcome["ranks"][0] == 3  # last, alone
    assert [s["rank"] for s in seats] == outcome["ranks"]
    # rated as the model rates a last place: her own rating moves, not a bot level's
    people = [Seat(0, ada["id"], "Ada", None), Seat(1, bob["id"], "Bob", None)]
    expected = rate(
        [*people, Seat(2, "b", "Random", "random")],
        outcome["ranks"],
        {ada["id"]: fresh(), bob["id"]: fresh(), "bot:random": level},
    )
    assert await rating_of(pool, ada["id"]) == expected[ada["id"]]
    assert expected[ada["id"]].ordinal < fresh().ordinal and seats[0]["rating_change"] < 0
    # the greedy bot that played her seat on is no person's result and no level's either
    assert await ratings_of(pool, ["bot:greedy"]) == greedy_before


async def rating_of(pool: asyncpg.Pool, subject: str) -> Rating:
    row = await pool.fetchrow(
        "SELECT mu, sigma FROM ratings WHERE game = 'itty-bitty' AND subject = $1", subject
    )
    return Rating(row["mu"], row["sigma"]) if row else fresh()


async def test_the_lobby_rates_a_game_once_however_often_its_news_comes(
    client: httpx.AsyncClient,  # noqa: F811
    pool: asyncpg.Pool,
    settings: Settings,  # noqa: F811
) -> None:
    ada, bob = await player(client, "Ada"), await player(client, "Bob")
    room_id, game_id = await finished_game(client, pool, ada, bob, seed=3)
    loaded = await game_service(pool).load(game_id)
    news = GameEvent(
        game_id=game_id,
        game="itty-bitty",
        room_id=room_id,
        version=loaded.version,
        type="game_over",
        to_act=[],
        status="finished",
        bots={},
        batch_end=True,
        global_position=0,
    )
    streams = RedisStreams.from_url(settings.redis_url)
    try:
        for _ in range(3):  # a relay's retry, a restore's replay: the same news again
            await streams.publish(settings.stream(LIFECYCLE), msgspec.json.encode(news))
        for _ in range(100):
            if await pool.fetchval("SELECT 1 FROM finished_games WHERE game_id = $1", game_id):
                break
            await asyncio.sleep(0.1)
        await asyncio.sleep(0.5)  # the two later copies handled too
        # each copy's end published on FINISHED once recorded, for its game_finished news
        # (the notifier's delivery key makes the copies one delivery)
        told = [
            msgspec.json.decode(fields[b"m"], type=GameEvent)
            for _, fields in await streams.r.xrange(settings.stream(FINISHED))
        ]
        assert [e for e in told if e.game_id == game_id] == [news] * 3
    finally:
        await streams.close()
    got = await ratings_of(pool, [ada["id"], bob["id"]])
    assert {s: n for s, (_, n) in got.items()} == {ada["id"]: 1, bob["id"]: 1}
    assert await pool.fetchval("SELECT count(*) FROM player_games WHERE game_id = $1", game_id) == 2
