#!/usr/bin/env python3
"""The rounds of several `compare_actions` runs pooled: one ratio, with its uncertainty.

    .venv/bin/python -m tests.bench.compare_actions /tmp/base --rounds 9 > run1.txt
    ...
    .venv/bin/python -m tests.bench.pool_rounds run1.txt run2.txt [--key game_service_cpu_per_action]
        [--clients 16] [--target 0.40]

A single run's ratio moves by ±10 % on a shared VM, where each round's figure does (both
sides, and not together, so pairing rounds does not cancel it). Each file's rounds are paired
by number (`post_action_c16_base_r3_<key>` with `..._this_r3_<key>`); all of them pooled give
the ratio of the two medians and the median of each round's own ratio, each with a bootstrap
90 % interval (resampling rounds, seeded: the same files print the same interval), and with
--target how many rounds were under it.
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import sys
from pathlib import Path
from typing import NamedTuple

from tests.bench.compare_actions import paired_ratio

RESAMPLES = 4000


class Pooled(NamedTuple):
    rounds: int
    base_median: float
    this_median: float
    ratio: float  # of the two medians
    ratio_interval: tuple[float, float]
    paired: float  # the median of each round's own ratio
    paired_interval: tuple[float, float]


def pairs(text: str, key: str, clients: int = 16) -> list[tuple[float, float]]:
    """(base, this) of each round of one run's output that has both, in round order."""
    line = re.compile(
        rf"^post_action_c{clients}_(base|this)_r(\d+)_{re.escape(key)} ([-\d.eE+na]+)", re.M
    )
    found: dict[tuple[str, int], float] = {}
    for which, number, value in line.findall(text):
        found[(which, int(number))] = float(value)
    rounds = sorted({n for _, n in found})
    return [
        (found[("base", n)], found[("this", n)])
        for n in rounds
        if ("base", n) in found and ("this", n) in found and found[("base", n)] > 0
    ]


def _interval(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return ordered[int(0.05 * len(ordered))], ordered[int(0.95 * len(ordered)) - 1]


def pool(rounds: list[tuple[float, float]], seed: int = 1) -> Pooled:
    if not rounds:
        raise ValueError("no round with both sides measured")
    base = [b for b, _ in rounds]
    this = [t for _, t in rounds]
    own = [t / b for b, t in rounds]  # pairs() keeps no round without a baseline
    rng = random.Random(seed)
    n = len(rounds)
    ratios, paireds = [], []
    for _ in range(RESAMPLES):
        picked = [rng.randrange(n) for _ in range(n)]
        ratios.append(
            statistics.median(this[i] for i in picked) / statistics.median(base[i] for i in picked)
        )
        paireds.append(statistics.median(own[i] for i in picked))
    base_median, this_median = statistics.median(base), statistics.median(this)
    return Pooled(
        rounds=n,
        base_median=base_median,
        this_median=this_median,
        ratio=this_median / base_median,
        ratio_interval=_interval(ratios),
        paired=paired_ratio(base, this),
        paired_interval=_interval(paireds),
    )


def report(rounds: list[tuple[float, float]], key: str, target: float | None = None) -> list[str]:
    """The pooled figures of these rounds, one line each (compare_actions' naming)."""
    pooled = pool(rounds)
    lines = [
        f"pooled_rounds {pooled.rounds}",
        f"pooled_{key}_base_median {pooled.base_median:.3f}",
        f"pooled_{key}_this_median {pooled.this_median:.3f}",
        f"pooled_{key}_this_vs_base_ratio {pooled.ratio:.3f} x "
        f"(90 % interval {pooled.ratio_interval[0]:.3f}-{pooled.ratio_interval[1]:.3f})",
        f"pooled_{key}_this_vs_base_paired_ratio {pooled.paired:.3f} x "
        f"(90 % interval {pooled.paired_interval[0]:.3f}-{pooled.paired_interval[1]:.3f})",
    ]
    if target is not None:
        under = sum(t / b < target for b, t in rounds)
        lines.append(f"pooled_{key}_rounds_under_{target:g} {under} of {pooled.rounds}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", type=Path, help="outputs of compare_actions")
    parser.add_argument("--key", default="game_service_cpu_per_action")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--target", type=float, default=None, help="count rounds under it")
    args = parser.parse_args(argv)
    rounds = [p for run in args.runs for p in pairs(run.read_text(), args.key, args.clients)]
    if not rounds:
        print(f"no rounds of {args.key} at c{args.clients} in those files", file=sys.stderr)
        return 1
    for line in report(rounds, args.key, args.target):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
