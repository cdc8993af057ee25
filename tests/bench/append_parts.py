"""Postgres' CPU per game move: the event store's append by parts, and two redesigns.

    .venv/bin/python -m tests.bench.append_parts [--rounds 3] [--clients 16] [--pace 1200] [--seconds 10]

Each variant at the same pace (`--pace` moves a second in all, each of `--clients`
connections its share, spread evenly, a late one going at once without a burst, as
stack_cost.insert_floor paces), each connection playing its own 4 two-seat itty-bitty games
in turn, in a database of its own with the real migrations applied (so no variant inherits
another's table growth), a CHECKPOINT before it starts (so no timed checkpoint and its
full-page images fall in one variant's window and not another's), 1 s of warm-up (as
insert_floor's) and `--seconds` measured:

- `insert`: stack_cost.insert_floor itself, the bare single-row autocommit INSERT.
- `append2_turn`: production `_INSERT_WITH_TURN` (infra/eventstore/postgres.py): the move's
  two events and the game's `turns` row upserted in one statement (its updates HOT: no
  clock, no bot). `append2`: `_INSERT`, the same two events without the row;
  `append1_turn`: one event and the row.
- `command_row_turn` (candidate A): one row per command in a sketch table `commands` (the
  last version and the first, the command id unique, the types as text[], the events' data
  as one jsonb array, the metadata once, tx_id and an identity as the relay orders by, and
  that index), its expected-version check as `_INSERT`'s, and production's `turns` upsert
  (its text, taken from `_INSERT_WITH_TURN`). `command_row`: the same without the row.
- `append2_turn_batched` (candidate B): `append2`, and one more connection, a relay
  consumer's, upserting the `turns` rows of the games moved in each 10 ms in one statement
  (`INSERT ... SELECT FROM unnest(...) ON CONFLICT DO UPDATE`, each game's latest row,
  `waiting_since` the append's `recorded_at`); both statements' CPU counts.

The events' data about 120 bytes of JSON each, their metadata as
services/game/commands.py:_append_events builds it. Rounds alternate the order (reversed
every other round). Figures, medians over rounds: `append_parts_<variant>_pg_cpu_per_move_ms`
(every Postgres process on the machine: the backends, WAL writer, checkpointer, any
autovacuum, and any other database's work), `_pg_backends_cpu_per_move_ms` (the variant's
own connections only; not for `insert`, whose helper measures the first only),
`_moves_per_s` (whether the pace was kept), and the medians of each round's own ratios:
`_vs_insert_ratio`, `_vs_append2_turn_ratio` (all Postgres) and
`_backends_vs_append2_turn_ratio`.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import asyncpg  # noqa: E402
import msgspec  # noqa: E402

from infra.eventstore.api import event_ids  # noqa: E402
from infra.eventstore.postgres import _INSERT, _INSERT_WITH_TURN  # noqa: E402
from infra.servers.migrate import migrate  # noqa: E402
from tests.bench.bots import own_database  # noqa: E402
from tests.bench.proc import backend_ticks, postgres_ticks  # noqa: E402
from tests.bench.stack_cost import ADMIN_DSN, HZ, _default_out, _note, insert_floor  # noqa: E402

WARMUP_S = 1.0  # insert_floor's
GAMES_PER_CLIENT = 4
BATCH_S = 0.010  # candidate B's relay consumer: one upsert of the turns rows per 10 ms
GAME = "itty-bitty"
Out = Callable[..., None]

# Candidate A's table: one row per command, keyed as the sketch has it (the last version).
_COMMANDS = """
CREATE TABLE commands (
    global_position bigint GENERATED ALWAYS AS IDENTITY,
    tx_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
    stream_id text NOT NULL,
    version bigint NOT NULL CHECK (version > 0),  -- the command's last event's
    first_version bigint NOT NULL,
    command_id uuid NOT NULL,
    types text[] NOT NULL,
    data jsonb NOT NULL,                          -- the events' data, an array
    metadata jsonb NOT NULL DEFAULT '{}',         -- once for the command
    recorded_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT commands_pkey PRIMARY KEY (stream_id, version),
    CONSTRAINT commands_command_id_key UNIQUE (command_id)
);
CREATE INDEX commands_relay_order ON commands (tx_id, global_position);
"""

# $1 stream, $2 expected version, $3 command id, $4 types, $5 data (a JSON array), $6 metadata
_COMMAND_INSERT = """
INSERT INTO commands (stream_id, version, first_version, command_id, types, data, metadata)
SELECT $1, $2 + cardinality($4::text[]), $2 + 1, $3, $4, $5::jsonb, $6::jsonb
WHERE $2 = 0 OR EXISTS (SELECT 1 FROM commands WHERE stream_id = $1 AND version = $2)
RETURNING version, global_position, recorded_at
"""


def _command_with_turn() -> str:
    """Production's append-with-turn, its events insert swapped for the command row's: the
    `turns` upsert stays production's own text ($7-$17 as there)."""
    count = "cardinality($3::uuid[])"
    if _INSERT.strip() not in _INSERT_WITH_TURN or count not in _INSERT_WITH_TURN:
        raise RuntimeError("infra/eventstore/postgres.py's append changed: update this bench")
    statement = _INSERT_WITH_TURN.replace(_INSERT.strip(), _COMMAND_INSERT.strip())
    return statement.replace(count, "cardinality($4::text[])")


