"""A game's stored log becomes corpus lines that replay (services/game/records.py): each
move is found again by the fingerprint its events carry, also when it was posted without
fields at their defaults (an older client's or replica's spelling)."""

from __future__ import annotations

import copy
import uuid
from random import Random
from typing import Any

import msgspec
import pytest

from contracts.streams import RoomStarted, StartedSeat
from games.registry import registry
from infra.eventstore.memory import MemoryEventStore
from services.game.live import Waiters
from services.game.records import NotFound, game_record, spellings
from services.game.repository import MemoryGamesRepository, stream_id
from services.game.service import GameService
from tests.corpus.replay import Diverged, replay

# every game served, at its fewest seats (Footprints' solo game too)
GAMES = [(key, r.seats.start) for key, r in registry().items()]


async def played(
    game: str, seats: int, seed: int, options: dict[str, Any] | None = None
) -> tuple[GameService, str, MemoryEventStore]:
    """A game played to its end with random legal moves, one in three posted in its
    shortest spelling (every field at its default left out)."""
    store = MemoryEventStore()
    svc = GameService(store, MemoryGamesRepository(store), Waiters())
    room = RoomStarted(
        room_id=f"from-store-{game}",
        game=game,
        seats=[StartedSeat(seat=i, player_id=f"p{i}") for i in range(seats)],
        options=options or {},
    )
    game_id = await svc.create_from_room(room)
    rng = Random(seed)
    for _ in range(3_000):
        loaded = await svc.load(game_id)
        to_act = sorted(loaded.rules.to_act(loaded.state))
        if not to_act:
            return svc, game_id, store
        seat = rng.choice(to_act)
        action = rng.choice(list(loaded.rules.legal_actions(loaded.state, seat)))
        raw = list(spellings(action))[-1] if rng.random() < 1 / 3 else msgspec.to_builtins(action)
        command_id = uuid.UUID(int=rng.getrandbits(128))
        await svc.submit(game_id, seat, raw, loaded.version, command_id)
    raise AssertionError(f"{game} did not end")


@pytest.mark.parametrize(("game", "seats"), GAMES)
async def test_a_stored_log_replays_to_its_outcome(game: str, seats: int) -> None:
    svc, game_id, store = await played(game, seats, 7)
    record = await svc.record(game_id)
    events = await store.read(stream_id(game_id))
    header, lines = game_record(record, events)
    assert lines[0]["cmd"] == {"setup": True}
    assert sum("action" in line["cmd"] for line in lines) > 10
    result = replay(header, lines)
    loaded = await svc.load(game_id)
    assert result.version == loaded.version == events[-1].version
    expected = loaded.table.outcome or loaded.rules.outcome(loaded.state)
    assert result.outcome == msgspec.to_builtins(expected)


async def test_a_move_no_legal_action_fingerprints_is_not_found() -> None:
    svc, game_id, store = await played("itty-bitty", 2, 3)
    events = await store.read(stream_id(game_id))
    moved = next(i for i, e in enumerate(events) if e.version > 1 and e.metadata.get("seat") == 0)
    changed = list(events)
    meta = {**events[moved].metadata, "request": "0" * 32}
    changed[moved] = msgspec.structs.replace(events[moved], metadata=meta)
    with pytest.raises(NotFound, match="no legal action of seat 0"):
        game_record(await svc.record(game_id), changed)


async def test_a_move_replayed_with_other_consequences_diverges() -> None:
    svc, game_id, store = await played("itchy-feet", 2, 5)
    header, lines = game_record(await svc.record(game_id), await store.read(stream_id(game_id)))
    changed = copy.deepcopy(lines)
    line = next(ln for ln in changed if "action" in ln["cmd"] and ln["events"][0]["data"])
    line["events"][0]["data"] = {**line["events"][0]["data"], "seat": 1 - line["cmd"]["seat"]}
    with pytest.raises(Diverged):
        replay(header, changed)


async def test_a_move_spelled_otherwise_than_listed_is_found_among_what_was_sent() -> None:
    """An older version listed (and so a client posted) an action in a spelling today's
    listing no longer makes: it is found among the actions the caller knows were sent."""
    store = MemoryEventStore()
    svc = GameService(store, MemoryGamesRepository(store), Waiters())
    seats = [StartedSeat(seat=i, player_id=f"p{i}") for i in range(2)]
    game_id = await svc.create_from_room(RoomStarted(room_id="r", game="itty-bitty", seats=seats))
    sent = []
    for _ in range(6):
        loaded = await svc.load(game_id)
        seat = sorted(loaded.rules.to_act(loaded.state))[0]
        action = msgspec.to_builtins(loaded.rules.legal_actions(loaded.state, seat)[0])
        spelled = {**action, "named": "as before"}  # a field today's actions do not have
        sent.append((seat, spelled))
        await svc.submit(game_id, seat, spelled, loaded.version, uuid.uuid4())
    record, events = await svc.record(game_id), await store.read(stream_id(game_id))
    with pytest.raises(NotFound):
        game_record(record, events)
    header, lines = game_record(record, events, sent)
    assert replay(header, lines).version == events[-1].version
    assert [line["cmd"]["action"] for line in lines if "action" in line["cmd"]] == [
        a for _, a in sent
    ]
