#!/usr/bin/env python3
"""Run the whole stack in the foreground: lobby, game, relay, bot dispatcher, scheduler,
the bots' Celery workers, one per queue (cheap levels; mcts), the notifier and the webhook
deliveries' worker. A development stack may send webhooks to local receivers (plain http,
loopback and private addresses), unless WEBHOOK_ALLOW_PRIVATE / WEBHOOK_ALLOW_HTTP say 0.

Used by `make run` and by the end-to-end tests. Ctrl-C (or SIGTERM) stops every process;
if one process dies, the others are stopped too, so a broken stack never looks healthy.
PostgreSQL and Redis: DATABASE_URL / REDIS_URL (or the default address) where a server
answers, else the machine's own started, else embedded servers from pip packages with
their data in `.embedded/`, stopped last (infra/servers/embedded.py; TURNPOST_SERVERS forces one).
Without TURNPOST_SECRET or TURNPOST_KEYS, every process gets this checkout's own secret
(`.turnpost/secret`, made once, git-ignored), so a development stack is not forgeable either.

Rate limits: a development stack's are relaxed (DEVELOPMENT_LIMITS, still counted: someone
trying the API registers more players in ten minutes than production's 20 an hour per
address); RATE_LIMITS=production keeps infra/settings.py's, and a RATE_LIMIT_* set wins.

Metrics: the lobby and the game answer GET /metrics on their own port; every other process
gets a METRICS_PORT of its own, from METRICS_PORT_BASE (9101) on, a free one where that is
taken (another stack on this machine), printed at start; METRICS_PORT_BASE=0: none. The mcts
worker's prefork children count in a temporary PROMETHEUS_MULTIPROC_DIR (infra/observability/metrics.py).
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PY = sys.executable


def worker(queue: str, pool: str, concurrency: str, app: str = "services.bots.worker") -> list[str]:
    """A Celery worker that takes only `queue`'s tasks (infra/tasks.py)."""
    return [
        PY,
        "-m",
        "celery",
        "-A",
        app,
        "worker",
        "--queues",
        queue,
        "--pool",
        pool,
        "--concurrency",
        concurrency,
        "--loglevel",
        os.environ.get("LOG_LEVEL", "INFO").lower(),
        "--hostname",
        f"{queue}-{os.getpid()}@%h",
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
    ]


PROCESSES = {
    "lobby": [PY, "-m", "services.lobby"],
    "game": [PY, "-m", "services.game"],
    "relay": [PY, "-m", "services.game.relay"],
    "dispatcher": [PY, "-m", "services.bots.dispatcher"],
    "scheduler": [PY, "-m", "services.game.scheduler"],
    # random and greedy: cheap moves, one process does them all (tests/bench/bots.py)
    "worker": worker(
        "bots", os.environ.get("BOT_POOL", "solo"), os.environ.get("BOT_CONCURRENCY", "1")
    ),
    # mcts: seconds of CPU a move, apart so that it never holds up a cheap move
    "worker-mcts": worker(
        "bots-mcts",
        os.environ.get("BOT_SEARCH_POOL", "prefork"),
        os.environ.get("BOT_SEARCH_CONCURRENCY", "1"),
    ),
    # expert: 4-20 s a move, apart so that an mcts turn never waits behind one
    "worker-expert": worker(
        "bots-expert",
        os.environ.get("BOT_SEARCH_POOL", "prefork"),
        os.environ.get("BOT_EXPERT_CONCURRENCY", "1"),
    ),
    # webhooks: the notifier derives and enqueues, the worker delivers (waits on the network:
    # threads, many)
    "notifier": [PY, "-m", "services.notifier"],
    "webhooks": worker("webhooks", "threads", "16", app="services.notifier.worker"),
}


# RATE_LIMIT_* under `make run`, each well above production's (infra/settings.py)
DEVELOPMENT_LIMITS = {
    "RATE_LIMIT_REGISTER": "600/minute",  # production: 20/hour per address
    "RATE_LIMIT_ACTION": "1200/minute",
    "RATE_LIMIT_CHAT": "600/minute",  # production: 10/minute per player
    "RATE_LIMIT_WRITE": "600/minute",
    "RATE_LIMIT_READ": "6000/minute",
}


