"""Every process that signs or verifies refuses forgeable secrets at start, outside
development mode; in development mode it starts, with a loud warning."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from infra.auth.keys import KNOWN_DEFAULTS
from tests.conftest import RUN_ID, fresh_database

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable
PROCESSES = {
    "lobby": [PY, "-m", "services.lobby"],
    "game": [PY, "-m", "services.game"],
    "scheduler": [PY, "-m", "services.game.scheduler"],
    "worker": [
        *(PY, "-m", "celery", "-A", "services.bots.worker", "worker", "--concurrency", "1"),
        *("--loglevel", "warning", "--without-gossip", "--without-mingle"),
    ],
}
FORGEABLE = [
    *({"TURNPOST_SECRET": default} for default in KNOWN_DEFAULTS),
    {"TURNPOST_SECRET": "x" * 31},
    {},  # none at all
    {"TURNPOST_KEYS": f"new:{'n' * 40},old:dev-secret-change-me"},
]


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def own_database(admin_dsn: str) -> Iterator[str]:
    """The scheduler started here scans its database: not the one other tests' games are in."""
    with fresh_database(admin_dsn, f"turnpost_startup_{RUN_ID}") as url:
        yield url


@pytest.fixture
def base_env(own_database: str, redis_url: str, stream_prefix: str) -> dict[str, str]:
    unset = ("TURNPOST_SECRET", "TURNPOST_KEYS", "TURNPOST_DEV", "TURNPOST_STREAM_KEY")
    return {
        **{k: v for k, v in os.environ.items() if k not in unset},
        "DATABASE_URL": own_database,
        "REDIS_URL": redis_url,
        "STREAM_PREFIX": f"{stream_prefix}startup:",
        "LOBBY_PORT": str(_port()),
        "GAME_PORT": str(_port()),
        "LOG_LEVEL": "WARNING",
    }


@pytest.mark.parametrize("process", list(PROCESSES))
def test_a_forgeable_secret_stops_the_process_at_start(
    process: str, base_env: dict[str, str]
) -> None:
    procs = [
        subprocess.Popen(
            PROCESSES[process],
            cwd=ROOT,
            env={**base_env, **case},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for case in FORGEABLE
    ]
    for case, proc in zip(FORGEABLE, procs, strict=True):
        try:
            _, err = proc.communicate(timeout=60)
        finally:
            proc.kill()
        assert proc.returncode == 2, (case, err.decode()[-2000:])
        assert b"turnpost: refusing to start:" in err and b"TURNPOST_DEV=1" in err, case
        for secret in case.values():
            assert secret.encode() not in err  # the reason names the key, never its secret


def test_in_development_mode_the_services_start_and_warn(
    base_env: dict[str, str], tmp_path: Path
) -> None:
    env = {**base_env, "TURNPOST_DEV": "1", "TURNPOST_SECRET": "CHANGE-ME"}
    started = {}
    for name in ("lobby", "game", "scheduler"):
        log = open(tmp_path / f"{name}.log", "wb")  # closed below
        started[name] = (
            subprocess.Popen(
                PROCESSES[name],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            ),
            log,
        )
    try:
        for name, port in (("lobby", env["LOBBY_PORT"]), ("game", env["GAME_PORT"])):
            deadline = time.monotonic() + 60
            while True:
                assert started[name][0].poll() is None, (tmp_path / f"{name}.log").read_text()
                try:
                    if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).is_success:
                        break
                except httpx.HTTPError:
                    pass
                assert time.monotonic() < deadline, f"{name} did not come up"
                time.sleep(0.2)
        assert started["scheduler"][0].poll() is None
    finally:
        for proc, log in started.values():
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(20)
            log.close()
    for name in started:
        assert "DEVELOPMENT MODE" in (tmp_path / f"{name}.log").read_text(), name
