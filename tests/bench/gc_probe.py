#!/usr/bin/env python3
"""Run a module as `python -m` would, with every pause of the garbage collector recorded.

    python tests/bench/gc_probe.py OUT.json services.game

From the working directory (another checkout's, for tests/bench/compare_actions.py --gc).
Each collection is one row of OUT.json, written at exit: [time.monotonic() at its end,
generation, CPU seconds of the collecting thread, objects collected]. CLOCK_MONOTONIC is
the machine's, so the bench can keep the rows of its measured window. The collector runs
with the GIL held: for its CPU time, no request of the process moves.
"""

from __future__ import annotations

import atexit
import gc
import json
import os
import runpy
import sys
import time


def main() -> None:
    out, module = sys.argv[1], sys.argv[2]
    rows: list[tuple[float, int, float, int]] = []
    began = [0.0]

    def record(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            began[0] = time.thread_time()
        else:
            spent = time.thread_time() - began[0]
            rows.append((time.monotonic(), info["generation"], spent, info["collected"]))

    def dump() -> None:
        with open(out, "w") as f:
            json.dump(rows, f)

    gc.callbacks.append(record)
    atexit.register(dump)
    sys.path.insert(0, os.getcwd())  # the checkout's packages, as `python -m` there finds them
    sys.argv = [module, *sys.argv[3:]]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
