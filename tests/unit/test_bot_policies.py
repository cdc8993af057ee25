"""Bots play from their own seat's view only, always legally, and greedy beats random."""

from __future__ import annotations

from math import comb
from random import Random
from typing import Any

import msgspec
import pytest

from games.api import fold
from games.registry import get, registry
from services.bots.observe import Observation
from services.bots.policies import policy_for

OPTIONS: dict[str, dict[str, Any]] = {
    "itty-bitty": {},
    "itchy-feet": {
        "events": True,
        "special_items": True,
        "forbidden_items": True,
        "postcards": True,
        "characters": "random",
    },
    "footprints": {"advanced": True},
}


def play(key: str, seed: int, levels: list[str]) -> Any:
    rules = get(key)
    assert rules is not None
    rng = Random(seed)
    options = msgspec.convert(OPTIONS[key], rules.options_type)
    state = fold(rules, rules.setup(options, len(levels), rng))
    while rules.to_act(state):
        seat = min(rules.to_act(state))
        legal = list(rules.legal_actions(state, seat))
        view = msgspec.to_builtins(rules.view(state, seat))  # all a bot is given
        obs = Observation(game=key, seat=seat, version=0, view=view, legal=legal, to_act=[])
        action = policy_for(key, levels[seat])(obs, rng)
        assert action in legal, f"{levels[seat]} bot chose {action}, not a legal action"
        state = fold(rules, rules.decide(state, seat, action, rng), state)
    return rules.outcome(state)


def binomial_tail(n: int, p: float, k: int) -> float:
    """P(X >= k) for X ~ Binomial(n, p): how likely k wins or more are by chance."""
    return sum(comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1))


@pytest.mark.parametrize(
    ("key", "seats"), [(key, min(4, r.seats.stop - 1)) for key, r in registry().items()]
)
def test_greedy_beats_random(key: str, seats: int) -> None:
    games = 30
    wins = sum(
        0 in play(key, seed, ["greedy"] + ["random"] * (seats - 1)).winners for seed in range(games)
    )
    # A random seat wins about 1 game in `seats`: greedy must win more, beyond chance (a
    # one-sided binomial test at 1 %). Footprints' greedy wins about half its 4-seat games
    # since every move is listed (it was 75 %+ on the old, shorter lists): the bots issue
    # makes it stronger again; this test only says it beats random.
    assert binomial_tail(games, 1 / seats, wins) <= 0.01, f"greedy won {wins} of {games}"


@pytest.mark.parametrize(
    ("key", "seats"), [(key, r.seats.stop - 1) for key, r in registry().items()]
)
def test_greedy_bots_finish_their_games(key: str, seats: int) -> None:
    for seed in range(10):
        outcome = play(key, seed, ["greedy"] * seats)
        assert outcome is not None and outcome.winners, outcome
