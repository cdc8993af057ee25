"""Players' records at scale (issue: "Players who come back"): a leaderboard page and a
player's history page with 100,000 players and 1,000,000 finished games in PostgreSQL, and
finished games rated per second through services/lobby/ratings.py.

    .venv/bin/python -m tests.bench.records [--players 100000] [--games 1000000]

Part of `make bench` (tests/bench/run.py) at the defaults; standalone it makes and drops its
own database. Each page is read through services/lobby/profiles.py (the queries and the
decoding the routes serve) `--reads` times, cold pages (deep cursors, random players) mixed
with warm ones; prints p50/p99 in ms and the plans (EXPLAIN ANALYZE) of one of each.
Rating: `--rate` finished games seeded as the game service leaves them (a game_over event,
a room and its seats), rated one at a time (Ratings.game_finished, as the consumer does
a message whose batch failed), then a consumer's batch at a time (Ratings.games_finished, its
`prepare`): games per second each way.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import time
import uuid
from collections.abc import Callable
from typing import Any

import asyncpg

from infra.servers.migrate import migrate
from services.lobby.profiles import Profiles
from services.lobby.ratings import Ratings

ADMIN_DSN = os.environ.get("BENCH_ADMIN_DSN", "postgresql://postgres@127.0.0.1:5432/postgres")
GAME = "itty-bitty"
BATCH = 32  # infra/streams/consumer.py: Consumer.batch, the messages of one read


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def seed(conn: asyncpg.Connection, players: int, games: int) -> None:
    """Players, their ratings (60 % settled), and finished games of 4 seats each, spread over
    a year; player i sits in games i, i+1, ... (so every player has ~40 games)."""
    await conn.execute(
        """INSERT INTO players (id, name) SELECT 'p-' || i, 'Player ' || i
           FROM generate_series(0, $1 - 1) AS i""",
        players,
    )
    await conn.execute(
        """INSERT INTO ratings (game, subject, mu, sigma, games, wins)
           SELECT $2, 'p-' || i, 25 + 10 * sin(i), 2 + (i % 70) / 10.0,
                  CASE WHEN i % 5 < 3 THEN 10 + i % 40 ELSE i % 10 END, i % 7
           FROM generate_series(0, $1 - 1) AS i""",
        players,
        GAME,
    )
    seats = """jsonb_build_array(
        jsonb_build_object('seat', 0, 'player_id', 'p-' || (g % $2), 'name', 'P', 'bot', null,
                           'rank', 1, 'rating_change', 0.5),
        jsonb_build_object('seat', 1, 'player_id', 'p-' || ((g + 1) % $2), 'name', 'P',
                           'bot', null, 'rank', 2, 'rating_change', -0.1),
        jsonb_build_object('seat', 2, 'player_id', 'p-' || ((g + 2) % $2), 'name', 'P',
                           'bot', null, 'rank', 3, 'rating_change', -0.2),
        jsonb_build_object('seat', 3, 'player_id', 'p-' || ((g + 3) % $2), 'name', 'P',
                           'bot', null, 'rank', 4, 'rating_change', -0.2))"""
    step = 200_000
    for start in range(0, games, step):
        stop = min(games, start + step)
        await conn.execute(
            f"""INSERT INTO finished_games (game_id, room_id, game, rated, started_at,
                    finished_at, options, outcome, seats)
                SELECT 'g-' || g, 'r-' || g, $3, true,
                       now() - make_interval(secs => g * 31.5) - interval '1 hour',
                       now() - make_interval(secs => g * 31.5), '{{}}',
                       '{{"ranks": [1, 2, 3, 4], "winners": [0], "scores": [4, 3, 2, 1]}}',
                       {seats}
                FROM generate_series($1::int, $4::int - 1) AS g""",
            start,
            players,
            GAME,
            stop,
        )
        await conn.execute(
            """INSERT INTO player_games (player_id, finished_at, game_id, game, won)
               SELECT 'p-' || ((g + k) % $2), now() - make_interval(secs => g * 31.5),
                      'g-' || g, $3, k = 0
               FROM generate_series($1::int, $4::int - 1) AS g, generate_series(0, 3) AS k""",
            start,
            players,
            GAME,
            stop,
        )
    await conn.execute("ANALYZE")


async def timed(reads: int, page: Callable[[int], Any]) -> list[float]:
    took = []
    for i in range(reads):
        began = time.perf_counter()
        await page(i)
        took.append((time.perf_counter() - began) * 1000)
    return took


async def pages(dsn: str, players: int, reads: int, out: Callable[..., None]) -> None:
    pool = await asyncpg.create_pool(dsn, min_size=2, max_size=4)
    assert pool is not None
    profiles = Profiles(pool)
    rng = random.Random(1)
    try:
        cursors = [None]
        board = await profiles.leaderboard(GAME, False, 50, None)
        for _ in range(200):  # a walk 200 pages deep, for cursors to come back to
            if board.next is None:
                break
            cursors.append(board.next)
            board = await profiles.leaderboard(GAME, False, 50, board.next)

        async def leaderboard(i: int) -> Any:
            return await profiles.leaderboard(GAME, False, 50, rng.choice(cursors))

        async def history(i: int) -> Any:
            return await profiles.history(f"p-{rng.randrange(players)}", 20, None)

        async def profile(i: int) -> Any:
            return await profiles.profile(f"p-{rng.randrange(players)}")

        for name, read in (
            ("leaderboard", leaderboard),
            ("history", history),
            ("profile", profile),
        ):
            took = await timed(reads, read)
            out(f"records_{name}_page_p50", statistics.median(took), "ms")
            out(f"records_{name}_page_p99", pct(took, 0.99), "ms")
        async with pool.acquire() as conn:
            for name, sql, args in (
                (
                    "leaderboard",
                    """EXPLAIN ANALYZE SELECT * FROM ratings WHERE game = $1 AND games >= 10
                       AND ($2::float8 IS NULL OR (ordinal, subject) < ($2, $3))
                       ORDER BY ordinal DESC, subject DESC LIMIT 51""",
                    (GAME, 20.0, "p-5"),
                ),
                (
                    "history",
                    """EXPLAIN ANALYZE SELECT game_id, finished_at FROM player_games
                       WHERE player_id = $1 ORDER BY finished_at DESC, game_id DESC LIMIT 21""",
                    ("p-77",),
                ),
            ):
                plan = [r[0] for r in await conn.fetch(sql, *args)]
                out(f"records_{name}_plan", " | ".join(p.strip() for p in plan[:4]))
    finally:
        await pool.close()


async def finished_game(
    conn: asyncpg.Connection, seated: list[str], ranks: list[int]
) -> tuple[str, str]:
    """A finished game as the game service and the lobby leave it for the ratings consumer:
    its room and seats (these players, in order) and its log's `game_over` with these ranks;
    (game id, room id)."""
    room, game_id = f"rr-{uuid.uuid4()}", str(uuid.uuid4())
    await conn.execute(
        "INSERT INTO rooms (id, game, status, host, seat_count, game_id) "
        "VALUES ($1, $2, 'finished', $3, $4, $5)",
        room,
        GAME,
        seated[0],
        len(seated),
        game_id,
    )
    await conn.executemany(
        "INSERT INTO room_seats (room_id, seat, player_id) VALUES ($1, $2, $3)",
        [(room, i, p) for i, p in enumerate(seated)],
    )
    over = {"type": "game_over", "outcome": {"ranks": ranks}, "standings": []}
    await conn.executemany(
        "INSERT INTO events (stream_id, version, event_id, type, data) VALUES ($1, $2, $3, $4, $5)",
        [
            (f"game-{game_id}", 1, uuid.uuid4(), "game_set_up", "{}"),
            (f"game-{game_id}", 2, uuid.uuid4(), "game_over", json.dumps(over)),
        ],
    )
    return game_id, room


async def rating_rate(dsn: str, games: int, out: Callable[..., None]) -> None:
    """Finished games as the game service and the lobby leave them, rated one at a time (a
    message whose batch failed) and a consumer's batch at a time; games per second."""
    pool = await asyncpg.create_pool(dsn, min_size=2, max_size=10)
    assert pool is not None
    try:
        people = [f"rp-{i}" for i in range(400)]
        await pool.executemany(
            "INSERT INTO players (id, name, bot) VALUES ($1, $2, $3)",
            [(p, p, None) for p in people] + [("rbot", "greedy", "greedy")],
        )
        made: list[tuple[str, str]] = []
        rng = random.Random(2)
        async with pool.acquire() as conn:
            for _ in range(2 * games):
                seated = [*rng.sample(people, 3), "rbot"]
                made.append(await finished_game(conn, seated, rng.sample([1, 2, 3, 4], 4)))
        ratings = Ratings(pool)
        one, batched = made[:games], made[games:]
        began = time.perf_counter()
        for game_id, room in one:
            await ratings.game_finished(game_id, room, GAME)
        out("records_rated_games_per_s_one_at_a_time", games / (time.perf_counter() - began), "/s")
        began = time.perf_counter()
        for i in range(0, games, BATCH):  # as the consumer hands them over: a batch a read
            await ratings.games_finished([(g, r, GAME) for g, r in batched[i : i + BATCH]])
        out(
            f"records_rated_games_per_s_batches_of_{BATCH}",
            games / (time.perf_counter() - began),
            "/s",
        )
        rated = await pool.fetchval(
            "SELECT count(*) FROM finished_games WHERE game_id = ANY($1)", [g for g, _ in made]
        )
        out("records_rated_games_checked", rated, f"of {2 * games}")
    finally:
        await pool.close()


async def run(
    dsn: str, players: int, games: int, reads: int, rate: int, out: Callable[..., None]
) -> None:
    conn = await asyncpg.connect(dsn)
    try:
        await migrate(conn)
        began = time.perf_counter()
        await seed(conn, players, games)
        out(
            "records_seeded",
            f"{players} players, {games} finished games",
            f"in {time.perf_counter() - began:.0f} s",
        )
    finally:
        await conn.close()
    await pages(dsn, players, reads, out)
    await rating_rate(dsn, rate, out)


def _out(name: str, value: Any, unit: str = "") -> None:
    print(
        f"{name} {round(value, 3) if isinstance(value, float) else value} {unit}".rstrip(),
        flush=True,
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=100_000)
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--reads", type=int, default=500)
    parser.add_argument("--rate", type=int, default=1000)
    args = parser.parse_args()
    name = f"bench_records_{os.getpid()}"
    admin = await asyncpg.connect(ADMIN_DSN)
    await admin.execute(f'CREATE DATABASE "{name}"')
    try:
        dsn = ADMIN_DSN.rsplit("/", 1)[0] + f"/{name}"
        await run(dsn, args.players, args.games, args.reads, args.rate, _out)
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


if __name__ == "__main__":
    asyncio.run(main())
