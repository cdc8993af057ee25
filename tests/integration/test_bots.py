"""Bots decide from their own view, once per trigger: a redelivered task never moves twice."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import asyncpg
import msgspec
import pytest

from contracts.problems import ProblemError
from contracts.streams import GameEvent, SubmitAction
from contracts.streams import bots_to_act as bot_turns
from services.bots.dispatcher import turns_of
from services.bots.observe import States, observe
from services.bots.worker import Turn, decide
from services.bots.worker import app as celery_app
from services.game.relay import envelope as envelope_of
from services.game.service import GameService
from tests.integration.tables import game_service, new_game


def envelope(**kw: object) -> GameEvent:
    base: dict[str, object] = dict(
        game_id="g",
        game="itty-bitty",
        room_id="r",
        version=5,
        type="turn_began",
        to_act=[1, 2],
        status="active",
        bots={"1": "greedy"},
        batch_end=True,
        global_position=9,
    )
    return GameEvent(**{**base, **kw})  # type: ignore[arg-type]


def test_dispatcher_wakes_only_bots_that_must_act_at_the_end_of_a_command() -> None:
    assert bot_turns(envelope()) == [(1, "greedy")]
    assert bot_turns(envelope(bots={"1": "greedy", "2": "random"})) == [
        (1, "greedy"),
        (2, "random"),
    ]
    assert bot_turns(envelope(batch_end=False)) == []
    assert bot_turns(envelope(status="finished", to_act=[])) == []
    assert bot_turns(envelope(to_act=[0])) == []


def test_celery_is_configured_for_at_least_once_delivery() -> None:
    conf = celery_app.conf
    assert conf.task_acks_late and conf.task_reject_on_worker_lost
    assert conf.worker_prefetch_multiplier == 1
    assert conf.broker_transport_options["visibility_timeout"] > conf.task_time_limit


DRAWS_KEY = b"bot draws of these tests"


async def _decide(pool: asyncpg.Pool, turn: Turn, states: States | None = None) -> Any:
    async with pool.acquire() as conn:
        return await decide(conn, turn, DRAWS_KEY, states)


async def _apply(service: GameService, cmd: SubmitAction) -> Any:
    return await service.submit(
        cmd.game_id,
        cmd.seat,
        cmd.action,
        cmd.expected_version,
        uuid.UUID(cmd.command_id),
        by_bot=True,
    )


async def test_a_redelivered_bot_task_moves_once(pool: asyncpg.Pool) -> None:
    service = game_service(pool)
    game_id, _ = await new_game(service, [None, "greedy"])
    version = (await service.load(game_id)).version
    turn = Turn("itty-bitty", game_id, 1, "greedy", version)
    first = await _decide(pool, turn)
    again = await _decide(pool, turn, States())
    assert first is not None and first == again  # same trigger, same command, same move
    assert first.action["type"] == "keep_collector"
    for cmd in (first, again):
        await _apply(service, cmd)
    assert await service.store.version(f"game-{game_id}") == version + 1
    assert await _decide(pool, turn) is None  # its move is made: nothing more to do


async def test_a_task_behind_the_game_plays_where_the_game_is_with_the_newer_triggers_command(
    pool: asyncpg.Pool,
) -> None:
    """Both bots choose at once: the second's first trigger finds the game moved on by the
    first bot; it still has to act, so it plays there, the same command as the newer
    trigger's own task sends: one move, however many tasks find it."""
    service = game_service(pool)
    game_id, _ = await new_game(service, [None, "greedy", "greedy"])
    v = (await service.load(game_id)).version
    await _apply(service, await _decide(pool, Turn("itty-bitty", game_id, 1, "greedy", v)))
    late = await _decide(pool, Turn("itty-bitty", game_id, 2, "greedy", v))
    newer = await _decide(pool, Turn("itty-bitty", game_id, 2, "greedy", v + 1))
    assert late is not None and late == newer and late.expected_version == v + 1
    await _apply(service, late)
    await _apply(service, newer)
    assert await service.store.version(f"game-{game_id}") == v + 2


async def test_a_trigger_beyond_the_game_plays_nothing_and_fails_nothing(
    pool: asyncpg.Pool,
) -> None:
    """The database was restored to a moment before the trigger's version, its task still
    queued in Redis (docs/operations-backup.md): nothing to play, and no failure to try
    again and dead-letter. The game's own trigger plays the seat where the game is."""
    service = game_service(pool)
    game_id, _ = await new_game(service, [None, "greedy"])
    v = (await service.load(game_id)).version
    assert await _decide(pool, Turn("itty-bitty", game_id, 1, "greedy", v + 3)) is None
    assert await _decide(pool, Turn("itty-bitty", game_id, 1, "greedy", v)) is not None


