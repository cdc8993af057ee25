"""The whole stack's CPU per move: every process `make run` starts, Postgres and Redis.

    python -m tests.bench.stack_cost [BASE_CHECKOUT] [--rounds 3] [--clients 16,64]

Per round and side, a stack of its own (deploy/stack.py's PROCESSES of that checkout: lobby,
game, relay, dispatcher, scheduler, the bot workers, the notifier, the webhook worker; its own
database and stream prefix), `clients` two-person itty-bitty games (no bot in any of them)
played over REST by the action benchmark's clients (tests/bench/actions_load.py, processes of
their own: GET game, GET legal-actions, POST a random legal action), 2 s warm-up, then the
window. Each stack process is the leader of its own session, so its CPU counts its children
(a Celery worker's pool); Postgres is every Postgres process on the machine (the stack's
backends, the checkpointer, the WAL writer: what a move makes it do), Redis every
redis-server/valkey-server process. CPU per accepted move = CPU in the window / POSTs
answered 200 in it.

With a baseline checkout (e.g. `git worktree add /tmp/base <commit>`) both sides run in
alternate rounds, the order swapped every other round, and the figures end with this
checkout's over the baseline's: the ratio of the medians and the median of each round's own
ratio (`_paired_ratio`: a round's two stacks run back to back, so a shared machine's drift
moves both alike).

Then the floor under Postgres' share: single-row autocommit INSERTs at the same concurrency
on a database of its own, Postgres' CPU per INSERT, and `stack_c<n>_postgres_vs_insert_ratio`
(Postgres' CPU per move over it). `make bench` runs one round of this checkout alone at 16
clients (`BENCH_STACK_BASE=<checkout>` adds the baseline).

`--one-read` adds a third side, `one_read`: this checkout's stack played by clients that
read the game with its legal actions in one request (`?include=legal_actions`, as the
seat they guess is to act; the legal actions apart when the guess was wrong), against the
same baseline; `_requests_per_move` says what each side's clients asked.

Figures: `stack_c<n>_<side>_<process>_cpu_per_move_ms` (medians over rounds),
`stack_c<n>_<side>_total_cpu_per_move_ms`, `_moves_per_s`, `_post_p50_ms`, `_post_p99_ms`,
`_post_p99_vs_p50_ratio`, `_appends_per_statement` (the game service's group commit, from its
`turnpost_append_batch_size` over the window).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import secrets
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import asyncpg  # noqa: E402
import httpx  # noqa: E402
from prometheus_client.parser import text_string_to_metric_families  # noqa: E402

from tests.bench import bots  # noqa: E402
from tests.bench.actions_load import LevelStats, begin, results, spawn  # noqa: E402
from tests.bench.proc import backend_ticks, named_ticks, postgres_ticks  # noqa: E402

ADMIN_DSN = os.environ.get("BENCH_ADMIN_DSN", "postgresql://postgres@127.0.0.1:5432/postgres")
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")
WARMUP_S = float(os.environ.get("BENCH_WARMUP_S", "2"))
MEASURE_S = float(os.environ.get("BENCH_STACK_S", "15"))
CLIENT_PROCS = int(os.environ.get("BENCH_CLIENT_PROCS", "2"))
EXPLAIN = os.environ.get("BENCH_EXPLAIN", "1") != "0"  # the append's plan, as a note
HZ = os.sysconf("SC_CLK_TCK")
Out = Callable[..., None]


# the figures of a side that are not CPU ms per move, and their units
NOT_CPU = {
    "moves_per_s": "moves/s",
    "post_p50_ms": "ms",
    "post_p99_ms": "ms",
    "post_p99_vs_p50_ratio": "x",
    "non_200": "responses",
    "requests_per_move": "requests (in the window, over the moves accepted)",
    "turns_hot_update_share": "(of the turns row's updates)",
    "appends_per_statement": "(the game service's group commit; 1 where it has none)",
}


async def _batches(game_url: str) -> tuple[float, float]:
    """The game service's turnpost_append_batch_size sum and count so far ((0, 0) without)."""
    async with httpx.AsyncClient(base_url=game_url, timeout=10) as http:
        text = (await http.get("/metrics")).text
    found = {
        s.name: s.value
        for family in text_string_to_metric_families(text)
        if family.name == "turnpost_append_batch_size"
        for s in family.samples
        if s.name.endswith(("_sum", "_count"))
    }
    return (
        found.get("turnpost_append_batch_size_sum", 0.0),
        found.get("turnpost_append_batch_size_count", 0.0),
    )


