"""An invitation on the whole stack: the host holds a seat of an unlisted room for Bob, who
hears `invited` on /v1/me/stream (the lobby's NEWS stream, told by the game service),
finds it in his invitations, and accepts by joining without the room's code."""

from __future__ import annotations

from tests.e2e.conftest import Stack, wait_for
from tests.e2e.test_news_of_ratings import News
from turnpost.client import Client


def test_an_invited_player_hears_of_it_and_takes_the_held_seat(stack: Stack) -> None:
    ada, bob = Client(stack.lobby, stack.game), Client(stack.lobby, stack.game)
    ada.register("Ada")
    bob_id = bob.register("Bob").id
    assert bob.token is not None
    news = News(stack.game, bob.token)
    try:
        assert news.opened.wait(30), "the news stream did not open"
        room = ada.create_room("itty-bitty", 3, visibility="unlisted")
        assert room.invite_code is not None
        held = ada.invite_player(room.id, bob_id, seat=2, expires_after_s=600)
        told = wait_for(lambda: [n for n in news.items if n["type"] == "invited"], "invited")
        assert [(n["room_id"], n["seat"], n["by_name"]) for n in told] == [(room.id, 2, "Ada")]
        assert told[0]["expires_at"] == held.expires_at
        assert [i.room_id for i in bob.get_my_invitations().items] == [room.id]
        joined = bob.join_room(room.id)
        assert joined.seats[2].player_id == bob_id and joined.invite_code == room.invite_code
        assert ada.get_room_invitations(room.id).items[0].status == "accepted"
    finally:
        news.stop.set()
