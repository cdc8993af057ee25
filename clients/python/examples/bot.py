"""Plays any Turnpost game to the end: `python bot.py [game] [seats] [lobby-url] [game-url]`."""

import random
import sys

import msgspec

from turnpost.client import GAME_URL, LOBBY_URL, Client


def play(
    game: str = "itty-bitty", seats: int = 3, lobby: str = LOBBY_URL, at: str = GAME_URL
) -> None:
    rng = random.Random()
    with Client(lobby, at) as turnpost:
        turnpost.register("Example bot")
        room = turnpost.create_room(game, seats)  # I sit in seat 0
        game_id = turnpost.start_room(room.id, "greedy", wait=10).game_id  # bots take the rest
        assert game_id is not None, "the game did not start within 10 s"
        print("game", game_id, flush=True)
        for _ in turnpost.turns(game_id):  # each time I must act, until the game is over
            # choose among the legal moves; a stale choice is read again and chosen anew
            played = turnpost.play(game_id, lambda view, legal: rng.choice(legal.actions))
            for event in played.events if played else []:
                print(f"{event.version:>4} {event.text}", flush=True)
        final = turnpost.get_game(game_id)
        print("finished:", msgspec.json.encode(final.outcome).decode(), flush=True)


if __name__ == "__main__":
    game, seats, *urls = sys.argv[1:] or ["itty-bitty", "3"]
    play(game, int(seats), *urls)
