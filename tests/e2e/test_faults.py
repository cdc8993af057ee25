"""Whatever crashes or goes missing, every game keeps moving (the progress guarantee).

The stack runs as separate processes over a Postgres cluster and a Redis server of this
module's own, so a test can kill any process with SIGKILL, flush Redis or restart Postgres
without disturbing anything else. Each game: a person who never moves (a 5 s clock hands
the seat to a bot) and bots; it must finish with contiguous versions and unique event ids.
"""

from __future__ import annotations

import asyncio
import random
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest
import redis

from tests.e2e.servers import PrivatePostgres, PrivateRedis, Processes, free_port

pytestmark = pytest.mark.e2e

OPTIONS = {"events": True, "special_items": True, "forbidden_items": True, "postcards": True}


class Faulty:
    def __init__(
        self, pg: PrivatePostgres, rd: PrivateRedis, procs: Processes, lobby: str, game: str
    ) -> None:
        self.pg, self.redis, self.procs = pg, rd, procs
        self.lobby = httpx.Client(base_url=lobby, timeout=10)
        self.game = httpx.Client(base_url=game, timeout=10)

    def _call(self, client: httpx.Client, method: str, url: str, **kw: Any) -> httpx.Response:
        """Retry while the service is down (a test may have killed it)."""
        deadline = time.monotonic() + 60
        while True:
            try:
                return client.request(method, url, **kw)
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)

    def new_game(self) -> tuple[str, str, dict[str, str]]:
        """A started game with a person who will never move; (room id, game id, auth)."""
        me = self._call(self.lobby, "POST", "/v1/players", json={"name": "Absent"}).json()
        auth = {"authorization": f"Bearer {me['token']}"}
        room = self._call(
            self.lobby,
            "POST",
            "/v1/rooms",
            headers=auth,
            json={
                "game": "itchy-feet",
                "seats": 4,
                "options": OPTIONS,
                "timing": {"per_move_s": 5, "on_timeout": "bot_takeover"},
            },
        )
        assert room.status_code == 201, room.text
        room_id = room.json()["id"]
        self._call(self.lobby, "POST", f"/v1/rooms/{room_id}/bots", headers=auth,
                   json={"level": "random"})  # fmt: skip
        started = self._call(self.lobby, "POST", f"/v1/rooms/{room_id}/start", headers=auth)
        assert started.status_code == 202, started.text
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            got = self._call(self.lobby, "GET", f"/v1/rooms/{room_id}").json()
            if got["game_id"]:
                return room_id, got["game_id"], auth
            time.sleep(0.1)
        raise AssertionError("the game was not created")

    def version(self, game_id: str, auth: dict[str, str]) -> int:
        got = self._call(self.game, "GET", f"/v1/games/{game_id}", headers=auth)
        return int(got.json()["version"]) if got.status_code == 200 else 0

    def finished(self, game_id: str, auth: dict[str, str], seconds: float = 150) -> dict[str, Any]:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            got = self._call(self.game, "GET", f"/v1/games/{game_id}", headers=auth)
            if got.status_code == 200 and got.json()["status"] == "finished":
                return dict(got.json())
            time.sleep(0.2)
        raise AssertionError(f"game {game_id} did not finish; see {self.procs.log.name}")

    def check_log(self, game_id: str, final: dict[str, Any]) -> None:
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
        assert (r["first"], r["last"]) == (1, final["version"])
        assert r["n"] == r["ids"] == r["last"]  # contiguous, and no event twice
        assert r["timeouts"] == 1  # the person's deadline fired once
        assert final["standings"][0]["standing"] == "timed_out"

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
    _, game_id, auth = faulty.new_game()
    time.sleep(rng.uniform(0.5, 7.0))  # before, around or after the person's deadline
    faulty.procs.kill(name)
    time.sleep(0.5)
    faulty.procs.start(name)
    final = faulty.finished(game_id, auth)
    faulty.check_log(game_id, final)


def test_redis_flushed_mid_game_the_game_still_finishes(faulty: Faulty) -> None:
    _, game_id, auth = faulty.new_game()
    deadline = time.monotonic() + 60
    while faulty.version(game_id, auth) < 40 and time.monotonic() < deadline:
        time.sleep(0.1)  # past the timeout: bots at work, tasks and messages in flight
    r = redis.Redis.from_url(faulty.redis.url)
    r.flushall()
    r.close()
    final = faulty.finished(game_id, auth)
    assert final["version"] > 40
    faulty.check_log(game_id, final)


def test_postgres_restarted_mid_game_nothing_is_dead_lettered(faulty: Faulty) -> None:
    before = faulty.dead_letters()
    room_id, game_id, auth = faulty.new_game()
    deadline = time.monotonic() + 60
    while faulty.version(game_id, auth) < 40 and time.monotonic() < deadline:
        time.sleep(0.1)
    faulty.pg.restart()
    final = faulty.finished(game_id, auth)
    faulty.check_log(game_id, final)
    assert faulty.dead_letters() == before
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        room = faulty._call(faulty.lobby, "GET", f"/v1/rooms/{room_id}").json()
        if room["status"] == "finished":
            break
        time.sleep(0.2)
    assert room["status"] == "finished"
