"""The lobby hears of a room's game from the games stream, one envelope per command
(services/game/relay.py): the set-up's envelope says the game began, whatever its version."""

from __future__ import annotations

from typing import Any

import msgspec

from contracts.streams import GameEvent, begins
from infra.streams import Message
from services.lobby.bootstrap import on_game_event


def _envelope(version: int, first_version: int = 0, status: str = "active") -> GameEvent:
    return GameEvent(
        game_id="g1",
        game="itty-bitty",
        room_id="r1",
        version=version,
        type="t",
        to_act=[0],
        status=status,  # type: ignore[arg-type]
        bots={},
        batch_end=True,
        global_position=version,
        first_version=first_version,
    )


class _Lobby:
    def __init__(self) -> None:
        self.moved: list[tuple[str, str, str]] = []

    async def game_moved(self, room_id: str, game_id: str, status: str) -> None:
        self.moved.append((room_id, game_id, status))


async def test_the_set_up_command_begins_the_game_whatever_its_last_version() -> None:
    lobby: Any = _Lobby()
    handle = on_game_event(lobby)
    for n, event in enumerate(
        [_envelope(4, 1), _envelope(7, 5), _envelope(9, 8, "finished")], start=1
    ):
        await handle(Message(stream="s", id=f"1-{n}", payload=msgspec.json.encode(event)))
    assert lobby.moved == [("r1", "g1", "active"), ("r1", "g1", "finished")]


def test_an_envelope_of_a_relay_of_before_begins_at_version_one() -> None:
    assert begins(_envelope(1))  # one envelope per event: the first event's
    assert not begins(_envelope(4))  # the set-up's last event, its first told before
    assert begins(_envelope(3, 1))
    assert not begins(_envelope(3, 2))


def test_a_word_at_the_table_is_no_bots_turn_and_its_tag_is_the_one_named() -> None:
    from contracts.streams import bots_to_act, streams_of
    from games.table import ChatSaid

    assert ChatSaid.__struct_config__.tag == "chat_said"  # what bots_to_act passes by
    turn = msgspec.structs.replace(_envelope(5, 5), bots={"1": "greedy"}, to_act=[0, 1])
    assert bots_to_act(turn) == [(1, "greedy")]
    assert streams_of(turn) == (True, False)
    assert bots_to_act(msgspec.structs.replace(turn, type="chat_said")) == []
    assert bots_to_act(msgspec.structs.replace(turn, batch_end=False)) == []
    assert streams_of(msgspec.structs.replace(turn, status="finished")) == (False, True)
