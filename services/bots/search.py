"""The `mcts` level's search: determinized Monte Carlo from the seat's information set, in
the ISMCTS family (Cowling, Powley and Whitehouse, "Information Set Monte Carlo Tree Search",
2012; OpenSpiel's ISMCTS): guess the hidden part with `Rules.sample` from the seat's own
`world` (observe.py), play on from each guess, aggregate over the guesses.

Each guess plays every move considered at the root on to the end (or `rollout` moves, then
the game's `estimate`) with the same draws: paired, so the luck of a guess cancels out
between the moves compared. The moves considered are the playout policy's own choice and the
best of the rest one move ahead (`width` in all). The playout policy's own move is played
unless another gains on it by `CONFIDENCE` standard errors of the paired differences: the
best of several noisy means is otherwise chosen for its luck, and a search that deviates on
noise plays worse than the policy it searches with. From the eighth guess on, a move surely
no better than the policy's own (a standard error below it, or never above it) is dropped,
and the budget left goes to the moves still in doubt: most decisions are clear, and the
close ones get the playouts (itty bitty: 78 playouts a move on average instead of 96, over
the same 96 at most).

Why not a tree: a one-tree SO-ISMCTS (UCB over (seat, action) edges with availability
counts, random or greedy playouts, the same estimate) was built and measured first; within
a budget a bot can spend per move (tens of simulations over roots of 10-60 moves) it played
worse than greedy, its root visits spread too thin to tell the moves apart. See the
closing note of issue 10 and `make tournament` for the figures.

Why not a wider root for the expert: the search often ends with its budget unspent, every
move it considered dropped (Itchy Feet's expert: 146 of 1,600 playouts a move on average).
Bringing in the next best moves once those are settled was built and measured (issue 36):
over 110 positions of the three games it changed one decision, by +0.01 +/- 0.02 of a win
(paired evaluations of 200-400 guesses), while the Itchy Feet expert's time a move went from
0.2 s to its 4 s cap at p50 in `make tournament`. The moves the one-move look ranks low are
seldom better.

The budget's seconds count from when the turn was sent (`TURN_SENT`, set by the worker from
the task's stamp), not from when the search starts, and searches waiting together share
them (`TURN_SHARE`, set by the worker: 1 / (1 + the searches waiting per search process) of
what is left); the clock is read inside the playouts (a guess cut short by the deadline is
left out whole). So searches queued together each land within the budget plus the path's
overhead, and one whose wait alone took the budget (a queue beyond the processes' capacity, a
retry, a redelivery, a clock ahead of the sender's) plays the policy's own move at once.
Unset (tests, the tournament), the whole budget is the search's.

The search reads only what its seat may know: `world` and the seat's legal actions.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from random import Random
from typing import Any

import msgspec

from games.api import Rules

Estimate = Callable[[Any], Sequence[float]]  # a state -> each seat's chance to win, 0..1
# How the playout past the tree moves: (guessed state, seat, its legal actions, rng) -> action
Playout = Callable[[Any, int, Sequence[Any], Random], Any]
# The moves a playout chooses among: (guessed state, seat) -> actions; by default the legal
# ones, but a game may offer fewer (the same choices without their variants) to play faster
Moves = Callable[[Any, int], Sequence[Any]]


# When the turn being searched was sent (time.time()), if the worker knows it: the budget's
# seconds count from then (see the module's docstring).
TURN_SENT: ContextVar[float | None] = ContextVar("turn_sent", default=None)


# The part of what is left that this search may spend: 1 / (1 + the searches waiting behind
# it per search process), set by the worker, so that searches sent together share the budget
# rather than the first taking it all and the rest nothing.
TURN_SHARE: ContextVar[float] = ContextVar("turn_share", default=1.0)


# The seconds this turn's search may take in all, if the worker set them (the level's setting,
# or the expert's from the room's clock: services/bots/levels.py); else the budget's own.
TURN_SECONDS: ContextVar[float | None] = ContextVar("turn_seconds", default=None)


def seconds_left(budget: Budget) -> float:
    """The seconds of `budget` this search may spend: its share of what was not yet spent
    waiting since the turn was sent."""
    sent = TURN_SENT.get()
    given = TURN_SECONDS.get()
    total = budget.seconds if given is None else given
    left = total if sent is None else min(total, max(0.0, total - (time.time() - sent)))
    return left * TURN_SHARE.get()


def uniform(state: Any, seat: int, actions: Sequence[Any], rng: Random) -> Any:
    return actions[rng.randrange(len(actions))]


class Budget(msgspec.Struct, frozen=True, kw_only=True):
    """How much one move may cost: whichever of the two limits comes first."""

    simulations: int = 96  # playouts in all, spread over the moves considered
    seconds: float = 2.0
    rollout: int = 400  # playout moves before `estimate` scores a game not yet over
    width: int = 4  # moves considered: the playout policy's own and the best of the rest


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


CLOCK_EVERY = 8  # moves played (or looked at from the root) between readings of the clock
CONFIDENCE = 2.0  # how many standard errors a move must gain over the playout's own
SETTLE = 8  # guesses before a move may be dropped as hopeless
DROP = 1.0  # a move this many standard errors below the policy's own (or no better on every
# guess so far) is dropped: most decisions are clear, and their budget goes to the close ones


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
    moves: Moves | None = None,
) -> Any:
    """The move `seat` makes, searched from `world` (a state it cannot tell from the real one):
    see the module's docstring."""
    if len(legal) == 1:
        return legal[0]
    left = seconds_left(budget)
    if left <= 0:  # the budget went waiting in the queue: no time to search
        return playout(world, seat, legal, rng)
    deadline = clock() + left
    listing = moves or rules.legal_actions
    root = _widest(rules, world, seat, legal, rng, budget, estimate, playout, clock, deadline)
    results: list[list[float]] = [[] for _ in root]
    alive = list(range(1, len(root)))  # the moves still compared with the policy's own
    playouts = guesses = 0
    while alive and (guesses < 2 or playouts < budget.simulations) and clock() < deadline:
        guess = rules.sample(world, seat, rng)
        seed = rng.randrange(2**32)
        scored: list[float] = []
        for i in (0, *alive):
            draws = Random(seed)
            after = _play(rules, guess, seat, root[i], draws)
            rewards = _rollout(
                rules, after, draws, budget.rollout, estimate, playout, listing, clock, deadline
            )
            if rewards is None:
                break
            scored.append(rewards[seat])
        if len(scored) < 1 + len(alive):  # out of time in the middle of a guess: left out
            break
        for i, reward in zip((0, *alive), scored, strict=True):
            results[i].append(reward)
        playouts += 1 + len(alive)
        guesses += 1
        if guesses >= SETTLE:
            alive = [i for i in alive if not _hopeless(results[i], results[0])]
    return root[_confident_best([results[i] if i in (0, *alive) else [] for i in range(len(root))])]


