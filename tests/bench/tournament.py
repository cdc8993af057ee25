"""Bot strength, measured: `make tournament` (python -m tests.bench.tournament --help).

For each game, each step of the ladder (greedy against random, mcts against greedy, expert
against mcts), each over seeded tables of every seat count asked for. At a table the two levels take turns round the seats,
and the pattern turns one seat further each game, so no level keeps the first seat; two
tables running deal the same cards (duplicate play), so a lucky deal helps both levels. Each
policy sees only what the worker hands it (services/bots/observe.py: `observation`).

Per game and level it prints the win rate per seat (a seat's share of the wins: ties split),
with its 95 % Wilson interval, and the mean score margin (the seat's score less the best other
score); per step, duplicate play's paired difference with its 95 % interval (a step holds when
the interval lies above zero); and a rating per level, fitted over every table by the model
the players' ratings use (services/lobby/ratings.py: openskill's Plackett-Luce, each level one
subject), so a level's rating reads as a person's. `--out` writes the ratings for the catalog
(contracts/ladder.json).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from random import Random

import msgspec

from contracts.levels import LADDER
from games.api import fold
from games.registry import get as get_rules
from games.registry import registry
from infra.settings import Settings
from services.bots.levels import seconds_for
from services.bots.observe import observation
from services.bots.policies import POLICIES, SEARCHED, SEARCHING, mcts_policy
from services.bots.search import TURN_SECONDS
from services.lobby.ratings import MODEL, Rating

MATCHUPS = tuple(zip(LADDER[1:], LADDER[:-1], strict=True))  # each step: (stronger, weaker)
SEATS = {key: (2, 3, 4) for key in registry()}  # every game served
MAX_MOVES = 5000
SETTINGS = Settings()  # the levels' seconds a move, as a worker's defaults have them


@dataclass
class Table:
    game: str
    levels: tuple[str, ...]
    seed: int
    simulations: int | None  # the mcts level's playouts per move (None: the level's own)
    width: int | None  # and moves considered


@dataclass
class Result:
    game: str
    levels: tuple[str, ...]
    shares: list[float]  # each seat's share of the win
    margins: list[float]
    moves: dict[str, list[float]] = field(default_factory=dict)  # level -> seconds per move
    seed: int = 0  # the deal: two tables share it, the levels' seats swapped
    ranks: list[int] = field(default_factory=list)  # each seat's, as the outcome has them


def play(table: Table) -> Result:
    rules = get_rules(table.game)
    assert rules is not None
    rng = Random(table.seed)
    state = fold(rules, rules.setup(rules.options_type(), len(table.levels), rng))
    default = SEARCHED[table.game].budget
    budget = msgspec.structs.replace(
        default,
        simulations=table.simulations or default.simulations,
        width=table.width or default.width,
    )
    policies = {
        level: POLICIES[(table.game, level)] if level != "mcts" else mcts_policy(table.game, budget)
        for level in set(table.levels)
    }
    timings: dict[str, list[float]] = defaultdict(list)
    for n in range(MAX_MOVES):
        to_act = sorted(rules.to_act(state))
        if not to_act:
            break
        seat = to_act[rng.randrange(len(to_act))]
        level = table.levels[seat]
        obs = observation(rules, state, seat, n, world=level in SEARCHING)
        started = time.perf_counter()
        # the seconds a worker gives the level at a table without a clock (its settings')
        token = TURN_SECONDS.set(seconds_for(level, None, SETTINGS))
        try:
            action = policies[level](obs, Random(f"{table.seed}:{n}"))
        finally:
            TURN_SECONDS.reset(token)
        timings[level].append(time.perf_counter() - started)
        state = fold(rules, rules.decide(state, seat, action, rng), state)
    outcome = rules.outcome(state)
    if outcome is None:
        raise RuntimeError(f"{table.game} seed {table.seed}: no end after {MAX_MOVES} moves")
    share = 1.0 / len(outcome.winners)
    scores = outcome.scores
    margins = [
        scores[s] - max((scores[t] for t in range(len(scores)) if t != s), default=0)
        for s in range(len(scores))
    ]
    return Result(
        game=table.game,
        levels=table.levels,
        shares=[share if s in outcome.winners else 0.0 for s in range(len(scores))],
        margins=[float(m) for m in margins],
        moves=dict(timings),
        seed=table.seed,
        ranks=list(outcome.ranks),
    )


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def tables(
    games: list[str],
    per_count: int,
    simulations: int | None,
    width: int | None,
    first_deal: int = 0,
    matchups: tuple[tuple[str, str], ...] = MATCHUPS,
    counts: tuple[int, ...] | None = None,
) -> list[Table]:
    """Each match-up and seat count (`counts` of the game's, or all): `per_count` tables, two
    by two on the same deal with the levels' seats swapped (duplicate play: the luck of a deal
    falls to both levels); the deals counted from `first_deal` (other deals than the
    default's, to check a change on)."""
    out = []
    for game in games:
        for strong, weak in matchups:
            for seats in (n for n in SEATS[game] if counts is None or n in counts):
                for n in range(per_count):
                    pattern = [(strong, weak)[(s + n) % 2] for s in range(seats)]
                    seed = _seed(game, strong, seats, first_deal + n // 2)
                    out.append(Table(game, tuple(pattern), seed, simulations, width))
    return out


def _seed(game: str, strong: str, seats: int, n: int) -> int:
    return sum(ord(c) for c in f"{game}{strong}") * 100_000 + seats * 10_000 + n


def report(
    results: list[Result],
    elapsed: float,
    workers: int,
    budget: str,
    matchups: tuple[tuple[str, str], ...] = MATCHUPS,
) -> str:
    lines = [
        f"Bot tournament: {len(results)} tables in {elapsed:.0f} s on {workers} processes;"
        f" mcts budget {budget}",
        "",
        "| game | match-up | level | seat-games | win rate per seat (95 % CI) | mean margin |"
        " s/move p50 |",
        "|---|---|---|---|---|---|---|",
    ]
    verdicts = []
    for game in dict.fromkeys(r.game for r in results):
        for strong, weak in matchups:
            rows = [r for r in results if r.game == game and set(r.levels) == {strong, weak}]
            if not rows:
                continue
            ci = {}
            for level in (strong, weak):
                shares = [sh for r in rows for s, sh in enumerate(r.shares) if r.levels[s] == level]
                margins = [m for r in rows for s, m in enumerate(r.margins) if r.levels[s] == level]
                moves = sorted(t for r in rows for t in r.moves.get(level, []))
                lo, hi = wilson(sum(shares), len(shares))
                ci[level] = (lo, hi)
                rate = sum(shares) / len(shares)
                p50 = moves[len(moves) // 2] if moves else 0.0
                lines.append(
                    f"| {game} | {strong} v {weak} | {level} | {len(shares)} |"
                    f" {rate:.1%} ({lo:.1%} to {hi:.1%}) | {sum(margins) / len(margins):+.1f} |"
                    f" {p50:.3f} |"
                )
            beats = ci[strong][0] > ci[weak][1]
            mean, half, deals = paired(rows, strong, weak)
            holds = "holds" if mean - half > 0 else "does NOT hold"
            counts = []
            for seats in sorted({len(r.levels) for r in rows}):
                m, h, n = paired([r for r in rows if len(r.levels) == seats], strong, weak)
                counts.append(f"{seats} seats {m:+.1%} ({m - h:+.1%} to {m + h:+.1%}, {n} deals)")
            verdicts.append(
                f"{game}: {strong} {'beats' if beats else 'does NOT beat'} {weak}"
                f" (intervals); paired over {deals} deals: {strong} wins {mean:+.1%}"
                f" ({mean - half:+.1%} to {mean + half:+.1%}) a seat more: the step {holds};"
                f" by seat count: {'; '.join(counts)}"
            )
    fitted = ratings(results)
    table = [
        "",
        "| game | level | rating (mu - 3 sigma) | mu | sigma | seat-games |",
        "|---|---|---|---|---|---|",
    ]
    for game, levels in fitted.items():
        for level, r in sorted(levels.items(), key=lambda kv: LADDER.index(kv[0])):
            seats = sum(x.levels.count(level) for x in results if x.game == game)
            table.append(
                f"| {game} | {level} | {r.ordinal:.1f} | {r.mu:.1f} | {r.sigma:.2f} | {seats} |"
            )
    return "\n".join([*lines, "", *verdicts, *table])


ANCHOR = "greedy"  # the level whose mu is set at 25, a new player's (see `ratings`)


def strength_of_anchor(strength: dict[str, float]) -> float:
    """The strength that reads as mu 25: `ANCHOR`'s, or (a run without it) the levels' mean."""
    if ANCHOR in strength:
        return strength[ANCHOR]
    return math.exp(sum(math.log(v) for v in strength.values()) / len(strength))


def ratings(results: list[Result], rounds: int = 2000) -> dict[str, dict[str, Rating]]:
    """Per game, each level's rating on the players' scale: openskill's Plackett-Luce
    (services/lobby/ratings.py), whose chance that one of two seats finishes ahead of the
    other is e^(mu/c) against e^(mu'/c), c = sqrt(2 beta^2 + sigma^2 + sigma'^2) (its
    `predict_win`; its update over n seats uses c = sqrt(sum of (sigma^2 + beta^2)), so at 3-4
    seats a gap moves ratings by a little less than at 2).

    Fitted at once over every table, not update by update (an online pass leaves each level
    where its own step's tables put it, in the order they came: greedy never meets expert):
    each pair of seats of two levels at a table is one result (the better rank wins, a tie is
    half each), and the strengths are those most likely to give all of them (Bradley-Terry by
    Hunter's MM iterations, with half a win each way added to every pair of levels that met,
    so that a level that never won is still finite). mu = 25 + beta sqrt(2) ln(strength).

    Only the gaps are measured. The zero point is a choice: `ANCHOR` (greedy, the rules of
    thumb a casual player follows) at 25, a new player's mu; people's games move the levels
    from there (a level's first live rating starts from this one, services/lobby/ratings.py
    `first`). sigma is each level's own information on the same scale: the pairs of one table
    (and the two tables of a deal) are counted as independent, and the gaps' covariances are
    left out, so it is smaller than the truth; `first` never starts a level below a floor."""
    scale = math.sqrt(2) * MODEL.beta
    fitted: dict[str, dict[str, Rating]] = {}
    for game in dict.fromkeys(r.game for r in results):
        won: dict[str, float] = defaultdict(float)
        met: dict[tuple[str, str], float] = defaultdict(float)
        for r in (x for x in results if x.game == game):
            for s, a in enumerate(r.levels):
                for t in range(s + 1, len(r.levels)):
                    b = r.levels[t]
                    if a == b:
                        continue
                    met[min(a, b), max(a, b)] += 1
                    first = r.ranks[s] - r.ranks[t]
                    won[a] += 1.0 if first < 0 else 0.5 if first == 0 else 0.0
                    won[b] += 1.0 if first > 0 else 0.5 if first == 0 else 0.0
        for a, b in list(met):  # the prior: half a win each way
            met[a, b] += 1
            won[a] += 0.5
            won[b] += 0.5
        levels = sorted({x for pair in met for x in pair}, key=LADDER.index)
        strength = dict.fromkeys(levels, 1.0)

        against = {
            x: [(b if a == x else a, n) for (a, b), n in met.items() if x in (a, b)] for x in levels
        }

        for _ in range(rounds):
            new = {
                x: won[x] / sum(n / (strength[x] + strength[y]) for y, n in against[x])
                for x in levels
            }
            anchor = strength_of_anchor(new)
            new = {x: v / anchor for x, v in new.items()}
            done = max(abs(math.log(new[x] / strength[x])) for x in levels) < 1e-9
            strength = new
            if done:
                break
        out = {}
        for x in levels:
            info = sum(
                n * strength[x] * strength[y] / (strength[x] + strength[y]) ** 2
                for y, n in against[x]
            )
            out[x] = Rating(MODEL.mu + scale * math.log(strength[x]), scale / math.sqrt(info))
        fitted[game] = out
    return fitted


def paired(rows: list[Result], strong: str, weak: str) -> tuple[float, float, int]:
    """Duplicate play's own measure: per deal (its two tables, the seats swapped), the
    strong level's win rate per seat less the weak one's; their mean, the half-width of its
    95 % interval (Student's t) and the number of deals. The luck of a deal falls to both
    levels, so this sees a smaller edge than two independent intervals do."""
    by_deal: dict[int, list[float]] = defaultdict(list)
    for r in rows:
        rate = {
            level: sum(sh for s, sh in enumerate(r.shares) if r.levels[s] == level)
            / r.levels.count(level)
            for level in (strong, weak)
        }
        by_deal[r.seed].append(rate[strong] - rate[weak])
    diffs = [sum(d) / len(d) for d in by_deal.values()]
    n = len(diffs)
    mean = sum(diffs) / n
    if n < 2:
        return mean, math.inf, n
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1))
    return mean, t975(n - 1) * sd / math.sqrt(n), n


def t975(df: int) -> float:
    """Student's t quantile 0.975 (Cornish-Fisher from the normal's; within 1 % from 5
    degrees of freedom, exact enough for an interval)."""
    z = 1.959964
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="*", default=list(SEATS))
    parser.add_argument("--tables", type=int, default=8, help="per match-up and seat count")
    parser.add_argument(
        "--simulations", type=int, help="mcts playouts per move (default: each game's level's)"
    )
    parser.add_argument("--width", type=int, help="mcts moves considered per move (the same)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument(
        "--first-deal",
        type=int,
        default=0,
        help="the first deal per match-up and seat count (--tables 8 plays deals 0-3)",
    )
    parser.add_argument(
        "--steps",
        nargs="*",
        default=[f"{a}:{b}" for a, b in MATCHUPS],
        help="the ladder's steps to play, as stronger:weaker (default: every step)",
    )
    parser.add_argument(
        "--seats",
        type=int,
        nargs="*",
        help="the seat counts to play (default: every one the game has; 2 is the cheapest)",
    )
    parser.add_argument(
        "--out", type=Path, help="write the fitted ratings here (contracts/ladder.json)"
    )
    parser.add_argument(
        "--results", type=Path, help="keep every table's result here (JSON), to report again"
    )
    parser.add_argument(
        "--report", type=Path, help="report the results kept by --results, playing nothing"
    )
    args = parser.parse_args()
    matchups = tuple((a, b) for a, b in (step.split(":", 1) for step in args.steps))
    todo = tables(
        args.games,
        args.tables,
        args.simulations,
        args.width,
        args.first_deal,
        matchups,
        tuple(args.seats) if args.seats else None,
    )
    started = time.perf_counter()
    results = []
    if args.report:
        results = msgspec.json.decode(args.report.read_bytes(), type=list[Result])
        matchups = tuple(m for m in matchups if any(set(r.levels) == set(m) for r in results))
        todo = []
    with ProcessPoolExecutor(args.workers) as pool:
        for n, result in enumerate(pool.map(play, todo, chunksize=1), 1):
            results.append(result)
            print(f"{n}/{len(todo)} tables", end="\r", file=sys.stderr, flush=True)
    if args.results:
        args.results.write_bytes(msgspec.json.encode(results))
    budget = "; ".join(
        f"{game} {args.simulations or b.simulations} playouts over {args.width or b.width} moves"
        for game in args.games
        for b in [SEARCHED[game].budget]
    )
    elapsed = time.perf_counter() - started
    print(report(results, elapsed, args.workers, budget, matchups))
    if args.out:
        args.out.write_text(ladder_json(results, elapsed, args), encoding="utf-8")
    return 0


def ladder_json(results: list[Result], elapsed: float, args: argparse.Namespace) -> str:
    """The fitted ratings as the catalog reads them (contracts/levels.py `measured`)."""
    body = {
        "measured": {
            "by": "make tournament",
            "tables": len(results),
            "seconds": round(elapsed),
            "steps": args.steps,
            "tables_per_step_and_seat_count": args.tables,
        },
        "games": {
            game: {
                level: {
                    "mu": round(r.mu, 2),
                    "sigma": round(r.sigma, 2),
                    "ordinal": round(r.ordinal, 1),
                }
                for level, r in levels.items()
            }
            for game, levels in ratings(results).items()
        },
    }
    return json.dumps(body, indent=2) + "\n"


if __name__ == "__main__":
    sys.exit(main())