def development_limits(env: dict[str, str]) -> str:
    """Relax `env`'s rate limits for development (those it sets itself are kept) unless
    RATE_LIMITS=production; the line that says which limits the stack runs with."""
    if env.get("RATE_LIMITS", "").strip().lower() == "production":
        return "turnpost: production rate limits (infra/settings.py), as RATE_LIMITS asks"
    relaxed = {k: v for k, v in DEVELOPMENT_LIMITS.items() if k not in env}
    env.update(relaxed)
    if not relaxed:
        return "turnpost: the rate limits RATE_LIMIT_* set"
    named = ", ".join(f"{k.removeprefix('RATE_LIMIT_').lower()} {v}" for k, v in relaxed.items())
    return (
        f"turnpost: rate limits relaxed for development ({named}); production's:"
        " RATE_LIMITS=production make run"
    )


HTTP = ("lobby", "game")  # their metrics are on their own port: GET /metrics
MULTIPROCESS = ("worker-mcts", "worker-expert")  # prefork pools: children count in files


def _free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def metrics_ports(names: list[str], base: int) -> dict[str, int]:
    """A metrics port for each process but the HTTP services: base, base+1, ... in order,
    or a free one where that one is taken; none when base is 0."""
    if not base:
        return {}
    from infra.servers.local import free_port  # never one port twice

    wanted = [n for n in names if n not in HTTP]
    return {
        name: port if _free(port) else free_port()
        for name, port in zip(wanted, range(base, base + len(wanted)), strict=True)
    }


def checkout_secret(root: str) -> str:
    """This checkout's token secret: made once (48 random bytes), kept in an ignored file."""
    path = Path(root) / ".turnpost" / "secret"
    path.parent.mkdir(mode=0o700, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text().strip()
    with os.fdopen(fd, "w") as f:
        f.write(secrets.token_urlsafe(48) + "\n")
    print(f"turnpost: made a signing secret for this checkout in {path}", flush=True)
    return path.read_text().strip()


def interrupted(*_: object) -> None:
    raise KeyboardInterrupt


def main() -> int:
    from infra.servers.embedded import NoServer, development

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    # Until the processes run, SIGTERM stops like Ctrl-C: the servers started so far too.
    signal.signal(signal.SIGTERM, interrupted)
    try:
        with development(Path(root)) as servers:
            return run({**os.environ, **servers}, root)
    except NoServer as exc:
        print(f"turnpost: {exc}", file=sys.stderr, flush=True)
        return 1
    except KeyboardInterrupt:
        print("turnpost: stopped", flush=True)
        return 130


def run(environ: dict[str, str], root: str) -> int:
    env = {**environ, "PYTHONUNBUFFERED": "1"}
    env.setdefault("WEBHOOK_ALLOW_PRIVATE", "1")
    env.setdefault("WEBHOOK_ALLOW_HTTP", "1")
    # Text lines for the person watching (the ids after each message); LOG_FORMAT=json for
    # the lines compose and Kubernetes write.
    env.setdefault("LOG_FORMAT", "text")
    print(development_limits(env), flush=True)
    # the web client (clients/web, the lobby's /play/) calls the game service on its own port
    env.setdefault("WEB_GAME_URL", f"http://127.0.0.1:{env.get('GAME_PORT', '8020')}")
    if not env.get("TURNPOST_SECRET") and not env.get("TURNPOST_KEYS", "").strip():
        env["TURNPOST_SECRET"] = checkout_secret(root)
    # Migrate once before the services start, so they do not race to do it.
    subprocess.run([PY, "-m", "infra.servers.migrate"], cwd=root, env=env, check=True)
    ports = metrics_ports(list(PROCESSES), int(env.get("METRICS_PORT_BASE", "9101")))
    counts = tempfile.mkdtemp(prefix="turnpost-metrics-")  # prefork children's counts
    try:
        return _run(env, root, ports, counts)
    finally:
        shutil.rmtree(counts, ignore_errors=True)


def _run(env: dict[str, str], root: str, ports: dict[str, int], counts: str) -> int:
    def env_of(name: str) -> dict[str, str]:
        own = {"METRICS_PORT": str(ports.get(name, 0))}
        if name in MULTIPROCESS:
            own["PROMETHEUS_MULTIPROC_DIR"] = counts
        return {**env, **own}

    procs = {
        name: subprocess.Popen(cmd, cwd=root, env=env_of(name), start_new_session=True)
        for name, cmd in PROCESSES.items()
    }
    http = {"lobby": env.get("LOBBY_PORT", "8010"), "game": env.get("GAME_PORT", "8020")}
    shown = [f"{n} :{port}" for n, port in (http | ports).items()]
    print(f"turnpost: metrics (GET /metrics) on 127.0.0.1: {', '.join(shown)}", flush=True)
    stopping = False

    def stop(*_: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    print(f"turnpost: {', '.join(procs)} started; Ctrl-C stops them", flush=True)
    print(f"turnpost: play in a browser at http://127.0.0.1:{http['lobby']}/play/", flush=True)
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
