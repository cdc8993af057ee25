"""What a bot may know: its own seat's view and legal actions, rebuilt from the event store.

The full state exists only inside `observe` and is dropped before any policy runs.
"""

from __future__ import annotations

import contextlib
from typing import Any

import asyncpg
import msgspec

from games.registry import get as get_rules
from games.table import TABLE_EVENT_TYPES, TableState, snapshot_schema


class Observation(msgspec.Struct, frozen=True, kw_only=True):
    game: str
    seat: int
    version: int
    view: dict[str, Any]  # exactly what GET /v1/games/{id} shows this seat: {public, private}
    legal: list[Any]  # the engine's action Structs for this seat
    to_act: list[int]


async def observe(
    conn: asyncpg.Connection, game: str, game_id: str, seat: int
) -> Observation | None:
    rules = get_rules(game)
    if rules is None:
        raise ValueError(f"unknown game {game!r}")
    stream = f"game-{game_id}"
    state, after = None, 0
    snap = await conn.fetchrow(
        "SELECT version, schema_ver, state FROM snapshots WHERE stream_id = $1", stream
    )
    if snap is not None and snap["schema_ver"] == snapshot_schema(
        rules.state_type, rules.schema_version
    ):
        with contextlib.suppress(msgspec.DecodeError, msgspec.ValidationError):
            state, _ = msgspec.msgpack.decode(
                snap["state"], type=tuple[rules.state_type, TableState]
            )
            after = snap["version"]
    rows = await conn.fetch(
        "SELECT version, type, data::text AS data FROM events"
        " WHERE stream_id = $1 AND version > $2 ORDER BY version",
        stream,
        after,
    )
    if state is None and not rows:
        return None
    decoder = msgspec.json.Decoder(rules.event_type)
    for row in rows:
        if row["type"] not in TABLE_EVENT_TYPES:  # clocks and seats: nothing a policy reads
            state = rules.evolve(state, decoder.decode(row["data"]))
    version = rows[-1]["version"] if rows else after
    return Observation(
        game=game,
        seat=seat,
        version=version,
        view=msgspec.to_builtins(rules.view(state, seat)),
        legal=list(rules.legal_actions(state, seat)),
        to_act=sorted(rules.to_act(state)),
    )
