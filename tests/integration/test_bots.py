"""Bots decide from their own view, once per trigger: a redelivered task never moves twice."""

from __future__ import annotations

import uuid

import asyncpg
import msgspec

from contracts.streams import GameEvent
from services.bots.dispatcher import bot_turns
from services.bots.worker import app as celery_app
from services.bots.worker import decide
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


async def test_a_redelivered_bot_task_moves_once(pool: asyncpg.Pool, database_url: str) -> None:
    service = game_service(pool)
    game_id, _ = await new_game(service, [None, "greedy"])
    version = (await service.load(game_id)).version
    first = await decide(database_url, "itty-bitty", game_id, 1, "greedy", version)
    again = await decide(database_url, "itty-bitty", game_id, 1, "greedy", version)
    assert first is not None and first == again  # same trigger, same command, same move
    assert first.action["type"] == "keep_collector"
    for cmd in (first, again):
        await service.submit(
            game_id,
            cmd.seat,
            cmd.action,
            cmd.expected_version,
            uuid.UUID(cmd.command_id),
            by_bot=True,
        )
    assert await service.store.version(f"game-{game_id}") == version + 1
    assert (
        await decide(database_url, "itty-bitty", game_id, 1, "greedy", version) is None
    )  # stale trigger


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
    from services.bots.dispatcher import Dispatcher

    sent: list[tuple[str, str, int, str, int]] = []
    dispatcher = Dispatcher(lambda *args: sent.append(args))

    def message(**kw: object) -> Message:
        return Message(stream="s", id="1-0", payload=msgspec.json.encode(envelope(**kw)))

    await dispatcher.on_message(message(batch_end=False))
    assert sent == []
    await dispatcher.on_message(message(bots={"1": "greedy", "2": "random"}))
    assert sent == [("itty-bitty", "g", 1, "greedy", 5), ("itty-bitty", "g", 2, "random", 5)]
    await dispatcher.on_message(message(version=6, to_act=[0]))  # a person's turn now
    assert len(sent) == 2