def _default_out(name: str, value: Any, unit: str = "") -> None:
    if isinstance(value, float):
        value = f"{value:.4g}"
    print(f"{name} {value} {unit}".rstrip(), flush=True)


def _note(text: str) -> None:
    print(f"# {text}", file=sys.stderr, flush=True)


def redis_ticks() -> int:
    """Jiffies of every Redis (or Valkey) server process on the machine."""
    return named_ticks("redis-server", "valkey-server")


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


async def one_side(
    root: Path, clients: int, prepared: int, one_read: bool = False
) -> dict[str, float]:
    """One stack of `root`'s under `clients` REST players: CPU ms per move by process."""
    secret = secrets.token_urlsafe(48)
    prefix = f"stack-{uuid.uuid4().hex[:8]}:"
    log = Path(tempfile.gettempdir()) / f"turnpost-stack-cost-{prefix[6:14]}.log"
    async with bots.own_database(ADMIN_DSN, "stack") as dsn:
        env = bots._env(dsn, REDIS_URL, prefix, secret)
        stack = bots.Stack(env, log, root=root)
        stack.start()
        procs: list[asyncio.subprocess.Process] = []
        try:
            game_url = f"http://127.0.0.1:{env['GAME_PORT']}"
            await bots._wait_healthy(game_url)
            procs = await spawn(
                game_url, REDIS_URL, prefix, secret, clients, prepared, CLIENT_PROCS, "s",
                ready_s=180, one_read=one_read,
            )  # fmt: skip
            await asyncio.sleep(1.0)  # the set-up's news drained by the side processes
            warm_end, end = await begin(procs, WARMUP_S, MEASURE_S)
            db = await asyncpg.connect(dsn)
            statements = await _statements_on(db)
            await asyncio.sleep(max(0.0, warm_end - time.monotonic()))
            if statements:
                await db.execute("SELECT pg_stat_statements_reset()")
            hot_a = await _turn_updates(db)
            batches_a = await _batches(game_url)
            database = dsn.rsplit("/", 1)[1]
            a = stack.cpu(), redis_ticks(), time.monotonic(), backend_ticks(database)
            await asyncio.sleep(max(0.0, end - time.monotonic()))
            b = stack.cpu(), redis_ticks(), time.monotonic(), backend_ticks(database)
            batches_b = await _batches(game_url)
            await asyncio.sleep(1.0)  # table statistics reach the views within a second
            hot_b = await _turn_updates(db)
            top = await _top_statements(db) if statements else []
            # this checkout's statement: a baseline's schema may lack what it writes
            plan = await _explain_append(db) if root == ROOT else ["(the baseline's side)"]
            await db.close()
            st = LevelStats()
            await results(procs, st)
            if dead := stack.alive():
                raise RuntimeError(f"stack processes died: {dead}; see {log}")
        finally:
            for proc in procs:
                if proc.returncode is None:
                    with contextlib.suppress(ProcessLookupError):
                        proc.kill()
                    await proc.wait()
            stack.stop()
        moves = len(st.post_ms)  # the POSTs answered 200 in the window
        if not moves:
            raise RuntimeError(f"no move answered: {st.statuses} {st.errors}; see {log}")
        # stack.cpu(): seconds per process (its session) and "postgres"
        per = {name: (b[0][name] - a[0].get(name, 0)) * 1000 / moves for name in b[0]}
        per["redis"] = (b[1] - a[1]) / HZ * 1000 / moves
        # of which the stack's own connections (the rest: WAL writer, checkpointer, vacuum)
        backends = (b[3] - a[3]) / HZ * 1000 / moves
        per["total"] = sum(per.values())
        per["postgres_backends"] = backends
        per["side_processes"] = per["total"] - per["game"] - per["postgres"] - per["redis"]
        per["moves_per_s"] = moves / (b[2] - a[2])
        per["post_p50_ms"] = _pct(st.post_ms, 0.5)
        per["post_p99_ms"] = _pct(st.post_ms, 0.99)
        per["post_p99_vs_p50_ratio"] = per["post_p99_ms"] / per["post_p50_ms"]
        per["non_200"] = float(sum(v for k, v in st.statuses.items() if k != 200))
        asked = len(st.get_game_ms) + len(st.legal_ms) + sum(st.statuses.values())
        per["requests_per_move"] = asked / moves
        written = batches_b[1] - batches_a[1]
        per["appends_per_statement"] = (batches_b[0] - batches_a[0]) / written if written else 1.0
        updates = hot_b[0] - hot_a[0]
        per["turns_hot_update_share"] = (hot_b[1] - hot_a[1]) / updates if updates else 0.0
        if EXPLAIN:
            _note("  the append of a two-event command, EXPLAIN (ANALYZE, BUFFERS):")
            for line in plan:
                _note(f"    {line}")
        for calls, ms, hit, dirtied, query in top:
            _note(
                f"  {calls / moves:6.2f} calls/move {ms / moves:7.4f} ms/move "
                f"{hit / max(1, calls):6.1f} blks hit/call {dirtied / max(1, calls):5.2f} "
                f"dirtied/call  {' '.join(query.split())[:110]}"
            )
        if stack.problems():
            _note(f"{stack.problems()} tracebacks in {log}")
        else:
            log.unlink(missing_ok=True)
        return per


