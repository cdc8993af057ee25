"""Bot policies by (game, level). A policy sees an Observation and returns one legal action."""

from __future__ import annotations

from collections.abc import Callable
from random import Random
from typing import Any

from services.bots.observe import Observation
from services.bots.policies import footprints, itchy_feet, itty_bitty

Policy = Callable[[Observation, Random], Any]


def random_policy(obs: Observation, rng: Random) -> Any:
    return rng.choice(obs.legal)


POLICIES: dict[tuple[str, str], Policy] = {
    ("itty-bitty", "random"): random_policy,
    ("itty-bitty", "greedy"): itty_bitty.greedy,
    ("itchy-feet", "random"): random_policy,
    ("itchy-feet", "greedy"): itchy_feet.greedy,
    ("footprints", "random"): random_policy,
    ("footprints", "greedy"): footprints.greedy,
}


def policy_for(game: str, level: str) -> Policy:
    # A level a game does not have yet plays its best one rather than not at all.
    return POLICIES.get((game, level)) or POLICIES.get((game, "greedy")) or random_policy
