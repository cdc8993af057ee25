#!/usr/bin/env python3
"""Where the game service's CPU goes under the action benchmark's c16 load.

    .venv/bin/python -m tests.bench.profile_actions [--clients 16] [--workers 1] [--top 25]
        [--rate 100] [--raw actions.txt] [--flamegraph actions.svg]

Runs the `post_action_c16` level of tests/bench/run.py (its own database and stream prefix,
the load generator in processes of its own) with py-spy recording the game service (its
uvicorn workers too) for the warm-up and the measured window, then prints the functions by
inclusive share: the fraction of py-spy's samples (active threads only, so roughly of the
service's CPU time) with the function anywhere on the stack, and its self share (at the
top). Functions are named `qualname (file)`, lines merged. The raw stacks (collapsed format,
one `frame;frame;... count` a line) stay in --raw: speedscope.app opens them as they are,
and `flamegraph.pl`/`inferno-flamegraph` make an SVG of them; --flamegraph records an SVG
with py-spy itself instead (a second run of the level).

`aggregate(path)` is the parser, for raw files recorded by hand:

    .venv/bin/py-spy record -r 100 -d 20 -f raw -o game.txt --pid <game service pid>
    .venv/bin/python -c "from tests.bench.profile_actions import report; report('game.txt')"
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

PY_SPY = ROOT / ".venv" / "bin" / "py-spy"
_LINE = re.compile(r":\d+\)$")


def _function(frame: str) -> str:
    """`Runner.run (asyncio/runners.py:118)` -> `Runner.run (asyncio/runners.py)`."""
    return _LINE.sub(")", frame.strip())


def aggregate(path: str | Path) -> tuple[int, Counter[str], Counter[str]]:
    """(samples, inclusive, self) counts by function from a py-spy raw (collapsed) file."""
    total = 0
    inclusive: Counter[str] = Counter()
    own: Counter[str] = Counter()
    for line in Path(path).read_text(errors="replace").splitlines():
        stack, _, n = line.rpartition(" ")
        if not stack or not n.isdigit():
            continue
        count = int(n)
        frames = [_function(f) for f in stack.split(";") if f.strip()]
        if not frames:
            continue
        total += count
        for f in set(frames):  # once per stack: recursion is not counted twice
            inclusive[f] += count
        own[frames[-1]] += count
    return total, inclusive, own


def report(
    path: str | Path, top: int = 25, skip_roots: bool = True, exclude: str = ""
) -> list[str]:
    """Print (and return) the top functions by inclusive share; `exclude`: a regex of
    functions left out of the list (e.g. the framework's middleware chain)."""
    total, inclusive, own = aggregate(path)
    lines = [f"# {total} samples; inclusive % | self % | function"]
    shown = 0
    skip = re.compile(exclude) if exclude else None
    for f, n in inclusive.most_common():
        # frames on (nearly) every stack say nothing: the interpreter's, uvicorn's, the loop's
        if (skip_roots and n >= 0.97 * total) or (skip and skip.search(f)):
            continue
        lines.append(f"{100 * n / total:6.1f} {100 * own[f] / total:6.1f}  {f}")
        shown += 1
        if shown >= top:
            break
    for line in lines:
        print(line, flush=True)
    return lines


def _py_spy(
    pid: int, fmt: str, target: str, rate: int, seconds: int, children: bool
) -> subprocess.Popen[bytes]:
    """py-spy recording `pid` (and its subprocesses: uvicorn's workers) for `seconds`."""
    cmd = [str(PY_SPY), "record", "-r", str(rate), "-d", str(seconds), "-f", fmt, "-o", target]
    cmd += ["--pid", str(pid), *(["--subprocesses"] if children else [])]
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


async def _profile(args: argparse.Namespace) -> None:
    import tests.bench.run as bench

    duration = int(bench.WARMUP_S + bench.MEASURE_S + 0.999)
    db, dsn = await bench.create_database()
    prefix = f"bench-{bench.RUN}:"
    streams = bench.RedisStreams.from_url(bench.REDIS_URL)
    svc = bench.Service(dsn, prefix, workers=args.workers)
    try:
        await svc.wait_healthy()
        bench.out("load_average_1m_at_start", os.getloadavg()[0])
        for fmt, target in (("raw", args.raw), ("flamegraph", args.flamegraph)):
            if not target:
                continue
            cpu = bench.CpuMeter(svc.proc.pid)
            games = bench.Games(streams, prefix, svc.url, tag=f"{fmt}-")
            spy = _py_spy(svc.proc.pid, fmt, target, args.rate, duration, args.workers > 1)
            name = f"profile_{fmt}_c{args.clients}"
            await bench.run_level(svc, games, args.clients, 4 * args.clients, cpu, name=name)
            _, err = await asyncio.to_thread(spy.communicate)
            if spy.returncode:
                bench.note(f"py-spy exited {spy.returncode}: {err.decode(errors='replace')}")
            bench.note(f"{fmt}: {target}")
        bench.out("load_average_1m_at_end", os.getloadavg()[0])
    finally:
        svc.stop()
        await streams.close()
        await bench.cleanup_redis(prefix)
        await bench.drop_database(db)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--workers", type=int, default=1, help="GAME_WORKERS of the service")
    parser.add_argument("--rate", type=int, default=100, help="py-spy samples per second")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--raw", default="actions-profile.txt", help="py-spy raw stacks")
    parser.add_argument("--flamegraph", default="", help="also record an SVG here")
    parser.add_argument("--report", default="", help="only print the report of this raw file")
    parser.add_argument(
        "--exclude",
        default="",
        help="regex of functions left out of the list, e.g. 'litestar/|uvicorn/|Middleware'",
    )
    args = parser.parse_args()
    if not args.report:
        asyncio.run(_profile(args))
    report(args.report or args.raw, args.top, exclude=args.exclude)


if __name__ == "__main__":
    main()
