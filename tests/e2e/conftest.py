"""The whole stack as `make run` starts it (deploy/stack.py), on free ports, for one test run."""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from infra.servers.local import free_port as _free_port
from tests.conftest import RUN_ID, fresh_database

ROOT = Path(__file__).resolve().parents[2]


def wait_for(check: Any, what: str, seconds: float = 60) -> Any:
    """Poll `check` until it returns something true (returned), or fail after `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if result := check():
            return result
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


class Stack:
    def __init__(self, lobby: str, game: str, log: Path) -> None:
        self.lobby, self.game, self.log = lobby, game, log


@pytest.fixture(scope="session")
def stack(
    admin_dsn: str, redis_url: str, stream_prefix: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    with fresh_database(admin_dsn, f"turnpost_e2e_{RUN_ID}") as database_url:
        yield from _run_stack(database_url, redis_url, stream_prefix, tmp_path_factory)


def _run_stack(
    database_url: str, redis_url: str, stream_prefix: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    lobby_port, game_port = _free_port(), _free_port()
    log = tmp_path_factory.mktemp("stack") / "stack.log"
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("TURNPOST_POSTGRES", "TURNPOST_REDIS")},
        # the servers chosen for this run (tests/conftest.py), whatever TURNPOST_SERVERS said
        "TURNPOST_SERVERS": "auto",
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "STREAM_PREFIX": f"{stream_prefix}e2e:",
        "LOBBY_PORT": str(lobby_port),
        "GAME_PORT": str(game_port),
        "TURNPOST_SECRET": secrets.token_urlsafe(48),  # this stack's own
        "LOG_LEVEL": "WARNING",
        "BOT_RESEND_AFTER_S": "3",
        "TIMEOUT_RESEND_AFTER_S": "2",
        # the tests play faster than any person: limits far above the defaults (still counted)
        "RATE_LIMIT_REGISTER": "10000/minute",
        "RATE_LIMIT_ACTION": "10000/minute",
        "RATE_LIMIT_CHAT": "10000/minute",
        "RATE_LIMIT_WRITE": "10000/minute",
        "RATE_LIMIT_READ": "10000/minute",
        # the example game of the test tree, served beside ours (tests/e2e/test_example_game.py)
        "TURNPOST_GAMES": "tests.example_game",
    }
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "deploy/stack.py"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    stack = Stack(f"http://127.0.0.1:{lobby_port}", f"http://127.0.0.1:{game_port}", log)
    try:
        deadline = time.monotonic() + 60
        for url in (stack.lobby, stack.game):
            while True:
                if proc.poll() is not None:
                    pytest.fail(f"the stack exited at start:\n{log.read_text()[-4000:]}")
                try:
                    if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    pytest.fail(f"the stack did not come up:\n{log.read_text()[-4000:]}")
                time.sleep(0.2)
        yield stack
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
