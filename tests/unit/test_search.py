"""The search bot (services/bots/search.py): honest by construction, bounded by its budget."""

from __future__ import annotations

from random import Random
from typing import Any

import pytest

from games.registry import registry
from games.testing import random_playout
from services.bots.observe import observation
from services.bots.policies import itty_bitty
from services.bots.search import Budget, search, win_chances

GAMES = sorted(registry())
BUDGET = Budget(simulations=40, seconds=30.0, rollout=4, width=4)


def even(state: Any) -> list[float]:
    """An estimate that knows nothing: every seat as likely to win."""
    return [0.5] * len(getattr(state, "hands", getattr(state, "players", ())))


def midgame(key: str, seed: int, seats: int = 3) -> tuple[Any, int]:
    rules = registry()[key]
    playout = random_playout(rules, seed, seats)
    live = [s for s in playout.states if rules.to_act(s)]
    state = live[len(live) // 2]
    return state, min(rules.to_act(state))


def decide(key: str, state: Any, seat: int, seed: int) -> Any:
    rules = registry()[key]
    obs = observation(rules, state, seat, 0)
    return search(rules, obs.world, seat, obs.legal, Random(seed), BUDGET, even)


@pytest.mark.parametrize("key", GAMES)
def test_two_states_a_seat_cannot_tell_apart_get_the_same_search_and_move(key: str) -> None:
    """Hidden cards elsewhere (a guess of the real state is one the seat cannot tell from
    it): the same observation, world included, so the same move from the same seed."""
    rules = registry()[key]
    moved = 0
    for seed in range(4):
        state, seat = midgame(key, seed)
        other = rules.sample(state, seat, Random(1000 + seed))
        assert other != state  # the hidden part differs
        assert rules.view(other, seat) == rules.view(state, seat)
        assert observation(rules, other, seat, 0) == observation(rules, state, seat, 0)
        move = decide(key, state, seat, seed)
        assert decide(key, other, seat, seed) == move
        moved += len(rules.legal_actions(state, seat)) > 1
    assert moved  # some position had a choice to make


@pytest.mark.parametrize("key", GAMES)
def test_the_move_is_one_of_the_seats_legal_actions(key: str) -> None:
    rules = registry()[key]
    for seed in range(3):
        state, seat = midgame(key, 10 + seed, seats=2)
        assert decide(key, state, seat, seed) in list(rules.legal_actions(state, seat))


def test_a_single_legal_action_is_played_without_searching() -> None:
    rules = registry()["itty-bitty"]
    state, seat = midgame("itty-bitty", 0)

    def never(*_: Any) -> Any:
        raise AssertionError("searched")

    only = rules.legal_actions(state, seat)[0]
    assert search(rules, state, seat, [only], Random(0), BUDGET, never) == only


def test_the_search_stops_at_its_time_budget() -> None:
    rules = registry()["itty-bitty"]
    state, seat = midgame("itty-bitty", 2)
    ticks = iter(range(1_000_000))
    estimates = 0

    def counting(s: Any) -> list[float]:
        nonlocal estimates
        estimates += 1
        return itty_bitty.estimate(s)

    budget = Budget(simulations=10_000, seconds=5.0, rollout=0, width=3)
    search(
        rules,
        state,
        seat,
        rules.legal_actions(state, seat),
        Random(0),
        budget,
        counting,
        clock=lambda: float(next(ticks)),
    )
    # one tick per simulation after the first: 5 simulations fit in 5 "seconds", plus the
    # width's look-ahead of the root moves
    assert estimates <= 5 + len(rules.legal_actions(state, seat))


def test_win_chances_follow_the_lead_over_the_best_other() -> None:
    ahead, behind, last = win_chances([10.0, 7.0, 0.0], 3.0)
    assert ahead > 0.7 > 0.3 > behind > last
    assert win_chances([5.0, 5.0], 3.0) == [0.5, 0.5]
