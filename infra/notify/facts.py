"""What `derive.notifications` needs of a game beyond the envelope, read from Postgres."""

from __future__ import annotations

import json
import uuid
from datetime import datetime

import asyncpg
import msgspec

from contracts.game import SeatInfo
from contracts.notifications import GameResult
from contracts.streams import GameEvent
from games.api import Outcome
from infra.notify.derive import GameFacts

# `before`: to_act as the last command before this envelope's left it (the events of the
# envelope's own command before it are not batch ends); none at all: this is the set-up.
# `outcome`: the envelope's own event's, when it is the game_over that ends the command that
# ended the game (games/table.py: always its last event); a key lookup, so asked every time.
_FACTS = """
SELECT g.seats::text AS seats, t.deadlines::text AS deadlines,
       (SELECT (e.metadata -> 'to_act')::text FROM events e
        WHERE e.stream_id = 'game-' || g.id::text AND e.version < $2
          AND coalesce((e.metadata ->> 'batch_end')::boolean, true)
        ORDER BY e.version DESC LIMIT 1) AS before,
       (SELECT (e.data -> 'outcome')::text FROM events e
        WHERE e.stream_id = 'game-' || g.id::text AND e.version = $2
          AND e.type = 'game_over') AS outcome
FROM games g LEFT JOIN turns t ON t.game_id = g.id
WHERE g.id = $1"""


def players_of(seats_json: str | bytes) -> dict[int, str]:
    """seat -> player id of the seats people took (a game's `seats` column)."""
    seats = msgspec.json.decode(seats_json, type=list[SeatInfo])
    return {s.seat: s.player_id for s in seats if s.bot is None}


def deadlines_of(deadlines_json: str | None) -> dict[int, datetime]:
    """A `turns.deadlines` value (seat -> ISO time) as datetimes."""
    if not deadlines_json:
        return {}
    return {int(k): datetime.fromisoformat(v) for k, v in json.loads(deadlines_json).items()}


async def read_facts(conn: asyncpg.Pool | asyncpg.Connection, event: GameEvent) -> GameFacts | None:
    """The game's facts for one envelope (None: no such game here, e.g. another database).

    The deadlines are the projection's now, which may be later than the envelope: a seat
    still awaited has the deadline its turn started with (set once per turn); one that
    acted since gets a later `your_turn` of its own."""
    row = await conn.fetchrow(_FACTS, uuid.UUID(event.game_id), event.version)
    if row is None:
        return None
    before = None if row["before"] is None else [int(s) for s in json.loads(row["before"])]
    return GameFacts(
        players=players_of(row["seats"]),
        deadlines=deadlines_of(row["deadlines"]),
        before=before,
        outcome=result_of(row["outcome"]),
    )


def result_of(outcome_json: str | None) -> GameResult | None:
    """A game_over's `outcome` (games.api.Outcome as stored) as the news tells it."""
    if outcome_json is None:
        return None
    outcome = msgspec.json.decode(outcome_json, type=Outcome)
    return GameResult(
        winners=outcome.winners,
        ranks=outcome.ranks,
        scores=outcome.scores,
        forfeited=[int(s) for s in outcome.detail.get("forfeited", ())],
    )