async def _statements_on(db: asyncpg.Connection) -> bool:
    """pg_stat_statements in this database, where the server preloads it (else no report)."""
    try:
        await db.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        await db.fetchval("SELECT count(*) FROM pg_stat_statements")
        return True
    except asyncpg.PostgresError:
        return False


async def _turn_updates(db: asyncpg.Connection) -> tuple[int, int]:
    """Updates of the `turns` projection so far, and how many of them were HOT."""
    row = await db.fetchrow(
        "SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = 'turns'"
    )
    return (int(row[0]), int(row[1])) if row else (0, 0)


async def _top_statements(db: asyncpg.Connection, n: int = 10) -> list[tuple[Any, ...]]:
    rows = await db.fetch(
        """SELECT calls, total_exec_time + total_plan_time, shared_blks_hit + shared_blks_read,
                  shared_blks_dirtied, query
           FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database
                                                 WHERE datname = current_database())
           ORDER BY total_exec_time DESC LIMIT $1""",
        n,
    )
    return [tuple(r) for r in rows]


async def _explain_append(db: asyncpg.Connection) -> list[str]:
    """The event store's append with its `turns` row (infra/eventstore/postgres.py) of a
    two-event command to an active game of the run, planned and run in a transaction that
    is rolled back."""
    from infra.eventstore.postgres import _INSERT_WITH_TURN

    row = await db.fetchrow(
        "SELECT game_id::text AS g, version, to_act FROM turns WHERE status = 'active' LIMIT 1"
    )
    if row is None:
        return ["(no active game)"]
    meta = '{"batch": 2, "batch_end": false, "status": "active", "to_act": [1]}'
    args = [f"game-{row['g']}", row["version"], [uuid.uuid4(), uuid.uuid4()], ["a", "b"],
            ['{"x": 1}', '{"y": 2}'], [meta, meta], row["g"], None, "itty-bitty", "active",
            [1], "{}", "{}", None, [], False, "{}"]  # fmt: skip
    tx = db.transaction()
    await tx.start()
    try:
        rows = await db.fetch(f"EXPLAIN (ANALYZE, BUFFERS) {_INSERT_WITH_TURN}", *args)
    finally:
        await tx.rollback()
    return [r[0] for r in rows]


async def insert_floor(clients: int, seconds: float = 6.0, pace: float = 0.0) -> float:
    """Postgres' CPU ms per single-row autocommit INSERT at `clients` connections, as fast
    as they go or, with `pace`, that many INSERTs a second in all (each connection's spread
    evenly). Paced at the stack's own moves a second it is the floor a move is held to: a
    commit's WAL flush and a backend's wake-up cost the same whatever the statement, and at
    saturation more commits share each flush and each wake-up than at the stack's rate."""
    async with bots.own_database(ADMIN_DSN, "insert") as dsn:
        conns = [await asyncpg.connect(dsn) for _ in range(clients)]
        try:
            await conns[0].execute(
                "CREATE TABLE t (id bigserial PRIMARY KEY, v jsonb NOT NULL,"
                " at timestamptz NOT NULL DEFAULT now())"
            )
            done = 0
            stop = time.monotonic() + 1.0 + seconds
            window: list[tuple[int, int]] = []

            gap = clients / pace if pace > 0 else 0.0

            async def worker(conn: asyncpg.Connection, i: int) -> None:
                nonlocal done
                due = time.monotonic() + gap * i / clients  # spread, not in step
                while time.monotonic() < stop:
                    if gap:
                        await asyncio.sleep(max(0.0, due - time.monotonic()))
                        due = max(due + gap, time.monotonic() - gap)
                    await conn.execute("INSERT INTO t (v) VALUES ($1)", '{"a": 1}')
                    done += 1

            async def meter() -> None:
                await asyncio.sleep(1.0)
                window.append((postgres_ticks(), done))
                await asyncio.sleep(seconds)
                window.append((postgres_ticks(), done))

            await asyncio.gather(meter(), *(worker(c, i) for i, c in enumerate(conns)))
            (t0, n0), (t1, n1) = window
            return (t1 - t0) / HZ * 1000 / max(1, n1 - n0)
        finally:
            for c in conns:
                await c.close()


