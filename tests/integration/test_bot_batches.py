"""A batch of cheap turns (one `play_many` task) reads every seat of its games in one query
and sends its moves in one round trip, and each turn still moves once: through an outage
at the send, or at a turn in the middle of the batch."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from typing import Any

import asyncpg
import msgspec
import pytest
import redis
from prometheus_client import REGISTRY

from contracts.streams import COMMANDS, SubmitAction
from infra.auth import signing
from infra.settings import Settings
from services.bots import worker
from services.bots.observe import States, observe, observe_many
from services.bots.worker import Bot, Turn, bot_command_id, play_many, play_turn
from tests.integration.tables import bot_settings, game_service, new_game


class Counting:
    """A connection that counts the queries made through it."""

    def __init__(self, conn: asyncpg.Connection) -> None:
        self.conn = conn
        self.queries = 0

    async def fetch(self, *args: Any) -> Any:
        self.queries += 1
        return await self.conn.fetch(*args)

    async def fetchrow(self, *args: Any) -> Any:
        self.queries += 1
        return await self.conn.fetchrow(*args)


async def test_observe_many_reads_the_cached_games_in_one_query_and_sees_what_observe_sees(
    pool: asyncpg.Pool,
) -> None:
    service = game_service(pool)
    g1, _ = await new_game(service, [None, "greedy", "greedy"])
    g2, _ = await new_game(service, [None, "greedy"])
    g3, _ = await new_game(service, [None, "random", "greedy"])
    nowhere = str(uuid.uuid4())  # no events at all
    seats = [("itty-bitty", g1, 1), ("itty-bitty", g2, 1), ("itty-bitty", g1, 2)]
    states = States()
    async with pool.acquire() as conn:
        for game, game_id, seat in seats:
            await observe(conn, game, game_id, seat, states)
        # g1 moves on after it was cached: only the events since are read and folded
        loaded = await service.load(g1)
        action = msgspec.to_builtins(loaded.rules.legal_actions(loaded.state, 0)[0])
        await service.submit(g1, 0, action, loaded.version, uuid.uuid4())
        counting = Counting(conn)
        hits = states.hits
        many = await observe_many(counting, seats, states)  # type: ignore[arg-type]
        assert counting.queries == 1 and states.hits == hits + 2  # g1 once, g2 once
        assert many == [await observe(conn, *s, world=False) for s in seats]
        assert many[0] is not None and many[0].version == loaded.version + 1

        # not cached, no events, or a cached state the store does not bear out: each rebuilt
        seen = states.get(g2)
        assert seen is not None
        states.put(g2, seen._replace(event_id=uuid.uuid4(), state=None))
        others = [("itty-bitty", g2, 0), ("itty-bitty", g3, 2), ("itty-bitty", nowhere, 1)]
        misses = states.misses
        many = await observe_many(conn, others, states)
        assert many == [await observe(conn, *s, world=False) for s in others]
        assert many[2] is None and states.misses == misses + 3
        rebuilt = states.get(g2)
        assert rebuilt is not None and rebuilt.event_id == seen.event_id  # the store's again


@pytest.fixture
def settings(database_url: str, redis_url: str) -> Iterator[Settings]:
    yield from bot_settings(database_url, redis_url, "batch")


def bot_turns(settings: Settings, tables: int) -> list[Turn]:
    """Every bot seat to act in `tables` new games (two greedy bots each)."""

    async def make() -> list[Turn]:
        pool = await asyncpg.create_pool(settings.database_url, min_size=1, max_size=2)
        try:
            service = game_service(pool)
            turns = []
            for _ in range(tables):
                game_id, _ = await new_game(service, [None, "greedy", "greedy"])
                loaded = await service.load(game_id)
                for seat in sorted(loaded.rules.to_act(loaded.state) - {0}):
                    turns.append(Turn("itty-bitty", game_id, seat, "greedy", loaded.version))
            return turns
        finally:
            await pool.close()

    return asyncio.run(make())


def sent(settings: Settings) -> list[SubmitAction]:
    r = redis.Redis.from_url(settings.redis_url)
    try:
        entries = r.xrange(settings.stream(COMMANDS))
    finally:
        r.close()
    key = settings.command_key()
    return [
        msgspec.json.decode(signing.verify(key, fields[b"m"]), type=SubmitAction)
        for _, fields in entries
    ]


def test_a_batch_reads_its_seats_once_and_sends_its_moves_together(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    turns = bot_turns(settings, 3)
    assert len(turns) == 6
    b = Bot(settings)
    try:
        b.hold([])
        b.look_ahead(turns)  # the games' states cached
        b.release()

        def alone(turn: Turn) -> Any:
            raise AssertionError(f"{turn} read alone")

        monkeypatch.setattr(b, "look", alone)
        held: list[tuple[bytes, str | None]] = []
        b.hold(held)
        b.look_ahead(turns)
        played = [play_turn(b, t) for t in turns]
        assert sent(settings) == []  # held until the batch is decided
        b.send_held(held)
        b.release()
        assert played == [bot_command_id(t.game_id, t.version, t.seat) for t in turns]
        assert [c.command_id for c in sent(settings)] == played
        # released: a turn alone reads and sends at once again, and reads no batch ahead
        monkeypatch.undo()
        assert b._held is None and b._looked == {}
        b.look_ahead(turns)
        assert b._looked == {}
        assert play_turn(b, turns[0]) == played[0] and len(sent(settings)) == len(turns) + 1
    finally:
        b.close()


def _as_task(turns: list[Turn]) -> list[list[Any]]:
    return [[t.game, t.game_id, t.seat, t.level, t.version, False] for t in turns]


def _send_fails_once(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The first send of held moves meets an outage; the sizes of every send, in order."""
    real, sizes = Bot.send_held, []

    def flaky(self: Bot, held: list[tuple[bytes, str | None]]) -> None:
        sizes.append(len(held))
        if len(sizes) == 1:
            raise redis.ConnectionError("Redis is away")
        real(self, held)

    monkeypatch.setattr(Bot, "send_held", flaky)
    return sizes


