"""Itchy Feet's mcts level on a real position where greedy's move is not the best.

The position: a seeded 3-seat game played by greedy to its 44th move, seen by the seat to
act only through services/bots/observe.py `observation`. Greedy recycles for an item it
lacks; stealing wins more often, by 0.17 (standard error 0.03) over 400 guesses played to
the end on paired draws. At the old budget (96 playouts over 4 moves) the search could not
tell and played greedy's recycle; at SEARCH_BUDGET it must steal.
"""

from __future__ import annotations

from random import Random
from typing import Any

from games.api import fold
from games.itchy_feet.model import (
    Recycle,
    Steal,
)
from games.registry import get
from services.bots.observe import Observation, observation
from services.bots.policies import playing
from services.bots.policies.itchy_feet import SEARCH_BUDGET, estimate, greedy
from services.bots.search import search

RULES: Any = get("itchy-feet")
SEED, SEATS, MOVE = 901, 3, 43


def position() -> tuple[Observation, Random]:
    """The seat to act at move MOVE of a greedy game, with its view and the rng it plays with."""
    rng = Random(SEED)
    state = fold(RULES, RULES.setup(RULES.options_type(), SEATS, rng))
    for n in range(MOVE + 1):
        to_act = sorted(RULES.to_act(state))
        seat = to_act[rng.randrange(len(to_act))]
        obs = observation(RULES, state, seat, n, world=True)
        if n == MOVE:
            return obs, Random(f"x{n}")
        action = greedy(observation(RULES, state, seat, n, world=False), Random(f"x{n}"))
        state = fold(RULES, RULES.decide(state, seat, action, rng), state)
    raise AssertionError("the game ended before the position")


def test_the_search_steals_where_greedy_recycles_and_stealing_wins_more() -> None:
    obs, rng = position()
    assert isinstance(greedy(obs, Random(0)), Recycle)
    assert obs.world is not None
    chosen = search(
        RULES,
        obs.world,
        obs.seat,
        obs.legal,
        rng,
        SEARCH_BUDGET,
        estimate,
        playing("itchy-feet", greedy),
        clock=lambda: 0.0,  # the playouts, not the machine's speed, decide
    )
    assert isinstance(chosen, Steal)
