#!/usr/bin/env python3
"""The action path before and after a change, in one run: the `post_action_c16` level of
tests/bench/run.py on another checkout's game service (the baseline) and on this one's,
in alternate rounds, so both meet the same machine.

    git worktree add /tmp/base <commit>
    .venv/bin/python -m tests.bench.compare_actions /tmp/base [--rounds 3] [--clients 16] [--gc]
        [--pace 480] [--base-env NAME=VALUE ...]

Each round starts a fresh service of each checkout (the baseline first, then this one, the
order swapped every other round) on one database and stream prefix of its own, and plays
the level (BENCH_WARMUP_S, BENCH_MEASURE_S) with the load generator in processes of its own.
Prints each level's figures as run.py does (`post_action_c16_base_r1_*`, `..._this_r1_*`),
then the medians over the rounds of the game service's and Postgres' CPU per action cycle
and of actions/s and the POST's p99, and this checkout's over the baseline's as ratios: of
the two medians (`_this_vs_base_ratio`), and the median of each round's own ratio
(`_this_vs_base_paired_ratio`, steadier where the machine's speed drifts between rounds).
--gc runs each service under tests/bench/gc_probe.py and adds the collector's pauses in the
measured window: per generation, CPU per 1,000 actions and the longest pause. --pace N: the
clients begin N cycles a second together (each its share, late ones at once), so both
services answer the same load and the latencies compare at it; without it each client
begins a cycle as soon as the last is answered, and at the service's saturation the
latency is the clients' number over the throughput (Little's law): a faster service gets
more cycles, not shorter ones. --base-env NAME=VALUE gives the baseline's service a setting
of its own: with base `.` it compares this checkout with itself, e.g. without its fast routes
(`--base-env FAST_ROUTES=0`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from infra.streams.redis import RedisStreams  # noqa: E402
from tests.bench import run  # noqa: E402


def gc_figures(path: Path, window: tuple[float, float], actions: float) -> dict[str, float]:
    """The collections of the measured window (tests/bench/gc_probe.py's rows): per
    generation how many, CPU per 1,000 actions, the median and the longest pause."""
    rows = [r for r in json.loads(path.read_text()) if window[0] <= r[0] <= window[1]]
    figures: dict[str, float] = {}
    for gen in (0, 1, 2):
        spent = sorted(1000 * r[2] for r in rows if r[1] == gen)
        figures[f"gc{gen}_count"] = len(spent)
        figures[f"gc{gen}_ms_per_1000_actions"] = sum(spent) * 1000 / actions if actions else 0
        figures[f"gc{gen}_p50_ms"] = spent[len(spent) // 2] if spent else 0.0
        figures[f"gc{gen}_max_ms"] = spent[-1] if spent else 0.0
    return figures


def paired_ratio(base: list[float], this: list[float]) -> float:
    """The median of each round's ratio: a round's two services ran back to back, so a
    machine whose speed drifts between rounds (a shared VM: the same checkout moved by a
    third from one round to the next) moves both sides of a pair alike, where it moves
    the two medians of a whole run apart."""
    ratios = [t / b for b, t in zip(base, this, strict=True) if b]
    return statistics.median(ratios) if ratios else float("nan")


async def compare(
    base: Path,
    rounds: int,
    clients: int,
    gc_pauses: bool = False,
    pace: float = 0.0,
    base_env: dict[str, str] | None = None,
) -> None:
    db_name, dsn = await run.create_database()
    prefix = f"bench-{run.RUN}:"
    streams = RedisStreams.from_url(run.REDIS_URL)
    figures: dict[str, list[dict[str, float]]] = {"base": [], "this": []}
    lines: dict[str, str] = {}
    real_out = run.out

    def capture(name: str, value: object, unit: str = "") -> None:
        lines[name] = str(value)
        real_out(name, value, unit)

    run.out = capture
    try:
        for r in range(1, rounds + 1):
            order = [("base", base), ("this", ROOT)]
            for which, root in order if r % 2 else reversed(order):
                gc_out = Path(tempfile.gettempdir()) / f"turnpost-gc-{run.RUN}-{which}{r}.json"
                svc = run.Service(
                    dsn,
                    prefix,
                    root=root,
                    gc_out=gc_out if gc_pauses else None,
                    env=base_env if which == "base" else None,
                )
                try:
                    await svc.wait_healthy()
                    cpu = run.CpuMeter(svc.proc.pid, db_name)
                    games = run.Games(streams, prefix, svc.url, tag=f"{which}{r}-")
                    name = f"post_action_c{clients}_{which}_r{r}"
                    lines.clear()
                    rate = await run.run_level(
                        svc, games, clients, 4 * clients, cpu, name=name, pace=pace
                    )
                    service_cpu, postgres_cpu = run.CPU_PER_ACTION.get(name, (0.0, 0.0))
                    figures[which].append(
                        {
                            "actions_per_s": rate,
                            "game_service_cpu_per_action": service_cpu,
                            "postgres_cpu_per_action": postgres_cpu,
                            "post_p99_ms": float(lines.get(f"{name}_p99_ms", "nan")),
                        }
                    )
                finally:
                    svc.stop()
                    if svc.problems()[0]:
                        run.note(f"{which} round {r}: tracebacks in {svc.log}")
                if gc_pauses and name in run.WINDOWS and gc_out.exists():
                    pauses = gc_figures(gc_out, run.WINDOWS[name], rate * run.MEASURE_S)
                    for key, value in pauses.items():
                        run.out(f"{name}_{key}", value, "ms" if "ms" in key else "")
                    figures[which][-1].update(pauses)
                    gc_out.unlink()
        run.out = real_out
        keys = ["game_service_cpu_per_action", "postgres_cpu_per_action", "actions_per_s",
                "post_p99_ms"]  # fmt: skip
        if gc_pauses:
            keys += [f"gc{g}_{k}" for g in (0, 1, 2) for k in ("ms_per_1000_actions", "max_ms")]
        for key in keys:
            medians = {w: statistics.median(f[key] for f in figures[w]) for w in figures}
            run.out(f"c{clients}_{key}_base_median", medians["base"], "")
            run.out(f"c{clients}_{key}_this_median", medians["this"], "")
            ratio = medians["this"] / medians["base"] if medians["base"] else float("nan")
            run.out(f"c{clients}_{key}_this_vs_base_ratio", ratio, "x")
            run.out(
                f"c{clients}_{key}_this_vs_base_paired_ratio",
                paired_ratio([f[key] for f in figures["base"]], [f[key] for f in figures["this"]]),
                "x",
            )
    finally:
        run.out = real_out
        await streams.close()
        await run.cleanup_redis(prefix)
        await run.drop_database(db_name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", type=Path, help="the baseline checkout (a git worktree)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument(
        "--gc", action="store_true", help="the collector's pauses too (tests/bench/gc_probe.py)"
    )
    parser.add_argument(
        "--pace",
        type=float,
        default=0.0,
        help="action cycles a second, the clients together (default: as fast as answered)",
    )
    parser.add_argument(
        "--base-env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a setting of the baseline's service only (e.g. FAST_ROUTES=0 with base '.')",
    )
    args = parser.parse_args()
    base_env = dict(pair.split("=", 1) for pair in args.base_env)
    began = time.monotonic()
    asyncio.run(
        compare(args.base.resolve(), args.rounds, args.clients, args.gc, args.pace, base_env)
    )
    run.out("compare_wall_s", time.monotonic() - began, "s")


if __name__ == "__main__":
    main()
