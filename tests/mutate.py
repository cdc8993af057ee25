"""Mutation testing of one engine module against its unit tests, with mutmut.

    .venv/bin/python -m tests.mutate games/itty_bitty/payments.py tests/unit/itty_bitty
    make mutate MODULE=games/itty_bitty/payments.py TESTS=tests/unit/itty_bitty
    .venv/bin/python -m tests.mutate games/footprints/legal.py tests/unit/footprints \
        --only 'games.footprints.legal.x_acts__mutmut_*'   # some mutants only (a rerun)

mutmut 3 takes its settings from pyproject.toml and writes its mutants beside the sources.
So the tracked files (`git ls-files`) go to a directory of their own, with the settings for
this module and these tests added there; the checkout stays as it was. Prints each mutant
that was not killed, with its diff, then the killed share, and exits 1 below `--floor`
(default 0: a report, not a gate). The team aims at 95 % killed for an engine module it
changes.
"""

from __future__ import annotations

import argparse
import collections
import fnmatch
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def settings(modules: list[str], tests: list[str], timeout_multiplier: float = 3.0) -> str:
    def quoted(items: list[str]) -> str:
        return ", ".join(f'"{i}"' for i in items)

    return (
        "\n[tool.mutmut]\n"
        f"source_paths = [{quoted(modules)}]\n"
        f"pytest_add_cli_args_test_selection = [{quoted(tests)}]\n"
        'also_copy = ["games", "contracts", "infra", "services", "tests", "clients"]\n'
        'pytest_add_cli_args = ["-p", "no:cacheprovider", "-q", "-x"]\n'
        # a mutant that loops is stopped after (its tests' time + 1 s) x 2 x this many CPU
        # seconds and counted as caught (mutmut's default, 15, let one loop for an hour)
        f"timeout_multiplier = {timeout_multiplier}\n"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("module", nargs="+", help="source files to mutate, then the tests")
    parser.add_argument("--tests", action="append", help="test directories or files")
    parser.add_argument("--children", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--floor", type=float, default=0.0, help="fail below this killed %%")
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        help="only these mutants (names or globs, as mutmut prints them: a rerun of survivors)",
    )
    parser.add_argument(
        "--timeout-multiplier", type=float, default=3.0, help="of a mutant's tests' time"
    )
    args = parser.parse_args()
    modules = [m for m in args.module if not m.startswith("tests/")]
    tests = (args.tests or []) + [m for m in args.module if m.startswith("tests/")]
    if not modules or not tests:
        parser.error("name at least one module to mutate and one test path")
    mutmut = Path(sys.executable).with_name("mutmut")
    work = Path(tempfile.mkdtemp(prefix="turnpost-mutate-"))
    try:
        tracked = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, check=True, capture_output=True
        ).stdout.split(b"\0")
        for name in filter(None, tracked):
            source = ROOT / name.decode()
            if source.is_file():  # tracked, and not deleted in the work tree
                target = work / name.decode()
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target)
        with (work / "pyproject.toml").open("a") as f:
            f.write(settings(modules, tests, args.timeout_multiplier))
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        run = subprocess.run(
            [str(mutmut), "run", "--max-children", str(args.children), *args.only],
            cwd=work,
            env=env,
            stdout=subprocess.DEVNULL,  # its progress line, redrawn thousands of times
        )
        if run.returncode != 0:
            print(f"mutmut run failed ({run.returncode}); its files: {work}", file=sys.stderr)
            args.keep = True
            return run.returncode
        results = subprocess.run(
            [str(mutmut), "results", "--all", "true"],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        fates = collections.Counter()
        for line in results.splitlines():
            name, sep, fate = line.strip().rpartition(": ")
            chosen = not args.only or any(fnmatch.fnmatchcase(name, p) for p in args.only)
            if sep and "__mutmut_" in name and chosen:
                fates[fate] += 1
                if fate != "killed":
                    shown = subprocess.run(
                        [str(mutmut), "show", name], cwd=work, env=env, capture_output=True
                    )
                    print(f"{fate}: {name}\n{shown.stdout.decode(errors='replace')}")
        total = sum(fates.values())
        killed = 100 * fates["killed"] / total if total else 0.0
        print(f"mutants {total}: " + ", ".join(f"{k} {v}" for k, v in sorted(fates.items())))
        print(f"killed {killed:.1f} %")
        return 1 if killed < args.floor else 0
    finally:
        if args.keep:
            print(f"work directory kept: {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
