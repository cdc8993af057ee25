"""Plays any Turnpost game to the end: `python bot.py [game] [seats] [lobby-url] [game-url]`."""

import random
import sys

import msgspec

from turnpost.client import GAME_URL, LOBBY_URL, Client


def play(
    game: str = "itty-bitty", seats: int = 3, lobby: str = LOBBY_URL, at: str = GAME_URL
) -> None:
    with Client(lobby, at) as turnpost:
        turnpost.register("Example bot")
        room = turnpost.create_room(game, seats)  # I sit in seat 0
        started = turnpost.start_room(room.id, "greedy", wait=10)  # bots take the other seats
        game_id = started.game_id or sys.exit("the game did not start within 10 s")
        print("game", game_id, flush=True)
        for _ in turnpost.turns(game_id):  # each time I must act: a legal move, anew if stale
            played = turnpost.play(game_id, lambda view, legal: random.choice(legal.actions))
            for event in played.events if played else []:
                print(f"{event.version:>4} {event.text}", flush=True)
        final = turnpost.get_game(game_id)
        print("finished:", msgspec.json.encode(final.outcome).decode(), flush=True)


if __name__ == "__main__":
    game, seats, *urls = sys.argv[1:] or ["itty-bitty", "3"]
    play(game, int(seats), *urls)