def _worker_bot(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> tuple[list[Turn], Bot]:
    """Two tables' bot turns, and the Bot the worker's tasks will play them with."""
    turns = bot_turns(settings, 2)
    b = Bot(settings)
    monkeypatch.setattr(worker, "_bot", b)
    monkeypatch.setattr(worker, "settings", settings)  # a bot made after a reset: the same
    monkeypatch.setattr(worker, "SEND_HELD_AFTER_S", 60.0)  # sent together at the end
    return turns, b


def test_an_outage_at_the_send_plays_the_whole_batch_again_and_each_turn_moves_once(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    turns, b = _worker_bot(settings, monkeypatch)
    calls = _send_fails_once(monkeypatch)
    observed = REGISTRY.get_sample_value("turnpost_bot_task_turns_sum") or 0.0
    try:
        result = play_many.apply(args=(_as_task(turns),)).get()
    finally:
        b.close()
    ids = [bot_command_id(t.game_id, t.version, t.seat) for t in turns]
    assert calls == [len(turns), len(turns)]  # the whole batch, decided again
    assert REGISTRY.get_sample_value("turnpost_bot_task_turns_sum") == observed + 2 * len(turns)
    assert result == ids and [c.command_id for c in sent(settings)] == ids


def test_an_outage_at_a_turn_sends_the_turns_before_it_and_plays_the_rest_again(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    turns, b = _worker_bot(settings, monkeypatch)
    real, failed = worker.policy_for, []

    def away_once(game: str, level: str) -> Any:
        play = real(game, level)

        def maybe(obs: Any, rng: Any) -> Any:
            if obs.seat == turns[2].seat and not failed and obs.view == seen_by_third[0]:
                failed.append(obs.seat)
                raise ConnectionRefusedError("Postgres is away")
            return play(obs, rng)

        return maybe

    async def third_view() -> Any:
        conn = await asyncpg.connect(settings.database_url)
        try:
            obs = await observe(conn, "itty-bitty", turns[2].game_id, turns[2].seat)
            assert obs is not None
            return obs.view
        finally:
            await conn.close()

    seen_by_third = [asyncio.run(third_view())]
    monkeypatch.setattr(worker, "policy_for", away_once)
    try:
        result = play_many.apply(args=(_as_task(turns),)).get()
    finally:
        b.close()
    ids = [bot_command_id(t.game_id, t.version, t.seat) for t in turns]
    assert failed  # the third turn met the outage once
    assert result == ids[2:]  # the retry's: the turns from the one that met the outage
    assert [c.command_id for c in sent(settings)] == ids  # each once, the first two first


def test_a_turn_that_fails_on_its_content_goes_alone_and_the_batch_plays_on(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its failure resets the bot (its loop and pool closed): the turns after it play with
    the new one, their moves sent with the others'; the failed turn is a `play` task of its
    own, and an outage at the send then does not play it again in the batch."""
    turns, _ = _worker_bot(settings, monkeypatch)
    real = worker.policy_for
    alone: list[tuple[Any, ...]] = []
    monkeypatch.setattr(worker.play, "apply_async", lambda args, **kw: alone.append(tuple(args)))

    def broken_for_second(game: str, level: str) -> Any:
        play = real(game, level)

        def maybe(obs: Any, rng: Any) -> Any:
            if obs.seat == turns[1].seat and obs.view == views[1]:
                raise ValueError("a broken policy")
            return play(obs, rng)

        return maybe

    async def unread(self: Bot, turns: Any) -> Any:
        raise ConnectionResetError("nothing read ahead: each turn reads with the bot's loop")

    views = [asyncio.run(_view_of(settings, t)) for t in turns]
    monkeypatch.setattr(worker, "policy_for", broken_for_second)
    monkeypatch.setattr(Bot, "_look_many", unread)
    sends = _send_fails_once(monkeypatch)
    try:
        result = play_many.apply(args=(_as_task(turns),)).get()
    finally:
        worker.bot().close()
    ids = [bot_command_id(t.game_id, t.version, t.seat) for t in turns]
    assert alone == [tuple(_as_task([turns[1]])[0][:5])]  # once, not again by the retry
    assert sends == [3, 3]  # the three others, held through the reset, then again
    assert result == [ids[0], ids[2], ids[3]]
    assert [c.command_id for c in sent(settings)] == [ids[0], ids[2], ids[3]]


async def _view_of(settings: Settings, turn: Turn) -> Any:
    conn = await asyncpg.connect(settings.database_url)
    try:
        obs = await observe(conn, turn.game, turn.game_id, turn.seat)
        assert obs is not None
        return obs.view
    finally:
        await conn.close()


def test_moves_held_too_long_go_before_the_next_turn_begins(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A slow turn does not hold back the moves decided before it: once the first held move
    has waited SEND_HELD_AFTER_S, what is held goes before the next turn begins."""
    turns, b = _worker_bot(settings, monkeypatch)
    monkeypatch.setattr(worker, "SEND_HELD_AFTER_S", 0.0)
    real_send, sends = Bot.send_held, []

    def counting(self: Bot, held: list[tuple[bytes, str | None]]) -> None:
        sends.append(len(held))
        real_send(self, held)

    monkeypatch.setattr(Bot, "send_held", counting)
    try:
        result = play_many.apply(args=(_as_task(turns),)).get()
    finally:
        b.close()
    assert sends == [1, 1, 1, 1]
    assert [c.command_id for c in sent(settings)] == result


def test_an_expert_thinks_for_the_seconds_its_rooms_clock_gives(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The search's seconds of a turn (services/bots/levels.py): `mcts` its setting's; the
    expert's from the stored clock of its game's room (a day a move: the most; none: the
    least), read once a game."""
    from contracts.streams import RoomStarted, StartedSeat
    from services.bots.search import TURN_SECONDS

    async def make(timing: dict[str, Any]) -> str:
        pool = await asyncpg.create_pool(settings.database_url, min_size=1, max_size=2)
        try:
            room = f"room-{uuid.uuid4()}"
            seats = [
                StartedSeat(seat=0, player_id=room),
                StartedSeat(seat=1, player_id=f"{room}-b"),
            ]
            started = RoomStarted(room_id=room, game="itty-bitty", seats=seats, timing=timing)
            return await game_service(pool).create_from_room(started)
        finally:
            await pool.close()

    daily = asyncio.run(make({"per_move_s": 86400, "on_timeout": "wait"}))
    unclocked = asyncio.run(make({}))
    b = Bot(settings)
    reads: list[str] = []
    real = worker.room_clock

    async def counted(pool: Any, game_id: str) -> Any:
        reads.append(game_id)
        return await real(pool, game_id)

    monkeypatch.setattr(worker, "room_clock", counted)
    try:
        seen = {}
        for game_id, level in [
            (daily, "expert"),
            (unclocked, "expert"),
            (daily, "mcts"),
            (daily, "expert"),
        ]:
            with b.thinking(Turn("itty-bitty", game_id, 1, level, 1)):
                seen.setdefault((game_id, level), TURN_SECONDS.get())
        with b.thinking(Turn("itty-bitty", daily, 1, "greedy", 1)):
            assert TURN_SECONDS.get() is None
    finally:
        b.close()
    assert seen == {
        (daily, "expert"): settings.bot_expert_max_s,
        (unclocked, "expert"): settings.bot_expert_min_s,
        (daily, "mcts"): settings.bot_mcts_s,
    }
    assert reads == [daily, unclocked]  # once a game