def _hopeless(move: list[float], own: list[float]) -> bool:
    """A move whose paired gain over the policy's own is not above zero and falls short of it
    by `DROP` standard errors: its playouts are spent on the moves still in doubt."""
    n = len(move)
    diffs = [a - b for a, b in zip(move, own, strict=True)]
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return mean <= 0 and (var == 0 or mean + DROP * math.sqrt(var / n) < 0)


def _confident_best(results: list[list[float]]) -> int:
    """The index of the move to play: 0 (the default) unless another is surely better (a move
    with no results, dropped as hopeless, is not in the running)."""
    n = len(results[0])
    if n < 2:
        return 0
    running = [i for i in range(len(results)) if len(results[i]) == n]
    best = max(running, key=lambda i: (sum(results[i]), -i))
    if best == 0:
        return 0
    diffs = [a - b for a, b in zip(results[best], results[0], strict=True)]
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    if mean > 0 and (var == 0 or mean / math.sqrt(var / n) >= CONFIDENCE):
        return best
    return 0


def _widest(
    rules: Rules[Any, Any, Any, Any],
    world: Any,
    seat: int,
    legal: Sequence[Any],
    rng: Random,
    budget: Budget,
    estimate: Estimate,
    playout: Playout,
    clock: Callable[[], float],
    deadline: float,
) -> list[Any]:
    """The root's moves worth searching (a wide root spread over few simulations is a random
    pick): the playout policy's own move first, then the best of the rest one move ahead
    (of those looked at before the deadline: the clock is read every `CLOCK_EVERY` moves)."""
    own = playout(world, seat, legal, rng)
    if len(legal) <= budget.width:
        return [own, *(a for a in legal if a != own)]
    ahead = []
    for i, action in enumerate(legal):
        if i % CLOCK_EVERY == CLOCK_EVERY - 1 and clock() >= deadline:
            break
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
    listing: Moves,
    clock: Callable[[], float],
    deadline: float,
) -> Sequence[float] | None:
    """Each seat's reward after playing on `moves` moves at most; None if the deadline came
    first (the clock is read every `CLOCK_EVERY` moves: a playout to the end of a long game
    would otherwise overrun the budget by a whole guess)."""
    for n in range(moves):
        if n % CLOCK_EVERY == CLOCK_EVERY - 1 and clock() >= deadline:
            return None
        if rules.outcome(state) is not None:
            break
        to_act = sorted(rules.to_act(state))
        if not to_act:
            break
        mover = to_act[rng.randrange(len(to_act))]
        state = _play(rules, state, mover, playout(state, mover, listing(state, mover), rng), rng)
    outcome = rules.outcome(state)
    if outcome is not None:
        return outcome_rewards(outcome, len(outcome.ranks))
    return estimate(state)
