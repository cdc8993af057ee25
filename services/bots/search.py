"""Information-set Monte Carlo tree search, one tree for the searching seat (the SO-ISMCTS of
Cowling, Powley and Whitehouse, "Information Set Monte Carlo Tree Search", 2012; OpenSpiel's
ISMCTS is the same family).

Each simulation guesses the hidden part of the game afresh (`Rules.sample` from the seat's
own `world`, see observe.py), then walks one shared tree whose edges are (seat to move,
action): a move is a child wherever it is legal in the guess, and its UCB counts the times it
was available rather than its parent's visits (actions legal in some guesses only are not
starved). Chance (draws, shuffles) comes from the search's own random draws at each step,
open loop. A leaf is played on at random for a few moves, then scored by the game's
`estimate` (each seat's chance to win, 0..1) or by the outcome when the game ended. The move
played is the root child visited most.

The search reads only what its seat may know: `world` and the seat's legal actions.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Hashable, Sequence
from random import Random
from typing import Any

import msgspec

from games.api import Rules

Estimate = Callable[[Any], Sequence[float]]  # a state -> each seat's chance to win, 0..1
# How the playout past the tree moves: (guessed state, seat, its legal actions, rng) -> action
Playout = Callable[[Any, int, Sequence[Any], Random], Any]


def uniform(state: Any, seat: int, actions: Sequence[Any], rng: Random) -> Any:
    return actions[rng.randrange(len(actions))]


class Budget(msgspec.Struct, frozen=True, kw_only=True):
    """How much one move may cost: whichever of the two limits comes first."""

    simulations: int = 300
    seconds: float = 2.0
    rollout: int = 8  # playout moves after leaving the tree, before `estimate` scores it
    width: int = 6  # root moves searched: the playout's own choice and the best by `estimate`
    exploration: float = 0.7  # the UCB constant (rewards are 0..1)


class _Edge:
    __slots__ = ("action", "available", "child", "reward", "visits")

    def __init__(self, action: Any) -> None:
        self.action = action
        self.visits = 0
        self.available = 0
        self.reward = 0.0  # summed for the seat that makes the move
        self.child: dict[Hashable, _Edge] = {}


def _key(seat: int, action: Any) -> Hashable:
    try:
        hash(action)
    except TypeError:
        return seat, msgspec.json.encode(action)
    return seat, action


def outcome_rewards(outcome: Any, seats: int) -> list[float]:
    """A finished game: the winners share one."""
    share = 1.0 / len(outcome.winners) if outcome.winners else 0.0
    return [share if s in outcome.winners else 0.0 for s in range(seats)]


def win_chances(points: Sequence[float], scale: float) -> list[float]:
    """Each seat's chance to win from estimated points: a logistic of its lead over the best
    of the others (`scale` points of lead make it about 73 %)."""
    if len(points) == 1:
        return [1.0 / (1.0 + math.exp(-points[0] / scale))]
    out = []
    for s, p in enumerate(points):
        best = max(q for t, q in enumerate(points) if t != s)
        out.append(1.0 / (1.0 + math.exp(-(p - best) / scale)))
    return out


def search(
    rules: Rules[Any, Any, Any, Any],
    world: Any,
    seat: int,
    legal: Sequence[Any],
    rng: Random,
    budget: Budget,
    estimate: Estimate,
    playout: Playout = uniform,
    clock: Callable[[], float] = time.perf_counter,
) -> Any:
    """The move `seat` makes, searched from `world` (a state it cannot tell from the real one)."""
    if len(legal) == 1:
        return legal[0]
    root = {
        _key(seat, a): _Edge(a)
        for a in _widest(rules, world, seat, legal, rng, budget, estimate, playout)
    }
    deadline = clock() + budget.seconds
    for _ in range(budget.simulations):
        if clock() >= deadline:
            break
        state = rules.sample(world, seat, rng)
        _simulate(rules, state, seat, root, rng, budget, estimate, playout)
    best = max(root.values(), key=lambda e: (e.visits, e.reward / max(1, e.visits)))
    if best.visits < 2:  # too few to tell: the first, the playout policy's own
        return next(iter(root.values())).action
    return best.action


def _widest(
    rules: Rules[Any, Any, Any, Any],
    world: Any,
    seat: int,
    legal: Sequence[Any],
    rng: Random,
    budget: Budget,
    estimate: Estimate,
    playout: Playout,
) -> list[Any]:
    """The root's moves worth searching (a wide root spread over few simulations is a random
    pick): the playout policy's own move first, then the best of the rest one move ahead."""
    if len(legal) <= budget.width:
        return list(legal)
    own = playout(world, seat, legal, rng)
    ahead = []
    for i, action in enumerate(legal):
        if action != own:
            after = _play(rules, world, seat, action, rng)
            outcome = rules.outcome(after)
            value = (
                outcome_rewards(outcome, len(outcome.ranks))
                if outcome is not None
                else estimate(after)
            )
            ahead.append((value[seat], -i, action))
    ahead.sort(reverse=True)
    return [own, *(a for _, _, a in ahead[: budget.width - 1])]


def _simulate(
    rules: Rules[Any, Any, Any, Any],
    state: Any,
    seat: int,
    root: dict[Hashable, _Edge],
    rng: Random,
    budget: Budget,
    estimate: Estimate,
    playout: Playout,
) -> None:
    path: list[tuple[_Edge, int]] = []
    children, first = root, True
    while rules.outcome(state) is None:
        to_act = rules.to_act(state)
        if not to_act:
            break
        mover = seat if first else min(to_act)
        actions = rules.legal_actions(state, mover)
        if not actions:
            break
        keyed = [(_key(mover, a), a) for a in actions]
        untried = [(k, a) for k, a in keyed if k not in children]
        for k, _ in keyed:
            if k in children:
                children[k].available += 1
        if untried and not first:
            k, action = untried[rng.randrange(len(untried))]
            edge = children[k] = _Edge(action)
            edge.available += 1
            state = _play(rules, state, mover, action, rng)
            path.append((edge, mover))
            break
        edge = _select([children[k] for k, _ in keyed if k in children], budget.exploration)
        state = _play(rules, state, mover, edge.action, rng)
        path.append((edge, mover))
        children, first = edge.child, False
        if edge.visits == 0:
            break
    rewards = _rollout(rules, state, rng, budget.rollout, estimate, playout)
    for edge, mover in path:
        edge.visits += 1
        edge.reward += rewards[mover]


def _select(edges: list[_Edge], c: float) -> _Edge:
    unvisited = [e for e in edges if e.visits == 0]
    if unvisited:
        return unvisited[0]
    return max(
        edges,
        key=lambda e: e.reward / e.visits + c * math.sqrt(math.log(e.available) / e.visits),
    )


def _play(rules: Rules[Any, Any, Any, Any], state: Any, seat: int, action: Any, rng: Random) -> Any:
    for event in rules.decide(state, seat, action, rng):
        state = rules.evolve(state, event)
    return state


def _rollout(
    rules: Rules[Any, Any, Any, Any],
    state: Any,
    rng: Random,
    moves: int,
    estimate: Estimate,
    playout: Playout,
) -> Sequence[float]:
    for _ in range(moves):
        if rules.outcome(state) is not None:
            break
        to_act = sorted(rules.to_act(state))
        if not to_act:
            break
        mover = to_act[rng.randrange(len(to_act))]
        actions = rules.legal_actions(state, mover)
        state = _play(rules, state, mover, playout(state, mover, actions, rng), rng)
    outcome = rules.outcome(state)
    if outcome is not None:
        return outcome_rewards(outcome, len(outcome.ranks))
    return estimate(state)
