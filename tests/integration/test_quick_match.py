"""Quick match over real Postgres and Redis: one caller's table, the queue left, settings
kept apart (an in-process lobby); and 50 concurrent callers across two lobby processes
(`python -m services.lobby`), each seated once, no table over-filled, none waiting past the
fill, pairs nearer in rating than a random pairing."""

from __future__ import annotations

import asyncio
import itertools
import os
import random
import secrets
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import asyncpg
import httpx

from contracts.streams import LOBBY
from infra.settings import Settings
from infra.streams.redis import RedisStreams
from services.lobby.matching import WINDOW_GROWTH, WINDOW_START, nearest, window
from tests.integration.test_lobby_api import auth, client, player, problem, settings  # noqa: F401
from tests.integration.test_ratings_kill import free_port, kill, up

ROOT = Path(__file__).resolve().parents[2]
FILL_S = 5  # the shortest fill a table may ask


async def test_a_caller_waits_at_one_table_until_another_comes_then_both_play(
    client: httpx.AsyncClient,  # noqa: F811
    settings: Settings,  # noqa: F811
) -> None:
    ada, bob, cy = [await player(client, n) for n in ("Ada", "Bob", "Cy")]
    body = {"game": "itty-bitty", "seats": 2, "fill_with_bots_after_s": 60}
    first = await client.post("/v1/match", json=body, headers=auth(ada))
    assert first.status_code == 200, first.text
    waiting = first.json()
    assert waiting["status"] == "waiting" and waiting["game_id"] is None
    room = waiting["room"]
    assert room["quick_match"] is True and room["auto_start"] is True and room["rated"] is True
    assert [s["player_id"] for s in room["seats"]] == [ada["id"], None]
    assert waiting["fill_due_at"] == room["fill_due_at"] is not None
    # again, the same settings in another order of fields: the same table, not a second seat
    again = await client.post("/v1/match", json=dict(reversed(body.items())), headers=auth(ada))
    assert again.json()["room"]["id"] == room["id"]
    assert (await client.get("/v1/match", headers=auth(ada))).json()["room"]["id"] == room["id"]
    # other settings are another queue: Cy's unrated table is not Ada's
    other = await client.post("/v1/match", json={**body, "rated": False}, headers=auth(cy))
    assert other.json()["room"]["id"] != room["id"]

    streams = RedisStreams.from_url(settings.redis_url)
    try:
        since = await streams.latest_id(settings.stream(LOBBY))
        second = await client.post("/v1/match", json=body, headers=auth(bob))
        matched = second.json()["room"]
        assert matched["id"] == room["id"] and matched["status"] == "starting"  # full: starts
        assert [s["player_id"] for s in matched["seats"]] == [ada["id"], bob["id"]]
        # the game service is told at once (no game service runs here: still `waiting`)
        told = [
            m
            for m in await streams.tail(settings.stream(LOBBY), since, 1000)
            if b'"room_started"' in m.payload
        ]
        assert any(room["id"].encode() in m.payload for m in told)
    finally:
        await streams.close()
    # a table filled by a plain join (it is public) starts as well
    dee = await player(client, "Dee")
    lonely = (await client.post("/v1/match", json=body, headers=auth(dee))).json()["room"]
    eve = await player(client, "Eve")
    joined = await client.post(f"/v1/rooms/{lonely['id']}/join", headers=auth(eve))
    assert joined.status_code == 200 and joined.json()["status"] == "starting"
    # the table has started: leaving is refused, the match was found (and shown, not denied)
    assert (await client.get("/v1/match", headers=auth(bob))).json()["room"]["id"] == room["id"]
    problem(await client.delete("/v1/match", headers=auth(bob)), 409, "room_not_open")
    # Cy leaves the queue: their table is cancelled (nobody else sat there)
    assert (await client.delete("/v1/match", headers=auth(cy))).status_code == 204
    problem(await client.get("/v1/match", headers=auth(cy)), 404, "not_matching")
    gone = (await client.get(f"/v1/rooms/{other.json()['room']['id']}")).json()
    assert gone["status"] == "cancelled"


async def test_a_quick_match_s_settings_are_checked_as_a_room_s(
    client: httpx.AsyncClient,  # noqa: F811
) -> None:
    ada = await player(client, "Ada")
    for body, status, code in [
        ({"game": "chess"}, 422, "unknown_game"),
        ({"game": "itty-bitty", "seats": 9}, 422, "bad_seat_count"),
        ({"game": "itty-bitty", "options": {"nope": 1}}, 422, "invalid_options"),
        ({"game": "itty-bitty", "fill_with_bots_after_s": 1}, 422, "invalid_fill"),
        ({"game": "itty-bitty", "fill_level": "godlike"}, 422, "unknown_bot_level"),
        ({"game": "itty-bitty", "colour": "red"}, 400, "malformed_request"),
    ]:
        problem(await client.post("/v1/match", json=body, headers=auth(ada)), status, code)
    problem(await client.post("/v1/match", json={"game": "itty-bitty"}), 401, "unauthorized")