# Candidate B's relay consumer: many games' rows at once, each game once (its latest). Every
# move here is a turn's (not a word of chat), so the quiet case's CASEs are left out.
_TURNS_BATCH = """
INSERT INTO turns (game_id, room_id, game, version, status, to_act, bots, deadlines,
                   overdue, next_deadline, waiting_since, fire_after, bot_sends, bot_resend_at)
SELECT t.game_id, t.room_id, t.game, t.version, t.status, t.to_act::int[], t.bots::jsonb,
       t.deadlines::jsonb, t.overdue::int[], t.next_deadline, t.waiting_since, NULL, 0, NULL
FROM unnest($1::uuid[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[],
            $7::text[], $8::text[], $9::text[], $10::timestamptz[], $11::timestamptz[])
     AS t(game_id, room_id, game, version, status, to_act, bots, deadlines, overdue,
          next_deadline, waiting_since)
ON CONFLICT (game_id) DO UPDATE SET
    version = EXCLUDED.version, status = EXCLUDED.status, to_act = EXCLUDED.to_act,
    bots = EXCLUDED.bots, deadlines = EXCLUDED.deadlines, overdue = EXCLUDED.overdue,
    next_deadline = EXCLUDED.next_deadline, waiting_since = EXCLUDED.waiting_since,
    fire_after = CASE WHEN turns.next_deadline = EXCLUDED.next_deadline
                      THEN turns.fire_after END,
    bot_sends = 0, bot_resend_at = NULL
WHERE turns.version < EXCLUDED.version
"""


@dataclass(frozen=True)
class Variant:
    events: int  # a move's
    row: str  # "events" (production's table) or "command" (candidate A)
    turn: str  # "inline" (in the append's statement), "batched" (candidate B) or "none"

    def statement(self) -> str:
        if self.row == "command":
            return _command_with_turn() if self.turn == "inline" else _COMMAND_INSERT
        return _INSERT_WITH_TURN if self.turn == "inline" else _INSERT


VARIANTS = {
    "append2_turn": Variant(2, "events", "inline"),
    "append2": Variant(2, "events", "none"),
    "append1_turn": Variant(1, "events", "inline"),
    "command_row_turn": Variant(2, "command", "inline"),
    "command_row": Variant(2, "command", "none"),
    "append2_turn_batched": Variant(2, "events", "batched"),
}
NAMES = ["insert", *VARIANTS]

