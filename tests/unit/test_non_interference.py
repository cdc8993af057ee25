"""Non-interference (games/testing.py:check_non_interference) for every game of the registry:
what a seat cannot see (other hands, cards dealt to others, the draws to come, which copy of
identical cards lies where) changes nothing it is shown, over seeded games of every seat count
with options drawn at random, played by the greedy bot with a random move one time in four.
Each game is checked for the spectator and one seat, the seat turning from game to game.

The default run plays GAMES (12) games per game and seat count: 168 games, about 20 s on one
core, half that over two pytest-xdist workers. The full run, 300 games per game and seat
count (4,200 games, about 6 minutes with `-n 2` on two cores):
`TURNPOST_NONINTERFERENCE_GAMES=300 .venv/bin/python -m pytest -n 2
tests/unit/test_non_interference.py`.
"""

from __future__ import annotations

import os
from random import Random
from typing import Any

import msgspec
import pytest

from games.registry import narrator, registry
from games.testing import check_non_interference, random_options, recorded_game
from services.bots.observe import Observation
from services.bots.policies import policy_for

GAMES = int(os.environ.get("TURNPOST_NONINTERFERENCE_GAMES", "12"))
BLOCK = 4  # games per test: blocks spread over pytest-xdist's workers
NAMES = ["Ada", "Bob", "Cy", "Dee", "Eve", "Fay"]
RANDOM_MOVE = 0.25
CASES = [(key, seats) for key, rules in registry().items() for seats in rules.seats]


def greedy_mostly(key: str) -> Any:
    """The greedy bot's move (from the seat's view and listed moves only), one time in four
    a listed move at random: games that end, and reach the corners."""
    rules, policy = registry()[key], policy_for(key, "greedy")

    def choose(state: Any, seat: int, actions: list[Any], rng: Random) -> Any:
        if rng.random() < RANDOM_MOVE:
            return rng.choice(actions)
        view = msgspec.to_builtins(rules.view(state, seat))
        obs = Observation(game=key, seat=seat, version=0, view=view, legal=actions, to_act=[])
        return policy(obs, rng)

    return choose


@pytest.mark.parametrize("block", range(max(1, -(-GAMES // BLOCK))))
@pytest.mark.parametrize(("key", "seats"), CASES, ids=[f"{k}-{n}" for k, n in CASES])
def test_what_a_seat_cannot_see_changes_nothing_it_is_shown(
    key: str, seats: int, block: int
) -> None:
    rules, choose = registry()[key], greedy_mostly(key)
    for n in range(block * BLOCK, min(GAMES, (block + 1) * BLOCK)):
        seed = 7919 * seats + n
        options = random_options(rules.options_type, Random(seed))
        game = recorded_game(rules, seed, seats, options, choose)
        watching = [None, n % seats]  # the spectator and each seat in turn
        check_non_interference(rules, game, narrator(key), NAMES[:seats], seats=watching)
