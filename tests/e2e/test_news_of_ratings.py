"""A rated room's end as its players hear of it: `game_finished` on /v1/me/stream carries
the result and every seat's rating change, the same as the finished game's view and the
history give them; an unrated room's carries none. The whole stack: the lobby's ratings
group records the game and publishes its end on `turnpost:finished`, whence the game
service tells it."""

from __future__ import annotations

import contextlib
import json
import threading
from typing import Any

import httpx
import pytest

from tests.e2e.conftest import Stack, wait_for
from turnpost.client import Client


def first_legal(view: Any, legal: Any) -> Any:
    return legal.actions[0]


class News:
    """A person's /v1/me/stream, read on a thread until `stop`."""

    def __init__(self, game_url: str, token: str) -> None:
        self.items: list[dict[str, Any]] = []
        self.opened = threading.Event()
        self.stop = threading.Event()
        self._thread = threading.Thread(target=self._read, args=(game_url, token), daemon=True)
        self._thread.start()

    def _read(self, game_url: str, token: str) -> None:
        while not self.stop.is_set():
            with contextlib.suppress(httpx.HTTPError):
                with httpx.stream(
                    "GET",
                    f"{game_url}/v1/me/stream",
                    headers={"authorization": f"Bearer {token}"},
                    timeout=httpx.Timeout(5, read=5),
                ) as response:
                    for line in response.iter_lines():
                        if self.stop.is_set():
                            return
                        if line.startswith(": news of player"):
                            self.opened.set()
                        elif line.startswith("data:"):
                            self.items.append(json.loads(line[5:]))

    def finished(self, game_id: str) -> list[dict[str, Any]]:
        return [n for n in self.items if n["type"] == "game_finished" and n["game_id"] == game_id]


@pytest.mark.parametrize("rated", [True, False])
def test_game_finished_carries_the_rating_changes_of_a_rated_room(
    stack: Stack, rated: bool
) -> None:
    me = Client(stack.lobby, stack.game)
    me.register("Ada")
    assert me.token is not None
    news = News(stack.game, me.token)
    try:
        assert news.opened.wait(30), "the news stream did not open"
        room = me.create_room("itty-bitty", 2, rated=rated)
        assert room.rated is rated
        me.add_bot(room.id, "random")
        me.start_room(room.id)
        game_id = wait_for(lambda: me.get_room(room.id).game_id, "the game to start")
        final = me.play_to_end(game_id, first_legal)
        assert final.status == "finished" and final.outcome is not None

        [told] = wait_for(lambda: news.finished(game_id), "game_finished on /v1/me/stream")
        assert told["seat"] == 0 and told["version"] == final.version
        assert told["outcome"]["ranks"] == final.outcome.ranks
        if not rated:
            assert told["ratings"] is None
            assert me.get_game(game_id).ratings is None
            return
        view = me.get_game(game_id)  # rated by now: the news follows the rating
        assert view.ratings is not None and told["ratings"] is not None
        assert told["ratings"] == [
            {
                "seat": r.seat,
                "rating_before": r.rating_before,
                "rating_after": r.rating_after,
                "rating_change": r.rating_change,
            }
            for r in view.ratings
        ]
        assert [r["seat"] for r in told["ratings"]] == [0, 1]  # Ada and the bot's level
        [mine] = [g for g in me.get_player_games(me.get_me().id).items if g.game_id == game_id]
        assert mine.rating_change == told["ratings"][0]["rating_change"]
    finally:
        news.stop.set()