# a move's events: about 120 bytes of JSON each (a card taken, the next turn)
_DATA = [
    b'{"type":"ittybit_taken","seat":%d,"from_market":true,"card":"ittybit-0287",'
    b'"market":["ittybit-0012","ittybit-0140","ittybit-0391"]}',
    b'{"type":"turn_began","seat":%d,"last_round":false,"supply":{"ittybits":41,'
    b'"collectors":17},"market_slots":[0,1,2,3]}',
]
_TYPES = ["ittybit_taken", "turn_began"]
_encode = msgspec.json.encode


@dataclass
class Game:
    id: str
    room: str
    version: int = 0
    seat: int = 0  # the seat to move

    @property
    def stream(self) -> str:
        return f"game-{self.id}"


def _move(game: Game, v: Variant) -> tuple[list[Any], list[int]]:
    """The append's arguments for `game`'s next move, and who is to act after it."""
    command = uuid.uuid4()
    request = uuid.uuid4().hex
    to_act = [1 - game.seat]
    meta: dict[str, Any] = {
        "command_id": str(command),
        "request": request,
        "seat": game.seat,
        "batch": v.events,
        "batch_end": True,
        "to_act": to_act,
        "status": "active",
        "bots": {},
        "room_id": game.room,
        "game": GAME,
        "trace": {"request_id": request},
    }
    data = [(_DATA[i] % game.seat).decode() for i in range(v.events)]
    if v.row == "command":
        return [
            game.stream,
            game.version,
            command,
            _TYPES[: v.events],
            f"[{','.join(data)}]",
            _encode(meta).decode(),
        ], to_act
    metas = [_encode({**meta, "batch_end": i == v.events - 1}).decode() for i in range(v.events)]
    return [
        game.stream,
        game.version,
        event_ids(command, v.events),
        _TYPES[: v.events],
        data,
        metas,
    ], to_act


async def _variant(v: Variant, clients: int, pace: float, seconds: float) -> dict[str, float]:
    """One variant's window in a fresh migrated database: CPU ms per move, moves/s."""
    async with own_database(ADMIN_DSN, "parts") as dsn:
        database = dsn.rsplit("/", 1)[1]
        conns = [await asyncpg.connect(dsn) for _ in range(clients + (v.turn == "batched"))]
        try:
            await migrate(conns[0])
            if v.row == "command":
                await conns[0].execute(_COMMANDS)
            await conns[0].execute("CHECKPOINT")
            statement = v.statement()
            pending: dict[str, tuple[Any, ...]] = {}  # candidate B: game -> its latest row
            done = 0
            gap = clients / pace
            warm_end = time.monotonic() + WARMUP_S
            stop = warm_end + seconds
            window: list[tuple[float, int, int, int]] = []

            async def player(conn: asyncpg.Connection, i: int) -> None:
                nonlocal done
                games = [
                    Game(str(uuid.uuid4()), str(uuid.uuid4())) for _ in range(GAMES_PER_CLIENT)
                ]
                due = time.monotonic() + gap * i / clients  # spread, not in step
                n = 0
                while time.monotonic() < stop:
                    await asyncio.sleep(max(0.0, due - time.monotonic()))
                    due = max(due + gap, time.monotonic() - gap)
                    game = games[n % len(games)]
                    n += 1
                    args, to_act = _move(game, v)
                    if v.turn == "inline":  # $7-$17 of _INSERT_WITH_TURN
                        args += [
                            game.id,
                            game.room,
                            GAME,
                            "active",
                            to_act,
                            "{}",
                            "{}",
                            None,
                            [],
                            False,
                            "{}",
                        ]
                    rows = await conn.fetch(statement, *args)
                    if not rows:
                        raise RuntimeError(f"{game.stream}: version {game.version} refused")
                    game.version = rows[-1]["version"]
                    game.seat = to_act[0]
                    if v.turn == "batched":
                        pending[game.id] = (
                            game.id,
                            game.room,
                            GAME,
                            game.version,
                            "active",
                            f"{{{to_act[0]}}}",
                            "{}",
                            "{}",
                            "{}",
                            None,
                            rows[-1]["recorded_at"],
                        )
                    done += 1

            async def relay(conn: asyncpg.Connection) -> None:
                due = time.monotonic()
                while time.monotonic() < stop:
                    due = max(due + BATCH_S, time.monotonic() - BATCH_S)
                    await asyncio.sleep(max(0.0, due - time.monotonic()))
                    if pending:
                        rows = list(pending.values())
                        pending.clear()
                        await conn.execute(
                            _TURNS_BATCH, *(list(c) for c in zip(*rows, strict=True))
                        )

            async def meter() -> None:
                for at in (warm_end, stop):
                    await asyncio.sleep(max(0.0, at - time.monotonic()))
                    window.append(
                        (time.monotonic(), postgres_ticks(), backend_ticks(database), done)
                    )

            tasks = [meter(), *(player(c, i) for i, c in enumerate(conns[:clients]))]
            if v.turn == "batched":
                tasks.append(relay(conns[clients]))
            await asyncio.gather(*tasks)
        finally:
            for c in conns:
                await c.close()
    (t0, pg0, be0, n0), (t1, pg1, be1, n1) = window
    moves = max(1, n1 - n0)
    return {
        "pg": (pg1 - pg0) / HZ * 1000 / moves,
        "backends": (be1 - be0) / HZ * 1000 / moves,
        "moves_per_s": moves / (t1 - t0),
    }


