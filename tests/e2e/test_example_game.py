"""The example game (tests/example_game, Nim), registered by one line of the stack's settings
(`TURNPOST_GAMES`, tests/e2e/conftest.py), is served like ours: in the catalog with its
options, schemas and content, played over REST by a person against a random and a greedy
bot of the bot worker, to an outcome the feed and the view agree on."""

from __future__ import annotations

import random

import pytest

from tests.e2e.conftest import Stack
from turnpost.client import Client

pytestmark = pytest.mark.e2e


def test_a_game_added_in_its_own_folder_is_played_over_rest_with_bots(stack: Stack) -> None:
    rng = random.Random(7)
    with Client(stack.lobby, stack.game) as me:
        me.register("Newcomer")
        [nim] = [g for g in me.get_catalog().games if g.key == "nim"]
        assert (nim.min_seats, nim.max_seats, nim.bot_levels) == (2, 4, ["random", "greedy"])
        assert nim.options_schema["$defs"]["Options"]["properties"]["heaps"]["maxItems"] == 6
        schemas = me.get_game_schemas("nim")
        assert schemas.action["$ref"].endswith("Take")
        assert me.get_game_content("nim").all_cards == []
        room = me.create_room("nim", 3, options={"heaps": [4, 5, 6]})
        me.add_bot(room.id, "random")
        me.add_bot(room.id, "greedy")
        game_id = me.start_room(room.id, wait=10).game_id
        assert game_id is not None
        moves = 0
        for _ in me.turns(game_id):
            if me.play(game_id, lambda view, legal: rng.choice(legal.actions)):
                moves += 1
        final = me.get_game(game_id)
        assert final.status == "finished" and final.outcome is not None and moves >= 1
        assert [s.bot for s in final.seats] == [None, "random", "greedy"]
        assert final.view["public"]["heaps"] == [0, 0, 0]
        events = list(me.iter_events(game_id))
        takes = [e for e in events if e.type == "taken"]
        assert sum(e.data["count"] for e in takes) == 15  # every counter, once
        last = takes[-1]
        assert final.outcome.winners == [last.data["seat"]]  # who took the last counter
        assert {e.data["seat"] for e in takes} == {0, 1, 2} or len(takes) < 3
        assert all(e.text for e in events)  # every event in words
