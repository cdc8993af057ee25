"""Whatever crashes or goes missing, every game keeps moving (the progress guarantee).

The stack runs as separate processes over a Postgres cluster and a Redis server of this
module's own, so a test can kill any process with SIGKILL, flush Redis or restart Postgres
without disturbing anything else. Each game: a person who never moves (a 5 s clock hands
the seat to a bot) and bots; it must finish with contiguous versions and unique event ids.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import secrets
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import asyncpg
import httpx
import pytest
import redis

from contracts.game import GameView
from contracts.lobby import Timing
from tests.e2e.servers import PrivatePostgres, PrivateRedis, Processes, free_port
from turnpost.client import ApiError, Client, Policy

pytestmark = pytest.mark.e2e
T = TypeVar("T")

OPTIONS = {"events": True, "special_items": True, "forbidden_items": True, "postcards": True}


class Faulty:
    def __init__(
        self, pg: PrivatePostgres, rd: PrivateRedis, procs: Processes, lobby: str, game: str
    ) -> None:
        self.pg, self.redis, self.procs = pg, rd, procs
        self.lobby, self.game = lobby, game

    def _call(self, call: Callable[[], T]) -> T:
        """Retry while the service is down (a test may have killed it)."""
        deadline = time.monotonic() + 60
        while True:
            try:
                return call()
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)

    @contextlib.contextmanager
    def new_game(self) -> Iterator[tuple[str, str, Client]]:
        """A started game with a person who will never move; (room id, game id, their client),
        the client closed on leaving."""
        with Client(self.lobby, self.game, policy=Policy(timeout=10)) as me:
            yield self._start(me)

    def _start(self, me: Client) -> tuple[str, str, Client]:
        self._call(lambda: me.register("Absent"))
        timing = Timing(per_move_s=5, on_timeout="bot_takeover")
        room = self._call(lambda: me.create_room("itchy-feet", 4, options=OPTIONS, timing=timing))
        room_id = room.id  # 201, or it raised
        self._call(lambda: me.add_bot(room_id, "random"))
        started = self._call(lambda: me.start_room(room_id))
        assert started.status == "starting", started  # 202: the game comes later
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            got = self._call(lambda: me.get_room(room_id))
            if got.game_id:
                return room_id, got.game_id, me
            time.sleep(0.1)
        raise AssertionError("the game was not created")

    def version(self, game_id: str, me: Client) -> int:
        try:
            return self._call(lambda: me.get_game(game_id)).version
        except ApiError:
            return 0

    def finished(self, game_id: str, me: Client, seconds: float = 150) -> GameView:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            with contextlib.suppress(ApiError):
                got = self._call(lambda: me.get_game(game_id))
                if got.status == "finished":
                    return got
            time.sleep(0.2)
        raise AssertionError(f"game {game_id} did not finish; see {self.procs.log.name}")

    def check_log(self, game_id: str, final: GameView) -> None:
        async def rows() -> Any:
            conn = await asyncpg.connect(self.pg.url)
            try:
                return await conn.fetchrow(
                    """SELECT count(*) AS n, count(DISTINCT event_id) AS ids,
                              min(version) AS first, max(version) AS last,
                              count(*) FILTER (WHERE type = 'timed_out') AS timeouts
                       FROM events WHERE stream_id = $1""",
                    f"game-{game_id}",
                )
            finally:
                await conn.close()

        r = asyncio.run(rows())
        assert (r["first"], r["last"]) == (1, final.version)
        assert r["n"] == r["ids"] == r["last"]  # contiguous, and no event twice
        assert r["timeouts"] == 1  # the person's deadline fired once
        assert final.standings[0].standing == "timed_out"

    def dead_letters(self) -> int:
        r = redis.Redis.from_url(self.redis.url)
        try:
            return sum(int(r.xlen(k)) for k in r.scan_iter(match="*:dead"))
        finally:
            r.close()


@pytest.fixture(scope="module")
def faulty(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Faulty]:
    folder = tmp_path_factory.mktemp("faults")
    pg, rd = PrivatePostgres(), PrivateRedis()
    pg.start()
    rd.start()
    lobby_port, game_port = free_port(), free_port()
    env = {
        "DATABASE_URL": pg.url,
        "REDIS_URL": rd.url,
        "STREAM_PREFIX": "",
        "LOBBY_PORT": str(lobby_port),
        "GAME_PORT": str(game_port),
        "TURNPOST_SECRET": secrets.token_urlsafe(48),  # this stack's own
        "LOG_LEVEL": "WARNING",
        "BOT_RESEND_AFTER_S": "2",
        "TIMEOUT_RESEND_AFTER_S": "2",
        # the tests play faster than any person: limits far above the defaults (still counted)
        "RATE_LIMIT_REGISTER": "10000/minute",
        "RATE_LIMIT_ACTION": "10000/minute",
        "RATE_LIMIT_WRITE": "10000/minute",
        "RATE_LIMIT_READ": "10000/minute",
    }
    procs = Processes(env, Path(folder) / "stack.log")
    try:
        procs.migrate()
        procs.start_all()
        yield Faulty(
            pg, rd, procs, f"http://127.0.0.1:{lobby_port}", f"http://127.0.0.1:{game_port}"
        )
    finally:
        procs.stop_all()
        rd.stop()
        pg.stop()


@pytest.mark.parametrize("name", ["lobby", "game", "relay", "dispatcher", "worker", "scheduler"])
def test_a_process_killed_mid_game_the_game_still_finishes(faulty: Faulty, name: str) -> None:
    rng = random.Random(name)
    with faulty.new_game() as (_, game_id, me):
        time.sleep(rng.uniform(0.5, 7.0))  # before, around or after the person's deadline
        faulty.procs.kill(name)
        time.sleep(0.5)
        faulty.procs.start(name)
        final = faulty.finished(game_id, me)
        faulty.check_log(game_id, final)
    assert me._http.is_closed  # its connections too


def test_redis_flushed_mid_game_the_game_still_finishes(faulty: Faulty) -> None:
    with faulty.new_game() as (_, game_id, me):
        deadline = time.monotonic() + 60
        while faulty.version(game_id, me) < 40 and time.monotonic() < deadline:
            time.sleep(0.1)  # past the timeout: bots at work, tasks and messages in flight
        r = redis.Redis.from_url(faulty.redis.url)
        r.flushall()
        r.close()
        final = faulty.finished(game_id, me)
        assert final.version > 40
        faulty.check_log(game_id, final)
    assert me._http.is_closed


def test_postgres_restarted_mid_game_nothing_is_dead_lettered(faulty: Faulty) -> None:
    before = faulty.dead_letters()
    with faulty.new_game() as (room_id, game_id, me):
        deadline = time.monotonic() + 60
        while faulty.version(game_id, me) < 40 and time.monotonic() < deadline:
            time.sleep(0.1)
        faulty.pg.restart()
        final = faulty.finished(game_id, me)
        faulty.check_log(game_id, final)
        assert faulty.dead_letters() == before
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            room = faulty._call(lambda: me.get_room(room_id))
            if room.status == "finished":
                break
            time.sleep(0.2)
        assert room.status == "finished"
    assert me._http.is_closed
