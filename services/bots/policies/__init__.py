"""Bot policies by (game, level). A policy sees an Observation and returns one legal action.

Every game the registry serves (games/registry.py) plays `random`; the module its entry
names (`GameEntry.bots`) gives `greedy` (a cheap policy of its own), and, with a
`SEARCH_BUDGET`, the `mcts` level: information-set MCTS whose playouts play `greedy`, cut by
its `estimate` (none: every seat as likely to win), over its `playout_moves` (none: the legal
ones)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from random import Random
from typing import Any

import msgspec

from games.registry import entries
from games.registry import get as get_rules
from infra.observability.metrics import SEARCH_WITHOUT_TIME
from services.bots.observe import Observation
from services.bots.search import (
    TURN_SECONDS,
    Budget,
    Estimate,
    Moves,
    Playout,
    search,
    seconds_left,
)

Policy = Callable[[Observation, Random], Any]


def even(state: Any) -> list[float]:
    """An estimate that knows nothing of the game: every seat as likely to win."""
    seats = len(state.players) if hasattr(state, "players") else len(state.hands)
    return [1.0 / seats] * seats


def random_policy(obs: Observation, rng: Random) -> Any:
    return rng.choice(obs.legal)


def playing(game: str, policy: Policy) -> Playout:
    """A policy as the search's playout: it moves each seat of a guessed state from that
    seat's view, as it would at the table."""
    rules = get_rules(game)
    assert rules is not None

    def move(state: Any, seat: int, actions: Any, rng: Random) -> Any:
        view = msgspec.to_builtins(rules.view(state, seat))
        obs = Observation(
            game=game, seat=seat, version=0, view=view, legal=list(actions), to_act=[]
        )
        return policy(obs, rng)

    return move


class Searched(msgspec.Struct, frozen=True):
    """How the `mcts` level searches a game (services/bots/search.py): its estimate of a
    guessed state (for a playout cut short), the policy its playouts use (the cheap greedy
    level), its budget per move, and the moves its playouts choose among (None: the legal
    ones)."""

    estimate: Estimate
    policy: Policy
    budget: Budget
    moves: Moves | None = None


def searching(game: str, settings: Searched, budget: Budget, grows: bool = False) -> Policy:
    """A search level: information-set MCTS from the seat's `world` (services/bots/search.py).
    `grows`: given more seconds than its budget's (the expert at a slow table), it plays that
    many more playouts, so the time is spent searching rather than left unused."""
    playout = playing(game, settings.policy)

    def mcts(obs: Observation, rng: Random) -> Any:
        rules = get_rules(obs.game)
        assert rules is not None and obs.world is not None
        if seconds_left(budget) <= 0:  # the search will play its policy's move at once
            SEARCH_WITHOUT_TIME.labels(game).inc()
        given = TURN_SECONDS.get()
        used = budget
        if grows and given is not None and given > budget.seconds:
            more = given / budget.seconds
            used = msgspec.structs.replace(budget, simulations=int(budget.simulations * more))
        return search(
            rules,
            obs.world,
            obs.seat,
            obs.legal,
            rng,
            used,
            settings.estimate,
            playout,
            moves=settings.moves,
        )

    return mcts


# Each game's SEARCH_BUDGET (in its module), as `make tournament` measured them (docs):
# - itty bitty: playouts cut at 30 moves, listing one payment per set of grails (listing every
#   payment would cost most of a playout); 96 playouts over 4 moves, about 0.17 s a move p50.
# - Itchy Feet: playouts cut at 20 moves, then the steps-to-win estimate; 400 playouts over 3
#   moves (a better move gains only 0.03-0.15 over greedy's against playouts that spread
#   0.2-0.5: 96 over 4 almost never trusted one), about 0.1 s p50, 0.3 s mean.
# - Footprints: a playout move costs about 0.5 ms (its listing of walks), a whole game 100-200
#   moves: playouts cut at 30 moves, then the projected scores' estimate
#   (footprints_estimate.py); 32 over 3 moves, about 0.34 s a move p50 (24 to the end took
#   0.54 s), as far above greedy. Its expert plays its playouts to the end (EXPERT_BUDGET).
def _levels() -> tuple[dict[tuple[str, str], Policy], dict[str, Searched]]:
    """Each served game's policies by level, and how its `mcts` level searches."""
    policies: dict[tuple[str, str], Policy] = {}
    searched: dict[str, Searched] = {}
    for game, entry in entries().items():
        policies[(game, "random")] = random_policy
        module = importlib.import_module(entry.bots) if entry.bots else None
        greedy = getattr(module, "greedy", None)
        if greedy is None:
            continue
        policies[(game, "greedy")] = greedy
        if (budget := getattr(module, "SEARCH_BUDGET", None)) is not None:
            estimate = getattr(module, "estimate", even)
            searched[game] = Searched(
                estimate, greedy, budget, getattr(module, "playout_moves", None)
            )
    return policies, searched


POLICIES, SEARCHED = _levels()


def policy_for(game: str, level: str) -> Policy:
    # A level a game does not have yet plays its best one rather than not at all.
    return POLICIES.get((game, level)) or POLICIES.get((game, "greedy")) or random_policy


def mcts_policy(game: str, budget: Budget | None = None) -> Policy:
    settings = SEARCHED[game]
    return searching(game, settings, budget or settings.budget)


def expert_budget(game: str) -> Budget:
    """The `expert` level's budget: the game's own `EXPERT_BUDGET`, or else the `mcts` level's
    with four times the playouts over two more moves (its seconds are set per turn from the
    room's clock: services/bots/levels.py; 4 s, `bot_expert_min_s`'s default, without)."""
    settings = SEARCHED[game]
    own = getattr(importlib.import_module(entries()[game].bots or ""), "EXPERT_BUDGET", None)
    if own is not None:
        return own  # type: ignore[no-any-return]
    mcts = settings.budget
    return msgspec.structs.replace(
        mcts, simulations=mcts.simulations * 4, width=mcts.width + 2, seconds=mcts.seconds * 2
    )


def expert_policy(game: str, budget: Budget | None = None) -> Policy:
    return searching(game, SEARCHED[game], budget or expert_budget(game), grows=True)


POLICIES.update({(game, "mcts"): mcts_policy(game) for game in SEARCHED})
POLICIES.update({(game, "expert"): expert_policy(game) for game in SEARCHED})
SEARCHING = frozenset({"mcts", "expert"})  # the levels whose policy reads `world`