async def run(
    rounds: int,
    clients: int,
    pace: float,
    seconds: float,
    names: list[str] = NAMES,
    out: Out = _default_out,
) -> None:
    results: dict[str, list[dict[str, float]]] = {name: [] for name in names}
    for r in range(rounds):
        for name in names if r % 2 == 0 else names[::-1]:
            if name == "insert":
                admin = await asyncpg.connect(ADMIN_DSN)
                try:
                    await admin.execute("CHECKPOINT")
                finally:
                    await admin.close()
                per = {"pg": await insert_floor(clients, seconds, pace)}
            else:
                per = await _variant(VARIANTS[name], clients, pace, seconds)
            results[name].append(per)
            more = (
                f", backends {per['backends']:.4f}, {per['moves_per_s']:.0f}/s"
                if "backends" in per
                else ""
            )
            _note(f"round {r + 1} {name}: Postgres {per['pg']:.4f} ms a move{more}")
    p = "append_parts"
    unit = f"ms ({clients} connections, {pace:.0f} moves a second)"
    for name, runs in results.items():
        out(f"{p}_{name}_pg_cpu_per_move_ms", statistics.median(x["pg"] for x in runs), unit)
        if name == "insert":
            continue
        out(
            f"{p}_{name}_pg_backends_cpu_per_move_ms",
            statistics.median(x["backends"] for x in runs),
            unit,
        )
        out(f"{p}_{name}_moves_per_s", statistics.median(x["moves_per_s"] for x in runs), "moves/s")
    for name, runs in results.items():
        for base, key, what in (
            ("insert", "pg", ""),
            ("append2_turn", "pg", ""),
            ("append2_turn", "backends", "backends_"),
        ):
            if name in (base, "insert") or base not in results:
                continue
            ratios = [x[key] / b[key] for x, b in zip(runs, results[base], strict=True) if b[key]]
            if ratios:
                out(f"{p}_{name}_{what}vs_{base}_ratio", statistics.median(ratios), "x")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--pace", type=float, default=1200.0, help="moves a second in all")
    parser.add_argument("--seconds", type=float, default=10.0, help="each window")
    parser.add_argument("--variants", default=",".join(NAMES), help="some of them, in order")
    args = parser.parse_args()
    names = args.variants.split(",")
    if unknown := [n for n in names if n not in NAMES]:
        parser.error(f"unknown variants {unknown}: of {NAMES}")
    asyncio.run(run(args.rounds, args.clients, args.pace, args.seconds, names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
