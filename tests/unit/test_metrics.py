"""Metrics and readiness without servers: a bot turn's timing, /ready on a Postgres that hangs."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from litestar.testing import TestClient
from prometheus_client import REGISTRY

from infra.http.common import READY_TIMEOUT_S
from infra.settings import Settings
from services.bots.worker import Turn, play_turn
from services.game.app import create_app

SETTINGS = Settings(secret="s" * 48, dev=True)


class NothingToDo:
    """A Bot that finds no move to make (decide returns None)."""

    settings = SETTINGS

    def decide(self, turn: Turn) -> None:
        time.sleep(0.01)


def turn_count(game: str, level: str) -> float:
    sample = "turnpost_bot_task_seconds_count"
    return REGISTRY.get_sample_value(sample, {"game": game, "level": level}) or 0.0


def test_a_bot_turn_is_timed_by_game_and_level() -> None:
    before = turn_count("itchy-feet", "greedy")
    total = REGISTRY.get_sample_value(
        "turnpost_bot_task_seconds_sum", {"game": "itchy-feet", "level": "greedy"}
    )
    turn = Turn("itchy-feet", "a-game-id", 1, "greedy", 7)
    assert play_turn(NothingToDo(), turn) == "none"  # type: ignore[arg-type]
    assert turn_count("itchy-feet", "greedy") == before + 1
    after = REGISTRY.get_sample_value(
        "turnpost_bot_task_seconds_sum", {"game": "itchy-feet", "level": "greedy"}
    )
    assert after is not None and after - (total or 0.0) >= 0.01
    labels = {s.labels.get("game") for m in REGISTRY.collect() for s in m.samples}
    assert "a-game-id" not in labels  # games by key, never by id


class HangingPool:
    async def fetchval(self, query: str) -> Any:
        await asyncio.sleep(30)


def test_ready_is_503_while_postgres_hangs_and_health_stays_200() -> None:
    app = create_app(SETTINGS, embedded=True)
    with TestClient(app) as client:
        assert client.get("/ready").json() == {"status": "ready"}  # embedded: nothing to ask
        app.state.pool = HangingPool()
        started = time.monotonic()
        r = client.get("/ready")
        assert r.status_code == 503 and r.json()["code"] == "not_ready"
        assert "postgres" in r.json()["detail"]
        assert time.monotonic() - started < READY_TIMEOUT_S + 1  # a probe's timeout is 2 s
        assert client.get("/health").status_code == 200