async def test_a_bot_move_refused_as_stale_is_played_again_from_the_news(
    pool: asyncpg.Pool,
) -> None:
    """The game refuses a stale bot command with 409 stale_version and tells the bot no more
    (the commands consumer logs and acks it); the news that made it stale ends a command, so
    the dispatcher sends the bot's turn again at the new version, and that task re-reads and
    plays. Once: the stale one's redelivery then finds the move made."""
    service = game_service(pool)
    game_id, _ = await new_game(service, [None, "greedy"])
    v = (await service.load(game_id)).version
    turn = Turn("itty-bitty", game_id, 1, "greedy", v)
    stale = await _decide(pool, turn)
    assert stale is not None
    person = (await service.load(game_id)).rules.legal_actions(
        (await service.load(game_id)).state, 0
    )[0]
    await service.submit(game_id, 0, msgspec.to_builtins(person), v, uuid.uuid4())
    fresh_service = game_service(pool)

    async def changed(*_: object) -> bool:
        return False  # as if the news changed what the bot may do

    fresh_service._unaffected = changed  # type: ignore[method-assign]
    with pytest.raises(ProblemError) as refused:
        await _apply(fresh_service, stale)
    assert refused.value.code == "stale_version"
    news = (await fresh_service.store.read(f"game-{game_id}", after=v))[-1]
    (again,) = turns_of(msgspec.json.encode(envelope_of(news)))
    assert (again.seat, again.version) == (1, v + 1)
    retry = await _decide(pool, Turn("itty-bitty", game_id, 1, "greedy", again.version))
    assert retry is not None and retry.command_id != stale.command_id
    await _apply(fresh_service, retry)
    kept = [e for e in await service.store.read(f"game-{game_id}") if e.type == "collector_kept"]
    assert [e.metadata["seat"] for e in kept] == [0, 1]  # the bot moved, once
    # the stale task, redelivered: nothing to do, or (the bot plays first) its next turn's
    # move, the same command as that turn's own trigger sends
    now = await service.store.version(f"game-{game_id}")
    late = await _decide(pool, turn)
    assert late is None or late == await _decide(pool, turn._replace(version=now))


async def test_the_state_cache_folds_only_new_events_and_never_serves_a_wrong_state(
    pool: asyncpg.Pool,
) -> None:
    service = game_service(pool)
    game_id, _ = await new_game(service, [None, "greedy", "greedy"])
    states = States()
    async with pool.acquire() as conn:
        first = await observe(conn, "itty-bitty", game_id, 1, states)
        assert (states.hits, states.misses) == (0, 1)
        assert await observe(conn, "itty-bitty", game_id, 1, states) == first
        assert (states.hits, states.misses) == (1, 1)
    cmd = await _decide(pool, Turn("itty-bitty", game_id, 1, "greedy", first.version), states)
    await _apply(service, cmd)
    async with pool.acquire() as conn:
        cached = await observe(conn, "itty-bitty", game_id, 2, states)
        assert cached == await observe(conn, "itty-bitty", game_id, 2)  # the same as uncached
        assert cached is not None and cached.version == first.version + 1
        # an entry that is not what the store holds at its version is never used
        seen = states.get(game_id)
        assert seen is not None
        other = await observe(conn, "itty-bitty", game_id, 0)
        states.put(game_id, seen._replace(event_id=uuid.uuid4(), state=None))
        assert await observe(conn, "itty-bitty", game_id, 0, states) == other
        assert states.misses == 2


async def test_the_bot_sees_only_its_own_seat(pool: asyncpg.Pool) -> None:
    from services.bots.observe import observe

    service = game_service(pool)
    game_id, _ = await new_game(service, [None, "random"])
    loaded = await service.load(game_id)
    async with pool.acquire() as conn:
        obs = await observe(conn, "itty-bitty", game_id, 1)
    assert obs is not None
    hidden = set(loaded.state.hands[0].ittybits + loaded.state.hands[0].choice)
    text = msgspec.json.encode(obs.view).decode()
    assert not any(card in text for card in hidden)
    assert obs.view["private"]["ittybits"] == list(loaded.state.hands[1].ittybits)


