"""A bot turn that keeps failing ends as one dead letter on the games stream, not a loop; a
crash counts as a failure; a replayed dead letter is played again, its tries counted anew."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from contracts.streams import BOT_TURNS
from infra.settings import Settings
from infra.streams.redis import RedisStreams
from services.bots import worker
from services.bots.dispatcher import turns_of
from services.bots.worker import Bot, Turn, play_turn
from tests.integration.tables import bot_settings, game_service, new_game


@pytest.fixture
def settings(database_url: str, redis_url: str) -> Iterator[Settings]:
    yield from bot_settings(database_url, redis_url, "dead", max_deliveries=3)


def bot_turn(settings: Settings) -> Turn:
    async def make() -> Turn:
        import asyncpg

        pool = await asyncpg.create_pool(settings.database_url, min_size=1, max_size=2)
        try:
            service = game_service(pool)
            game_id, _ = await new_game(service, [None, "greedy"])
            return Turn("itty-bitty", game_id, 1, "greedy", (await service.load(game_id)).version)
        finally:
            await pool.close()

    return asyncio.run(make())


def broken(game: str, level: str) -> Any:
    def play(obs: Any, rng: Any) -> Any:
        raise ValueError("a broken policy")

    return play


def dead_letters(settings: Settings) -> list[Any]:
    async def read() -> list[Any]:
        streams = RedisStreams.from_url(settings.redis_url)
        try:
            return await streams.dead_letters(settings.stream(BOT_TURNS))
        finally:
            await streams.close()

    return asyncio.run(read())


def test_a_turn_that_keeps_failing_is_dead_lettered_once_and_a_replay_plays_it(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    turn = bot_turn(settings)
    monkeypatch.setattr(worker, "policy_for", broken)
    for retries in range(settings.max_deliveries - 1):
        with pytest.raises(ValueError):
            play_turn(Bot(settings), turn, retries=retries)  # retried by Celery, counted
    assert play_turn(Bot(settings), turn, retries=settings.max_deliveries - 1) == "dead"
    assert play_turn(Bot(settings), turn) == "dead"  # the sweep sends it again: dropped at once
    (dead,) = dead_letters(settings)
    assert dead.group == "bots" and dead.deliveries == settings.max_deliveries
    assert "a broken policy" in dead.reason

    monkeypatch.undo()  # the cause fixed: replay it (python -m infra.streams.deadletters replay)

    async def replay() -> bytes:
        streams = RedisStreams.from_url(settings.redis_url)
        try:
            games = settings.stream(BOT_TURNS)
            await streams.replay(games, dead.id)
            (message,) = await streams.tail(games, "0-0", 100)
            return message.payload
        finally:
            await streams.close()

    (again,) = turns_of(asyncio.run(replay()))
    assert again.fresh and (again.seat, again.version) == (turn.seat, turn.version)
    played = play_turn(Bot(settings), turn, fresh=again.fresh)
    assert played == worker.bot_command_id(turn.game_id, turn.version, turn.seat)


def test_a_turn_whose_worker_keeps_dying_is_dead_lettered(settings: Settings) -> None:
    turn = bot_turn(settings)
    bot = Bot(settings)
    for _ in range(settings.max_deliveries):
        bot.begin(turn, fresh=False)  # a try whose worker died in it: counted, never finished
    assert play_turn(bot, turn, redelivered=True) == "dead"
    (dead,) = dead_letters(settings)
    assert "the worker died" in dead.reason


def test_an_outage_does_not_count_against_the_turn(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    turn = bot_turn(settings)

    def away(game: str, level: str) -> Any:
        def play(obs: Any, rng: Any) -> Any:
            raise ConnectionRefusedError("Postgres is away")

        return play

    monkeypatch.setattr(worker, "policy_for", away)
    for _ in range(settings.max_deliveries + 2):
        with pytest.raises(ConnectionRefusedError):
            play_turn(Bot(settings), turn, redelivered=True)
    monkeypatch.undo()
    assert play_turn(Bot(settings), turn) != "dead"
    assert dead_letters(settings) == []


def test_a_turn_past_its_time_limit_fails_and_counts(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cheap levels' workers run Celery's solo pool, which enforces no time limit."""
    import time

    from services.bots.worker import TurnTooLong, time_limit

    turn = bot_turn(settings)

    def stuck(game: str, level: str) -> Any:
        def play(obs: Any, rng: Any) -> Any:
            time.sleep(5)

        return play

    monkeypatch.setattr(worker, "policy_for", stuck)
    started = time.monotonic()
    with pytest.raises(TurnTooLong), time_limit(0.2):
        play_turn(Bot(settings), turn)
    assert time.monotonic() - started < 2
