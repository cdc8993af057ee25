"""Balance, measured: greedy self-play, each seat's result credited to what it played.

`python -m tests.bench.balance --game footprints --games 2000` plays that many games of
the greedy level against itself (services/bots/policies), split evenly over the seat
counts asked (default 2 to 6), on every core (`--workers`). Each seat's share of the win
(ties split) is credited to its clan in Footprints, its character in Itchy Feet (dealt at
random: `characters` is "random" unless `--options` says otherwise; `--extensions all` or
`none` adds every extension or none), its seat otherwise, and to its place in turn order
(1 = the first player). Per clan it prints the seat-games, the wins, the win
rate with its 95 % Wilson interval, the rate a fair game expects (the mean of 1 / seats
over its seat-games), z = (wins - expected) / sd (a seat's share is a Bernoulli of 1 /
seats under the fair null) and the mean score. With six clans, |z| above 2.64 is the 5 %
level after Bonferroni's correction. Every game is seeded (seat count and number), so a
run is repeatable; the greedy level is one strategy, not the players: read a large |z| as
"this clan's deck and board suit greedy play worse", not as the clan's worth.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from random import Random
from typing import Any

import msgspec

from games.api import fold
from games.registry import get as get_rules
from services.bots.observe import observation
from services.bots.policies import POLICIES
from tests.bench.tournament import wilson

MAX_MOVES = 5000
BONFERRONI_6 = 2.64  # two-sided 5 % over six comparisons


@dataclass(frozen=True)
class Game:
    game: str
    seats: int
    seed: int
    options: dict[str, Any] = field(default_factory=dict)


@dataclass
class Played:
    seats: int
    seed: int
    labels: list[str]  # per seat: its clan (Footprints) or "seat N"
    places: list[int]  # per seat: its place in turn order, 1 = the first player
    shares: list[float]  # per seat: its share of the win
    scores: list[int]
    ended: str = ""  # why the game ended, where the game says
    turns: int = 0  # turns the first seat took


def credited(game: str) -> str:
    """What a seat's result is credited to (the seat itself but in these games)."""
    if game == "footprints":
        return "clan"
    return "character" if game == "itchy-feet" else "seat"


# Itchy Feet's extensions, for --extensions (games/itchy_feet/model.py: Options)
ITCHY_EXTENSIONS = ("events", "special_items", "forbidden_items", "postcards")


def labels_of(game: str, state: Any) -> list[str]:
    if game == "footprints":
        return [p.clan for p in state.players]
    if game == "itchy-feet":
        return [c or "no character" for c in state.characters]
    seats = getattr(state, "seats", None)
    return [f"seat {s}" for s in range(seats if seats is not None else len(state.players))]


def options_of(game: str, options: dict[str, Any], extensions: str | None) -> dict[str, Any]:
    """The room options a run plays: Itchy Feet's characters dealt at random unless asked
    otherwise, and `extensions` ("all" or "none") setting every extension of Itchy Feet."""
    if game != "itchy-feet":
        if extensions is not None:
            raise ValueError("--extensions is for itchy-feet")
        return options
    out = {"characters": "random"}
    if extensions is not None:
        out |= {name: extensions == "all" for name in ITCHY_EXTENSIONS}
    return out | options


def play(g: Game) -> Played:
    rules = get_rules(g.game)
    assert rules is not None
    rng = Random(g.seed)
    options = msgspec.convert(g.options, rules.options_type)
    state = fold(rules, rules.setup(options, g.seats, rng))
    policy = POLICIES[(g.game, "greedy")]
    for n in range(MAX_MOVES):
        to_act = sorted(rules.to_act(state))
        if not to_act:
            break
        seat = to_act[rng.randrange(len(to_act))]
        action = policy(observation(rules, state, seat, n, world=False), Random(f"{g.seed}:{n}"))
        state = fold(rules, rules.decide(state, seat, action, rng), state)
    outcome = rules.outcome(state)
    if outcome is None:
        raise RuntimeError(f"{g.game} seed {g.seed}: no end after {MAX_MOVES} moves")
    first = getattr(state, "first_seat", 0)
    share = 1.0 / len(outcome.winners) if outcome.winners else 0.0
    players = getattr(state, "players", ())
    return Played(
        seats=g.seats,
        seed=g.seed,
        labels=labels_of(g.game, state),
        places=[(s - first) % g.seats + 1 for s in range(g.seats)],
        shares=[share if s in outcome.winners else 0.0 for s in range(g.seats)],
        scores=list(outcome.scores),
        ended=str(outcome.detail.get("reason", "")) or _ended(state),
        turns=getattr(players[0], "turns", 0) if players else 0,
    )


def _ended(state: Any) -> str:
    """Footprints: whether a figure reached a cairn (else the end came by an empty panel)."""
    track = getattr(state, "cairn_track", None)
    if track is None:
        return ""
    return "a cairn reached" if track else "no cairn"


def games(game: str, total: int, seats: Sequence[int], options: dict[str, Any]) -> list[Game]:
    """`total` games split evenly over the seat counts (the first counts take the rest);
    game n at s seats is seeded s * 1,000,000 + n."""
    out = []
    for i, n in enumerate(seats):
        count = total // len(seats) + (1 if i < total % len(seats) else 0)
        out += [Game(game, n, n * 1_000_000 + k, options) for k in range(count)]
    return out


