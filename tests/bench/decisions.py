"""Two search budgets' decisions compared, position by position: a quick, low-noise look at
what a change of budget does before `make tournament` spends hours on it.

    python -m tests.bench.decisions itchy-feet [--base mcts] [--variant expert]
        [--set width=6 --set simulations=800] [--positions 40] [--evals 400] [--to-the-end]

Plays greedy self-play of seeded deals (2, 3 and 4 seats in turn) and takes every eleventh
position with a choice. At each, the base level's search and the variant's (a level's budget,
with `--set` overrides of its fields) choose a move from the same observation and seed. Where
they differ, both moves are evaluated on `--evals` paired guesses (the same guess and draws for
both, greedy playing on as in the search, cut where the longer of the two budgets cuts), and
the variant's gain over the base's choice is averaged: per differing position and over all.
`--to-the-end`: the evaluation plays on to the game's end (or MAX_MOVES) and scores its
outcome, so a variant that changes the search's cut or its estimate is not judged by itself.

What it measures is the search's own model of the game (greedy play from a guessed deal), not
play against anyone: a variant that changes no decision cannot change strength, and one whose
changes lose on this evaluation is choosing on noise. Whether the model's gains are real gains
is the tournament's question. Each search gets the whole of its budget (no clock but its own
seconds), so the times printed are what a move costs on this machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from random import Random
from typing import Any

import msgspec

from games.api import fold
from games.registry import get as get_rules
from services.bots.observe import Observation, observation
from services.bots.policies import POLICIES, SEARCHED, expert_budget, playing
from services.bots.search import Budget, _play, _rollout, search

EVERY = 11  # moves between positions taken
MAX_MOVES = 5000  # `--to-the-end`: a playout this long is cut (by the game's estimate) all the same


def budget_of(game: str, level: str, overrides: list[str]) -> Budget:
    base = SEARCHED[game].budget if level == "mcts" else expert_budget(game)
    fields = {k: type(getattr(base, k))(v) for k, v in (o.split("=", 1) for o in overrides)}
    return msgspec.structs.replace(base, **fields)


def positions(game: str, wanted: int) -> list[Observation]:
    rules = get_rules(game)
    assert rules is not None
    out: list[Observation] = []
    deal = 0
    while len(out) < wanted:
        rng = Random(500 + deal)
        state = fold(rules, rules.setup(rules.options_type(), 2 + deal % 3, rng))
        moves = 0
        while rules.outcome(state) is None and moves < 2000 and len(out) < wanted:
            seat = min(rules.to_act(state))
            obs = observation(rules, state, seat, moves)
            if moves % EVERY == EVERY // 2 and len(obs.legal) > 1:
                out.append(obs)
            state = _play(rules, state, seat, POLICIES[(game, "greedy")](obs, rng), rng)
            moves += 1
        deal += 1
    return out


def paired_gain(game: str, obs: Observation, a: Any, b: Any, evals: int, rollout: int) -> float:
    """a's mean reward less b's, over `evals` guesses of the hidden part, the same guess and
    draws for both."""
    rules = get_rules(game)
    assert rules is not None
    searched = SEARCHED[game]
    playout = playing(game, searched.policy)
    listing = searched.moves or rules.legal_actions
    rng = Random(99)
    diffs = []
    for _ in range(evals):
        guess = rules.sample(obs.world, obs.seat, rng)
        seed = rng.randrange(2**32)
        rewards = []
        for move in (a, b):
            draws = Random(seed)
            after = _play(rules, guess, obs.seat, move, draws)
            scored = _rollout(
                rules,
                after,
                draws,
                rollout,
                searched.estimate,
                playout,
                listing,
                time.perf_counter,
                float("inf"),
            )
            assert scored is not None
            rewards.append(scored[obs.seat])
        diffs.append(rewards[0] - rewards[1])
    return statistics.fmean(diffs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", choices=sorted(SEARCHED))
    parser.add_argument("--base", default="mcts", choices=["mcts", "expert"])
    parser.add_argument("--variant", default="expert", choices=["mcts", "expert"])
    parser.add_argument("--set", action="append", default=[], help="field=value of the variant")
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--evals", type=int, default=400)
    parser.add_argument(
        "--to-the-end", action="store_true", help="evaluate by the game's outcome, not a cut"
    )
    args = parser.parse_args()
    rules = get_rules(args.game)
    assert rules is not None
    searched = SEARCHED[args.game]
    playout = playing(args.game, searched.policy)
    base = budget_of(args.game, args.base, [])
    variant = budget_of(args.game, args.variant, args.set)
    rollout = MAX_MOVES if args.to_the_end else max(base.rollout, variant.rollout)
    gains: list[float] = []
    seconds = {"base": 0.0, "variant": 0.0}
    observations = positions(args.game, args.positions)
    for obs in observations:
        chosen = []
        for name, budget in (("base", base), ("variant", variant)):
            started = time.perf_counter()
            chosen.append(
                search(
                    rules,
                    obs.world,
                    obs.seat,
                    obs.legal,
                    Random(1),
                    budget,
                    searched.estimate,
                    playout,
                    moves=searched.moves,
                )
            )
            seconds[name] += time.perf_counter() - started
        if chosen[0] != chosen[1]:
            gains.append(paired_gain(args.game, obs, chosen[1], chosen[0], args.evals, rollout))
    n = len(observations)
    print(f"# {args.game}: base {args.base} {base}")
    print(f"# variant {args.variant} {variant}")
    print(f"# evaluated {'to the end' if args.to_the_end else f'cut at {rollout} moves'}")
    print(f"decisions_positions {n}")
    print(f"decisions_differing {len(gains)} ({len(gains) / n:.1%})")
    if gains:
        mean = statistics.fmean(gains)
        half = 1.96 * statistics.stdev(gains) / len(gains) ** 0.5 if len(gains) > 1 else 0.0
        print(
            f"decisions_gain_where_differing {mean:+.4f} of a win "
            f"(95 %: {mean - half:+.4f} to {mean + half:+.4f})"
        )
        print(f"decisions_gain_per_position {sum(gains) / n:+.4f} of a win")
    for name, total in seconds.items():
        print(f"decisions_{name}_s_per_move {total / n:.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