async def test_the_dispatcher_enqueues_each_bot_turn_at_the_end_of_a_command() -> None:
    from infra.streams import Message
    from services.bots.dispatcher import BotTurn, Dispatcher

    sent: list[BotTurn] = []

    async def enqueue(turns: Any) -> None:
        sent.extend(turns)

    dispatcher = Dispatcher(enqueue)

    def message(**kw: object) -> Message:
        return Message(stream="s", id="1-0", payload=msgspec.json.encode(envelope(**kw)))

    await dispatcher.on_message(message(batch_end=False))
    assert sent == []
    await dispatcher.on_message(message(bots={"1": "greedy", "2": "random"}))
    assert sent == [
        BotTurn("itty-bitty", "g", 1, "greedy", 5),
        BotTurn("itty-bitty", "g", 2, "random", 5),
    ]
    await dispatcher.on_message(message(version=6, to_act=[0]))  # a person's turn now
    assert len(sent) == 2
    await dispatcher.on_message(message(type="bot_turn"))  # a replayed dead letter
    assert sent[-1] == BotTurn("itty-bitty", "g", 1, "greedy", 5, fresh=True)


async def test_the_dispatcher_pushes_a_batch_at_once_and_acks_only_what_it_read() -> None:
    from infra.streams import Message
    from infra.streams.memory import MemoryStreams
    from services.bots.dispatcher import BatchConsumer, BotTurn

    streams = MemoryStreams()
    pushes: list[list[BotTurn]] = []

    async def enqueue(turns: Any) -> None:
        pushes.append(list(turns))

    async def unused(message: Message) -> None:
        raise AssertionError

    consumer = BatchConsumer(
        streams, "games", "bots", "d-1", unused, enqueue=enqueue, max_deliveries=2,
        min_idle_ms=0, block_ms=0, claim_every_s=0,
    )  # fmt: skip
    await consumer.ensure_groups()
    for kw in ({}, {"batch_end": False}, {"version": 6, "bots": {"1": "mcts"}}):
        await streams.publish("games", msgspec.json.encode(envelope(**kw)))
    await streams.publish("games", b"not json")
    await consumer.step()
    assert pushes == [
        [BotTurn("itty-bitty", "g", 1, "greedy", 5), BotTurn("itty-bitty", "g", 1, "mcts", 6)]
    ]
    # the unreadable entry stays pending, is handed back, and is dead-lettered in the end
    for _ in range(3):
        await consumer.step()
    assert len(pushes) == 1
    (dead,) = await streams.dead_letters("games")
    assert dead.payload == b"not json"
    assert await streams.claim_stale("games", "bots", "d-2", 0, 10) == []  # all acked


async def test_the_dispatcher_lingers_long_only_after_reading_the_bots_of_two_games() -> None:
    """One table's turns come one at a time, each perhaps the answer to the last: after a
    read of one game's command (its several events, even three of its bots to move at once)
    the next read waits a quarter of the linger; after the bots of two games or more, all
    of it (busy tables: the next read gathers several turns)."""
    from infra.streams import Message
    from infra.streams.memory import MemoryStreams
    from services.bots.dispatcher import BatchConsumer

    streams = MemoryStreams()

    async def enqueue(turns: Any) -> None:
        return None

    async def unused(message: Message) -> None:
        raise AssertionError

    consumer = BatchConsumer(
        streams, "games", "bots", "d-1", unused, enqueue=enqueue, block_ms=0, linger_s=0.8,
    )  # fmt: skip
    await consumer.ensure_groups()
    loop = asyncio.get_running_loop()
    waited = []
    for commands in (
        [{"batch_end": False}, {"batch_end": False}, {}],  # one command: three events, one turn
        [{"bots": {"1": "greedy", "2": "random", "3": "greedy"}, "to_act": [1, 2, 3]}],
        [{"game_id": "g1"}, {"game_id": "g2"}],  # two tables' bots to move
    ):
        for kw in commands:
            await streams.publish("games", msgspec.json.encode(envelope(**kw)))
        began = loop.time()
        assert await consumer.step() == len(commands)
        waited.append(loop.time() - began)
    # (weighed by turns, the three bots of one game would wait 0.6 s)
    assert all(0.2 <= w < 0.45 for w in waited[:2]) and waited[2] >= 0.8