async def run(
    base: Path | None,
    rounds: int,
    levels: list[int],
    out: Out = _default_out,
    one_read: bool = False,
) -> None:
    sides = [("this", ROOT, False)] + ([("one_read", ROOT, True)] if one_read else [])
    sides += [("base", base, False)] if base else []
    for clients in levels:
        results: dict[str, list[dict[str, float]]] = {name: [] for name, _, _ in sides}
        for r in range(rounds):
            order = sides if r % 2 == 0 else sides[::-1]
            for name, root, reads in order:
                per = await one_side(root, clients, prepared=4 * clients, one_read=reads)
                results[name].append(per)
                _note(
                    f"c{clients} round {r + 1} {name}: {per['total']:.2f} ms a move "
                    f"({per['moves_per_s']:.0f} moves/s; game {per['game']:.2f}, Postgres "
                    f"{per['postgres']:.2f}, side {per['side_processes']:.2f}, Redis "
                    f"{per['redis']:.2f})"
                )
        for name, runs in results.items():
            for key in runs[0]:
                value = statistics.median(run_[key] for run_ in runs)
                if key in NOT_CPU:
                    out(f"stack_c{clients}_{name}_{key}", value, NOT_CPU[key])
                else:
                    out(f"stack_c{clients}_{name}_{key}_cpu_per_move_ms", value, "ms")
        floor = await insert_floor(clients)
        out(f"stack_c{clients}_postgres_cpu_per_insert_ms", floor, "ms (bare INSERT)")
        rate = statistics.median(x["moves_per_s"] for x in results["this"])
        paced = await insert_floor(clients, pace=rate)
        out(
            f"stack_c{clients}_postgres_cpu_per_insert_paced_ms",
            paced,
            f"ms (bare INSERT, {rate:.0f} a second: this stack's moves)",
        )
        pg = statistics.median(x["postgres"] for x in results["this"])
        out(f"stack_c{clients}_this_postgres_vs_insert_ratio", pg / floor, "x")
        out(f"stack_c{clients}_this_postgres_vs_paced_insert_ratio", pg / paced, "x")
        if base:
            b = statistics.median(x["postgres"] for x in results["base"])
            out(f"stack_c{clients}_base_postgres_vs_insert_ratio", b / floor, "x")
            out(f"stack_c{clients}_base_postgres_vs_paced_insert_ratio", b / paced, "x")
            for name in [n for n, _, _ in sides if n != "base"]:
                for key in ("total", "side_processes", "game", "postgres", "redis"):
                    this = [x[key] for x in results[name]]
                    old = [x[key] for x in results["base"]]
                    out(
                        f"stack_c{clients}_{key}_cpu_per_move_{name}_vs_base_ratio",
                        statistics.median(this) / statistics.median(old),
                        "x",
                    )
                    out(
                        f"stack_c{clients}_{key}_cpu_per_move_{name}_vs_base_paired_ratio",
                        statistics.median(t / o for t, o in zip(this, old, strict=True)),
                        "x",
                    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", nargs="?", type=Path, help="a baseline checkout")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--clients", default="16", help="levels, e.g. 16,64")
    parser.add_argument(
        "--one-read",
        action="store_true",
        help="also clients that read the view and its moves at once",
    )
    args = parser.parse_args()
    levels = [int(c) for c in args.clients.split(",")]
    base = args.base.resolve() if args.base else None
    asyncio.run(run(base, args.rounds, levels, one_read=args.one_read))
    return 0


if __name__ == "__main__":
    sys.exit(main())