@dataclass
class Row:
    label: str
    seat_games: int
    wins: float
    expected: float
    variance: float
    score: float  # mean

    @property
    def rate(self) -> float:
        return self.wins / self.seat_games if self.seat_games else 0.0

    @property
    def z(self) -> float:
        return (self.wins - self.expected) / math.sqrt(self.variance) if self.variance else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.wins, self.seat_games)


def tally(results: Iterable[Played], by: str = "labels") -> list[Row]:
    """One row per clan (`by="labels"`) or place in turn order (`by="places"`): its
    seat-games, wins, the wins a fair game expects and their variance (each seat-game a
    Bernoulli of 1 / seats), and its mean score."""
    count: Counter[str] = Counter()
    wins: dict[str, float] = defaultdict(float)
    expected: dict[str, float] = defaultdict(float)
    variance: dict[str, float] = defaultdict(float)
    scores: dict[str, float] = defaultdict(float)
    for r in results:
        keys = r.labels if by == "labels" else [str(p) for p in r.places]
        p = 1.0 / r.seats
        for s, key in enumerate(keys):
            count[key] += 1
            wins[key] += r.shares[s]
            expected[key] += p
            variance[key] += p * (1 - p)
            scores[key] += r.scores[s]
    return [
        Row(k, count[k], wins[k], expected[k], variance[k], scores[k] / count[k])
        for k in sorted(count, key=lambda k: (len(k), k))
    ]


def table(rows: list[Row], head: str) -> list[str]:
    lines = [
        f"| {head} | seat-games | wins | win rate (95 % interval) | fair | z | mean score |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        lo, hi = row.interval
        fair = row.expected / row.seat_games
        lines.append(
            f"| {row.label} | {row.seat_games} | {row.wins:.1f} | {row.rate:.1%}"
            f" ({lo:.1%} to {hi:.1%}) | {fair:.1%} | {row.z:+.2f} | {row.score:.1f} |"
        )
    return lines


def report(
    game: str,
    results: list[Played],
    elapsed: float,
    workers: int,
    options: dict[str, Any] | None = None,
) -> str:
    names = _names(game)
    rows = tally(results)
    for row in rows:
        row.label = names.get(row.label, row.label)
    counts = Counter(r.seats for r in results)
    ended = Counter(r.ended for r in results)
    lines = [
        f"Balance: {len(results)} greedy {game} games in {elapsed:.0f} s on {workers}"
        f" processes; seat counts {dict(sorted(counts.items()))}; ended by"
        f" {dict(sorted(ended.items()))}"
        + (f"; options {json.dumps(options, sort_keys=True)}" if options else ""),
        "",
        *table(rows, credited(game)),
        "",
        *table(tally(results, by="places"), "place in turn order"),
        "",
        f"Per seat count, win rate per {credited(game)} (fair: 1 / seats):",
        "",
    ]
    by_count = sorted(counts)
    head = credited(game)
    lines.append(f"| {head} | " + " | ".join(f"{n} seats" for n in by_count) + " |")
    lines.append("|---|" + "---|" * len(by_count))
    cells = {
        n: {row.label: row for row in tally(r for r in results if r.seats == n)} for n in by_count
    }
    for label in (row.label for row in tally(results)):
        parts = [f"{cells[n][label].rate:.1%}" if label in cells[n] else "-" for n in by_count]
        lines.append(f"| {names.get(label, label)} | " + " | ".join(parts) + " |")
    outliers = [row for row in rows if abs(row.z) > BONFERRONI_6]
    lines += [
        "",
        f"|z| > {BONFERRONI_6} (5 % after Bonferroni over six): "
        + (", ".join(f"{r.label} ({r.z:+.2f})" for r in outliers) or "none"),
    ]
    return "\n".join(lines)


def _names(game: str) -> dict[str, str]:
    rules = get_rules(game)
    content = getattr(rules, "content", None)
    clans = getattr(content, "clans", None)
    if not clans:
        return {}
    return {key: f"{key} {clan.name}" for key, clan in clans.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="footprints")
    parser.add_argument("--games", type=int, default=2000, help="in all, split over --seats")
    parser.add_argument("--seats", type=int, nargs="*", default=[2, 3, 4, 5, 6])
    parser.add_argument("--options", default="{}", help='room options as JSON: {"snake": true}')
    parser.add_argument(
        "--extensions",
        choices=("all", "none"),
        help="itchy-feet: every extension (events, special and forbidden items, postcards) or none",
    )
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    rules = get_rules(args.game)
    if rules is None:
        parser.error(f"no game {args.game}")
    seats = [n for n in args.seats if n in rules.seats and n > 1]
    try:
        options = options_of(args.game, json.loads(args.options), args.extensions)
    except ValueError as e:
        parser.error(str(e))
    todo = games(args.game, args.games, seats, options)
    started = time.perf_counter()
    results = []
    with ProcessPoolExecutor(args.workers) as pool:
        for n, result in enumerate(pool.map(play, todo, chunksize=8), 1):
            results.append(result)
            print(f"{n}/{len(todo)} games", end="\r", file=sys.stderr, flush=True)
    print(report(args.game, results, time.perf_counter() - started, args.workers, options))
    return 0


if __name__ == "__main__":
    sys.exit(main())