def test_turns_wait_in_their_levels_queue_whoever_sends_them(redis_url: str) -> None:
    """The dispatcher's push and the scheduler's sweep (Celery's own client) route alike."""
    import redis

    from infra.settings import Settings
    from infra.tasks import bot_turn_message, celery_app, send_bot_turn

    prefix = f"test-route-{uuid.uuid4().hex[:8]}:"
    settings = Settings(redis_url=redis_url, stream_prefix=prefix)
    send_bot_turn(celery_app(settings), settings, "itty-bitty", "g", 1, "mcts", 5)
    send_bot_turn(celery_app(settings), settings, "itty-bitty", "g", 2, "greedy", 5)
    send_bot_turn(celery_app(settings), settings, "itty-bitty", "g", 3, "expert", 5)
    r = redis.Redis.from_url(redis_url)
    try:
        assert r.llen(f"{prefix}bots-mcts") == 1 and r.llen(f"{prefix}bots") == 1
        assert r.llen(f"{prefix}bots-expert") == 1  # a search of seconds, apart from mcts
        assert (
            bot_turn_message(settings, "itty-bitty", "g", 1, "expert", 5)[0]
            == f"{prefix}bots-expert"
        )
        assert (
            bot_turn_message(settings, "itty-bitty", "g", 1, "mcts", 5)[0] == f"{prefix}bots-mcts"
        )
        assert bot_turn_message(settings, "itty-bitty", "g", 1, "random", 5)[0] == f"{prefix}bots"
        assert bot_turn_message(settings, "itty-bitty", "g", 1, "new", 5)[0] == f"{prefix}bots-mcts"
    finally:
        r.delete(*r.keys(f"{prefix}*"))
        r.close()


async def test_on_redis_the_dispatcher_pushes_and_acks_a_batch_in_one_transaction(
    redis_url: str,
) -> None:
    from infra.settings import Settings
    from infra.streams.redis import RedisStreams
    from services.bots.dispatcher import BatchConsumer

    prefix = f"test-dispatch-{uuid.uuid4().hex[:8]}:"
    settings = Settings(redis_url=redis_url, stream_prefix=prefix)
    streams = RedisStreams.from_url(redis_url)

    async def never(turns: Any) -> None:
        raise AssertionError("pushed in the transaction, not through enqueue")

    stream = settings.stream("turnpost:bot-turns")
    consumer = BatchConsumer(
        streams, stream, "bots", "d-1", never, enqueue=never, settings=settings, block_ms=0,
    )  # fmt: skip
    try:
        await consumer.ensure_groups()
        for kw in ({}, {"batch_end": False}, {"bots": {"1": "mcts"}, "version": 6}):
            await streams.publish(stream, msgspec.json.encode(envelope(**kw)))
        assert await consumer.step() == 3
        assert await streams.r.llen(f"{prefix}bots") == 1
        assert await streams.r.llen(f"{prefix}bots-mcts") == 1
        assert (await streams.r.xpending(stream, "bots"))["pending"] == 0
    finally:
        keys = [k async for k in streams.r.scan_iter(match=f"{prefix}*")]
        if keys:
            await streams.r.delete(*keys)
        await streams.close()


def test_a_searchs_share_counts_the_searches_waiting_per_search_process_everywhere(
    redis_url: str,
) -> None:
    """1 / (1 + waiting / processes), the processes those seen searching within the last
    minute on any worker (this one included), not only this worker's pool; each search queue
    counts its own turns and processes."""
    import time

    import redis

    from infra.settings import Settings
    from infra.tasks import EXPERT_QUEUE, SEARCH_QUEUE, searchers_key
    from services.bots.worker import Bot

    prefix = f"test-share-{uuid.uuid4().hex[:8]}:"
    r = redis.Redis.from_url(redis_url)
    bot = Bot(Settings(redis_url=redis_url, stream_prefix=prefix))
    searchers = f"{prefix}{searchers_key(SEARCH_QUEUE)}"
    try:
        assert bot.share(SEARCH_QUEUE) == 1.0  # nothing waits
        r.lpush(f"{prefix}{SEARCH_QUEUE}", *[b"task"] * 4)
        assert bot.share(SEARCH_QUEUE) == pytest.approx(1 / 5)  # alone: four wait for it
        now = time.time()
        r.zadd(searchers, {"elsewhere:1": now - 5, "gone:2": now - 600})
        assert bot.share(SEARCH_QUEUE) == pytest.approx(1 / 3)  # two; the one gone not counted
        assert r.zscore(searchers, "gone:2") is None
        # the expert's queue: its own waiting turns and processes, not the mcts queue's
        assert bot.share(EXPERT_QUEUE) == 1.0
        r.lpush(f"{prefix}{EXPERT_QUEUE}", b"task")
        assert bot.share(EXPERT_QUEUE) == pytest.approx(1 / 2)
        assert r.zcard(f"{prefix}{searchers_key(EXPERT_QUEUE)}") == 1
    finally:
        bot.close()
        r.delete(*r.keys(f"{prefix}*"))
        r.close()
