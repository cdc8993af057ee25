"""Benchmarks of the bot path, run by tests/bench/run.py (`make bench`).

Both run the stack's own processes (deploy/stack.py's list: lobby, game, relay, dispatcher,
scheduler, one worker per queue), each in a session of its own so that its CPU, children
included, is counted from /proc.

- `bot_turn_<game>_<level>_*`: all-bot tables of each game and level through the real path
  (relay -> dispatcher -> Celery -> commands stream -> appended event), one table of each at
  once, level after level (the workers' CPU per move of each), for BENCH_BOT_TURN_MAX_S (20 s)
  a level: from the commit of the command that put the bot in
  `to_act` to the commit of its move.
- `botload_<n>t_*`: n tables at once (1, 10, 40) of one scripted person (tests/bench/person.py,
  in processes of its own: a client choosing random legal moves over REST as fast as the
  game lets it, or after a thinking time: `_think1s`) and three `greedy` bots, itty bitty. `bot_reply`: from the commit of the
  person's move to the commit of the bot move that answers it; `bot_turn`: every bot move
  from the commit of the command before it. CPU per bot move by process over the window,
  and two ratios against baselines measured in the same window: the bot reply against the
  person's own POST, and the bot side's CPU per bot move (worker + dispatcher) against the
  game service's CPU per move applied.

BENCH_STACK_ROOT runs another checkout's stack (e.g. a `git worktree` of an older commit)
under the same load, for before/after figures.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import msgspec

from contracts.streams import LOBBY, RoomStarted, StartedSeat
from games.registry import registry
from infra.auth.bearer import issue
from infra.auth.keys import SigningKey
from infra.servers.local import free_port as _free_port
from infra.settings import from_env
from infra.streams.redis import RedisStreams
from services.game.commands import game_id_for_room
from tests.bench.proc import postgres_ticks as _postgres_ticks

ROOT = Path(__file__).resolve().parents[2]
STACK_ROOT = Path(os.environ.get("BENCH_STACK_ROOT", str(ROOT)))
# tables at once, and the person's thinking time before each move ("40:1": 40 tables, 1 s)
LOAD_TABLES = os.environ.get("BENCH_BOTLOAD_TABLES", "1,10,40,40:1").split(",")
LOAD_WARMUP_S = float(os.environ.get("BENCH_BOTLOAD_WARMUP_S", "5"))
LOAD_MEASURE_S = float(os.environ.get("BENCH_BOTLOAD_S", "30"))
# A table that finishes its game takes the next one; it must never run out within the run.
# A lone table's game of itty bitty (about 400 versions) lasts about 1.3 s, forty tables' about
# 40 s: four games a table ran the single table dry within its warm-up (its window then saw
# the last game's tail only), so the fewer the tables, the more games each gets.
GAMES_AT_LEAST = 4
GAMES_IN_ALL = 48


def games_per_table(tables: int) -> int:
    return max(GAMES_AT_LEAST, -(-GAMES_IN_ALL // tables))


TURN_GAMES = tuple(registry())  # every game served
TURN_TABLES = int(os.environ.get("BENCH_BOT_TURN_TABLES", "1"))
TURN_MAX_S = float(os.environ.get("BENCH_BOT_TURN_MAX_S", "20"))  # per table, finished or not

Out = Callable[..., None]
Pct = Callable[[list[float], float], float]
HZ = os.sysconf("SC_CLK_TCK")


def _stack_processes(root: Path = STACK_ROOT) -> dict[str, list[str]]:
    spec = importlib.util.spec_from_file_location(
        "turnpost_stack_bench", root / "deploy" / "stack.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return {name: list(cmd) for name, cmd in module.PROCESSES.items()}


def _session_ticks() -> dict[int, int]:
    """utime + stime of every process on the machine, summed by session id."""
    by_session: dict[int, int] = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        session = int(fields[3])
        by_session[session] = by_session.get(session, 0) + int(fields[11]) + int(fields[12])
    return by_session


class Stack:
    """The stack's processes, each the leader of its own session (children counted with it).

    Dead children's CPU is counted by the kernel only once they are reaped: a Celery worker
    reaps its pool processes, and none exits during a measurement."""

    def __init__(self, env: dict[str, str], log: Path, root: Path = STACK_ROOT) -> None:
        self.env = {**os.environ, **env, "PYTHONUNBUFFERED": "1", "LOG_LEVEL": "WARNING"}
        self.log = log
        self.root = root
        self.commands = _stack_processes(root)
        self.procs: dict[str, subprocess.Popen[bytes]] = {}

    def start(self) -> None:
        subprocess.run(
            [sys.executable, "-m", "infra.servers.migrate"],
            cwd=self.root,
            env=self.env,
            check=True,
        )
        with open(self.log, "ab") as f:
            for name, cmd in self.commands.items():
                self.procs[name] = subprocess.Popen(
                    cmd,
                    cwd=self.root,
                    env=self.env,
                    stdout=f,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )

    def alive(self) -> list[str]:
        return [name for name, p in self.procs.items() if p.poll() is not None]

    def cpu(self) -> dict[str, float]:
        """CPU seconds so far per process (its session), plus postgres."""
        ticks = _session_ticks()
        cpu = {name: ticks.get(p.pid, 0) / HZ for name, p in self.procs.items()}
        cpu["postgres"] = _postgres_ticks() / HZ
        return cpu

    def stop(self) -> None:
        for p in self.procs.values():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGTERM)
        for p in self.procs.values():
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(p.pid, signal.SIGKILL)
                p.wait()
        self.procs.clear()

    def problems(self) -> int:
        try:
            return self.log.read_text(errors="replace").count("Traceback")
        except OSError:
            return 0


def _env(dsn: str, redis_url: str, prefix: str, secret: str) -> dict[str, str]:
    return {
        "DATABASE_URL": dsn,
        "REDIS_URL": redis_url,
        "STREAM_PREFIX": prefix,
        "LOBBY_PORT": str(_free_port()),
        "GAME_PORT": str(_free_port()),
        "TURNPOST_SECRET": secret,
        "RATE_LIMIT_ACTION": "10000000/minute",
        "RATE_LIMIT_READ": "10000000/minute",
        "RATE_LIMIT_WRITE": "10000000/minute",
    }


async def _start_table(
    streams: RedisStreams, prefix: str, game: str, seats: Sequence[str | None]
) -> tuple[str, str]:
    """Publish a RoomStarted; (room id, game id)."""
    room = f"bench-bots-{uuid.uuid4()}"
    message = RoomStarted(
        room_id=room,
        game=game,
        seats=[
            StartedSeat(seat=s, player_id=f"{room}-{s}", name=f"p{s}", bot=level)
            for s, level in enumerate(seats)
        ],
    )
    await streams.publish(f"{prefix}{LOBBY}", msgspec.json.encode(message))
    return room, game_id_for_room(room)


async def _wait_created(pool: asyncpg.Pool, rooms: list[str], seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        n = await pool.fetchval("SELECT count(*) FROM turns WHERE room_id = ANY($1)", rooms)
        if n >= len(rooms):
            return
        await asyncio.sleep(0.2)
    raise RuntimeError(f"only some of {len(rooms)} games were created")


async def _commands(pool: asyncpg.Pool, rooms: list[str]) -> list[dict[str, Any]]:
    """Every command (its events' batch) of these rooms' games, in order: stream, seat,
    recorded_at of its last event, whether the seat is a bot's, and its level."""
    rows = await pool.fetch(
        """SELECT e.stream_id, e.recorded_at, (e.metadata->>'seat')::int AS seat,
                  coalesce((e.metadata->>'batch_end')::bool, true) AS batch_end,
                  g.seats::text AS seats, g.game
           FROM events e JOIN games g ON e.stream_id = 'game-' || g.id::text
           WHERE g.room_id = ANY($1) ORDER BY e.stream_id, e.version""",
        rooms,
    )
    seats: dict[str, list[Any]] = {}
    commands: list[dict[str, Any]] = []
    first: Any = None
    for r in rows:
        if first is None:
            first = r
        if not r["batch_end"]:
            continue
        stream = r["stream_id"]
        if stream not in seats:
            seats[stream] = msgspec.json.decode(r["seats"])
        seat = first["seat"]
        level = seats[stream][seat]["bot"] if seat is not None else None
        commands.append(
            {
                "stream": stream,
                "game": r["game"],
                "seat": seat,
                "level": level,
                "started": first["recorded_at"],
                "at": r["recorded_at"],
            }
        )
        first = None
    return commands


def _lags(
    commands: list[dict[str, Any]], since: datetime | None = None, until: datetime | None = None
) -> tuple[dict[str, list[float]], list[float]]:
    """(bot turn lags by level, bot replies to a person's move), in seconds: from the commit
    of the command before to the first commit of the bot's move. Moves of the set-up (no
    command before) and moves outside [since, until] are left out."""
    turns: dict[str, list[float]] = {}
    replies: list[float] = []
    before: dict[str, Any] = {}
    for c in commands:
        prev = before.get(c["stream"])
        before[c["stream"]] = c
        if prev is None or prev["seat"] is None or c["level"] is None:
            continue
        if (since and c["started"] < since) or (until and c["started"] > until):
            continue
        lag = (c["started"] - prev["at"]).total_seconds()
        turns.setdefault(c["level"], []).append(lag)
        if prev["level"] is None:  # a person's move, answered by this bot
            replies.append(lag)
    return turns, replies


# -- bot turn latency per game and level ---------------------------------------------------


@contextlib.asynccontextmanager
async def own_database(admin_dsn: str, what: str) -> AsyncIterator[str]:
    """A database for one part alone: the scheduler of a stack sweeps every game of its
    database, so a part sharing one would also play what another left unfinished."""
    name = f"turnpost_bench_{what}_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(admin_dsn)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    try:
        yield f"{admin_dsn.rsplit('/', 1)[0]}/{name}"
    finally:
        admin = await asyncpg.connect(admin_dsn)
        try:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await admin.close()


async def bot_turns(admin_dsn: str, redis_url: str, prefix: str, out: Out, pct: Pct) -> None:
    async with own_database(admin_dsn, "turns") as dsn:
        await _bot_turns(dsn, redis_url, prefix, out, pct)


async def _bot_turns(dsn: str, redis_url: str, prefix: str, out: Out, pct: Pct) -> None:
    """Each level of the ladder in turn (every game's tables of it at once), so that the
    workers' CPU over its window is that level's: CPU per move by level, and each game's
    turn time p50/p99 (a search level's p99 against its seconds: the setting's, no clock)."""
    from contracts.levels import LADDER
    from services.bots.levels import seconds_for
    from services.bots.policies import POLICIES, SEARCHING

    stack = Stack(_env(dsn, redis_url, prefix, secrets.token_urlsafe(48)), _log("turns"))
    streams = RedisStreams.from_url(redis_url)
    pool = await asyncpg.create_pool(dsn, min_size=1, max_size=4)
    settings = from_env()
    try:
        stack.start()
        await asyncio.sleep(4)  # the workers' start-up
        for level in LADDER:
            tables: dict[str, list[str]] = {}
            before = stack.cpu()
            for game in TURN_GAMES:
                if (game, level) not in POLICIES:
                    continue
                seats = 2 if level in SEARCHING else 3
                for _ in range(TURN_TABLES):
                    room, _ = await _start_table(streams, prefix, game, [level] * seats)
                    tables.setdefault(game, []).append(room)
            await _wait_finished(pool, [r for group in tables.values() for r in group], TURN_MAX_S)
            after = stack.cpu()
            moves = 0
            for game, group in tables.items():
                lags, _ = _lags(await _commands(pool, group))
                values = lags.get(level, [])
                moves += len(values)
                name = f"bot_turn_{game.replace('-', '_')}_{level}"
                out(f"{name}_moves", len(values), "count")
                out(f"{name}_p50_ms", 1000 * pct(values, 0.5), "ms")
                out(f"{name}_p99_ms", 1000 * pct(values, 0.99), "ms")
                seconds = seconds_for(level, None, settings)
                if seconds is not None and values:
                    # the issue's bound: the level's seconds plus 250 ms of the path
                    out(f"{name}_p99_vs_budget_ratio", pct(values, 0.99) / (seconds + 0.25), "x")
            workers = sum(after[n] - before.get(n, 0.0) for n in after if "worker" in n)
            if moves:
                # every game's moves of the level together: the workers' CPU over its window
                out(f"bot_turn_{level}_worker_cpu_ms_per_move", 1000 * workers / moves, "ms")
        if dead := stack.alive():
            out("bot_turn_processes_died", len(dead), ",".join(dead))
        out("bot_turn_stack_tracebacks", stack.problems(), "count")
    finally:
        stack.stop()
        await streams.close()
        await pool.close()


async def _wait_finished(pool: asyncpg.Pool, rooms: list[str], seconds: float) -> int:
    deadline = time.monotonic() + seconds
    done = 0
    while time.monotonic() < deadline:
        done = await pool.fetchval(
            "SELECT count(*) FROM turns WHERE room_id = ANY($1) AND status = 'finished'", rooms
        )
        if done >= len(rooms):
            break
        await asyncio.sleep(0.25)
    return int(done)


def _log(what: str) -> Path:
    return Path(tempfile.gettempdir()) / f"turnpost-bench-{what}-{os.getpid()}.log"


# -- bot load -------------------------------------------------------------------------------


async def bot_load(admin_dsn: str, redis_url: str, prefix: str, out: Out, pct: Pct) -> None:
    async with own_database(admin_dsn, "load") as dsn:
        await _bot_load(dsn, redis_url, prefix, out, pct)


async def _bot_load(dsn: str, redis_url: str, prefix: str, out: Out, pct: Pct) -> None:
    secret = secrets.token_urlsafe(48)
    env = _env(dsn, redis_url, prefix, secret)
    stack = Stack(env, _log("botload"))
    streams = RedisStreams.from_url(redis_url)
    pool = await asyncpg.create_pool(dsn, min_size=1, max_size=4)
    key = SigningKey.from_secret(secret)
    game_url = f"http://127.0.0.1:{env['GAME_PORT']}"
    try:
        stack.start()
        await _wait_healthy(game_url)
        await asyncio.sleep(3)  # the workers' start-up
        for level in LOAD_TABLES:
            n, _, think = level.partition(":")
            await _load_level(
                int(n), float(think or 0), stack, streams, pool, prefix, key, game_url, out, pct
            )
        if dead := stack.alive():
            out("botload_processes_died", len(dead), ",".join(dead))
        out("botload_stack_tracebacks", stack.problems(), "count")
        if not RATE_TURNS:
            return
        rooms, games = [], []
        for _ in range(RATE_TURNS):  # the people never move: the bots' turns are pushed below
            room, game_id = await _start_table(streams, prefix, "itty-bitty", [None, None])
            rooms.append(room)
            games.append(game_id)
        await _wait_created(pool, rooms)
        versions = dict(
            await pool.fetch(
                "SELECT game_id::text, version FROM turns WHERE game_id::text = ANY($1)", games
            )
        )
        stack.stop()
        await _worker_rates(stack, env, redis_url, prefix, versions, out)
    finally:
        stack.stop()
        await streams.close()
        await pool.close()


RATE_TURNS = int(os.environ.get("BENCH_WORKER_TURNS", "600"))
FLOOR_TASKS = 3000
# (name, pool, concurrency) of the cheap levels' worker measured alone
WORKER_SETTINGS = [
    ("solo", "solo", "1"),
    ("prefork1", "prefork", "1"),
    ("prefork2", "prefork", "2"),
]


def _worker_cmd(stack: Stack, app: str, pool: str, concurrency: str) -> list[str]:
    cmd = list(stack.commands["worker"])
    cmd[cmd.index("services.bots.worker")] = app
    for option, value in (("--pool", pool), ("--concurrency", concurrency)):
        if option in cmd:
            cmd[cmd.index(option) + 1] = value
        else:
            cmd += [option, value]
    return cmd


def _spawn(stack: Stack, cmd: list[str]) -> subprocess.Popen[bytes]:
    with open(stack.log, "ab") as f:
        return subprocess.Popen(
            cmd, cwd=STACK_ROOT, env=stack.env, stdout=f, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip


async def _drain(
    stack: Stack,
    env: dict[str, str],
    cmd: list[str],
    messages: list[tuple[str, bytes]],
    done: Callable[[], Any],
) -> tuple[float, float]:
    """Start `cmd` alone, push `messages` once it is up, wait until `done()` is true:
    (wall seconds from the push to done, CPU seconds of the worker meanwhile)."""
    import redis.asyncio as aioredis

    r = aioredis.Redis.from_url(env["REDIS_URL"])
    proc = _spawn(stack, cmd)
    try:
        await asyncio.sleep(4)  # its start-up
        before = _session_ticks().get(proc.pid, 0)
        started = time.monotonic()
        pipe = r.pipeline(transaction=False)
        for key, message in messages:
            pipe.lpush(key, message)
        await pipe.execute()
        deadline = started + 120
        while not await done() and time.monotonic() < deadline:  # noqa: ASYNC110
            await asyncio.sleep(0.02)
        wall = time.monotonic() - started
        cpu = (_session_ticks().get(proc.pid, 0) - before) / HZ
        return wall, cpu
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(20)
        await r.aclose()


async def _worker_rates(
    stack: Stack,
    env: dict[str, str],
    redis_url: str,
    prefix: str,
    versions: dict[str, int],
    out: Out,
) -> None:
    """How many greedy moves a second one worker process makes when it has nothing else to
    wait for (RATE_TURNS turns pushed at once, the stack stopped: only Postgres and Redis),
    per pool setting; and Celery's own floor, a task that does nothing, as the baseline."""
    import redis.asyncio as aioredis

    from infra.settings import from_env
    from infra.tasks import bot_turn_message
    from tests.bench.floor import NOTHING

    settings = from_env(stack.env)
    r = aioredis.Redis.from_url(redis_url)
    commands = settings.stream("turnpost:commands")
    try:
        for name, pool, concurrency in WORKER_SETTINGS:
            turns = [
                bot_turn_message(settings, "itty-bitty", g, 1, "greedy", v)
                for g, v in versions.items()
            ]
            start = await r.xlen(commands)

            async def moved(start: int = start, n: int = len(turns)) -> bool:
                return int(await r.xlen(commands)) >= start + n

            cmd = _worker_cmd(stack, "services.bots.worker", pool, concurrency)
            wall, cpu = await _drain(stack, env, cmd, turns, moved)
            made = int(await r.xlen(commands)) - start
            p = f"bot_worker_{name}"
            out(f"{p}_moves", made, f"of {len(turns)}")
            out(f"{p}_moves_per_s", made / wall, "moves/s (greedy, one worker process)")
            out(f"{p}_cpu_per_move", 1000 * cpu / max(made, 1), "ms")
        key, template = bot_turn_message(settings, "itty-bitty", "none", 1, "greedy", 1)
        nothing = template.replace(b'"task":"bots.play"', f'"task":"{NOTHING}"'.encode())
        queue = f"{prefix}bots"

        async def drained() -> bool:
            return int(await r.llen(queue)) == 0 and not await r.hlen(f"{prefix}unacked")

        cmd = _worker_cmd(stack, "tests.bench.floor", "solo", "1")
        wall, cpu = await _drain(stack, env, cmd, [(key, nothing)] * FLOOR_TASKS, drained)
        out("celery_floor_tasks_per_s", FLOOR_TASKS / wall, "tasks/s (a task that does nothing)")
        out("celery_floor_cpu_per_task", 1000 * cpu / FLOOR_TASKS, "ms (baseline)")
    finally:
        await r.aclose()


async def _wait_healthy(url: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    async with httpx.AsyncClient(base_url=url, timeout=2) as http:
        while time.monotonic() < deadline:
            with contextlib.suppress(httpx.HTTPError):
                if (await http.get("/health")).status_code == 200:
                    return
            await asyncio.sleep(0.2)
    raise RuntimeError("the game service did not come up")


def _people(
    games: list[list[str]], n: int, generators: int, game_url: str, seconds: float, think: float
) -> list[subprocess.Popen[bytes]]:
    """The scripted people: `generators` processes sharing `n` tables and their games."""
    procs = []
    for g in range(generators):
        proc = subprocess.Popen(
            [sys.executable, str(ROOT / "tests" / "bench" / "person.py"), game_url,
             str(seconds), str(len(range(g, n, generators))), str(think)],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            start_new_session=True,
        )  # fmt: skip
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(games[g::generators]).encode())
        proc.stdin.close()
        procs.append(proc)
    return procs


async def _load_level(
    n: int,
    think: float,
    stack: Stack,
    streams: RedisStreams,
    pool: asyncpg.Pool,
    prefix: str,
    key: SigningKey,
    game_url: str,
    out: Out,
    pct: Pct,
) -> None:
    p = f"botload_{n}t" + (f"_think{think:g}s" if think else "")
    rooms: list[str] = []
    games: list[list[str]] = []
    for _ in range(n * games_per_table(n)):
        room, game_id = await _start_table(
            streams, prefix, "itty-bitty", [None, "greedy", "greedy", "greedy"]
        )
        rooms.append(room)
        games.append([game_id, issue(key, f"{room}-0", "p0")])
    await _wait_created(pool, rooms)
    await asyncio.sleep(2)  # the bots' opening choices
    generators = 1 if n <= 10 else 2
    procs = _people(games, n, generators, game_url, LOAD_WARMUP_S + LOAD_MEASURE_S, think)
    await asyncio.sleep(LOAD_WARMUP_S)
    since = await pool.fetchval("SELECT now()")
    before = stack.cpu()
    gen_before = _session_ticks()
    await asyncio.sleep(LOAD_MEASURE_S)
    until = await pool.fetchval("SELECT now()")
    after = stack.cpu()
    gen_after = _session_ticks()
    results = []
    for proc in procs:
        assert proc.stdout is not None
        stdout = await asyncio.to_thread(proc.stdout.read)
        proc.wait()
        results.append(json.loads(stdout.decode().strip().splitlines()[-1]))
    commands = await _commands(pool, rooms)
    turns, replies = _lags(commands, since, until)
    in_window = [c for c in commands if since <= c["started"] <= until]
    bot_moves = sum(1 for c in in_window if c["level"] is not None)
    all_moves = sum(1 for c in in_window if c["seat"] is not None)
    post_ms = [ms for r in results for ms in r["post_ms"]]
    out(f"{p}_bot_moves", bot_moves, f"in {LOAD_MEASURE_S:.0f} s")
    out(f"{p}_bot_moves_per_s", bot_moves / LOAD_MEASURE_S, "moves/s")
    out(f"{p}_person_moves", all_moves - bot_moves, "count")
    out(f"{p}_bot_reply_p50_ms", 1000 * pct(replies, 0.5), "ms")
    out(f"{p}_bot_reply_p90_ms", 1000 * pct(replies, 0.9), "ms")
    out(f"{p}_bot_reply_p99_ms", 1000 * pct(replies, 0.99), "ms")
    greedy = turns.get("greedy", [])
    out(f"{p}_bot_turn_p50_ms", 1000 * pct(greedy, 0.5), "ms")
    out(f"{p}_bot_turn_p99_ms", 1000 * pct(greedy, 0.99), "ms")
    out(f"{p}_person_post_p50_ms", pct(post_ms, 0.5), "ms (baseline)")
    if post_ms and replies:
        out(f"{p}_bot_reply_vs_post_p50_ratio", 1000 * pct(replies, 0.5) / pct(post_ms, 0.5), "x")
    errors: dict[str, int] = {}
    for r in results:
        for k, v in r["errors"].items():
            errors[k] = errors.get(k, 0) + v
    out(f"{p}_person_conflicts", sum(r["conflicts"] for r in results), "409s")
    if errors:
        out(f"{p}_person_errors", sum(errors.values()), json.dumps(errors))
    used = {name: after[name] - before[name] for name in after}
    gen_used = sum(gen_after.get(proc.pid, 0) - gen_before.get(proc.pid, 0) for proc in procs) / HZ
    for name, seconds_used in sorted(used.items()):
        out(f"{p}_cpu_{name}", 100 * seconds_used / LOAD_MEASURE_S, "% of a core")
    out(f"{p}_cpu_load_generator", 100 * gen_used / LOAD_MEASURE_S, "% of a core")
    if bot_moves:
        workers = sum(v for k, v in used.items() if k.startswith("worker"))
        per_move = {name: 1000 * v / bot_moves for name, v in used.items()}
        for name, ms in sorted(per_move.items()):
            out(f"{p}_cpu_per_bot_move_{name}", ms, "ms")
        bot_side = 1000 * (workers + used.get("dispatcher", 0.0)) / bot_moves
        out(f"{p}_cpu_per_bot_move_worker_and_dispatcher", bot_side, "ms")
        out(
            f"{p}_worker_moves_per_cpu_s",
            bot_moves / workers if workers else float("nan"),
            "moves per second of one worker process's core",
        )
        if all_moves:
            game_per_move = 1000 * used.get("game", 0.0) / all_moves
            out(f"{p}_cpu_game_service_per_move", game_per_move, "ms (baseline: any move)")
            out(f"{p}_bot_side_vs_game_cpu_per_move_ratio", bot_side / game_per_move, "x")


async def _main(which: str) -> int:
    """Run one part alone: python -m tests.bench.bots load|turns."""
    from tests.bench.run import ADMIN_DSN, REDIS_URL, cleanup_redis, out, pct

    prefix = f"bench-bots-{uuid.uuid4().hex[:8]}:"
    try:
        part = bot_turns if which == "turns" else bot_load
        await part(ADMIN_DSN, REDIS_URL, prefix, out, pct)
        return 0
    finally:
        with contextlib.suppress(Exception):
            await cleanup_redis(prefix)


if __name__ == "__main__":
    sys.exit(asyncio.run(_main(sys.argv[1] if len(sys.argv) > 1 else "load")))
