"""Fits the Footprints search's estimate (services/bots/policies/footprints_estimate.py).

    python -m tests.bench.footprints_estimate [--games 60] [--test-games 30]

Plays greedy self-play games at 2, 3 and 4 seats (seeded), takes every fifth position once
the figures are placed, and fits each seat's final score on the estimate's `features` by
least squares. Then, on other games: how often the seat with the most projected points is a
winner (against the points if the game ended now), by moves left; and the logistic scale
that best predicts the winners (log-likelihood), by moves left, with the seats' mean clan
cards left there, from which the estimate's scale is set.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from random import Random

from games.api import fold
from games.registry import get as get_rules
from services.bots.policies import SEARCHED, playing
from services.bots.policies.footprints_estimate import features, projected
from services.bots.search import _play, win_chances

Row = tuple[int, list[list[float]], list[int], list[int]]  # moves left, features, scores, winners


def positions(games: int, seats: int, first_seed: int) -> list[Row]:
    rules = get_rules("footprints")
    assert rules is not None
    searched = SEARCHED["footprints"]
    playout = playing("footprints", searched.policy)
    listing = searched.moves or rules.legal_actions
    rows: list[Row] = []
    for g in range(games):
        rng = Random(first_seed + g)
        state = fold(rules, rules.setup(rules.options_type(), seats, rng))
        taken = []
        moves = 0
        while rules.outcome(state) is None:
            placed = all(
                p.position is not None or p.cairn_points is not None for p in state.players
            )
            if moves % 5 == 0 and placed:
                taken.append((moves, features(state)))
            mover = sorted(rules.to_act(state))[0]
            action = playout(state, mover, listing(state, mover), rng)
            state = _play(rules, state, mover, action, rng)
            moves += 1
        outcome = rules.outcome(state)
        assert outcome is not None
        rows += [(moves - m, f, list(outcome.scores), list(outcome.winners)) for m, f in taken]
    return rows


def least_squares(rows: list[Row]) -> list[float]:
    """The weights w minimising the squared error of w . features against each final score
    (the normal equations, by Gauss-Jordan elimination)."""
    k = len(rows[0][1][0])
    m = [[0.0] * (k + 1) for _ in range(k)]
    for _, f, scores, _ in rows:
        for seat, x in enumerate(f):
            for i in range(k):
                m[i][k] += x[i] * scores[seat]
                for j in range(k):
                    m[i][j] += x[i] * x[j]
    for c in range(k):
        pivot = max(range(c, k), key=lambda r: abs(m[r][c]))
        m[c], m[pivot] = m[pivot], m[c]
        for r in range(k):
            if r != c:
                factor = m[r][c] / m[c][c]
                m[r] = [a - factor * b for a, b in zip(m[r], m[c], strict=True)]
    return [m[i][k] / m[i][i] for i in range(k)]


def picked(rows: list[Row], points: list[list[float]]) -> float:
    hits = sum(
        max(range(len(p)), key=p.__getitem__) in r[3] for r, p in zip(rows, points, strict=True)
    )
    return hits / max(1, len(rows))


def loglik(rows: list[Row], points: list[list[float]], scale: float) -> float:
    total, n = 0.0, 0
    for r, p in zip(rows, points, strict=True):
        for seat, chance in enumerate(win_chances(p, scale)):
            c = min(max(chance, 1e-6), 1 - 1e-6)
            total += math.log(c) if seat in r[3] else math.log(1 - c)
            n += 1
    return total / max(1, n)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=60, help="fitting games per seat count")
    parser.add_argument("--test-games", type=int, default=30, help="held-out, per seat count")
    args = parser.parse_args()
    start = time.monotonic()
    train = [r for seats in (2, 3, 4) for r in positions(args.games, seats, 1000 * seats)]
    test = [r for seats in (2, 3, 4) for r in positions(args.test_games, seats, 99000 + seats)]
    weights = least_squares(train)
    residuals = [
        p - r[2][seat] for r in train for seat, p in enumerate(projected(r[1], tuple(weights)))
    ]
    sd = math.sqrt(sum(e * e for e in residuals) / len(residuals))
    print(f"{len(train)} positions fitted, {len(test)} held out, {time.monotonic() - start:.0f} s")
    print(f"weights: {tuple(round(w, 3) for w in weights)}; residual sd {sd:.1f} points")
    for low, high in ((0, 10), (10, 20), (20, 40), (40, 80), (80, 10**6)):
        rows = [r for r in test if low <= r[0] < high]
        if not rows:
            continue
        now = [[x[0] for x in r[1]] for r in rows]
        ahead = [projected(r[1], tuple(weights)) for r in rows]
        best = max((1, 2, 3, 4, 6, 8, 10, 12, 16, 20), key=lambda s: loglik(rows, ahead, s))
        cards = sum(sum(x[2] for x in r[1]) / len(r[1]) for r in rows) / len(rows)
        print(
            f"moves left {low}-{high}: {len(rows)} positions, the winner named by the points"
            f" now {picked(rows, now):.2f}, projected {picked(rows, ahead):.2f};"
            f" best scale {best}, mean clan cards left {cards:.1f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
