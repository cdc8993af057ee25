"""Quick match on the whole stack, through the Python client: two people matched at one
table and told `match_found` on /v1/me/stream; a lonely caller's table filled with bots and
started after its wait."""

from __future__ import annotations

import time

from tests.e2e.conftest import Stack, wait_for
from tests.e2e.test_news_of_ratings import News
from turnpost.client import Client


def test_two_people_are_matched_and_told_and_a_lonely_one_plays_bots(stack: Stack) -> None:
    ada, bob, cy = (Client(stack.lobby, stack.game) for _ in range(3))
    for person, name in ((ada, "Ada"), (bob, "Bob"), (cy, "Cy")):
        person.register(name)
    assert ada.token is not None
    news = News(stack.game, ada.token)
    try:
        assert news.opened.wait(30), "the news stream did not open"
        settings = {"seats": 2, "options": {}, "fill_with_bots_after_s": 600, "rated": False}
        waiting = ada.quick_match("itty-bitty", **settings)  # type: ignore[arg-type]
        assert waiting.status == "waiting" and waiting.room.quick_match
        assert ada.get_match().room.id == waiting.room.id
        found = bob.quick_match("itty-bitty", wait=20, **settings)  # type: ignore[arg-type]
        assert found.status == "matched" and found.room.id == waiting.room.id
        game_id = found.game_id
        assert game_id is not None
        view = ada.get_game(game_id)
        assert view.room_id == waiting.room.id and view.seats[1].player_id == bob.get_me().id
        told = wait_for(
            lambda: [n for n in news.items if n["type"] == "match_found"], "match_found"
        )
        assert [(n["game_id"], n["seat"]) for n in told] == [(game_id, 0)]
    finally:
        news.stop.set()

    began = time.monotonic()
    alone = cy.quick_match("itty-bitty", seats=3, fill_with_bots_after_s=5, fill_level="random")
    assert alone.status == "waiting" and alone.fill_due_at is not None
    played = wait_for(lambda: (m := cy.get_match()).game_id and m, "the bots' fill", 30)
    assert time.monotonic() - began < 5 + 2 + 2  # the fill, its sweep, the game's creation
    assert [s.bot for s in played.room.seats] == [None, "random", "random"]
