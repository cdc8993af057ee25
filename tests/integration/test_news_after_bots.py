"""News on real Postgres around a bot's move for a person: after a `bot_move` timeout's one
move the person must act again and is told `your_turn`, with the new deadline, though the
seat was in `to_act` before (while the bot played it)."""

from __future__ import annotations

import uuid
from datetime import timedelta

import asyncpg
import msgspec
import pytest

from contracts.streams import RoomStarted, StartedSeat
from infra.notify.derive import notifications
from infra.notify.facts import read_facts
from services.game.relay import envelope
from services.game.repository import stream_id
from services.game.seats import timeout
from services.game.service import GameService
from tests.integration.tables import game_service

pytestmark = pytest.mark.integration


async def told(svc: GameService, pool: asyncpg.Pool, game_id: str, after: int) -> list[tuple]:
    """(type, version, seat, deadline) of every notification of the commands after `after`,
    each derived as the notifier derives it, from its envelope and Postgres' facts."""
    out = []
    for event in await svc.store.read(stream_id(game_id), after=after):
        env = envelope(event)
        facts = await read_facts(pool, env)
        assert facts is not None
        out += [(n.type, n.version, n.seat, n.deadline) for n in notifications(env, facts)]
    return out


async def clocked_game(svc: GameService) -> str:
    """Ada and a greedy bot, Ada's clock 30 s a move, begun a minute ago (already due)."""
    room = f"room-{uuid.uuid4()}"
    started = svc.now() - timedelta(seconds=60)
    real = svc.now
    svc.now = lambda: started
    try:
        game_id = await svc.create_from_room(
            RoomStarted(
                room_id=room,
                game="itty-bitty",
                seats=[
                    StartedSeat(seat=0, player_id=f"{room}-ada"),
                    StartedSeat(seat=1, player_id=f"{room}-bot", bot="greedy"),
                ],
                timing={"per_move_s": 30, "on_timeout": "bot_move"},
            )
        )
    finally:
        svc.now = real
    return game_id


async def test_a_person_whose_bot_moved_once_is_told_it_is_their_turn_again(
    pool: asyncpg.Pool,
) -> None:
    svc = game_service(pool)
    for _ in range(40):  # a deal whose first turn after the opening is Ada's (half of them)
        game_id = await clocked_game(svc)
        loaded = await svc.load(game_id)
        if loaded.state.first_seat == 0:
            break
    else:
        raise AssertionError("no deal of 40 gave seat 0 the first turn")
    rules = loaded.rules
    # the opening's collectors are chosen at once: the bot's seat chooses, Ada does not
    assert sorted(rules.to_act(loaded.state)) == [0, 1]
    action = msgspec.to_builtins(rules.legal_actions(loaded.state, 1)[0])
    await svc.submit(game_id, 1, action, loaded.version, uuid.uuid4(), by_bot=True)
    loaded = await svc.load(game_id)
    assert sorted(rules.to_act(loaded.state)) == [0]
    before = loaded.version

    assert await timeout(svc, game_id, 0, uuid.uuid4()) is not None  # a bot moves once for Ada
    loaded = await svc.load(game_id)
    assert loaded.table.seats[0].bot == "greedy" and loaded.table.seats[0].once
    action = msgspec.to_builtins(rules.legal_actions(loaded.state, 0)[0])
    await svc.submit(game_id, 0, action, loaded.version, uuid.uuid4(), by_bot=True)
    loaded = await svc.load(game_id)
    assert loaded.table.seats[0].bot is None  # the seat is Ada's again
    assert 0 in rules.to_act(loaded.state), "the test needs Ada to act again after the bot"

    news = await told(svc, pool, game_id, before)
    deadline = loaded.table.seats[0].deadline
    assert deadline is not None
    turns = [n for n in news if n[0] == "your_turn"]
    assert [(v, seat) for _, v, seat, _ in turns] == [(loaded.version, 0)], news
    assert turns[0][3] is not None and turns[0][3].startswith(
        deadline.strftime("%Y-%m-%dT%H:%M:%S")
    )
