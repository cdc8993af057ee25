#!/usr/bin/env python3
"""Run the whole stack in the foreground: lobby, game, relay, bot dispatcher, scheduler,
Celery worker.

Used by `make run` and by the end-to-end tests. Ctrl-C (or SIGTERM) stops every process;
if one process dies, the others are stopped too, so a broken stack never looks healthy.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

PY = sys.executable
PROCESSES = {
    "lobby": [PY, "-m", "services.lobby"],
    "game": [PY, "-m", "services.game"],
    "relay": [PY, "-m", "services.game.relay"],
    "dispatcher": [PY, "-m", "services.bots.dispatcher"],
    "scheduler": [PY, "-m", "services.game.scheduler"],
    "worker": [
        PY,
        "-m",
        "celery",
        "-A",
        "services.bots.worker",
        "worker",
        "--loglevel",
        os.environ.get("LOG_LEVEL", "INFO").lower(),
        "--concurrency",
        os.environ.get("BOT_CONCURRENCY", "2"),
        "--hostname",
        f"bots-{os.getpid()}@%h",
        "--without-gossip",
        "--without-mingle",
    ],
}


def main() -> int:
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    # Migrate once before the services start, so they do not race to do it.
    subprocess.run([PY, "-m", "infra.migrate"], cwd=root, env=env, check=True)
    procs = {
        name: subprocess.Popen(cmd, cwd=root, env=env, start_new_session=True)
        for name, cmd in PROCESSES.items()
    }
    stopping = False

    def stop(*_: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    print(f"turnpost: {', '.join(procs)} started; Ctrl-C stops them", flush=True)
    code = 0
    while not stopping:
        for name, p in procs.items():
            if p.poll() is not None:
                print(f"turnpost: {name} exited with {p.returncode}; stopping the rest", flush=True)
                stopping, code = True, 1
                break
        time.sleep(0.2)
    for p in procs.values():
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGTERM)
    deadline = time.monotonic() + 15
    for name, p in procs.items():
        try:
            p.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            print(f"turnpost: {name} did not stop in time; killing it", flush=True)
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    print("turnpost: stopped", flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
