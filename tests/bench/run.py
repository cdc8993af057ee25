#!/usr/bin/env python3
"""Turnpost benchmark (`make bench`): one figure per line, `name value unit`.

What it measures, all in one run against the local Postgres and Redis:

1. POST /v1/games/{id}/actions through a real game service subprocess, at 16 and 64
   concurrent clients (one coroutine per game, each playing its own itty-bitty game with
   random legal actions): actions/s and p50/p99 latency of the POST alone.
2. The baseline: raw single-row autocommit INSERTs through asyncpg at the same
   concurrency, and the ratio post_action_rate / insert_rate.
3. The engine alone: random itty-bitty playouts per second (3 seats, in process).
4. Rebuild time of one long game through GameService.load: cold from the events, and
   from a snapshot at the last version.
5. The progress guarantee (tests/bench/clocks.py): deadline lateness with 1,000 clocked
   games in flight.
6. The bot path (tests/bench/bots.py): a bot's turn through the real path per game and
   level, p50/p99; the bot load run (1, 10, 40 tables of a person and three greedy bots):
   bot reply p50/p99 and CPU per bot move by process; one worker process's moves per second
   by pool setting, against Celery's own floor.
7. Webhooks (tests/bench/webhooks.py): delivery latency from the event's commit to the
   receiver, p50/p99, through the relay, the notifier and the webhook worker.
8. Live feeds (tests/bench/sse.py): 1,000 idle SSE subscribers of one game on one game
   service process: its memory growth, and the time from a move's POST to the last
   subscriber having its event, p50/p99 (subscribers in two processes of their own).
9. The whole stack (tests/bench/stack_cost.py): CPU per move of every process `make run`
   starts, Postgres and Redis, at 16 clients; against BENCH_STACK_BASE's stack if set.
10. Players' records (tests/bench/records.py): leaderboard, history and profile pages with
   100,000 players and 1,000,000 finished games, p50/p99; finished games rated per second.

It makes its own database (dropped at the end, also on failure) and its own Redis stream
prefix (deleted at the end). Not a test: it asserts nothing, it reports.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import platform
import re
import secrets
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import asyncpg  # noqa: E402
import httpx  # noqa: E402
import msgspec  # noqa: E402

from contracts.game import SeatInfo  # noqa: E402
from contracts.streams import LOBBY, RoomStarted, StartedSeat  # noqa: E402
from games.api import fold  # noqa: E402
from games.registry import get as get_rules  # noqa: E402
from games.table import snapshot_schema  # noqa: E402
from games.testing import random_playout  # noqa: E402
from infra.auth.bearer import issue  # noqa: E402
from infra.auth.keys import SigningKey  # noqa: E402
from infra.eventstore import NewEvent, Snapshot  # noqa: E402
from infra.eventstore.postgres import PostgresEventStore  # noqa: E402
from infra.servers.local import free_port  # noqa: E402
from infra.servers.migrate import migrate  # noqa: E402
from infra.streams.redis import RedisStreams  # noqa: E402
from services.game.commands import game_id_for_room  # noqa: E402
from services.game.live import Waiters  # noqa: E402
from services.game.repository import GameRecord, PostgresGamesRepository, stream_id  # noqa: E402
from services.game.service import GameService  # noqa: E402
from tests.bench import bots, clocks, records, sse, stack_cost, webhooks  # noqa: E402
from tests.bench.actions_load import LevelStats, begin, play, refill, results, spawn  # noqa: E402
from tests.bench.bots import _session_ticks  # noqa: E402
from tests.bench.proc import backend_ticks as _backend_ticks  # noqa: E402
from tests.bench.proc import postgres_ticks as _postgres_ticks  # noqa: E402
from tests.bench.proc import ticks as _ticks  # noqa: E402

ADMIN_DSN = os.environ.get("BENCH_ADMIN_DSN", "postgresql://postgres@127.0.0.1:5432/postgres")
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")
SECRET = secrets.token_urlsafe(48)  # this run's own
GAME = "itty-bitty"

LEVELS = [(16, 64), (64, 128)]  # (concurrent clients, games prepared ahead)
WARMUP_S = float(os.environ.get("BENCH_WARMUP_S", "2"))
MEASURE_S = float(os.environ.get("BENCH_MEASURE_S", "15"))
INSERT_WARMUP_S = 1.0
INSERT_MEASURE_S = float(os.environ.get("BENCH_INSERT_S", "8"))
ENGINE_S = 5.0
REBUILD_REPS = 20
REBUILD_SEEDS = 150  # 4-seat random games searched for a long one (~20 ms each)
REBUILD_TARGET = 1_000

RUN = uuid.uuid4().hex[:8]
_json = msgspec.json.Encoder()
_decode = msgspec.json.decode


def out(name: str, value: Any, unit: str = "") -> None:
    if isinstance(value, float):
        value = f"{value:.3f}" if abs(value) < 10 else f"{value:.1f}"
    print(f"{name} {value} {unit}".rstrip(), flush=True)


def note(text: str) -> None:
    print(f"# {text}", file=sys.stderr, flush=True)


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


# -- CPU accounting (Linux /proc), to say who was busy during a measurement --------------


def _machine_ticks() -> tuple[int, int]:
    """(busy, total) jiffies of the whole machine, from /proc/stat."""
    try:
        with open("/proc/stat") as f:
            vals = [int(v) for v in f.readline().split()[1:9]]
    except (OSError, ValueError):
        return 0, 0
    idle = vals[3] + vals[4]  # idle + iowait
    return sum(vals) - idle, sum(vals)


class CpuMeter:
    """Ticks of this process, the game service (its session: uvicorn's workers with it), every
    Postgres process, the load generator's processes (`clients`, set per level) and the
    machine."""

    HZ = os.sysconf("SC_CLK_TCK")

    def __init__(self, server_pid: int | None, database: str = "") -> None:
        self.server_pid = server_pid
        self.clients: list[int] = []
        self.database = database  # its backends' ticks apart: other work's queries not counted

    def sample(self) -> tuple[float, ...]:
        t = os.times()
        busy, _ = _machine_ticks()
        server = 0
        if self.server_pid:
            server = _session_ticks().get(self.server_pid, 0) or _ticks(self.server_pid)
        return (
            time.monotonic(),
            t.user + t.system + sum(_ticks(pid) for pid in self.clients) / self.HZ,
            server / self.HZ,
            _postgres_ticks() / self.HZ,
            busy / self.HZ,
            _backend_ticks(self.database) / self.HZ if self.database else 0.0,
        )

    @staticmethod
    def report(
        prefix: str, a: tuple[float, ...], b: tuple[float, ...], with_server: bool
    ) -> list[float]:
        """CPU use in % of one core (the machine has os.cpu_count() * 100 %).

        `_cpu_bench_client`: the benchmark's own processes, its load generator included."""
        wall = b[0] - a[0]
        mine = [100 * (b[i] - a[i]) / wall for i in range(1, 4)]
        machine = 100 * (b[4] - a[4]) / wall
        out(f"{prefix}_cpu_bench_client", mine[0], "%")
        if with_server:
            out(f"{prefix}_cpu_game_service", mine[1], "%")
        out(f"{prefix}_cpu_postgres", mine[2], "%")
        out(f"{prefix}_cpu_machine_busy", machine, f"% of {100 * (os.cpu_count() or 1)}")
        out(
            f"{prefix}_cpu_other_processes", max(0.0, machine - sum(mine)), "% (not this benchmark)"
        )
        return mine


# -- database and service ------------------------------------------------------------------


async def create_database(what: str = "") -> tuple[str, str]:
    name = f"turnpost_bench_{RUN}{'_' + what if what else ''}"
    admin = await asyncpg.connect(ADMIN_DSN)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    dsn = f"{ADMIN_DSN.rsplit('/', 1)[0]}/{name}"
    conn = await asyncpg.connect(dsn)
    try:
        await migrate(conn)
        await conn.execute(
            """CREATE TABLE bench_rows (
                   id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                   k text NOT NULL,
                   v jsonb NOT NULL,
                   at timestamptz NOT NULL DEFAULT now())"""
        )
    finally:
        await conn.close()
    return name, dsn


@contextlib.asynccontextmanager
async def own_database(what: str) -> Any:
    """A migrated database for one phase alone: a phase's processes (a fresh relay, a
    scheduler) read what another left in a shared one, a relay from its start (measured: the
    webhook phase's relay first published the action phase's 196,272 events again, and its
    commit -> receiver p50 read 2.6 s instead of 60 ms)."""
    name, dsn = await create_database(what)
    try:
        yield dsn
    finally:
        await drop_database(name)


async def drop_database(name: str) -> None:
    admin = await asyncpg.connect(ADMIN_DSN)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()


class Service:
    """`python -m services.game` as a subprocess in its own session."""

    def __init__(
        self,
        dsn: str,
        prefix: str,
        workers: int = 1,
        root: Path = ROOT,
        gc_out: Path | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        """gc_out: run under tests/bench/gc_probe.py, its collections written there; env:
        settings of its own (tests/bench/compare_actions.py --base-env)."""
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.workers = workers
        self.log = Path(tempfile.gettempdir()) / f"turnpost-bench-{RUN}-game-w{workers}.log"
        env = {
            **os.environ,
            "DATABASE_URL": dsn,
            "REDIS_URL": REDIS_URL,
            "STREAM_PREFIX": prefix,
            "GAME_PORT": str(self.port),
            "TURNPOST_SECRET": SECRET,
            "LOG_LEVEL": "WARNING",
            "PYTHONUNBUFFERED": "1",
            # clients far faster than a person's: limits far above the defaults, still counted
            "RATE_LIMIT_ACTION": "1000000/minute",
            "RATE_LIMIT_READ": "1000000/minute",
            "GAME_WORKERS": str(workers),  # uvicorn worker processes, children of this one
            **(env or {}),
        }
        with open(self.log, "wb") as f:
            probe = (
                [str(ROOT / "tests" / "bench" / "gc_probe.py"), str(gc_out)] if gc_out else ["-m"]
            )
            self.proc = subprocess.Popen(
                [sys.executable, *probe, "services.game"],
                cwd=root,  # another checkout's service (tests/bench/compare_actions.py)
                env=env,
                stdout=f,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def tail(self, n: int = 4000) -> str:
        try:
            return self.log.read_text(errors="replace")[-n:]
        except OSError:
            return ""

    def alive(self) -> bool:
        return self.proc.poll() is None

    async def wait_healthy(self, seconds: float = 60) -> None:
        deadline = time.monotonic() + seconds
        async with httpx.AsyncClient(base_url=self.url, timeout=2) as http:
            while True:
                if not self.alive():
                    raise RuntimeError(f"game service exited at start:\n{self.tail()}")
                with contextlib.suppress(httpx.HTTPError):
                    if (await http.get("/health")).status_code == 200:
                        return
                if time.monotonic() > deadline:
                    raise RuntimeError(f"game service not healthy after {seconds}s:\n{self.tail()}")
                await asyncio.sleep(0.1)

    def stop(self) -> None:
        if self.proc.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def problems(self) -> tuple[int, int]:
        text = self.tail(10_000_000)
        errors = sum(1 for line in text.splitlines() if re.search(r"\b(ERROR|CRITICAL)\b", line))
        return text.count("Traceback"), errors


# -- games over REST ----------------------------------------------------------------------


@dataclass
class Game:
    id: str
    auth: list[dict[str, str]]


class Games:
    """Creates games by publishing RoomStarted on the lobby stream, hands out ready ones."""

    def __init__(
        self, streams: RedisStreams, prefix: str, url: str, tag: str = "", secret: str = SECRET
    ) -> None:
        self.streams = streams
        self.tag = tag  # keeps the rooms of several load processes apart
        self.key = SigningKey.from_secret(secret)
        self.stream = f"{prefix}{LOBBY}"
        self.url = url
        self.count = 0
        self.ready: asyncio.Queue[Game] = asyncio.Queue()
        self.creation_s: list[float] = []

    async def create(self, n: int, http: httpx.AsyncClient) -> list[Game]:
        made: list[Game] = []
        for _ in range(n):
            self.count += 1
            room = f"bench-{RUN}-{self.tag}{self.count}"
            players = [f"bench-{self.tag}{self.count}-{s}" for s in range(2)]
            msg = RoomStarted(
                room_id=room,
                game=GAME,
                seats=[
                    StartedSeat(seat=s, player_id=p, name=p, bot=None)
                    for s, p in enumerate(players)
                ],
            )
            await self.streams.publish(self.stream, _json.encode(msg))
            made.append(
                Game(
                    id=game_id_for_room(room),
                    auth=[{"authorization": f"Bearer {issue(self.key, p, p)}"} for p in players],
                )
            )
        started = time.monotonic()
        sem = asyncio.Semaphore(8)

        async def ready(g: Game) -> None:
            async with sem:
                deadline = time.monotonic() + 60
                while True:
                    r = await http.get(f"/v1/games/{g.id}", headers=g.auth[0])
                    if r.status_code == 200:
                        self.creation_s.append(time.monotonic() - started)
                        return
                    if r.status_code != 404 or time.monotonic() > deadline:
                        raise RuntimeError(f"game {g.id} not ready: {r.status_code} {r.text[:300]}")
                    await asyncio.sleep(0.05)

        await asyncio.gather(*(ready(g) for g in made))
        return made

    async def fill(self, n: int, http: httpx.AsyncClient) -> None:
        for g in await self.create(n, http):
            self.ready.put_nowait(g)


# The action levels' load generator: processes of their own (tests/bench/actions_load.py),
# each with its share of the clients, so the client's CPU does not starve the server on a
# small machine; BENCH_CLIENT=inproc runs them in this process' event loop as before.
CLIENT_MODE = os.environ.get("BENCH_CLIENT", "procs")
CLIENT_PROCS = int(os.environ.get("BENCH_CLIENT_PROCS", "2"))
WORKERS = int(os.environ.get("BENCH_GAME_WORKERS", "2"))  # the several-workers levels
CPU_PER_ACTION: dict[str, tuple[float, float]] = {}  # level -> (game service, Postgres) ms
# action cycles a second of the paced c16 level (the issue's 480: the service's saturation
# when the action path was first measured); 0 skips the level
PACE = float(os.environ.get("BENCH_PACE", "480"))
WINDOWS: dict[str, tuple[float, float]] = {}  # level -> its measured window, time.monotonic()


async def _inproc_clients(
    svc: Service,
    games: Games,
    clients: int,
    prepared: int,
    st: LevelStats,
    cpu: CpuMeter,
    pace: float = 0.0,
) -> tuple[float, float, dict[str, tuple[float, ...]]]:
    async with httpx.AsyncClient(base_url=svc.url, timeout=60) as http:
        t = time.monotonic()
        await games.fill(prepared, http)
        note(f"c{clients}: {prepared} games ready in {time.monotonic() - t:.1f}s")
        created_before = games.count
        warm_end = time.monotonic() + WARMUP_S
        end = warm_end + MEASURE_S
        marks: dict[str, tuple[float, ...]] = {}

        def alive() -> None:
            if not svc.alive():
                raise RuntimeError(f"game service died:\n{svc.tail()}")

        refiller = asyncio.create_task(refill(games, http, clients, end))
        metering = asyncio.create_task(_meter(cpu, warm_end, end, marks))
        try:
            await asyncio.gather(
                *(
                    play(i, svc.url, games.ready, st, warm_end, end, alive, note, pace / clients)
                    for i in range(clients)
                )
            )
        finally:
            refiller.cancel()
            await asyncio.gather(refiller, return_exceptions=True)
            await metering
        st.created = games.count - created_before
    return warm_end, end, marks


async def _meter(
    cpu: CpuMeter, warm_end: float, end: float, marks: dict[str, tuple[float, ...]]
) -> None:
    await asyncio.sleep(max(0.0, warm_end - time.monotonic()))
    marks["a"] = cpu.sample()
    await asyncio.sleep(max(0.0, end - time.monotonic()))
    marks["b"] = cpu.sample()


async def _process_clients(
    svc: Service,
    prefix: str,
    clients: int,
    prepared: int,
    st: LevelStats,
    cpu: CpuMeter,
    pace: float = 0.0,
) -> dict[str, tuple[float, ...]]:
    n = max(1, min(CLIENT_PROCS, clients))
    procs: list[asyncio.subprocess.Process] = []
    marks: dict[str, tuple[float, ...]] = {}
    t = time.monotonic()
    try:
        procs = await spawn(
            svc.url, REDIS_URL, prefix, SECRET, clients, prepared, CLIENT_PROCS,
            f"c{clients}w{svc.workers}", pace,
        )  # fmt: skip
        note(f"c{clients}: {prepared} games ready in {time.monotonic() - t:.1f}s ({n} processes)")
        cpu.clients = [p.pid for p in procs]
        warm_end, end = await begin(procs, WARMUP_S, MEASURE_S)
        metering = asyncio.create_task(_meter(cpu, warm_end, end, marks))
        while time.monotonic() < end:
            if not svc.alive():
                raise RuntimeError(f"game service died:\n{svc.tail()}")
            await asyncio.sleep(0.5)
        await metering
        await results(procs, st)
    finally:
        cpu.clients = []
        for proc in procs:
            if proc.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                await proc.wait()
    return marks


async def run_level(
    svc: Service,
    games: Games,
    clients: int,
    prepared: int,
    cpu: CpuMeter,
    mode: str = "",
    name: str = "",
    pace: float = 0.0,
) -> float:
    """One action level: `clients` clients playing for MEASURE_S after WARMUP_S.

    mode: "procs" (the load generator in processes of its own) or "inproc"; default
    BENCH_CLIENT. name: the figures' prefix (default post_action_c<clients>). pace: the
    clients' cycles a second together, each its share (0: each cycle as soon as the last
    is answered, the service's saturation; tests/bench/actions_load.play)."""
    mode = mode or CLIENT_MODE
    st = LevelStats()
    if mode == "inproc":
        _, _, cpu_marks = await _inproc_clients(svc, games, clients, prepared, st, cpu, pace)
    else:
        prefix = games.stream[: -len(LOBBY)]
        cpu_marks = await _process_clients(svc, prefix, clients, prepared, st, cpu, pace)
        games.creation_s += st.creation_s

    p = name or f"post_action_c{clients}"
    c = p.removeprefix("post_action_")  # c16, c16_w2, ...: the GET figures' suffix
    rate = len(st.post_ms) / MEASURE_S
    out(f"{p}_actions_per_s", rate, "actions/s")
    out(f"{p}_p50_ms", pct(st.post_ms, 0.50), "ms")
    out(f"{p}_p90_ms", pct(st.post_ms, 0.90), "ms")
    out(f"{p}_p99_ms", pct(st.post_ms, 0.99), "ms")
    out(f"{p}_p999_ms", pct(st.post_ms, 0.999), "ms")
    out(f"{p}_max_ms", max(st.post_ms, default=float("nan")), "ms")
    out(f"get_game_{c}_p50_ms", pct(st.get_game_ms, 0.50), "ms")
    out(f"get_game_{c}_p99_ms", pct(st.get_game_ms, 0.99), "ms")
    out(f"legal_actions_{c}_p50_ms", pct(st.legal_ms, 0.50), "ms")
    out(f"legal_actions_{c}_p99_ms", pct(st.legal_ms, 0.99), "ms")
    total_req = len(st.post_ms) + len(st.get_game_ms) + len(st.legal_ms)
    out(f"http_requests_{c}_per_s", total_req / MEASURE_S, "req/s")
    out(f"{p}_non_200", sum(n for s, n in st.statuses.items() if s != 200), "responses")
    out(f"{p}_games_finished", st.finished, "games")
    out(f"{p}_games_created_during_run", st.created, "games")
    out(f"{p}_client_starved", st.starved_s, "client-s")
    out(f"{p}_client_processes", 0 if mode == "inproc" else min(CLIENT_PROCS, clients), "")
    out(f"{p}_game_service_workers", svc.workers, "")
    if st.errors:
        note(f"{p} errors: {st.errors}")
    if "a" in cpu_marks and "b" in cpu_marks:
        WINDOWS[p] = (cpu_marks["a"][0], cpu_marks["b"][0])
        used = cpu.report(p, cpu_marks["a"], cpu_marks["b"], with_server=True)
        if rate:  # CPU time per action (its GET game + GET legal-actions + POST): load-proof
            out(f"{p}_game_service_cpu_per_action", used[1] * 10 / rate, "ms (3 requests)")
            out(f"{p}_postgres_cpu_per_action", used[2] * 10 / rate, "ms")
            CPU_PER_ACTION[p] = (used[1] * 10 / rate, used[2] * 10 / rate)
            out(f"{p}_bench_client_cpu_per_action", used[0] * 10 / rate, "ms (load generator)")
            if cpu.database:
                own = (
                    100
                    * (cpu_marks["b"][5] - cpu_marks["a"][5])
                    / (cpu_marks["b"][0] - cpu_marks["a"][0])
                )
                out(
                    f"{p}_postgres_backends_cpu_per_action",
                    own * 10 / rate,
                    "ms (this database's backends only)",
                )
        req_rate = total_req / MEASURE_S
        if req_rate:
            out(f"{p}_game_service_cpu_per_request", used[1] * 10 / req_rate, "ms")
            out(f"{p}_postgres_cpu_per_request", used[2] * 10 / req_rate, "ms")
    return rate


def _ratio(level: str, base: str, what: str) -> None:
    """CPU per action of `level` over `base`'s, measured in the same run."""
    if level in CPU_PER_ACTION and base in CPU_PER_ACTION:
        (g, pg), (g0, pg0) = CPU_PER_ACTION[level], CPU_PER_ACTION[base]
        nan = float("nan")
        out(f"{base}_game_service_cpu_per_action_{what}_ratio", g / g0 if g0 else nan, "x")
        out(f"{base}_postgres_cpu_per_action_{what}_ratio", pg / pg0 if pg0 else nan, "x")


# -- baseline: raw inserts --------------------------------------------------------------


async def insert_rate(dsn: str, conc: int, cpu: CpuMeter) -> float:
    pool = await asyncpg.create_pool(dsn, min_size=conc, max_size=conc)
    lat: list[float] = []
    payload = '{"type": "ittybit_taken", "seat": 1, "slot": 2, "card": "ittybit-0287"}'
    try:
        start = time.monotonic()
        warm_end = start + INSERT_WARMUP_S
        end = warm_end + INSERT_MEASURE_S
        marks: dict[str, tuple[float, ...]] = {}

        async def meter() -> None:
            await asyncio.sleep(max(0.0, warm_end - time.monotonic()))
            marks["a"] = cpu.sample()
            await asyncio.sleep(max(0.0, end - time.monotonic()))
            marks["b"] = cpu.sample()

        async def worker(i: int) -> None:
            key = f"bench-{i}"
            while time.monotonic() < end:
                t0 = time.perf_counter()
                await pool.execute(
                    "INSERT INTO bench_rows (k, v) VALUES ($1, $2::jsonb)", key, payload
                )
                t1 = time.perf_counter()
                if warm_end <= time.monotonic() <= end:
                    lat.append((t1 - t0) * 1000)

        metering = asyncio.create_task(meter())
        await asyncio.gather(*(worker(i) for i in range(conc)))
        await metering
    finally:
        await pool.close()
    rate = len(lat) / INSERT_MEASURE_S
    p = f"pg_insert_c{conc}"
    out(f"{p}_rows_per_s", rate, "rows/s")
    out(f"{p}_p50_ms", pct(lat, 0.50), "ms")
    out(f"{p}_p99_ms", pct(lat, 0.99), "ms")
    used = cpu.report(p, marks["a"], marks["b"], with_server=False)
    if rate:
        out(f"{p}_postgres_cpu_per_row", used[2] * 10 / rate, "ms")
        if cpu.database:
            a, b = marks["a"], marks["b"]
            own = 100 * (b[5] - a[5]) / (b[0] - a[0])
            out(f"{p}_postgres_backends_cpu_per_row", own * 10 / rate, "ms (this database's)")
    return rate


# -- engine alone -------------------------------------------------------------------------


def engine_playouts() -> None:
    rules = get_rules(GAME)
    assert rules is not None
    games = steps = events = 0
    seed = 0
    start = time.perf_counter()
    while time.perf_counter() - start < ENGINE_S:
        p = random_playout(rules, seed, 3, keep_states=False)
        games += 1
        steps += p.steps
        events += len(p.events)
        seed += 1
    wall = time.perf_counter() - start
    out("engine_playouts_3p_per_s", games / wall, "playouts/s")
    out("engine_actions_3p_per_s", steps / wall, "actions/s")
    out("engine_events_3p_per_s", events / wall, "events/s")


# -- rebuild -----------------------------------------------------------------------------


# Itty bitty games end within ~500 events; Itchy Feet's run past 1,000, so the rebuild is
# measured on the first 1,000 events of one (a prefix of a game is a real position).
REBUILD_GAME = "itchy-feet"
REBUILD_OPTIONS = {
    "events": True,
    "special_items": True,
    "forbidden_items": True,
    "postcards": True,
}


async def rebuild(dsn: str) -> None:
    rules = get_rules(REBUILD_GAME)
    assert rules is not None
    options = msgspec.convert(REBUILD_OPTIONS, rules.options_type)
    best: list[Any] = []
    best_seed = -1
    seeds = 0
    while seeds < REBUILD_SEEDS and len(best) < REBUILD_TARGET:
        p = random_playout(rules, seeds, 4, options, keep_states=False)
        if len(p.events) > len(best):
            best, best_seed = p.events, seeds
        seeds += 1
    events = best[:REBUILD_TARGET]
    n = len(events)
    note(
        f"rebuild: {REBUILD_GAME}, longest 4-seat game in seeds 0..{seeds - 1}: "
        f"seed {best_seed}, {len(best)} events"
    )
    out(
        "rebuild_game_events",
        n,
        f"events ({REBUILD_GAME}, every extension, 4 seats; target {REBUILD_TARGET})",
    )
    final = fold(rules, events)

    pool = await asyncpg.create_pool(dsn, min_size=2, max_size=4)
    try:
        store = PostgresEventStore(pool)
        repo = PostgresGamesRepository(pool)
        ids = {}
        records = {}
        for label in ("plain", "snap"):
            gid = str(uuid.uuid4())
            records[label] = await repo.create(
                GameRecord(
                    id=gid,
                    room_id=None,
                    game=REBUILD_GAME,
                    seats=[
                        SeatInfo(seat=s, player_id=f"bench-rebuild-{label}-{s}") for s in range(4)
                    ],
                    options=REBUILD_OPTIONS,
                    timing={},
                    seed=1,
                )
            )
            new = [
                NewEvent(
                    event_id=uuid.uuid4(),
                    type=type(e).__struct_config__.tag,
                    data=msgspec.json.encode(e),
                    metadata={"seat": None, "batch": 1, "batch_end": True, "game": REBUILD_GAME},
                )
                for e in events
            ]
            for i in range(0, n, 100):  # as a game grows: many small appends
                await store.append(stream_id(gid), new[i : i + 100], i)
            ids[label] = gid
        # the service's snapshot layout: (engine state, table state)
        blob = msgspec.msgpack.encode((final, GameService.initial_table(records["snap"])))
        await store.save_snapshot(
            Snapshot(
                stream_id=stream_id(ids["snap"]),
                version=n,
                schema_ver=snapshot_schema(rules.state_type, rules.schema_version),
                state=blob,
            )
        )
        out("rebuild_snapshot_size", len(blob), "bytes")

        async def timed(gid: str) -> tuple[float, Any, int]:
            svc = GameService(store, repo, Waiters())  # empty cache: a cold load
            t0 = time.perf_counter()
            loaded = await svc.load(gid)
            return (time.perf_counter() - t0) * 1000, loaded.state, loaded.version

        results: dict[str, list[float]] = {"plain": [], "snap": []}
        for rep in range(REBUILD_REPS + 1):
            for label, gid in ids.items():
                ms, state, version = await timed(gid)
                if rep == 0:
                    if version != n or state != final:
                        note(
                            f"rebuild ({label}): loaded state differs from the fold "
                            f"(version {version}/{n})"
                        )
                        out(f"rebuild_{label}_state_matches", 0, "bool")
                    continue
                results[label].append(ms)

        # where the cold time goes: reading the rows, and decoding + folding them in process
        reads = []
        for _ in range(REBUILD_REPS):
            t0 = time.perf_counter()
            stored = await store.read(stream_id(ids["plain"]))
            reads.append((time.perf_counter() - t0) * 1000)
        decoder = msgspec.json.Decoder(rules.event_type)
        folds = []
        for _ in range(REBUILD_REPS):
            t0 = time.perf_counter()
            fold(rules, [decoder.decode(e.data) for e in stored])
            folds.append((time.perf_counter() - t0) * 1000)
    finally:
        await pool.close()

    plain = statistics.median(results["plain"])
    snap = statistics.median(results["snap"])
    out(
        f"rebuild_no_snapshot_{n}ev_ms",
        plain,
        "ms (median, GameService.load cold, incl. games row)",
    )
    out(
        "rebuild_no_snapshot_per_1000ev_ms",
        plain * REBUILD_TARGET / n,
        f"ms (normalised from {n} events)",
    )
    out(
        f"rebuild_no_snapshot_{n}ev_read_ms",
        statistics.median(reads),
        "ms (store.read of all rows)",
    )
    out(
        f"rebuild_no_snapshot_{n}ev_decode_fold_ms",
        statistics.median(folds),
        "ms (in process, no I/O)",
    )
    out(
        f"rebuild_snapshot_at_v{n}_ms",
        snap,
        "ms (median, GameService.load cold, snapshot at last version)",
    )
    out("rebuild_snapshot_speedup", plain / snap if snap else float("nan"), "x")


# -- main --------------------------------------------------------------------------------


async def cleanup_redis(prefix: str) -> None:
    import redis.asyncio as aioredis

    r = aioredis.Redis.from_url(REDIS_URL)
    try:
        keys = [k async for k in r.scan_iter(match=f"{prefix}*")]
        if keys:
            await r.delete(*keys)
    finally:
        await r.aclose()


async def action_levels(dsn: str, prefix: str, streams: RedisStreams) -> dict[int, float]:
    """The `post_action_*` levels on a game service of one worker (processes of clients,
    and c16 in process), then on one of BENCH_GAME_WORKERS; actions/s by clients (one
    worker)."""
    post_rates: dict[int, float] = {}
    svc: Service | None = None
    try:
        svc = Service(dsn, prefix)
        t = time.monotonic()
        await svc.wait_healthy()
        out("game_service_startup_s", time.monotonic() - t, "s")
        cpu = CpuMeter(svc.proc.pid, dsn.rsplit("/", 1)[1])
        games = Games(streams, prefix, svc.url)
        for clients, prepared in LEVELS:
            post_rates[clients] = await run_level(svc, games, clients, prepared, cpu)
        # the same c16 with the clients in this process' event loop, as before: what a load
        # generator apart changes in the service's CPU per action
        await run_level(svc, games, 16, 64, cpu, mode="inproc", name="post_action_c16_inproc")
        _ratio("post_action_c16_inproc", "post_action_c16", "inproc_vs_procs")
        # c16 at a given load instead of at saturation (where the latency is just the
        # clients over the throughput): the latency a person meets while the service copes
        if PACE:
            await run_level(
                svc, games, 16, 64, cpu, name=f"post_action_c16_paced{PACE:g}", pace=PACE
            )
        if games.creation_s:
            out(
                "game_creation_ready_p50_s",
                pct(games.creation_s, 0.5),
                "s (RoomStarted -> GET 200)",
            )
        _stopped(svc, "game_service")

        if WORKERS > 1:  # the same levels on a game service of several uvicorn workers
            svc = Service(dsn, prefix, workers=WORKERS)
            await svc.wait_healthy()
            cpu = CpuMeter(svc.proc.pid, dsn.rsplit("/", 1)[1])
            games = Games(streams, prefix, svc.url, tag=f"w{WORKERS}-")
            for clients, prepared in LEVELS:
                p = f"post_action_c{clients}_w{WORKERS}"
                rate = await run_level(svc, games, clients, prepared, cpu, name=p)
                if post_rates[clients]:
                    out(f"{p}_vs_w1_actions_ratio", rate / post_rates[clients], "x")
                _ratio(p, f"post_action_c{clients}", f"w{WORKERS}_vs_w1")
            _stopped(svc, f"game_service_w{WORKERS}")
    finally:
        if svc is not None and svc.alive():
            svc.stop()
    return post_rates


async def http_floors(dsn: str) -> None:
    """The floors under the c16 level (tests/bench/floor_http.py): the same cycles on a
    Litestar app doing nothing of ours, bare and with one query per request; the game
    service's CPU per action over each."""
    from tests.bench import floor_http

    measured = await asyncio.to_thread(floor_http.floors, 16, MEASURE_S, dsn)
    service, postgres = CPU_PER_ACTION.get("post_action_c16", (float("nan"), float("nan")))
    for mode, figures in measured.items():
        p = f"http_floor_{mode}_c16"
        out(f"{p}_cycles_per_s", figures["cycles_per_s"], "cycles/s (GET, GET, POST)")
        out(f"{p}_server_cpu_per_cycle", figures["server_cpu_per_cycle_ms"], "ms")
        out(f"{p}_postgres_cpu_per_cycle", figures["postgres_cpu_per_cycle_ms"], "ms")
        floor = figures["server_cpu_per_cycle_ms"]
        out(f"post_action_c16_game_service_cpu_vs_{mode}_floor_ratio",
            service / floor if floor else float("nan"), "x")  # fmt: skip
    if "db" in measured and measured["db"]["postgres_cpu_per_cycle_ms"]:
        pg = measured["db"]["postgres_cpu_per_cycle_ms"]
        out("post_action_c16_postgres_cpu_vs_db_floor_ratio", postgres / pg, "x")


def _stopped(svc: Service, name: str) -> None:
    """Stop the service; its log's tracebacks and errors (the log kept only if any)."""
    svc.stop()
    tracebacks, errors = svc.problems()
    out(f"{name}_log_tracebacks", tracebacks, "count")
    out(f"{name}_log_errors", errors, "count")
    if tracebacks or errors:
        note(f"game service log ({svc.log}):\n{svc.tail(3000)}")
    else:
        svc.log.unlink(missing_ok=True)


async def main() -> int:
    began = time.monotonic()
    prefix = f"bench-{RUN}:"
    out(
        "machine",
        f"cpus={os.cpu_count()} python={platform.python_version()} "
        f"{platform.system()}-{platform.machine()}",
    )
    db_name, dsn = await create_database()
    admin = await asyncpg.connect(ADMIN_DSN)
    out("postgres_version", await admin.fetchval("SHOW server_version"))
    out(
        "load_average_1m_at_start",
        os.getloadavg()[0],
        "(other work on this machine skews every figure)",
    )
    await admin.close()
    streams: RedisStreams | None = None
    try:
        streams = RedisStreams.from_url(REDIS_URL)
        post_rates = await action_levels(dsn, prefix, streams)
        await http_floors(dsn)

        cpu = CpuMeter(None, db_name)
        for clients, _ in LEVELS:
            ins = await insert_rate(dsn, clients, cpu)
            out(
                f"post_action_vs_insert_c{clients}_ratio",
                post_rates[clients] / ins if ins else float("nan"),
                "x",
            )

        engine_playouts()
        await rebuild(dsn)
        # each phase with processes of the stack in a database of its own (own_database)
        async with own_database("clocks") as own:
            await clocks.deadline_lateness(
                own, REDIS_URL, f"{prefix}clocks:", free_port(), out, pct
            )
        async with own_database("sse") as own:
            await sse.fanout(own, REDIS_URL, f"{prefix}sse:", free_port(), out, pct)
        await bots.bot_turns(ADMIN_DSN, REDIS_URL, f"{prefix}bots:", out, pct)
        await bots.bot_load(ADMIN_DSN, REDIS_URL, f"{prefix}botload:", out, pct)
        async with own_database("hooks") as own:
            await webhooks.webhook_latency(own, REDIS_URL, f"{prefix}hooks:", out, pct)
        # the whole stack's CPU per move by process (tests/bench/stack_cost.py); against a
        # baseline checkout's stack in the same run with BENCH_STACK_BASE
        base = os.environ.get("BENCH_STACK_BASE")
        await stack_cost.run(Path(base) if base else None, 3 if base else 1, [16], out)
        # players' records: 100,000 players and 1,000,000 finished games in this database
        await records.run(dsn, 100_000, 1_000_000, 500, 1000, out)
        out("bench_wall_s", time.monotonic() - began, "s")
        return 0
    finally:
        if streams is not None:
            with contextlib.suppress(Exception):
                await streams.close()
        with contextlib.suppress(Exception):
            await cleanup_redis(prefix)
        await drop_database(db_name)


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
