"""The servers of this machine: what answers at an address (a PostgreSQL, a Redis), free
ports, waiting for a server to come up, and the installed PostgreSQL and Redis started
(steps 1 and 2 of the order in infra/servers/embedded.py). Standard library only, as
embedded.py is.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

DEFAULT_DATABASE_URL = "postgresql://postgres@127.0.0.1:5432/turnpost"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
MODES = ("auto", "local", "embedded")


class NoServer(RuntimeError):
    """No server could be had in the order the mode allows."""


def say(message: str) -> None:
    print(f"turnpost: {message}", flush=True)


def mode(which: str) -> str:
    """auto, local or embedded for `postgres` or `redis`: TURNPOST_POSTGRES / TURNPOST_REDIS,
    else TURNPOST_SERVERS, else auto."""
    value = (
        os.environ.get(f"TURNPOST_{which.upper()}") or os.environ.get("TURNPOST_SERVERS") or "auto"
    ).lower()
    if value not in MODES:
        raise NoServer(
            f"TURNPOST_{which.upper()} / TURNPOST_SERVERS must be one of {', '.join(MODES)}, "
            f"not {value!r}"
        )
    return value


# -- is anything there? ------------------------------------------------------------------


def _address(url: str, default_port: int) -> tuple[str, int]:
    parts = urlsplit(url)
    return parts.hostname or "127.0.0.1", parts.port or default_port


def postgres_answers(url: str, timeout: float = 1.0) -> bool:
    """A PostgreSQL server answers at url's host and port (an SSLRequest, answered S or N)."""
    try:
        with socket.create_connection(_address(url, 5432), timeout=timeout) as s:
            s.settimeout(timeout)
            s.sendall((8).to_bytes(4, "big") + (80877103).to_bytes(4, "big"))
            return s.recv(1) in (b"S", b"N")
    except OSError:
        return False


def redis_answers(url: str, timeout: float = 1.0) -> bool:
    """A Redis answers PING at url's host and port (-NOAUTH, a Redis wanting a password, too).
    A rediss:// (TLS) address is only connected to."""
    try:
        with socket.create_connection(_address(url, 6379), timeout=timeout) as s:
            if urlsplit(url).scheme == "rediss":
                return True
            s.settimeout(timeout)
            s.sendall(b"PING\r\n")
            return s.recv(1) in (b"+", b"-")
    except OSError:
        return False


def port_free(port: int) -> bool:
    """Nothing listens on 127.0.0.1:port (a closed connection's TIME_WAIT does not count:
    the servers bind with SO_REUSEADDR as well)."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


_handed_out: set[int] = set()


def free_port() -> int:
    """A port nothing listens on now, and none this process handed out before: the kernel
    may give the same port to two calls in a row, the first socket being closed, and two
    servers told one port then race for it."""
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        if port not in _handed_out:
            _handed_out.add(port)
            return port


def wait_until(
    check: Callable[[], bool], seconds: float, what: str, log: Path | None = None
) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            tail = log.read_text(errors="replace")[-3000:] if log and log.exists() else ""
            raise NoServer(f"{what} did not come up within {seconds:.0f} s\n{tail}")
        time.sleep(0.02)


# -- the local servers (installed on this machine) ----------------------------------------


def start_local_postgres() -> bool:
    """Start Debian's clusters (pg_ctlcluster) if installed; True once 5432 answers."""
    if postgres_answers(DEFAULT_DATABASE_URL):
        return True
    if not (shutil.which("pg_ctlcluster") and os.path.isdir("/etc/postgresql")):
        return False
    say("starting the local PostgreSQL (pg_ctlcluster)")
    for version in sorted(os.listdir("/etc/postgresql")):
        subprocess.run(
            ["pg_ctlcluster", "--skip-systemctl-redirect", version, "main", "start"],
            check=False,
            capture_output=True,
        )
    with contextlib.suppress(NoServer):
        wait_until(lambda: postgres_answers(DEFAULT_DATABASE_URL), 30, "the local PostgreSQL")
    return postgres_answers(DEFAULT_DATABASE_URL)


def start_local_redis() -> bool:
    """Start the machine's redis-server on 6379 if installed; True once 6379 answers."""
    if redis_answers(DEFAULT_REDIS_URL):
        return True
    server = shutil.which("redis-server")
    if not server:
        return False
    say("starting the local Redis (redis-server)")
    folder = Path("/var/lib/redis") if os.geteuid() == 0 else Path(tempfile.gettempdir())
    with contextlib.suppress(OSError):
        folder.mkdir(parents=True, exist_ok=True)
    log = Path("/var/log/redis/turnpost.log") if os.geteuid() == 0 else folder / "turnpost.log"
    with contextlib.suppress(OSError):
        log.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            *(server, "--daemonize", "yes", "--bind", "127.0.0.1", "-::1", "--port", "6379"),
            *("--save", "", "--appendonly", "no", "--dir", str(folder), "--logfile", str(log)),
        ],
        check=False,
        capture_output=True,
    )
    with contextlib.suppress(NoServer):
        wait_until(lambda: redis_answers(DEFAULT_REDIS_URL), 30, "the local Redis")
    return redis_answers(DEFAULT_REDIS_URL)