def test_the_window_widens_with_the_wait_and_the_nearest_table_wins() -> None:
    assert window(0) == WINDOW_START and window(10) == WINDOW_START + 10 * WINDOW_GROWTH
    tables: list[Any] = [
        {"id": "old-far", "waited": 1.0, "mu": 35.0},
        {"id": "near", "waited": 0.0, "mu": 27.0},
        {"id": "nearer-later", "waited": 0.0, "mu": 26.0},
    ]
    assert nearest(tables, 25.0) == "nearer-later"
    assert nearest(tables, 40.0) is None  # 5 from the far table, which waited 1 s: window 4
    tables[0]["waited"] = 2.0
    assert nearest(tables, 40.0) == "old-far"
    same = [{"id": "first", "waited": 0.0, "mu": 25.0}, {"id": "second", "waited": 0.0, "mu": 25.0}]
    assert nearest(same, 25.0) == "first"  # a tie: the older table


def lobby(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "services.lobby"],
        cwd=ROOT,
        env=env,
        stdout=open(log, "ab"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


async def test_fifty_callers_across_two_lobbies_are_each_seated_once_near_in_rating(
    pool: asyncpg.Pool, database_url: str, redis_url: str, stream_prefix: str, tmp_path: Path
) -> None:
    secret = secrets.token_urlsafe(48)
    base = {
        **os.environ,
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "STREAM_PREFIX": f"{stream_prefix}match-{uuid.uuid4().hex[:6]}:",
        "TURNPOST_SECRET": secret,
        "LOG_LEVEL": "WARNING",
        "RATE_LIMIT_REGISTER": "10000/minute",
        "RATE_LIMIT_WRITE": "10000/minute",
        "RATE_LIMIT_READ": "10000/minute",
    }
    envs = [{**base, "LOBBY_PORT": str(free_port())} for _ in range(2)]
    procs = [lobby(env, tmp_path / f"lobby-{i}.log") for i, env in enumerate(envs)]
    try:
        for env in envs:
            await up(env)
        urls = [f"http://127.0.0.1:{env['LOBBY_PORT']}" for env in envs]
        async with httpx.AsyncClient(timeout=30) as http:
            people = []
            for i in range(50):
                r = await http.post(f"{urls[i % 2]}/v1/players", json={"name": f"P{i}"})
                assert r.status_code == 201, r.text
                people.append(r.json())
            rng = random.Random(5)
            mu = {p["id"]: rng.uniform(10, 40) for p in people}
            await pool.executemany(
                "INSERT INTO ratings (game, subject, mu, sigma) VALUES ('itty-bitty', $1, $2, 4)",
                list(mu.items()),
            )
            body = {"game": "itty-bitty", "seats": 2, "fill_with_bots_after_s": FILL_S}
            began = time.monotonic()
            answers = await asyncio.gather(
                *(
                    http.post(
                        f"{urls[i % 2]}/v1/match",
                        json=body,
                        headers={"authorization": f"Bearer {p['token']}"},
                    )
                    for i, p in enumerate(people)
                )
            )
            assert all(a.status_code == 200 for a in answers), [a.text for a in answers]
            tables = {a.json()["room"]["id"] for a in answers}
            # every table starts within the fill and its sweep (1 s), and 2 s to spare
            while time.monotonic() - began < FILL_S + 2:
                rows = await pool.fetch(
                    "SELECT status FROM rooms WHERE id = ANY($1)", sorted(tables)
                )
                if all(r["status"] != "open" for r in rows):
                    break
                await asyncio.sleep(0.2)
            rows = await pool.fetch(
                """SELECT r.id, r.status, r.seat_count, count(s.*) AS taken,
                          array_agg(s.player_id) FILTER (WHERE p.bot IS NULL) AS people
                   FROM rooms r JOIN room_seats s ON s.room_id = r.id
                   JOIN players p ON p.id = s.player_id
                   WHERE r.id = ANY($1) GROUP BY r.id""",
                sorted(tables),
            )
        assert {r["status"] for r in rows} == {"starting"}, [dict(r) for r in rows]
        assert all(r["taken"] == r["seat_count"] == 2 for r in rows)  # full, none over
        seated = sorted(itertools.chain.from_iterable(r["people"] for r in rows))
        assert seated == sorted(mu)  # each caller exactly once
        pairs = [r["people"] for r in rows if len(r["people"]) == 2]
        assert len(pairs) >= 10, rows
        matched = statistics.mean(abs(mu[a] - mu[b]) for a, b in pairs)
        anyone = statistics.mean(abs(mu[a] - mu[b]) for a, b in itertools.combinations(mu, 2))
        assert matched < anyone / 3, (matched, anyone)
        print(f"quick match: {len(pairs)} pairs of people, mean |mu a - mu b| {matched:.2f}"
              f" against {anyone:.2f} for any two; {len(rows)} tables")  # fmt: skip
    finally:
        for proc in procs:
            kill(proc)
