"""A person and bots play each game to the end, through REST only."""

from __future__ import annotations

from random import Random
from typing import Any

import msgspec
import pytest

from contracts.game import GameView, LegalActions
from games.registry import get as get_rules
from services.bots.observe import Observation
from services.bots.policies import policy_for
from tests.e2e.conftest import Stack, wait_for
from turnpost.client import Client

# Fields that carry a seat's private card in each game's events, and when.
SECRETS: dict[str, dict[str, str]] = {
    "itty-bitty": {
        "ittybits_dealt": "cards",
        "collectors_offered": "cards",
        "collector_kept": "kept",
        "ittybit_taken": "card",
    },
    "itchy-feet": {"cards_dealt": "cards", "card_drawn": "card", "card_kept": "kept"},
    "footprints": {"fire_drawn": "card", "leader_chosen": "leader"},
}
PUBLIC_WHEN = {"ittybit_taken": "from_market"}  # a marketplace card is public


def _play_as_person(me: Client, key: str, game_id: str) -> int:
    """Play seat 0 with the greedy policy, from the REST view only; returns moves made."""
    rules = get_rules(key)
    assert rules is not None
    rng = Random(7)

    def decide(view: GameView, legal: LegalActions) -> dict[str, Any]:
        actions = msgspec.convert(legal.actions, list.__class_getitem__(rules.action_type))
        obs = Observation(
            game=key,
            seat=0,
            version=legal.version,
            view=view.view,
            legal=actions,
            to_act=view.to_act,
        )
        chosen: dict[str, Any] = msgspec.to_builtins(policy_for(key, "greedy")(obs, rng))
        return chosen

    moves = 0
    # each time seat 0 must act; a bot moving in between (simultaneous answers) is a 409
    # that `play` answers by reading the game again and deciding again
    for turn, view in enumerate(me.turns(game_id, wait=10)):
        assert view.your_seat == 0 and turn < 5_000, "the game did not finish"
        if me.play(game_id, decide) is not None:
            moves += 1
    assert me.get_game(game_id).your_seat == 0
    return moves


@pytest.mark.parametrize(
    ("key", "seats", "options", "bots"),
    [
        ("itty-bitty", 3, {}, ["random"]),
        (
            "itchy-feet",
            6,
            {
                "events": True,
                "special_items": True,
                "forbidden_items": True,
                "postcards": True,
                "characters": "random",
            },
            ["random", "greedy", "random"],
        ),
        ("footprints", 4, {"advanced": True}, ["random"]),
    ],
)
def test_a_person_and_bots_play_to_the_end(
    stack: Stack, key: str, seats: int, options: dict[str, Any], bots: list[str]
) -> None:
    me = Client(stack.lobby, stack.game)
    me.register("Ada")

    room = me.create_room(key, seats, options=options)
    room_id = room.id
    for level in bots:
        me.add_bot(room_id, level)
    started = me.start_room(room_id)  # the rest: greedy bots
    assert started.status == "starting" and started.game_id is None  # 202: not waited for
    levels = [s.bot for s in started.seats]
    assert levels == [None, *bots] + ["greedy"] * (seats - 1 - len(bots))

    playing = wait_for(
        lambda: (r := me.get_room(room_id)).status == "playing" and r,
        "the room to be playing",
    )
    game_id = playing.game_id
    moves = _play_as_person(me, key, game_id)

    final = me.get_game(game_id)
    assert final.status == "finished" and final.to_act == []
    outcome = final.outcome
    assert outcome is not None and len(outcome.ranks) == seats
    assert moves > 3

    # the feed tells the same story: everyone moved, and no bot's private card reached me
    events = list(me.iter_events(game_id))
    assert events[-1].version == final.version
    assert {e.seat for e in events} >= set(range(seats))
    hidden = seen = 0
    for e in events:
        field = SECRETS[key].get(e.type)
        if field is None or e.data.get(PUBLIC_WHEN.get(e.type, ""), False):
            continue
        if e.data["seat"] == 0:
            assert e.data[field] is not None
            seen += 1
        else:
            assert e.data[field] is None, e
            hidden += 1
    assert hidden > 5 and seen > 1
    if key == "footprints":
        svg = me.get_board_svg(game_id)  # a problem would raise
        assert svg.count('class="figure"') >= 1

    wait_for(lambda: me.get_room(room_id).status == "finished", "the room to finish")
    listed = me.get_my_games().items
    assert game_id in [g.id for g in listed]
    assert next(g for g in listed if g.id == game_id).status == "finished"
