"""The lobby's ratings consumer SIGKILLed at random moments while 50 finished games' news
(each sent twice) reaches it: every game recorded once, every rating what a clean run gives.

The games are made as the game service and the lobby leave them (a room, its seats, the
game's `game_over` event); the lobby is a real process (`python -m services.lobby`) on this
test's own stream prefix. Each game seats four people of its own, so a game's ratings do not
depend on the order the games are rated in, and a clean run (each game rated once from fresh
ratings by the model, `ratings.rate`) is exact: a game rated twice, or half, would show."""

from __future__ import annotations

import asyncio
import os
import random
import secrets
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import asyncpg
import msgspec

from contracts.streams import LIFECYCLE, GameEvent
from infra.servers.local import free_port
from infra.streams.redis import RedisStreams
from services.lobby.ratings import Seat, fresh, rate
from tests.bench.records import GAME, finished_game

ROOT = Path(__file__).resolve().parents[2]
GAMES_N = 50


async def made(
    pool: asyncpg.Pool, rng: random.Random
) -> list[tuple[str, str, list[str], list[int]]]:
    """50 finished games, four new people each: (game id, room id, players, ranks)."""
    out = []
    async with pool.acquire() as conn:
        for _ in range(GAMES_N):
            people = [f"pk-{uuid.uuid4()}" for _ in range(4)]
            await conn.executemany(
                "INSERT INTO players (id, name) VALUES ($1, $2)", [(p, p[:8]) for p in people]
            )
            ranks = rng.choice([[1, 2, 3, 4], [2, 1, 4, 3], [1, 1, 3, 4], [4, 3, 2, 1]])
            game_id, room = await finished_game(conn, people, ranks)
            out.append((game_id, room, people, ranks))
    return out


def lobby(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "services.lobby"],
        cwd=ROOT,
        env=env,
        stdout=open(log, "ab"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


async def up(env: dict[str, str]) -> None:
    """Until the lobby answers on its port (its consumers start with it)."""
    for _ in range(200):
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", int(env["LOBBY_PORT"]))
        except OSError:
            await asyncio.sleep(0.05)
            continue
        writer.close()
        return
    raise AssertionError("the lobby did not start")


def kill(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


async def test_the_ratings_consumer_killed_at_random_rates_every_game_once(
    pool: asyncpg.Pool, database_url: str, redis_url: str, stream_prefix: str, tmp_path: Path
) -> None:
    rng = random.Random(7)
    games = await made(pool, rng)
    prefix = f"{stream_prefix}kill-{uuid.uuid4().hex[:6]}:"
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "STREAM_PREFIX": prefix,
        "LOBBY_PORT": str(free_port()),
        "TURNPOST_SECRET": secrets.token_urlsafe(48),
        "LOG_LEVEL": "WARNING",
        "PYTHONUNBUFFERED": "1",
    }
    streams = RedisStreams.from_url(redis_url)
    proc = lobby(env, tmp_path / "lobby.log")
    kills = 0
    try:
        news = [
            GameEvent(
                game_id=g,
                game=GAME,
                room_id=room,
                version=2,
                type="game_over",
                to_act=[],
                status="finished",
                bots={},
                batch_end=True,
                global_position=0,
            )
            for g, room, _, _ in games
        ]
        ids = [g for g, _, _, _ in games]
        behind = []  # at each kill: games published and not yet recorded
        for round_ in range(10):  # five games' news a round, each twice; then SIGKILL
            await up(env)
            batch = news[5 * round_ : 5 * round_ + 5]
            for envelope in [*batch, *rng.sample(batch, len(batch))]:
                await streams.publish(f"{prefix}{LIFECYCLE}", msgspec.json.encode(envelope))
            # at once (the news unread or in hand), or a moment later (mid-batch, or done)
            await asyncio.sleep(0.0 if round_ % 3 == 0 else rng.uniform(0.0, 0.3))
            done = await pool.fetchval(
                "SELECT count(*) FROM finished_games WHERE game_id = ANY($1)", ids
            )
            behind.append(5 * round_ + 5 - done)
            kill(proc)
            kills += 1
            proc = lobby(env, tmp_path / "lobby.log")
        for _ in range(600):  # a killed consumer's pending news is claimed back after 30 s
            done = await pool.fetchval(
                "SELECT count(*) FROM finished_games WHERE game_id = ANY($1)", ids
            )
            if done == GAMES_N:
                break
            await asyncio.sleep(0.25)
        await asyncio.sleep(2)  # and the copies after them
    finally:
        kill(proc)
        await streams.close()
    assert kills == 10 and any(behind), behind  # killed with news in hand, at least once
    assert done == GAMES_N, (tmp_path / "lobby.log").read_text()[-3000:]
    rows = await pool.fetch(
        "SELECT subject, mu, sigma, games FROM ratings WHERE game = $1 AND subject = ANY($2)",
        GAME,
        [p for _, _, people, _ in games for p in people],
    )
    got = {r["subject"]: (r["mu"], r["sigma"], r["games"]) for r in rows}
    assert len(got) == 4 * GAMES_N and all(n == 1 for _, _, n in got.values())
    for _, _, people, ranks in games:  # a clean run: each game rated once from fresh ratings
        seats = [Seat(i, p, p, None) for i, p in enumerate(people)]
        clean = rate(seats, ranks, {p: fresh() for p in people})
        for p in people:
            assert abs(got[p][0] - clean[p].mu) < 1e-9 and abs(got[p][1] - clean[p].sigma) < 1e-9
    history = await pool.fetchval(
        "SELECT count(*) FROM player_games WHERE game_id = ANY($1)", [g for g, _, _, _ in games]
    )
    assert history == 4 * GAMES_N
